// The carrier's scans as a lab reports them: the status moves forward only, repeats change nothing, the scans of
// one report lead to the same status in whatever order they are listed, and an order is delivered when its last
// live shipment is.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import type { DeliveryEstimate } from './delivery-promise.ts'
import {
  applyTrackingEvents,
  DELIVERY_STATUS_RANK,
  MAX_TRACKING_EVENTS_PER_SHIPMENT,
  trackingRefusal,
} from './delivery-tracking.ts'
import {
  buildNewOrderDocument,
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type OrderDocument,
  type Shipment,
  type TrackingEvent,
} from './order.ts'
import { recordLabReport } from './pipeline/lab-report.ts'
import { emptyPipeline, type PipelineState, type ShipmentState } from './pipeline/pipeline-order.ts'

tier('pure')

const now = new Date('2026-03-02T10:00:00.000Z')

function shippedShipment(id: string): Shipment {
  return {
    id,
    dispatchDate: '2026-03-02T10:00:00.000Z',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    fulfillmentLocation: { countryCode: 'GB', labCode: 'uk6' },
    tracking: { number: `T-${id}`, url: `https://t.test/${id}` },
    items: [{ itemId: 'ori_1' }],
    status: 'Shipped',
    cancelled: false,
  }
}

/** A Complete order with shipped shipments `ids` (shp_1 by default). */
function completeOrder(ids: string[] = ['shp_1'], deliverBy?: string): OrderDocument {
  const order = buildNewOrderDocument(
    {
      merchantReference: null,
      shippingMethod: 'Standard',
      idempotencyKey: null,
      callbackUrl: null,
      recipient: {
        name: 'Ada',
        email: null,
        phoneNumber: null,
        address: {
          line1: '1 Street',
          line2: null,
          postalOrZipCode: 'EC1',
          countryCode: 'GB',
          townOrCity: 'London',
          stateOrCounty: null,
        },
      },
      branding: null,
      packingSlip: null,
      metadata: null,
      deliverBy: deliverBy ?? null,
      items: [
        {
          merchantReference: null,
          sku: 'SKU',
          copies: 1,
          sizing: 'fillPrintArea',
          recipientCost: null,
          attributes: {},
          assets: [{ printArea: 'default', url: 'https://x.test/a.jpg', md5Hash: null, pageCount: null }],
        },
      ],
    },
    { order: 'ord_1', items: ['ori_1'], assets: ['ast_1'] },
    now,
  )
  order.shipments = ids.map(shippedShipment)
  order.status.stage = 'Complete'
  return order
}

const scan = (time: string, status: DeliveryStatus, description = `${status} scan`): TrackingEvent => ({
  time,
  status,
  description,
})

function only(order: OrderDocument, id = 'shp_1'): Shipment {
  const shipment = order.shipments.find((candidate) => candidate.id === id)
  assert.ok(shipment, id)
  return shipment
}

const promiseTo = (to: string): DeliveryEstimate => ({
  estimatedDispatchDate: '2026-03-02',
  estimatedDelivery: { from: '2026-03-04', to },
})

test('a late InTransit after Delivered is recorded, and the shipment stays Delivered', () => {
  const order = completeOrder()
  const shipment = only(order)
  assert.equal(applyTrackingEvents(order, shipment, [scan('2026-03-03T08:00:00Z', 'InTransit')], undefined), true)
  assert.equal(applyTrackingEvents(order, shipment, [scan('2026-03-04T11:30:00Z', 'Delivered')], undefined), true)
  // The carrier's hub uploads a scan it made before the delivery, a day late: news to the shipment, not a move back.
  const late = scan('2026-03-04T06:10:00Z', 'InTransit', 'Arrived at the delivery office')
  assert.equal(applyTrackingEvents(order, shipment, [late], undefined), true, 'the scan is new: recorded')
  assert.equal(shipment.deliveryStatus, 'Delivered')
  assert.equal(shipment.deliveredAt, '2026-03-04T11:30:00.000Z')
  assert.deepEqual(
    shipment.trackingEvents?.map((event) => `${event.time} ${event.status}`),
    ['2026-03-03T08:00:00.000Z InTransit', '2026-03-04T06:10:00.000Z InTransit', '2026-03-04T11:30:00.000Z Delivered'],
    'kept oldest first',
  )
  assert.equal(order.deliveredAt, '2026-03-04T11:30:00.000Z')
})

