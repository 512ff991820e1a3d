// A webhook endpoint that keeps failing, on every configured database, with real receivers on 127.0.0.1 and a test
// clock: every attempt goes through the real delivery path (the job's own function, its retries recorded and
// scheduled), the clock moved between them. Disabled after 3 days of failures (not a moment before, and a success
// starts the count again), the account told (the feed, its other endpoints whose filters want it, never its
// callback URL, the audit trail), then enabled again and sent exactly what it missed, once. Also the feed's
// `webhookId` filter.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { signatureOf } from '../../src/domain/webhook-signature.ts'
import { insertDelivery } from '../../src/repositories/callback-deliveries.repository.ts'
import {
  insertWebhookEndpoint,
  updateWebhookEndpoint,
  type WebhookEndpointRow,
} from '../../src/repositories/webhook-endpoints.repository.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const DISABLED = 'com.printroute.webhook.endpoint#Disabled'
const CANCELLED = 'com.printroute.order.status.stage.changed#Cancelled'
const HOUR = 3600
const DAY = 86_400
/** Two attempts an hour apart: a delivery is failed for good within the time a test moves the clock by. */
const SCHEDULE = [0, HOUR]

/** A receiver answering 200 or 500 as `mode.ok` says at the time of each request. */
async function switchableReceiver(): Promise<{ receiver: CallbackReceiver; mode: { ok: boolean } }> {
  const mode = { ok: true }
  const receiver = await startCallbackReceiver({ respond: () => (mode.ok ? 200 : 500) })
  return { receiver, mode }
}

async function endpoint(
  t: TestApp,
  fields: { url: string; eventTypes?: string[]; metadataFilter?: Record<string, string>; enabled?: boolean },
): Promise<WebhookEndpointRow> {
  return insertWebhookEndpoint(t.database.db, {
    accountId: parseId('acc', t.account.id) as number,
    environment: 'sandbox',
    url: fields.url,
    description: null,
    eventTypes: fields.eventTypes ?? [],
    metadataFilter: fields.metadataFilter ?? {},
    enabled: fields.enabled ?? true,
    signingSecret: `whsec_${Buffer.from(`secret of ${fields.url}`).toString('base64')}`,
    at: t.clock.now(),
  })
}

const whk = (row: { id: number }) => `whk_${row.id}`

/** A held order of this channel, cancelled now: one event. Its id and event id. */
async function cancelledOrder(t: TestApp, channel: string): Promise<{ orderId: string; eventId: number }> {
  const created = json(
    await t.sandbox({
      method: 'POST',
      url: '/v4.0/orders',
      payload: sampleOrder({ metadata: { channel } }),
      headers: { 'content-type': 'application/json' },
    }),
  )
  assert.equal(created.outcome, 'OnHold')
  const cancelled = await t.sandbox({ method: 'POST', url: `/v4.0/orders/${created.order.id}/actions/cancel` })
  assert.equal(json(cancelled).outcome, 'Cancelled', cancelled.body)
  const events = json(await t.sandbox({ method: 'GET', url: `/v4.0/events?orderId=${created.order.id}` })).events
  assert.equal(events.length, 1)
  return { orderId: created.order.id, eventId: parseId('evt', events[0].id) as number }
}

/**
 * The delivery of an event to an endpoint: the one the fan-out made, else one made here as the fan-out would
 * (this part of the code base may not have the fan-out).
 */
async function deliveryTo(t: TestApp, eventId: number, to: WebhookEndpointRow): Promise<number> {
  const [existing] = await t.database.db.query<{ id: string }>(
    'SELECT id FROM callback_deliveries WHERE event_id = $1 AND webhook_id = $2 ORDER BY id LIMIT 1',
    [eventId, to.id],
  )
  if (existing) return Number(existing.id)
  const [event] = await t.database.db.query<{ order_id: string | null }>(
    'SELECT order_id FROM order_events WHERE id = $1',
    [eventId],
  )
  return t.database.db.transaction(async (tx) => {
    const id = await insertDelivery(tx, {
      eventId,
      orderNumber: event?.order_id == null ? null : Number(event.order_id),
      accountId: to.accountId,
      environment: 'sandbox',
      url: to.url,
      redeliveryOf: null,
      at: t.clock.now(),
      webhookId: to.id,
    })
    return id
  })
}

