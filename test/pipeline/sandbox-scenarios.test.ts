// Every Sandbox scenario end to end (docs/sandbox.md): real workers, the simulated labs with no step delay, images
// and a callback receiver on 127.0.0.1. All scenario orders are placed at once and move on together; each test
// waits for its own order and checks the path it took and the callbacks it caused, in sequence. An order's path
// goes on after Complete: the simulated carrier's scans, until the parcel is delivered (or comes back).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import type { PipelineOrder } from '../../src/domain/pipeline/pipeline-order.ts'
import { readOrder } from '../../src/repositories/orders.repository.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, quadrantPhoto, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import { blackCanvasItem, PHONE_CASE } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

const T = 'com.printroute.order'
const DOWNLOADED = `${T}.status.details.downloadAssets#Complete`
const SHIPPED = `${T}.shipments.shipment#Shipped`
const SHIPPING_COMPLETE = `${T}.status.details.shipping#Complete`
const COMPLETE = `${T}.status.stage.changed#Complete`
const AUTHORISED = `${T}.status.issues.paymentAuthorisation#Authorised`
const IN_TRANSIT = `${T}.shipments.shipment#InTransit`
const DELIVERY_FAILED = `${T}.shipments.shipment#DeliveryFailed`
const DELIVERED = `${T}.shipments.shipment#Delivered`
const RETURNED = `${T}.shipments.shipment#Returned`
const ORDER_DELIVERED = `${T}.status.delivery#Delivered`
const CARRIED = [IN_TRANSIT, DELIVERED, ORDER_DELIVERED]
const HAPPY_PATH = [DOWNLOADED, SHIPPED, SHIPPING_COMPLETE, COMPLETE, ...CARRIED]

/** The day after `date` ("YYYY-MM-DD") on which carriers deliver: Monday to Friday. */
function nextCarrierDay(date: string): string {
  const day = new Date(`${date}T00:00:00.000Z`)
  do day.setUTCDate(day.getUTCDate() + 1)
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6)
  return day.toISOString().slice(0, 10)
}

function phoneCase(url: string) {
  return { sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url }] }
}