test('DeliveryFailed, then OutForDelivery again, then Delivered', () => {
  const order = completeOrder()
  const shipment = only(order)
  const statuses: (DeliveryStatus | undefined)[] = []
  for (const event of [
    scan('2026-03-03T08:00:00Z', 'InTransit'),
    scan('2026-03-04T07:00:00Z', 'OutForDelivery'),
    scan('2026-03-04T14:00:00Z', 'DeliveryFailed', 'Recipient not available'),
    scan('2026-03-05T07:00:00Z', 'OutForDelivery', 'Second attempt'),
    scan('2026-03-05T12:00:00Z', 'Delivered'),
  ]) {
    applyTrackingEvents(order, shipment, [event], undefined)
    statuses.push(shipment.deliveryStatus)
  }
  assert.deepEqual(statuses, ['InTransit', 'OutForDelivery', 'DeliveryFailed', 'OutForDelivery', 'Delivered'])
  assert.equal(shipment.deliveredAt, '2026-03-05T12:00:00.000Z')
  assert.equal(shipment.trackingEvents?.length, 5)
})

test('Returned is final: a Delivered scan after it is recorded and changes nothing, the order is never delivered', () => {
  const order = completeOrder()
  const shipment = only(order)
  applyTrackingEvents(order, shipment, [scan('2026-03-03T08:00:00Z', 'InTransit')], undefined)
  applyTrackingEvents(order, shipment, [scan('2026-03-09T08:00:00Z', 'Returned', 'Returned to sender')], undefined)
  assert.equal(applyTrackingEvents(order, shipment, [scan('2026-03-10T08:00:00Z', 'Delivered')], undefined), true)
  assert.equal(shipment.deliveryStatus, 'Returned')
  assert.equal(shipment.deliveredAt, undefined)
  assert.equal(shipment.deliveredLate, undefined)
  assert.equal(order.deliveredAt, undefined)
  assert.equal(shipment.trackingEvents?.length, 3)
})

test('scans arriving out of order: an older scan of the same rank or lower never moves the status', () => {
  const order = completeOrder()
  const shipment = only(order)
  applyTrackingEvents(order, shipment, [scan('2026-03-04T07:00:00Z', 'OutForDelivery')], undefined)
  applyTrackingEvents(order, shipment, [scan('2026-03-03T08:00:00Z', 'InTransit')], undefined)
  assert.equal(shipment.deliveryStatus, 'OutForDelivery', 'lower rank, arriving later')
  applyTrackingEvents(order, shipment, [scan('2026-03-04T06:00:00Z', 'DeliveryFailed')], undefined)
  assert.equal(shipment.deliveryStatus, 'OutForDelivery', 'same rank but older than the scan that set it')
  applyTrackingEvents(order, shipment, [scan('2026-03-04T15:00:00Z', 'DeliveryFailed')], undefined)
  assert.equal(shipment.deliveryStatus, 'DeliveryFailed', 'same rank and newer')
  // A Delivered scan moves the status whatever its time: nothing ranks above it.
  applyTrackingEvents(order, shipment, [scan('2026-03-04T05:00:00Z', 'Delivered')], undefined)
  assert.equal(shipment.deliveryStatus, 'Delivered')
  assert.equal(shipment.deliveredAt, '2026-03-04T05:00:00.000Z')
  assert.deepEqual(
    shipment.trackingEvents?.map((event) => event.time.slice(0, 16)),
    ['2026-03-03T08:00', '2026-03-04T05:00', '2026-03-04T06:00', '2026-03-04T07:00', '2026-03-04T15:00'],
  )
})

test("one report's scans are applied oldest first, whatever order they come in", () => {
  const order = completeOrder()
  const shipment = only(order)
  applyTrackingEvents(
    order,
    shipment,
    [
      scan('2026-03-05T07:00:00Z', 'OutForDelivery'),
      scan('2026-03-03T08:00:00Z', 'InTransit'),
      scan('2026-03-04T14:00:00Z', 'DeliveryFailed'),
    ],
    undefined,
  )
  assert.equal(shipment.deliveryStatus, 'OutForDelivery')
})

