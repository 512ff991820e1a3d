import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import { formatTime, sumMoney } from './format.ts'

tier('pure')

test('sumMoney adds per currency, keeps the decimal places, and handles refunds', () => {
  assert.equal(sumMoney([]), '—')
  assert.equal(
    sumMoney([
      { amount: '10.50', currency: 'GBP' },
      { amount: '2.75', currency: 'GBP' },
    ]),
    '13.25 GBP',
  )
  assert.equal(
    sumMoney([
      { amount: '1.00', currency: 'GBP' },
      { amount: '-3.50', currency: 'GBP' },
    ]),
    '-2.50 GBP',
  )
  assert.equal(
    sumMoney([
      { amount: '0.5', currency: 'EUR' },
      { amount: '0.25', currency: 'EUR' },
    ]),
    '0.75 EUR',
  )
  assert.equal(
    sumMoney([
      { amount: '100', currency: 'JPY' },
      { amount: '1.00', currency: 'USD' },
    ]),
    '100 JPY + 1.00 USD',
  )
})

test('formatTime shows minutes in UTC and keeps the exact instant', () => {
  assert.equal(
    formatTime('2026-11-23T06:40:12.345Z').text,
    '<time datetime="2026-11-23T06:40:12.345Z">2026-11-23 06:40 UTC</time>',
  )
})
