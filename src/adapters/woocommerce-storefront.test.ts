// The WooCommerce adapter against the WooCommerce stand-in (test/support/woocommerce-stand-in.ts) on 127.0.0.1:
// webhooks as the stand-in signs and sends them, its order read into the channels service's shape, and a shipment
// told to the store with the exact requests WooCommerce documents, its faults sorted into retry or give up.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type CallbackReceiver, startCallbackReceiver } from '../../test/support/callback-receiver.ts'
import { tier } from '../../test/support/tiers.ts'
import {
  startWooCommerceStandIn,
  type WooCommerceStandIn,
  wooCommerceFixture,
} from '../../test/support/woocommerce-stand-in.ts'
import { StorefrontError, type StorefrontFulfilment } from '../domain/storefronts.ts'
import {
  authorisedRequest,
  createWooCommerceStorefront,
  parseWooCommerceCancellation,
  retryAfterSeconds,
  type WooCommerceStorefront,
} from './woocommerce-storefront.ts'

tier('pure')

let store: WooCommerceStandIn
let receiver: CallbackReceiver
let woo: WooCommerceStorefront

before(async () => {
  store = await startWooCommerceStandIn()
  receiver = await startCallbackReceiver()
  woo = createWooCommerceStorefront({ allowPrivateAddresses: true, timeoutMs: 5000 })
})
after(async () => {
  await woo.close()
  await receiver.close()
  await store.close()
})

/** The last webhook the receiver got, as the channels route would see it: raw bytes and lower-case headers. */
function lastDelivery(): { raw: Buffer; headers: Record<string, string | undefined> } {
  const delivery = receiver.received.at(-1)
  assert.ok(delivery, 'the stand-in delivered the webhook')
  return { raw: Buffer.from(delivery.body), headers: delivery.headers as Record<string, string | undefined> }
}

describe('webhooks', () => {
  test("a webhook the store signed with the channel's secret is verified; its topic and delivery id are read", async () => {
    const sent = await store.sendWebhook(receiver.url('/channels/v1/chn_1/woocommerce'), {
      topic: 'order.created',
      body: wooCommerceFixture('order-created'),
      deliveryId: 'a1b2c3d4e5',
    })
    assert.equal(sent.status, 200)
    const { raw, headers } = lastDelivery()
    assert.equal(woo.verifyWebhook(raw, headers, store.webhookSecret), true)
    assert.equal(woo.topic(headers), 'orderCreated')
    assert.equal(woo.webhookId(headers), 'a1b2c3d4e5')
  })

  test('a wrong secret, a tampered body, a missing or malformed signature are refused', async () => {
    await store.sendWebhook(receiver.url(), { topic: 'order.created', body: wooCommerceFixture('order-created') })
    const { raw, headers } = lastDelivery()
    assert.equal(woo.verifyWebhook(raw, headers, 'another-secret'), false, 'wrong secret')
    assert.equal(woo.verifyWebhook(raw, headers, ''), false, 'no secret configured')
    const tampered = Buffer.from(raw.toString().replace('"quantity": 2', '"quantity": 20'))
    assert.notDeepEqual(tampered, raw)
    assert.equal(woo.verifyWebhook(tampered, headers, store.webhookSecret), false, 'tampered body')
    const { 'x-wc-webhook-signature': signature, ...unsigned } = headers
    assert.ok(signature)
    assert.equal(woo.verifyWebhook(raw, unsigned, store.webhookSecret), false, 'missing signature')
    for (const malformed of ['', 'not base64', signature.slice(0, -2), Buffer.alloc(32).toString('hex')]) {
      const forged = { ...headers, 'x-wc-webhook-signature': malformed }
      assert.equal(woo.verifyWebhook(raw, forged, store.webhookSecret), false, `signature "${malformed}"`)
    }
    // The header's case does not matter (a test or a proxy may not lower-case it).
    assert.equal(
      woo.verifyWebhook(raw, { ...unsigned, 'X-WC-Webhook-Signature': signature }, store.webhookSecret),
      true,
    )
  })

  test("WooCommerce's ping when a webhook is saved is accepted as 'other', with no delivery id", async () => {
    await store.sendPing(receiver.url(), 34)
    const { raw, headers } = lastDelivery()
    assert.equal(raw.toString(), 'webhook_id=34')
    assert.equal(woo.verifyWebhook(raw, headers, store.webhookSecret), true)
    assert.equal(woo.topic(headers), 'other')
    assert.equal(woo.webhookId(headers), null)
    // Only the ping's exact shape: the same body under a topic needs a signature like any webhook.
    const withTopic = { ...headers, 'x-wc-webhook-topic': 'order.created' }
    assert.equal(woo.verifyWebhook(raw, withTopic, store.webhookSecret), false)
    assert.equal(woo.verifyWebhook(Buffer.from('webhook_id=34&x=1'), headers, store.webhookSecret), false)
  })

  test('topics: order.created, the two cancellations, and everything else', () => {
    const topicOf = (topic: string | undefined) => woo.topic({ 'x-wc-webhook-topic': topic })
    assert.equal(topicOf('order.created'), 'orderCreated')
    assert.equal(topicOf('order.deleted'), 'orderCancelled')
    assert.equal(topicOf('action.woocommerce_order_status_cancelled'), 'orderCancelled')
    for (const other of [
      'order.updated',
      'order.restored',
      'product.created',
      'action.woocommerce_new_order',
      undefined,
    ]) {
      assert.equal(topicOf(other), 'other', String(other))
    }
    assert.equal(woo.webhookId({ 'x-wc-webhook-delivery-id': 'x'.repeat(201) }), null, 'an absurd id is no id')
  })
})

