// SQL for lab keys: labs are accounts of their own kind.
import type { Queryable } from '../adapters/database.ts'

export async function insertLabKey(
  db: Queryable,
  key: { labCode: string; prefix: string; keyHash: string; createdAt: Date },
): Promise<void> {
  await db.query('INSERT INTO lab_keys (lab_code, prefix, key_hash, created_at) VALUES ($1, $2, $3, $4)', [
    key.labCode,
    key.prefix,
    key.keyHash,
    key.createdAt,
  ])
}

export async function findLabCodeByKeyHash(db: Queryable, keyHash: string): Promise<string | undefined> {
  const rows = await db.query<{ labCode: string }>(
    'SELECT lab_code AS "labCode" FROM lab_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [keyHash],
  )
  return rows[0]?.labCode
}
