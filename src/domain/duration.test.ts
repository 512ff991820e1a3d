import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { formatDurationSeconds, parseDurationMilliseconds, parseDurationSeconds } from './duration.ts'

tier('pure')

test('durations parse to seconds', () => {
  assert.equal(parseDurationSeconds('30m'), 1800)
  assert.equal(parseDurationSeconds('2s'), 2)
  assert.equal(parseDurationSeconds('1h'), 3600)
  assert.equal(parseDurationSeconds('1d'), 86400)
  assert.equal(parseDurationSeconds('0'), 0)
  assert.equal(parseDurationSeconds('45'), 45)
  assert.equal(parseDurationSeconds('5M'), 300)
  assert.equal(parseDurationSeconds('1.5h'), 5400)
})

test('durations take milliseconds and fractions', () => {
  assert.equal(parseDurationMilliseconds('100ms'), 100)
  assert.equal(parseDurationMilliseconds('100MS'), 100)
  assert.equal(parseDurationMilliseconds('1.5s'), 1500)
  assert.equal(parseDurationSeconds('250ms'), 0.25)
  assert.equal(parseDurationMilliseconds('0.5'), 500)
})

test('bad durations are refused with a readable message', () => {
  for (const bad of ['', 'm', '-1s', '10 minutes', '1w', '1.s', '.5s', '1e3s', '2 ms s']) {
    assert.throws(() => parseDurationSeconds(bad), /is not a duration/, bad)
  }
})

test('durations format back to their largest whole unit', () => {
  assert.equal(formatDurationSeconds(1800), '30m')
  assert.equal(formatDurationSeconds(7200), '2h')
  assert.equal(formatDurationSeconds(90), '90s')
  assert.equal(formatDurationSeconds(0), '0')
  assert.equal(formatDurationSeconds(0.25), '250ms')
})
