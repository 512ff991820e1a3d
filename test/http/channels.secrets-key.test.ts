// Storefront channels after a change of the channel secrets key (docs/channels.md#secrets-at-rest): a Shopify and a
// WooCommerce channel made by an application under key A, then a second application on the same database under key
// B. The start says so; their webhooks answer 503 and store nothing (logged with both keys' fingerprints, no secret); the channels show
// failing with what to do, in the API, the dashboard and the console; a fulfilment waiting is not retried; a PATCH
// without every secret is 400 naming those to give; one with all of them makes the channel active again, a webhook
// signed with the new secret is accepted and the fulfilment is tried again now.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createLogger } from '../../src/adapters/logger.ts'
import { channelKeyFingerprint, parseChannelSecretsKey } from '../../src/domain/channels.ts'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { registerChannelsPages } from '../../src/web/operator/channels.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { type ChannelHarness, shipShopifyStoreOrder, startChannelHarness } from '../support/channel-harness.ts'
import { captureLogs } from '../support/log-capture.ts'
import {
  type ShopifyStandIn,
  shopifyOrderBody,
  shopifyWebhookHeaders,
  startShopifyStandIn,
} from '../support/shopify-stand-in.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import {
  startWooCommerceStandIn,
  type WooCommerceStandIn,
  wooCommerceFixture,
} from '../support/woocommerce-stand-in.ts'

const KEY_A = 'a'.repeat(64)
const KEY_B = 'b'.repeat(64)
const fingerprint = (text: string) => channelKeyFingerprint(parseChannelSecretsKey(text) as Buffer)

const SHOP = 'key-change.myshopify.com'
const TOKEN = 'shpat_before_the_key_change'
const WEBHOOK_SECRET = 'shpss_before_the_key_change'
const NEW_TOKEN = 'shpat_after_the_key_change'
const NEW_WEBHOOK_SECRET = 'shpss_after_the_key_change'
const CANVAS_LINE = '866550311766439020'
function wooHeaders(topic: string, body: string, deliveryId: string, secret: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-wc-webhook-topic': topic,
    'x-wc-webhook-delivery-id': deliveryId,
    'x-wc-webhook-signature': createHmac('sha256', secret).update(body).digest('base64'),
  }
}

const databases = tier('http')

