// Storefront channels with WooCommerce (docs/channels.md#woocommerce), end to end against a local WooCommerce
// stand-in: a store URL checked when the channel is made, a signed order.created mapped into one order (a replay
// dropped), the shipped order completed on the store with its tracking in a note, the ping answered, a wrong
// signature refused, a cancellation that carries only the order's id read as one, an order with an unlinked item
// waiting as not connected until linked and released (once), and a store that answers 500 then 429 to the
// completion: the channel failing meanwhile, the order completed once when the store recovers.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type ChannelHarness, startChannelHarness } from '../support/channel-harness.ts'
import type { ImageServer } from '../support/image-server.ts'
import type { PipelineDriver } from '../support/pipeline-driver.ts'
import { json, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import {
  startWooCommerceStandIn,
  type WooCommerceStandIn,
  wooCommerceFixture,
} from '../support/woocommerce-stand-in.ts'

const databases = tier('http')

/** A second store order: the fixture's linked line (variation 91) beside a simple product no link maps yet. */
const WAITING_ORDER = 1043
const UNLINKED_LINE = 2301
const UNLINKED_PRODUCT = 63

function waitingOrderBody(): string {
  const order = JSON.parse(wooCommerceFixture('order-created'))
  order.id = WAITING_ORDER
  order.number = String(WAITING_ORDER)
  const [linked] = order.line_items
  order.line_items = [
    { ...linked, quantity: 1 },
    {
      ...linked,
      id: UNLINKED_LINE,
      name: 'Own-brand gift card',
      product_id: UNLINKED_PRODUCT,
      variation_id: 0,
      quantity: 1,
      meta_data: [],
      sku: '',
      parent_name: null,
    },
  ]
  return JSON.stringify(order)
}

for (const kind of databases) {
  describe(`WooCommerce channels (${kind})`, () => {
    let h: ChannelHarness<WooCommerceStandIn>
    let t: TestApp
    let woo: WooCommerceStandIn
    let images: ImageServer
    let drive: PipelineDriver
    let channelId: string
    let webhookUrl: string

    before(async () => {
      h = await startChannelHarness(
        kind,
        () => startWooCommerceStandIn({ orderIds: [1042, WAITING_ORDER] }),
        () => ({ allowPrivateUrls: true, channelRetryScheduleSeconds: [0, 1, 1, 1] }),
      )
      ;({ t, store: woo, images, drive } = h)
    })
    after(() => h.close())

    const post = (url: string, payload: unknown) => h.post(url, payload)
    /** Delivers a webhook as the stand-in would send it, through the live port's routes. */
    const deliver = (headers: Record<string, string>, payload: string) =>
      t.app.live.inject({ method: 'POST', url: `/channels/v1/${channelId}/woocommerce`, headers, payload })
    const mapWebhooks = () => h.mapWebhooks()
    const channelOrder = (externalOrderId: string) => h.channelOrder(externalOrderId)
    const signedHeaders = async (topic: string, body: string, deliveryId: string, secret = woo.webhookSecret) => {
      const { createHmac } = await import('node:crypto')
      return {
        'content-type': 'application/json',
        'x-wc-webhook-topic': topic,
        'x-wc-webhook-delivery-id': deliveryId,
        'x-wc-webhook-signature': createHmac('sha256', secret).update(body).digest('base64'),
      }
    }

    test('a store URL that is not an absolute http(s) address is refused naming storeUrl and the reason', async () => {
      const response = await post('/v4.0/channels', {
        type: 'woocommerce',
        storeUrl: 'ftp://shop.example.com',
        consumerKey: woo.consumerKey,
        consumerSecret: woo.consumerSecret,
        webhookSecret: woo.webhookSecret,
      })
      assert.equal(response.statusCode, 400, response.body)
      const failure = json(response).failures.storeUrl[0]
      assert.equal(failure.code, 'InvalidFormat')
      assert.match(String(failure.comparisonValue), /ftp/)
      const plain = await post('/v4.0/channels', {
        type: 'woocommerce',
        storeUrl: 'http://shop.example.com',
        consumerKey: woo.consumerKey,
        consumerSecret: woo.consumerSecret,
        webhookSecret: woo.webhookSecret,
      })
      assert.equal(plain.statusCode, 400, plain.body)
      assert.match(json(plain).failures.storeUrl[0].comparisonValue, /https:\/\/ URL in Live/)
    })

    test('a channel of the stand-in store is created with its webhook URL', async () => {
      const response = await post('/v4.0/channels', {
        type: 'woocommerce',
        storeUrl: woo.storeUrl,
        consumerKey: woo.consumerKey,
        consumerSecret: woo.consumerSecret,
        webhookSecret: woo.webhookSecret,
      })
      assert.equal(response.statusCode, 201, response.body)
      const { channel } = json(response)
      channelId = channel.id
      webhookUrl = channel.webhookUrl
      assert.ok(webhookUrl.endsWith(`/channels/v1/${channelId}/woocommerce`), webhookUrl)
      assert.ok(!response.body.includes(woo.consumerSecret) && !response.body.includes(woo.webhookSecret))
    })

    test('the ping WooCommerce sends when a webhook is saved is answered 200', async () => {
      const ping = await t.app.live.inject({
        method: 'POST',
        url: `/channels/v1/${channelId}/woocommerce`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'webhook_id=17',
      })
      assert.equal(ping.statusCode, 200, ping.body)
      assert.equal(json(ping).outcome, 'Ok')
      await mapWebhooks()
      assert.equal((await t.database.db.query('SELECT id FROM channel_orders')).length, 0)
    })

    test('a wrong signature is 401 and stores nothing', async () => {
      const body = wooCommerceFixture('order-created')
      const wrong = await deliver(await signedHeaders('order.created', body, 'd-0', 'another-secret'), body)
      assert.equal(wrong.statusCode, 401, wrong.body)
      const kept = await t.database.db.query("SELECT id FROM channel_webhooks WHERE topic <> 'other'")
      assert.equal(kept.length, 0)
    })

    test('a signed order.created with linked lines creates one order; its replay is dropped', async () => {
      const linked = await post(`/v4.0/channels/${channelId}/links`, {
        externalVariantId: '91',
        sku: 'GLOBAL-CAN-10x10',
        attributes: { wrap: 'Black' },
        assets: [{ printArea: 'default', url: images.url('canvas.jpg') }],
      })
      assert.equal(linked.statusCode, 201, linked.body)
      const ignored = await post(`/v4.0/channels/${channelId}/links`, { externalVariantId: '45', ignore: true })
      assert.equal(ignored.statusCode, 201, ignored.body)
      const body = wooCommerceFixture('order-created')
      const first = await deliver(await signedHeaders('order.created', body, 'd-1'), body)
      assert.equal(first.statusCode, 200, first.body)
      assert.equal(json(first).received, 'accepted')
      const replay = await deliver(await signedHeaders('order.created', body, 'd-1'), body)
      assert.equal(json(replay).received, 'duplicate')
      await mapWebhooks()
      const row = await channelOrder('1042')
      assert.equal(row?.state, 'created')
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/ord_${row?.orderId}` })).order
      assert.equal(order.recipient.name, 'Sam Okafor')
      assert.deepEqual(
        order.items.map((item: any) => [item.sku, item.copies]),
        [['GLOBAL-CAN-10x10', 2]],
      )
      assert.equal(order.idempotencyKey, `woocommerce:${woo.storeUrl.toLowerCase()}:1042`)
      const count = await t.database.db.query("SELECT id FROM orders WHERE document LIKE '%woocommerce:%1042%'")
      assert.equal(count.length, 1)
    })

    test('the shipped order is completed on the store with its tracking in a note', async () => {
      const orderId = `ord_${(await channelOrder('1042'))?.orderId}`
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      await drive.ship(orderId)
      const outbox = await t.database.db.query<{ id: number | string }>('SELECT id FROM channel_fulfilments')
      assert.equal(outbox.length, 1)
      await t.app.services.channelFulfilments.deliver(Number(outbox[0]?.id), 1)
      const store = woo.order(1042)
      assert.equal(store?.status, 'completed')
      assert.equal(store?.notes.length, 1)
      assert.match(store?.notes[0]?.note ?? '', /^Shipped: /)
      const put = woo.requests.find((request) => request.method === 'PUT')
      assert.equal(put?.path, '/wp-json/wc/v3/orders/1042')
      assert.equal(put?.authorised, true)
    })

    test('a cancellation whose body is only the order id is read as a cancellation of that order', async () => {
      const body = wooCommerceFixture('order-deleted')
      const response = await deliver(await signedHeaders('order.deleted', body, 'd-2'), body)
      assert.equal(response.statusCode, 200, response.body)
      await mapWebhooks()
      const processed = await t.database.db.query<{ result: string }>(
        "SELECT result FROM channel_webhooks WHERE topic = 'orderCancelled'",
      )
      assert.doesNotMatch(processed[0]?.result ?? '', /not an order/)
      assert.equal((await channelOrder('1042'))?.state, 'cancelled')
    })

    test('a linked item beside an unlinked one waits as not connected; linking the other and releasing creates it once', async () => {
      const body = waitingOrderBody()
      const delivered = await deliver(await signedHeaders('order.created', body, 'd-3'), body)
      assert.equal(delivered.statusCode, 200, delivered.body)
      await mapWebhooks()
      assert.equal((await channelOrder(String(WAITING_ORDER)))?.state, 'notConnected')
      const pending = json(await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}/pending` }))
      assert.deepEqual(
        pending.orders.map((order: any) => [
          order.externalOrderId,
          order.unlinkedItems.map((item: any) => item.externalLineItemId),
        ]),
        [[String(WAITING_ORDER), [String(UNLINKED_LINE)]]],
      )
      const early = await post(`/v4.0/channels/${channelId}/pending/${WAITING_ORDER}/release`, undefined)
      assert.equal(early.statusCode, 400, early.body)
      assert.ok(json(early).failures[`lineItems.${UNLINKED_LINE}`], early.body)
      const linked = await post(`/v4.0/channels/${channelId}/links`, {
        externalVariantId: String(UNLINKED_PRODUCT),
        sku: 'GLOBAL-CAN-10x10',
        attributes: { wrap: 'Black' },
        assets: [{ printArea: 'default', url: images.url('gift.jpg') }],
      })
      assert.equal(linked.statusCode, 201, linked.body)
      const released = await post(`/v4.0/channels/${channelId}/pending/${WAITING_ORDER}/release`, undefined)
      assert.equal(released.statusCode, 201, released.body)
      const orderId = json(released).orderId as string
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(order.recipient.name, 'Sam Okafor')
      assert.deepEqual(
        order.items.map((item: any) => [item.sku, item.copies, item.merchantReference]),
        [
          ['GLOBAL-CAN-10x10', 1, '2201'],
          ['GLOBAL-CAN-10x10', 1, String(UNLINKED_LINE)],
        ],
      )
      assert.equal(order.idempotencyKey, `woocommerce:${woo.storeUrl.toLowerCase()}:${WAITING_ORDER}`)
      assert.equal(json(await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}/pending` })).orders.length, 0)
      // Released once: a second release finds nothing waiting, and the order delivered again creates nothing more.
      const again = await post(`/v4.0/channels/${channelId}/pending/${WAITING_ORDER}/release`, undefined)
      assert.equal(again.statusCode, 404, again.body)
      const redelivered = await deliver(await signedHeaders('order.created', body, 'd-4'), body)
      assert.equal(json(redelivered).received, 'accepted')
      await mapWebhooks()
      const count = await t.database.db.query(
        `SELECT id FROM orders WHERE document LIKE '%woocommerce:%:${WAITING_ORDER}%'`,
      )
      assert.equal(count.length, 1)
    })

    test('a store answering 500 then 429 to the completion shows the channel failing; it is completed once after', async () => {
      const orderId = `ord_${(await channelOrder(String(WAITING_ORDER)))?.orderId}`
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      await drive.ship(orderId)
      const outbox = await t.database.db.query<{ id: number | string }>(
        "SELECT id FROM channel_fulfilments WHERE status = 'pending'",
      )
      assert.equal(outbox.length, 1)
      const fulfilmentId = Number(outbox[0]?.id)
      const channel = async () => json(await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}` })).channel
      const before = woo.requests.length
      woo.answerNext({ status: 500 }, { status: 429, retryAfter: '120' })

      await t.app.services.channelFulfilments.deliver(fulfilmentId, 1)
      const afterServerError = await channel()
      assert.equal(afterServerError.status, 'failing')
      assert.match(afterServerError.statusReason, /500/)
      assert.equal(woo.order(WAITING_ORDER)?.status, 'processing')

      await t.app.services.channelFulfilments.deliver(fulfilmentId, 2)
      const afterTooMany = await channel()
      assert.equal(afterTooMany.status, 'failing')
      assert.match(afterTooMany.statusReason, /429/)
      // The store's Retry-After (120 s) is longer than the schedule's next step (1 s), so it sets the next attempt.
      const [waiting] = await t.database.db.query<{ next: Date | string; at: Date | string }>(
        `SELECT f.next_attempt_at AS next, a.attempted_at AS at FROM channel_fulfilments f
           JOIN channel_fulfilment_attempts a ON a.fulfilment_id = f.id AND a.attempt = 2 WHERE f.id = $1`,
        [fulfilmentId],
      )
      const waitedSeconds = (new Date(waiting?.next ?? 0).getTime() - new Date(waiting?.at ?? 0).getTime()) / 1000
      assert.ok(waitedSeconds >= 119, `next attempt ${waitedSeconds} s after the 429`)

      await t.app.services.channelFulfilments.deliver(fulfilmentId, 3)
      // A repeated run of an attempt already recorded does nothing.
      await t.app.services.channelFulfilments.deliver(fulfilmentId, 3)
      const calls = woo.requests.slice(before).map((request) => `${request.method} ${request.path}`)
      assert.deepEqual(calls, [
        `PUT /wp-json/wc/v3/orders/${WAITING_ORDER}`,
        `PUT /wp-json/wc/v3/orders/${WAITING_ORDER}`,
        `PUT /wp-json/wc/v3/orders/${WAITING_ORDER}`,
        `POST /wp-json/wc/v3/orders/${WAITING_ORDER}/notes`,
      ])
      const store = woo.order(WAITING_ORDER)
      assert.equal(store?.status, 'completed')
      assert.equal(store?.notes.length, 1)
      assert.match(store?.notes[0]?.note ?? '', /^Shipped: /)
      const attempts = await t.database.db.query<{ httpStatus: number | null }>(
        'SELECT http_status AS "httpStatus" FROM channel_fulfilment_attempts WHERE fulfilment_id = $1 ORDER BY attempt',
        [fulfilmentId],
      )
      assert.deepEqual(
        attempts.map((attempt) => attempt.httpStatus),
        [500, 429, 200],
      )
      const [row] = await t.database.db.query<{ status: string }>(
        'SELECT status FROM channel_fulfilments WHERE id = $1',
        [fulfilmentId],
      )
      assert.equal(row?.status, 'delivered')
      assert.equal((await channel()).status, 'active')
    })
  })
}
