import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { waitFor } from '../../test/support/wait.ts'
import { createDatabaseOutageLog, OUTAGE_REMINDER_MS } from './database-outage-log.ts'

tier('pure')

function recordingLogger() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = []
  return {
    lines,
    warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'warn', message, fields }),
    info: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'info', message, fields }),
  }
}

describe('the database outage log', () => {
  test('one line when it goes, a reminder a minute later at most, one line when it is back', () => {
    const log = recordingLogger()
    let now = 1_000_000
    const outage = createDatabaseOutageLog(log, { consequence: 'requests answer 503 until it is back', now: () => now })
    outage.reachable()
    assert.equal(log.lines.length, 0, 'nothing to say while all is well')

    outage.failed('57P01 admin_shutdown')
    for (let n = 0; n < 500; n += 1) {
      now += 100
      outage.failed('ECONNREFUSED')
    }
    assert.deepEqual(
      log.lines.map((line) => [line.level, line.message]),
      [['warn', 'database connection lost (57P01 admin_shutdown); requests answer 503 until it is back']],
      'the failures of the first 50 s are counted, not logged',
    )
    assert.ok(outage.unavailable)

    now += OUTAGE_REMINDER_MS
    outage.failed('ECONNREFUSED')
    assert.equal(log.lines.length, 2)
    assert.equal(
      log.lines[1]?.message,
      'database still unreachable after 110.0 s (ECONNREFUSED, 502 failures); requests answer 503 until it is back',
    )

    now += 2_500
    outage.reachable()
    outage.reachable()
    assert.equal(log.lines.length, 3)
    assert.deepEqual(log.lines[2], {
      level: 'info',
      message: 'database reachable again after 112.5 s (502 failures meanwhile); carrying on',
      fields: { failures: 502, unavailableMs: 112_500 },
    })
    assert.equal(outage.unavailable, false)

    outage.failed('ECONNREFUSED')
    assert.equal(log.lines.at(-1)?.message, 'database unreachable (ECONNREFUSED); requests answer 503 until it is back')
    outage.stop()
  })

  test('while it lasts, a probe finds its end even when nothing else asks the database', async () => {
    const log = recordingLogger()
    let answers = false
    let probes = 0
    const outage = createDatabaseOutageLog(log, {
      consequence: 'jobs wait until it is back',
      probe: async () => {
        probes += 1
        if (!answers) throw new Error('still down')
      },
    })
    try {
      outage.failed('ECONNRESET')
      await waitFor('a failed probe', () => (probes >= 1 ? true : undefined), 10_000)
      answers = true
      await waitFor('the probe to see the database back', () => (outage.unavailable ? undefined : true), 10_000)
      assert.match(log.lines.at(-1)?.message ?? '', /^database reachable again after/)
    } finally {
      outage.stop()
    }
  })
})
