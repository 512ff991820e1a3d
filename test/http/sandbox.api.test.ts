// The Sandbox's API around scenarios (docs/sandbox.md): choosing a scenario at create (header, metadata, the
// account's default) and its validation, Live ignoring scenarios with a Warning, the default in the account
// settings, and advance: each target (the carrier's scans to Delivered too), idempotency, the refusals, and 404 on
// Live. The orders are taken to their (simulated) labs by the step helper, each step as its job would run it, no
// live queue: the simulated labs' own timers stay queued, never run.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { jobIdFromKey } from '../../src/adapters/job-queue.ts'
import { jobRequest, type SimulatedLabStep } from '../../src/domain/jobs.ts'
import { ADVANCE_TARGETS, SANDBOX_SCENARIOS } from '../../src/domain/sandbox-scenarios.ts'
import { type ImageServer, quadrantPhoto, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const JSON_HEADERS = { 'content-type': 'application/json' }

/** Takes the order to its simulated lab, by its steps as their jobs would run them; the lab then waits. */
async function toItsLab(t: TestApp, orderId: string) {
  const drive = pipelineDriver(t)
  await drive.allocate(orderId)
  await drive.render(orderId)
  await drive.submit(orderId)
  const facts = json(await t.sandbox({ method: 'GET', url: `/v4.0/sandbox/orders/${orderId}` })).sandboxOrder
  assert.equal(facts.cannotAdvance, null, 'the shipment with its lab')
}

for (const kind of databaseKinds) {
  describe(`Sandbox scenarios and advance through the API (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    function order(overrides: Record<string, unknown> = {}) {
      return sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
        ...overrides,
      })
    }

    function create(server: 'sandbox' | 'live', body: Record<string, unknown>, headers: Record<string, string> = {}) {
      return t[server]({ method: 'POST', url: '/v4.0/orders', payload: body, headers: { ...JSON_HEADERS, ...headers } })
    }

    async function created(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<string> {
      const response = await create('sandbox', body, headers)
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    async function scenarioOf(orderId: string) {
      return json(await t.sandbox({ method: 'GET', url: `/v4.0/sandbox/orders/${orderId}` })).sandboxOrder.scenario
    }

    function advance(orderId: string, body?: unknown, key?: string) {
      return t.sandbox(
        {
          method: 'POST',
          url: `/v4.0/sandbox/orders/${orderId}/advance`,
          ...(body === undefined ? {} : { payload: body as Record<string, unknown>, headers: JSON_HEADERS }),
        },
        key,
      )
    }

    function settings(server: 'sandbox' | 'live', change?: Record<string, unknown>) {
      return t[server](
        change
          ? { method: 'PATCH', url: '/v4.0/account/settings', payload: change, headers: JSON_HEADERS }
          : { method: 'GET', url: '/v4.0/account/settings' },
      )
    }

    /** A manual order whose shipment is with its (waiting) lab. */
    async function manualOrderWithItsLab(): Promise<string> {
      const id = await created(order(), { 'x-sandbox-scenario': 'manual' })
      await toItsLab(t, id)
      return id
    }

    before(async () => {
      images = await startImageServer({}, { type: 'image/jpeg', body: await quadrantPhoto(200, 150) })
      t = await startTestApp({ kind, realClock: true, pipeline: { simulatedLabStepSeconds: 0 } })
    })

    after(async () => {
      await t.close()
      await images.close()
    })

    test('an unknown scenario is refused on the field that names it, listing the valid names', async () => {
      const inMetadata = await create('sandbox', order({ metadata: { sandboxScenario: 'explode' } }))
      assert.equal(inMetadata.statusCode, 400)
      assert.equal(json(inMetadata).outcome, 'ValidationFailed')
      assert.deepEqual(json(inMetadata).failures, {
        'metadata.sandboxScenario': [
          { code: 'InvalidValue', providedValue: 'explode', validValues: [...SANDBOX_SCENARIOS] },
        ],
      })
      const inHeader = await create('sandbox', order(), { 'x-sandbox-scenario': 'explode' })
      assert.equal(inHeader.statusCode, 400)
      assert.deepEqual(Object.keys(json(inHeader).failures), ['X-Sandbox-Scenario'])
      assert.deepEqual(json(inHeader).failures['X-Sandbox-Scenario'][0].validValues, [...SANDBOX_SCENARIOS])
      const notAString = await create('sandbox', order({ metadata: { sandboxScenario: 3 } }))
      assert.equal(notAString.statusCode, 400)
      const oneItemSplit = await create('sandbox', order(), { 'x-sandbox-scenario': 'splitShipments' })
      assert.equal(oneItemSplit.statusCode, 400)
      assert.match(json(oneItemSplit).failures['X-Sandbox-Scenario'][0].comparisonValue, /at least two items/)
    })

    test('the header wins over the metadata, which stays exactly as sent', async () => {
      const metadata = { sandboxScenario: 'downloadFails', shopOrder: 12 }
      const response = await create('sandbox', order({ metadata }), { 'x-sandbox-scenario': 'Manual' })
      assert.equal(response.statusCode, 200, response.body)
      const id = json(response).order.id
      assert.deepEqual(json(response).order.metadata, metadata)
      assert.equal(await scenarioOf(id), 'manual')
      assert.equal(await scenarioOf(await created(order())), null, 'no scenario by default')
    })

    test('Live ignores scenarios and says so in a Warning header; the Sandbox endpoints do not exist there', async () => {
      const warning = '299 - "Sandbox scenarios are ignored on Live"'
      const byMetadata = await create('live', order({ metadata: { sandboxScenario: 'no-such-scenario' } }))
      assert.equal(byMetadata.statusCode, 200, byMetadata.body)
      assert.equal(byMetadata.headers.warning, warning)
      const byHeader = await create('live', order(), { 'x-sandbox-scenario': 'manual' })
      assert.equal(byHeader.headers.warning, warning)
      const plain = await create('live', order())
      assert.equal(plain.headers.warning, undefined)
      const sandboxPlain = await create('sandbox', order({ metadata: { sandboxScenario: 'manual' } }))
      assert.equal(sandboxPlain.headers.warning, undefined)
      const liveId = json(byHeader).order.id
      for (const request of [
        { method: 'POST' as const, url: `/v4.0/sandbox/orders/${liveId}/advance` },
        { method: 'GET' as const, url: `/v4.0/sandbox/orders/${liveId}` },
      ]) {
        const response = await t.live(request)
        assert.equal(response.statusCode, 404)
        assert.equal(json(response).outcome, 'EndpointDoesNotExist')
      }
    })

    test("the account's Sandbox default applies to orders created while it is set; Live cannot set it", async () => {
      assert.equal(json(await settings('sandbox')).settings.sandboxScenario, null)
      assert.equal('sandboxScenario' in json(await settings('live')).settings, false, 'Live settings do not show it')
      const set = await settings('sandbox', { sandboxScenario: 'MANUAL' })
      assert.equal(set.statusCode, 200, set.body)
      assert.equal(json(set).settings.sandboxScenario, 'manual')
      const withDefault = await created(order())
      assert.equal(await scenarioOf(withDefault), 'manual')
      assert.equal(await scenarioOf(await created(order({ metadata: { sandboxScenario: null } }))), null)
      assert.equal(await scenarioOf(await created(order(), { 'x-sandbox-scenario': 'outOfStock' })), 'outOfStock')

      const unknown = await settings('sandbox', { sandboxScenario: 'explode' })
      assert.equal(unknown.statusCode, 400)
      assert.deepEqual(json(unknown).failures.sandboxScenario[0].validValues, [...SANDBOX_SCENARIOS])
      const fromLive = await settings('live', { sandboxScenario: 'manual' })
      assert.equal(fromLive.statusCode, 400)
      assert.match(json(fromLive).failures.sandboxScenario[0].comparisonValue, /Sandbox key/)

      const cleared = await settings('sandbox', { sandboxScenario: null })
      assert.equal(json(cleared).settings.sandboxScenario, null)
      assert.equal(await scenarioOf(await created(order())), null)
      assert.equal(await scenarioOf(withDefault), 'manual', 'an order keeps the scenario it was created with')
    })

    test('advance to InProduction, Shipped, Complete and Delivered; each again answers Ok with the order unchanged', async () => {
      const id = await manualOrderWithItsLab()
      const driver = pipelineDriver(t)
      const shipmentState = async () => Object.values((await driver.state(id)).pipeline.shipments)[0]?.state

      const inProduction = await advance(id, { to: 'inproduction' })
      assert.equal(inProduction.statusCode, 200, inProduction.body)
      assert.equal(json(inProduction).outcome, 'Updated')
      assert.equal(await shipmentState(), 'inProduction')
      const again = await advance(id, { to: 'InProduction' })
      assert.equal(json(again).outcome, 'Ok')
      assert.equal(json(again).order.lastUpdated, json(inProduction).order.lastUpdated)

      const shipped = await advance(id, { to: 'Shipped' })
      assert.equal(json(shipped).outcome, 'Updated')
      const order = json(shipped).order
      assert.equal(order.status.stage, 'Complete', 'its only shipment shipped')
      assert.equal(order.shipments[0].status, 'Shipped')
      assert.match(order.shipments[0].tracking.number, /^SIM\d{10}$/)
      const get = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${id}` })).order
      assert.deepEqual(
        { ...order, items: undefined },
        { ...get, items: undefined },
        'the answer is the order as GET shows it',
      )
      for (const to of ['Complete', 'Shipped', 'InProduction']) {
        const unchanged = await advance(id, { to })
        assert.equal(unchanged.statusCode, 200, unchanged.body)
        assert.equal(json(unchanged).outcome, 'Ok')
        assert.equal(json(unchanged).order.lastUpdated, order.lastUpdated)
      }

      // After Complete the parcel is with the carrier: a plain advance is its first scan, Delivered the rest.
      const inTransit = await advance(id)
      assert.equal(json(inTransit).outcome, 'Updated', inTransit.body)
      assert.equal(json(inTransit).order.shipments[0].deliveryStatus, 'InTransit')
      const delivered = await advance(id, { to: 'delivered' })
      assert.equal(json(delivered).outcome, 'Updated', delivered.body)
      const done = json(delivered).order
      assert.equal(done.shipments[0].deliveryStatus, 'Delivered')
      assert.ok(done.deliveredAt)
      for (const to of ADVANCE_TARGETS) {
        const unchanged = await advance(id, { to })
        assert.equal(unchanged.statusCode, 200, unchanged.body)
        assert.equal(json(unchanged).outcome, 'Ok')
        assert.equal(json(unchanged).order.lastUpdated, done.lastUpdated)
      }
      const nothingLeft = await advance(id)
      assert.equal(nothingLeft.statusCode, 400)
      assert.equal(json(nothingLeft).outcome, 'ValidationFailed')
      assert.match(
        json(nothingLeft).statusText,
        /is Complete and every shipment is Delivered or Returned: nothing is left to advance/,
      )

      // A simulated lab's timer firing late for a shipment already advanced changes nothing.
      const shipmentId = order.shipments[0].id
      const steps: SimulatedLabStep[] = ['acknowledge', 'produce', 'ship', 'inTransit', 'delivered', 'returned']
      for (const step of steps) {
        await t.app.services.simulatedLabs.runStep(t.app.services.pipeline, id, shipmentId, step)
      }
      assert.equal((await driver.document(id)).lastUpdated, done.lastUpdated)
    })

    test('advance to Complete straight from the waiting lab', async () => {
      const id = await manualOrderWithItsLab()
      const response = await advance(id, { to: 'Complete' })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(json(response).order.status.stage, 'Complete')
      assert.equal(json(response).order.shipments[0].deliveryStatus, undefined, 'Complete is not delivered')
    })

    test('advance to Delivered straight from the waiting lab: shipped, in transit and delivered now', async () => {
      const id = await manualOrderWithItsLab()
      const before = new Date().toISOString()
      const response = await advance(id, { to: 'Delivered' })
      const after = new Date().toISOString()
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(json(response).outcome, 'Updated')
      const order = json(response).order
      assert.equal(order.status.stage, 'Complete')
      const [shipment] = order.shipments
      assert.deepEqual(
        shipment.trackingEvents.map((scan: any) => scan.status),
        ['InTransit', 'Delivered'],
      )
      for (const scan of shipment.trackingEvents) assert.ok(before <= scan.time && scan.time <= after, scan.time)
      assert.ok(before <= shipment.dispatchDate && shipment.dispatchDate <= shipment.trackingEvents[0].time)
      assert.equal(shipment.deliveryStatus, 'Delivered')
      assert.equal(shipment.deliveredAt, shipment.trackingEvents[1].time)
      assert.equal(order.deliveredAt, shipment.deliveredAt)
      assert.equal(order.deliveredLate, false)
      const events = json(await t.sandbox({ method: 'GET', url: `/v4.0/events?orderId=${id}` })).events
      assert.deepEqual(
        events.map((event: any) => event.type.replace('com.printroute.order.', '')),
        [
          'status.details.downloadAssets#Complete',
          'shipments.shipment#Shipped',
          'status.details.shipping#Complete',
          'status.stage.changed#Complete',
          'shipments.shipment#InTransit',
          'shipments.shipment#Delivered',
          'status.delivery#Delivered',
        ],
      )
    })

    test('advance refuses bad bodies, unknown orders, and orders that cannot move, with the reason', async () => {
      const badTarget = await advance('ord_1', { to: 'Lost' })
      assert.equal(badTarget.statusCode, 400)
      assert.deepEqual(json(badTarget).failures.to[0].validValues, ['InProduction', 'Shipped', 'Complete', 'Delivered'])
      const unknownField = await advance('ord_1', { step: 1 })
      assert.equal(unknownField.statusCode, 400)
      const unknownOrder = await advance('ord_999999')
      assert.equal(unknownOrder.statusCode, 404)
      assert.equal(json(unknownOrder).outcome, 'EntityNotFound')

      const other = await t.createAccount({ pauseWindowSeconds: 3600 })
      const ownId = await created(order())
      assert.equal((await advance(ownId, undefined, other.sandboxKey)).statusCode, 404, "another account's order")

      const held = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload: order(), headers: JSON_HEADERS },
        other.sandboxKey,
      )
      const heldId = json(held).order.id
      const onHold = await advance(heldId, { to: 'Shipped' }, other.sandboxKey)
      assert.equal(onHold.statusCode, 400)
      assert.match(json(onHold).failures.to[0].comparisonValue, /on hold in the pause window/)
      const cancel = await t.sandbox({ method: 'POST', url: `/v4.0/orders/${heldId}/actions/cancel` }, other.sandboxKey)
      assert.equal(json(cancel).outcome, 'Cancelled', cancel.body)
      const cancelled = await advance(heldId, undefined, other.sandboxKey)
      assert.equal(cancelled.statusCode, 400)
      assert.match(json(cancelled).statusText, /is cancelled/)
      assert.deepEqual(Object.keys(json(cancelled).failures), ['orderId'])

      const failing = await created(order(), { 'x-sandbox-scenario': 'downloadFails' })
      await pipelineDriver(t).download(failing)
      const stopped = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${failing}` })).order
      assert.equal(stopped.status.details.downloadAssets, 'Error', 'the downloads failed')
      for (const body of [undefined, { to: 'Complete' }]) {
        const refused = await advance(failing, body)
        assert.equal(refused.statusCode, 400)
        assert.match(json(refused).statusText, /has stopped: a step failed/)
      }
    })
  })
  // Orders without the scenario manual keep their timers: an hour apart here, so advance does every step and the
  // timers are left queued, to be found past their step when they fire.
  describe(`advance through the carrier's scans, the simulated labs' timers an hour away (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    before(async () => {
      images = await startImageServer({}, { type: 'image/jpeg', body: await quadrantPhoto(200, 150) })
      t = await startTestApp({ kind, realClock: true, pipeline: { simulatedLabStepSeconds: 3600 } })
    })

    after(async () => {
      await t.close()
      await images.close()
    })

    async function withItsLab(scenario?: string): Promise<string> {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
        }),
        headers: { ...JSON_HEADERS, ...(scenario ? { 'x-sandbox-scenario': scenario } : {}) },
      })
      assert.equal(response.statusCode, 200, response.body)
      const id = json(response).order.id
      await toItsLab(t, id)
      return id
    }

    function advance(orderId: string, body?: Record<string, unknown>) {
      return t.sandbox({
        method: 'POST',
        url: `/v4.0/sandbox/orders/${orderId}/advance`,
        ...(body ? { payload: body, headers: JSON_HEADERS } : {}),
      })
    }

    /** When the simulated lab's timer for `step` of the shipment is due; undefined when none was queued. */
    async function timerOf(orderId: string, shipmentId: string, step: SimulatedLabStep): Promise<Date | undefined> {
      const id = jobIdFromKey(jobRequest('simulated-lab-step', { orderId, shipmentId, step }).key)
      const rows = await t.database.db.query<{ start_after: Date }>(
        `SELECT start_after FROM ${t.database.jobSchema}.job WHERE id = $1`,
        [id],
      )
      return rows[0] ? new Date(rows[0].start_after) : undefined
    }

    async function eventsOf(orderId: string): Promise<string[]> {
      const events = json(await t.sandbox({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` })).events
      return events.map((event: any) => event.type.replace('com.printroute.order.', ''))
    }

    test("shipping queues the carrier's first scan a step later; each plain advance after Complete is one scan", async () => {
      const id = await withItsLab()
      const complete = json(await advance(id, { to: 'Complete' })).order
      const shipmentId = complete.shipments[0].id
      const firstScan = await timerOf(id, shipmentId, 'inTransit')
      assert.ok(firstScan, 'the ship step queued the in-transit scan')
      assert.ok(firstScan.getTime() > Date.now() + 3000_000, 'one step (an hour) after shipping')
      assert.equal(await timerOf(id, shipmentId, 'delivered'), undefined, 'one step at a time')

      const before = new Date().toISOString()
      const inTransit = json(await advance(id)).order
      assert.equal(inTransit.shipments[0].deliveryStatus, 'InTransit')
      assert.ok(inTransit.shipments[0].trackingEvents[0].time >= before, "the scan is at the step's time")
      assert.ok(await timerOf(id, shipmentId, 'delivered'), 'the next scan is queued in turn')
      const delivered = json(await advance(id)).order
      assert.equal(delivered.shipments[0].deliveryStatus, 'Delivered')
      assert.equal(delivered.deliveredAt, delivered.shipments[0].trackingEvents[1].time)
      assert.equal((await advance(id)).statusCode, 400, 'nothing is left')

      // The queued timers fire late: each finds its shipment past its step.
      for (const step of ['inTransit', 'delivered'] as const) {
        await t.app.services.simulatedLabs.runStep(t.app.services.pipeline, id, shipmentId, step)
      }
      const after = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${id}` })).order
      assert.equal(after.lastUpdated, delivered.lastUpdated)
      assert.equal(after.shipments[0].trackingEvents.length, 2)
      assert.deepEqual((await eventsOf(id)).slice(-3), [
        'shipments.shipment#InTransit',
        'shipments.shipment#Delivered',
        'status.delivery#Delivered',
      ])
    })

    test('to Delivered: a returned parcel ends Returned; a failed attempt is followed by the second', async () => {
      const returned = await withItsLab('returned')
      const back = await advance(returned, { to: 'Delivered' })
      assert.equal(json(back).outcome, 'Updated', back.body)
      const order = json(back).order
      assert.equal(order.shipments[0].deliveryStatus, 'Returned')
      assert.equal(order.deliveredAt, undefined)
      const again = await advance(returned, { to: 'Delivered' })
      assert.equal(json(again).outcome, 'Ok', 'Returned is as far as it goes')
      assert.deepEqual((await eventsOf(returned)).slice(-2), [
        'shipments.shipment#InTransit',
        'shipments.shipment#Returned',
      ])

      const failed = await withItsLab('deliveryFailed')
      const second = json(await advance(failed, { to: 'Delivered' })).order
      assert.deepEqual(
        second.shipments[0].trackingEvents.map((scan: any) => scan.status),
        ['InTransit', 'DeliveryFailed', 'OutForDelivery', 'Delivered'],
      )
      assert.equal(second.shipments[0].deliveryStatus, 'Delivered')
      assert.ok(second.deliveredAt)
      assert.deepEqual((await eventsOf(failed)).slice(-4), [
        'shipments.shipment#InTransit',
        'shipments.shipment#DeliveryFailed',
        'shipments.shipment#Delivered',
        'status.delivery#Delivered',
      ])
    })
  })
}
