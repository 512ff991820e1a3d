// The database's rate limit counters on both backends: counting, reading without counting, a new window after
// the end, keys apart, and the lazy deletion of ended windows.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { openTestDatabase } from '../../test/support/databases.ts'
import { tier } from '../../test/support/tiers.ts'
import { createDatabaseRateLimitCounters, RATE_LIMIT_CLEANUP_INTERVAL_MS } from './rate-limit-counters.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`database rate limit counters (${kind})`, () => {
    test('count per key within a window, read without counting, and start again after the window', async () => {
      const database = await openTestDatabase(kind)
      try {
        let now = 0
        const counters = createDatabaseRateLimitCounters(database.db, { onCleanupError: assert.fail, now: () => now })
        const first = await counters.increment('sandbox:key:a', 1_000)
        assert.equal(first.requests, 1)
        assert.ok(first.millisecondsLeft > 0 && first.millisecondsLeft <= 1_000, `${first.millisecondsLeft}`)
        assert.equal((await counters.increment('sandbox:key:a', 1_000)).requests, 2)
        assert.equal((await counters.increment('sandbox:key:b', 1_000)).requests, 1)
        assert.equal((await counters.read('sandbox:key:a')).requests, 2)
        assert.equal((await counters.read('sandbox:key:a')).requests, 2)
        assert.deepEqual(await counters.read('sandbox:key:unknown'), { requests: 0, millisecondsLeft: 0 })
        // Wait for the end the counter named, by the database's clock.
        await sleep((await counters.read('sandbox:key:a')).millisecondsLeft + 10)
        assert.deepEqual(await counters.read('sandbox:key:a'), { requests: 0, millisecondsLeft: 0 })
        const next = await counters.increment('sandbox:key:a', 60_000)
        assert.equal(next.requests, 1)
        assert.ok(next.millisecondsLeft > 1_000)
        // Ended windows go at the first count after the cleanup interval; running ones stay.
        await sleep((await counters.read('sandbox:key:b')).millisecondsLeft + 10)
        now += RATE_LIMIT_CLEANUP_INTERVAL_MS
        await counters.increment('sandbox:key:a', 60_000)
        let rows: { limit_key: string }[] = []
        for (let attempt = 0; attempt < 50; attempt++) {
          rows = await database.db.query<{ limit_key: string }>('SELECT limit_key FROM rate_limit_counters')
          if (rows.length === 1) break
          await sleep(20)
        }
        assert.deepEqual(
          rows.map((row) => row.limit_key),
          ['sandbox:key:a'],
        )
      } finally {
        await database.close()
      }
    })
  })
}
