// The environment's callbackEvents setting (docs/callbacks.md#which-events-a-callback-url-gets) with a real receiver
// on 127.0.0.1: with `prodigi` the callback URL gets only the Prodigi Print API's event types, while the events feed
// and a webhook endpoint keep every type. The order is driven step by step (no workers) and each delivery attempt is
// run as its job would run it, so the test waits for nothing.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver, US_RECIPIENT } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const T = 'com.printroute.order'
const JSON_HEADERS = { 'content-type': 'application/json' }

for (const kind of databaseKinds) {
  describe(`callbackEvents (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let receiver: CallbackReceiver
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      receiver = await startCallbackReceiver()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
      await receiver.close()
    })

    async function patchSettings(account: TestAccount, body: Record<string, unknown>) {
      const response = await t.sandbox(
        { method: 'PATCH', url: '/v4.0/account/settings', payload: body, headers: JSON_HEADERS },
        account.sandboxKey,
      )
      assert.equal(response.statusCode, 200, response.body)
      return json(response).settings
    }

    /** A phone case to the US, made, shipped and delivered: Print API events and printroute's own. */
    async function deliveredOrder(account: TestAccount, callbackUrl: string | null): Promise<string> {
      const payload = sampleOrder({
        recipient: US_RECIPIENT,
        callbackUrl,
        items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
      const created = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload, headers: JSON_HEADERS },
        account.sandboxKey,
      )
      assert.equal(json(created).outcome, 'Created', created.body)
      const orderId = json(created).order.id
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const shipped = await drive.ship(orderId)
      const shipmentId = shipped.document.shipments[0]?.id as string
      t.clock.advanceSeconds(3 * 86_400)
      await t.app.services.pipeline.reportLab(orderId, shipmentId, {
        kind: 'tracking',
        events: [{ time: '2026-03-03T10:00:00Z', status: 'Delivered', description: 'Delivered' }],
      })
      return orderId
    }

    /** Runs the first attempt of each of the order's deliveries, as the delivery job would. */
    async function deliverAll(account: TestAccount, orderId: string) {
      const listed = json(
        await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}&top=100` }, account.sandboxKey),
      ).callbacks as { id: string; url: string; webhookId: string | null }[]
      for (const delivery of listed) await t.app.services.callbacks.deliver(parseId('cbd', delivery.id) as number, 1)
      return listed
    }

    const receivedAt = (path: string) =>
      receiver.received.filter((callback) => callback.url === path).map((callback) => callback.event.type)

    test("prodigi: the callback URL gets only the Print API's types; the feed and a webhook endpoint get every type", async () => {
      const account = await t.createAccount()
      const settings = await patchSettings(account, {
        callbackEvents: 'Prodigi',
        callbackUrl: receiver.url('/account'),
      })
      assert.equal(settings.callbackEvents, 'prodigi')
      const live = json(await t.live({ method: 'GET', url: '/v4.0/account/settings' }, account.liveKey))
      assert.equal(live.settings.callbackEvents, 'all', 'Live keeps its own')
      const webhook = await t.sandbox(
        { method: 'POST', url: '/v4.0/webhooks', payload: { url: receiver.url('/endpoint') }, headers: JSON_HEADERS },
        account.sandboxKey,
      )
      assert.equal(webhook.statusCode, 201, webhook.body)

      // The order's own URL is limited as the account's would be.
      const orderId = await deliveredOrder(account, receiver.url('/own'))
      await deliverAll(account, orderId)
      const printApiTypes = [
        `${T}.status.details.downloadAssets#Complete`,
        `${T}.shipments.shipment#Shipped`,
        `${T}.status.details.shipping#Complete`,
        `${T}.status.stage.changed#Complete`,
      ]
      const everyType = [...printApiTypes, `${T}.shipments.shipment#Delivered`, `${T}.status.delivery#Delivered`]
      assert.deepEqual(receivedAt('/own').sort(), [...printApiTypes].sort())
      assert.deepEqual(receivedAt('/endpoint').sort(), [...everyType].sort(), 'the webhook endpoint is unaffected')
      const feed = json(await t.sandbox({ method: 'GET', url: `/v4.0/events?top=100` }, account.sandboxKey))
      assert.deepEqual(
        feed.events.map((event: { type: string }) => event.type).sort(),
        [...everyType].sort(),
        'the feed keeps every event',
      )

      // Back to all: the next order's callbacks carry every type again; the change is audited both ways.
      await patchSettings(account, { callbackEvents: 'all' })
      const second = await deliveredOrder(account, null)
      await deliverAll(account, second)
      assert.deepEqual(
        receiver.received
          .filter((callback) => callback.url === '/account' && callback.event.subject === second)
          .map((callback) => callback.event.type)
          .sort(),
        [...everyType].sort(),
      )
      const audit = json(
        await t.sandbox(
          { method: 'GET', url: '/v4.0/account/audit?action=account.settingsChanged' },
          account.sandboxKey,
        ),
      )
      const changes = audit.entries.map(
        (entry: { before: Record<string, unknown>; after: Record<string, unknown> }) => [
          entry.before.callbackEvents,
          entry.after.callbackEvents,
        ],
      )
      assert.deepEqual(changes.sort(), [
        ['all', 'prodigi'],
        ['prodigi', 'all'],
      ])
    })

    test('an unknown callbackEvents set is refused naming the field', async () => {
      const response = await t.sandbox({
        method: 'PATCH',
        url: '/v4.0/account/settings',
        payload: { callbackEvents: 'strict' },
        headers: JSON_HEADERS,
      })
      assert.equal(response.statusCode, 400)
      assert.equal(json(response).outcome, 'ValidationFailed')
      assert.ok(json(response).failures.callbackEvents, response.body)
    })
  })
}