/** The delivery's next attempt, through the attempt job's own function (its retry scheduled as in production). */
async function attempt(t: TestApp, deliveryId: number): Promise<string> {
  const [row] = await t.database.db.query<{ attempts: number | string }>(
    'SELECT attempts FROM callback_deliveries WHERE id = $1',
    [deliveryId],
  )
  await t.app.services.callbacks.deliver(deliveryId, Number(row?.attempts) + 1)
  const [after] = await t.database.db.query<{ status: string }>(
    'SELECT status FROM callback_deliveries WHERE id = $1',
    [deliveryId],
  )
  return after?.status as string
}

/** A new order event with a delivery to `to`, attempted at once. */
async function failedEvent(t: TestApp, to: WebhookEndpointRow, channel = 'shop-eu') {
  const { orderId, eventId } = await cancelledOrder(t, channel)
  const deliveryId = await deliveryTo(t, eventId, to)
  await attempt(t, deliveryId)
  return { orderId, eventId, deliveryId }
}

async function webhookView(t: TestApp, row: WebhookEndpointRow) {
  const response = await t.sandbox({ method: 'GET', url: `/v4.0/webhooks/${whk(row)}` })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).webhook
}

async function feed(t: TestApp, query = '') {
  const response = await t.sandbox({ method: 'GET', url: `/v4.0/events${query}` })
  assert.equal(response.statusCode, 200, response.body)
  return json(response)
}

/** Every event of the feed with this query, page by page (`top` a page). */
async function wholeFeed(t: TestApp, query: string, top: number): Promise<any[]> {
  const events: any[] = []
  let after = ''
  for (let pages = 0; pages < 50; pages += 1) {
    const page = await feed(t, `?top=${top}${query}${after ? `&after=${after}` : ''}`)
    events.push(...page.events)
    if (!page.hasMore) return events
    after = page.nextCursor
  }
  throw new Error('the feed never ended')
}

async function redeliverMissed(t: TestApp, row: WebhookEndpointRow, body?: Record<string, unknown>) {
  return t.sandbox({
    method: 'POST',
    url: `/v4.0/webhooks/${whk(row)}/redeliver-missed`,
    ...(body ? { payload: body, headers: { 'content-type': 'application/json' } } : {}),
  })
}

