// The lab priority of each shipping method (domain/shipping-methods.ts, docs/pipeline.md#labs).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { LAB_PRIORITIES, labPriorityOf, SHIPPING_METHODS } from './shipping-methods.ts'

tier('pure')

test('each shipping method has its lab priority: the faster the method, the more urgent', () => {
  assert.deepEqual(
    SHIPPING_METHODS.map((method) => [method, labPriorityOf(method)]),
    [
      ['Budget', 'normal'],
      ['Standard', 'normal'],
      ['StandardPlus', 'high'],
      ['Express', 'urgent'],
      ['Overnight', 'urgent'],
    ],
  )
  const rank = (method: string) => LAB_PRIORITIES.indexOf(labPriorityOf(method))
  for (const [index, method] of SHIPPING_METHODS.entries()) {
    if (index > 0) assert.ok(rank(method) >= rank(SHIPPING_METHODS[index - 1] ?? ''), method)
  }
})

test('a method in another letter case has the same priority; a name that is no method is normal', () => {
  assert.equal(labPriorityOf('express'), 'urgent')
  assert.equal(labPriorityOf('STANDARDPLUS'), 'high')
  assert.equal(labPriorityOf('Carrier pigeon'), 'normal')
})
