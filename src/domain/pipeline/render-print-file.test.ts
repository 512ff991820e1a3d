// The render-print-file step's transitions: a print file that cannot be made.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newOrder, now, stored } from '../../../test/support/pipeline-order.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import { applyAllocation } from './allocate-order.ts'
import { recordDownloadSuccess } from './download-file.ts'
import { recordPrintFileFailure } from './render-print-file.ts'
import { startPipeline } from './start-order.ts'

tier('pure')

test('a print file that cannot be made keeps its reason, also when the order already stopped on another', () => {
  const { order, pipeline } = newOrder(2)
  startPipeline(order, pipeline, now)
  recordDownloadSuccess(order, pipeline, 'ast_1', stored, null, now)
  recordDownloadSuccess(order, pipeline, 'ast_2', { ...stored, blobKey: 'assets/ord_1/ast_2' }, null, now)
  const shipment = {
    id: 'shp_1',
    labCode: 'uk6',
    labCountryCode: 'GB',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    itemIds: ['ori_1'],
    formats: { ori_1: 'jpeg' },
  }
  applyAllocation(order, pipeline, 1, [shipment], [], now)

  const first = recordPrintFileFailure(order, pipeline, 'shp_1', 'ast_1', 'unreadable image: bad', now)
  assert.equal(first.changed, true)
  assert.equal(pipeline.phase, 'failed')
  assert.equal(order.status.issues.length, 1)
  assert.equal(recordPrintFileFailure(order, pipeline, 'shp_1', 'ast_1', 'again', now).changed, false)

  const before = structuredClone(order)
  const second = recordPrintFileFailure(order, pipeline, 'shp_1', 'ast_2', 'too large', now)
  assert.deepEqual(second, { changed: true, jobs: [] })
  assert.deepEqual(order, before, 'the order document, its issues included, is as the first failure left it')
  assert.deepEqual(pipeline.shipments.shp_1?.printFileFailures, { ast_1: 'unreadable image: bad', ast_2: 'too large' })
  assert.equal(recordPrintFileFailure(order, pipeline, 'shp_1', 'ast_2', 'too large', now).changed, false)
})
