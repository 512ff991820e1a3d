import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { randomHex } from './random-hex.ts'

tier('pure')

test('randomHex gives the asked length in hex, never repeating, across pool refills and beyond the pool', () => {
  const seen = new Set<string>()
  // 12 bytes x 1000: the 4096-byte pool is refilled twice, its last 4 bytes left unused each time.
  for (let i = 0; i < 1000; i++) {
    const hex = randomHex(12)
    assert.match(hex, /^[0-9a-f]{24}$/)
    seen.add(hex)
  }
  assert.equal(seen.size, 1000)
  assert.match(randomHex(5000), /^[0-9a-f]{10000}$/)
  assert.match(randomHex(1), /^[0-9a-f]{2}$/)
})
