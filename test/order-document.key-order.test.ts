// Orders are stored as JSON text and served verbatim (no response serializer on the hot path), so the
// domain must build every object with its keys in the wire contract's order. This test holds the domain
// builder to the response schema: serialising through the schema must not change a single byte.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fastJson from 'fast-json-stringify'
import { applyTrackingEvents } from '../src/domain/delivery-tracking.ts'
import { confirmDraft, releaseHold } from '../src/domain/drafts.ts'
import { buildNewOrderDocument, type NewOrder, normaliseBranding, setAddressAdvisories } from '../src/domain/order.ts'
import { addCredit } from '../src/domain/order-credits.ts'
import { addShipment, applyAllocation } from '../src/domain/pipeline/allocate-order.ts'
import { refreshOrderEstimate, setShipmentEstimate } from '../src/domain/pipeline/delivery-estimates.ts'
import { recordDownloadSuccess } from '../src/domain/pipeline/download-file.ts'
import { recordLabReport } from '../src/domain/pipeline/lab-report.ts'
import { emptyPipeline } from '../src/domain/pipeline/pipeline-order.ts'
import { recordPrintFile } from '../src/domain/pipeline/render-print-file.ts'
import { startPipeline } from '../src/domain/pipeline/start-order.ts'
import { recordSubmitted } from '../src/domain/pipeline/submit-shipment.ts'
import { OrderSchema } from '../src/http/schemas/order.schema.ts'
import { tier } from './support/tiers.ts'

tier('pure')

const serializeThroughSchema = fastJson(OrderSchema as object)

const fullOrder: NewOrder = {
  merchantReference: 'MR-9',
  shippingMethod: 'Express',
  idempotencyKey: 'idem-1',
  callbackUrl: 'https://shop.test/callbacks',
  recipient: {
    name: 'Grace Hopper',
    email: 'grace@example.com',
    phoneNumber: '+1 555 0100',
    address: {
      line1: '1 Navy Way',
      line2: 'Suite 2',
      postalOrZipCode: '20001',
      countryCode: 'US',
      townOrCity: 'Washington',
      stateOrCounty: 'DC',
    },
  },
  branding: {
    packing_slip_color: { url: 'https://shop.test/slip.pdf' },
    flyer: { url: 'https://shop.test/flyer.pdf' },
  },
  packingSlip: { url: 'https://shop.test/packing.pdf' },
  metadata: { nested: { list: [1, 'two', { three: 3 }] }, flag: true },
  quoteId: 'quo_7',
  items: [
    {
      merchantReference: 'line-1',
      sku: 'GLOBAL-TEE-BC-3001',
      copies: 3,
      sizing: 'fitPrintArea',
      recipientCost: { amount: '25.00', currency: 'USD' },
      attributes: { color: 'black', size: 'm' },
      assets: [
        { printArea: 'front', url: 'https://shop.test/front.png', md5Hash: 'a'.repeat(32), pageCount: null },
        { printArea: 'back', url: 'https://shop.test/back.png', md5Hash: null, pageCount: null },
      ],
    },
    {
      merchantReference: null,
      sku: 'BOOK-FE-11_7-SQ-HARD-G',
      copies: 1,
      sizing: 'fillPrintArea',
      recipientCost: null,
      attributes: {},
      assets: [{ printArea: 'default', url: 'https://shop.test/book.pdf', md5Hash: null, pageCount: 40 }],
    },
  ],
}

test('a new order document is built in the wire key order, byte for byte', () => {
  const document = buildNewOrderDocument(
    fullOrder,
    { order: 'ord_7', items: ['ori_1', 'ori_2'], assets: ['ast_1', 'ast_2', 'ast_3'] },
    new Date('2026-03-01T09:00:00.000Z'),
  )
  assert.equal(JSON.stringify(document), serializeThroughSchema(document))
  const minimal = buildNewOrderDocument(
    { ...fullOrder, branding: null, packingSlip: null, metadata: null, callbackUrl: null, quoteId: null },
    { order: 'ord_8', items: ['ori_3', 'ori_4'], assets: ['ast_4', 'ast_5', 'ast_6'] },
    new Date('2026-03-01T09:00:00.000Z'),
  )
  assert.equal(JSON.stringify(minimal), serializeThroughSchema(minimal))
})