test("a second shipment's tracking never touches the first's", () => {
  const order = completeOrder(['shp_1', 'shp_2'])
  const first = only(order, 'shp_1')
  const second = only(order, 'shp_2')
  applyTrackingEvents(order, first, [scan('2026-03-03T08:00:00Z', 'InTransit')], undefined)
  const firstBefore = structuredClone(first)
  applyTrackingEvents(
    order,
    second,
    [scan('2026-03-03T09:00:00Z', 'InTransit'), scan('2026-03-04T09:00:00Z', 'Delivered')],
    undefined,
  )
  assert.deepEqual(first, firstBefore)
  assert.equal(second.deliveryStatus, 'Delivered')
  assert.equal(order.deliveredAt, undefined, 'shp_1 is still on its way')
})

test('a repeat, in another ISO 8601 spelling of the same instant, changes nothing; so do repeats within a report', () => {
  const order = completeOrder()
  const shipment = only(order)
  assert.equal(
    applyTrackingEvents(
      order,
      shipment,
      [scan('2026-03-03T08:12:00Z', 'InTransit'), scan('2026-03-03T08:12:00.000Z', 'InTransit', 'again')],
      undefined,
    ),
    true,
  )
  assert.equal(shipment.trackingEvents?.length, 1, 'the same scan twice in one report is kept once')
  const before = structuredClone(order)
  for (const spelling of ['2026-03-03T09:12:00+01:00', '2026-03-03t08:12:00z', '2026-03-03T03:12:00.000-05:00']) {
    assert.equal(applyTrackingEvents(order, shipment, [scan(spelling, 'InTransit', 'other words')], undefined), false)
  }
  assert.deepEqual(order, before)
  // The same instant with another status is another scan.
  assert.equal(applyTrackingEvents(order, shipment, [scan('2026-03-03T08:12:00Z', 'OutForDelivery')], undefined), true)
  assert.equal(shipment.trackingEvents?.length, 2)
})

test('a scan is kept in canonical form: a UTC time, location only when given, keys in the wire order', () => {
  const order = completeOrder()
  const shipment = only(order)
  applyTrackingEvents(
    order,
    shipment,
    [
      { time: '2026-03-03T09:00:00+01:00', status: 'InTransit', description: 'Accepted', location: 'Leipzig hub' },
      { time: '2026-03-04T10:00:00Z', status: 'Delivered', description: 'Delivered', location: '' },
    ],
    promiseTo('2026-03-06'),
  )
  assert.deepEqual(shipment.trackingEvents, [
    { time: '2026-03-03T08:00:00.000Z', status: 'InTransit', description: 'Accepted', location: 'Leipzig hub' },
    { time: '2026-03-04T10:00:00.000Z', status: 'Delivered', description: 'Delivered' },
  ])
  // The stored document is served as it is: the new keys come in the order the Shipment schema lists them.
  assert.deepEqual(Object.keys(shipment).slice(-4), [
    'deliveryStatus',
    'trackingEvents',
    'deliveredAt',
    'deliveredLate',
  ])
  assert.deepEqual(Object.keys(order).slice(-2), ['deliveredAt', 'deliveredLate'])
})

test('deliveredLate: against the promise made at allocation, not the estimate moved at dispatch', () => {
  const onTime = completeOrder()
  const shipment = only(onTime)
  // Dispatched late, the shipment's own estimate moved on; the promise did not.
  shipment.estimatedDelivery = { from: '2026-03-08', to: '2026-03-10' }
  applyTrackingEvents(onTime, shipment, [scan('2026-03-06T23:59:59Z', 'Delivered')], promiseTo('2026-03-06'))
  assert.equal(shipment.deliveredLate, false, 'on the promised date (UTC) is on time')
  assert.equal(onTime.deliveredLate, false)

  const late = completeOrder()
  const lateShipment = only(late)
  lateShipment.estimatedDelivery = { from: '2026-03-08', to: '2026-03-10' }
  applyTrackingEvents(late, lateShipment, [scan('2026-03-07T00:30:00Z', 'Delivered')], promiseTo('2026-03-06'))
  assert.equal(lateShipment.deliveredLate, true, 'a day after the promise')
  assert.equal(late.deliveredLate, true)

  // Without a promise, the shipment's own estimate; without either, never late.
  const estimated = completeOrder()
  only(estimated).estimatedDelivery = { from: '2026-03-04', to: '2026-03-05' }
  applyTrackingEvents(estimated, only(estimated), [scan('2026-03-06T09:00:00Z', 'Delivered')], undefined)
  assert.equal(only(estimated).deliveredLate, true)
  const unknown = completeOrder()
  applyTrackingEvents(unknown, only(unknown), [scan('2027-01-01T09:00:00Z', 'Delivered')], undefined)
  assert.equal(only(unknown).deliveredLate, false)
})

