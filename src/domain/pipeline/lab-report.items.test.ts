// Item-by-item lab reports (docs/pipeline.md#lab-reports): items printed, parcels, items given back and allocated
// again. The last test throws random report sequences at an order and checks that no item is ever lost or doubled.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import { buildNewOrderDocument, type NewOrder, type OrderDocument } from '../order.ts'
import { orderEventsOf } from '../order-events.ts'
import { applyAllocation, takeReroutedItems } from './allocate-order.ts'
import { recordDownloadSuccess } from './download-file.ts'
import { itemReportRefusal, type LabReport, labItemState, recordLabReport } from './lab-report.ts'
import { emptyPipeline, itemsAwaitingAllocation, type PipelineState } from './pipeline-order.ts'
import { recordPrintFile } from './render-print-file.ts'
import { startPipeline } from './start-order.ts'
import { recordSubmitted } from './submit-shipment.ts'

tier('pure')

const now = new Date('2026-03-01T09:00:00.000Z')

/** An order of `count` items (one asset each) whose one shipment, shp_1, is with lab uk6. */
function atTheLab(count: number): { order: OrderDocument; pipeline: PipelineState; itemIds: string[] } {
  const itemIds = Array.from({ length: count }, (_, index) => `ori_${index + 1}`)
  const input: NewOrder = {
    merchantReference: null,
    shippingMethod: 'Standard',
    idempotencyKey: null,
    callbackUrl: null,
    recipient: {
      name: 'A',
      email: null,
      phoneNumber: null,
      address: {
        line1: 'l',
        line2: null,
        postalOrZipCode: 'p',
        countryCode: 'GB',
        townOrCity: 't',
        stateOrCounty: null,
      },
    },
    branding: null,
    packingSlip: null,
    metadata: null,
    items: itemIds.map((_, index) => ({
      merchantReference: null,
      sku: 'GLOBAL-FAP-8x8',
      copies: 1,
      sizing: 'fillPrintArea',
      recipientCost: null,
      attributes: {},
      assets: [{ printArea: 'default', url: `https://x.test/${index}.jpg`, md5Hash: null, pageCount: null }],
    })),
  }
  const assets = itemIds.map((_, index) => `ast_${index + 1}`)
  const order = buildNewOrderDocument(input, { order: 'ord_1', items: itemIds, assets }, now)
  const pipeline = emptyPipeline()
  startPipeline(order, pipeline, now)
  const stored = { blobKey: 'b', contentType: 'image/jpeg', bytes: 1, md5: 'x', width: 10, height: 10 }
  for (const asset of assets) recordDownloadSuccess(order, pipeline, asset, stored, null, now)
  allocate(order, pipeline, 'shp_1', 'uk6')
  return { order, pipeline, itemIds }
}

/** Allocates every item waiting for a lab to `labCode` as `shipmentId`, renders and submits it. */
function allocate(order: OrderDocument, pipeline: PipelineState, shipmentId: string, labCode: string): void {
  const itemIds = itemsAwaitingAllocation(order, pipeline).map((item) => item.id)
  const planned = {
    id: shipmentId,
    labCode,
    labCountryCode: 'GB',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    itemIds,
    formats: {},
  }
  assert.equal(applyAllocation(order, pipeline, pipeline.allocationRound, [planned], [], now).changed, true)
  for (const assetId of Object.keys(pipeline.shipments[shipmentId]?.printFiles ?? {})) {
    recordPrintFile(
      order,
      pipeline,
      shipmentId,
      assetId,
      { blobKey: assetId, width: 1, height: 1, format: 'jpeg' },
      now,
    )
  }
  assert.equal(recordSubmitted(order, pipeline, shipmentId, now).changed, true)
}

const shipped = (number: string, itemIds?: string[], day = 2): LabReport => ({
  kind: 'shipped',
  carrier: { name: 'Royal Mail', service: 'Tracked 48' },
  tracking: { number, url: `https://t.test/${number}` },
  dispatchDate: new Date(`2026-03-0${day}T10:00:00.000Z`),
  ...(itemIds ? { itemIds } : {}),
})

