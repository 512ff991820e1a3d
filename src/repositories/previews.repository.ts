// SQL for the preview cache (migration 0011): one row per cache key, used until it expires.
import type { Queryable } from '../adapters/database.ts'

export interface CachedPreview {
  cacheKey: string
  /** The answer's geometry and warnings as JSON text, written and read by the previews service. */
  result: string
  previewKey: string
  mockupKey: string
  expiresAt: Date
}

/** The entry under this key, if it has not expired by `now`. */
export async function findCachedPreview(
  db: Queryable,
  cacheKey: string,
  now: Date,
): Promise<CachedPreview | undefined> {
  const rows = await db.query<CachedPreview>(
    `SELECT cache_key AS "cacheKey", result, preview_key AS "previewKey", mockup_key AS "mockupKey",
            expires_at AS "expiresAt"
       FROM preview_cache WHERE cache_key = $1 AND expires_at > $2`,
    [cacheKey, now],
  )
  const row = rows[0]
  return row && { ...row, expiresAt: new Date(row.expiresAt) }
}

/**
 * Stores an entry; one made at the same time by another request (or an expired one under the same key) is
 * replaced, so the row always names the blobs written last.
 */
export async function saveCachedPreview(db: Queryable, entry: CachedPreview, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO preview_cache (cache_key, result, preview_key, mockup_key, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (cache_key) DO UPDATE SET result = EXCLUDED.result, preview_key = EXCLUDED.preview_key,
       mockup_key = EXCLUDED.mockup_key, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
    [entry.cacheKey, entry.result, entry.previewKey, entry.mockupKey, now, entry.expiresAt],
  )
}

/** Deletes the entries expired by `now`, returning the blob keys they named (the caller deletes the blobs). */
export async function deleteExpiredPreviews(db: Queryable, now: Date): Promise<string[]> {
  const rows = await db.query<{ previewKey: string; mockupKey: string }>(
    `DELETE FROM preview_cache WHERE expires_at <= $1 RETURNING preview_key AS "previewKey", mockup_key AS "mockupKey"`,
    [now],
  )
  return rows.flatMap((row) => [row.previewKey, row.mockupKey])
}
