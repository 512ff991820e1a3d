import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { formatMinorAsAmount, normaliseAmount, parseAmountToMinor, toWireMoney } from './money.ts'

tier('pure')

test('amounts parse to integer minor units without floating point', () => {
  assert.equal(parseAmountToMinor('12.50'), 1250n)
  assert.equal(parseAmountToMinor('12.5'), 1250n)
  assert.equal(parseAmountToMinor('12'), 1200n)
  assert.equal(parseAmountToMinor('0.07'), 7n)
  assert.equal(parseAmountToMinor('-3.10'), -310n)
  // 0.1 + 0.2 style amounts stay exact
  assert.equal(parseAmountToMinor('0.10')! + parseAmountToMinor('0.20')!, 30n)
})

test('malformed amounts are refused', () => {
  for (const bad of ['', '1.234', 'abc', '1e3', '1,50', '.5', '1.', ' 1', '--1']) {
    assert.equal(parseAmountToMinor(bad), undefined, bad)
  }
})

test('minor units format with two places and a sign for credits', () => {
  assert.equal(formatMinorAsAmount(1250n), '12.50')
  assert.equal(formatMinorAsAmount(7n), '0.07')
  assert.equal(formatMinorAsAmount(0n), '0.00')
  assert.equal(formatMinorAsAmount(-310n), '-3.10')
  assert.deepEqual(toWireMoney({ minor: 1999n, currency: 'GBP' }), { amount: '19.99', currency: 'GBP' })
  assert.equal(normaliseAmount('15'), '15.00')
  assert.equal(normaliseAmount('x'), undefined)
})
