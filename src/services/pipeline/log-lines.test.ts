// The pipeline's log lines, from what a step did: the fields and message operators search for (docs/operations.md).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import { jobRequest } from '../../domain/jobs.ts'
import type { PipelineOrder } from '../../domain/pipeline/pipeline-order.ts'
import {
  allocationLine,
  downloadLine,
  labReportLine,
  orderLogFields,
  phaseChangeLine,
  renderLine,
} from './log-lines.ts'

tier('pure')

/** An order with only what log lines read of it. */
function orderOf(parts: { traceId?: string; phase?: string; details?: Record<string, string> } = {}): PipelineOrder {
  return {
    document: {
      id: 'ord_7',
      status: { details: parts.details ?? {} },
      shipments: [{ id: 'shp_3', carrier: { name: 'Royal Mail', service: 'Tracked 48' }, tracking: { number: 'RM1' } }],
    },
    pipeline: {
      phase: parts.phase ?? 'producing',
      files: {},
      shipments: { shp_3: { labCode: 'gb1', state: 'shipped' } },
      ...(parts.traceId ? { traceId: parts.traceId } : {}),
    },
  } as unknown as PipelineOrder
}

const attempt = { fileKey: 'ast_1', kind: 'asset', url: 'https://images.example.com/a.jpg', attempt: 3, ms: 12 }

test('every line carries the order id, and the trace id once the order has one', () => {
  assert.deepEqual(orderLogFields(orderOf()), { orderId: 'ord_7' })
  assert.deepEqual(orderLogFields(orderOf({ traceId: 'abc' })), { orderId: 'ord_7', traceId: 'abc' })
})

test('a download kept is info with its size and type; its fields in a stable order', () => {
  const stored = { blobKey: 'k', contentType: 'image/jpeg', bytes: 2048, md5: 'm', width: null, height: null }
  const line = downloadLine(orderOf({ traceId: 't' }), [], attempt, { stored, failure: undefined })
  assert.equal(line.level, 'info')
  assert.equal(line.message, 'downloaded asset ast_1: 2048 bytes image/jpeg in 12 ms (attempt 3/10)')
  assert.deepEqual(Object.keys(line.fields), [
    'orderId',
    'traceId',
    'step',
    'fileKey',
    'url',
    'attempt',
    'maxAttempts',
    'ms',
    'result',
    'bytes',
    'contentType',
  ])
})

test('a failed download is info while a retry is queued and warn once it gives up', () => {
  const at = new Date('2026-06-01T10:00:00Z')
  const retry = jobRequest('download-file', { orderId: 'ord_7', fileKey: 'ast_1', attempt: 4 }, at)
  const retried = downloadLine(orderOf(), [retry], attempt, { stored: undefined, failure: 'HTTP 503' })
  assert.equal(retried.level, 'info')
  assert.equal(retried.fields.nextAttemptAt, '2026-06-01T10:00:00.000Z')
  assert.equal(
    retried.message,
    'download of asset ast_1 failed (attempt 3/10): HTTP 503; next attempt at 2026-06-01T10:00:00.000Z',
  )
  const gaveUp = downloadLine(
    orderOf(),
    [],
    { ...attempt, kind: 'packingSlip', fileKey: 'packingSlip' },
    {
      stored: undefined,
      failure: 'HTTP 404',
    },
  )
  assert.equal(gaveUp.level, 'warn')
  assert.equal(gaveUp.fields.nextAttemptAt, null)
  assert.equal(gaveUp.message, 'download of packingSlip failed (attempt 3/10): HTTP 404; gave up')
})

test('a print file says its size and format, a PDF that it was checked, a failure why', () => {
  const target = { shipmentId: 'shp_3', assetId: 'ast_1', ms: 40 }
  const image = { blobKey: 'k', width: 1800, height: 1200, format: 'jpeg' }
  assert.equal(
    renderLine(orderOf(), target, { printFile: image, bytes: 900, failure: undefined }).message,
    'print file for ast_1 in shp_3: 1800x1200 jpeg, 900 bytes in 40 ms',
  )
  const pdf = { blobKey: 'k', width: 0, height: 0, format: 'pdf' }
  assert.equal(
    renderLine(orderOf(), target, { printFile: pdf, bytes: 5000, failure: undefined }).message,
    'print file for ast_1 in shp_3: PDF checked, 5000 bytes in 40 ms',
  )
  const converted = { ...pdf, colourSpace: 'cmyk' }
  assert.equal(
    renderLine(orderOf(), target, { printFile: converted, bytes: 6000, failure: undefined }).message,
    'print file for ast_1 in shp_3: PDF checked and converted to CMYK, 6000 bytes in 40 ms',
  )
  const failed = renderLine(orderOf(), target, { printFile: undefined, bytes: 0, failure: 'too few pages' })
  assert.equal(failed.level, 'warn')
  assert.equal(failed.message, 'print file for ast_1 failed: too few pages')
})

test('a shipped report names the carrier and tracking number', () => {
  const report = { kind: 'shipped', carrier: null, tracking: { number: 'RM1', url: null }, dispatchDate: new Date() }
  const line = labReportLine(orderOf(), 'shp_3', report as never)
  assert.equal(line.message, 'lab gb1 reports shipment shp_3 shipped (Royal Mail, tracking RM1)')
  assert.equal(line.fields.trackingNumber, 'RM1')
})

test('an order that stops names the details in Error; a running order has no phase line', () => {
  const failed = phaseChangeLine(
    orderOf({ phase: 'failed', details: { downloaded: 'Error', allocated: 'NotStarted' } }),
  )
  assert.equal(failed?.level, 'warn')
  assert.equal(failed?.message, 'order ord_7 stopped: downloaded failed (see its issues)')
  assert.equal(phaseChangeLine(orderOf({ phase: 'complete' }))?.message, 'order ord_7 complete')
  assert.equal(phaseChangeLine(orderOf()), undefined)
})

test("an allocation says whether it meets the order's deliverBy, and warns when no plan could", () => {
  const planned = [
    {
      id: 'shp_4',
      labCode: 'uk6',
      labCountryCode: 'GB',
      carrier: { name: 'Royal Mail', service: 'Tracked 48' },
      itemIds: ['ori_1'],
      formats: {},
      price: { labCode: 'uk6', cost: 500n, tax: 100n, items: [] },
    },
  ]
  const plain = allocationLine(orderOf(), 1, { planned, unavailableItemIds: [] })
  assert.equal(plain.level, 'info')
  assert.equal('deliverBy' in plain.fields, false)
  const met = allocationLine(orderOf(), 1, {
    planned,
    unavailableItemIds: [],
    deliverBy: { date: '2026-03-13', met: true },
  })
  assert.equal(met.level, 'info')
  assert.equal(met.fields.deliverBy, '2026-03-13')
  assert.equal(met.fields.deliverByMet, true)
  const missed = allocationLine(orderOf(), 2, {
    planned,
    unavailableItemIds: [],
    deliverBy: { date: '2026-03-13', met: false, earliestDeliveryDate: '2026-03-17' },
  })
  assert.equal(missed.level, 'warn')
  assert.equal(missed.fields.deliverByMet, false)
  assert.equal(missed.fields.earliestDeliveryDate, '2026-03-17')
  assert.match(missed.message, /no plan delivers by 2026-03-13 \(earliest 2026-03-17\): the cheapest was allocated/)
})