test("deliveredLate: against the order's deliverBy, even within the promise", () => {
  const order = completeOrder(['shp_1'], '2026-03-05')
  applyTrackingEvents(order, only(order), [scan('2026-03-06T09:00:00Z', 'Delivered')], promiseTo('2026-03-09'))
  assert.equal(only(order).deliveredLate, true)
  const inTime = completeOrder(['shp_1'], '2026-03-05')
  applyTrackingEvents(inTime, only(inTime), [scan('2026-03-05T18:00:00Z', 'Delivered')], promiseTo('2026-03-09'))
  assert.equal(only(inTime).deliveredLate, false)
})

test('the order is delivered when every live shipment is, and only once it is Complete', () => {
  const order = completeOrder(['shp_1', 'shp_2', 'shp_3'])
  const cancelled = only(order, 'shp_3')
  cancelled.status = 'Cancelled'
  cancelled.cancelled = true
  applyTrackingEvents(order, only(order, 'shp_1'), [scan('2026-03-05T10:00:00Z', 'Delivered')], promiseTo('2026-03-04'))
  assert.equal(order.deliveredAt, undefined)
  applyTrackingEvents(order, only(order, 'shp_2'), [scan('2026-03-04T10:00:00Z', 'Delivered')], promiseTo('2026-03-06'))
  assert.equal(order.deliveredAt, '2026-03-05T10:00:00.000Z', 'the last delivery, not the last report')
  assert.equal(order.deliveredLate, true, 'shp_1 was late')

  // Still InProgress (something is left to ship): no order delivery, however delivered its shipments are.
  const inProgress = completeOrder()
  inProgress.status.stage = 'InProgress'
  applyTrackingEvents(inProgress, only(inProgress), [scan('2026-03-04T10:00:00Z', 'Delivered')], undefined)
  assert.equal(only(inProgress).deliveredAt, '2026-03-04T10:00:00.000Z')
  assert.equal(inProgress.deliveredAt, undefined)
  assert.equal(inProgress.deliveredLate, undefined)
})

test('a tracking report is refused for a shipment not shipped, rejected, cancelled, or one it would overfill', () => {
  const order = completeOrder()
  const shipment = only(order)
  const events = [scan('2026-03-03T08:00:00Z', 'InTransit')]
  for (const state of ['submitted', 'acknowledged', 'inProduction'] as ShipmentState[]) {
    assert.deepEqual(trackingRefusal(state, shipment, events), { reason: 'notShipped', state })
  }
  assert.deepEqual(trackingRefusal('rejected', undefined, events), { reason: 'notShipped', state: 'rejected' })
  assert.deepEqual(trackingRefusal('cancelled', shipment, events), { reason: 'cancelled' })
  assert.deepEqual(trackingRefusal('shipped', { ...shipment, cancelled: true }, events), { reason: 'cancelled' })
  assert.equal(trackingRefusal('shipped', shipment, events), undefined)

  shipment.trackingEvents = Array.from({ length: MAX_TRACKING_EVENTS_PER_SHIPMENT - 1 }, (_, index) => ({
    time: new Date(Date.parse('2026-03-03T00:00:00Z') + index * 60_000).toISOString(),
    status: 'InTransit' as const,
    description: 'Hub scan',
  }))
  const two = [scan('2026-03-05T08:00:00Z', 'InTransit'), scan('2026-03-05T09:00:00Z', 'Delivered')]
  assert.deepEqual(trackingRefusal('shipped', shipment, two), {
    reason: 'tooManyScans',
    kept: MAX_TRACKING_EVENTS_PER_SHIPMENT - 1,
    fresh: 2,
  })
  assert.equal(trackingRefusal('shipped', shipment, two.slice(1)), undefined, 'exactly the limit is fine')
  const repeats = [...(shipment.trackingEvents ?? []), ...two.slice(1)]
  assert.equal(trackingRefusal('shipped', shipment, repeats), undefined, 'repeats do not count')
})

