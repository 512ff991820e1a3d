// SQL for lab keys: labs are accounts of their own kind. A key works while it is neither revoked nor past its
// expiry (set when a rotation replaced it: the overlap). The lab portal's sessions, which stand for a key, are in
// sessions.repository.ts (deleteLabKeySessions ends them when the key is revoked).
import type { Queryable } from '../adapters/database.ts'

/** How often a key's last use is written at most: one write a minute per key, not one per call. */
export const LAB_KEY_LAST_USED_RESOLUTION_SECONDS = 60

/** A lab key as the operator sees it (never its hash). */
export interface LabKeyRow {
  id: number
  labCode: string
  prefix: string
  createdAt: Date
  /** The key's last lab API call, to the minute; null: none (or none since printroute began recording it). */
  lastUsedAt: Date | null
  /** Until when a rotated key keeps working; null: it does not expire. */
  expiresAt: Date | null
  revokedAt: Date | null
}

const KEY_COLUMNS = `id, lab_code AS "labCode", prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt",
  expires_at AS "expiresAt", revoked_at AS "revokedAt"`

function keyOf(row: LabKeyRow): LabKeyRow {
  return { ...row, id: Number(row.id) }
}

export async function insertLabKey(
  db: Queryable,
  key: { labCode: string; prefix: string; keyHash: string; createdAt: Date },
): Promise<LabKeyRow> {
  const rows = await db.query<LabKeyRow>(
    `INSERT INTO lab_keys (lab_code, prefix, key_hash, created_at) VALUES ($1, $2, $3, $4) RETURNING ${KEY_COLUMNS}`,
    [key.labCode, key.prefix, key.keyHash, key.createdAt],
  )
  const row = rows[0]
  if (!row) throw new Error('INSERT INTO lab_keys returned no row')
  return keyOf(row)
}

/**
 * The lab code of the working key (not revoked, not past its expiry) with this hash; undefined otherwise. Records
 * the use in the same statement when the last one recorded is older than LAB_KEY_LAST_USED_RESOLUTION_SECONDS.
 */
export async function findLabCodeByKeyHash(db: Queryable, keyHash: string, now: Date): Promise<string | undefined> {
  const rows = await db.query<{ labCode: string }>(
    `WITH found AS (
       SELECT id, lab_code, last_used_at FROM lab_keys
        WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)
     ), touched AS (
       UPDATE lab_keys SET last_used_at = $2 FROM found
        WHERE lab_keys.id = found.id AND (found.last_used_at IS NULL OR found.last_used_at <= $3)
       RETURNING lab_keys.id
     )
     SELECT lab_code AS "labCode" FROM found`,
    [keyHash, now, new Date(now.getTime() - LAB_KEY_LAST_USED_RESOLUTION_SECONDS * 1000)],
  )
  return rows[0]?.labCode
}

/** Every key of a lab, revoked and expired ones too, newest first. */
export async function listLabKeys(db: Queryable, labCode: string): Promise<LabKeyRow[]> {
  const rows = await db.query<LabKeyRow>(`SELECT ${KEY_COLUMNS} FROM lab_keys WHERE lab_code = $1 ORDER BY id DESC`, [
    labCode,
  ])
  return rows.map(keyOf)
}

/** Revokes a lab's key (by id) unless it already is; the key as it is now, or undefined when the lab has no such key. */
export async function revokeLabKey(
  db: Queryable,
  labCode: string,
  keyId: number,
  now: Date,
): Promise<{ key: LabKeyRow; wasRevoked: boolean } | undefined> {
  const before = await db.query<LabKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM lab_keys WHERE lab_code = $1 AND id = $2 FOR UPDATE`,
    [labCode, keyId],
  )
  const found = before[0]
  if (!found) return undefined
  if (found.revokedAt) return { key: keyOf(found), wasRevoked: true }
  const after = await db.query<LabKeyRow>(
    `UPDATE lab_keys SET revoked_at = $2 WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
    [keyId, now],
  )
  return { key: keyOf(after[0] ?? found), wasRevoked: false }
}

/**
 * Gives every working key of a lab, other than `exceptKeyId`, an expiry of `expiresAt` (a key already expiring
 * sooner keeps its own); the keys changed.
 */
export async function expireLabKeys(
  db: Queryable,
  labCode: string,
  exceptKeyId: number,
  expiresAt: Date,
  now: Date,
): Promise<LabKeyRow[]> {
  const rows = await db.query<LabKeyRow>(
    `UPDATE lab_keys SET expires_at = $3
      WHERE lab_code = $1 AND id <> $2 AND revoked_at IS NULL
        AND (expires_at IS NULL OR (expires_at > $4 AND expires_at > $3))
      RETURNING ${KEY_COLUMNS}`,
    [labCode, exceptKeyId, expiresAt, now],
  )
  return rows.map(keyOf).sort((a, b) => a.id - b.id)
}
