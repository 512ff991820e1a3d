// SQL of jobs pushed to labs (migrations/0016_lab_push.sql): each lab's push endpoint as the operator set it, with
// its signing secrets (lab_push_endpoints), and the reminders already pushed (lab_push_reminders). The events and
// their deliveries are the callbacks' own tables (events.repository.ts, callback-deliveries.repository.ts).
import type { Queryable } from '../adapters/database.ts'
import { deletedRows } from './row-counts.ts'

/** A lab's row: the operator's URL (null: the catalogue's), whether pushing was removed, and its secrets. */
export interface LabPushEndpointRow {
  labCode: string
  current: string | null
  /** The secret before the last rotation, still signing until `previousExpiresAt`. */
  previous: string | null
  previousExpiresAt: Date | null
  url: string | null
  removed: boolean
  updatedAt: Date
}

export async function readLabPushEndpoint(db: Queryable, labCode: string): Promise<LabPushEndpointRow | undefined> {
  const rows = await db.query<LabPushEndpointRow>(
    `SELECT lab_code AS "labCode", url, removed, signing_secret AS current, previous_signing_secret AS previous,
            previous_signing_secret_expires_at AS "previousExpiresAt", updated_at AS "updatedAt"
       FROM lab_push_endpoints WHERE lab_code = $1`,
    [labCode],
  )
  return rows[0]
}

export async function listLabPushEndpoints(db: Queryable): Promise<LabPushEndpointRow[]> {
  return db.query<LabPushEndpointRow>(
    `SELECT lab_code AS "labCode", url, removed, signing_secret AS current, previous_signing_secret AS previous,
            previous_signing_secret_expires_at AS "previousExpiresAt", updated_at AS "updatedAt"
       FROM lab_push_endpoints ORDER BY lab_code`,
  )
}

/**
 * Sets the lab's push URL (pushing on again if it was removed) and gives it `secret` unless it has one; returns
 * the secret in force and whether it is the one given (new).
 */
export async function setLabPushUrl(
  db: Queryable,
  labCode: string,
  url: string,
  secret: string,
  at: Date,
): Promise<{ secret: string; created: boolean }> {
  const rows = await db.query<{ secret: string }>(
    `INSERT INTO lab_push_endpoints (lab_code, url, removed, signing_secret, updated_at) VALUES ($1, $2, false, $3, $4)
     ON CONFLICT (lab_code) DO UPDATE SET url = EXCLUDED.url, removed = false,
            signing_secret = COALESCE(lab_push_endpoints.signing_secret, EXCLUDED.signing_secret),
            updated_at = EXCLUDED.updated_at
     RETURNING signing_secret AS secret`,
    [labCode, url, secret, at],
  )
  const stored = rows[0]?.secret ?? secret
  return { secret: stored, created: stored === secret }
}

/** Stores `secret` as the lab's signing secret unless it has one (a row is made for it); returns the one in force. */
export async function ensureLabSigningSecret(
  db: Queryable,
  labCode: string,
  secret: string,
  at: Date,
): Promise<string> {
  const rows = await db.query<{ secret: string }>(
    `INSERT INTO lab_push_endpoints (lab_code, url, removed, signing_secret, updated_at) VALUES ($1, NULL, false, $2, $3)
     ON CONFLICT (lab_code) DO UPDATE
        SET signing_secret = COALESCE(lab_push_endpoints.signing_secret, EXCLUDED.signing_secret)
     RETURNING signing_secret AS secret`,
    [labCode, secret, at],
  )
  return rows[0]?.secret ?? secret
}

/** Makes `secret` the lab's signing secret; the one it replaces keeps signing until `previousExpiresAt`. */
export async function rotateLabSigningSecret(
  db: Queryable,
  labCode: string,
  secret: string,
  previousExpiresAt: Date,
  at: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO lab_push_endpoints (lab_code, url, removed, signing_secret, updated_at) VALUES ($1, NULL, false, $2, $4)
     ON CONFLICT (lab_code) DO UPDATE
        SET previous_signing_secret = lab_push_endpoints.signing_secret,
            previous_signing_secret_expires_at =
              CASE WHEN lab_push_endpoints.signing_secret IS NULL THEN NULL ELSE $3::timestamptz END,
            signing_secret = EXCLUDED.signing_secret, updated_at = EXCLUDED.updated_at`,
    [labCode, secret, previousExpiresAt, at],
  )
}

/** Stops pushing to the lab, whatever the catalogue says, and forgets its secrets. */
export async function removeLabPush(db: Queryable, labCode: string, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO lab_push_endpoints (lab_code, url, removed, updated_at) VALUES ($1, NULL, true, $2)
     ON CONFLICT (lab_code) DO UPDATE SET url = NULL, removed = true, signing_secret = NULL,
            previous_signing_secret = NULL, previous_signing_secret_expires_at = NULL, updated_at = EXCLUDED.updated_at`,
    [labCode, at],
  )
}

/** Records a reminder about to be pushed; false when this job, reason and lab date already had one. */
export async function claimLabReminder(
  tx: Queryable,
  reminder: { shipmentNumber: number; reason: string; labDate: string; at: Date },
): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO lab_push_reminders (shipment_id, reason, lab_date, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING RETURNING 1`,
    [reminder.shipmentNumber, reminder.reason, reminder.labDate, reminder.at],
  )
  return rows.length > 0
}

/** Forgets the reminders recorded before `before` (their lab dates are long past); how many went. */
export async function deleteOldLabReminders(db: Queryable, before: Date): Promise<number> {
  return deletedRows(db, 'DELETE FROM lab_push_reminders WHERE created_at < $1 RETURNING 1', [before])
}

/** Delivery health of a lab's pushes: counts by status and the latest attempt. */
export interface LabPushHealthRow {
  pending: number
  delivered: number
  failed: number
  lastAttemptAt: Date | null
  lastHttpStatus: number | null
  lastError: string | null
}

export async function readLabPushHealth(db: Queryable, labCode: string): Promise<LabPushHealthRow> {
  const counts = await db.query<{ status: string; count: number | string }>(
    `SELECT status, count(*) AS count FROM callback_deliveries WHERE lab_code = $1 GROUP BY status`,
    [labCode],
  )
  const last = await db.query<{ attemptedAt: Date; httpStatus: number | null; error: string | null }>(
    `SELECT a.attempted_at AS "attemptedAt", a.http_status AS "httpStatus", a.error
       FROM callback_attempts a JOIN callback_deliveries d ON d.id = a.delivery_id
      WHERE d.lab_code = $1 ORDER BY a.attempted_at DESC LIMIT 1`,
    [labCode],
  )
  const count = (status: string) => Number(counts.find((row) => row.status === status)?.count ?? 0)
  const latest = last[0]
  return {
    pending: count('pending'),
    delivered: count('delivered'),
    failed: count('failed'),
    lastAttemptAt: latest?.attemptedAt ?? null,
    lastHttpStatus: latest?.httpStatus === null || latest === undefined ? null : Number(latest.httpStatus),
    lastError: latest?.error ?? null,
  }
}
