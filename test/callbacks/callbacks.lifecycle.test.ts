// A whole order with the real workers, the simulated labs and a real receiver on 127.0.0.1: every event the
// order causes arrives, signed, and sorted by `sequence` they tell the order's story.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { startCallbackReceiver } from '../support/callback-receiver.ts'
import { testDatabaseKinds } from '../support/databases.ts'
import { startImageServer } from '../support/image-server.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp } from '../support/test-app.ts'
import { waitFor } from '../support/wait.ts'

const T = 'com.printroute.order'

for (const kind of testDatabaseKinds()) {
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
        ['0000000000000000001', '0000000000000000002', '0000000000000000003', '0000000000000000004'],
      )
      for (const callback of received) {
        assert.equal(callback.url, '/printroute')
        assert.equal(callback.event.subject, orderId)
        assert.ok(new Webhook(settings.signingSecret).verify(callback.body, callback.headers as Record<string, string>))
      }
      const final = received.at(-1)?.event.data.order
      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(final.status.stage, 'Complete')
      assert.deepEqual(final.shipments, order.shipments, 'the last event carries the order as it ended')
      const callbacks = json(await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}` })).callbacks
      assert.equal(callbacks.length, 4)
      await waitFor('every delivery to be recorded', async () => {
        const list = json(await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}` })).callbacks
        return list.every((entry: any) => entry.status === 'delivered') ? true : undefined
      })
      assert.equal(receiver.received.length, 4, 'each event once')
    } finally {
      await t.close()
      await images.close()
      await receiver.close()
    }
  })
}