test('a shipped order keeps the wire key order when its carrier scans and its delivery are added', () => {
  const now = new Date('2026-03-01T09:00:00.000Z')
  const order = buildNewOrderDocument(
    { ...fullOrder, items: [fullOrder.items[0] as NewOrder['items'][number]] },
    { order: 'ord_9', items: ['ori_5'], assets: ['ast_7', 'ast_8'] },
    now,
  )
  const pipeline = emptyPipeline()
  startPipeline(order, pipeline, now)
  const stored = { blobKey: 'k', contentType: 'image/png', bytes: 1, md5: 'x', width: null, height: null }
  for (const asset of ['ast_7', 'ast_8']) recordDownloadSuccess(order, pipeline, asset, stored, null, now)
  const shipment = {
    id: 'shp_3',
    labCode: 'us1',
    labCountryCode: 'US',
    carrier: { name: 'USPS', service: 'Priority' },
    itemIds: ['ori_5'],
    formats: { ori_5: 'png' },
  }
  applyAllocation(order, pipeline, 1, [shipment], [], now)
  for (const asset of ['ast_7', 'ast_8']) {
    recordPrintFile(order, pipeline, 'shp_3', asset, { blobKey: 'p', width: 1, height: 1, format: 'png' }, now)
  }
  recordSubmitted(order, pipeline, 'shp_3', now)
  const shipped = { kind: 'shipped' as const, carrier: null, tracking: null, dispatchDate: now }
  assert.equal(recordLabReport(order, pipeline, 'shp_3', shipped, now).changed, true)
  for (const [time, status] of [
    ['2026-03-02T10:00:00Z', 'InTransit'],
    ['2026-03-03T10:00:00Z', 'Delivered'],
  ] as const) {
    const report = { kind: 'tracking' as const, events: [{ time, status, description: status, location: 'DC' }] }
    assert.equal(recordLabReport(order, pipeline, 'shp_3', report, now).changed, true)
  }
  assert.equal(order.deliveredAt, '2026-03-03T10:00:00.000Z')
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
})

test("a reprint's reprintOf and claimId stay the shipment's last keys while it ships and is tracked", () => {
  const now = new Date('2026-03-01T09:00:00.000Z')
  const order = buildNewOrderDocument(
    { ...fullOrder, items: [fullOrder.items[0] as NewOrder['items'][number]] },
    { order: 'ord_9', items: ['ori_5'], assets: ['ast_7', 'ast_8'] },
    now,
  )
  const pipeline = emptyPipeline()
  startPipeline(order, pipeline, now)
  const stored = { blobKey: 'k', contentType: 'image/png', bytes: 1, md5: 'x', width: null, height: null }
  for (const asset of ['ast_7', 'ast_8']) recordDownloadSuccess(order, pipeline, asset, stored, null, now)
  pipeline.phase = 'rendering'
  const planned = {
    labCode: 'us1',
    labCountryCode: 'US',
    carrier: { name: 'USPS', service: 'Priority' },
    itemIds: ['ori_5'],
    formats: { ori_5: 'png' },
    estimate: {
      estimatedDispatchDate: '2026-03-02',
      estimatedDelivery: { from: '2026-03-04', to: '2026-03-06' },
    },
  }
  addShipment(order, pipeline, { ...planned, id: 'shp_4' })
  const reprint = order.shipments.find((shipment) => shipment.id === 'shp_4')
  assert.ok(reprint)
  reprint.reprintOf = 'shp_3'
  reprint.claimId = 'clm_1'
  for (const asset of ['ast_7', 'ast_8']) {
    recordPrintFile(order, pipeline, 'shp_4', asset, { blobKey: 'p', width: 1, height: 1, format: 'png' }, now)
  }
  recordSubmitted(order, pipeline, 'shp_4', now)
  const shipped = { kind: 'shipped' as const, carrier: null, tracking: null, dispatchDate: now }
  assert.equal(recordLabReport(order, pipeline, 'shp_4', shipped, now).changed, true)
  const report = {
    kind: 'tracking' as const,
    events: [{ time: '2026-03-03T10:00:00Z', status: 'Delivered' as const, description: 'Delivered' }],
  }
  assert.equal(recordLabReport(order, pipeline, 'shp_4', report, now).changed, true)
  assert.deepEqual(Object.keys(reprint).slice(-2), ['reprintOf', 'claimId'])
  assert.ok('parcels' in reprint && 'deliveredAt' in reprint && 'estimatedDelivery' in reprint)
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
})

