// SQL for lab availability (migrations/0015_lab_availability.sql): a lab's pause, its reported capacity and the
// jobs it was given on its date.
import type { Queryable } from '../adapters/database.ts'
import type { LabAvailabilityState } from '../domain/lab-availability.ts'

const COLUMNS = `lab_code AS "labCode", paused_at IS NOT NULL AS paused, capacity_date AS "capacityDate",
  capacity_jobs AS "capacityJobs", capacity_base AS "capacityBase", given_date AS "givenDate",
  given_jobs AS "givenJobs"`

function toState(row: LabAvailabilityState): LabAvailabilityState {
  return {
    ...row,
    capacityJobs: row.capacityJobs === null ? null : Number(row.capacityJobs),
    capacityBase: Number(row.capacityBase),
    givenJobs: Number(row.givenJobs),
  }
}

/** Every lab's stored availability (labs without a row have the defaults). */
export async function listLabAvailability(db: Queryable): Promise<LabAvailabilityState[]> {
  const rows = await db.query<LabAvailabilityState>(`SELECT ${COLUMNS} FROM lab_availability ORDER BY lab_code`)
  return rows.map(toState)
}

/**
 * The rows of these labs, locked until the transaction ends (made first when missing), in lab code order so that
 * allocations lock them in the same order.
 */
export async function lockLabAvailability(
  tx: Queryable,
  labCodes: readonly string[],
  at: Date,
): Promise<LabAvailabilityState[]> {
  if (labCodes.length === 0) return []
  await tx.query(
    `INSERT INTO lab_availability (lab_code, updated_at) SELECT code, $2 FROM unnest($1::text[]) AS code
     ON CONFLICT (lab_code) DO NOTHING`,
    [labCodes, at],
  )
  const rows = await tx.query<LabAvailabilityState>(
    `SELECT ${COLUMNS} FROM lab_availability WHERE lab_code = ANY($1::text[]) ORDER BY lab_code FOR UPDATE`,
    [labCodes],
  )
  return rows.map(toState)
}

/** Counts `jobs` more given to the lab on its date `date` (a new date starts the count again). */
export async function addJobsGiven(
  tx: Queryable,
  labCode: string,
  date: string,
  jobs: number,
  at: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO lab_availability (lab_code, given_date, given_jobs, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (lab_code) DO UPDATE SET
       given_jobs = CASE WHEN lab_availability.given_date = EXCLUDED.given_date
                         THEN lab_availability.given_jobs + EXCLUDED.given_jobs ELSE EXCLUDED.given_jobs END,
       given_date = EXCLUDED.given_date, updated_at = EXCLUDED.updated_at`,
    [labCode, date, jobs, at],
  )
}

/**
 * Records the lab's report that it can take `jobs` more on its date `date`, on top of those it was given that date
 * so far; the lab's state after it.
 */
export async function setLabCapacity(
  db: Queryable,
  labCode: string,
  date: string,
  jobs: number,
  at: Date,
): Promise<LabAvailabilityState> {
  const rows = await db.query<LabAvailabilityState>(
    `INSERT INTO lab_availability (lab_code, capacity_date, capacity_jobs, capacity_reported_at, updated_at)
     VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (lab_code) DO UPDATE SET
       capacity_date = EXCLUDED.capacity_date, capacity_jobs = EXCLUDED.capacity_jobs,
       capacity_base = CASE WHEN lab_availability.given_date = EXCLUDED.capacity_date
                            THEN lab_availability.given_jobs ELSE 0 END,
       capacity_reported_at = EXCLUDED.capacity_reported_at, updated_at = EXCLUDED.updated_at
     RETURNING ${COLUMNS}`,
    [labCode, date, jobs, at],
  )
  return toState(rows[0] as LabAvailabilityState)
}

/** Pauses the lab (keeping the moment of an earlier pause) or resumes it. */
export async function setLabPaused(db: Queryable, labCode: string, paused: boolean, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO lab_availability AS current (lab_code, paused_at, updated_at)
     VALUES ($1, CASE WHEN $2::boolean THEN $3::timestamptz END, $3)
     ON CONFLICT (lab_code) DO UPDATE SET
       paused_at = CASE WHEN $2::boolean THEN COALESCE(current.paused_at, $3::timestamptz) END, updated_at = $3`,
    [labCode, paused, at],
  )
}

/**
 * Whether the lab is paused, its row locked until the transaction ends (made, unpaused, when it has none): of two
 * transactions pausing a lab at once, the second sees the first's pause and does not report a change.
 */
export async function lockLabPaused(tx: Queryable, labCode: string, at: Date): Promise<boolean> {
  await tx.query(
    `INSERT INTO lab_availability (lab_code, updated_at) VALUES ($1, $2) ON CONFLICT (lab_code) DO NOTHING`,
    [labCode, at],
  )
  const rows = await tx.query<{ paused: boolean }>(
    'SELECT paused_at IS NOT NULL AS paused FROM lab_availability WHERE lab_code = $1 FOR UPDATE',
    [labCode],
  )
  return rows[0]?.paused === true
}