describe('parseOrder', () => {
  test("the fixture's order: variation or product as the variant, blank SKU as null, the shipping address", () => {
    assert.deepEqual(woo.parseOrder(JSON.parse(wooCommerceFixture('order-created'))), {
      externalOrderId: '1042',
      name: '1042',
      lineItems: [
        {
          externalLineItemId: '2201',
          externalVariantId: '91',
          externalSku: 'HARBOUR-A3-MATTE',
          title: 'Harbour at Dusk print - A3, Matte',
          quantity: 2,
        },
        { externalLineItemId: '2202', externalVariantId: '45', externalSku: null, title: 'Gift wrap', quantity: 1 },
      ],
      recipient: {
        name: 'Sam Okafor',
        email: 'ada.okafor@example.com',
        phoneNumber: '+44 117 496 0123',
        address: {
          line1: 'Flat 3, 27 Harbour Lane',
          line2: 'Clifton',
          postalOrZipCode: 'BS8 1TH',
          countryCode: 'GB',
          townOrCity: 'Bristol',
          stateOrCounty: 'Bristol',
        },
      },
    })
  })

  test('an order of virtual products has no recipient; a missing number falls back to the id', () => {
    const order = JSON.parse(wooCommerceFixture('order-created'))
    const blank = Object.fromEntries(Object.keys(order.shipping).map((key) => [key, '']))
    const parsed = woo.parseOrder({ ...order, number: undefined, shipping: blank })
    assert.equal(parsed.recipient, null)
    assert.equal(parsed.name, '1042')
  })

  test('a body that is not an order is refused with the field and the reason', () => {
    const order = JSON.parse(wooCommerceFixture('order-created'))
    const [first] = order.line_items
    const cases: [unknown, RegExp][] = [
      [null, /body is not a JSON object/],
      [[order], /body is not a JSON object/],
      [{ ...order, id: undefined }, /\bid is missing or not a positive whole number/],
      [{ ...order, id: -4 }, /\bid is missing/],
      [{ ...order, line_items: undefined }, /line_items is missing or not an array/],
      [{ ...order, line_items: [first, 'x'] }, /line_items\[1\] is not an object/],
      [{ ...order, line_items: [{ ...first, id: 0 }] }, /line_items\[0\]\.id is missing/],
      [{ ...order, line_items: [{ ...first, quantity: 0 }] }, /line_items\[0\]\.quantity is missing or not a positive/],
      [{ ...order, line_items: [{ ...first, quantity: '2' }] }, /line_items\[0\]\.quantity/],
      [{ ...order, line_items: new Array(501).fill(first) }, /line_items has 501 items, more than 500/],
      [{ ...order, shipping: 'Bristol' }, /shipping is not an object/],
    ]
    for (const [body, message] of cases) {
      assert.throws(() => woo.parseOrder(body), message, JSON.stringify(body)?.slice(0, 80))
    }
  })

  test("a cancellation's body gives the order id: order.deleted's {id}, the action's {action, arg}", () => {
    assert.deepEqual(parseWooCommerceCancellation(JSON.parse(wooCommerceFixture('order-deleted'))), {
      externalOrderId: '1042',
    })
    assert.deepEqual(parseWooCommerceCancellation(JSON.parse(wooCommerceFixture('order-cancelled-action'))), {
      externalOrderId: '1042',
    })
    assert.throws(() => parseWooCommerceCancellation({ action: 'x' }), /id is missing/)
  })
})

