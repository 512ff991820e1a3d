// Storefront channels with Shopify (docs/channels.md), end to end against a local Shopify stand-in: a channel made
// and shown without its secrets, links checked against the catalogue, webhooks checked by their signature and
// dropped when replayed, an order with an unlinked item waiting as not connected until linked and released (once),
// a store cancellation cancelling its order, and a shipped shipment told to the store once through 500 and 429.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { type ChannelHarness, startChannelHarness } from '../support/channel-harness.ts'
import type { ImageServer } from '../support/image-server.ts'
import type { PipelineDriver } from '../support/pipeline-driver.ts'
import {
  type ShopifyStandIn,
  shopifyOrderBody,
  shopifyWebhookHeaders,
  startShopifyStandIn,
} from '../support/shopify-stand-in.ts'
import { json, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const SHOP = 'printroute-test.myshopify.com'
const WEBHOOK_SECRET = 'shpss_test_secret'
const TOKEN = 'shpat_test_token_0123456789'
const CANVAS_LINE = '866550311766439020'
const MUG_LINE = '141249953214522974'

const databases = tier('http')

for (const kind of databases) {
  describe(`Shopify channels (${kind})`, () => {
    let h: ChannelHarness<ShopifyStandIn>
    let t: TestApp
    let shopify: ShopifyStandIn
    let images: ImageServer
    let drive: PipelineDriver
    let channelId: string

    before(async () => {
      h = await startChannelHarness(kind, startShopifyStandIn, (store) => ({
        shopifyApiUrl: store.origin,
        channelRetryScheduleSeconds: [0, 1, 1],
      }))
      ;({ t, store: shopify, images, drive } = h)
    })
    after(() => h.close())

    const post = (url: string, payload: unknown) => h.post(url, payload)
    const webhook = (body: string, topic: string, webhookId: string, secret = WEBHOOK_SECRET) =>
      t.app.live.inject({
        method: 'POST',
        url: `/channels/v1/${channelId}/shopify`,
        headers: shopifyWebhookHeaders(body, secret, topic, webhookId, SHOP),
        payload: body,
      })
    const mapWebhooks = () => h.mapWebhooks()
    const channelOrder = (externalOrderId: string) => h.channelOrder(externalOrderId)

    test('a shop domain that is not *.myshopify.com is refused naming the field', async () => {
      const response = await post('/v4.0/channels', {
        type: 'shopify',
        shopDomain: 'shop.example.com',
        adminAccessToken: TOKEN,
        webhookSecret: WEBHOOK_SECRET,
      })
      assert.equal(response.statusCode, 400, response.body)
      assert.equal(json(response).failures.shopDomain[0].code, 'InvalidFormat')
    })

    test('a channel is created and shown without its secrets, which are stored encrypted', async () => {
      const response = await post('/v4.0/channels', {
        type: 'shopify',
        shopDomain: SHOP,
        adminAccessToken: TOKEN,
        webhookSecret: WEBHOOK_SECRET,
      })
      assert.equal(response.statusCode, 201, response.body)
      const { channel } = json(response)
      channelId = channel.id
      assert.match(channelId, /^chn_\d+$/)
      assert.equal(channel.hasAdminAccessToken, true)
      assert.equal(channel.status, 'active')
      assert.ok(channel.webhookUrl.endsWith(`/channels/v1/${channelId}/shopify`))
      const read = await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}` })
      assert.ok(!read.body.includes(TOKEN) && !read.body.includes(WEBHOOK_SECRET))
      const rows = await t.database.db.query<Record<string, string>>('SELECT * FROM channels')
      assert.ok(!JSON.stringify(rows).includes(TOKEN) && !JSON.stringify(rows).includes(WEBHOOK_SECRET))
    })

    test('a link to an unknown SKU or a print area the product lacks is refused naming the field', async () => {
      const unknown = await post(`/v4.0/channels/${channelId}/links`, {
        externalVariantId: '808950810',
        sku: 'NOT-A-SKU',
        assets: [{ printArea: 'default', url: images.url('a.jpg') }],
      })
      assert.equal(unknown.statusCode, 400, unknown.body)
      assert.equal(json(unknown).failures.sku[0].code, 'UnknownSku')
      const area = await post(`/v4.0/channels/${channelId}/links`, {
        externalVariantId: '808950810',
        sku: 'GLOBAL-CAN-10x10',
        attributes: { wrap: 'Black' },
        assets: [{ printArea: 'back', url: images.url('a.jpg') }],
      })
      assert.equal(area.statusCode, 400, area.body)
      assert.ok(
        Object.keys(json(area).failures).some((path) => path.startsWith('assets[0]')),
        area.body,
      )
    })

    test('a wrong signature is 401 and stores nothing; a replayed webhook id is dropped', async () => {
      const body = shopifyOrderBody('5001', '#1001')
      const wrong = await webhook(body, 'orders/create', 'wh-1', 'another-secret')
      assert.equal(wrong.statusCode, 401, wrong.body)
      const none = await t.database.db.query('SELECT id FROM channel_webhooks')
      assert.equal(none.length, 0)
      const first = await webhook(body, 'orders/create', 'wh-1')
      assert.equal(first.statusCode, 200, first.body)
      assert.equal(json(first).received, 'accepted')
      const again = await webhook(body, 'orders/create', 'wh-1')
      assert.equal(json(again).received, 'duplicate')
      assert.equal((await t.database.db.query('SELECT id FROM channel_webhooks')).length, 1)
    })

    test('a linked item beside an unlinked one waits as not connected; linking the other and releasing creates it once', async () => {
      const linked = await post(`/v4.0/channels/${channelId}/links`, {
        externalVariantId: '808950810',
        sku: 'GLOBAL-CAN-10x10',
        attributes: { wrap: 'Black' },
        assets: [{ printArea: 'default', url: images.url('canvas.jpg') }],
      })
      assert.equal(linked.statusCode, 201, linked.body)
      await mapWebhooks()
      assert.equal((await channelOrder('5001'))?.state, 'notConnected')
      const pending = json(await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}/pending` }))
      assert.deepEqual(
        pending.orders.map((order: any) => [
          order.externalOrderId,
          order.unlinkedItems.map((i: any) => i.externalLineItemId),
        ]),
        [['5001', [MUG_LINE]]],
      )
      const early = await post(`/v4.0/channels/${channelId}/pending/5001/release`, undefined)
      assert.equal(early.statusCode, 400, early.body)
      assert.ok(json(early).failures[`lineItems.${MUG_LINE}`], early.body)
      const ignored = await post(`/v4.0/channels/${channelId}/links`, { externalSku: 'MUG-OWN', ignore: true })
      assert.equal(ignored.statusCode, 201, ignored.body)
      const released = await post(`/v4.0/channels/${channelId}/pending/5001/release`, undefined)
      assert.equal(released.statusCode, 201, released.body)
      const orderId = json(released).orderId as string
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(order.merchantReference, '#1001')
      assert.equal(order.recipient.name, 'Jon Snow')
      assert.deepEqual(
        order.items.map((item: any) => [item.sku, item.copies, item.merchantReference]),
        [['GLOBAL-CAN-10x10', 1, CANVAS_LINE]],
      )
      assert.equal(order.metadata.channelId, channelId)
      assert.equal(order.idempotencyKey, `shopify:${SHOP}:5001`)
      // The same store order delivered again (a new webhook id) creates nothing more.
      await webhook(shopifyOrderBody('5001', '#1001'), 'orders/create', 'wh-2')
      await mapWebhooks()
      const count = await t.database.db.query("SELECT id FROM orders WHERE document LIKE '%shopify:%5001%'")
      assert.equal(count.length, 1)
    })

    test('a shipped shipment becomes one fulfillmentCreate, through a 500 and a 429, with tracking', async () => {
      const orderId = `ord_${(await channelOrder('5001'))?.orderId}`
      shopify.addOrder('5001', [
        { id: CANVAS_LINE, quantity: 1 },
        { id: MUG_LINE, quantity: 2 },
      ])
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      await drive.ship(orderId)
      const outbox = await t.database.db.query<{ id: number | string }>('SELECT id FROM channel_fulfilments')
      assert.equal(outbox.length, 1)
      const fulfilmentId = Number(outbox[0]?.id)
      shopify.failNext(500, 429)
      await t.app.services.channelFulfilments.deliver(fulfilmentId, 1)
      const failing = json(await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}` })).channel
      assert.equal(failing.status, 'failing')
      assert.match(failing.statusReason, /500/)
      await t.app.services.channelFulfilments.deliver(fulfilmentId, 2)
      await t.app.services.channelFulfilments.deliver(fulfilmentId, 3)
      // A repeated run of an attempt already recorded does nothing.
      await t.app.services.channelFulfilments.deliver(fulfilmentId, 3)
      assert.equal(shopify.fulfilments.length, 1)
      const [made] = shopify.fulfilments
      assert.deepEqual(made?.lineItems, [{ id: `gid://shopify/FulfillmentOrderLineItem/${CANVAS_LINE}`, quantity: 1 }])
      assert.equal(made?.notifyCustomer, true)
      assert.equal(made?.accessToken, TOKEN)
      assert.match(made?.trackingInfo.number ?? '', /^Tshp_/)
      const attempts = await t.database.db.query<{ httpStatus: number | null }>(
        'SELECT http_status AS "httpStatus" FROM channel_fulfilment_attempts ORDER BY attempt',
      )
      assert.deepEqual(
        attempts.map((attempt) => attempt.httpStatus),
        [500, 429, 200],
      )
      const active = json(await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}` })).channel
      assert.equal(active.status, 'active')
    })

    test('a store cancellation cancels the printroute order and records the answer', async () => {
      await webhook(shopifyOrderBody('5002', '#1002'), 'orders/create', 'wh-3')
      await mapWebhooks()
      const created = await channelOrder('5002')
      assert.equal(created?.state, 'created')
      await webhook(shopifyOrderBody('5002', '#1002', true), 'orders/cancelled', 'wh-4')
      await mapWebhooks()
      const cancelled = await channelOrder('5002')
      assert.equal(cancelled?.state, 'cancelled')
      assert.match(cancelled?.cancellation ?? '', /Cancelled/)
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/ord_${created?.orderId}` })).order
      assert.equal(order.status.stage, 'Cancelled')
    })

    test('a store cancellation of an order that has shipped records the refusal and changes nothing else', async () => {
      // Order 5001 shipped above, and its fulfilment was told to the store.
      const row = await channelOrder('5001')
      const orderId = `ord_${row?.orderId}`
      const before = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      const ordersBefore = await t.database.db.query('SELECT id FROM orders')
      const fulfilmentsBefore = await t.database.db.query('SELECT id, status, attempts FROM channel_fulfilments')
      t.clock.advanceSeconds(60)
      await webhook(shopifyOrderBody('5001', '#1001', true), 'orders/cancelled', 'wh-cancel-late')
      await mapWebhooks()
      const cancelled = await channelOrder('5001')
      assert.equal(cancelled?.state, 'cancelled')
      assert.equal(cancelled?.orderId, row?.orderId)
      assert.match(
        cancelled?.cancellation ?? '',
        new RegExp(`^${orderId}: ActionNotAvailable \\(stage \\w+: too far along`),
      )
      const after = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.notEqual(after.status.stage, 'Cancelled')
      assert.deepEqual(after.status, before.status)
      assert.deepEqual(after.shipments, before.shipments)
      assert.deepEqual(after.charges, before.charges)
      assert.equal((await t.database.db.query('SELECT id FROM orders')).length, ordersBefore.length)
      assert.deepEqual(
        await t.database.db.query('SELECT id, status, attempts FROM channel_fulfilments'),
        fulfilmentsBefore,
      )
      assert.equal(shopify.fulfilments.length, 1, 'nothing more told to the store')
      // The same cancellation delivered again (a new webhook id) asks nothing twice.
      await webhook(shopifyOrderBody('5001', '#1001', true), 'orders/cancelled', 'wh-cancel-late-2')
      await mapWebhooks()
      assert.equal((await channelOrder('5001'))?.cancellation, cancelled?.cancellation)
    })

    test("the store's cancellations are listed with what each answered, in the API and on the channel's page", async () => {
      const listed = await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}/cancellations` })
      assert.equal(listed.statusCode, 200, listed.body)
      const { cancellations } = json(listed)
      assert.deepEqual(
        cancellations.map((c: any) => [c.externalOrderId, c.name, /^ord_\d+$/.test(c.orderId)]),
        [
          ['5001', '#1001', true],
          ['5002', '#1002', true],
        ],
      )
      assert.match(cancellations[0].answer, /ActionNotAvailable \(stage/)
      assert.match(cancellations[1].answer, /: Cancelled$/)
      assert.ok(!Number.isNaN(Date.parse(cancellations[0].cancelled)))
      const signedIn = await t.app.services.sessions.signIn(t.account.liveKey, 'live')
      assert.ok(signedIn.signedIn)
      const page = await t.live(
        {
          method: 'GET',
          url: `/dashboard/channels/${channelId}`,
          headers: { cookie: `${sessionCookieName('live')}=${signedIn.token}` },
        },
        null,
      )
      assert.equal(page.statusCode, 200, page.body)
      const section = page.body.split('id="cancellations-heading"')[1]?.split('</section>')[0] ?? ''
      const late = section.split('data-cancellation="5001"')[1]?.split('</tr>')[0] ?? ''
      assert.match(late, /#1001/)
      assert.match(late, /class="failing">ord_\d+: ActionNotAvailable/)
      const done = section.split('data-cancellation="5002"')[1]?.split('</tr>')[0] ?? ''
      assert.match(done, /<td data-label="What printroute answered">ord_\d+: Cancelled<\/td>/)
    })

    test('a body over 1 MiB is 413, and the other environment or another store type is 404; nothing is stored', async () => {
      const before = (await t.database.db.query('SELECT id FROM channel_webhooks')).length
      const big = JSON.stringify({ id: 1, padding: 'x'.repeat(1_048_577) })
      const tooLarge = await webhook(big, 'orders/create', 'wh-big')
      assert.equal(tooLarge.statusCode, 413, tooLarge.body.slice(0, 300))
      assert.equal(json(tooLarge).outcome, 'PayloadTooLarge')
      const body = shopifyOrderBody('5003', '#1003')
      const sandbox = await t.app.sandbox.inject({
        method: 'POST',
        url: `/channels/v1/${channelId}/shopify`,
        headers: shopifyWebhookHeaders(body, WEBHOOK_SECRET, 'orders/create', 'wh-sandbox', SHOP),
        payload: body,
      })
      assert.equal(sandbox.statusCode, 404, sandbox.body)
      const woo = await t.app.live.inject({
        method: 'POST',
        url: `/channels/v1/${channelId}/woocommerce`,
        headers: shopifyWebhookHeaders(body, WEBHOOK_SECRET, 'orders/create', 'wh-woo', SHOP),
        payload: body,
      })
      assert.equal(woo.statusCode, 404, woo.body)
      assert.equal((await t.database.db.query('SELECT id FROM channel_webhooks')).length, before)
    })

    test('app/uninstalled marks the channel uninstalled', async () => {
      await webhook('{}', 'app/uninstalled', 'wh-5')
      await mapWebhooks()
      const channel = json(await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}` })).channel
      assert.equal(channel.status, 'uninstalled')
      assert.equal(parseId('chn', channelId) !== undefined, true)
    })
  })
}
