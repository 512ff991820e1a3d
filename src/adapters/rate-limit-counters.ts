// Rate limit counters in the database, for several API processes on one PostgreSQL: every process counts a
// key's requests in the same row, so the limit holds per key across processes (docs/operations.md#rate-limits).
// A window starts at a key's first request and lasts `windowMilliseconds`, measured by the database's clock so
// processes on machines whose clocks differ still agree. One statement per counted request.
import type { Queryable } from './database.ts'

export interface RateLimitCount {
  /** Requests counted in the key's current window, this one included. */
  requests: number
  /** Until the window ends (0: no window running). */
  millisecondsLeft: number
}

export interface RateLimitCounters {
  /** Counts one request of `key`, starting a new window when none is running. */
  increment(key: string, windowMilliseconds: number): Promise<RateLimitCount>
  /** The key's current count without counting. */
  read(key: string): Promise<RateLimitCount>
}

/** Ended windows are deleted at most this often per process (the table holds one row per active key). */
export const RATE_LIMIT_CLEANUP_INTERVAL_MS = 60_000

const INCREMENT_SQL = `
  INSERT INTO rate_limit_counters AS c (limit_key, requests, window_ends_at)
  VALUES ($1, 1, now() + $2::double precision * interval '1 millisecond')
  ON CONFLICT (limit_key) DO UPDATE SET
    requests = CASE WHEN c.window_ends_at <= now() THEN 1 ELSE c.requests + 1 END,
    window_ends_at = CASE WHEN c.window_ends_at <= now() THEN EXCLUDED.window_ends_at ELSE c.window_ends_at END
  RETURNING requests, greatest(0, ceil(extract(epoch FROM window_ends_at - now()) * 1000))::integer AS "millisecondsLeft"`

const READ_SQL = `
  SELECT requests, ceil(extract(epoch FROM window_ends_at - now()) * 1000)::integer AS "millisecondsLeft"
    FROM rate_limit_counters WHERE limit_key = $1 AND window_ends_at > now()`

export function createDatabaseRateLimitCounters(
  db: Queryable,
  options: { onCleanupError: (error: Error) => void; now?: () => number },
): RateLimitCounters {
  const now = options.now ?? Date.now
  let lastCleanup = now()
  function cleanUpNowAndThen(): void {
    if (now() - lastCleanup < RATE_LIMIT_CLEANUP_INTERVAL_MS) return
    lastCleanup = now()
    db.query('DELETE FROM rate_limit_counters WHERE window_ends_at < now()').catch(options.onCleanupError)
  }
  return {
    async increment(key, windowMilliseconds) {
      const [row] = await db.query<RateLimitCount>(INCREMENT_SQL, [key, windowMilliseconds])
      cleanUpNowAndThen()
      if (!row) throw new Error('the rate limit counter was not returned')
      return row
    },
    async read(key) {
      const [row] = await db.query<RateLimitCount>(READ_SQL, [key])
      return row ?? { requests: 0, millisecondsLeft: 0 }
    },
  }
}
