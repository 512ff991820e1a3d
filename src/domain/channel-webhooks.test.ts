import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { elsewhereReason, planSubscriptions } from './channel-webhooks.ts'

tier('pure')

const URI = 'https://printroute.example/channels/v1/chn_3/shopify'

test('only the topics not yet sent to the channel are planned; other addresses are reported, not replaced', () => {
  const plan = planSubscriptions(
    [
      { topic: 'ORDERS_CREATE', uri: URI },
      { topic: 'ORDERS_CANCELLED', uri: 'https://elsewhere.example/hook' },
      { topic: 'PRODUCTS_UPDATE', uri: URI },
    ],
    URI,
  )
  assert.deepEqual(plan.present, ['ORDERS_CREATE'])
  assert.deepEqual(plan.missing, ['ORDERS_CANCELLED', 'APP_UNINSTALLED'])
  assert.deepEqual(plan.elsewhere, [{ topic: 'ORDERS_CANCELLED', uri: 'https://elsewhere.example/hook' }])
  assert.equal(
    elsewhereReason(plan.elsewhere),
    'left alone: the app also sends ORDERS_CANCELLED to https://elsewhere.example/hook',
  )
})

test('a store with every topic subscribed plans nothing, and says nothing', () => {
  const plan = planSubscriptions(
    ['ORDERS_CREATE', 'ORDERS_CANCELLED', 'APP_UNINSTALLED'].map((topic) => ({ topic, uri: URI })),
    URI,
  )
  assert.deepEqual(plan.missing, [])
  assert.equal(elsewhereReason(plan.elsewhere), null)
})
