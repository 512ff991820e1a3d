import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { buildNewOrderDocument, type OrderDocument, type Shipment } from './order.ts'
import {
  buildCloudEvent,
  callbackOrder,
  callbackUrlAccepts,
  eventType,
  isPrintApiEvent,
  type OrderEventKind,
  orderEventsOf,
  parseCallbackEventSet,
} from './order-events.ts'

tier('pure')

function newOrder(): OrderDocument {
  return buildNewOrderDocument(
    {
      merchantReference: null,
      shippingMethod: 'Standard',
      idempotencyKey: null,
      callbackUrl: null,
      recipient: {
        name: 'Ada',
        email: null,
        phoneNumber: '+44 1',
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
      items: [
        {
          merchantReference: null,
          sku: 'SKU',
          copies: 1,
          sizing: 'fillPrintArea',
          recipientCost: null,
          attributes: {},
          assets: [{ printArea: 'default', url: 'https://example.com/a.jpg', md5Hash: null, pageCount: null }],
        },
      ],
    },
    { order: 'ord_1', items: ['ori_1'], assets: ['ast_1'] },
    new Date('2026-03-01T09:00:00Z'),
  )
}

function shipment(id: string, status: 'Processing' | 'Shipped'): Shipment {
  return {
    id,
    dispatchDate: null,
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    fulfillmentLocation: { countryCode: 'GB', labCode: 'uk1' },
    tracking: null,
    items: [{ itemId: 'ori_1' }],
    status,
    cancelled: false,
  }
}

const types = (events: OrderEventKind[]) => events.map((event) => eventType('acme', event))

test('a change that touches nothing callbacks report causes no event', () => {
  const before = newOrder()
  const after = structuredClone(before)
  after.status.details.downloadAssets = 'InProgress'
  after.metadata = { changed: true }
  after.lastUpdated = '2026-03-01T10:00:00.000Z'
  assert.deepEqual(orderEventsOf({ before, after, pauseWindowEnded: false }), [])
})

test('the end of the pause window is a stage change to InProgress (full order), plain start is not', () => {
  const before = newOrder()
  const after = structuredClone(before)
  after.status.details.downloadAssets = 'InProgress'
  assert.deepEqual(types(orderEventsOf({ before, after, pauseWindowEnded: true })), [
    'com.acme.order.status.stage.changed#InProgress',
  ])
})

test('downloads complete, shipments shipped one by one, then shipping complete and the stage', () => {
  const start = newOrder()
  const downloaded = structuredClone(start)
  downloaded.status.details.downloadAssets = 'Complete'
  downloaded.status.details.allocateProductionLocation = 'InProgress'
  assert.deepEqual(types(orderEventsOf({ before: start, after: downloaded, pauseWindowEnded: false })), [
    'com.acme.order.status.details.downloadAssets#Complete',
  ])

  const allocated = structuredClone(downloaded)
  allocated.shipments = [shipment('shp_1', 'Processing'), shipment('shp_2', 'Processing')]
  const firstShipped = structuredClone(allocated)
  ;(firstShipped.shipments[0] as { status: string }).status = 'Shipped'
  firstShipped.status.details.shipping = 'InProgress'
  assert.deepEqual(
    orderEventsOf({ before: allocated, after: firstShipped, pauseWindowEnded: false }),
    [{ kind: 'shipmentShipped', shipmentId: 'shp_1' }],
    'only the shipment that shipped now',
  )

  const complete = structuredClone(firstShipped)
  ;(complete.shipments[1] as { status: string }).status = 'Shipped'
  complete.status.details.shipping = 'Complete'
  complete.status.stage = 'Complete'
  assert.deepEqual(types(orderEventsOf({ before: firstShipped, after: complete, pauseWindowEnded: false })), [
    'com.acme.order.shipments.shipment#Shipped',
    'com.acme.order.status.details.shipping#Complete',
    'com.acme.order.status.stage.changed#Complete',
  ])
})

test('after shipping, each delivery status with a callback is one event; the whole order delivered, one more', () => {
  const shipped = newOrder()
  shipped.shipments = [shipment('shp_1', 'Shipped'), shipment('shp_2', 'Shipped')]
  shipped.status.stage = 'Complete'
  const step = (before: OrderDocument, change: (order: OrderDocument) => void) => {
    const after = structuredClone(before)
    change(after)
    return { after, events: orderEventsOf({ before, after, pauseWindowEnded: false }) }
  }
  const onOrder = (order: OrderDocument, index: number) => order.shipments[index] as Shipment

  const inTransit = step(shipped, (order) => {
    onOrder(order, 1).deliveryStatus = 'InTransit'
    order.lastUpdated = '2026-03-03T08:00:00.000Z'
  })
  assert.deepEqual(inTransit.events, [{ kind: 'shipmentDelivery', shipmentId: 'shp_2', status: 'InTransit' }])
  assert.deepEqual(types(inTransit.events), ['com.acme.order.shipments.shipment#InTransit'])

  const rescanned = step(inTransit.after, (order) => {
    onOrder(order, 1).trackingEvents = [{ time: '2026-03-03T09:00:00.000Z', status: 'InTransit', description: 'Hub' }]
  })
  assert.deepEqual(rescanned.events, [], 'a new scan that leaves the status as it was')
  const outForDelivery = step(inTransit.after, (order) => {
    onOrder(order, 1).deliveryStatus = 'OutForDelivery'
  })
  assert.deepEqual(outForDelivery.events, [], 'OutForDelivery shows on the order only')
  const failed = step(outForDelivery.after, (order) => {
    onOrder(order, 1).deliveryStatus = 'DeliveryFailed'
  })
  assert.deepEqual(types(failed.events), ['com.acme.order.shipments.shipment#DeliveryFailed'])
  const returned = step(failed.after, (order) => {
    onOrder(order, 0).deliveryStatus = 'Returned'
  })
  assert.deepEqual(types(returned.events), ['com.acme.order.shipments.shipment#Returned'])

  const first = step(failed.after, (order) => {
    onOrder(order, 0).deliveryStatus = 'Delivered'
    onOrder(order, 0).deliveredAt = '2026-03-04T10:00:00.000Z'
  })
  assert.deepEqual(types(first.events), ['com.acme.order.shipments.shipment#Delivered'])
  const last = step(first.after, (order) => {
    onOrder(order, 1).deliveryStatus = 'Delivered'
    onOrder(order, 1).deliveredAt = '2026-03-05T10:00:00.000Z'
    order.deliveredAt = '2026-03-05T10:00:00.000Z'
    order.deliveredLate = false
  })
  assert.deepEqual(last.events, [
    { kind: 'shipmentDelivery', shipmentId: 'shp_2', status: 'Delivered' },
    { kind: 'orderDelivered' },
  ])
  assert.deepEqual(types(last.events), [
    'com.acme.order.shipments.shipment#Delivered',
    'com.acme.order.status.delivery#Delivered',
  ])
  assert.deepEqual(
    orderEventsOf({ before: last.after, after: structuredClone(last.after), pauseWindowEnded: false }),
    [],
    'delivered once',
  )
})

test('one change that ships, completes and delivers: shipping first, then each delivery in shipment order', () => {
  const before = newOrder()
  before.shipments = [shipment('shp_1', 'Shipped'), shipment('shp_2', 'Processing')]
  ;(before.shipments[0] as Shipment).deliveryStatus = 'InTransit'
  before.status.details.shipping = 'InProgress'
  const after = structuredClone(before)
  const [first, second] = after.shipments as [Shipment, Shipment]
  second.status = 'Shipped'
  second.deliveryStatus = 'Delivered'
  first.deliveryStatus = 'Delivered'
  after.status.details.shipping = 'Complete'
  after.status.stage = 'Complete'
  after.deliveredAt = '2026-03-05T10:00:00.000Z'
  assert.deepEqual(orderEventsOf({ before, after, pauseWindowEnded: false }), [
    { kind: 'shipmentShipped', shipmentId: 'shp_2' },
    { kind: 'shippingComplete' },
    { kind: 'stageChanged', stage: 'Complete' },
    { kind: 'shipmentDelivery', shipmentId: 'shp_1', status: 'Delivered' },
    { kind: 'shipmentDelivery', shipmentId: 'shp_2', status: 'Delivered' },
    { kind: 'orderDelivered' },
  ])
})

test('a cancelled order is a stage change; its payment issue going away is not a payment', () => {
  const before = newOrder()
  before.status.issues.push({
    objectId: 'ord_1',
    errorCode: 'RequiresPaymentAuthorisation',
    description: 'pay',
    authorisationDetails: null,
  })
  const cancelled = structuredClone(before)
  cancelled.status.issues = []
  cancelled.status.stage = 'Cancelled'
  assert.deepEqual(types(orderEventsOf({ before, after: cancelled, pauseWindowEnded: false })), [
    'com.acme.order.status.stage.changed#Cancelled',
  ])
  const paid = structuredClone(before)
  paid.status.issues = []
  assert.deepEqual(types(orderEventsOf({ before, after: paid, pauseWindowEnded: false })), [
    'com.acme.order.status.issues.paymentAuthorisation#Authorised',
  ])
})

test('the CloudEvent: attributes in order, the order with mobilePhoneNumber, subject the order id', () => {
  const order = newOrder()
  const event = buildCloudEvent({
    id: 'evt_7',
    type: 'com.printroute.order.status.stage.changed#Cancelled',
    source: 'http://127.0.0.1:8081/v4.0/orders/ord_1',
    time: new Date('2026-03-01T10:00:00Z'),
    order,
    traceParent: '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01',
    sequence: 3,
  })
  assert.deepEqual(Object.keys(event), [
    'specversion',
    'type',
    'source',
    'id',
    'time',
    'datacontenttype',
    'data',
    'subject',
    'sequence',
  ])
  assert.equal(event.specversion, '1.0')
  assert.equal(event.subject, 'ord_1')
  assert.equal(event.sequence, '0000000000000000003', 'the sequence extension: zero-padded digits')
  assert.equal(event.time, '2026-03-01T10:00:00.000Z')
  const recipient = event.data.order.recipient as Record<string, unknown>
  assert.deepEqual(Object.keys(recipient), ['name', 'email', 'phoneNumber', 'mobilePhoneNumber', 'address'])
  assert.equal(recipient.mobilePhoneNumber, '+44 1')
  assert.deepEqual(Object.keys(callbackOrder(order)), Object.keys(order), 'the order keeps its key order')
  assert.equal(order.recipient.phoneNumber, '+44 1')
  assert.equal('mobilePhoneNumber' in order.recipient, false, 'the stored order is not changed')
})

test("callbackEvents prodigi keeps the Print API's types (stage, shipment made, downloads, shipping) and no other", () => {
  const every: OrderEventKind[] = [
    { kind: 'stageChanged', stage: 'InProgress' },
    { kind: 'stageChanged', stage: 'Cancelled' },
    { kind: 'shipmentShipped', shipmentId: 'shp_1' },
    { kind: 'downloadAssetsComplete' },
    { kind: 'shippingComplete' },
    { kind: 'parcelShipped', shipmentId: 'shp_1', parcel: 0 },
    { kind: 'shipmentDelivery', shipmentId: 'shp_1', status: 'InTransit' },
    { kind: 'orderDelivered' },
    { kind: 'paymentAuthorised' },
  ]
  const kept = every.filter((event) => callbackUrlAccepts('prodigi', event)).map((event) => eventType('prodigi', event))
  assert.deepEqual(kept, [
    'com.prodigi.order.status.stage.changed#InProgress',
    'com.prodigi.order.status.stage.changed#Cancelled',
    'com.prodigi.order.shipments.shipment#Shipped',
    'com.prodigi.order.status.details.downloadAssets#Complete',
    'com.prodigi.order.status.details.shipping#Complete',
  ])
  assert.equal(every.filter(isPrintApiEvent).length, 5)
  assert.equal(
    every.every((event) => callbackUrlAccepts('all', event)),
    true,
  )
  assert.equal(parseCallbackEventSet('prodigi'), 'prodigi')
  assert.equal(parseCallbackEventSet(null), 'all')
  assert.equal(parseCallbackEventSet('everything'), 'all')
})
