// Approval of a channel's orders (docs/channels.md#approval), end to end from signed Shopify webhooks: automatic
// creates the order as before, delayed holds it before production for delayHours (its holdUntil, on the test clock),
// manual creates a draft that waits for actions/confirm; a bad setting is 400 naming approval.delayHours.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import {
  type ShopifyStandIn,
  shopifyOrderBody,
  shopifyWebhookHeaders,
  startShopifyStandIn,
} from '../support/shopify-stand-in.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const SHOP = 'approval-test.myshopify.com'
const WEBHOOK_SECRET = 'shpss_approval_secret'
const databases = tier('http')

for (const kind of databases) {
  describe(`channel approval (${kind})`, () => {
    let t: TestApp
    let shopify: ShopifyStandIn
    let images: ImageServer
    let channelId: string

    before(async () => {
      shopify = await startShopifyStandIn()
      images = await startImageServer()
      t = await startTestApp({ kind, shopifyApiUrl: shopify.origin })
    })
    after(async () => {
      await t.close()
      await shopify.close()
      await images.close()
    })

    const send = (method: 'POST' | 'PATCH', url: string, payload: unknown) =>
      t.live({ method, url, headers: { 'content-type': 'application/json' }, payload: payload as object })
    /** The store order received by its webhook and mapped as its job would; the printroute order it became. */
    const receive = async (externalOrderId: string, name: string) => {
      const body = shopifyOrderBody(externalOrderId, name)
      const received = await t.app.live.inject({
        method: 'POST',
        url: `/channels/v1/${channelId}/shopify`,
        headers: shopifyWebhookHeaders(body, WEBHOOK_SECRET, 'orders/create', `wh-${externalOrderId}`, SHOP),
        payload: body,
      })
      assert.equal(received.statusCode, 200, received.body)
      const kept = await t.database.db.query<{ id: number | string }>(
        'SELECT id FROM channel_webhooks WHERE processed_at IS NULL ORDER BY id',
      )
      for (const row of kept) await t.app.services.channels.mapWebhook(Number(row.id))
      const [row] = await t.database.db.query<{ state: string; orderId: string | null }>(
        'SELECT state, order_id AS "orderId" FROM channel_orders WHERE external_order_id = $1',
        [externalOrderId],
      )
      assert.equal(row?.state, 'created')
      return json(await t.live({ method: 'GET', url: `/v4.0/orders/ord_${row?.orderId}` })).order
    }

    test('a channel created in manual mode shows it; a delay outside 1..336 or without delayed is 400 naming it', async () => {
      for (const approval of [
        { mode: 'delayed' },
        { mode: 'delayed', delayHours: 0 },
        { mode: 'delayed', delayHours: 337 },
        { mode: 'manual', delayHours: 5 },
      ]) {
        const refused = await send('POST', '/v4.0/channels', {
          type: 'shopify',
          shopDomain: SHOP,
          adminAccessToken: 'shpat_approval_token',
          webhookSecret: WEBHOOK_SECRET,
          approval,
        })
        assert.equal(refused.statusCode, 400, refused.body)
        assert.ok(json(refused).failures['approval.delayHours'], `${JSON.stringify(approval)}: ${refused.body}`)
      }
      assert.equal((await t.database.db.query('SELECT id FROM channels')).length, 0)
      const created = await send('POST', '/v4.0/channels', {
        type: 'shopify',
        shopDomain: SHOP,
        adminAccessToken: 'shpat_approval_token',
        webhookSecret: WEBHOOK_SECRET,
        approval: { mode: 'manual' },
      })
      assert.equal(created.statusCode, 201, created.body)
      channelId = json(created).channel.id
      const read = json(await t.live({ method: 'GET', url: `/v4.0/channels/${channelId}` })).channel
      assert.deepEqual(read.approval, { mode: 'manual' })
      for (const link of [
        {
          externalVariantId: '808950810',
          sku: 'GLOBAL-CAN-10x10',
          attributes: { wrap: 'Black' },
          assets: [{ printArea: 'default', url: images.url('canvas.jpg') }],
        },
        { externalSku: 'MUG-OWN', ignore: true },
      ]) {
        const linked = await send('POST', `/v4.0/channels/${channelId}/links`, link)
        assert.equal(linked.statusCode, 201, linked.body)
      }
    })

    test('manual: a signed webhook makes a draft that waits for confirm', async () => {
      const order = await receive('7001', '#2001')
      assert.equal(order.draft, true)
      assert.equal(order.holdUntil, undefined)
      const confirmed = await send('POST', `/v4.0/orders/${order.id}/actions/confirm`, undefined)
      assert.equal(confirmed.statusCode, 200, confirmed.body)
      const after = json(await t.live({ method: 'GET', url: `/v4.0/orders/${order.id}` })).order
      assert.equal(after.draft, undefined)
    })

    test('delayed: the order is held until delayHours after it was received', async () => {
      const patched = await send('PATCH', `/v4.0/channels/${channelId}`, {
        approval: { mode: 'delayed', delayHours: 36 },
      })
      assert.equal(patched.statusCode, 200, patched.body)
      assert.deepEqual(json(patched).channel.approval, { mode: 'delayed', delayHours: 36 })
      const order = await receive('7002', '#2002')
      assert.equal(order.draft, undefined)
      assert.equal(order.holdUntil, new Date(t.clock.now().getTime() + 36 * 3_600_000).toISOString())
    })

    test('automatic: the order is created plainly, as before the setting', async () => {
      const refused = await send('PATCH', `/v4.0/channels/${channelId}`, { approval: { mode: 'sometimes' } })
      assert.equal(refused.statusCode, 400, refused.body)
      const patched = await send('PATCH', `/v4.0/channels/${channelId}`, { approval: { mode: 'automatic' } })
      assert.deepEqual(json(patched).channel.approval, { mode: 'automatic' })
      const order = await receive('7003', '#2003')
      assert.equal(order.draft, undefined)
      assert.equal(order.holdUntil, undefined)
    })
  })
}