test('items printed move forward only and start production', () => {
  const { order, pipeline } = atTheLab(3)
  const printed = recordLabReport(order, pipeline, 'shp_1', { kind: 'printed', itemIds: ['ori_2'] }, now)
  assert.equal(printed.changed, true)
  assert.equal(pipeline.shipments.shp_1?.state, 'inProduction')
  assert.deepEqual(
    ['ori_1', 'ori_2', 'ori_3'].map((id) => labItemState(pipeline, 'shp_1', id)),
    ['open', 'printed', 'open'],
  )
  assert.equal(recordLabReport(order, pipeline, 'shp_1', { kind: 'printed', itemIds: ['ori_2'] }, now).changed, false)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', { kind: 'acknowledged' }, now).changed, false)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', { kind: 'printed', itemIds: [] }, now).changed, true)
  assert.deepEqual(
    ['ori_1', 'ori_2', 'ori_3'].map((id) => labItemState(pipeline, 'shp_1', id)),
    ['printed', 'printed', 'printed'],
  )
  const unknown = recordLabReport(order, pipeline, 'shp_1', { kind: 'printed', itemIds: ['ori_1', 'ori_9'] }, now)
  assert.deepEqual(unknown.itemRefusal, {
    code: 'InvalidValue',
    field: 'itemIds[1]',
    itemId: 'ori_9',
    shipmentId: 'shp_1',
  })
})

test('two parcels: the shipment shows the first until the last ships, then the order is Complete; events per parcel', () => {
  const { order, pipeline } = atTheLab(3)
  const before = structuredClone(order)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', shipped('P1', ['ori_1', 'ori_3']), now).changed, true)
  const shipment = order.shipments[0]
  assert.equal(shipment?.status, 'Processing')
  assert.equal(shipment?.tracking?.number, 'P1')
  assert.equal(order.status.details.shipping, 'InProgress')
  assert.equal(order.status.stage, 'InProgress')
  assert.deepEqual(orderEventsOf({ before, after: order, pauseWindowEnded: false }), [
    { kind: 'parcelShipped', shipmentId: 'shp_1', parcel: 0 },
  ])
  assert.equal(recordLabReport(order, pipeline, 'shp_1', shipped('P1', ['ori_1']), now).changed, false, 'a repeat')
  const twice = recordLabReport(order, pipeline, 'shp_1', shipped('P2', ['ori_2', 'ori_3'], 3), now)
  assert.equal(twice.changed, false)
  assert.equal(twice.itemRefusal?.code, 'ItemAlreadyShipped')
  assert.equal(twice.itemRefusal?.field, 'itemIds[1]')

  const middle = structuredClone(order)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', shipped('P2', undefined, 3), now).changed, true)
  assert.equal(shipment?.status, 'Shipped')
  assert.equal(shipment?.tracking?.number, 'P2')
  assert.equal(shipment?.dispatchDate, '2026-03-03T10:00:00.000Z')
  assert.deepEqual(
    shipment?.parcels?.map((parcel) => [parcel.tracking?.number, parcel.items.map((item) => item.itemId)]),
    [
      ['P1', ['ori_1', 'ori_3']],
      ['P2', ['ori_2']],
    ],
  )
  assert.equal(order.status.stage, 'Complete')
  assert.deepEqual(
    orderEventsOf({ before: middle, after: order, pauseWindowEnded: false }).map((event) => event.kind),
    ['parcelShipped', 'shipmentShipped', 'shippingComplete', 'stageChanged'],
  )
  assert.equal(recordLabReport(order, pipeline, 'shp_1', shipped('P3'), now).changed, false, 'nothing left to ship')
})

test('a shipment shipped whole is one parcel and only shipment#Shipped', () => {
  const { order, pipeline } = atTheLab(2)
  const before = structuredClone(order)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', shipped('W1'), now).changed, true)
  assert.equal(order.shipments[0]?.parcels?.length, 1)
  assert.deepEqual(
    orderEventsOf({ before, after: order, pauseWindowEnded: false }).map((event) => event.kind),
    ['shipmentShipped', 'shippingComplete', 'stageChanged'],
  )
})

