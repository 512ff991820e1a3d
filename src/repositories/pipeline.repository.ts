// SQL of the fulfilment pipeline: the locked read-modify-write of an order, shipment IDs, lab jobs.
import type { Queryable } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'
import type { OrderDocument } from '../domain/order.ts'
import { isAwaitingPayment, type PipelineOrder, pipelineOf } from '../domain/order-pipeline.ts'
import { parseSandboxScenario } from '../domain/sandbox-scenarios.ts'

interface OrderRow {
  accountId: number | string
  environment: Environment
  onHoldUntil: Date | null
  sandboxScenario: string | null
  document: string
  pipeline: unknown
}

function toPipelineOrder(orderNumber: number, row: OrderRow): PipelineOrder {
  return {
    orderNumber,
    accountId: Number(row.accountId),
    environment: row.environment,
    onHoldUntil: row.onHoldUntil,
    sandboxScenario: parseSandboxScenario(row.sandboxScenario) ?? null,
    document: JSON.parse(row.document) as OrderDocument,
    pipeline: pipelineOf(row.pipeline),
  }
}

const ORDER_COLUMNS = `account_id AS "accountId", environment, on_hold_until AS "onHoldUntil",
  sandbox_scenario AS "sandboxScenario", document, pipeline`

/** Reads an order and locks its row until the transaction ends: pipeline steps on one order never interleave. */
export async function lockOrder(tx: Queryable, orderNumber: number): Promise<PipelineOrder | undefined> {
  const rows = await tx.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1 FOR UPDATE`, [orderNumber])
  return rows[0] && toPipelineOrder(orderNumber, rows[0])
}

/** Reads an order without locking it (to prepare slow work outside a transaction). */
export async function readOrder(db: Queryable, orderNumber: number): Promise<PipelineOrder | undefined> {
  const rows = await db.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`, [orderNumber])
  return rows[0] && toPipelineOrder(orderNumber, rows[0])
}

/** The trace id of the request that created the order (kept in its pipeline state), for log lines. */
export async function readOrderTraceId(db: Queryable, orderNumber: number): Promise<string | null> {
  const rows = await db.query<{ traceId: string | null }>(
    `SELECT pipeline->>'traceId' AS "traceId" FROM orders WHERE id = $1`,
    [orderNumber],
  )
  return rows[0]?.traceId ?? null
}

/** Writes the document and pipeline state back, with the columns derived from them (and the hold's end). */
export async function saveOrder(tx: Queryable, order: PipelineOrder): Promise<void> {
  await tx.query(
    `UPDATE orders SET document = $2, pipeline = $3, stage = $4, last_updated = $5, on_hold_until = $6,
                       awaiting_payment = $7
            WHERE id = $1`,
    [
      order.orderNumber,
      JSON.stringify(order.document),
      JSON.stringify(order.pipeline),
      order.document.status.stage,
      order.document.lastUpdated,
      order.onHoldUntil,
      isAwaitingPayment(order.pipeline),
    ],
  )
}

export async function drawShipmentIds(tx: Queryable, count: number): Promise<string[]> {
  if (count === 0) return []
  const rows = await tx.query<{ id: number | string }>(
    "SELECT nextval('shipment_id_seq') AS id FROM generate_series(1, $1::int)",
    [count],
  )
  return rows.map((row) => `shp_${Number(row.id)}`)
}

export interface LabJobRow {
  shipmentNumber: number
  orderNumber: number
  labCode: string
  environment: Environment
  state: string
}

export async function upsertLabJob(tx: Queryable, job: LabJobRow, at: Date): Promise<void> {
  await tx.query(
    `INSERT INTO lab_jobs (shipment_id, order_id, lab_code, environment, state, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (shipment_id) DO UPDATE SET state = EXCLUDED.state, updated_at = EXCLUDED.updated_at`,
    [job.shipmentNumber, job.orderNumber, job.labCode, job.environment, job.state, at],
  )
}

export async function findLabJob(db: Queryable, shipmentNumber: number): Promise<LabJobRow | undefined> {
  const rows = await db.query<LabJobRow>(
    `SELECT shipment_id AS "shipmentNumber", order_id AS "orderNumber", lab_code AS "labCode", environment, state
       FROM lab_jobs WHERE shipment_id = $1`,
    [shipmentNumber],
  )
  const row = rows[0]
  return row && { ...row, shipmentNumber: Number(row.shipmentNumber), orderNumber: Number(row.orderNumber) }
}

export async function listLabJobs(db: Queryable, labCode: string, states: readonly string[]): Promise<LabJobRow[]> {
  const rows = await db.query<LabJobRow>(
    `SELECT shipment_id AS "shipmentNumber", order_id AS "orderNumber", lab_code AS "labCode", environment, state
       FROM lab_jobs WHERE lab_code = $1 AND state = ANY($2::text[]) ORDER BY shipment_id`,
    [labCode, states],
  )
  return rows.map((row) => ({
    ...row,
    shipmentNumber: Number(row.shipmentNumber),
    orderNumber: Number(row.orderNumber),
  }))
}
