import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { formatId, parseId } from './ids.ts'

tier('pure')

test('formatId joins prefix and number', () => {
  assert.equal(formatId('ord', 42), 'ord_42')
  assert.equal(formatId('ast', 1), 'ast_1')
})

test('parseId accepts its own prefix in any case and positive numbers only', () => {
  assert.equal(parseId('ord', 'ord_42'), 42)
  assert.equal(parseId('ord', 'ORD_42'), 42)
  for (const bad of [
    'ord_',
    'ord_0',
    'ord_-1',
    'ord_1.5',
    'ord_abc',
    'ori_42',
    'ord42',
    'ord__42',
    '42',
    '',
    'ord_1234567890123456',
  ]) {
    assert.equal(parseId('ord', bad), undefined, bad)
  }
})