test('items given back leave the shipment, are excluded at the lab with their reason and allocated again', () => {
  const { order, pipeline } = atTheLab(3)
  recordLabReport(order, pipeline, 'shp_1', { kind: 'acknowledged' }, now)
  const report: LabReport = {
    kind: 'rejected',
    reason: 'two prints cannot be made',
    unavailableItemIds: [],
    items: [
      { itemId: 'ori_2', reason: 'FileDefect', description: 'the file is blank' },
      { itemId: 'ori_3', reason: 'CannotProduce' },
    ],
  }
  const given = recordLabReport(order, pipeline, 'shp_1', report, now)
  assert.deepEqual(
    given.jobs.map((job) => job.name),
    ['allocate-order'],
  )
  assert.deepEqual(order.shipments[0]?.items, [{ itemId: 'ori_1' }])
  assert.equal(pipeline.shipments.shp_1?.state, 'acknowledged', 'the shipment that stays is untouched')
  assert.deepEqual(pipeline.exclusionReasons, { ori_2: { uk6: 'FileDefect' }, ori_3: { uk6: 'CannotProduce' } })
  assert.deepEqual(pipeline.excludedLabs, { ori_2: ['uk6'], ori_3: ['uk6'] })
  assert.equal(labItemState(pipeline, 'shp_1', 'ori_2'), 'rejected')
  assert.equal(recordLabReport(order, pipeline, 'shp_1', report, now).changed, false, 'a repeat')
  assert.deepEqual(
    itemsAwaitingAllocation(order, pipeline).map((item) => item.id),
    ['ori_2', 'ori_3'],
  )
  assert.deepEqual(takeReroutedItems(pipeline, ['ori_2', 'ori_3']), [
    {
      itemId: 'ori_2',
      fromShipmentId: 'shp_1',
      fromLabCode: 'uk6',
      reason: 'FileDefect',
      description: 'the file is blank',
    },
    { itemId: 'ori_3', fromShipmentId: 'shp_1', fromLabCode: 'uk6', reason: 'CannotProduce' },
  ])
  assert.equal(pipeline.reroutes, undefined)
  allocate(order, pipeline, 'shp_2', 'de1')
  assert.deepEqual(order.shipments[1]?.items, [{ itemId: 'ori_2' }, { itemId: 'ori_3' }])

  recordLabReport(order, pipeline, 'shp_1', shipped('A'), now)
  assert.equal(order.status.stage, 'InProgress')
  recordLabReport(order, pipeline, 'shp_2', shipped('B'), now)
  assert.equal(order.status.stage, 'Complete')
})

test('giving back every remaining item is the whole shipment rejected; shipped items cannot be given back', () => {
  const { order, pipeline } = atTheLab(2)
  recordLabReport(order, pipeline, 'shp_1', shipped('S', ['ori_1']), now)
  const refused = recordLabReport(
    order,
    pipeline,
    'shp_1',
    { kind: 'rejected', reason: 'x', unavailableItemIds: [], items: [{ itemId: 'ori_1', reason: 'OutOfStock' }] },
    now,
  )
  assert.equal(refused.itemRefusal?.code, 'ItemAlreadyShipped')
  assert.equal(refused.itemRefusal?.field, 'items[0].itemId')

  const rest = recordLabReport(
    order,
    pipeline,
    'shp_1',
    { kind: 'rejected', reason: 'broken', unavailableItemIds: [] },
    now,
  )
  assert.equal(rest.changed, true)
  assert.equal(order.shipments[0]?.status, 'Shipped', 'the shipped item stays; its shipment is done')
  assert.deepEqual(order.shipments[0]?.items, [{ itemId: 'ori_1' }])
  assert.deepEqual(pipeline.reroutes, [
    { itemId: 'ori_2', fromShipmentId: 'shp_1', fromLabCode: 'uk6', reason: 'Rejected', description: 'broken' },
  ])

  const whole = atTheLab(2)
  const items = whole.itemIds.map((itemId) => ({ itemId, reason: 'OutOfStock' as const }))
  recordLabReport(
    whole.order,
    whole.pipeline,
    'shp_1',
    { kind: 'rejected', reason: 'r', unavailableItemIds: [], items },
    now,
  )
  assert.equal(whole.pipeline.shipments.shp_1?.state, 'rejected')
  assert.deepEqual(whole.order.shipments, [], 'a refused shipment leaves the order')
})

