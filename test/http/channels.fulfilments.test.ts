// A channel's fulfilments on the API (docs/channels.md#fulfilments) and its shipping method
// (docs/channels.md#shipping-method), against the Shopify stand-in: the channel's orders are created with its
// shipping method (a bad one is 400 naming it); each shipped shipment is listed newest first with its store order,
// attempts, next attempt and last error, paged by `before`; "try again now" makes a failing one due at once (a job
// of its own beside the scheduled one, which then finds the attempt made: the store is told once) and a refused one
// pending again; one already delivered is 400 naming fulfilmentId.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { jobIdFromKey } from '../../src/adapters/job-queue.ts'
import { parseId } from '../../src/domain/ids.ts'
import { jobRequest } from '../../src/domain/jobs.ts'
import { type ChannelHarness, shipShopifyStoreOrder, startChannelHarness } from '../support/channel-harness.ts'
import { type ShopifyStandIn, startShopifyStandIn } from '../support/shopify-stand-in.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const SHOP = 'fulfilments-test.myshopify.com'
const WEBHOOK_SECRET = 'shpss_fulfilments_secret'
const CANVAS_LINE = '866550311766439020'

const databases = tier('http')

for (const kind of databases) {
  describe(`channel fulfilments and shipping method (${kind})`, () => {
    let h: ChannelHarness<ShopifyStandIn>
    let channelId: string
    const fulfilmentOf: Record<string, string> = {}

    before(async () => {
      h = await startChannelHarness(kind, startShopifyStandIn, (store) => ({
        shopifyApiUrl: store.origin,
        channelRetryScheduleSeconds: [0, 3600, 3600],
      }))
    })
    after(() => h.close())

    const list = async (query = '') =>
      json(await h.t.live({ method: 'GET', url: `/v4.0/channels/${channelId}/fulfilments${query}` }))
    const jobState = async (key: string) =>
      (
        await h.t.database.db.query<{ state: string }>(
          `SELECT state FROM ${h.t.database.jobSchema}.job WHERE id = $1`,
          [jobIdFromKey(key)],
        )
      )[0]?.state

    /** A store order received, created, and its one shipment shipped: its fulfilment's number. */
    const shipStoreOrder = async (externalOrderId: string, name: string): Promise<number> => {
      const shop = { channelId, shop: SHOP, webhookSecret: WEBHOOK_SECRET, lineItem: CANVAS_LINE }
      const { fulfilmentId } = await shipShopifyStoreOrder(h, { ...shop, externalOrderId, name })
      fulfilmentOf[externalOrderId] = `chf_${fulfilmentId}`
      return fulfilmentId
    }

    test("a channel's shipping method is shown, changed, and a bad one is 400 naming it", async () => {
      const channel = await h.createChannel({
        type: 'shopify',
        shopDomain: SHOP,
        adminAccessToken: 'shpat_fulfilments',
        webhookSecret: WEBHOOK_SECRET,
        shippingMethod: 'overnight',
      })
      channelId = channel.id
      assert.equal(channel.shippingMethod, 'Overnight')
      const bad = await h.send('PATCH', `/v4.0/channels/${channelId}`, { shippingMethod: 'Rocket' })
      assert.equal(bad.statusCode, 400, bad.body)
      assert.equal(json(bad).failures.shippingMethod[0].code, 'InvalidValue')
      assert.equal(
        json(await h.t.live({ method: 'GET', url: `/v4.0/channels/${channelId}` })).channel.shippingMethod,
        'Overnight',
      )
      const changed = await h.send('PATCH', `/v4.0/channels/${channelId}`, { shippingMethod: 'Express' })
      assert.equal(changed.statusCode, 200, changed.body)
      assert.equal(json(changed).channel.shippingMethod, 'Express')
      for (const link of [
        {
          externalVariantId: '808950810',
          sku: 'GLOBAL-CAN-10x10',
          attributes: { wrap: 'Black' },
          assets: [{ printArea: 'default', url: h.images.url('canvas.jpg') }],
        },
        { externalSku: 'MUG-OWN', ignore: true },
      ]) {
        const made = await h.post(`/v4.0/channels/${channelId}/links`, link)
        assert.equal(made.statusCode, 201, made.body)
      }
    })

    test("the store order is created with the channel's shipping method; its failing fulfilment is listed", async () => {
      const fulfilmentId = await shipStoreOrder('6001', '#2001')
      const row = await h.channelOrder('6001')
      const order = json(await h.t.live({ method: 'GET', url: `/v4.0/orders/ord_${row?.orderId}` })).order
      assert.equal(order.shippingMethod, 'Express')
      h.store.failNext(500)
      await h.t.app.services.channelFulfilments.deliver(fulfilmentId, 1)
      const [listed] = (await list()).fulfilments
      assert.equal(listed.id, `chf_${fulfilmentId}`)
      assert.equal(listed.orderId, `ord_${row?.orderId}`)
      assert.equal(listed.externalOrderId, '6001')
      assert.match(listed.shipmentId, /^shp_/)
      assert.equal(listed.state, 'pending')
      assert.equal(listed.attemptCount, 1)
      assert.match(listed.lastError, /500/)
      assert.equal(listed.nextAttemptAt, new Date(h.t.clock.now().getTime() + 3600_000).toISOString())
      assert.deepEqual(
        listed.attempts.map((attempt: any) => [attempt.attempt, attempt.httpStatus]),
        [[1, 500]],
      )
    })

    test('try again now makes the next attempt due at once; the store is told once; then it is 400', async () => {
      const fulfilmentId = parseId('chf', fulfilmentOf['6001'] as string) as number
      const retried = await h.post(`/v4.0/channels/${channelId}/fulfilments/chf_${fulfilmentId}/retry`)
      assert.equal(retried.statusCode, 200, retried.body)
      assert.equal(json(retried).fulfilment.nextAttemptAt, h.t.clock.now().toISOString())
      // Its own job, due now, beside the one the schedule holds for an hour later.
      const now = jobRequest('fulfil-channel-shipment', { fulfilmentId, attempt: 2, now: true }).key
      const scheduled = jobRequest('fulfil-channel-shipment', { fulfilmentId, attempt: 2 }).key
      assert.equal(await jobState(now), 'created')
      assert.equal(await jobState(scheduled), 'created')
      await h.t.app.services.channelFulfilments.deliver(fulfilmentId, 2)
      await h.t.app.services.channelFulfilments.deliver(fulfilmentId, 2)
      assert.equal(h.store.fulfilments.length, 1, 'told once')
      const [listed] = (await list()).fulfilments
      assert.equal(listed.state, 'delivered')
      assert.equal(listed.lastError, null)
      assert.equal(listed.nextAttemptAt, null)
      const again = await h.post(`/v4.0/channels/${channelId}/fulfilments/chf_${fulfilmentId}/retry`)
      assert.equal(again.statusCode, 400, again.body)
      assert.equal(json(again).failures.fulfilmentId[0].code, 'InvalidValue')
      const unknown = await h.post(`/v4.0/channels/${channelId}/fulfilments/chf_999999/retry`)
      assert.equal(unknown.statusCode, 404, unknown.body)
    })

    test('a refused fulfilment is pending again after try again now; the list pages newest first', async () => {
      const fulfilmentId = await shipStoreOrder('6002', '#2002')
      h.store.failNext(422)
      await h.t.app.services.channelFulfilments.deliver(fulfilmentId, 1)
      const page = await list('?top=1')
      assert.deepEqual(
        page.fulfilments.map((f: any) => [f.externalOrderId, f.state]),
        [['6002', 'failed']],
      )
      assert.equal(page.hasMore, true)
      const next = new URL(page.nextUrl)
      assert.equal(next.searchParams.get('before'), `chf_${fulfilmentId}`)
      const older = await list(next.search)
      assert.deepEqual(
        older.fulfilments.map((f: any) => f.externalOrderId),
        ['6001'],
      )
      assert.equal(older.hasMore, false)
      assert.equal(older.nextUrl, null)
      const retried = await h.post(`/v4.0/channels/${channelId}/fulfilments/chf_${fulfilmentId}/retry`)
      assert.equal(json(retried).fulfilment.state, 'pending', retried.body)
      assert.equal(await jobState(jobRequest('fulfil-channel-shipment', { fulfilmentId, attempt: 2 }).key), 'created')
      await h.t.app.services.channelFulfilments.deliver(fulfilmentId, 2)
      assert.equal((await list('?top=1')).fulfilments[0].state, 'delivered')
      const bad = await h.t.live({ method: 'GET', url: `/v4.0/channels/${channelId}/fulfilments?before=nope` })
      assert.equal(bad.statusCode, 400, bad.body)
      assert.ok(json(bad).failures.before, bad.body)
    })
  })
}
