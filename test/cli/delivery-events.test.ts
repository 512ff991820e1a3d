// The delivery events after Complete, as `printroute orders watch --until Delivered` and `printroute listen` show
// them: a Live order shipped and tracked by its lab through the lab API, watched and listened to by real processes
// against the test application on 127.0.0.1. The step helper takes the order to its lab (each step as its job would
// run it, no live queue).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type CliSession, killStartedPrintroutes, startCliSession, startPrintroute } from '../support/cli.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

describe('delivery events in orders watch and listen', () => {
  let t: TestApp
  let urls: { live: string; sandbox: string }
  let images: ImageServer
  let receiver: CallbackReceiver
  let cli: CliSession
  let stateHome: string

  before(async () => {
    t = await startTestApp({ realClock: true })
    urls = await listenOnLoopback(t)
    images = await startImageServer()
    receiver = await startCallbackReceiver()
    cli = startCliSession()
    stateHome = mkdtempSync(join(tmpdir(), 'printroute-delivery-listen-'))
  })
  after(async () => {
    killStartedPrintroutes()
    await cli.close()
    await receiver.close()
    await images.close()
    await t.close()
    rmSync(stateHome, { recursive: true, force: true })
  })

  const lab = async (key: string, url: string, payload: unknown = null) => {
    const response = await t.app.live.inject({
      method: 'POST',
      url,
      headers: { 'x-api-key': key, ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { payload: payload as object } : {}),
    })
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(json(response).outcome, 'Updated')
  }

  test('watch --until Delivered follows a Complete order to its delivery; listen forwards each delivery event, signed', async () => {
    const account = await t.createAccount()
    const { signingSecret } = json(
      await t.live({ method: 'GET', url: '/v4.0/account/settings' }, account.liveKey),
    ).settings
    const created = await t.live(
      {
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
        }),
        headers: { 'content-type': 'application/json' },
      },
      account.liveKey,
    )
    assert.equal(created.statusCode, 200, created.body)
    const orderId: string = json(created).order.id
    const drive = pipelineDriver(t)
    await drive.allocate(orderId)
    await drive.render(orderId)
    await drive.submit(orderId)
    const shipment = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` }, account.liveKey)).order
      .shipments[0]
    assert.ok(shipment, 'allocated')
    const labKey = (await t.app.services.labs.createLabKey(shipment.fulfillmentLocation.labCode, TEST_ACTOR)).key
    const listed = await t.app.live.inject({ method: 'GET', url: '/labs/v1/jobs', headers: { 'x-api-key': labKey } })
    assert.ok(
      json(listed).jobs.some((job: { shipmentId: string }) => job.shipmentId === shipment.id),
      "the shipment in its lab's job list",
    )
    const job = `/labs/v1/jobs/${shipment.id}`
    await lab(labKey, `${job}/acknowledge`)
    await lab(labKey, `${job}/in-production`)
    const now = Date.now()
    const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString()
    await lab(labKey, `${job}/shipped`, { carrier: { name: 'DPD', service: 'Next day' }, dispatchDate: at(300) })

    const connection = { PRINTROUTE_API_KEY: account.liveKey, PRINTROUTE_BASE_URL: urls.live }
    // The order is Complete already: a plain watch ends at once, as before.
    const plain = await cli.run(['orders', 'watch', orderId], connection)
    assert.equal(plain.code, 0, plain.stderr)
    assert.equal(plain.stdout.trim().split('\n').length, 1)
    const badUntil = await cli.run(['orders', 'watch', orderId, '--until', 'Arrived'], connection)
    assert.equal(badUntil.code, 2)
    assert.match(badUntil.stderr, /--until must be one of Complete, Delivered, got "Arrived"/)

    const watch = startPrintroute(
      ['orders', 'watch', orderId, '--until', 'delivered', '--poll-interval', '200ms'],
      connection,
    )
    const listen = startPrintroute(['listen', '--forward-to', receiver.url('/hook'), '--poll-interval', '200ms'], {
      ...connection,
      XDG_STATE_HOME: stateHome,
    })
    // The order as it is (no parcel scanned yet), then a line per change.
    await watch.waitFor(new RegExp(`  ${orderId}  Complete  [^;\\n]*shipping Complete[^;\\n]*\\n`), 60_000)
    await listen.waitFor(/listening to .* \(now\)/, 60_000)

    await lab(labKey, `${job}/tracking`, {
      events: [{ time: at(200), status: 'InTransit', description: 'Accepted by the carrier', location: 'Hinckley' }],
    })
    await watch.waitFor(
      new RegExp(`  ${orderId}  Complete  .*shipping Complete.*; ${shipment.id} InTransit\\n`),
      60_000,
    )
    await lab(labKey, `${job}/tracking`, {
      events: [
        { time: at(100), status: 'OutForDelivery', description: 'Out for delivery' },
        { time: at(50), status: 'Delivered', description: 'Delivered to the front door' },
      ],
    })
    assert.equal(await watch.exited, 0, watch.output())
    const lines = watch.output().trim().split('\n')
    assert.match(lines.at(-1) as string, new RegExp(`  ${orderId}  Complete  .*; ${shipment.id} Delivered$`))
    assert.equal(lines.length, 3, watch.output())

    const types = ['shipments.shipment#InTransit', 'shipments.shipment#Delivered', 'status.delivery#Delivered']
    const last = await listen.waitFor(
      new RegExp(`  com\\.printroute\\.order\\.status\\.delivery#Delivered  ${orderId}  (evt_\\d+)  -> 200`),
      60_000,
    )
    listen.child.kill('SIGTERM')
    assert.equal(await listen.exited, 0, listen.output())
    for (const type of types) {
      const pattern = new RegExp(
        `  com\\.printroute\\.order\\.${type.replace(/[.#]/g, '\\$&')}  ${orderId}  evt_\\d+  -> 200`,
      )
      assert.match(listen.output(), pattern)
    }
    assert.deepEqual(
      receiver.received.map((callback) => callback.event.type),
      types.map((type) => `com.printroute.order.${type}`),
      'forwarded once each, in order',
    )
    assert.equal(receiver.received.at(-1)?.event.id, last[1])
    for (const callback of receiver.received) {
      new Webhook(signingSecret).verify(callback.body, callback.headers as Record<string, string>)
      assert.equal(callback.event.data.order.id, orderId)
    }
    assert.equal(receiver.received.at(-1)?.event.data.order.deliveredAt, at(50))
  })
})
