import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import {
  convertMinorUnits,
  divideRoundingHalfUp,
  formatMinor,
  parseMoneyToMinor,
  parsePercentToBasisPoints,
  parseRateToMillionths,
  percentOfMinorUnits,
} from './catalogue-money.ts'

tier('pure')

test('money strings parse to minor units and back', () => {
  assert.equal(parseMoneyToMinor('12.50'), 1250n)
  assert.equal(parseMoneyToMinor('12.5'), 1250n)
  assert.equal(parseMoneyToMinor('7'), 700n)
  assert.equal(parseMoneyToMinor('0.05'), 5n)
  for (const bad of ['12.345', '-1', '1e2', '', '.5', '12.', ' 1']) assert.equal(parseMoneyToMinor(bad), undefined, bad)
  assert.equal(formatMinor(1250n), '12.50')
  assert.equal(formatMinor(5n), '0.05')
  assert.equal(formatMinor(-5n), '-0.05')
})

test('rates parse to millionths and percentages to basis points', () => {
  assert.equal(parseRateToMillionths('1'), 1_000_000n)
  assert.equal(parseRateToMillionths('1.27'), 1_270_000n)
  assert.equal(parseRateToMillionths('0.000001'), 1n)
  assert.equal(parseRateToMillionths('1.0000001'), undefined)
  assert.equal(parsePercentToBasisPoints('20'), 2000)
  assert.equal(parsePercentToBasisPoints('25.5'), 2550)
  assert.equal(parsePercentToBasisPoints('100'), 10_000)
  assert.equal(parsePercentToBasisPoints('100.01'), undefined)
  assert.equal(parsePercentToBasisPoints('20%'), undefined)
})

test('division rounds half away from zero', () => {
  assert.equal(divideRoundingHalfUp(5n, 2n), 3n)
  assert.equal(divideRoundingHalfUp(-5n, 2n), -3n)
  assert.equal(divideRoundingHalfUp(4n, 3n), 1n)
  assert.equal(divideRoundingHalfUp(5n, 3n), 2n)
  assert.equal(divideRoundingHalfUp(0n, 7n), 0n)
  assert.throws(() => divideRoundingHalfUp(1n, 0n), RangeError)
})

test('conversion and percentages are exact and rounded once', () => {
  // 10.00 GBP -> USD at 1.31 = 13.10
  assert.equal(convertMinorUnits(1000n, 1_000_000n, 1_310_000n), 1310n)
  // 0.01 at 1.5 = 0.015 -> 0.02
  assert.equal(convertMinorUnits(1n, 1_000_000n, 1_500_000n), 2n)
  // 20% of 19.99 = 3.998 -> 4.00; 50% of 0.01 = 0.005 -> 0.01 (and -0.01 for a credit)
  assert.equal(percentOfMinorUnits(1999n, 2000), 400n)
  assert.equal(percentOfMinorUnits(1n, 5000), 1n)
  assert.equal(percentOfMinorUnits(-1n, 5000), -1n)
})
