// What the simulated carrier reports after a Sandbox shipment leaves its lab: the scans of each scenario, and when
// the scenario lateDelivery delivers.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import type { DeliveryEstimate } from './delivery-promise.ts'
import { applyTrackingEvents } from './delivery-tracking.ts'
import type { OrderDocument, Shipment } from './order.ts'
import {
  carrierPathEnded,
  lateDeliveryTime,
  SANDBOX_SCENARIOS,
  simulatedCarrierPath,
  simulatedCarrierScan,
} from './sandbox-scenarios.ts'

tier('pure')

const now = new Date('2026-03-04T15:30:00.000Z') // a Wednesday

function shipment(overrides: Partial<Shipment> = {}): Shipment {
  return {
    id: 'shp_7',
    dispatchDate: '2026-03-04T09:00:00.000Z',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    fulfillmentLocation: { countryCode: 'NL', labCode: 'nl1' },
    tracking: { number: 'SIM0000000007', url: 'https://tracking.example.com/track?number=SIM0000000007' },
    items: [{ itemId: 'ori_1' }],
    status: 'Shipped',
    cancelled: false,
    ...overrides,
  }
}

function order(overrides: Partial<OrderDocument> = {}): OrderDocument {
  return {
    recipient: {
      name: 'Ada Lovelace',
      email: null,
      phoneNumber: null,
      address: {
        line1: '14 Test Street',
        line2: null,
        postalOrZipCode: 'EC1A 1BB',
        countryCode: 'GB',
        townOrCity: 'London',
        stateOrCounty: null,
      },
    },
    ...overrides,
  } as OrderDocument
}

function promise(to: string): DeliveryEstimate {
  return { estimatedDispatchDate: '2026-03-04', estimatedDelivery: { from: '2026-03-05', to } }
}

test('each scenario has its carrier path; the path ends Delivered except for returned', () => {
  for (const scenario of [null, ...SANDBOX_SCENARIOS]) {
    const path = simulatedCarrierPath(scenario)
    assert.equal(path[0], 'InTransit', String(scenario))
    assert.equal(path.at(-1), scenario === 'returned' ? 'Returned' : 'Delivered', String(scenario))
    assert.equal(carrierPathEnded(scenario, path.at(-1)), true)
    for (const status of path.slice(0, -1)) assert.equal(carrierPathEnded(scenario, status), false)
  }
  assert.equal(carrierPathEnded(null, undefined), false, 'no scan yet')
  assert.deepEqual(simulatedCarrierPath('deliveryFailed'), [
    'InTransit',
    'DeliveryFailed',
    'OutForDelivery',
    'Delivered',
  ])
})

test('a scan is at the step time, accepted in the lab country, then at the recipient town', () => {
  assert.deepEqual(simulatedCarrierScan(null, order(), shipment(), undefined, 'InTransit', now), {
    time: '2026-03-04T15:30:00.000Z',
    status: 'InTransit',
    description: 'Accepted by the carrier',
    location: 'Sorting centre, NL',
  })
  assert.deepEqual(simulatedCarrierScan('deliveryFailed', order(), shipment(), undefined, 'DeliveryFailed', now), {
    time: '2026-03-04T15:30:00.000Z',
    status: 'DeliveryFailed',
    description: 'Recipient not available',
    location: 'London, GB',
  })
  const second = simulatedCarrierScan('deliveryFailed', order(), shipment(), undefined, 'OutForDelivery', now)
  assert.equal(second.description, 'Out for delivery (second attempt)')
  const delivered = simulatedCarrierScan(null, order(), shipment(), promise('2026-03-06'), 'Delivered', now)
  assert.equal(delivered.time, now.toISOString(), 'only lateDelivery moves the delivery time')
  assert.equal(delivered.location, 'London, GB')
  const returned = simulatedCarrierScan('returned', order(), shipment(), undefined, 'Returned', now)
  assert.deepEqual([returned.description, returned.location], ['Returned to the sender', 'Sorting centre, NL'])
})

test('lateDelivery delivers one carrier working day after the promised date, at noon UTC', () => {
  // Friday 2026-03-06 promised: the next day a carrier delivers is Monday 2026-03-09.
  const late = simulatedCarrierScan('lateDelivery', order(), shipment(), promise('2026-03-06'), 'Delivered', now)
  assert.equal(late.time, '2026-03-09T12:00:00.000Z')
  assert.equal(
    lateDeliveryTime(order(), shipment(), promise('2026-03-10'), now).toISOString(),
    '2026-03-11T12:00:00.000Z',
  )
  // The promise made at allocation wins over the shipment's estimate (which moves with the dispatch date).
  const estimated = shipment({
    estimatedDispatchDate: '2026-03-04',
    estimatedDelivery: { from: '2026-03-05', to: '2026-03-12' },
  })
  assert.equal(
    lateDeliveryTime(order(), estimated, promise('2026-03-10'), now).toISOString(),
    '2026-03-11T12:00:00.000Z',
  )
  assert.equal(lateDeliveryTime(order(), estimated, undefined, now).toISOString(), '2026-03-13T12:00:00.000Z')
  // No estimate: the order's deliverBy; nothing at all: 30 days after dispatch.
  const byDate = order({ deliverBy: '2026-03-20' })
  assert.equal(lateDeliveryTime(byDate, shipment(), undefined, now).toISOString(), '2026-03-23T12:00:00.000Z')
  assert.equal(lateDeliveryTime(order(), shipment(), undefined, now).toISOString(), '2026-04-03T12:00:00.000Z')
  // A promise already past: delivered now, which is late all the same.
  assert.equal(lateDeliveryTime(order(), shipment(), promise('2026-02-20'), now).toISOString(), now.toISOString())
})

test("each scan of the path moves the shipment's status, also when every step runs in the same millisecond", () => {
  const document = order({ status: { stage: 'Complete' } as OrderDocument['status'], shipments: [] })
  const parcel = shipment()
  document.shipments.push(parcel)
  for (const status of simulatedCarrierPath('deliveryFailed')) {
    const scan = simulatedCarrierScan('deliveryFailed', document, parcel, undefined, status, now)
    assert.equal(applyTrackingEvents(document, parcel, [scan], undefined), true, status)
    assert.equal(parcel.deliveryStatus, status, 'the step moved the status')
  }
  assert.deepEqual(
    parcel.trackingEvents?.map((scan) => scan.time),
    ['2026-03-04T15:30:00.000Z', '2026-03-04T15:30:00.001Z', '2026-03-04T15:30:00.002Z', '2026-03-04T15:30:00.003Z'],
    'a millisecond apart, in the order of the steps',
  )
  assert.equal(document.deliveredAt, '2026-03-04T15:30:00.003Z')
})