test('recordLabReport: a tracking report on a shipment not shipped changes nothing and says why', () => {
  const order = completeOrder()
  order.status.stage = 'InProgress'
  const shipment = only(order)
  shipment.status = 'Processing'
  const pipeline: PipelineState = emptyPipeline()
  pipeline.shipments.shp_1 = { labCode: 'uk6', state: 'inProduction', printFiles: {}, formats: {} }
  const before = structuredClone(order)
  const report = { kind: 'tracking' as const, events: [scan('2026-03-03T08:00:00Z', 'InTransit')] }
  assert.deepEqual(recordLabReport(order, pipeline, 'shp_1', report, now), {
    changed: false,
    jobs: [],
    refusal: { reason: 'notShipped', state: 'inProduction' },
  })
  assert.deepEqual(order, before)

  pipeline.shipments.shp_1.state = 'shipped'
  shipment.status = 'Shipped'
  order.status.stage = 'Complete'
  const later = new Date('2026-03-03T09:00:00.000Z')
  assert.deepEqual(recordLabReport(order, pipeline, 'shp_1', report, later), { changed: true, jobs: [] })
  assert.equal(shipment.deliveryStatus, 'InTransit')
  assert.equal(order.lastUpdated, later.toISOString())
  assert.deepEqual(recordLabReport(order, pipeline, 'shp_1', report, later), { changed: false, jobs: [] })
})

// ---- Properties

const statusArbitrary = fc.constantFrom(...DELIVERY_STATUSES)
/** Scans within a few days, on whole minutes so that equal instants (ties) come up often. */
const scanArbitrary = fc.record({
  time: fc.integer({ min: 0, max: 4 * 24 * 60 }).map((minute) => new Date(Date.UTC(2026, 2, 3) + minute * 60_000)),
  status: statusArbitrary,
  spelling: fc.constantFrom('utc', 'offset'),
})
const scansArbitrary = fc.array(scanArbitrary, { minLength: 1, maxLength: 12 }).map((scans) =>
  scans.map(({ time, status, spelling }) => ({
    time:
      spelling === 'utc'
        ? time.toISOString()
        : `${new Date(time.getTime() + 3_600_000).toISOString().slice(0, 19)}+01:00`,
    status,
    description: `${status} scan`,
  })),
)

test('property: any permutation of the same scans, applied at once, gives the same status, scans and delivery', () => {
  fc.assert(
    fc.property(
      scansArbitrary.chain((scans) =>
        fc.tuple(fc.constant(scans), fc.shuffledSubarray(scans, { minLength: scans.length })),
      ),
      ([scans, shuffled]) => {
        const results = [scans, shuffled].map((events) => {
          const order = completeOrder()
          applyTrackingEvents(order, only(order), events, promiseTo('2026-03-05'))
          return order
        })
        assert.deepEqual(results[0], results[1])
      },
    ),
  )
})

test('property: reported in any number of reports, the status never moves back and a final status stays', () => {
  fc.assert(
    fc.property(fc.array(scansArbitrary, { minLength: 1, maxLength: 5 }), (reports) => {
      const order = completeOrder()
      const shipment = only(order)
      let rank = 0
      let final: DeliveryStatus | undefined
      for (const report of reports) {
        applyTrackingEvents(order, shipment, report, undefined)
        const status = shipment.deliveryStatus as DeliveryStatus
        assert.ok(DELIVERY_STATUS_RANK[status] >= rank, `${status} after rank ${rank}`)
        if (final) assert.equal(status, final)
        rank = DELIVERY_STATUS_RANK[status]
        if (rank === 3) final = status
      }
      const times = shipment.trackingEvents?.map((event) => event.time) ?? []
      assert.deepEqual(times, [...times].sort(), 'kept oldest first')
      const keys = shipment.trackingEvents?.map((event) => `${event.time} ${event.status}`) ?? []
      assert.equal(new Set(keys).size, keys.length, 'each scan once')
      assert.equal(shipment.deliveredAt !== undefined, order.deliveredAt !== undefined)
      if (shipment.deliveredAt) assert.equal(shipment.deliveryStatus, 'Delivered')
    }),
  )
})
