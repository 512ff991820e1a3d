// What each test file needs, declared by the file itself: every *.test.ts calls `tier(...)` once, at the top,
// and a file that touches a database loops over what the call returns. test/tiers.test.ts refuses a file that
// declares nothing, declares twice, or declares `pure` yet opens a database. docs/testing.md says how to choose.
//
// - `pure`: no database (a unit test beside its module, a scan of the sources). Returns no database kinds.
// - `http`: speaks only HTTP to a test app (pages included); runs on PGlite alone, since the HTTP layer is the
//   same over either database and the `sql` files prove what differs between them.
// - `browser`: drives the pages in Chromium; runs on PGlite alone, for the same reason.
// - `sql`: touches SQL or behaviour that differs between the databases (concurrency and locks, transactions,
//   dates and times, unique violations, ordering, the job queue, several processes, outages, migrations);
//   runs on PGlite and, when PRINTROUTE_TEST_DATABASE_URL is set, on PostgreSQL too.
//
// This module imports nothing at run time, so a `pure` file loads no database code by declaring its tier.
import type { TestDatabaseKind } from './databases.ts'

export const TEST_TIERS = ['pure', 'http', 'browser', 'sql'] as const
export type TestTier = (typeof TEST_TIERS)[number]

/** Declares the file's tier; returns the databases its tests run on (none for `pure`). */
export function tier(declared: 'pure'): []
export function tier(declared: 'http' | 'browser' | 'sql'): TestDatabaseKind[]
export function tier(declared: TestTier): TestDatabaseKind[] {
  if (declared === 'pure') return []
  if (declared === 'sql' && process.env.PRINTROUTE_TEST_DATABASE_URL) return ['pglite', 'postgres']
  return ['pglite']
}
