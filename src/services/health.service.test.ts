// GET /readyz's checks and the log while the database is away (docs/operations.md#when-the-database-goes-away):
// a load balancer asks every few seconds, and both the database and the job queue checks fail each time; the
// process's outage log must still say it once, with a reminder a minute, not a line per check per request.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { createDatabaseOutageLog } from '../adapters/database-outage-log.ts'
import { DatabaseUnavailableError } from '../domain/database-unavailable.ts'
import { createHealthService, type HealthDeps } from './health.service.ts'

tier('pure')

function recordingLogger() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = []
  const record = (level: string) => (fields: unknown, message?: string) =>
    void lines.push({ level, message: message ?? '', fields: fields as Record<string, unknown> })
  return { lines, warn: record('warn'), info: record('info'), error: record('error'), debug: record('debug') }
}

/** A refused connection as the pg driver reports it (pg-boss's pool is not wrapped by printroute's adapter). */
function refusedConnection(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
}

function setUp(checks: Partial<HealthDeps['checks']>, timeoutMs = 1_000) {
  const log = recordingLogger()
  let now = 5_000_000
  const outage = createDatabaseOutageLog(log, { consequence: 'requests answer 503 until it is back', now: () => now })
  const health = createHealthService({
    checks: { database: async () => {}, jobQueue: async () => {}, blobStore: async () => {}, ...checks },
    timeoutMs,
    log: log as unknown as HealthDeps['log'],
    outage,
  })
  return {
    log,
    outage,
    health,
    advance: (ms: number) => {
      now += ms
    },
  }
}

describe('readiness while the database is away', () => {
  test('many readyz requests in one outage: one line, a reminder a minute, one line when it is back', async () => {
    let down = true
    const { log, outage, health, advance } = setUp({
      database: async () => {
        if (down) throw new DatabaseUnavailableError('ECONNREFUSED')
      },
      jobQueue: async () => {
        if (down) throw refusedConnection()
      },
    })
    // 150 s of a load balancer asking every half second: 300 requests, 600 failed checks.
    for (let request = 0; request < 300; request++) {
      const readiness = await health.readiness()
      assert.equal(readiness.ready, false)
      assert.equal(readiness.checks.database.error, 'failed')
      assert.equal(readiness.checks.jobQueue.error, 'failed')
      advance(500)
    }
    assert.deepEqual(
      log.lines.map((line) => [line.level, line.message]),
      [
        ['warn', 'database unreachable (ECONNREFUSED); requests answer 503 until it is back'],
        [
          'warn',
          'database still unreachable after 60.0 s (ECONNREFUSED, 241 failures); requests answer 503 until it is back',
        ],
        [
          'warn',
          'database still unreachable after 120.0 s (ECONNREFUSED, 481 failures); requests answer 503 until it is back',
        ],
      ],
    )

    down = false
    outage.reachable()
    assert.equal((await health.readiness()).ready, true)
    assert.equal(log.lines.length, 4)
    assert.match(log.lines[3]?.message ?? '', /^database reachable again after 150\.0 s \(600 failures meanwhile\)/)
    outage.stop()
  })

  test('a check that times out during an outage is that outage; one that times out otherwise has a line', async () => {
    let hang = true
    const { log, outage, health } = setUp(
      {
        database: () => (hang ? new Promise<void>(() => {}) : Promise.resolve()),
      },
      20,
    )
    const first = await health.readiness()
    assert.equal(first.checks.database.error, 'timed out after 20 ms')
    assert.deepEqual(
      log.lines.map((line) => [line.level, line.message, line.fields]),
      [['warn', 'readiness check database timed out after 20 ms', { check: 'database' }]],
      'no outage known: a pool kept busy, say so',
    )
    outage.failed('connection timeout')
    for (let request = 0; request < 20; request++) await health.readiness()
    assert.deepEqual(
      log.lines.map((line) => line.message),
      [
        'readiness check database timed out after 20 ms',
        'database unreachable (connection timeout); requests answer 503 until it is back',
      ],
    )
    hang = false
    outage.stop()
  })

  test('a failure that is not the database keeps its own line with its error', async () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
    const { log, outage, health } = setUp({
      blobStore: async () => {
        throw full
      },
    })
    const readiness = await health.readiness()
    assert.equal(readiness.checks.blobStore.ok, false)
    assert.equal(readiness.checks.database.ok, true)
    assert.equal(log.lines.length, 1)
    assert.equal(log.lines[0]?.message, 'readiness check blobStore failed')
    assert.equal(log.lines[0]?.fields.err, full)
    assert.equal(outage.unavailable, false)
    outage.stop()
  })
})
