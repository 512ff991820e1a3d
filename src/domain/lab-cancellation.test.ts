import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import {
  CANCELLATION_REQUEST_LAPSE_HOURS,
  closeCancellationOnReport,
  openCancellationRequest,
  recordCancellationAnswer,
  requestCancellation,
} from './lab-cancellation.ts'
import type { OrderDocument } from './order.ts'
import type { LabReport } from './pipeline/lab-report.ts'
import { emptyPipeline, type PipelineState, type ShipmentState } from './pipeline/pipeline-order.ts'

tier('pure')

const NOW = new Date('2026-03-01T10:00:00Z')
const later = (hours: number) => new Date(NOW.getTime() + hours * 3_600_000)

/** An order whose shipments shp_1, shp_2, ... are in these states, with a request open on shp_1. */
function asked(...states: ShipmentState[]): { order: OrderDocument; pipeline: PipelineState } {
  const pipeline = emptyPipeline()
  pipeline.phase = 'producing'
  states.forEach((state, index) => {
    pipeline.shipments[`shp_${index + 1}`] = { labCode: 'uk6', state, printFiles: {}, formats: {} }
  })
  const order = {
    id: 'ord_1',
    lastUpdated: '2026-03-01T09:00:00.000Z',
    status: { stage: 'InProgress', details: {}, issues: [] },
    items: [],
    shipments: states.map((state, index) => ({
      id: `shp_${index + 1}`,
      carrier: { name: 'Royal Mail', service: 'Standard' },
      items: [],
      status: state === 'cancelled' ? 'Cancelled' : 'Processing',
      cancelled: state === 'cancelled',
    })),
  } as unknown as OrderDocument
  const first = pipeline.shipments.shp_1
  assert.ok(first)
  assert.equal(requestCancellation(first, NOW), true)
  return { order, pipeline }
}

test('a request is open until answered, until production starts, or for 24 hours', () => {
  const { pipeline } = asked('submitted')
  const shipment = pipeline.shipments.shp_1
  assert.ok(shipment)
  assert.deepEqual(openCancellationRequest(shipment, later(CANCELLATION_REQUEST_LAPSE_HOURS - 0.001)), {
    at: NOW.toISOString(),
  })
  assert.equal(openCancellationRequest(shipment, later(CANCELLATION_REQUEST_LAPSE_HOURS)), undefined)
  // A new cancel after the lapse asks again.
  assert.equal(requestCancellation(shipment, later(25)), true)
  assert.equal(shipment.cancellationRequested?.at, later(25).toISOString())
  assert.equal(requestCancellation(shipment, later(26)), false, 'open: not asked twice')
  shipment.state = 'inProduction'
  assert.equal(openCancellationRequest(shipment, later(26)), undefined)
})

test('cancelled: the shipment, and the order with nothing else live; tooLate: nothing; repeats and conflicts', () => {
  const whole = asked('acknowledged', 'rejected', 'cancelled')
  const result = recordCancellationAnswer(whole.order, whole.pipeline, 'shp_1', 'cancelled', later(1))
  assert.deepEqual(result, { changed: true, jobs: [], cancelled: { shipmentId: 'shp_1', wholeOrder: true } })
  assert.equal(whole.order.status.stage, 'Cancelled')
  assert.equal(whole.pipeline.phase, 'cancelled')
  assert.deepEqual([whole.order.shipments[0]?.status, whole.order.shipments[0]?.cancelled], ['Cancelled', true])
  assert.equal(whole.order.lastUpdated, later(1).toISOString())
  assert.deepEqual(recordCancellationAnswer(whole.order, whole.pipeline, 'shp_1', 'cancelled', later(2)), {
    changed: false,
    jobs: [],
  })
  assert.deepEqual(
    recordCancellationAnswer(whole.order, whole.pipeline, 'shp_1', 'tooLate', later(2)).cancellationRefusal,
    { reason: 'alreadyAnswered', answer: 'cancelled' },
  )

  const partly = asked('submitted', 'inProduction')
  const one = recordCancellationAnswer(partly.order, partly.pipeline, 'shp_1', 'cancelled', later(1))
  assert.deepEqual(one.cancelled, { shipmentId: 'shp_1', wholeOrder: false })
  assert.equal(partly.order.status.stage, 'InProgress')

  const late = asked('submitted')
  const before = structuredClone(late.order)
  assert.deepEqual(recordCancellationAnswer(late.order, late.pipeline, 'shp_1', 'tooLate', later(1)), {
    changed: true,
    jobs: [],
  })
  assert.deepEqual(late.order, before, 'the merchant sees nothing of a tooLate')
  assert.equal(late.pipeline.shipments.shp_1?.state, 'submitted')

  const unasked = asked('submitted', 'submitted')
  assert.deepEqual(
    recordCancellationAnswer(unasked.order, unasked.pipeline, 'shp_2', 'cancelled', NOW).cancellationRefusal,
    { reason: 'notRequested' },
  )
})

test('after the lapse a cancelled answer is refused and a tooLate is taken', () => {
  const { order, pipeline } = asked('submitted')
  const lapsed = later(CANCELLATION_REQUEST_LAPSE_HOURS)
  assert.deepEqual(recordCancellationAnswer(order, pipeline, 'shp_1', 'cancelled', lapsed).cancellationRefusal, {
    reason: 'lapsed',
    at: NOW.toISOString(),
  })
  assert.equal(pipeline.shipments.shp_1?.state, 'submitted')
  assert.equal(recordCancellationAnswer(order, pipeline, 'shp_1', 'tooLate', lapsed).changed, true)
  assert.equal(pipeline.shipments.shp_1?.cancellationRequested?.answer, 'tooLate')
})

test('production, printing or shipping closes an open request as too late; a rejection cancels instead', () => {
  for (const kind of ['inProduction', 'printed', 'shipped'] as const) {
    const { order, pipeline } = asked('acknowledged')
    const report: LabReport =
      kind === 'inProduction'
        ? { kind }
        : kind === 'printed'
          ? { kind, itemIds: [] }
          : { kind, carrier: null, tracking: null, dispatchDate: NOW }
    assert.deepEqual(closeCancellationOnReport(order, pipeline, 'shp_1', report, later(1)), { closedTooLate: true })
    assert.deepEqual(pipeline.shipments.shp_1?.cancellationRequested, {
      at: NOW.toISOString(),
      answer: 'tooLate',
      answeredAt: later(1).toISOString(),
      closedBy: 'progress',
    })
  }
  const acknowledged = asked('submitted')
  assert.equal(
    closeCancellationOnReport(acknowledged.order, acknowledged.pipeline, 'shp_1', { kind: 'acknowledged' }, NOW),
    undefined,
  )
  const rejected = asked('submitted')
  const closed = closeCancellationOnReport(
    rejected.order,
    rejected.pipeline,
    'shp_1',
    { kind: 'rejected', reason: 'printer down', unavailableItemIds: [] },
    later(1),
  )
  assert.deepEqual(closed?.insteadOfReport?.cancelled, { shipmentId: 'shp_1', wholeOrder: true })
  assert.equal(rejected.pipeline.shipments.shp_1?.state, 'cancelled')
})