for (const kind of databaseKinds) {
  describe(`a webhook endpoint that keeps failing (${kind})`, () => {
    test('disabled after 3 days of failures, not before; the account is told; re-enabled, it gets what it missed once', async () => {
      const failing = await switchableReceiver()
      const other = await startCallbackReceiver()
      const callbackUrl = await startCallbackReceiver()
      const t = await startTestApp({ kind, pauseWindowSeconds: 3600, callbackRetryScheduleSeconds: SCHEDULE })
      try {
        const settings = json(
          await t.sandbox({
            method: 'PATCH',
            url: '/v4.0/account/settings',
            payload: { callbackUrl: callbackUrl.url('/account') },
            headers: { 'content-type': 'application/json' },
          }),
        ).settings
        const shop = await endpoint(t, { url: failing.receiver.url('/shop'), metadataFilter: { channel: 'shop-eu' } })
        // The account's other endpoints: one wants the disabled event, one only order events, one only orders of
        // a channel (an account event has no order), one is disabled.
        const ops = await endpoint(t, { url: other.url('/ops'), eventTypes: ['com.printroute.webhook.*'] })
        await endpoint(t, { url: other.url('/orders-only'), eventTypes: ['com.printroute.order.*'] })
        await endpoint(t, { url: other.url('/channel'), metadataFilter: { channel: 'shop-eu' } })
        await endpoint(t, { url: other.url('/switched-off'), enabled: false })

        // Delivered before the trouble starts: never missed.
        const before = await failedEvent(t, shop)
        assert.equal((await webhookView(t, shop)).lastSuccessAt, t.clock.now().toISOString())
        t.clock.advanceSeconds(HOUR)
        failing.mode.ok = false
        const t0 = t.clock.now()
        const first = await failedEvent(t, shop)
        assert.equal((await webhookView(t, shop)).failingSince, t0.toISOString())
        t.clock.advanceSeconds(HOUR)
        assert.equal(await attempt(t, first.deliveryId), 'failed', 'its last attempt')
        t.clock.advanceSeconds(2 * DAY - HOUR)
        const second = await failedEvent(t, shop)
        t.clock.advanceSeconds(HOUR)
        assert.equal(await attempt(t, second.deliveryId), 'failed')
        // 2 days 23 hours of failures: still enabled.
        t.clock.advanceSeconds(22 * HOUR - 60)
        const third = await failedEvent(t, shop)
        t.clock.advanceSeconds(60)
        assert.equal(t.clock.now().getTime() - t0.getTime(), (3 * DAY - HOUR) * 1000)
        assert.equal(await attempt(t, third.deliveryId), 'failed')
        const almost = await webhookView(t, shop)
        assert.equal(almost.enabled, true)
        assert.equal(almost.failingSince, t0.toISOString())
        assert.equal(json(await t.sandbox({ method: 'GET', url: '/v4.0/events' })).events.length, 4, 'orders only')

        // 3 days: the next failed attempt disables it.
        t.clock.advanceSeconds(HOUR)
        const fourth = await failedEvent(t, shop)
        const disabledAt = t.clock.now().toISOString()
        const disabled = await webhookView(t, shop)
        assert.deepEqual(
          [disabled.enabled, disabled.disabledReason, disabled.disabledAt, disabled.failingSince],
          [false, 'failing', disabledAt, t0.toISOString()],
        )

        // The feed tells the account, after the order events.
        const { events } = await feed(t)
        const told = events.at(-1)
        assert.equal(told.type, DISABLED)
        assert.equal(told.specversion, '1.0')
        assert.match(told.id, /^evt_\d+$/)
        assert.match(told.source, new RegExp(`/v4\\.0/webhooks/${whk(shop)}$`))
        assert.equal(told.time, disabledAt)
        assert.equal(told.subject, undefined, 'about no order')
        assert.deepEqual(told.data.webhook, disabled)
        assert.equal(told.data.failingSince, t0.toISOString())
        assert.equal(told.data.lastError, 'HTTP 500')
        assert.match(told.data.message, new RegExp(`${whk(shop)} .*redeliver-missed`))
        assert.equal((await feed(t, `?orderId=${first.orderId}`)).events.length, 1, "an order's events only")

        // Sent to the one other endpoint that wants it, signed; not to the callback URL, nor the others.
        const deliveries = await t.database.db.query<{ id: string; url: string; webhook_id: string | null }>(
          'SELECT id, url, webhook_id FROM callback_deliveries WHERE event_id = $1',
          [parseId('evt', told.id)],
        )
        assert.deepEqual(
          deliveries.map((delivery) => [delivery.url, Number(delivery.webhook_id)]),
          [[other.url('/ops'), ops.id]],
        )
        assert.equal(await attempt(t, Number(deliveries[0]?.id)), 'delivered')
        assert.equal(other.received.length, 1)
        const [atOps] = other.received
        assert.equal(atOps?.url, '/ops')
        assert.equal(atOps?.body, JSON.stringify(told))
        // Signed with that endpoint's own secret, not the environment's (the test clock is days from now, so the
        // signature is checked as at its own timestamp).
        const headers = atOps?.headers as Record<string, string>
        assert.equal(headers['webhook-id'], told.id)
        assert.equal(headers['webhook-timestamp'], String(Date.parse(disabledAt) / 1000))
        const signatureBy = (secret: string) =>
          signatureOf(secret, told.id, Number(headers['webhook-timestamp']), atOps?.body ?? '')
        assert.equal(headers['webhook-signature'], signatureBy(ops.current))
        assert.notEqual(headers['webhook-signature'], signatureBy(settings.signingSecret))
        assert.ok(
          callbackUrl.received.every((callback) => callback.event.type === CANCELLED),
          'the callback URL gets order events only',
        )

        // The audit trail: printroute itself disabled it.
        const audit = json(
          await t.sandbox({ method: 'GET', url: '/v4.0/account/audit?action=webhook.disabled' }),
        ).entries
        assert.equal(audit.length, 1)
        assert.equal(audit[0].actor.kind, 'system')
        assert.equal(audit[0].target, whk(shop))
        assert.equal(audit[0].at, disabledAt)
        assert.deepEqual(audit[0].after, { enabled: false, disabledReason: 'failing', failingSince: t0.toISOString() })

        // Refused while disabled.
        const refused = await redeliverMissed(t, shop)
        assert.equal(refused.statusCode, 400, refused.body)
        assert.equal(json(refused).failures.id[0].code, 'WebhookEndpointDisabled')

        // Missed while disabled: one order of its channel, one of another channel (not for it).
        t.clock.advanceSeconds(HOUR)
        const whileDisabled = await cancelledOrder(t, 'shop-eu')
        await cancelledOrder(t, 'wholesale')
        // The fourth delivery's last attempt (with the merged delivery path, not even sent: the endpoint is off).
        assert.equal(await attempt(t, fourth.deliveryId), 'failed')

        // Fixed and enabled again; the receiver answers.
        t.clock.advanceSeconds(DAY)
        failing.mode.ok = true
        await updateWebhookEndpoint(t.database.db, shop.id, { enabled: { enabled: true }, at: t.clock.now() })
        const received = failing.receiver.received.length
        const redelivered = await redeliverMissed(t, shop)
        assert.equal(redelivered.statusCode, 200, redelivered.body)
        assert.deepEqual(json(redelivered), {
          outcome: 'Ok',
          redelivered: 5,
          since: t0.toISOString(),
          hasMore: false,
          nextSince: null,
          traceParent: json(redelivered).traceParent,
        })
        const missed = [first, second, third, fourth].map((event) => event.eventId).concat(whileDisabled.eventId)
        const made = await t.database.db.query<{ id: string; event_id: string; redelivery_of: string | null }>(
          `SELECT id, event_id, redelivery_of FROM callback_deliveries
            WHERE webhook_id = $1 AND status = 'pending' ORDER BY event_id`,
          [shop.id],
        )
        assert.deepEqual(
          made.map((row) => Number(row.event_id)),
          missed,
        )
        assert.deepEqual(
          made.map((row) => (row.redelivery_of === null ? null : Number(row.redelivery_of))),
          [first.deliveryId, second.deliveryId, third.deliveryId, fourth.deliveryId, null],
          'each repeats the failed delivery of its event, if there was one',
        )
        for (const row of made) assert.equal(await attempt(t, Number(row.id)), 'delivered')
        assert.deepEqual(
          failing.receiver.received.slice(received).map((callback) => parseId('evt', callback.event.id)),
          missed,
          'exactly the missed events of its filter, once each',
        )
        assert.equal(before.eventId < (first.eventId as number), true)
        const again = json(await redeliverMissed(t, shop, {}))
        assert.equal(again.redelivered, 0, 'nothing left to redeliver')
        const entries = json(
          await t.sandbox({ method: 'GET', url: '/v4.0/account/audit?action=webhook.missedRedelivered' }),
        ).entries
        assert.deepEqual(
          entries.map((entry: any) => [entry.actor.kind, entry.target, entry.after.redelivered]),
          [
            ['key', whk(shop), 0],
            ['key', whk(shop), 5],
          ],
        )
      } finally {
        await t.close()
        await failing.receiver.close()
        await other.close()
        await callbackUrl.close()
      }
    })

    test('a success in between starts the 3 days again', async () => {
      const failing = await switchableReceiver()
      const t = await startTestApp({ kind, pauseWindowSeconds: 3600, callbackRetryScheduleSeconds: SCHEDULE })
      try {
        const shop = await endpoint(t, { url: failing.receiver.url('/shop') })
        failing.mode.ok = false
        await failedEvent(t, shop)
        t.clock.advanceSeconds(2 * DAY)
        failing.mode.ok = true
        await failedEvent(t, shop)
        assert.equal((await webhookView(t, shop)).failingSince, null)
        failing.mode.ok = false
        t.clock.advanceSeconds(DAY)
        const t1 = t.clock.now().toISOString()
        await failedEvent(t, shop)
        t.clock.advanceSeconds(3 * DAY - 1)
        await failedEvent(t, shop)
        const still = await webhookView(t, shop)
        assert.deepEqual([still.enabled, still.failingSince], [true, t1], '4 days after the first failure')
        t.clock.advanceSeconds(1)
        await failedEvent(t, shop)
        assert.equal((await webhookView(t, shop)).disabledReason, 'failing')
      } finally {
        await t.close()
        await failing.receiver.close()
      }
    })

    test("redeliver-missed: the limit and hasMore, since, and the feed's webhookId filter", async () => {
      const receiver = await startCallbackReceiver()
      const t = await startTestApp({ kind, pauseWindowSeconds: 3600 })
      try {
        // Disabled while the orders happen, so that they miss every event (an enabled one gets them as they come).
        const shop = await endpoint(t, {
          url: receiver.url('/shop'),
          metadataFilter: { channel: 'shop-eu' },
          enabled: false,
        })
        const everything = await endpoint(t, { url: receiver.url('/all'), enabled: false })
        const nothingYet = await endpoint(t, { url: receiver.url('/none'), eventTypes: [DISABLED] })
        const orders: { orderId: string; eventId: number; channel: string }[] = []
        const start = t.clock.now()
        for (const channel of ['shop-eu', 'wholesale', 'shop-eu', 'shop-eu', 'wholesale', 'shop-eu', 'shop-eu']) {
          orders.push({ ...(await cancelledOrder(t, channel)), channel })
          t.clock.advanceSeconds(60)
        }
        const ofShop = orders.filter((order) => order.channel === 'shop-eu').map((order) => order.eventId)

        // The feed of one endpoint: what its filters accept, paged by matches, the cursor past skipped events.
        const shopFeed = await wholeFeed(t, `&webhookId=${whk(shop)}`, 2)
        assert.deepEqual(
          shopFeed.map((event) => parseId('evt', event.id)),
          ofShop,
        )
        assert.equal((await wholeFeed(t, `&webhookId=${whk(everything)}`, 3)).length, orders.length)
        const none = await feed(t, `?webhookId=${whk(nothingYet)}`)
        assert.deepEqual([none.events, none.hasMore], [[], false])
        assert.equal(none.nextCursor, `evt_${orders.at(-1)?.eventId}`, 'past what it read')
        const unknown = await t.sandbox({ method: 'GET', url: '/v4.0/events?webhookId=whk_999999' })
        assert.equal(unknown.statusCode, 404, unknown.body)
        const malformed = await t.sandbox({ method: 'GET', url: '/v4.0/events?webhookId=hook' })
        assert.equal(malformed.statusCode, 400)
        assert.equal(json(malformed).failures.webhookId[0].code, 'InvalidFormat')

        assert.equal(
          receiver.received.filter((call) => call.url !== '/none').length,
          0,
          'disabled endpoints got nothing',
        )
        for (const row of [shop, everything]) {
          await updateWebhookEndpoint(t.database.db, row.id, { enabled: { enabled: true }, at: t.clock.now() })
        }

        // Created disabled, never disabled since: nothing says where its missed events begin.
        const noSince = await redeliverMissed(t, shop)
        assert.equal(noSince.statusCode, 400, noSince.body)
        assert.equal(json(noSince).failures.since[0].code, 'Required')

        // Two at a time from the start: 5 events of its channel, in feed order.
        const seen: number[] = []
        let since = start.toISOString()
        const answers: any[] = []
        for (let requests = 0; requests < 5; requests += 1) {
          const answer = json(await redeliverMissed(t, shop, { since, limit: 2 }))
          answers.push(answer)
          if (!answer.hasMore) break
          since = answer.nextSince
        }
        assert.deepEqual(
          answers.map((answer) => [answer.redelivered, answer.hasMore]),
          [
            [2, true],
            [2, true],
            [1, false],
          ],
        )
        const pending = await t.database.db.query<{ event_id: string }>(
          'SELECT event_id FROM callback_deliveries WHERE webhook_id = $1 ORDER BY id',
          [shop.id],
        )
        seen.push(...pending.map((row) => Number(row.event_id)))
        assert.deepEqual(seen, ofShop, 'each of its events once, none of the other channel')
        assert.equal(answers[1].since, answers[0].nextSince)
        assert.equal(json(await redeliverMissed(t, shop, { since: start.toISOString() })).redelivered, 0)

        // A later `since` leaves the earlier events out.
        const fromFifth = json(
          await redeliverMissed(t, everything, { since: new Date(start.getTime() + 4 * 60_000).toISOString() }),
        )
        assert.equal(fromFifth.redelivered, 3)

        // Bad input names the field.
        const badLimit = await redeliverMissed(t, shop, { since: start.toISOString(), limit: 10_001 })
        assert.equal(badLimit.statusCode, 400)
        assert.ok(json(badLimit).failures.limit)
        const badSince = await redeliverMissed(t, shop, { since: 'yesterday' })
        assert.equal(badSince.statusCode, 400)
        assert.equal(json(badSince).failures.since[0].code, 'InvalidFormat')
        const unknownField = await redeliverMissed(t, shop, { from: start.toISOString() })
        assert.equal(json(unknownField).failures.from[0].code, 'UnknownField')
        const notFound = await t.sandbox({ method: 'POST', url: '/v4.0/webhooks/whk_999999/redeliver-missed' })
        assert.equal(notFound.statusCode, 404, notFound.body)
        const badId = await t.sandbox({ method: 'POST', url: '/v4.0/webhooks/12/redeliver-missed' })
        assert.equal(badId.statusCode, 400)
        assert.equal(json(badId).failures.id[0].code, 'InvalidFormat')
        // Another environment's endpoint is not found.
        const inLive = await t.live({ method: 'POST', url: `/v4.0/webhooks/${whk(shop)}/redeliver-missed` })
        assert.equal(inLive.statusCode, 404, inLive.body)
      } finally {
        await t.close()
        await receiver.close()
      }
    })
  })
}
