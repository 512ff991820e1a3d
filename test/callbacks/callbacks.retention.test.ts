// Retention of callback history with the injected clock, on every configured database: finished deliveries
// (delivered or failed) go with their attempts once the retention period has passed, and so do the events no
// delivery needs any more, except each order's latest; pending deliveries, what a kept redelivery refers to,
// and recent history stay. The events feed keeps working from a cursor whose event is gone. Orders are
// driven step by step (no workers) and each delivery attempt is made by calling the job's service function.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { CALLBACK_RETENTION_SECONDS } from '../../src/services/callbacks.service.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const T = 'com.printroute.order'
const DAY = 86_400

for (const kind of databaseKinds) {
  describe(`callback history retention (${kind})`, () => {
    let receiver: CallbackReceiver
    let images: ImageServer
    before(async () => {
      receiver = await startCallbackReceiver({ respond: (callback) => (callback.url === '/down' ? 503 : 200) })
      images = await startImageServer()
    })
    after(async () => {
      await receiver.close()
      await images.close()
    })

    async function create(t: TestApp, callbackUrl: string | null, assets = 'photo.jpg'): Promise<string> {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          callbackUrl,
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url(assets) }] }],
        }),
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    /** An order cancelled at once: one event (`stage.changed#Cancelled`). */
    async function cancelled(t: TestApp, callbackUrl: string | null): Promise<string> {
      const orderId = await create(t, callbackUrl)
      const response = await t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` })
      assert.equal(json(response).outcome, 'Cancelled', response.body)
      return orderId
    }

    /** The account's deliveries, oldest first. */
    async function deliveries(t: TestApp, orderId?: string): Promise<any[]> {
      const query = orderId ? `&orderId=${orderId}` : ''
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?top=100${query}` })
      assert.equal(response.statusCode, 200, response.body)
      return json(response).callbacks.reverse()
    }

    /** Makes each pending delivery's next attempt, as its job would. */
    async function attempt(t: TestApp, list: any[]): Promise<void> {
      for (const delivery of list) {
        await t.app.services.callbacks.deliver(parseId('cbd', delivery.id) as number, delivery.attempts.length + 1)
      }
    }

    async function feed(t: TestApp, after?: string): Promise<{ ids: string[]; types: string[]; sequences: number[] }> {
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/events${after ? `?after=${after}` : ''}` })
      assert.equal(response.statusCode, 200, response.body)
      const events = json(response).events as any[]
      return {
        ids: events.map((event) => event.id),
        types: events.map((event) => event.type),
        sequences: events.map((event) => Number(event.sequence)),
      }
    }

    test('finished deliveries and unneeded events go after the retention period; what is needed stays', async () => {
      // One attempt only: a failed attempt marks the delivery failed at once.
      const t = await startTestApp({ kind, callbackRetryScheduleSeconds: [0] })
      try {
        const drive = pipelineDriver(t)
        // Day 0. A whole order: four events, each delivered.
        const whole = await create(t, receiver.url('/ok'))
        await drive.allocate(whole)
        await drive.render(whole)
        await drive.submit(whole)
        await drive.ship(whole)
        await attempt(t, await deliveries(t, whole))
        const wholeDeliveries = await deliveries(t, whole)
        assert.deepEqual(
          wholeDeliveries.map((delivery) => [delivery.type, delivery.status]),
          [
            [`${T}.status.details.downloadAssets#Complete`, 'delivered'],
            [`${T}.shipments.shipment#Shipped`, 'delivered'],
            [`${T}.status.details.shipping#Complete`, 'delivered'],
            [`${T}.status.stage.changed#Complete`, 'delivered'],
          ],
        )
        // A delivery that failed, an event without a callback URL, and a delivery never attempted (pending).
        const failedOrder = await cancelled(t, receiver.url('/down'))
        await attempt(t, await deliveries(t, failedOrder))
        assert.equal((await deliveries(t, failedOrder))[0].status, 'failed')
        const feedOnly = await cancelled(t, null)
        const pendingOrder = await cancelled(t, receiver.url('/ok'))
        const pending = (await deliveries(t, pendingOrder))[0]
        assert.equal(pending.status, 'pending')
        const [firstEvent, shippedEvent, shippingEvent, completeEvent] = wholeDeliveries.map((d) => d.eventId)
        const before = await feed(t)
        assert.equal(before.ids.length, 7)

        // Day 29: within the retention period, nothing goes.
        t.clock.advanceSeconds(29 * DAY)
        assert.deepEqual(await t.app.services.callbacks.expireCallbackHistory(), { deliveries: 0, events: 0 })
        assert.deepEqual(await feed(t), before)

        // Day 31: a recent delivered one, and a redelivery of the whole order's first delivery (still pending).
        t.clock.advanceSeconds(2 * DAY)
        const recentOrder = await cancelled(t, receiver.url('/ok'))
        await attempt(t, await deliveries(t, recentOrder))
        const redelivered = await t.sandbox({
          method: 'POST',
          url: `/v4.0/callbacks/${wholeDeliveries[0].id}/redeliver`,
        })
        assert.equal(redelivered.statusCode, 200, redelivered.body)
        const redelivery = json(redelivered).callback

        assert.deepEqual(await t.app.services.callbacks.expireCallbackHistory(), { deliveries: 4, events: 2 })
        // Kept: the redelivered delivery (its redelivery refers to it), the pending ones, the recent one.
        assert.deepEqual(
          (await deliveries(t)).map((delivery) => delivery.id),
          [wholeDeliveries[0].id, pending.id, (await deliveries(t, recentOrder))[0].id, redelivery.id],
        )
        assert.equal((await deliveries(t, whole))[0].attempts.length, 1, 'a kept delivery keeps its attempts')
        const kept = await feed(t)
        // The whole order keeps its first event (deliveries refer to it) and its latest; the two between go.
        // Every other order's only event is its latest.
        assert.equal(kept.ids.length, 6)
        assert.deepEqual(
          kept.ids.filter((id) => [firstEvent, shippedEvent, shippingEvent, completeEvent].includes(id)),
          [firstEvent, completeEvent],
        )
        assert.deepEqual(kept.sequences.slice(0, 2), [1, 4], 'the order keeps its latest sequence number')
        // A cursor whose event is gone: the feed goes on with the next event kept after it.
        const fromDeleted = await feed(t, shippedEvent)
        assert.deepEqual(fromDeleted.ids, kept.ids.slice(1))
        assert.deepEqual(await feed(t, shippingEvent), fromDeleted)
        assert.equal((await deliveries(t, feedOnly)).length, 0)
        const gone = await t.sandbox({ method: 'POST', url: `/v4.0/callbacks/${wholeDeliveries[1].id}/redeliver` })
        assert.equal(gone.statusCode, 404, gone.body)
        assert.equal(json(gone).outcome, 'EntityNotFound')
        assert.deepEqual(await t.app.services.callbacks.expireCallbackHistory(), { deliveries: 0, events: 0 })

        // The redelivery is delivered; 31 days on, it goes with the delivery it repeated, and so does the
        // event they shared. The pending delivery from day 0 is still kept, with its event.
        await attempt(t, [redelivery])
        t.clock.advanceSeconds(CALLBACK_RETENTION_SECONDS + DAY)
        assert.deepEqual(await t.app.services.callbacks.expireCallbackHistory(), { deliveries: 3, events: 1 })
        assert.deepEqual(
          (await deliveries(t)).map((delivery) => [delivery.id, delivery.status]),
          [[pending.id, 'pending']],
        )
        const last = await feed(t)
        assert.deepEqual(
          last.ids,
          kept.ids.filter((id) => id !== firstEvent),
        )
        assert.ok(last.ids.includes(pending.eventId))
        // The pending delivery can still be made: its event is there.
        await attempt(t, [pending])
        assert.equal((await deliveries(t, pendingOrder))[0].status, 'delivered')
        assert.equal(receiver.received.filter((callback) => callback.event.id === pending.eventId).length, 1)
      } finally {
        await t.close()
      }
    })

    test('the retention period is a setting', async () => {
      const t = await startTestApp({ kind, callbackRetentionSeconds: 3600 })
      try {
        const drive = pipelineDriver(t)
        const orderId = await create(t, receiver.url('/ok'))
        await drive.allocate(orderId)
        await attempt(t, await deliveries(t, orderId))
        const cancel = await t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` })
        assert.equal(json(cancel).outcome, 'Cancelled', cancel.body)
        await attempt(
          t,
          (await deliveries(t, orderId)).filter((delivery) => delivery.status === 'pending'),
        )
        assert.deepEqual(
          (await deliveries(t, orderId)).map((delivery) => delivery.status),
          ['delivered', 'delivered'],
        )
        // A test callback (no order): it goes with its event, which no order's sequence needs.
        const tested = await t.sandbox({
          method: 'POST',
          url: '/v4.0/callbacks/test',
          payload: { url: receiver.url('/ok') },
          headers: { 'content-type': 'application/json' },
        })
        assert.equal(json(tested).outcome, 'Delivered', tested.body)
        t.clock.advanceSeconds(3599)
        assert.deepEqual(await t.app.services.callbacks.expireCallbackHistory(), { deliveries: 0, events: 0 })
        t.clock.advanceSeconds(2)
        assert.deepEqual(await t.app.services.callbacks.expireCallbackHistory(), { deliveries: 3, events: 2 })
        assert.deepEqual(await deliveries(t), [])
        assert.deepEqual((await feed(t)).types, [`${T}.status.stage.changed#Cancelled`])
      } finally {
        await t.close()
      }
    })
  })
}
