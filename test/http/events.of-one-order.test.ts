// GET /v4.0/events?orderId=: one order's events (the dashboard's order timeline), with the feed's cursor and
// page size, scoped like the rest of the feed; an order the caller does not have has no events.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const T = 'com.printroute.order'

for (const kind of databaseKinds) {
  describe(`events of one order (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    async function createOrder(key: string): Promise<string> {
      const payload = sampleOrder({
        items: [
          {
            sku: 'GLOBAL-CAN-10x10',
            copies: 1,
            sizing: 'fillPrintArea',
            attributes: { wrap: 'Black' },
            assets: [{ url: images.url('canvas.jpg') }],
          },
        ],
      })
      const response = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        key,
      )
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    async function cancel(orderId: string, key: string) {
      const response = await t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, key)
      assert.equal(response.statusCode, 200, response.body)
    }

    async function events(key: string, query: string) {
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/events${query}` }, key)
      assert.equal(response.statusCode, 200, response.body)
      return json(response)
    }

    const ids = (page: Record<string, any>): string[] => page.events.map((event: { id: string }) => event.id)

    test("only the order's events, oldest first, paged by the same cursor", async () => {
      const account = await t.createAccount()
      const first = await createOrder(account.sandboxKey)
      const second = await createOrder(account.sandboxKey)
      // Interleaved: first's downloads complete, second is cancelled, then first is cancelled.
      await drive.allocate(first)
      await cancel(second, account.sandboxKey)
      await cancel(first, account.sandboxKey)
      const all = await events(account.sandboxKey, '')
      assert.deepEqual(
        all.events.map((event: any) => [event.subject, event.type]),
        [
          [first, `${T}.status.details.downloadAssets#Complete`],
          [second, `${T}.status.stage.changed#Cancelled`],
          [first, `${T}.status.stage.changed#Cancelled`],
        ],
      )
      const [firstDownloaded, secondCancelled, firstCancelled] = ids(all)

      const timeline = await events(account.sandboxKey, `?orderId=${first}`)
      assert.deepEqual(ids(timeline), [firstDownloaded, firstCancelled])
      assert.deepEqual(
        timeline.events.map((event: any) => event.sequence),
        ['0000000000000000001', '0000000000000000002'],
      )
      assert.equal(timeline.hasMore, false)
      assert.equal(timeline.nextCursor, firstCancelled)
      // The events are the feed's own, byte for byte.
      assert.deepEqual(timeline.events[1], all.events[2])
      assert.deepEqual(ids(await events(account.sandboxKey, `?OrderId=${second}`)), [secondCancelled])

      const page = await events(account.sandboxKey, `?orderId=${first}&top=1`)
      assert.deepEqual(ids(page), [firstDownloaded])
      assert.equal(page.hasMore, true)
      assert.equal(page.nextCursor, firstDownloaded)
      const rest = await events(account.sandboxKey, `?orderId=${first}&top=1&after=${page.nextCursor}`)
      assert.deepEqual(ids(rest), [firstCancelled])
      assert.equal(rest.hasMore, false)
      // Any event id is a cursor, also another order's.
      assert.deepEqual(ids(await events(account.sandboxKey, `?orderId=${first}&after=${secondCancelled}`)), [
        firstCancelled,
      ])
      const caughtUp = await events(account.sandboxKey, `?orderId=${first}&after=${firstCancelled}`)
      assert.deepEqual(caughtUp.events, [])
      assert.equal(caughtUp.nextCursor, firstCancelled, 'nothing new: the cursor given')
    })

    test("an unknown order, another account's or another environment's has no events", async () => {
      const account = await t.createAccount()
      const other = await t.createAccount()
      const orderId = await createOrder(account.sandboxKey)
      await cancel(orderId, account.sandboxKey)
      assert.equal((await events(account.sandboxKey, `?orderId=${orderId}`)).events.length, 1)

      const foreign = await events(other.sandboxKey, `?orderId=${orderId}`)
      assert.deepEqual(foreign.events, [])
      assert.equal(foreign.nextCursor, null)
      assert.equal(foreign.hasMore, false)
      assert.deepEqual((await events(account.sandboxKey, '?orderId=ord_999999999')).events, [])
      const live = await t.live({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` }, account.liveKey)
      assert.equal(live.statusCode, 200, live.body)
      assert.deepEqual(json(live).events, [])
    })

    test('an orderId that is not ord_<number> is ValidationFailed naming it', async () => {
      for (const orderId of ['12', 'evt_1', 'ord_', `ord_${'9'.repeat(41)}`]) {
        const response = await t.sandbox({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` })
        assert.equal(response.statusCode, 400, response.body)
        const body = json(response)
        assert.equal(body.outcome, 'ValidationFailed')
        assert.ok(body.failures.orderId, JSON.stringify(body.failures))
      }
    })
  })
}