/** A small seeded generator (mulberry32), so a failing sequence can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

test('property: whatever the labs report, every item is in exactly one live shipment or waits for a lab, and in at most one parcel', () => {
  const labs = ['uk6', 'de1', 'nl1', 'us1', 'us7', 'au1']
  for (let seed = 1; seed <= 200; seed++) {
    const next = random(seed)
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T
    const { order, pipeline, itemIds } = atTheLab(1 + Math.floor(next() * 5))
    let shipmentCount = 1
    const shippedOnce = new Map<string, string>()
    for (let step = 0; step < 25 && order.status.stage !== 'Complete'; step++) {
      const live = order.shipments.filter((shipment) => pipeline.shipments[shipment.id]?.state !== 'shipped')
      if (pipeline.phase === 'allocating') {
        shipmentCount += 1
        allocate(order, pipeline, `shp_${shipmentCount}`, pick(labs))
        continue
      }
      const shipment = live.length > 0 ? pick(live) : pick(order.shipments)
      const some = () => shipment.items.map((entry) => entry.itemId).filter(() => next() < 0.5)
      const held = [...some(), ...(next() < 0.1 ? [pick(itemIds)] : [])]
      const report: LabReport = pick<() => LabReport>([
        () => ({ kind: 'acknowledged' }),
        () => ({ kind: 'printed', itemIds: held }),
        () => shipped(pick(['A', 'B', 'C']), next() < 0.3 ? undefined : held),
        // Without a dispatch date (a retry's form): tracked or not.
        () => undated(pick(['A', 'B', null]), next() < 0.3 ? undefined : held),
        () => ({
          kind: 'rejected',
          reason: 'r',
          unavailableItemIds: [],
          ...(next() < 0.2
            ? {}
            : { items: held.map((itemId) => ({ itemId, reason: pick(['OutOfStock', 'CannotProduce'] as const) })) }),
        }),
      ])()
      const result = recordLabReport(order, pipeline, shipment.id, report, now)
      if (result.itemRefusal) {
        assert.equal(result.changed, false)
        assert.equal(itemReportRefusal(order, pipeline, shipment.id, report)?.code, result.itemRefusal.code)
      }
      // Invariants, after every report.
      const place = new Map<string, string>()
      for (const onOrder of order.shipments) {
        for (const { itemId } of onOrder.items) {
          assert.equal(place.has(itemId), false, `seed ${seed}: ${itemId} in two shipments`)
          place.set(itemId, onOrder.id)
        }
        const inParcels = (onOrder.parcels ?? []).flatMap((parcel) => parcel.items.map((entry) => entry.itemId))
        assert.equal(new Set(inParcels).size, inParcels.length, `seed ${seed}: an item in two parcels`)
        for (const itemId of inParcels) {
          assert.equal(place.get(itemId), onOrder.id, `seed ${seed}: a parcel holds an item its shipment does not`)
        }
      }
      for (const item of itemsAwaitingAllocation(order, pipeline)) {
        assert.equal(place.has(item.id), false, `seed ${seed}: ${item.id} both waiting and allocated`)
        place.set(item.id, 'waiting')
      }
      assert.deepEqual([...place.keys()].sort(), [...itemIds].sort(), `seed ${seed}: an item was lost`)
      for (const onOrder of order.shipments) {
        for (const parcel of onOrder.parcels ?? []) {
          for (const { itemId } of parcel.items) {
            const first = shippedOnce.get(itemId) ?? `${onOrder.id}:${parcel.tracking?.number}`
            assert.equal(`${onOrder.id}:${parcel.tracking?.number}`, first, `seed ${seed}: ${itemId} shipped twice`)
            shippedOnce.set(itemId, first)
          }
        }
      }
      for (const itemId of shippedOnce.keys()) {
        assert.notEqual(place.get(itemId), 'waiting', `seed ${seed}: a shipped item went back to allocation`)
      }
    }
  }
})

/** A parcel reported without a dispatch date, as a lab's retry sends it again (the service fills in no date). */
const undated = (number: string | null, itemIds?: string[], service = 'Tracked 48'): LabReport => ({
  kind: 'shipped',
  carrier: { name: 'Royal Mail', service },
  tracking: number === null ? null : { number, url: `https://t.test/${number}` },
  ...(itemIds ? { itemIds } : {}),
})

