// SQL for lab jobs (migrations/0002_pipeline.sql): which lab holds which shipment of which order, and in what
// state, for the lab API's job list. The order document stays the source of truth.
import type { Queryable } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'

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