for (const kind of databaseKinds) {
  describe(`Sandbox scenarios end to end (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let receiver: CallbackReceiver
    const orders: Record<string, string> = {}

    async function create(name: string, items: unknown[], scenario: string, via: 'header' | 'metadata') {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          merchantReference: `scenario-${name}`,
          items,
          ...(via === 'metadata' ? { metadata: { sandboxScenario: scenario, shop: 7 } } : {}),
        }),
        headers: {
          'content-type': 'application/json',
          ...(via === 'header' ? { 'x-sandbox-scenario': scenario } : {}),
        },
      })
      assert.equal(response.statusCode, 200, response.body)
      const order = json(response).order
      if (via === 'metadata')
        assert.deepEqual(order.metadata, { sandboxScenario: scenario, shop: 7 }, 'metadata as sent')
      orders[name] = order.id
    }

    /** The order once its simulated carrier has nothing left to report (every parcel delivered, or returned). */
    function untilDelivered(orderId: string) {
      return until(orderId, 'every parcel delivered', (o) => o.deliveredAt !== undefined)
    }

    async function state(orderId: string): Promise<PipelineOrder> {
      const order = await readOrder(t.database.db, parseId('ord', orderId) as number)
      if (!order) throw new Error(`no order ${orderId}`)
      return order
    }

    async function orderOf(orderId: string) {
      return json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
    }

    function until(orderId: string, what: string, done: (order: any) => boolean) {
      return waitFor(`${orderId}: ${what}`, async () => {
        const order = await orderOf(orderId)
        return done(order) ? order : undefined
      })
    }

    /** The event types recorded for the order (complete as of now: events are written with the change). */
    async function recorded(orderId: string): Promise<string[]> {
      const list = json(await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}&top=50` })).callbacks
      return list.reverse().map((callback: any) => callback.type)
    }

    /** The callbacks the receiver got for the order, in sequence, once `count` have arrived. */
    async function received(orderId: string, count: number): Promise<string[]> {
      const mine = () => receiver.received.filter((callback) => callback.event.subject === orderId)
      await waitFor(`${count} callbacks of ${orderId}`, () => (mine().length >= count ? true : undefined))
      return mine()
        .sort((a, b) => (a.event.sequence < b.event.sequence ? -1 : 1))
        .map((callback) => callback.event.type)
    }

    /** Asserts the recorded events and the receiver's callbacks are both exactly `expected`. */
    async function assertCallbacks(orderId: string, expected: string[]) {
      assert.deepEqual(await received(orderId, expected.length), expected)
      assert.deepEqual(await recorded(orderId), expected)
    }

    function advance(orderId: string, body?: Record<string, unknown>) {
      return t.sandbox({
        method: 'POST',
        url: `/v4.0/sandbox/orders/${orderId}/advance`,
        ...(body ? { payload: body, headers: { 'content-type': 'application/json' } } : {}),
      })
    }

    before(async () => {
      receiver = await startCallbackReceiver()
      const photo = { type: 'image/jpeg', body: await quadrantPhoto(200, 150) }
      images = await startImageServer({ '/fails.jpg': photo, '/flaky.jpg': photo }, photo)
      t = await startTestApp({ kind, workers: true, realClock: true, pipeline: { simulatedLabStepSeconds: 0 } })
      await t.sandbox({
        method: 'PATCH',
        url: '/v4.0/account/settings',
        payload: { callbackUrl: receiver.url() },
        headers: { 'content-type': 'application/json' },
      })
      await create('downloadFails', [phoneCase(images.url('fails.jpg'))], 'downloadFails', 'metadata')
      await create('downloadFlaky', [phoneCase(images.url('flaky.jpg'))], 'downloadFlaky', 'header')
      await create('labRejects', [blackCanvasItem(images.url('rejects.jpg'))], 'labRejects', 'metadata')
      await create('outOfStock', [phoneCase(images.url('stock.jpg'))], 'outOfStock', 'header')
      await create('paymentRequired', [phoneCase(images.url('payment.jpg'))], 'paymentRequired', 'metadata')
      await create(
        'splitShipments',
        [blackCanvasItem(images.url('a.jpg')), blackCanvasItem(images.url('b.jpg'))],
        'splitShipments',
        'header',
      )
      await create(
        'partialShipment',
        [blackCanvasItem(images.url('c.jpg')), blackCanvasItem(images.url('d.jpg'))],
        'partialShipment',
        'metadata',
      )
      await create('returned', [phoneCase(images.url('returned.jpg'))], 'returned', 'header')
      await create('deliveryFailed', [phoneCase(images.url('failed.jpg'))], 'deliveryFailed', 'metadata')
      await create('lateDelivery', [phoneCase(images.url('late.jpg'))], 'lateDelivery', 'header')
      await create('manual', [phoneCase(images.url('manual.jpg'))], 'MANUAL', 'header')
      await create('claimsResolved', [phoneCase(images.url('claims.jpg'))], 'claimsResolved', 'header')
    })

    after(async () => {
      await t.close()
      await images.close()
      await receiver.close()
    })

    test('downloadFails: every attempt fails at once, without a request, and the order stops FailedToDownloaded', async () => {
      const id = orders.downloadFails as string
      const order = await until(id, 'downloads failed', (o) => o.status.details.downloadAssets === 'Error')
      const codes = order.status.issues.map((issue: any) => issue.errorCode)
      assert.equal(codes.filter((code: string) => code === 'order.items.assets.NotDownloaded').length, 10)
      assert.ok(codes.includes('order.items.assets.FailedToDownloaded'))
      assert.match(
        order.status.issues[0].description,
        /HTTP 503 from 127\.0\.0\.1:\d+ \(Sandbox scenario downloadFails/,
      )
      assert.equal(order.status.stage, 'InProgress')
      assert.equal(order.items[0].status, 'Invalid')
      assert.ok(!images.requests.some((path) => path.startsWith('/fails.jpg')), 'no request was made')
      assert.deepEqual(await recorded(id), [], 'a stopped order causes no callback')
    })

    test('downloadFlaky: two failed attempts, then the real download, and the order completes', async () => {
      const id = orders.downloadFlaky as string
      const order = await untilDelivered(id)
      const issues = withoutResolutionWarnings(order.status.issues).map((issue: any) => issue.errorCode)
      assert.deepEqual(issues, ['order.items.assets.NotDownloaded', 'order.items.assets.NotDownloaded'])
      assert.equal(images.requests.filter((path) => path.startsWith('/flaky.jpg')).length, 1, 'one real download')
      await assertCallbacks(id, HAPPY_PATH)
    })

    test('labRejects: the first lab rejects, the next lab makes and ships the order', async () => {
      const id = orders.labRejects as string
      const order = await untilDelivered(id)
      const pipeline = (await state(id)).pipeline
      const rejected = Object.values(pipeline.shipments).filter((shipment) => shipment.state === 'rejected')
      assert.equal(rejected.length, 1)
      assert.equal(order.shipments.length, 1)
      assert.notEqual(order.shipments[0].fulfillmentLocation.labCode, rejected[0]?.labCode)
      assert.equal(pipeline.allocationRound, 2)
      assert.equal(order.charges.length, 1, "a rejection is at printroute's cost: no new charge")
      await assertCallbacks(id, HAPPY_PATH)
    })

    test('outOfStock: no lab has the item, the order stops ItemUnavailable', async () => {
      const id = orders.outOfStock as string
      const order = await until(id, 'allocation failed', (o) => o.status.details.allocateProductionLocation === 'Error')
      assert.deepEqual(
        withoutResolutionWarnings(order.status.issues).map((issue: any) => [issue.objectId, issue.errorCode]),
        [[order.items[0].id, 'order.items.ItemUnavailable']],
      )
      assert.deepEqual(order.shipments, [])
      assert.deepEqual(order.charges, [])
      await assertCallbacks(id, [DOWNLOADED])
    })

    test('paymentRequired: the order waits in RequiresPaymentAuthorisation until advance authorises it', async () => {
      const id = orders.paymentRequired as string
      const held = await until(id, 'the payment issue', (o) =>
        o.status.issues.some((issue: any) => issue.errorCode === 'RequiresPaymentAuthorisation'),
      )
      const issue = held.status.issues.find((entry: any) => entry.errorCode === 'RequiresPaymentAuthorisation')
      assert.equal(issue.authorisationDetails.authorisationUrl, `http://127.0.0.1:8081/dashboard/orders/${id}`)
      assert.equal(issue.authorisationDetails.paymentDetails.amount, held.charges[0].totalCost.amount)
      const waiting = json(await t.sandbox({ method: 'GET', url: '/v4.0/orders?status=awaitingPayment' })).orders
      assert.deepEqual(
        waiting.map((order: any) => order.id),
        [id],
      )
      // Its print files are made, but no shipment goes to a lab while it waits.
      await waitFor('print files', async () =>
        (await orderOf(id)).status.details.printReadyAssetsPrepared === 'Complete' ? true : undefined,
      )
      assert.deepEqual(
        Object.values((await state(id)).pipeline.shipments).map((shipment) => shipment.state),
        ['allocated'],
      )
      const authorised = await advance(id)
      assert.equal(authorised.statusCode, 200, authorised.body)
      assert.equal(json(authorised).outcome, 'Updated')
      assert.deepEqual(withoutResolutionWarnings(json(authorised).order.status.issues), [])
      await untilDelivered(id)
      await assertCallbacks(id, [DOWNLOADED, AUTHORISED, SHIPPED, SHIPPING_COMPLETE, COMPLETE, ...CARRIED])
    })

    test('splitShipments: two items one lab would make ship from two labs', async () => {
      const id = orders.splitShipments as string
      const order = await untilDelivered(id)
      assert.equal(order.shipments.length, 2)
      const labs = order.shipments.map((shipment: any) => shipment.fulfillmentLocation.labCode)
      assert.deepEqual([...labs].sort(), ['nl1', 'uk6'])
      assert.deepEqual(
        order.shipments.map((shipment: any) => shipment.items.length),
        [1, 1],
      )
      // Each shipment's scans follow its own timers, so the two interleave; the order is delivered with the last.
      const expected = [DOWNLOADED, SHIPPED, SHIPPED, SHIPPING_COMPLETE, COMPLETE, IN_TRANSIT, IN_TRANSIT]
      expected.push(DELIVERED, DELIVERED, ORDER_DELIVERED)
      const events = await received(id, expected.length)
      assert.deepEqual([...events].sort(), [...expected].sort())
      assert.deepEqual(await recorded(id), events)
      assert.equal(events[0], DOWNLOADED)
      assert.equal(events.at(-1), ORDER_DELIVERED)
      assert.deepEqual(events.slice(events.indexOf(SHIPPING_COMPLETE) - 1, events.indexOf(COMPLETE) + 1), [
        SHIPPED,
        SHIPPING_COMPLETE,
        COMPLETE,
      ])
      assert.ok(events.lastIndexOf(SHIPPED) < events.indexOf(SHIPPING_COMPLETE), 'Complete once both shipped')
      assert.equal(
        order.deliveredAt,
        order.shipments
          .map((shipment: any) => shipment.deliveredAt)
          .sort()
          .at(-1),
      )
    })

    test('partialShipment: one shipment ships, the other waits for advance', async () => {
      const id = orders.partialShipment as string
      const partly = await until(id, 'the first shipment shipped', (o) =>
        o.shipments.some((shipment: any) => shipment.status === 'Shipped'),
      )
      assert.equal(partly.shipments.length, 2)
      assert.equal(partly.shipments[0].status, 'Shipped', 'the first shipment ships on its own')
      assert.equal(partly.shipments[1].status, 'Processing')
      assert.equal(partly.status.details.shipping, 'InProgress')
      const waiting = (await state(id)).pipeline.shipments[partly.shipments[1].id]
      assert.equal(waiting?.state, 'submitted', 'with its lab, which waits')
      assert.equal(partly.status.stage, 'InProgress')
      // The first shipment's carrier goes on by itself; the order is not delivered while the other waits.
      const first = await until(id, 'the first parcel delivered', (o) => o.shipments[0].deliveryStatus === 'Delivered')
      assert.equal(first.deliveredAt, undefined)
      assert.equal(first.shipments[1].deliveryStatus, undefined)
      const advanced = await advance(id, { to: 'Complete' })
      assert.equal(advanced.statusCode, 200, advanced.body)
      const order = json(advanced).order
      assert.equal(order.status.stage, 'Complete')
      assert.equal(order.shipments[1].status, 'Shipped')
      assert.match(order.shipments[1].tracking.number, /^SIM\d{10}$/)
      assert.equal(order.shipments[1].deliveryStatus, undefined, 'its carrier waits for advance too')
      assert.equal(order.deliveredAt, undefined)
      const delivered = json(await advance(id, { to: 'Delivered' })).order
      assert.equal(delivered.shipments[1].deliveryStatus, 'Delivered')
      assert.equal(delivered.deliveredAt, delivered.shipments[1].deliveredAt, 'delivered with its last parcel')
      await assertCallbacks(id, [
        DOWNLOADED,
        SHIPPED,
        IN_TRANSIT,
        DELIVERED,
        SHIPPED,
        SHIPPING_COMPLETE,
        COMPLETE,
        IN_TRANSIT,
        DELIVERED,
        ORDER_DELIVERED,
      ])
    })

    test('returned: the parcel goes out, then comes back; the order is never delivered', async () => {
      const id = orders.returned as string
      const order = await until(id, 'Returned', (o) => o.shipments[0]?.deliveryStatus === 'Returned')
      const [shipment] = order.shipments
      assert.equal(order.status.stage, 'Complete')
      assert.deepEqual(
        shipment.trackingEvents.map((scan: any) => [scan.status, scan.description, scan.location]),
        [
          ['InTransit', 'Accepted by the carrier', `Sorting centre, ${shipment.fulfillmentLocation.countryCode}`],
          ['Returned', 'Returned to the sender', `Sorting centre, ${shipment.fulfillmentLocation.countryCode}`],
        ],
      )
      assert.equal(shipment.deliveredAt, undefined)
      assert.equal(order.deliveredAt, undefined)
      assert.equal(order.deliveredLate, undefined)
      await assertCallbacks(id, [DOWNLOADED, SHIPPED, SHIPPING_COMPLETE, COMPLETE, IN_TRANSIT, RETURNED])
      // Returned is the end of its path: advance to Delivered finds it there, and a plain advance has nothing left.
      const there = await advance(id, { to: 'Delivered' })
      assert.equal(there.statusCode, 200, there.body)
      assert.equal(json(there).outcome, 'Ok')
      assert.equal(json(there).order.lastUpdated, order.lastUpdated)
      const nothingLeft = await advance(id)
      assert.equal(nothingLeft.statusCode, 400)
      assert.match(json(nothingLeft).statusText, /every shipment is Delivered or Returned: nothing is left to advance/)
    })

    test("claimsResolved: a claim is resolved by the simulated operator's own job, and the reprint is delivered", async () => {
      const id = orders.claimsResolved as string
      const order = await untilDelivered(id)
      await assertCallbacks(id, HAPPY_PATH)
      const made = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${id}/claims`,
        headers: { 'content-type': 'application/json' },
        payload: {
          items: [{ itemId: order.items[0].id, category: 'Other', description: 'The colours are off' }],
          preferredResolution: 'Reprint',
        },
      })
      // `Other` is not the lab's fault, so the reprint may go to the lab that made the phone case (the only one that can).
      assert.equal(made.statusCode, 201, made.body)
      const claimId = json(made).claim.id as string
      const resolved = await waitFor(`${claimId} resolved by itself`, async () => {
        const claim = json(await t.sandbox({ method: 'GET', url: `/v4.0/claims/${claimId}` })).claim
        return claim.status === 'Pending' ? undefined : claim
      })
      assert.equal(resolved.status, 'Resolved')
      assert.equal(resolved.resolution.type, 'Reprint')
      const reprintId = resolved.resolution.reprintShipmentId
      const done = await until(id, 'the reprint delivered', (o) =>
        o.shipments.some((shipment: any) => shipment.id === reprintId && shipment.deliveryStatus === 'Delivered'),
      )
      assert.equal(done.shipments.find((shipment: any) => shipment.id === reprintId).claimId, claimId)
    })

    test('deliveryFailed: a failed attempt, out for delivery again, then delivered', async () => {
      const id = orders.deliveryFailed as string
      const order = await untilDelivered(id)
      const [shipment] = order.shipments
      assert.deepEqual(
        shipment.trackingEvents.map((scan: any) => [scan.status, scan.description, scan.location]),
        [
          ['InTransit', 'Accepted by the carrier', `Sorting centre, ${shipment.fulfillmentLocation.countryCode}`],
          ['DeliveryFailed', 'Recipient not available', 'London, GB'],
          ['OutForDelivery', 'Out for delivery (second attempt)', 'London, GB'],
          ['Delivered', 'Delivered', 'London, GB'],
        ],
      )
      const times = shipment.trackingEvents.map((scan: any) => scan.time)
      assert.deepEqual(times, [...times].sort(), 'one step after the other')
      assert.equal(shipment.deliveryStatus, 'Delivered')
      assert.equal(shipment.deliveredAt, times[3])
      assert.equal(order.deliveredAt, times[3])
      // OutForDelivery shows on the order only: it has no callback.
      const carried = [IN_TRANSIT, DELIVERY_FAILED, DELIVERED, ORDER_DELIVERED]
      await assertCallbacks(id, [DOWNLOADED, SHIPPED, SHIPPING_COMPLETE, COMPLETE, ...carried])
    })

    test('lateDelivery: delivered a carrier day after the promised date (late), or 30 days after dispatch without one', async () => {
      const id = orders.lateDelivery as string
      const order = await untilDelivered(id)
      const [shipment] = order.shipments
      // The promise made at allocation (else the shipment's estimate, else the order's deliverBy): delivered at noon
      // UTC on the next carrier working day after it, so late. Without any, 30 days after dispatch, not late.
      const promise = (await state(id)).pipeline.shipments[shipment.id]?.promise
      const promisedTo = promise?.estimatedDelivery.to ?? shipment.estimatedDelivery?.to ?? order.deliverBy
      const dispatched = new Date(`${shipment.dispatchDate.slice(0, 10)}T12:00:00.000Z`)
      dispatched.setUTCDate(dispatched.getUTCDate() + 30)
      const expected = promisedTo ? `${nextCarrierDay(promisedTo)}T12:00:00.000Z` : dispatched.toISOString()
      assert.equal(shipment.deliveredAt, expected)
      assert.ok(shipment.deliveredAt > new Date().toISOString(), 'a simulated time in the future')
      assert.equal(shipment.trackingEvents.at(-1).time, expected)
      assert.equal(order.deliveredAt, expected)
      assert.equal(shipment.deliveredLate, promisedTo !== undefined)
      assert.equal(order.deliveredLate, promisedTo !== undefined)
      await assertCallbacks(id, HAPPY_PATH)
    })

    test('manual: the order stops before each lab step until advanced, one step at a time', async () => {
      const id = orders.manual as string
      const shipmentState = async () => Object.values((await state(id)).pipeline.shipments)[0]?.state
      await waitFor('the shipment with its lab', async () =>
        (await shipmentState()) === 'submitted' ? true : undefined,
      )
      const described = json(await t.sandbox({ method: 'GET', url: `/v4.0/sandbox/orders/${id}` })).sandboxOrder
      assert.deepEqual(described, { orderId: id, scenario: 'manual', cannotAdvance: null })
      for (const expected of ['acknowledged', 'inProduction', 'shipped']) {
        const step = await advance(id)
        assert.equal(step.statusCode, 200, step.body)
        assert.equal(json(step).outcome, 'Updated')
        assert.equal(await shipmentState(), expected)
      }
      const complete = await orderOf(id)
      assert.equal(complete.status.stage, 'Complete')
      assert.equal(complete.shipments[0].deliveryStatus, undefined, 'the carrier waits for advance too')
      // After Complete, each advance is one carrier scan.
      for (const expected of ['InTransit', 'Delivered']) {
        const step = await advance(id)
        assert.equal(step.statusCode, 200, step.body)
        assert.equal(json(step).order.shipments[0].deliveryStatus, expected)
      }
      const finished = json(await t.sandbox({ method: 'GET', url: `/v4.0/sandbox/orders/${id}` })).sandboxOrder
      assert.match(finished.cannotAdvance, /nothing is left to advance/)
      await assertCallbacks(id, HAPPY_PATH)
    })
  })
}
