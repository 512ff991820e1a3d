// SQL for dashboard sessions: a session stands for the API key it was made from (migration 0006). The statements
// read api_keys and accounts to make and answer for a session; they answer about sessions, so they live here.
import type { Queryable } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'
import type { KeyScope } from '../domain/key-scopes.ts'
import { deletedRows } from './row-counts.ts'

export interface SessionOwner {
  accountId: number
  environment: Environment
  /** The visible prefix of the key the session was made from, shown in the dashboard. */
  keyPrefix: string
  pauseWindowSeconds: number
  billingCurrency: string
  expiresAt: Date
  /** The scopes of the key the session was made from; null: every scope. */
  scopes: KeyScope[] | null
}

/**
 * Makes a session for the active key with this hash in `environment`; returns false (nothing written) when
 * there is none, when it has expired, or when its account is suspended.
 */
export async function insertSession(
  db: Queryable,
  session: { tokenHash: string; keyHash: string; environment: Environment; createdAt: Date; expiresAt: Date },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO dashboard_sessions (token_hash, api_key_id, created_at, expires_at)
     SELECT $1, k.id, $2, $3 FROM api_keys k
      WHERE k.key_hash = $4 AND k.environment = $5 AND k.revoked_at IS NULL
        AND (k.expires_at IS NULL OR k.expires_at > $2)
        AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = k.account_id AND a.suspended_at IS NOT NULL)
     RETURNING token_hash`,
    [session.tokenHash, session.createdAt, session.expiresAt, session.keyHash, session.environment],
  )
  return rows.length > 0
}

/** The owner of an unexpired session whose key is still active and whose account is not suspended. */
export async function findSessionOwner(db: Queryable, tokenHash: string, now: Date): Promise<SessionOwner | undefined> {
  const rows = await db.query<SessionOwner & { accountId: string }>(
    `SELECT a.id AS "accountId", k.environment, k.prefix AS "keyPrefix",
            a.pause_window_seconds AS "pauseWindowSeconds", a.billing_currency AS "billingCurrency",
            s.expires_at AS "expiresAt", k.scopes
       FROM dashboard_sessions s
       JOIN api_keys k ON k.id = s.api_key_id
       JOIN accounts a ON a.id = k.account_id
      WHERE s.token_hash = $1 AND s.expires_at > $2 AND k.revoked_at IS NULL AND a.suspended_at IS NULL
        AND (k.expires_at IS NULL OR k.expires_at > $2)`,
    [tokenHash, now],
  )
  const row = rows[0]
  return row && { ...row, accountId: Number(row.accountId) }
}

export async function deleteSession(db: Queryable, tokenHash: string): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE token_hash = $1', [tokenHash])
}

/** Removes sessions that expired before `now`; returns how many. */
export async function deleteExpiredSessions(db: Queryable, now: Date): Promise<number> {
  return deletedRows(db, 'DELETE FROM dashboard_sessions WHERE expires_at <= $1 RETURNING token_hash', [now])
}

/** A lab portal session's lab: the lab key's lab code and visible prefix. */
export interface LabSessionOwner {
  labCode: string
  keyPrefix: string
}

/**
 * Makes a lab portal session for the working lab key (not revoked, not past a rotation's overlap) with this hash;
 * returns false (nothing written) when there is none. The same table as the dashboard's sessions: a row stands for either an API key or a lab key.
 */
export async function insertLabSession(
  db: Queryable,
  session: { tokenHash: string; keyHash: string; createdAt: Date; expiresAt: Date },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO dashboard_sessions (token_hash, lab_key_id, created_at, expires_at)
     SELECT $1, k.id, $2, $3 FROM lab_keys k
      WHERE k.key_hash = $4 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)
     RETURNING token_hash`,
    [session.tokenHash, session.createdAt, session.expiresAt, session.keyHash],
  )
  return rows.length > 0
}

/**
 * The lab of an unexpired lab portal session whose lab key still works (not revoked, not past a rotation's
 * overlap: the session ends with its key); undefined otherwise.
 */
export async function findLabSessionOwner(
  db: Queryable,
  tokenHash: string,
  now: Date,
): Promise<LabSessionOwner | undefined> {
  const rows = await db.query<LabSessionOwner>(
    `SELECT k.lab_code AS "labCode", k.prefix AS "keyPrefix"
       FROM dashboard_sessions s
       JOIN lab_keys k ON k.id = s.lab_key_id
      WHERE s.token_hash = $1 AND s.expires_at > $2 AND k.revoked_at IS NULL
        AND (k.expires_at IS NULL OR k.expires_at > $2)`,
    [tokenHash, now],
  )
  return rows[0]
}

/** Ends every lab portal session made with the lab key (its revocation); returns how many ended. */
export async function deleteLabKeySessions(db: Queryable, labKeyId: number): Promise<number> {
  return deletedRows(db, 'DELETE FROM dashboard_sessions WHERE lab_key_id = $1 RETURNING token_hash', [labKeyId])
}

/**
 * Ends every dashboard session made with a key of the account (its suspension): the merchant is signed out at
 * once and signs in again only after reactivation. Returns how many ended.
 */
export async function deleteAccountSessions(db: Queryable, accountId: number): Promise<number> {
  return deletedRows(
    db,
    `DELETE FROM dashboard_sessions
      WHERE api_key_id IN (SELECT id FROM api_keys WHERE account_id = $1) RETURNING token_hash`,
    [accountId],
  )
}

/** A console session's operator. */
export interface OperatorSessionOwner {
  operatorId: number
  name: string
}

/**
 * Makes a console session for the unrevoked operator whose token has this hash; the operator, or undefined
 * (nothing written) when there is none.
 */
export async function insertOperatorSession(
  db: Queryable,
  session: { tokenHash: string; operatorTokenHash: string; createdAt: Date; expiresAt: Date },
): Promise<OperatorSessionOwner | undefined> {
  const rows = await db.query<OperatorSessionOwner>(
    `WITH operator AS (SELECT id, name FROM operators WHERE token_hash = $4 AND revoked_at IS NULL),
          made AS (INSERT INTO dashboard_sessions (token_hash, operator_id, created_at, expires_at)
                   SELECT $1, id, $2, $3 FROM operator RETURNING operator_id)
     SELECT operator.id AS "operatorId", operator.name FROM operator JOIN made ON made.operator_id = operator.id`,
    [session.tokenHash, session.createdAt, session.expiresAt, session.operatorTokenHash],
  )
  const row = rows[0]
  return row && { ...row, operatorId: Number(row.operatorId) }
}

/** The operator of an unexpired console session who is not revoked; undefined otherwise. Read on every request. */
export async function findOperatorSessionOwner(
  db: Queryable,
  tokenHash: string,
  now: Date,
): Promise<OperatorSessionOwner | undefined> {
  const rows = await db.query<OperatorSessionOwner>(
    `SELECT o.id AS "operatorId", o.name
       FROM dashboard_sessions s
       JOIN operators o ON o.id = s.operator_id
      WHERE s.token_hash = $1 AND s.expires_at > $2 AND o.revoked_at IS NULL`,
    [tokenHash, now],
  )
  const row = rows[0]
  return row && { ...row, operatorId: Number(row.operatorId) }
}
