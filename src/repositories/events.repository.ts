// SQL of order events: the outbox (order_events) that the feed reads and callbacks deliver
// (repositories/callback-deliveries.repository.ts).
import type { Queryable } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'
import { deleteInBatch } from './row-counts.ts'

/** The last sequence number of the order's events (0 for none); call under the order's row lock. */
export async function lastOrderSequence(tx: Queryable, orderNumber: number): Promise<number> {
  const rows = await tx.query<{ last: number | string | null }>(
    'SELECT max(sequence) AS last FROM order_events WHERE order_id = $1',
    [orderNumber],
  )
  return Number(rows[0]?.last ?? 0)
}

export async function drawEventIds(tx: Queryable, count: number): Promise<number[]> {
  const rows = await tx.query<{ id: number | string }>(
    "SELECT nextval('event_id_seq') AS id FROM generate_series(1, $1::int)",
    [count],
  )
  return rows.map((row) => Number(row.id))
}

export interface EventRow {
  id: number
  /** Null for a test callback's event and a lab's event (no order; `sequence` 0). */
  orderNumber: number | null
  /** Null for a lab's event: it belongs to no merchant. */
  accountId: number | null
  /** The lab a lab event (lab.job.*) is for; absent or null for a merchant's. */
  labCode?: string | null
  environment: Environment
  sequence: number
  type: string
  createdAt: Date
  body: string
  /** An account's event about no order that belongs in the feed (an endpoint disabled); false when absent. */
  accountEvent?: boolean
}

export async function insertEvent(tx: Queryable, event: EventRow): Promise<void> {
  await tx.query(
    `INSERT INTO order_events (id, order_id, account_id, environment, sequence, type, created_at, body, lab_code,
                               account_event)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      event.id,
      event.orderNumber,
      event.accountId,
      event.environment,
      event.sequence,
      event.type,
      event.createdAt,
      event.body,
      event.labCode ?? null,
      event.accountEvent ?? false,
    ],
  )
}

/**
 * The account's events after event number `afterId`, oldest first: its orders' events and its account events
 * (test callbacks' events are not part of the feed); only one order's when `orderNumber` is set.
 * Two statements rather than `$n IS NULL OR ...`, so that a generic plan of the order's query uses the order's
 * own index (order_id, sequence) instead of walking the account's whole feed.
 */
export async function listEvents(
  db: Queryable,
  filter: { accountId: number; environment: Environment; afterId: number; orderNumber: number | null; limit: number },
): Promise<{ id: number; body: string }[]> {
  const params: unknown[] = [filter.accountId, filter.environment, filter.afterId, filter.limit]
  const ofOrder = filter.orderNumber === null ? ' AND (order_id IS NOT NULL OR account_event)' : ' AND order_id = $5'
  if (filter.orderNumber !== null) params.push(filter.orderNumber)
  const rows = await db.query<{ id: number | string; body: string }>(
    `SELECT id, body FROM order_events
      WHERE account_id = $1 AND environment = $2 AND id > $3${ofOrder}
      ORDER BY id LIMIT $4`,
    params,
  )
  return rows.map((row) => ({ id: Number(row.id), body: row.body }))
}

export async function findEvent(db: Queryable, id: number): Promise<EventRow | undefined> {
  const rows = await db.query<EventRow>(
    `SELECT id, order_id AS "orderNumber", account_id AS "accountId", environment, sequence, type,
            created_at AS "createdAt", body, lab_code AS "labCode"
       FROM order_events WHERE id = $1`,
    [id],
  )
  const row = rows[0]
  return (
    row && {
      ...row,
      id: Number(row.id),
      orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
      accountId: row.accountId === null ? null : Number(row.accountId),
    }
  )
}

/**
 * Deletes up to `limit` events written before `before` that no delivery refers to any more, except each
 * order's latest event: the next event's `sequence` continues from it (`lastOrderSequence`). Test callbacks'
 * events (no order) have no such successor to keep. Returns how many went. It reads callback_deliveries only to
 * keep the events they refer to; it answers about events, so it lives here.
 */
export async function deleteUnneededEvents(db: Queryable, filter: { before: Date; limit: number }): Promise<number> {
  return deleteInBatch(db, {
    table: 'order_events',
    doomed: `SELECT e.id FROM order_events e
              WHERE e.created_at < $1
                AND NOT EXISTS (SELECT 1 FROM callback_deliveries d WHERE d.event_id = e.id)
                AND (e.order_id IS NULL
                     OR EXISTS (SELECT 1 FROM order_events later
                                 WHERE later.order_id = e.order_id AND later.sequence > e.sequence))
              ORDER BY e.id LIMIT $2`,
    params: [filter.before, filter.limit],
  })
}

/** A feed event that a webhook endpoint has no delivery of that got or may still get through. */
export interface MissedEventRow {
  id: number
  orderNumber: number | null
  createdAt: Date
  body: string
  /** The newest failed delivery of the event to the endpoint, if any: what a redelivery repeats. */
  lastFailedDeliveryId: number | null
}

/**
 * The feed's events of the endpoint's account and environment written at or after `since`, after event number
 * `afterId`, oldest first, that have no delivery to the endpoint `delivered` or `pending` (its filters are the
 * caller's to check): what redeliver-missed sends again. Call it under the endpoint's row lock, so that two requests
 * cannot both find an event missing.
 */
export async function listMissedEvents(
  db: Queryable,
  filter: {
    accountId: number
    environment: Environment
    webhookId: number
    since: Date
    afterId: number
    limit: number
  },
): Promise<MissedEventRow[]> {
  const rows = await db.query<{
    id: number | string
    orderNumber: number | string | null
    createdAt: Date
    body: string
    lastFailedDeliveryId: number | string | null
  }>(
    `SELECT e.id, e.order_id AS "orderNumber", e.created_at AS "createdAt", e.body,
            (SELECT max(f.id) FROM callback_deliveries f
              WHERE f.event_id = e.id AND f.webhook_id = $3 AND f.status = 'failed') AS "lastFailedDeliveryId"
       FROM order_events e
      WHERE e.account_id = $1 AND e.environment = $2 AND (e.order_id IS NOT NULL OR e.account_event)
        AND e.created_at >= $4 AND e.id > $5
        AND NOT EXISTS (SELECT 1 FROM callback_deliveries d
                         WHERE d.event_id = e.id AND d.webhook_id = $3 AND d.status IN ('delivered', 'pending'))
      ORDER BY e.id LIMIT $6`,
    [filter.accountId, filter.environment, filter.webhookId, filter.since, filter.afterId, filter.limit],
  )
  return rows.map((row) => ({
    id: Number(row.id),
    orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
    createdAt: row.createdAt,
    body: row.body,
    lastFailedDeliveryId: row.lastFailedDeliveryId === null ? null : Number(row.lastFailedDeliveryId),
  }))
}
