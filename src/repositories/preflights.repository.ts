// SQL for stand-alone preflights (migrations/0031_preflights.sql): written by POST /v4.0/files/preflight and the
// run-preflight job, read scoped to the caller's account and environment, deleted by the expire-preflights job.
import type { Queryable } from '../adapters/database.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import type { PreflightStatus } from '../domain/preflight.ts'

export interface StoredPreflight {
  id: number
  accountId: number
  environment: AccountScope['environment']
  /** The request as JSON text (the service reads it). */
  request: string
  contentType: string
  bytes: number
  blobKey: string | null
  status: PreflightStatus
  /** The report as JSON text; null until inspected. */
  report: string | null
  createdAt: Date
  updatedAt: Date
  expiresAt: Date
}

interface PreflightRow {
  id: number | string
  account_id: number | string
  environment: AccountScope['environment']
  request: string
  content_type: string
  bytes: number | string
  blob_key: string | null
  status: PreflightStatus
  report: string | null
  created_at: Date | string
  updated_at: Date | string
  expires_at: Date | string
}

const COLUMNS =
  'id, account_id, environment, request, content_type, bytes, blob_key, status, report, created_at, updated_at, expires_at'

function toStored(row: PreflightRow): StoredPreflight {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    environment: row.environment,
    request: row.request,
    contentType: row.content_type,
    bytes: Number(row.bytes),
    blobKey: row.blob_key,
    status: row.status,
    report: row.report,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    expiresAt: new Date(row.expires_at),
  }
}

/** A new preflight's number, drawn before its file is stored under a key naming it. */
export async function nextPreflightNumber(db: Queryable): Promise<number> {
  const rows = await db.query<{ id: number | string }>("SELECT nextval('preflight_id_seq') AS id")
  return Number(rows[0]?.id)
}

export async function insertPreflight(
  db: Queryable,
  scope: AccountScope,
  row: {
    id: number
    request: string
    contentType: string
    bytes: number
    blobKey: string
    createdAt: Date
    expiresAt: Date
  },
): Promise<StoredPreflight> {
  const rows = await db.query<PreflightRow>(
    `INSERT INTO preflights (id, account_id, environment, request, content_type, bytes, blob_key, status, report,
       created_at, updated_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'Pending', NULL, $8, $8, $9)
     RETURNING ${COLUMNS}`,
    [
      row.id,
      scope.accountId,
      scope.environment,
      row.request,
      row.contentType,
      row.bytes,
      row.blobKey,
      row.createdAt,
      row.expiresAt,
    ],
  )
  return toStored(rows[0] as PreflightRow)
}

/** The scope's preflight with this number: another account's or environment's is not found. */
export async function findPreflightForCaller(
  db: Queryable,
  scope: AccountScope,
  id: number,
): Promise<StoredPreflight | undefined> {
  const rows = await db.query<PreflightRow>(
    `SELECT ${COLUMNS} FROM preflights WHERE id = $1 AND account_id = $2 AND environment = $3`,
    [id, scope.accountId, scope.environment],
  )
  return rows[0] && toStored(rows[0])
}

/** The preflight with this number, for the job's own work. */
export async function readPreflight(db: Queryable, id: number): Promise<StoredPreflight | undefined> {
  const rows = await db.query<PreflightRow>(`SELECT ${COLUMNS} FROM preflights WHERE id = $1`, [id])
  return rows[0] && toStored(rows[0])
}

/** Pending (or Running: a run that crashed, retried by the queue) -> Running; false once done. */
export async function claimPreflight(db: Queryable, id: number, now: Date): Promise<boolean> {
  const rows = await db.query(
    `UPDATE preflights SET status = 'Running', updated_at = $2 WHERE id = $1 AND status IN ('Pending', 'Running') RETURNING id`,
    [id, now],
  )
  return rows.length > 0
}

/** Stores the finished report; the file is no longer kept. */
export async function finishPreflight(
  db: Queryable,
  id: number,
  result: { status: PreflightStatus; report: string },
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE preflights SET status = $2, report = $3, blob_key = NULL, updated_at = $4 WHERE id = $1 AND status IN ('Pending', 'Running')`,
    [id, result.status, result.report, now],
  )
}

/** Deletes the preflights expired by `now`; the blob keys they still held (the caller deletes the blobs). */
export async function deleteExpiredPreflights(
  db: Queryable,
  now: Date,
): Promise<{ deleted: number; blobKeys: string[] }> {
  const rows = await db.query<{ blob_key: string | null }>(
    'DELETE FROM preflights WHERE expires_at <= $1 RETURNING blob_key',
    [now],
  )
  return { deleted: rows.length, blobKeys: rows.flatMap((row) => (row.blob_key ? [row.blob_key] : [])) }
}