test('a parcel without a dispatch date, sent again later, is the same parcel: nothing changes, no event', () => {
  const { order, pipeline } = atTheLab(3)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', undated('P1', ['ori_1']), now).changed, true)
  assert.equal(order.shipments[0]?.parcels?.[0]?.dispatchDate, now.toISOString(), 'dispatched when recorded')
  const later = new Date(now.getTime() + 90_000)
  const before = structuredClone(order)
  const retry = recordLabReport(order, pipeline, 'shp_1', undated('P1', ['ori_1']), later)
  assert.deepEqual(retry, { changed: false, jobs: [] })
  assert.deepEqual(order, before)
  assert.deepEqual(orderEventsOf({ before, after: order, pauseWindowEnded: false }), [])

  const otherTracking = recordLabReport(order, pipeline, 'shp_1', undated('P9', ['ori_1']), later)
  assert.equal(otherTracking.changed, false)
  assert.deepEqual(otherTracking.itemRefusal, {
    code: 'ItemAlreadyShipped',
    field: 'itemIds[0]',
    itemId: 'ori_1',
    shipmentId: 'shp_1',
  })
  const dated = recordLabReport(order, pipeline, 'shp_1', shipped('P1', ['ori_1'], 5), later)
  assert.equal(dated.itemRefusal?.code, 'ItemAlreadyShipped', 'a stated date that differs is another parcel')

  assert.equal(recordLabReport(order, pipeline, 'shp_1', undated('P1', ['ori_2']), later).changed, true)
  assert.deepEqual(
    order.shipments[0]?.parcels?.map((parcel) => parcel.items.map((item) => item.itemId)),
    [['ori_1', 'ori_2']],
    'a tracked parcel reported without a date again takes new items in (its number names it)',
  )
})

test('a whole shipment shipped without a dispatch date: its retry is Ok, a differing one names the field', () => {
  const { order, pipeline } = atTheLab(2)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', undated('W1'), now).changed, true)
  assert.equal(pipeline.shipments.shp_1?.state, 'shipped')
  const later = new Date(now.getTime() + 3_600_000)
  assert.deepEqual(recordLabReport(order, pipeline, 'shp_1', undated('W1'), later), { changed: false, jobs: [] })
  assert.equal(itemReportRefusal(order, pipeline, 'shp_1', undated('W1', ['ori_1', 'ori_2'])), undefined)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', { kind: 'printed', itemIds: [] }, later).changed, false)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', { kind: 'acknowledged' }, later).changed, false)
  const differing = recordLabReport(order, pipeline, 'shp_1', undated('W1', undefined, 'Special Delivery'), later)
  assert.deepEqual(differing.itemRefusal, {
    code: 'ItemAlreadyShipped',
    field: 'carrier.service',
    itemId: '',
    shipmentId: 'shp_1',
    parcel: { provided: 'Special Delivery', shipped: 'Tracked 48' },
  })
})

test('untracked parcels without dispatch dates stay apart; each one sent again is a repeat', () => {
  const { order, pipeline } = atTheLab(2)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', undated(null, ['ori_1']), now).changed, true)
  const later = new Date(now.getTime() + 60_000)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', undated(null, ['ori_2']), later).changed, true)
  assert.deepEqual(
    order.shipments[0]?.parcels?.map((parcel) => parcel.items.map((item) => item.itemId)),
    [['ori_1'], ['ori_2']],
  )
  assert.equal(recordLabReport(order, pipeline, 'shp_1', undated(null, ['ori_1']), later).changed, false)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', undated(null, ['ori_2']), later).changed, false)
})

test('a whole shipment rejected keeps the carrier it was priced with, and the same rejection again changes nothing', () => {
  const { order, pipeline } = atTheLab(2)
  const report: LabReport = { kind: 'rejected', reason: 'press broken', unavailableItemIds: [] }
  assert.equal(recordLabReport(order, pipeline, 'shp_1', report, now).changed, true)
  assert.equal(pipeline.shipments.shp_1?.state, 'rejected')
  assert.equal(order.shipments.length, 0, 'the shipment left the order')
  assert.deepEqual(pipeline.shipments.shp_1?.carrier, { name: 'Royal Mail', service: 'Tracked 48' })
  const before = structuredClone({ order, pipeline })
  assert.equal(recordLabReport(order, pipeline, 'shp_1', report, now).changed, false)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', { kind: 'acknowledged' }, now).changed, false)
  assert.deepEqual({ order, pipeline }, before)
})
