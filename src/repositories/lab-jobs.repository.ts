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

/**
 * A lab's Live jobs in `states`, most recently changed first, a page at a time (`limit`, `offset`). With `search`
 * (lower case), only jobs where it occurs in the shipment id, the order id, the order's merchant reference, the
 * recipient's name (on the order, or as the lab was given it) or a tracking number of the shipment or its parcels.
 * Joins orders for those, so it sits with the table it searches.
 */
export async function searchLabJobs(
  db: Queryable,
  input: { labCode: string; states: readonly string[]; search: string | null; limit: number; offset: number },
): Promise<LabJobRow[]> {
  // The searched texts are joined by line breaks, which a search (one line) cannot contain: no match spans two.
  const rows = await db.query<LabJobRow>(
    `SELECT j.shipment_id AS "shipmentNumber", j.order_id AS "orderNumber", j.lab_code AS "labCode",
            j.environment, j.state
       FROM lab_jobs j JOIN orders o ON o.id = j.order_id
      WHERE j.lab_code = $1 AND j.environment = 'live' AND j.state = ANY($2::text[])
        AND ($3::text IS NULL OR position($3::text IN lower(concat_ws(chr(10),
              'shp_' || j.shipment_id, 'ord_' || j.order_id, o.merchant_reference,
              o.document::jsonb #>> '{recipient,name}',
              o.pipeline #>> ARRAY['shipments', 'shp_' || j.shipment_id, 'submitted', 'recipient', 'name'],
              (SELECT string_agg(concat_ws(chr(10), s #>> '{tracking,number}',
                        (SELECT string_agg(p #>> '{tracking,number}', chr(10))
                           FROM jsonb_array_elements(coalesce(s -> 'parcels', '[]'::jsonb)) AS p)), chr(10))
                 FROM jsonb_array_elements(o.document::jsonb -> 'shipments') AS s
                WHERE s ->> 'id' = 'shp_' || j.shipment_id)))) > 0)
      ORDER BY j.updated_at DESC, j.shipment_id DESC
      LIMIT $4 OFFSET $5`,
    [input.labCode, input.states, input.search, input.limit, input.offset],
  )
  return rows.map((row) => ({
    ...row,
    shipmentNumber: Number(row.shipmentNumber),
    orderNumber: Number(row.orderNumber),
  }))
}

/** One lab's Live work in figures, for the operator console (docs/admin.md#labs). */
export interface LabWorkFigures {
  labCode: string
  /** Jobs in `openStates` (given to the lab, not yet shipped, rejected or cancelled). */
  jobsInFlight: number
  /** When the lab last moved a job past `submitted` (a report through the lab API or portal); null if never. */
  lastReportAt: Date | null
  /** Jobs submitted since `windowStart`, and how many of them the lab rejected. */
  submittedInWindow: number
  rejectedInWindow: number
  /** Median seconds from submission to dispatch of the jobs dispatched since each start; null without any. */
  medianDispatchSecondsSinceShort: number | null
  medianDispatchSecondsSinceLong: number | null
}

/**
 * Each lab's Live jobs in figures. A job's submission time is the one its order's pipeline state keeps
 * (`shipments.<id>.submitted.at`, absent from jobs submitted before it was kept, which these figures leave out) and
 * its dispatch the shipment's `dispatchDate` in the order document; joins orders for both, so it sits with the
 * table it counts.
 */
export async function labWorkFigures(
  db: Queryable,
  input: { openStates: readonly string[]; windowStart: Date; shortWindowStart: Date; longWindowStart: Date },
): Promise<LabWorkFigures[]> {
  // Only jobs in flight and jobs changed since the earliest window start can count (a job is submitted, and
  // reported dispatched, before its last change), so older history is never read.
  const earliest = new Date(
    Math.min(input.windowStart.getTime(), input.shortWindowStart.getTime(), input.longWindowStart.getTime()),
  )
  const rows = await db.query<Record<keyof LabWorkFigures, unknown>>(
    `WITH jobs AS (
       SELECT j.lab_code, j.state,
              (o.pipeline #>> ARRAY['shipments', 'shp_' || j.shipment_id, 'submitted', 'at'])::timestamptz
                AS submitted_at,
              (SELECT (s ->> 'dispatchDate')::timestamptz
                 FROM jsonb_array_elements(o.document::jsonb -> 'shipments') AS s
                WHERE s ->> 'id' = 'shp_' || j.shipment_id) AS dispatched_at
         FROM lab_jobs j JOIN orders o ON o.id = j.order_id
        WHERE j.environment = 'live' AND (j.state = ANY($1::text[]) OR j.updated_at >= $5)
     ),
     figures AS (
       SELECT lab_code,
              count(*) FILTER (WHERE state = ANY($1::text[])) AS jobs_in_flight,
              count(*) FILTER (WHERE submitted_at >= $2) AS submitted_in_window,
              count(*) FILTER (WHERE submitted_at >= $2 AND state = 'rejected') AS rejected_in_window,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM dispatched_at - submitted_at))
                FILTER (WHERE state = 'shipped' AND dispatched_at >= $3) AS median_short,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM dispatched_at - submitted_at))
                FILTER (WHERE state = 'shipped' AND dispatched_at >= $4) AS median_long
         FROM jobs GROUP BY lab_code
     ),
     reports AS (
       SELECT lab_code, max(updated_at) AS last_report_at FROM lab_jobs
        WHERE environment = 'live' AND state <> 'submitted' GROUP BY lab_code
     )
     SELECT coalesce(f.lab_code, r.lab_code) AS "labCode", coalesce(f.jobs_in_flight, 0) AS "jobsInFlight",
            r.last_report_at AS "lastReportAt", coalesce(f.submitted_in_window, 0) AS "submittedInWindow",
            coalesce(f.rejected_in_window, 0) AS "rejectedInWindow",
            f.median_short AS "medianDispatchSecondsSinceShort", f.median_long AS "medianDispatchSecondsSinceLong"
       FROM figures f FULL JOIN reports r ON r.lab_code = f.lab_code
      ORDER BY 1`,
    [input.openStates, input.windowStart, input.shortWindowStart, input.longWindowStart, earliest],
  )
  const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value))
  return rows.map((row) => ({
    labCode: String(row.labCode),
    jobsInFlight: Number(row.jobsInFlight),
    lastReportAt: row.lastReportAt === null ? null : new Date(row.lastReportAt as string | Date),
    submittedInWindow: Number(row.submittedInWindow),
    rejectedInWindow: Number(row.rejectedInWindow),
    medianDispatchSecondsSinceShort: numberOrNull(row.medianDispatchSecondsSinceShort),
    medianDispatchSecondsSinceLong: numberOrNull(row.medianDispatchSecondsSinceLong),
  }))
}
