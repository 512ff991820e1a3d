import assert from 'node:assert/strict'
import { test } from 'node:test'
import { formatDurationSeconds, parseDurationSeconds } from './duration.ts'

test('durations parse to seconds', () => {
  assert.equal(parseDurationSeconds('30m'), 1800)
  assert.equal(parseDurationSeconds('2s'), 2)
  assert.equal(parseDurationSeconds('1h'), 3600)
  assert.equal(parseDurationSeconds('1d'), 86400)
  assert.equal(parseDurationSeconds('0'), 0)
  assert.equal(parseDurationSeconds('45'), 45)
  assert.equal(parseDurationSeconds('5M'), 300)
})

test('bad durations are refused with a readable message', () => {
  for (const bad of ['', 'm', '1.5h', '-1s', '10 minutes', '1w']) {
    assert.throws(() => parseDurationSeconds(bad), /is not a duration/, bad)
  }
})

test('durations format back to their largest whole unit', () => {
  assert.equal(formatDurationSeconds(1800), '30m')
  assert.equal(formatDurationSeconds(7200), '2h')
  assert.equal(formatDurationSeconds(90), '90s')
  assert.equal(formatDurationSeconds(0), '0')
})
