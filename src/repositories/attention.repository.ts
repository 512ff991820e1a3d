// SQL for the console's "needs attention" queue (services/attention.service.ts, docs/admin.md#needs-attention) and
// for finding the order of a shipment to move: both read Live orders in progress through the partial index of
// migrations/0035_attention.sql, a bounded number at a time.
import type { Queryable } from '../adapters/database.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { readOrders } from './orders.repository.ts'

/**
 * The order holding shipment `shp_<shipmentNumber>`: from its lab job once it was submitted (the primary key),
 * else among the orders in progress (the shipment is allocated, its print files being made: only an order in
 * progress has such a shipment). Undefined when none has it.
 */
export async function findOrderNumberOfShipment(db: Queryable, shipmentNumber: number): Promise<number | undefined> {
  const rows = await db.query<{ orderNumber: number | string }>(
    `SELECT order_id AS "orderNumber" FROM lab_jobs WHERE shipment_id = $1
     UNION ALL
     (SELECT id FROM orders WHERE stage = 'InProgress' AND pipeline -> 'shipments' ? ('shp_' || $1::text) LIMIT 1)
     LIMIT 1`,
    [shipmentNumber],
  )
  const row = rows[0]
  return row === undefined ? undefined : Number(row.orderNumber)
}

/**
 * Live orders in progress, out of their pause window at `now`, least recently changed first: at most `limit` of them (the
 * queue's bound). Drafts are left out: they wait for their merchant, not for anything the operator could do, and
 * old ones would otherwise fill the bound.
 */
export async function listLiveOrdersInProgress(db: Queryable, limit: number, now: Date): Promise<PipelineOrder[]> {
  const rows = await db.query<{ id: number | string }>(
    `SELECT id FROM orders
      WHERE stage = 'InProgress' AND environment = 'live' AND (on_hold_until IS NULL OR on_hold_until <= $2)
        AND draft_expires_at IS NULL
      ORDER BY last_updated, id LIMIT $1`,
    [limit, now],
  )
  return readOrders(
    db,
    rows.map((row) => Number(row.id)),
  )
}
