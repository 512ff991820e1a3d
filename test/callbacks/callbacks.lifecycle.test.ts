// A whole order with the real workers, the simulated labs and a real receiver on 127.0.0.1: every event the
// order causes arrives, signed, and sorted by `sequence` they tell the order's story, from the downloads to the
// parcel's delivery (the simulated lab goes on after Shipped with the carrier's scans, by itself).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { startCallbackReceiver } from '../support/callback-receiver.ts'
import { startImageServer } from '../support/image-server.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

const T = 'com.printroute.order'

for (const kind of databaseKinds) {
  test(`an order's whole life reaches the receiver as signed events in sequence (${kind})`, async () => {
    const receiver = await startCallbackReceiver()
    const images = await startImageServer()
    const t = await startTestApp({ kind, workers: true, realClock: true, pipeline: { simulatedLabStepSeconds: 0.05 } })
    try {
      const settings = json(
        await t.sandbox({
          method: 'PATCH',
          url: '/v4.0/account/settings',
          payload: { callbackUrl: receiver.url('/printroute') },
          headers: { 'content-type': 'application/json' },
        }),
      ).settings
      const created = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
          }),
          headers: { 'content-type': 'application/json' },
        }),
      )
      assert.equal(created.outcome, 'Created')
      const orderId = created.order.id
      const expected = [
        `${T}.status.details.downloadAssets#Complete`,
        `${T}.shipments.shipment#Shipped`,
        `${T}.status.details.shipping#Complete`,
        `${T}.status.stage.changed#Complete`,
        `${T}.shipments.shipment#InTransit`,
        `${T}.shipments.shipment#Delivered`,
        `${T}.status.delivery#Delivered`,
      ]
      await waitFor(
        'every event to arrive',
        () => (receiver.received.length >= expected.length ? true : undefined),
        45_000,
      )
      // Sorted as strings, as the CloudEvents sequence extension says a receiver orders them.
      const received = [...receiver.received].sort((a, b) => (a.event.sequence < b.event.sequence ? -1 : 1))
      assert.deepEqual(
        received.map((callback) => callback.event.type),
        expected,
      )
      assert.deepEqual(
        received.map((callback) => callback.event.sequence),
        expected.map((_, index) => String(index + 1).padStart(19, '0')),
      )
      for (const callback of received) {
        assert.equal(callback.url, '/printroute')
        assert.equal(callback.event.subject, orderId)
        assert.ok(new Webhook(settings.signingSecret).verify(callback.body, callback.headers as Record<string, string>))
      }
      const orders = received.map((callback) => callback.event.data.order)
      const final = orders.at(-1)
      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(final.status.stage, 'Complete')
      assert.deepEqual(final.shipments, order.shipments, 'the last event carries the order as it ended')
      for (const key of ['id', 'status', 'charges', 'metadata', 'deliveredAt', 'deliveredLate']) {
        assert.deepEqual(final[key], order[key], key)
      }

      // After Complete, the carrier's scans: each event carries the whole order as that scan left it.
      const [shipped, inTransit, delivered, orderDelivered] = [orders[1], orders[4], orders[5], orders[6]]
      assert.equal(shipped.shipments[0].deliveryStatus, undefined, 'no scan when it ships')
      assert.equal(inTransit.status.stage, 'Complete')
      assert.equal(inTransit.shipments[0].deliveryStatus, 'InTransit')
      assert.equal(inTransit.deliveredAt, undefined)
      const [accepted, arrived] = order.shipments[0].trackingEvents
      assert.deepEqual(inTransit.shipments[0].trackingEvents, [accepted])
      assert.equal(accepted.status, 'InTransit')
      assert.equal(accepted.description, 'Accepted by the carrier')
      assert.equal(accepted.location, `Sorting centre, ${order.shipments[0].fulfillmentLocation.countryCode}`)
      assert.equal(arrived.status, 'Delivered')
      assert.equal(arrived.location, 'London, GB', "the recipient's town")
      // Scan times are the simulated lab's steps, on the service's clock: after dispatch, in order.
      assert.ok(order.shipments[0].dispatchDate <= accepted.time && accepted.time <= arrived.time)
      assert.ok(arrived.time <= new Date().toISOString())
      assert.equal(delivered.shipments[0].deliveryStatus, 'Delivered')
      assert.equal(delivered.shipments[0].deliveredAt, arrived.time)
      // The only shipment delivered is the whole order delivered: both events come from the same change.
      assert.deepEqual(orderDelivered, delivered)
      assert.equal(order.deliveredAt, arrived.time)
      assert.equal(order.shipments[0].deliveredAt, arrived.time)
      // Delivered within seconds of the order, so never after any promise (nor late without one).
      assert.equal(order.deliveredLate, false)
      assert.equal(order.shipments[0].deliveredLate, false)
      for (const event of orders) {
        assert.equal(event.id, orderId)
        assert.equal(event.recipient.mobilePhoneNumber, event.recipient.phoneNumber, 'the callback form of the order')
        assert.equal(event.items.length, 1)
      }

      const callbacks = json(await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}` })).callbacks
      assert.equal(callbacks.length, expected.length)
      await waitFor('every delivery to be recorded', async () => {
        const list = json(await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}` })).callbacks
        return list.every((entry: any) => entry.status === 'delivered') ? true : undefined
      })
      assert.equal(receiver.received.length, expected.length, 'each event once')
    } finally {
      await t.close()
      await images.close()
      await receiver.close()
    }
  })
}
