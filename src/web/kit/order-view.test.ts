// The order page's timeline: by when things happened, not when printroute heard of them; stable for equal times.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import { buildNewOrderDocument, type OrderDocument, type Shipment } from '../../domain/order.ts'
import { html } from './html.ts'
import { deliveryFacts, inTimeOrder, type OrderEvent, orderTimeline, type Routing } from './order-view.ts'

tier('pure')

const at = (time: string, label: string) => ({ time, label, body: html`${label}` })

test('inTimeOrder sorts oldest first and keeps the given order for equal times', () => {
  const sorted = inTimeOrder([
    at('2026-03-05T10:00:00.000Z', 'delivered'),
    at('2026-03-02T09:00:00.000Z', 'dispatched'),
    at('2026-03-05T10:00:00.000Z', 'every shipment delivered'),
    at('2026-03-01T08:00:00.000Z', 'created'),
    // Another spelling of the same instant as the first two: equal, so it stays after them.
    at('2026-03-05T11:00:00+01:00', 'same instant, other zone'),
  ])
  assert.deepEqual(
    sorted.map((entry) => entry.label),
    ['created', 'dispatched', 'delivered', 'every shipment delivered', 'same instant, other zone'],
  )
  // Already in order: unchanged; an unreadable time goes last rather than breaking the sort.
  assert.deepEqual(
    inTimeOrder([at('not a time', 'unreadable'), at('2026-03-01T08:00:00Z', 'a'), at('2026-03-01T08:00:00Z', 'b')]).map(
      (entry) => entry.label,
    ),
    ['a', 'b', 'unreadable'],
  )
})

function order(): OrderDocument {
  return buildNewOrderDocument(
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
      deliverBy: null,
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
    new Date('2026-03-01T08:00:00.000Z'),
  )
}

test('the timeline puts a dispatch before the delivery it led to, though the delivery was recorded first', () => {
  const shipment: Shipment = {
    id: 'shp_1',
    dispatchDate: '2026-03-02T09:00:00.000Z',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    fulfillmentLocation: { countryCode: 'GB', labCode: 'uk6' },
    tracking: null,
    items: [{ itemId: 'ori_1' }],
    status: 'Shipped',
    cancelled: false,
    deliveryStatus: 'Delivered',
    trackingEvents: [
      { time: '2026-03-03T07:00:00.000Z', status: 'InTransit', description: 'Collected' },
      { time: '2026-03-04T12:00:00.000Z', status: 'Delivered', description: 'Left with a neighbour' },
    ],
    deliveredAt: '2026-03-04T12:00:00.000Z',
  }
  const before = order()
  const delivered = { ...order(), shipments: [shipment], deliveredAt: '2026-03-04T12:00:00.000Z' }
  delivered.lastUpdated = '2026-03-06T10:00:00.000Z'
  // The lab reported the scans on the 6th, days after they happened; the events were recorded then.
  const events: OrderEvent[] = [
    {
      id: 'evt_1',
      type: 'com.printroute.order.status.details.downloadAssets#Complete',
      time: '2026-03-01T08:00:05.000Z',
      data: { order: before },
    },
    {
      id: 'evt_2',
      type: 'com.printroute.order.shipments.shipment#Delivered',
      time: '2026-03-06T10:00:00.000Z',
      data: { order: delivered },
    },
    {
      id: 'evt_3',
      type: 'com.printroute.order.status.delivery#Delivered',
      time: '2026-03-06T10:00:00.000Z',
      data: { order: delivered },
    },
  ]
  const rendered = orderTimeline(delivered, events, []).text
  const headlines = [...rendered.matchAll(/<div class="timeline-body">(?:<[^>]+>)*([^<]*)/g)].map((match) => match[1])
  assert.deepEqual(headlines, [
    'Order created',
    'Images downloaded',
    'Shipment shp_1 dispatched',
    'A shipment was delivered',
    'Every shipment delivered',
    'Last update',
  ])
  // Each delivery line stands at its scan's time and says when it was recorded.
  assert.match(
    rendered,
    /datetime="2026-03-04T12:00:00.000Z">2026-03-04 12:00 UTC<\/time><\/div><div class="timeline-body"><strong>A shipment was delivered/,
  )
  assert.match(rendered, /recorded <time datetime="2026-03-06T10:00:00.000Z">/)
})

