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
 * Stores an entry unless one is already under its key (made meanwhile by another request, or expired and not yet
 * removed): true when stored. A row is never overwritten, so the files a live row names are never orphaned nor
 * replaced under a link already handed out.
 */
export async function insertCachedPreview(db: Queryable, entry: CachedPreview, now: Date): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO preview_cache (cache_key, result, preview_key, mockup_key, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (cache_key) DO NOTHING
     RETURNING cache_key`,
    [entry.cacheKey, entry.result, entry.previewKey, entry.mockupKey, now, entry.expiresAt],
  )
  return rows.length > 0
}

/** Deletes the entry under this key if it has expired by `now`, returning the blob keys it named. */
export async function deleteExpiredPreview(db: Queryable, cacheKey: string, now: Date): Promise<string[]> {
  const rows = await db.query<{ previewKey: string; mockupKey: string }>(
    `DELETE FROM preview_cache WHERE cache_key = $1 AND expires_at <= $2
     RETURNING preview_key AS "previewKey", mockup_key AS "mockupKey"`,
    [cacheKey, now],
  )
  return rows.flatMap((row) => [row.previewKey, row.mockupKey])
}

/** Deletes the entries expired by `now`, returning the blob keys they named (the caller deletes the blobs). */
export async function deleteExpiredPreviews(db: Queryable, now: Date): Promise<string[]> {
  const rows = await db.query<{ previewKey: string; mockupKey: string }>(
    `DELETE FROM preview_cache WHERE expires_at <= $1 RETURNING preview_key AS "previewKey", mockup_key AS "mockupKey"`,
    [now],
  )
  return rows.flatMap((row) => [row.previewKey, row.mockupKey])
}
