// The start-order step's transition: an order enters the pipeline once, every file queued for download.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newOrder, now } from '../../../test/support/pipeline-order.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import { startPipeline } from './start-order.ts'

tier('pure')

test('starting queues one download per file, once', () => {
  const { order, pipeline } = newOrder()
  const first = startPipeline(order, pipeline, now)
  assert.deepEqual(
    first.jobs.map((job) => job.key),
    ['download:ord_1:ast_1:1', 'download:ord_1:packingSlip:1'],
  )
  assert.equal(order.status.details.downloadAssets, 'InProgress')
  assert.deepEqual(startPipeline(order, pipeline, now), { changed: false, jobs: [] })
})
