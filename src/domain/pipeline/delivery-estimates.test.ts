// Delivery estimates on the order: given by allocation, moved by dispatch, taken away by a refused shipment.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newOrder, now, stored } from '../../../test/support/pipeline-order.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import type { DeliveryEstimate } from '../delivery-promise.ts'
import type { OrderDocument } from '../order.ts'
import { applyAllocation } from './allocate-order.ts'
import { recordDownloadSuccess } from './download-file.ts'
import { recordLabReport } from './lab-report.ts'
import { startPipeline } from './start-order.ts'

tier('pure')

const EARLY: DeliveryEstimate = {
  estimatedDispatchDate: '2026-03-03',
  estimatedDelivery: { from: '2026-03-05', to: '2026-03-06' },
}
const LATE: DeliveryEstimate = {
  estimatedDispatchDate: '2026-03-04',
  estimatedDelivery: { from: '2026-03-05', to: '2026-03-10' },
}

/** An order of two items allocated to two labs with these estimates. */
function allocatedTwice(first: DeliveryEstimate | null, second: DeliveryEstimate | null) {
  const { order, pipeline } = newOrder()
  order.items.push({ ...structuredClone(order.items[0] as OrderDocument['items'][number]), id: 'ori_2', assets: [] })
  startPipeline(order, pipeline, now)
  recordDownloadSuccess(order, pipeline, 'ast_1', stored, null, now)
  const planned = (id: string, labCode: string, itemId: string, estimate: DeliveryEstimate | null) => ({
    id,
    labCode,
    labCountryCode: 'GB',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    itemIds: [itemId],
    formats: {},
    estimate,
  })
  applyAllocation(
    order,
    pipeline,
    1,
    [planned('shp_1', 'uk6', 'ori_1', first), planned('shp_2', 'nl1', 'ori_2', second)],
    [],
    now,
  )
  return { order, pipeline }
}

test('allocation gives each shipment its estimate and promise, and the order the latest of them', () => {
  const { order, pipeline } = allocatedTwice(EARLY, LATE)
  const [first, second] = order.shipments
  assert.deepEqual([first?.estimatedDispatchDate, first?.estimatedDelivery], ['2026-03-03', EARLY.estimatedDelivery])
  assert.deepEqual(pipeline.shipments.shp_1?.promise, EARLY)
  assert.deepEqual(pipeline.shipments.shp_2?.promise, LATE)
  assert.equal(second?.estimatedDispatchDate, '2026-03-04')
  // The latest dispatch date and the latest of each end of the window.
  assert.equal(order.estimatedDispatchDate, '2026-03-04')
  assert.deepEqual(order.estimatedDelivery, { from: '2026-03-05', to: '2026-03-10' })
  // The estimate keys sit after `cancelled` on a shipment, and last on the order.
  assert.deepEqual(Object.keys(first ?? {}).slice(-3), ['cancelled', 'estimatedDispatchDate', 'estimatedDelivery'])
  assert.deepEqual(Object.keys(order).slice(-3), ['metadata', 'estimatedDispatchDate', 'estimatedDelivery'])

  // A shipment without an estimate leaves the order without one: the latest is not known.
  const unknown = allocatedTwice(EARLY, null)
  assert.equal(unknown.order.shipments[0]?.estimatedDispatchDate, '2026-03-03')
  assert.equal('estimatedDispatchDate' in (unknown.order.shipments[1] ?? {}), false)
  assert.equal(unknown.pipeline.shipments.shp_2?.promise, undefined)
  assert.equal('estimatedDispatchDate' in unknown.order, false)
  assert.equal('estimatedDelivery' in unknown.order, false)
})

test('dispatch replaces the shipment estimate and refreshes the order; the promise stays', () => {
  const { order, pipeline } = allocatedTwice(EARLY, LATE)
  for (const id of ['shp_1', 'shp_2']) {
    const shipment = pipeline.shipments[id]
    if (shipment) shipment.state = 'inProduction'
  }
  const dispatched: DeliveryEstimate = {
    estimatedDispatchDate: '2026-03-09',
    estimatedDelivery: { from: '2026-03-11', to: '2026-03-12' },
  }
  const shipped = { kind: 'shipped' as const, carrier: null, tracking: null, dispatchDate: now }
  assert.equal(recordLabReport(order, pipeline, 'shp_1', shipped, now, dispatched).changed, true)
  assert.equal(order.shipments[0]?.estimatedDispatchDate, '2026-03-09')
  assert.deepEqual(order.shipments[0]?.estimatedDelivery, dispatched.estimatedDelivery)
  assert.deepEqual(pipeline.shipments.shp_1?.promise, EARLY, 'the promise is what lateness is judged by')
  assert.equal(order.estimatedDispatchDate, '2026-03-09')
  assert.deepEqual(order.estimatedDelivery, { from: '2026-03-11', to: '2026-03-12' })
  // A rate without transit days after dispatch: the shipment's estimate goes, and with it the order's.
  assert.equal(recordLabReport(order, pipeline, 'shp_2', shipped, now, null).changed, true)
  assert.equal('estimatedDelivery' in (order.shipments[1] ?? {}), false)
  assert.equal('estimatedDelivery' in order, false)
})

test('a refused shipment takes the order estimate away until its items are allocated again', () => {
  const { order, pipeline } = allocatedTwice(EARLY, LATE)
  const shipment = pipeline.shipments.shp_2
  if (shipment) shipment.state = 'submitted'
  const rejected = { kind: 'rejected' as const, reason: 'no paper', unavailableItemIds: [] }
  assert.equal(recordLabReport(order, pipeline, 'shp_2', rejected, now).changed, true)
  assert.equal('estimatedDelivery' in order, false, 'ori_2 waits for a lab')
  const again = {
    id: 'shp_3',
    labCode: 'uk6',
    labCountryCode: 'GB',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    itemIds: ['ori_2'],
    formats: {},
    estimate: LATE,
  }
  applyAllocation(order, pipeline, pipeline.allocationRound, [again], [], now)
  assert.deepEqual(order.estimatedDelivery, LATE.estimatedDelivery)
})
