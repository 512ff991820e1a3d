// Idempotent order creation through HTTP on every database backend: a repeated idempotencyKey returns the
// existing order (AlreadyExists), keys are scoped per account and environment, and 50 simultaneous creates
// with one key create exactly one order.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`order idempotency (${kind})`, () => {
    let t: TestApp

    before(async () => {
      // Enough connections on PostgreSQL for the simultaneous creates to really overlap.
      t = await startTestApp({ kind, maxConnections: kind === 'postgres' ? 20 : undefined })
    })
    after(async () => {
      await t.close()
    })

    const listIds = async (send: TestApp['sandbox'], key?: string): Promise<string[]> => {
      const response = await send({ method: 'GET', url: '/v4.0/orders?top=100' }, key)
      assert.equal(response.statusCode, 200, response.body)
      return json(response).orders.map((order: { id: string }) => order.id)
    }

    test('a second create with the same idempotencyKey answers AlreadyExists with the same order', async () => {
      const account = await t.createAccount()
      const payload = sampleOrder({ idempotencyKey: 'repeat-me' })
      const first = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, account.sandboxKey)
      assert.equal(first.statusCode, 200, first.body)
      assert.equal(json(first).outcome, 'Created')
      t.clock.advanceSeconds(60)
      const second = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, account.sandboxKey)
      assert.equal(second.statusCode, 200, second.body)
      const body = json(second)
      assert.deepEqual(Object.keys(body), ['outcome', 'order', 'traceParent'])
      assert.equal(body.outcome, 'AlreadyExists')
      assert.equal(body.order.id, json(first).order.id)
      assert.deepEqual(body.order, json(first).order)
      assert.equal(body.order.idempotencyKey, 'repeat-me')
      assert.deepEqual(await listIds(t.sandbox, account.sandboxKey), [json(first).order.id])
    })

    test('a repeat with the same key but a different body still returns the original order', async () => {
      const account = await t.createAccount()
      const first = await t.sandbox(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ idempotencyKey: 'k-2', merchantReference: 'first' }),
        },
        account.sandboxKey,
      )
      assert.equal(json(first).outcome, 'Created')
      const second = await t.sandbox(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ idempotencyKey: 'k-2', merchantReference: 'second' }),
        },
        account.sandboxKey,
      )
      assert.equal(second.statusCode, 200)
      assert.equal(json(second).outcome, 'AlreadyExists')
      assert.equal(json(second).order.id, json(first).order.id)
      assert.equal(json(second).order.merchantReference, 'first')
      assert.equal((await listIds(t.sandbox, account.sandboxKey)).length, 1)
    })

    test('orders without an idempotencyKey are never deduplicated', async () => {
      const account = await t.createAccount()
      const payload = sampleOrder()
      const first = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, account.sandboxKey))
      const second = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, account.sandboxKey))
      assert.equal(first.outcome, 'Created')
      assert.equal(second.outcome, 'Created')
      assert.notEqual(first.order.id, second.order.id)
      assert.equal((await listIds(t.sandbox, account.sandboxKey)).length, 2)
    })

    test('the same key on another account creates a separate order', async () => {
      const one = await t.createAccount()
      const two = await t.createAccount()
      const payload = sampleOrder({ idempotencyKey: 'shared-key' })
      const first = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, one.sandboxKey))
      const second = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, two.sandboxKey))
      assert.equal(first.outcome, 'Created')
      assert.equal(second.outcome, 'Created')
      assert.notEqual(first.order.id, second.order.id)
      assert.deepEqual(await listIds(t.sandbox, one.sandboxKey), [first.order.id])
      assert.deepEqual(await listIds(t.sandbox, two.sandboxKey), [second.order.id])
    })

    test('the same key in Live and Sandbox of one account creates separate orders', async () => {
      const account = await t.createAccount()
      const payload = sampleOrder({ idempotencyKey: 'env-key' })
      const sandbox = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, account.sandboxKey))
      const live = json(await t.live({ method: 'POST', url: '/v4.0/orders', payload }, account.liveKey))
      assert.equal(sandbox.outcome, 'Created')
      assert.equal(live.outcome, 'Created')
      assert.notEqual(sandbox.order.id, live.order.id)
      assert.deepEqual(await listIds(t.sandbox, account.sandboxKey), [sandbox.order.id])
      assert.deepEqual(await listIds(t.live, account.liveKey), [live.order.id])
      const liveAgain = json(await t.live({ method: 'POST', url: '/v4.0/orders', payload }, account.liveKey))
      assert.equal(liveAgain.outcome, 'AlreadyExists')
      assert.equal(liveAgain.order.id, live.order.id)
    })

    test('50 simultaneous creates with one key create exactly one order', async () => {
      const account = await t.createAccount()
      const payload = sampleOrder({ idempotencyKey: 'burst-key' })
      const responses = await Promise.all(
        Array.from({ length: 50 }, () =>
          t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, account.sandboxKey),
        ),
      )
      for (const response of responses) assert.equal(response.statusCode, 200, response.body)
      const bodies = responses.map((response) => json(response))
      const outcomes = bodies.map((body) => body.outcome)
      assert.equal(outcomes.filter((outcome) => outcome === 'Created').length, 1, outcomes.join(','))
      assert.equal(outcomes.filter((outcome) => outcome === 'AlreadyExists').length, 49, outcomes.join(','))
      const ids = new Set(bodies.map((body) => body.order.id))
      assert.equal(ids.size, 1)
      const created = bodies.find((body) => body.outcome === 'Created')
      for (const body of bodies) assert.deepEqual(body.order, created?.order)
      assert.deepEqual(await listIds(t.sandbox, account.sandboxKey), [...ids])
    })

    test('simultaneous creates with different keys all succeed', async () => {
      const account = await t.createAccount()
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          t.sandbox(
            { method: 'POST', url: '/v4.0/orders', payload: sampleOrder({ idempotencyKey: `many-${index}` }) },
            account.sandboxKey,
          ),
        ),
      )
      const bodies = responses.map((response) => json(response))
      assert.ok(bodies.every((body) => body.outcome === 'Created'))
      assert.equal(new Set(bodies.map((body) => body.order.id)).size, 20)
      assert.equal((await listIds(t.sandbox, account.sandboxKey)).length, 20)
    })
  })
}
