// GET /orders/{id}/actions and updateMetadata (docs/api.md#order-actions), on every configured database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`order actions (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    const create = async (key = t.account.sandboxKey) =>
      json(
        await t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/orders',
            payload: sampleOrder(),
            headers: { 'content-type': 'application/json' },
          },
          key,
        ),
      ).order.id as string

    test('a new order offers every action, in the contract shape', async () => {
      const orderId = await create()
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/actions` })
      assert.equal(response.statusCode, 200)
      const body = json(response)
      assert.deepEqual(Object.keys(body), [
        'outcome',
        'cancel',
        'changeRecipientDetails',
        'changeShippingMethod',
        'changeMetaData',
        // printroute's own, additive (test/http/order-actions.replace-asset.test.ts says when it is Yes).
        'replaceAsset',
        // printroute's own, additive: drafts and holds (test/http/orders.drafts.test.ts).
        'confirm',
        'traceParent',
      ])
      assert.equal(body.outcome, 'Ok')
      for (const action of ['cancel', 'changeRecipientDetails', 'changeShippingMethod', 'changeMetaData']) {
        assert.deepEqual(body[action], { isAvailable: 'Yes' })
      }
    })

    test("another account's order, a bad id and an unknown order are refused", async () => {
      const other = await t.createAccount()
      const theirs = await create(other.sandboxKey)
      assert.equal((await t.sandbox({ method: 'GET', url: `/v4.0/orders/${theirs}/actions` })).statusCode, 404)
      const update = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${theirs}/actions/updateMetadata`,
        payload: { metadata: { x: 1 } },
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(json(update).outcome, 'EntityNotFound')
      assert.equal(
        json(await t.sandbox({ method: 'GET', url: '/v4.0/orders/ord_x/actions' })).outcome,
        'ValidationFailed',
      )
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders/ord_999999/actions' })).statusCode, 404)
    })

    test('updateMetadata replaces the metadata and moves lastUpdated; any letter case of the path works', async () => {
      const orderId = await create()
      const before = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      t.clock.advanceSeconds(60)
      const response = await t.sandbox({
        method: 'POST',
        url: `/v4.0/Orders/${orderId}/Actions/updateMetaData`,
        payload: { metadata: { replaced: true, nested: { list: [1, 2] } } },
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'order', 'traceParent'])
      assert.equal(body.outcome, 'Updated')
      assert.deepEqual(body.order.metadata, { replaced: true, nested: { list: [1, 2] } })
      assert.ok(body.order.lastUpdated > before.lastUpdated)
      const after = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.deepEqual(after, body.order)
      assert.deepEqual(Object.keys(after), Object.keys(before), 'the key order is kept')
    })

    test('updateMetadata validates its body', async () => {
      const orderId = await create()
      const post = (payload: unknown) =>
        t.sandbox({
          method: 'POST',
          url: `/v4.0/orders/${orderId}/actions/updateMetadata`,
          payload: payload as object,
          headers: { 'content-type': 'application/json' },
        })
      assert.deepEqual(json(await post({})).failures, { metadata: [{ code: 'Required', providedValue: null }] })
      assert.equal(json(await post({ metadata: {}, extra: 1 })).failures.extra[0].code, 'UnknownField')
      const tooLong = json(await post({ metadata: { text: 'x'.repeat(2000) } }))
      assert.equal(tooLong.failures.metadata[0].code, 'TooLong')
      assert.equal(json(await post({ metadata: 'text' })).failures.metadata[0].code, 'InvalidType')
    })

    test('an order on hold has its actions, and its metadata can be updated', async () => {
      const held = await t.createAccount({ pauseWindowSeconds: 1800 })
      const created = json(
        await t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/orders',
            payload: sampleOrder(),
            headers: { 'content-type': 'application/json' },
          },
          held.sandboxKey,
        ),
      )
      assert.equal(created.outcome, 'OnHold')
      const actions = json(
        await t.sandbox({ method: 'GET', url: `/v4.0/orders/${created.order.id}/actions` }, held.sandboxKey),
      )
      assert.equal(actions.cancel.isAvailable, 'Yes')
      const updated = await t.sandbox(
        {
          method: 'POST',
          url: `/v4.0/orders/${created.order.id}/actions/updateMetadata`,
          payload: { metadata: { held: true } },
          headers: { 'content-type': 'application/json' },
        },
        held.sandboxKey,
      )
      assert.equal(json(updated).outcome, 'Updated')
    })
  })
}
