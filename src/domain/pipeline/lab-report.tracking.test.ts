// The lab-report step's tracking reports: a report with fromStatus applies only while the shipment has that status.
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

test('a tracking report with fromStatus applies only while the shipment still has that status', () => {
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
  applyAllocation(order, pipeline, 1, [shipment], [], now)
  const printFile = { blobKey: 'print-files/ord_1/shp_1/ast_1.jpg', width: 4800, height: 7200, format: 'jpeg' }
  recordPrintFile(order, pipeline, 'shp_1', 'ast_1', printFile, now)
  recordSubmitted(order, pipeline, 'shp_1', now)
  const shipped = { kind: 'shipped' as const, carrier: null, tracking: null, dispatchDate: now }
  assert.equal(recordLabReport(order, pipeline, 'shp_1', shipped, now).changed, true)

  const scan = (time: string, status: 'InTransit' | 'Delivered') => ({ time, status, description: status })
  const inTransit = (time: string) => ({
    kind: 'tracking' as const,
    events: [scan(time, 'InTransit')],
    fromStatus: null,
  })
  assert.equal(recordLabReport(order, pipeline, 'shp_1', inTransit('2026-03-01T10:00:00.000Z'), now).changed, true)
  // The same step run a second time at once (another scan time): the shipment has moved from "no scan" already.
  assert.equal(recordLabReport(order, pipeline, 'shp_1', inTransit('2026-03-01T10:00:00.500Z'), now).changed, false)
  assert.equal(order.shipments[0]?.trackingEvents?.length, 1)
  const stale = { kind: 'tracking' as const, events: [scan('2026-03-02T10:00:00Z', 'Delivered')], fromStatus: null }
  assert.equal(recordLabReport(order, pipeline, 'shp_1', stale, now).changed, false)
  const delivered = { ...stale, fromStatus: 'InTransit' as const }
  assert.equal(recordLabReport(order, pipeline, 'shp_1', delivered, now).changed, true)
  assert.equal(order.shipments[0]?.deliveryStatus, 'Delivered')
  assert.equal(order.deliveredAt, '2026-03-02T10:00:00.000Z')
})