test('branding carries every key with the colour slip under both spellings, or is null', () => {
  const branding = normaliseBranding({ packing_slip_colour: { url: 'https://a.test/s.pdf' } })
  assert.ok(branding)
  assert.deepEqual(branding.packing_slip_color, { url: 'https://a.test/s.pdf' })
  assert.deepEqual(branding.packing_slip_colour, { url: 'https://a.test/s.pdf' })
  assert.equal(branding.postcard, null)
  assert.equal(Object.keys(branding).length, 9)
  assert.equal(normaliseBranding(null), null)
  assert.equal(normaliseBranding({}), null)
  assert.equal(normaliseBranding({ flyer: null }), null)
})

test('delivery estimates and tracking keep the wire key order, whichever is set last', () => {
  const now = new Date('2026-03-01T09:00:00.000Z')
  const order = buildNewOrderDocument(
    { ...fullOrder, deliverBy: '2026-03-20', items: fullOrder.items.slice(0, 1) },
    { order: 'ord_9', items: ['ori_5'], assets: ['ast_7', 'ast_8'] },
    now,
  )
  const pipeline = emptyPipeline()
  startPipeline(order, pipeline, now)
  const stored = { blobKey: 'k', contentType: 'image/jpeg', bytes: 1, md5: 'x', width: 10, height: 10 }
  for (const asset of ['ast_7', 'ast_8']) recordDownloadSuccess(order, pipeline, asset, stored, null, now)
  const estimate = {
    estimatedDispatchDate: '2026-03-03',
    estimatedDelivery: { from: '2026-03-05', to: '2026-03-09' },
  }
  applyAllocation(
    order,
    pipeline,
    1,
    [
      {
        id: 'shp_3',
        labCode: 'us1',
        labCountryCode: 'US',
        carrier: { name: 'UPS', service: 'Ground' },
        itemIds: ['ori_5'],
        formats: {},
        estimate,
      },
    ],
    [],
    now,
  )
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  for (const asset of ['ast_7', 'ast_8']) {
    recordPrintFile(order, pipeline, 'shp_3', asset, { blobKey: 'p', width: 1, height: 1, format: 'jpeg' }, now)
  }
  recordSubmitted(order, pipeline, 'shp_3', now)
  const shipped = { kind: 'shipped' as const, carrier: null, tracking: null, dispatchDate: now }
  recordLabReport(order, pipeline, 'shp_3', shipped, now, estimate)
  const shipment = order.shipments[0]
  assert.ok(shipment)
  applyTrackingEvents(
    order,
    shipment,
    [{ time: '2026-03-06T10:00:00Z', status: 'Delivered', description: 'left' }],
    estimate,
  )
  assert.ok(order.deliveredAt, 'the order was delivered')
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  // An estimate set again once the tracking keys exist still goes before them (and the order's before its own).
  setShipmentEstimate(shipment, { ...estimate, estimatedDispatchDate: '2026-03-02' })
  refreshOrderEstimate(order, pipeline)
  assert.equal(order.estimatedDispatchDate, '2026-03-02')
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  // A credit is the last key (docs/api.md#credits), and stays last when the estimate is set again after it.
  addCredit(order, {
    id: 'crd_1',
    reason: 'LateDelivery',
    shipmentId: 'shp_3',
    amount: { amount: '4.17', currency: 'GBP' },
    creditNote: 'CN-000001',
    issuedAt: now.toISOString(),
  })
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  setShipmentEstimate(shipment, estimate)
  refreshOrderEstimate(order, pipeline)
  assert.equal(Object.keys(order).at(-1), 'credits')
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
})

