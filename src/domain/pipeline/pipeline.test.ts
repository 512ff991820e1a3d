// The pipeline's transitions are pure and idempotent: applied twice (a job re-run after a crash), the second
// application changes nothing and causes no jobs.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newOrder, now, stored } from '../../../test/support/pipeline-order.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import { applyAllocation } from './allocate-order.ts'
import { recordDownloadSuccess } from './download-file.ts'
import { recordLabReport } from './lab-report.ts'
import { recordPrintFile } from './render-print-file.ts'
import { startPipeline } from './start-order.ts'
import { recordSubmitted } from './submit-shipment.ts'

tier('pure')

test('from allocation to Complete, each step applied twice changes nothing the second time', () => {
  const { order, pipeline } = newOrder()
  startPipeline(order, pipeline, now)
  recordDownloadSuccess(order, pipeline, 'ast_1', stored, null, now)
  const shipment = {
    id: 'shp_1',
    labCode: 'uk6',
    labCountryCode: 'GB',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    itemIds: ['ori_1'],
    formats: { ori_1: 'jpeg' },
  }
  const allocated = applyAllocation(order, pipeline, 1, [shipment], [], now)
  assert.deepEqual(
    allocated.jobs.map((job) => job.key),
    ['render:shp_1:ast_1'],
  )
  assert.equal(applyAllocation(order, pipeline, 1, [shipment], [], now).changed, false)
  assert.equal(order.shipments.length, 1)

  const printFile = { blobKey: 'print-files/ord_1/shp_1/ast_1.jpg', width: 4800, height: 7200, format: 'jpeg' }
  assert.deepEqual(
    recordPrintFile(order, pipeline, 'shp_1', 'ast_1', printFile, now).jobs.map((job) => job.key),
    ['submit:shp_1'],
  )
  assert.equal(recordPrintFile(order, pipeline, 'shp_1', 'ast_1', printFile, now).changed, false)
  assert.equal(recordSubmitted(order, pipeline, 'shp_1', now).changed, true)
  assert.equal(recordSubmitted(order, pipeline, 'shp_1', now).changed, false)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', { kind: 'inProduction' }, now).changed, true)
  assert.equal(
    recordLabReport(order, pipeline, 'shp_1', { kind: 'acknowledged' }, now).changed,
    false,
    'never backwards',
  )
  const shipped = {
    kind: 'shipped' as const,
    carrier: null,
    tracking: { number: 'T1', url: 'https://t.test/T1' },
    dispatchDate: now,
  }
  assert.equal(recordLabReport(order, pipeline, 'shp_1', shipped, now).changed, true)
  assert.equal(recordLabReport(order, pipeline, 'shp_1', shipped, now).changed, false)
  assert.equal(order.status.stage, 'Complete')
  assert.deepEqual(Object.values(order.status.details), ['Complete', 'Complete', 'Complete', 'Complete', 'Complete'])
  assert.equal(order.shipments[0]?.status, 'Shipped')
})
