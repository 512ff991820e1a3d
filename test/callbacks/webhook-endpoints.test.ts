// Webhook endpoints (docs/callbacks.md#webhook-endpoints): the API (create, read, change, rotate, delete, every bad
// input), the test send, and the fan-out with simulated labs and real receivers on 127.0.0.1 (the orders' steps, the
// labs' steps and the deliveries' attempts run by the step helper as their jobs would, no live queue): each endpoint
// gets exactly the events its filters accept, signed with its own secret, beside the callback URL, which gets
// everything as before.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { parseId } from '../../src/domain/ids.ts'
import { type CallbackReceiver, type ReceivedCallback, startCallbackReceiver } from '../support/callback-receiver.ts'
import { startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const JSON_HEADERS = { 'content-type': 'application/json' }
const T = 'com.acme.order'

function verifies(secret: string, received: { headers: Record<string, unknown>; body: string }): boolean {
  try {
    new Webhook(secret).verify(received.body, received.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

/** The `v1,<signature>` entries of a request's webhook-signature header. */
function signatureCount(received: ReceivedCallback): number {
  return String(received.headers['webhook-signature']).split(' ').length
}

for (const kind of databaseKinds) {
  describe(`webhook endpoints: the API (${kind})`, () => {
    let t: TestApp
    let receiver: CallbackReceiver
    before(async () => {
      t = await startTestApp({ kind, eventVendor: 'acme', realClock: true, pauseWindowSeconds: 3600 })
      receiver = await startCallbackReceiver()
    })
    after(async () => {
      await receiver.close()
      await t.close()
    })

    const call = (method: string, url: string, payload?: Record<string, unknown>, key?: string) =>
      t.sandbox(
        { method: method as 'GET', url, ...(payload === undefined ? {} : { payload, headers: JSON_HEADERS }) },
        key,
      )
    const create = async (payload: Record<string, unknown>, key?: string) => {
      const response = await call('POST', '/v4.0/webhooks', payload, key)
      assert.equal(response.statusCode, 201, response.body)
      return json(response)
    }
    const failuresOf = (response: { statusCode: number; body: string }) => {
      assert.equal(response.statusCode, 400, response.body)
      const body = JSON.parse(response.body)
      assert.equal(body.outcome, 'ValidationFailed')
      return body.failures
    }

    test('create, read, list, change, delete: the secret is shown only when made, audited without it', async () => {
      const account = await t.createAccount()
      const created = await create(
        {
          url: receiver.url('/a'),
          description: 'shop shipments',
          eventTypes: [`${T}.shipments.*`],
          metadataFilter: { channel: 'shop-eu' },
        },
        account.sandboxKey,
      )
      assert.equal(created.outcome, 'Created')
      assert.match(created.signingSecret, /^whsec_/)
      const webhook = created.webhook
      assert.match(webhook.id, /^whk_\d+$/)
      assert.deepEqual(Object.keys(webhook), [
        'id',
        'url',
        'description',
        'eventTypes',
        'metadataFilter',
        'enabled',
        'disabledReason',
        'disabledAt',
        'failingSince',
        'lastAttemptAt',
        'lastSuccessAt',
        'signingSecretPrefix',
        'previousSigningSecretExpiresAt',
        'created',
        'lastUpdated',
      ])
      assert.equal(webhook.signingSecretPrefix, created.signingSecret.slice(0, 10))
      assert.deepEqual(webhook.eventTypes, [`${T}.shipments.*`])
      assert.deepEqual(webhook.metadataFilter, { channel: 'shop-eu' })
      assert.equal(webhook.enabled, true)
      assert.equal(webhook.disabledReason, null)

      const got = await call('GET', `/v4.0/webhooks/${webhook.id}`, undefined, account.sandboxKey)
      assert.equal(got.statusCode, 200, got.body)
      assert.deepEqual(json(got).webhook, webhook)
      assert.ok(!got.body.includes(created.signingSecret), 'GET never shows the secret')
      const listed = json(await call('GET', '/v4.0/webhooks', undefined, account.sandboxKey))
      assert.deepEqual(listed.webhooks, [webhook])
      assert.ok(!JSON.stringify(listed).includes(created.signingSecret))

      const disabled = await call('PATCH', `/v4.0/webhooks/${webhook.id}`, { enabled: false }, account.sandboxKey)
      assert.equal(disabled.statusCode, 200, disabled.body)
      assert.equal(json(disabled).outcome, 'Updated')
      assert.equal(json(disabled).webhook.enabled, false)
      assert.equal(json(disabled).webhook.disabledReason, 'manual')
      assert.ok(json(disabled).webhook.disabledAt)
      assert.equal(json(disabled).signingSecret, undefined, 'no secret without a rotation')
      const enabled = json(
        await call(
          'PATCH',
          `/v4.0/webhooks/${webhook.id}`,
          { enabled: true, eventTypes: [], description: null },
          account.sandboxKey,
        ),
      ).webhook
      assert.equal(enabled.enabled, true)
      assert.equal(enabled.disabledReason, null)
      assert.equal(enabled.disabledAt, null)
      assert.deepEqual(enabled.eventTypes, [])
      assert.equal(enabled.description, null)

      const deleted = await call('DELETE', `/v4.0/webhooks/${webhook.id}`, undefined, account.sandboxKey)
      assert.equal(deleted.statusCode, 200, deleted.body)
      assert.equal(json(deleted).outcome, 'Deleted')
      assert.equal((await call('GET', `/v4.0/webhooks/${webhook.id}`, undefined, account.sandboxKey)).statusCode, 404)
      assert.deepEqual(json(await call('GET', '/v4.0/webhooks', undefined, account.sandboxKey)).webhooks, [])

      const audit = await call(
        'GET',
        '/v4.0/account/audit?action=webhook.created,webhook.updated,webhook.deleted',
        undefined,
        account.sandboxKey,
      )
      assert.equal(audit.statusCode, 200, audit.body)
      assert.ok(!audit.body.includes(created.signingSecret), 'no secret in the audit trail')
      const entries = json(audit).entries.filter((entry: any) => entry.target === webhook.id)
      assert.deepEqual(entries.map((entry: any) => entry.action).sort(), [
        'webhook.created',
        'webhook.deleted',
        'webhook.updated',
        'webhook.updated',
      ])
      const changes = entries
        .filter((entry: any) => entry.action === 'webhook.updated')
        .map((entry: any) => entry.after)
      assert.ok(
        changes.some((after: any) => JSON.stringify(after) === JSON.stringify({ enabled: false })),
        JSON.stringify(changes),
      )
    })

    test('bad input: each a 400 naming the field; other environments and accounts see nothing', async () => {
      const account = await t.createAccount()
      const key = account.sandboxKey
      const url = receiver.url('/x')
      const typo = failuresOf(await call('POST', '/v4.0/webhooks', { url, eventTypes: [`${T}.shipmnts.*`] }, key))
      assert.equal(typo['eventTypes[0]'][0].code, 'InvalidValue')
      assert.ok(typo['eventTypes[0]'][0].validValues.includes(`${T}.shipments.shipment#Shipped`))
      const star = failuresOf(await call('POST', '/v4.0/webhooks', { url, eventTypes: [`${T}.*.shipment`] }, key))
      assert.equal(star['eventTypes[0]'][0].code, 'InvalidFormat')
      const many = failuresOf(
        await call('POST', '/v4.0/webhooks', { url, eventTypes: Array(51).fill(`${T}.shipments.*`) }, key),
      )
      assert.deepEqual(many.eventTypes[0], { code: 'TooMany', providedValue: 51, comparisonValue: 50 })
      const metadata = failuresOf(
        await call('POST', '/v4.0/webhooks', { url, metadataFilter: { channel: { nested: true } } }, key),
      )
      assert.equal(metadata['metadataFilter.channel'][0].code, 'InvalidType')
      const badUrl = failuresOf(await call('POST', '/v4.0/webhooks', { url: 'ftp://example.com/hook' }, key))
      assert.ok(badUrl.url, JSON.stringify(badUrl))
      const unknown = failuresOf(await call('POST', '/v4.0/webhooks', { url, colour: 'red' }, key))
      assert.equal(Object.values(unknown).flat()[0] && (Object.values(unknown).flat()[0] as any).code, 'UnknownField')
      const missing = failuresOf(await call('POST', '/v4.0/webhooks', {}, key))
      assert.ok(missing.url)
      const badId = failuresOf(await call('GET', '/v4.0/webhooks/ord_1', undefined, key))
      assert.equal(badId.id[0].code, 'InvalidFormat')

      const { webhook } = await create({ url }, key)
      const overlap = failuresOf(
        await call('PATCH', `/v4.0/webhooks/${webhook.id}`, { signingSecretOverlapSeconds: 60 }, key),
      )
      assert.equal(overlap.signingSecretOverlapSeconds[0].code, 'RequiresRotateSigningSecret')
      const patchTypo = failuresOf(
        await call('PATCH', `/v4.0/webhooks/${webhook.id}`, { eventTypes: ['com.acme.ordr.*'] }, key),
      )
      assert.ok(patchTypo['eventTypes[0]'])

      // The other environment's and the other account's endpoints are not found.
      assert.equal(
        (await t.live({ method: 'GET', url: `/v4.0/webhooks/${webhook.id}` }, account.liveKey)).statusCode,
        404,
      )
      assert.equal((await call('GET', `/v4.0/webhooks/${webhook.id}`, undefined, t.account.sandboxKey)).statusCode, 404)
      assert.equal(
        (await call('DELETE', `/v4.0/webhooks/${webhook.id}`, undefined, t.account.sandboxKey)).statusCode,
        404,
      )
      assert.equal(json(await t.live({ method: 'GET', url: '/v4.0/webhooks' }, account.liveKey)).webhooks.length, 0)

      // 20 per environment: the 21st is refused, the other environment still has room.
      for (let index = 1; index < 19; index += 1) await create({ url: receiver.url(`/n${index}`) }, key)
      // Two creates at once for the last place: the account lock lets exactly one through.
      const racing = await Promise.all([
        call('POST', '/v4.0/webhooks', { url: receiver.url('/race1') }, key),
        call('POST', '/v4.0/webhooks', { url: receiver.url('/race2') }, key),
      ])
      assert.deepEqual(racing.map((response) => response.statusCode).sort(), [201, 400])
      assert.equal(json(await call('GET', '/v4.0/webhooks', undefined, key)).webhooks.length, 20)
      const tooMany = failuresOf(await call('POST', '/v4.0/webhooks', { url }, key))
      assert.deepEqual(tooMany.webhooks, [{ code: 'TooMany', providedValue: 21, comparisonValue: 20 }])
      const live = await t.live(
        { method: 'POST', url: '/v4.0/webhooks', payload: { url }, headers: JSON_HEADERS },
        account.liveKey,
      )
      assert.equal(live.statusCode, 201, live.body)
    })

    test('a create sent again with the same Idempotency-Key is answered again, making one endpoint', async () => {
      const account = await t.createAccount()
      const send = () =>
        t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/webhooks',
            payload: { url: receiver.url('/once') },
            headers: { ...JSON_HEADERS, 'idempotency-key': 'create-webhook-1' },
          },
          account.sandboxKey,
        )
      const first = await send()
      const again = await send()
      assert.equal(first.statusCode, 201, first.body)
      assert.equal(again.statusCode, 201, again.body)
      assert.equal(again.headers['idempotent-replayed'], 'true')
      assert.equal(json(again).webhook.id, json(first).webhook.id)
      assert.equal(json(await call('GET', '/v4.0/webhooks', undefined, account.sandboxKey)).webhooks.length, 1)
    })

    test('test send: signed with the endpoint secret only, recorded with webhookId; rotation signs twice', async () => {
      const account = await t.createAccount()
      const key = account.sandboxKey
      const environmentSecret = json(await call('GET', '/v4.0/account/settings', undefined, key)).settings.signingSecret
      const { webhook, signingSecret } = await create(
        { url: receiver.url('/test-send'), eventTypes: [`${T}.shipments.*`], enabled: false },
        key,
      )
      const sent = await call('POST', `/v4.0/webhooks/${webhook.id}/test`, undefined, key)
      assert.equal(sent.statusCode, 200, sent.body)
      const callback = json(sent).callback
      assert.equal(json(sent).outcome, 'Ok')
      assert.equal(callback.webhookId, webhook.id)
      assert.equal(callback.status, 'delivered')
      assert.equal(callback.type, 'com.acme.test')
      const received = receiver.received.filter((one) => one.url === '/test-send')
      assert.equal(received.length, 1, 'sent once, though the endpoint is disabled')
      const [first] = received as [ReceivedCallback]
      assert.ok(verifies(signingSecret, first), "verifies with the endpoint's secret")
      assert.ok(!verifies(environmentSecret, first), "and not with the environment's")
      assert.equal(first.event.data.webhookId, webhook.id)
      assert.deepEqual(first.event.data.eventTypes, [`${T}.shipments.*`])
      const listed = json(await call('GET', `/v4.0/callbacks?webhookId=${webhook.id}`, undefined, key)).callbacks
      assert.deepEqual(
        listed.map((one: any) => one.id),
        [callback.id],
      )

      const rotated = await call(
        'PATCH',
        `/v4.0/webhooks/${webhook.id}`,
        { rotateSigningSecret: true, signingSecretOverlapSeconds: 3600 },
        key,
      )
      assert.equal(rotated.statusCode, 200, rotated.body)
      const newSecret = json(rotated).signingSecret
      assert.match(newSecret, /^whsec_/)
      assert.notEqual(newSecret, signingSecret)
      assert.equal(json(rotated).webhook.signingSecretPrefix, newSecret.slice(0, 10))
      assert.ok(json(rotated).webhook.previousSigningSecretExpiresAt)
      await call('POST', `/v4.0/webhooks/${webhook.id}/test`, undefined, key)
      const during = receiver.received.filter((one) => one.url === '/test-send').at(-1) as ReceivedCallback
      assert.equal(signatureCount(during), 2, 'two signatures during the overlap')
      assert.ok(verifies(newSecret, during))
      assert.ok(verifies(signingSecret, during))

      await call(
        'PATCH',
        `/v4.0/webhooks/${webhook.id}`,
        { rotateSigningSecret: true, signingSecretOverlapSeconds: 0 },
        key,
      )
      await call('POST', `/v4.0/webhooks/${webhook.id}/test`, undefined, key)
      const afterwards = receiver.received.filter((one) => one.url === '/test-send').at(-1) as ReceivedCallback
      assert.equal(signatureCount(afterwards), 1, 'one signature once the overlap is over')
      assert.ok(!verifies(newSecret, afterwards) && !verifies(signingSecret, afterwards))
    })

    test('a pending delivery is not POSTed once its endpoint is disabled or deleted', async () => {
      const account = await t.createAccount({ pauseWindowSeconds: 3600 })
      const key = account.sandboxKey
      const disabledOne = (await create({ url: receiver.url('/later-disabled') }, key)).webhook
      const deletedOne = (await create({ url: receiver.url('/later-deleted') }, key)).webhook
      const order = json(await call('POST', '/v4.0/orders', sampleOrder(), key))
      assert.equal(order.outcome, 'OnHold')
      assert.equal(
        json(await call('POST', `/v4.0/orders/${order.order.id}/actions/cancel`, undefined, key)).outcome,
        'Cancelled',
      )
      await call('PATCH', `/v4.0/webhooks/${disabledOne.id}`, { enabled: false }, key)
      await call('DELETE', `/v4.0/webhooks/${deletedOne.id}`, undefined, key)
      for (const [webhook, state] of [
        [disabledOne, 'disabled'],
        [deletedOne, 'deleted'],
      ] as const) {
        const [pending] = json(await call('GET', `/v4.0/callbacks?webhookId=${webhook.id}`, undefined, key)).callbacks
        assert.equal(pending.status, 'pending')
        assert.equal(pending.orderId, order.order.id)
        // What the delivery job does when its attempt is due (no workers run in this app).
        await t.app.services.callbacks.deliver(parseId('cbd', pending.id) as number, 1)
        const [done] = json(await call('GET', `/v4.0/callbacks?webhookId=${webhook.id}`, undefined, key)).callbacks
        assert.equal(done.status, 'failed')
        assert.equal(done.attempts.length, 1)
        assert.equal(done.attempts[0].error, `webhook endpoint ${webhook.id} is ${state}`)
        assert.equal(done.attempts[0].httpStatus, null)
      }
      assert.equal(receiver.received.filter((one) => one.url.startsWith('/later-')).length, 0, 'nothing POSTed')
      // A deleted endpoint's delivery cannot be redelivered: the endpoint is gone.
      const [gone] = json(await call('GET', `/v4.0/callbacks?webhookId=${deletedOne.id}`, undefined, key)).callbacks
      const redelivered = await call('POST', `/v4.0/callbacks/${gone.id}/redeliver`, undefined, key)
      assert.equal(redelivered.statusCode, 404, redelivered.body)
      assert.match(json(redelivered).message ?? redelivered.body, new RegExp(deletedOne.id))
    })
  })

  test(`webhook endpoints: two receivers with different filters each get exactly their events (${kind})`, async () => {
    const receiverA = await startCallbackReceiver()
    const receiverB = await startCallbackReceiver()
    const callbackUrl = await startCallbackReceiver()
    // Fails the first attempt of everything, then answers 200.
    const flaky = await startCallbackReceiver({ respond: (_callback, index) => (index === 0 ? 500 : 200) })
    const silent = await startCallbackReceiver()
    const images = await startImageServer()
    const t = await startTestApp({ kind, eventVendor: 'acme', realClock: true })
    const drive = pipelineDriver(t)
    try {
      const post = async (url: string, payload: Record<string, unknown>) => {
        const response = await t.sandbox({ method: 'POST', url, payload, headers: JSON_HEADERS })
        assert.ok(response.statusCode < 300, response.body)
        return json(response)
      }
      const settings = json(
        await t.sandbox({
          method: 'PATCH',
          url: '/v4.0/account/settings',
          payload: { callbackUrl: callbackUrl.url('/all') },
          headers: JSON_HEADERS,
        }),
      ).settings
      const a = await post('/v4.0/webhooks', { url: receiverA.url('/a'), eventTypes: [`${T}.shipments.*`] })
      const b = await post('/v4.0/webhooks', { url: receiverB.url('/b'), metadataFilter: { channel: 'shop-eu' } })
      const d = await post('/v4.0/webhooks', {
        url: flaky.url('/d'),
        eventTypes: [`${T}.status.stage.changed#Complete`],
        metadataFilter: { channel: 'shop-us' },
      })
      const e = await post('/v4.0/webhooks', { url: silent.url('/e'), enabled: false })

      const order = (channel: string) =>
        post(
          '/v4.0/orders',
          sampleOrder({
            items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
            metadata: { channel },
          }),
        )
      const eu = (await order('shop-eu')).order.id
      const us = (await order('shop-us')).order.id
      const lifeOf = [
        `${T}.status.details.downloadAssets#Complete`,
        `${T}.shipments.shipment#Shipped`,
        `${T}.status.details.shipping#Complete`,
        `${T}.status.stage.changed#Complete`,
        `${T}.shipments.shipment#InTransit`,
        `${T}.shipments.shipment#Delivered`,
        `${T}.status.delivery#Delivered`,
      ]
      const shipments = lifeOf.filter((type) => type.startsWith(`${T}.shipments.`))
      // Each order's life to its parcel's delivery, then every delivery's attempts: a first round, and the retry of
      // the one that failed.
      for (const orderId of [eu, us]) {
        await drive.allocate(orderId)
        await drive.render(orderId)
        await drive.submit(orderId)
        await drive.simulateLabs(orderId)
      }
      await drive.deliverCallbacks()
      await drive.deliverCallbacks()
      assert.equal(callbackUrl.received.length, 14, 'every event at the callback URL')
      const list = json(await t.sandbox({ method: 'GET', url: '/v4.0/callbacks?top=100' })).callbacks
      assert.ok(list.length > 0 && list.every((one: any) => one.status !== 'pending'), 'every delivery finished')
      const story = (received: ReceivedCallback[]) =>
        received.map((one) => `${one.event.subject} ${one.event.type}`).sort()
      const expect = (orders: string[], types: string[]) =>
        orders.flatMap((orderId) => types.map((type) => `${orderId} ${type}`)).sort()
      assert.deepEqual(story(receiverA.received), expect([eu, us], shipments), 'A: shipment events of both orders')
      assert.deepEqual(story(receiverB.received), expect([eu], lifeOf), "B: every event of shop-eu's order")
      assert.deepEqual(story(callbackUrl.received), expect([eu, us], lifeOf), 'the callback URL: everything')
      assert.equal(silent.received.length, 0, 'a disabled endpoint gets nothing')
      assert.deepEqual(
        [...new Set(story(flaky.received))],
        expect([us], [`${T}.status.stage.changed#Complete`]),
        'D: one event, retried',
      )
      assert.equal(flaky.received.length, 2)

      for (const received of receiverA.received) {
        assert.equal(received.url, '/a')
        assert.ok(verifies(a.signingSecret, received), "A's events verify with A's secret")
        assert.ok(!verifies(b.signingSecret, received) && !verifies(settings.signingSecret, received))
      }
      for (const received of receiverB.received) {
        assert.ok(verifies(b.signingSecret, received), "B's events verify with B's secret")
        assert.ok(!verifies(a.signingSecret, received) && !verifies(settings.signingSecret, received))
      }
      for (const received of callbackUrl.received) {
        assert.ok(verifies(settings.signingSecret, received), 'the callback URL as before: the environment secret')
        assert.ok(!verifies(a.signingSecret, received))
      }

      // Deliveries per endpoint.
      const deliveriesOf = async (webhookId: string) =>
        json(await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?webhookId=${webhookId}&top=100` })).callbacks
      const ofA = await deliveriesOf(a.webhook.id)
      assert.equal(ofA.length, 6)
      assert.ok(ofA.every((one: any) => one.webhookId === a.webhook.id && one.url === receiverA.url('/a')))
      assert.ok(ofA.every((one: any) => one.status === 'delivered'))
      assert.equal((await deliveriesOf(b.webhook.id)).length, 7)
      assert.equal((await deliveriesOf(e.webhook.id)).length, 0)
      const all = json(await t.sandbox({ method: 'GET', url: '/v4.0/callbacks?top=100' })).callbacks
      assert.equal(all.filter((one: any) => one.webhookId === null).length, 14)

      // The failing endpoint's delivery was retried, then redelivered on request to the endpoint, with its secret.
      const [ofD] = await deliveriesOf(d.webhook.id)
      assert.deepEqual(
        ofD.attempts.map((attempt: any) => attempt.httpStatus),
        [500, 200],
      )
      const redelivered = json(await t.sandbox({ method: 'POST', url: `/v4.0/callbacks/${ofD.id}/redeliver` })).callback
      assert.equal(redelivered.webhookId, d.webhook.id)
      assert.equal(redelivered.redeliveryOf, ofD.id)
      assert.equal(redelivered.url, flaky.url('/d'))
      await drive.deliverCallbacks()
      assert.ok(flaky.received.length >= 3, 'the redelivery')
      const again = flaky.received[2] as ReceivedCallback
      assert.equal(again.event.id, ofD.eventId)
      assert.ok(verifies(d.signingSecret, again))
    } finally {
      await t.close()
      await images.close()
      for (const receiver of [receiverA, receiverB, callbackUrl, flaky, silent]) await receiver.close()
    }
  })
}
