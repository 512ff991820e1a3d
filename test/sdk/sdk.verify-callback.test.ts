// verifyCallback on a real signed delivery: a Sandbox server posts an order's event to a receiver on 127.0.0.1 (the
// delivery's attempt run as its job would, by the step helper); the body and headers as received verify with the account's secret, and a tampered body, another
// secret, a stale or future timestamp and missing headers are refused. The standardwebhooks package signs the
// made-up cases, as a second implementation of the scheme.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { type CallbackEvent, CallbackVerificationError, PrintrouteClient, verifyCallback } from '../../sdk/src/index.ts'
import { type CallbackReceiver, type ReceivedCallback, startCallbackReceiver } from '../support/callback-receiver.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

const otherSecret = () => `whsec_${randomBytes(32).toString('base64')}`

describe('verifyCallback', () => {
  let t: TestApp
  let receiver: CallbackReceiver
  let secret: string
  let delivered: ReceivedCallback
  let orderId: string

  before(async () => {
    receiver = await startCallbackReceiver()
    // A long pause window holds the order; cancelling it makes one event, delivered by its first attempt.
    t = await startTestApp({ realClock: true, pauseWindowSeconds: 3600 })
    const client = new PrintrouteClient({ apiKey: t.account.sandboxKey, baseUrl: (await listenOnLoopback(t)).sandbox })
    const created = await client.orders.create({
      shippingMethod: 'Standard',
      callbackUrl: receiver.url('/printroute'),
      recipient: {
        name: 'Ada Lovelace',
        address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
      },
      items: [
        {
          sku: 'GLOBAL-CAN-10x10',
          copies: 1,
          sizing: 'fillPrintArea',
          attributes: { wrap: 'ImageWrap' },
          assets: [{ url: 'https://images.example.com/canvas.jpg' }],
        },
      ],
    })
    assert.equal(created.outcome, 'OnHold')
    orderId = created.order.id
    assert.equal((await client.orders.cancel(orderId)).outcome, 'Cancelled')
    await pipelineDriver(t).deliverCallbacks()
    assert.equal(receiver.received.length, 1, 'the callback')
    delivered = receiver.received[0] as ReceivedCallback
    const settings = await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })
    assert.equal(settings.statusCode, 200, settings.body)
    secret = json(settings).settings.signingSecret
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  test('the delivery as received verifies and comes back as the typed event', async () => {
    const event: CallbackEvent = await verifyCallback(delivered.body, delivered.headers, secret)
    assert.equal(event.type, 'com.printroute.order.status.stage.changed#Cancelled')
    assert.equal(event.id, delivered.headers['webhook-id'])
    assert.equal(event.subject, orderId)
    assert.equal(event.data.order.id, orderId)
    assert.equal(event.data.order.status.stage, 'Cancelled')
    assert.equal(event.sequence, '0000000000000000001')
  })

  test('the body as bytes, the headers as a Headers object or in any letter case', async () => {
    const bytes = new TextEncoder().encode(delivered.body)
    const headers = new Headers(delivered.headers as Record<string, string>)
    assert.equal((await verifyCallback(bytes, headers, secret)).subject, orderId)
    const shouting = Object.fromEntries(
      Object.entries(delivered.headers).map(([name, value]) => [name.toUpperCase(), value as string]),
    )
    assert.equal((await verifyCallback(delivered.body, shouting, secret)).subject, orderId)
  })

  test('a tampered body, another secret, a wrong event id are refused', async () => {
    const tampered = delivered.body.replace('"Cancelled"', '"Complete"')
    assert.notEqual(tampered, delivered.body)
    await assert.rejects(verifyCallback(tampered, delivered.headers, secret), CallbackVerificationError)
    await assert.rejects(verifyCallback(`${delivered.body} `, delivered.headers, secret), CallbackVerificationError)
    await assert.rejects(verifyCallback(delivered.body, delivered.headers, otherSecret()), /no signature .* matches/)
    const otherId = { ...delivered.headers, 'webhook-id': 'evt_999999' }
    await assert.rejects(verifyCallback(delivered.body, otherId, secret), CallbackVerificationError)
  })

  test('a timestamp beyond the tolerance either way is refused, within it accepted', async () => {
    const id = String(delivered.headers['webhook-id'])
    const signedAt = (secondsAgo: number) => {
      const at = new Date(Date.now() - secondsAgo * 1000)
      return {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(id, at, delivered.body),
      }
    }
    await assert.rejects(verifyCallback(delivered.body, signedAt(600), secret), /s old \(tolerance 300 s\)/)
    await assert.rejects(verifyCallback(delivered.body, signedAt(-600), secret), /in the future/)
    assert.equal((await verifyCallback(delivered.body, signedAt(240), secret)).id, id)
    assert.equal((await verifyCallback(delivered.body, signedAt(600), secret, { toleranceSeconds: 900 })).id, id)
    // The real delivery, checked as if ten minutes had passed: a replay.
    const later = new Date(Date.now() + 600_000)
    await assert.rejects(verifyCallback(delivered.body, delivered.headers, secret, { now: later }), /s old/)
  })

  test('several signatures (a secret rotation): any one matching verifies', async () => {
    const id = String(delivered.headers['webhook-id'])
    const timestamp = String(delivered.headers['webhook-timestamp'])
    const fromOther = new Webhook(otherSecret()).sign(id, new Date(Number(timestamp) * 1000), delivered.body)
    const real = String(delivered.headers['webhook-signature'])
    const headers = { 'webhook-id': id, 'webhook-timestamp': timestamp }
    for (const signature of [`${fromOther} ${real}`, `${real} ${fromOther}`, `v1a,abc ${real}`]) {
      assert.equal(
        (await verifyCallback(delivered.body, { ...headers, 'webhook-signature': signature }, secret)).id,
        id,
      )
    }
    await assert.rejects(verifyCallback(delivered.body, { ...headers, 'webhook-signature': fromOther }, secret))
  })

  test('missing or malformed headers are refused, naming what is wrong', async () => {
    const { 'webhook-signature': _signature, ...unsigned } = delivered.headers
    await assert.rejects(verifyCallback(delivered.body, unsigned, secret), /missing header webhook-signature/)
    await assert.rejects(verifyCallback(delivered.body, {}, secret), /webhook-id, webhook-timestamp, webhook-signature/)
    await assert.rejects(
      verifyCallback(delivered.body, { ...delivered.headers, 'webhook-timestamp': 'yesterday' }, secret),
      /not Unix seconds/,
    )
    await assert.rejects(
      verifyCallback(delivered.body, { ...delivered.headers, 'webhook-signature': 'v1,***' }, secret),
      CallbackVerificationError,
    )
  })
})