for (const kind of databases) {
  describe(`channels after a change of the channel secrets key (${kind})`, () => {
    let h: ChannelHarness<ShopifyStandIn>
    let woo: WooCommerceStandIn
    /** The second application, on the same database, under key B. */
    let b: TestApp | undefined
    let pages: AdminPagesHarness | undefined
    const logs = captureLogs()
    let shopifyId: string
    let wooId: string
    let fulfilmentId: number

    /** A request to B's Live port with the account's Live key (the account is A's: the same database). */
    const onB = (method: 'GET' | 'PATCH' | 'POST', url: string, payload?: unknown) =>
      (b as TestApp).live(
        {
          method,
          url,
          ...(payload === undefined
            ? {}
            : { headers: { 'content-type': 'application/json' }, payload: payload as object }),
        },
        h.t.account.liveKey,
      )
    const shopifyWebhook = (body: string, webhookId: string, secret: string | null) =>
      (b as TestApp).app.live.inject({
        method: 'POST',
        url: `/channels/v1/${shopifyId}/shopify`,
        headers:
          secret === null
            ? { 'content-type': 'application/json', 'x-shopify-topic': 'orders/create' }
            : shopifyWebhookHeaders(body, secret, 'orders/create', webhookId, SHOP),
        payload: body,
      })
    const wooWebhook = (body: string, deliveryId: string, secret: string) =>
      (b as TestApp).app.live.inject({
        method: 'POST',
        url: `/channels/v1/${wooId}/woocommerce`,
        headers: wooHeaders('order.created', body, deliveryId, secret),
        payload: body,
      })
    const keptWebhooks = async () => (await h.t.database.db.query('SELECT id FROM channel_webhooks')).length
    const channelOnB = async (id: string) => {
      const read = await onB('GET', `/v4.0/channels/${id}`)
      assert.equal(read.statusCode, 200, read.body)
      return json(read).channel
    }

    before(async () => {
      h = await startChannelHarness(kind, startShopifyStandIn, (store) => ({
        shopifyApiUrl: store.origin,
        channelSecretsKey: KEY_A,
      }))
      woo = await startWooCommerceStandIn()
      // Under key A: both channels, a linked Shopify order received and shipped, its fulfilment not yet told.
      shopifyId = (
        await h.createChannel({
          type: 'shopify',
          shopDomain: SHOP,
          adminAccessToken: TOKEN,
          webhookSecret: WEBHOOK_SECRET,
        })
      ).id
      wooId = (
        await h.createChannel({
          type: 'woocommerce',
          storeUrl: woo.storeUrl,
          consumerKey: woo.consumerKey,
          consumerSecret: woo.consumerSecret,
          webhookSecret: woo.webhookSecret,
        })
      ).id
      const linked = await h.post(`/v4.0/channels/${shopifyId}/links`, {
        externalVariantId: '808950810',
        sku: 'GLOBAL-CAN-10x10',
        attributes: { wrap: 'Black' },
        assets: [{ printArea: 'default', url: h.images.url('canvas.jpg') }],
      })
      assert.equal(linked.statusCode, 201, linked.body)
      await h.post(`/v4.0/channels/${shopifyId}/links`, { externalSku: 'MUG-OWN', ignore: true })
      const shop = { channelId: shopifyId, shop: SHOP, webhookSecret: WEBHOOK_SECRET, lineItem: CANVAS_LINE }
      ;({ fulfilmentId } = await shipShopifyStoreOrder(h, { ...shop, externalOrderId: '7001', name: '#7001' }))
      // The key changes: a second application on the same database under key B.
      b = await startTestApp({
        kind,
        database: h.t.database,
        filesDir: h.t.filesDir,
        shopifyApiUrl: h.store.origin,
        channelSecretsKey: KEY_B,
        logger: createLogger({ level: 'info', format: 'json', destination: logs.stream }),
      })
      const services = b.app.services
      pages = await startAdminPages(async (scope, shell) => {
        registerChannelsPages(scope, shell, services.adminViews.channels)
      })
    })
    after(async () => {
      try {
        await pages?.close()
        await b?.close()
        await woo?.close()
      } finally {
        await h?.close()
      }
    })

    test('the start under key B tells the operator how many channels were sealed under key A', async () => {
      const started = logs.entries().filter((entry) => entry.step === 'channel-secrets-key')
      assert.equal(started.length, 1)
      assert.equal(started[0]?.level, 40)
      assert.equal(started[0]?.channels, 2)
      assert.equal(started[0]?.sealedKeyFingerprint, fingerprint(KEY_A))
      assert.equal(started[0]?.currentKeyFingerprint, fingerprint(KEY_B))
      assert.match(String(started[0]?.msg), /2 storefront channels have secrets sealed under/)
    })

    test('a signed webhook answers 503 ServiceUnavailable and stores nothing; so does an unsigned one', async () => {
      const kept = await keptWebhooks()
      const signed = await shopifyWebhook(shopifyOrderBody('7002', '#7002'), 'after-1', WEBHOOK_SECRET)
      assert.equal(signed.statusCode, 503, signed.body)
      const answer = json(signed)
      assert.equal(answer.outcome, 'ServiceUnavailable')
      assert.match(answer.statusText, /channel secrets key changed/)
      assert.equal(answer.data.channelId, shopifyId)
      assert.equal(answer.data.reason, 'ChannelSecretsUnreadable')
      assert.ok(answer.traceParent)
      const unsigned = await shopifyWebhook(shopifyOrderBody('7003', '#7003'), 'after-2', null)
      assert.equal(unsigned.statusCode, 503, unsigned.body)
      const wooBody = wooCommerceFixture('order-created')
      const wooSigned = await wooWebhook(wooBody, 'after-3', woo.webhookSecret)
      assert.equal(wooSigned.statusCode, 503, wooSigned.body)
      assert.equal(await keptWebhooks(), kept)
      // The warning names the channel and both keys' fingerprints, never a secret.
      const warnings = logs.entries().filter((entry) => entry.level === 40 && entry.step === 'channel-webhook')
      const shopifyLine = warnings.find((entry) => entry.channelId === shopifyId)
      assert.equal(shopifyLine?.sealedKeyFingerprint, fingerprint(KEY_A))
      assert.equal(shopifyLine?.currentKeyFingerprint, fingerprint(KEY_B))
      assert.ok(warnings.some((entry) => entry.channelId === wooId))
      for (const secret of [
        TOKEN,
        WEBHOOK_SECRET,
        woo.consumerKey,
        woo.consumerSecret,
        woo.webhookSecret,
        KEY_A,
        KEY_B,
      ]) {
        assert.ok(!logs.text().includes(secret), 'no secret or key in the log')
      }
    })

    test('the channels show failing with the secrets to enter again, once; in the dashboard and the console too', async () => {
      const shopify = await channelOnB(shopifyId)
      assert.equal(shopify.status, 'failing')
      assert.match(shopify.statusReason, /enter them again \(adminAccessToken, webhookSecret\)/)
      const wooChannel = await channelOnB(wooId)
      assert.equal(wooChannel.status, 'failing')
      assert.match(wooChannel.statusReason, /\(consumerKey, consumerSecret, webhookSecret\)/)
      // Set once: another refused webhook, a minute later, changes nothing.
      ;(b as TestApp).clock.advanceSeconds(60)
      await shopifyWebhook(shopifyOrderBody('7004', '#7004'), 'after-4', WEBHOOK_SECRET)
      assert.equal((await channelOnB(shopifyId)).lastUpdated, shopify.lastUpdated)
      // The merchant's dashboard, signed in with the account's Live key.
      const signedIn = await (b as TestApp).app.services.sessions.signIn(h.t.account.liveKey, 'live')
      assert.ok(signedIn.signedIn)
      const dashboard = await (b as TestApp).live(
        {
          method: 'GET',
          url: '/dashboard/channels',
          headers: { cookie: `${sessionCookieName('live')}=${signedIn.token}` },
        },
        null,
      )
      assert.equal(dashboard.statusCode, 200, dashboard.body)
      const row = dashboard.body.split(`/dashboard/channels/${shopifyId}"`)[1]?.split('</tr>')[0] ?? ''
      assert.match(row, /<span class="badge badge-error">Failing<\/span>/)
      assert.match(row, /data-status-reason>the channel secrets key changed[^<]*adminAccessToken, webhookSecret/)
      // The operator's console.
      const console = await (pages as AdminPagesHarness).request('/admin/channels')
      assert.equal(console.status, 200, console.body)
      const consoleRow = console.body.split(`data-channel="${shopifyId}"`)[1]?.split('</tr>')[0] ?? ''
      assert.match(consoleRow, /Failing[\s\S]*the channel secrets key changed/)
    })

    test('the fulfilment waiting fails at once, not retried, and the store is not called', async () => {
      await (b as TestApp).app.services.channelFulfilments.deliver(fulfilmentId, 1)
      const listed = json(await onB('GET', `/v4.0/channels/${shopifyId}/fulfilments`)).fulfilments
      assert.equal(listed[0].state, 'failed')
      assert.equal(listed[0].attemptCount, 1)
      assert.equal(listed[0].nextAttemptAt, null)
      assert.equal(listed[0].attempts[0].httpStatus, null)
      assert.match(listed[0].lastError, /enter them again/)
      assert.equal(h.store.fulfilments.length, 0)
      const channel = await channelOnB(shopifyId)
      assert.match(channel.statusReason, /^the channel secrets key changed/)
      const line = logs.entries().find((entry) => entry.step === 'channel-fulfilment')
      assert.equal(line?.sealedKeyFingerprint, fingerprint(KEY_A))
      assert.equal(line?.currentKeyFingerprint, fingerprint(KEY_B))
    })

    test('a PATCH without every secret is 400 naming those to give, and changes nothing', async () => {
      const named = await onB('PATCH', `/v4.0/channels/${shopifyId}`, { name: 'Renamed' })
      assert.equal(named.statusCode, 400, named.body)
      const refused = json(named)
      assert.equal(refused.outcome, 'ValidationFailed')
      assert.deepEqual(Object.keys(refused.failures).sort(), ['adminAccessToken', 'webhookSecret'])
      assert.equal(refused.failures.adminAccessToken[0].code, 'Required')
      assert.match(refused.failures.adminAccessToken[0].comparisonValue, /another channel secrets key/)
      const some = await onB('PATCH', `/v4.0/channels/${wooId}`, { consumerKey: 'ck_new' })
      assert.equal(some.statusCode, 400, some.body)
      assert.deepEqual(Object.keys(json(some).failures).sort(), ['consumerSecret', 'webhookSecret'])
      const shopify = await channelOnB(shopifyId)
      assert.equal(shopify.name, null)
      assert.equal(shopify.status, 'failing')
    })

    test('a PATCH with every secret makes the channel active; the new secret is accepted; the fulfilment is tried again', async () => {
      const patched = await onB('PATCH', `/v4.0/channels/${shopifyId}`, {
        name: 'After the key change',
        adminAccessToken: NEW_TOKEN,
        webhookSecret: NEW_WEBHOOK_SECRET,
      })
      assert.equal(patched.statusCode, 200, patched.body)
      assert.equal(json(patched).channel.status, 'active')
      const shopify = await channelOnB(shopifyId)
      assert.equal(shopify.status, 'active')
      assert.equal(shopify.statusReason, null)
      assert.equal(shopify.name, 'After the key change')
      const wooPatched = await onB('PATCH', `/v4.0/channels/${wooId}`, {
        consumerKey: woo.consumerKey,
        consumerSecret: woo.consumerSecret,
        webhookSecret: 'a new webhook secret',
      })
      assert.equal(wooPatched.statusCode, 200, wooPatched.body)
      assert.equal((await channelOnB(wooId)).status, 'active')
      // The stored secrets are sealed under key B now.
      const rows = await h.t.database.db.query<{ c: string; w: string }>(
        'SELECT credentials_encrypted AS c, webhook_secret_encrypted AS w FROM channels',
      )
      for (const row of rows) {
        assert.ok(row.c.startsWith(`v1.${fingerprint(KEY_B)}.`) && row.w.startsWith(`v1.${fingerprint(KEY_B)}.`))
      }
      const accepted = await shopifyWebhook(shopifyOrderBody('7005', '#7005'), 'after-5', NEW_WEBHOOK_SECRET)
      assert.equal(accepted.statusCode, 200, accepted.body)
      assert.equal(json(accepted).received, 'accepted')
      const old = await shopifyWebhook(shopifyOrderBody('7006', '#7006'), 'after-6', WEBHOOK_SECRET)
      assert.equal(old.statusCode, 401, old.body)
      const wooBody = wooCommerceFixture('order-created')
      const wooAccepted = await wooWebhook(wooBody, 'after-7', 'a new webhook secret')
      assert.equal(wooAccepted.statusCode, 200, wooAccepted.body)
      // "Try again now": the failed fulfilment's next attempt, made with the new token.
      const retried = await onB('POST', `/v4.0/channels/${shopifyId}/fulfilments/chf_${fulfilmentId}/retry`)
      assert.equal(retried.statusCode, 200, retried.body)
      await (b as TestApp).app.services.channelFulfilments.deliver(fulfilmentId, 2)
      assert.equal(h.store.fulfilments.length, 1)
      assert.equal(h.store.fulfilments[0]?.accessToken, NEW_TOKEN)
      const listed = json(await onB('GET', `/v4.0/channels/${shopifyId}/fulfilments`)).fulfilments
      assert.equal(listed[0].state, 'delivered')
    })
  })
}
