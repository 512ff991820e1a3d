// The request-facing parsers of domain/ids.ts: what a search box, a feed cursor and an ID in a path accept.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { invalidIdFailure, parseIdOrNumber, parseRequestId } from './ids.ts'
import { ServiceError } from './outcomes.ts'

tier('pure')

test('parseIdOrNumber takes an ID of its prefix or a bare number, 0 included', () => {
  assert.equal(parseIdOrNumber('evt', 'evt_12'), 12)
  assert.equal(parseIdOrNumber('evt', 'EVT_12'), 12)
  assert.equal(parseIdOrNumber('evt', '12'), 12)
  assert.equal(parseIdOrNumber('evt', '0'), 0)
  assert.equal(parseIdOrNumber('evt', '0012'), 12)
  for (const bad of ['evt_0', 'ord_12', '-1', '1.5', '', '1234567890123456']) {
    assert.equal(parseIdOrNumber('evt', bad), undefined, bad)
  }
})

test('parseRequestId answers ValidationFailed naming the field and the expected format', () => {
  assert.equal(parseRequestId('ord', 'ord_7', 'orderId'), 7)
  assert.throws(
    () => parseRequestId('cbd', 'ord_7', 'id'),
    (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.equal(error.outcome, 'ValidationFailed')
      assert.deepEqual(error.failures, { id: [invalidIdFailure('cbd', 'ord_7')] })
      return true
    },
  )
  assert.deepEqual(invalidIdFailure('cbd', 'x'), {
    code: 'InvalidFormat',
    providedValue: 'x',
    comparisonValue: 'cbd_<number>',
  })
})
