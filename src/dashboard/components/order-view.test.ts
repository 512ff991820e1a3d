// The order page's timeline: by when things happened, not when printroute heard of them; stable for equal times.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildNewOrderDocument, type OrderDocument, type Shipment } from '../../domain/order.ts'
import { html } from '../html.ts'
import { inTimeOrder, type OrderEvent, orderTimeline } from './order-view.ts'

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