/** A routing whose first allocation chose one lab with the given estimate (the parts the promise reads). */
function routingWith(estimate: { dispatch: string; from: string; to: string } | null): Routing {
  const shipment = {
    labCode: 'uk6',
    labCountryCode: 'GB',
    itemIds: ['ori_1'],
    itemsCost: { amount: '1.00', currency: 'GBP' },
    shippingCost: { amount: '1.00', currency: 'GBP' },
    totalCost: { amount: '2.00', currency: 'GBP' },
    ...(estimate
      ? { estimatedDispatchDate: estimate.dispatch, estimatedDelivery: { from: estimate.from, to: estimate.to } }
      : {}),
  }
  return {
    currency: 'GBP',
    allocations: [
      {
        basis: 'Allocation',
        at: '2026-03-01T08:00:10.000Z',
        shippingMethod: 'Standard',
        items: [],
        chosenPlan: { shipments: [shipment], totalCost: shipment.totalCost },
        bestUnsplitPlan: null,
        splitSaving: null,
        unavailableItemIds: [],
      },
    ],
  } as unknown as Routing
}

/** The delivery facts as label: text pairs. */
function facts(rendered: string): string[] {
  return [...rendered.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map(
    ([, label, value]) => `${label}: ${(value ?? '').replace(/<[^>]+>/g, '')}`,
  )
}

test('the order page tells the promise made at allocation from the current estimate', () => {
  const promise = { dispatch: '2026-03-03', from: '2026-03-05', to: '2026-03-06' }
  const allocated = {
    ...order(),
    estimatedDispatchDate: '2026-03-03',
    estimatedDelivery: { from: '2026-03-05', to: '2026-03-06' },
  }
  assert.deepEqual(facts(deliveryFacts(allocated, routingWith(promise)).text), [
    'Promised delivery: Thu 5 Mar 2026 – Fri 6 Mar 2026 estimated when the labs were chosen, 2026-03-01 08:00 UTC; dispatch by Tue 3 Mar 2026',
    'Expected delivery: Thu 5 Mar 2026 – Fri 6 Mar 2026 as promised',
    'Expected dispatch: Tue 3 Mar 2026',
  ])

  // The lab sent it a day late: the current estimate moves, the promise stays.
  const shipment: Shipment = {
    id: 'shp_1',
    dispatchDate: '2026-03-04T15:00:00.000Z',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    fulfillmentLocation: { countryCode: 'GB', labCode: 'uk6' },
    tracking: null,
    items: [{ itemId: 'ori_1' }],
    status: 'Shipped',
    cancelled: false,
  }
  const late = {
    ...allocated,
    shipments: [shipment],
    estimatedDispatchDate: '2026-03-04',
    estimatedDelivery: { from: '2026-03-06', to: '2026-03-09' },
  }
  assert.deepEqual(facts(deliveryFacts(late, routingWith(promise)).text), [
    'Promised delivery: Thu 5 Mar 2026 – Fri 6 Mar 2026 estimated when the labs were chosen, 2026-03-01 08:00 UTC; dispatch by Tue 3 Mar 2026',
    'Expected delivery: Fri 6 Mar 2026 – Mon 9 Mar 2026 worked out again from the day the lab sent it',
    'Dispatched: Wed 4 Mar 2026',
  ])

  // Delivered: the promise and the delivery; no routing to read (or no estimate in it): only what the order says.
  const delivered = { ...late, deliveredAt: '2026-03-09T11:00:00.000Z', deliveredLate: true }
  assert.deepEqual(facts(deliveryFacts(delivered, routingWith(promise)).text), [
    'Promised delivery: Thu 5 Mar 2026 – Fri 6 Mar 2026 estimated when the labs were chosen, 2026-03-01 08:00 UTC; dispatch by Tue 3 Mar 2026',
    'Delivered: 2026-03-09 11:00 UTC Late',
  ])
  assert.deepEqual(facts(deliveryFacts(allocated, routingWith(null)).text), [
    'Expected delivery: Thu 5 Mar 2026 – Fri 6 Mar 2026 as the order stands now',
    'Expected dispatch: Tue 3 Mar 2026',
  ])
  assert.equal(deliveryFacts(order(), null).text, '', 'nothing before the order has an estimate')

  // A reallocation re-plans the items it moves: their promise is the new plan's, made then.
  const first = routingWith(promise)
  const [again] = routingWith({ dispatch: '2026-03-05', from: '2026-03-07', to: '2026-03-10' }).allocations
  const replanned = {
    ...first,
    allocations: [...first.allocations, { ...again, at: '2026-03-02T09:30:00.000Z' }],
  } as Routing
  assert.deepEqual(
    facts(deliveryFacts(allocated, replanned).text)[0],
    'Promised delivery: Sat 7 Mar 2026 – Tue 10 Mar 2026 estimated when the labs were chosen, 2026-03-02 09:30 UTC; dispatch by Thu 5 Mar 2026',
  )
})