const SHIPPED: StorefrontFulfilment = {
  externalOrderId: '1042',
  lineItems: [{ externalLineItemId: '2201', quantity: 2 }],
  tracking: { carrier: 'Royal Mail', number: 'AB123456789GB', url: 'https://track.example/AB123456789GB' },
}

/** The error `promise` fails with, checked to be a StorefrontError that names no secret. */
async function failure(promise: Promise<unknown>): Promise<StorefrontError> {
  const error = await promise.then(
    () => assert.fail('the call should fail'),
    (caught: unknown) => caught,
  )
  assert.ok(error instanceof StorefrontError, String(error))
  for (const secret of [store.consumerKey, store.consumerSecret]) {
    assert.ok(!error.message.includes(secret), `no secret in "${error.message}"`)
    assert.ok(!String(error.stack).includes(secret), 'nor in its stack')
  }
  return error
}

describe('fulfil', () => {
  test('marks the order completed, then adds the tracking as a customer note, signed with the REST key', async () => {
    const before = store.requests.length
    const answer = await woo.fulfil(store.credentials, SHIPPED)
    const made = store.requests.slice(before)
    assert.deepEqual(
      made.map(({ method, path, auth, authorised, body }) => ({ method, path, auth, authorised, body })),
      [
        {
          method: 'PUT',
          path: '/wp-json/wc/v3/orders/1042',
          auth: 'oauth',
          authorised: true,
          body: { status: 'completed' },
        },
        {
          method: 'POST',
          path: '/wp-json/wc/v3/orders/1042/notes',
          auth: 'oauth',
          authorised: true,
          body: { note: 'Shipped: Royal Mail AB123456789GB https://track.example/AB123456789GB', customer_note: true },
        },
      ],
    )
    assert.equal(made[0]?.oauth.oauth_signature_method, 'HMAC-SHA256')
    for (const request of made) assert.ok(!request.rawUrl.includes(store.consumerSecret), 'the secret never travels')
    assert.equal(store.order(1042)?.status, 'completed')
    const note = store.order(1042)?.notes.at(-1)
    assert.equal(answer.externalFulfilmentId, `note:${note?.id}`)
    // Without tracking the note still says it shipped.
    await woo.fulfil(store.credentials, { ...SHIPPED, tracking: { carrier: null, number: null, url: null } })
    assert.equal(store.order(1042)?.notes.at(-1)?.note, 'Shipped.')
  })

  test('500, 503 and 429 are worth retrying, with the Retry-After the store gave', async () => {
    store.answerNext({ status: 500 })
    const crashed = await failure(woo.fulfil(store.credentials, SHIPPED))
    assert.deepEqual([crashed.retryable, crashed.status, crashed.retryAfterSeconds], [true, 500, null])
    assert.match(
      crashed.message,
      /marking order 1042 completed: the WooCommerce store at 127\.0\.0\.1:\d+ answered 500/,
    )
    store.answerNext({ status: 429, retryAfter: '7' })
    const limited = await failure(woo.fulfil(store.credentials, SHIPPED))
    assert.deepEqual([limited.retryable, limited.status, limited.retryAfterSeconds], [true, 429, 7])
    store.answerNext({ status: 503, retryAfter: 'Sun, 29 Nov 2099 20:00:00 GMT' })
    const unavailable = await failure(woo.fulfil(store.credentials, SHIPPED))
    assert.equal(unavailable.retryable, true)
    assert.ok((unavailable.retryAfterSeconds ?? 0) > 3600, 'an HTTP date is read as seconds from now')
  })

  test('a note that failed after the order was completed is added once when the shipment is retried', async () => {
    const notes = store.order(1042)?.notes.length ?? 0
    store.answerNext({ status: 'pass' }, { status: 502 })
    const failed = await failure(woo.fulfil(store.credentials, SHIPPED))
    assert.match(failed.message, /adding the tracking note to order 1042: .* answered 502/)
    assert.equal(failed.retryable, true)
    assert.equal(store.order(1042)?.status, 'completed')
    assert.equal(store.order(1042)?.notes.length, notes, 'no note yet')
    await woo.fulfil(store.credentials, SHIPPED)
    assert.equal(store.order(1042)?.notes.length, notes + 1, 'one note, not two')
  })

  test('a dropped connection is worth retrying; its message names the store, not the URL', async () => {
    store.answerNext({ status: 'hang-up' })
    const dropped = await failure(woo.fulfil(store.credentials, SHIPPED))
    assert.deepEqual([dropped.retryable, dropped.status], [true, null])
    assert.ok(!dropped.message.includes('oauth_'), dropped.message)
  })

  test('401, a wrong secret and an unknown order are not retried', async () => {
    store.answerNext({ status: 401 })
    const refused = await failure(woo.fulfil(store.credentials, SHIPPED))
    assert.deepEqual([refused.retryable, refused.status], [false, 401])
    assert.match(refused.message, /check the channel's REST API key/)
    const wrongSecret = { ...store.credentials, consumerSecret: 'cs_0000000000000000000000000000000000000000' }
    const unsigned = await failure(woo.fulfil(wrongSecret, SHIPPED))
    assert.deepEqual([unsigned.retryable, unsigned.status], [false, 401])
    assert.match(unsigned.message, /woocommerce_rest_authentication_error/)
    assert.ok(!unsigned.message.includes(wrongSecret.consumerSecret))
    const unknown = await failure(woo.fulfil(store.credentials, { ...SHIPPED, externalOrderId: '99' }))
    assert.deepEqual([unknown.retryable, unknown.status], [false, 404])
    assert.match(unknown.message, /woocommerce_rest_shop_order_invalid_id/)
    const notAnId = await failure(woo.fulfil(store.credentials, { ...SHIPPED, externalOrderId: '../1042' }))
    assert.equal(notAnId.retryable, false)
    const withQuery = { ...store.credentials, storeUrl: `${store.storeUrl}/?page=1` }
    const badUrl = await failure(woo.fulfil(withQuery, SHIPPED))
    assert.match(badUrl.message, /the channel's storeUrl must not have a query/)
  })

  test('a store on a private address is refused unless private addresses are allowed', async () => {
    const strict = createWooCommerceStorefront({ allowPrivateAddresses: false, timeoutMs: 5000 })
    try {
      const before = store.requests.length
      const refused = await failure(strict.fulfil(store.credentials, SHIPPED))
      assert.equal(refused.retryable, false)
      assert.equal(store.requests.length, before, 'nothing reached the store')
    } finally {
      await strict.close()
    }
  })
})

test('Retry-After: seconds, an HTTP date, or nothing readable', () => {
  const now = Date.parse('2026-11-29T20:00:00Z')
  assert.equal(retryAfterSeconds('120', now), 120)
  assert.equal(retryAfterSeconds(['5', '9'], now), 5)
  assert.equal(retryAfterSeconds('Sun, 29 Nov 2026 20:01:30 GMT', now), 90)
  assert.equal(retryAfterSeconds('Sun, 29 Nov 2026 19:00:00 GMT', now), 0, 'a past date is now')
  assert.equal(retryAfterSeconds('soon', now), null)
  assert.equal(retryAfterSeconds(undefined, now), null)
})

test('over https the key goes as HTTP Basic and the URL is left alone; over http it is signed, never sent', () => {
  const key = { consumerKey: 'ck_abc', consumerSecret: 'cs_def' }
  const https = authorisedRequest('PUT', 'https://shop.example.com/wp-json/wc/v3/orders/7', key, 1_800_000_000, 'n1')
  assert.deepEqual(https, {
    url: 'https://shop.example.com/wp-json/wc/v3/orders/7',
    headers: { authorization: `Basic ${Buffer.from('ck_abc:cs_def').toString('base64')}` },
  })
  const http = authorisedRequest('PUT', 'http://127.0.0.1:9/wp-json/wc/v3/orders/7', key, 1_800_000_000, 'n1')
  assert.deepEqual(http.headers, {})
  const query = new URL(http.url).searchParams
  assert.deepEqual(
    [...query.keys()],
    ['oauth_consumer_key', 'oauth_nonce', 'oauth_signature_method', 'oauth_timestamp', 'oauth_signature'],
  )
  assert.equal(query.get('oauth_consumer_key'), 'ck_abc')
  assert.equal(query.get('oauth_timestamp'), '1800000000')
  assert.ok(!http.url.includes('cs_def'))
})