test('a shipment sent in two parcels keeps the wire key order: parcels after the estimate, before the tracking', () => {
  const now = new Date('2026-03-01T09:00:00.000Z')
  const order = buildNewOrderDocument(
    fullOrder,
    { order: 'ord_9', items: ['ori_5', 'ori_6'], assets: ['ast_7', 'ast_8', 'ast_9'] },
    now,
  )
  const pipeline = emptyPipeline()
  startPipeline(order, pipeline, now)
  const stored = { blobKey: 'k', contentType: 'image/jpeg', bytes: 1, md5: 'x', width: 10, height: 10 }
  for (const asset of ['ast_7', 'ast_8', 'ast_9']) recordDownloadSuccess(order, pipeline, asset, stored, null, now)
  const estimate = { estimatedDispatchDate: '2026-03-03', estimatedDelivery: { from: '2026-03-05', to: '2026-03-09' } }
  const planned = {
    id: 'shp_3',
    labCode: 'us1',
    labCountryCode: 'US',
    carrier: { name: 'UPS', service: 'Ground' },
    itemIds: ['ori_5', 'ori_6'],
    formats: {},
    estimate,
  }
  applyAllocation(order, pipeline, 1, [planned], [], now)
  for (const asset of ['ast_7', 'ast_8', 'ast_9']) {
    recordPrintFile(order, pipeline, 'shp_3', asset, { blobKey: 'p', width: 1, height: 1, format: 'jpeg' }, now)
  }
  recordSubmitted(order, pipeline, 'shp_3', now)
  const parcel = (number: string, itemIds: string[]) => ({
    kind: 'shipped' as const,
    carrier: null,
    tracking: { number, url: `https://t.test/${number}` },
    dispatchDate: now,
    itemIds,
  })
  assert.equal(recordLabReport(order, pipeline, 'shp_3', parcel('P1', ['ori_6']), now, estimate).changed, true)
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  assert.equal(recordLabReport(order, pipeline, 'shp_3', parcel('P2', ['ori_5']), now, estimate).changed, true)
  assert.equal(order.shipments[0]?.parcels?.length, 2)
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  const report = {
    kind: 'tracking' as const,
    events: [{ time: '2026-03-06T10:00:00Z', status: 'Delivered' as const, description: 'left' }],
  }
  assert.equal(recordLabReport(order, pipeline, 'shp_3', report, now).changed, true)
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
})

test('address advisories keep the wire key order: after customs, before the estimate, set first or last', () => {
  const now = new Date('2026-03-01T09:00:00.000Z')
  const advisory = { field: 'recipient.phoneNumber', code: 'PhoneNumberRequired', message: 'call ahead' }
  const order = buildNewOrderDocument(
    { ...fullOrder, deliverBy: '2026-03-20', customs: { incoterm: 'DAP' }, items: fullOrder.items.slice(0, 1) },
    { order: 'ord_9', items: ['ori_5'], assets: ['ast_7', 'ast_8'] },
    now,
  )
  setAddressAdvisories(order, [advisory])
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  const pipeline = emptyPipeline()
  startPipeline(order, pipeline, now)
  const stored = { blobKey: 'k', contentType: 'image/jpeg', bytes: 1, md5: 'x', width: 10, height: 10 }
  for (const asset of ['ast_7', 'ast_8']) recordDownloadSuccess(order, pipeline, asset, stored, null, now)
  const estimate = { estimatedDispatchDate: '2026-03-03', estimatedDelivery: { from: '2026-03-05', to: '2026-03-09' } }
  const shipment = {
    id: 'shp_3',
    labCode: 'us1',
    labCountryCode: 'US',
    carrier: { name: 'UPS', service: 'Ground' },
    itemIds: ['ori_5'],
    formats: {},
    estimate,
  }
  applyAllocation(order, pipeline, 1, [shipment], [], now)
  assert.ok(order.estimatedDispatchDate, 'the order has its estimate')
  // Removed, then set again after the estimate keys exist (a recipient corrected, then changed again).
  setAddressAdvisories(order, [])
  assert.equal(Object.hasOwn(order, 'addressAdvisories'), false)
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  setAddressAdvisories(order, [advisory])
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  assert.deepEqual(Object.keys(order).slice(-4), [
    'customs',
    'addressAdvisories',
    'estimatedDispatchDate',
    'estimatedDelivery',
  ])
})

test('a draft with a hold keeps the wire key order: holdUntil, draft, expiresAt after customs, and after its confirm', () => {
  const now = new Date('2026-03-01T09:00:00.000Z')
  const advisory = { field: 'recipient.phoneNumber', code: 'PhoneNumberRequired', message: 'call ahead' }
  const order = buildNewOrderDocument(
    {
      ...fullOrder,
      customs: { incoterm: 'DAP' },
      holdUntil: '2026-03-05T09:00:00.000Z',
      draftExpiresAt: '2026-03-31T09:00:00.000Z',
      items: fullOrder.items.slice(0, 1),
    },
    { order: 'ord_9', items: ['ori_5'], assets: ['ast_7', 'ast_8'] },
    now,
  )
  setAddressAdvisories(order, [advisory])
  const keys = Object.keys(order)
  assert.deepEqual(keys.slice(keys.indexOf('customs')), [
    'customs',
    'holdUntil',
    'draft',
    'expiresAt',
    'addressAdvisories',
  ])
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  const pipeline = emptyPipeline()
  confirmDraft(order, pipeline, now)
  releaseHold(order, pipeline, now)
  assert.equal(JSON.stringify(order), serializeThroughSchema(order))
  assert.equal(Object.hasOwn(order, 'draft'), false)
  assert.equal(order.holdUntil, now.toISOString())
})
