// The download-file step's transitions: each attempt recorded once, retried with backoff, final failures not
// retried, and the order on to allocation once.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newOrder, now, stored } from '../../../test/support/pipeline-order.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import {
  DOWNLOAD_MAX_ATTEMPTS,
  failedDownloads,
  recordDownloadFailure,
  recordDownloadSuccess,
  retryFailedDownload,
} from './download-file.ts'
import { startPipeline } from './start-order.ts'

tier('pure')

test('a download success is recorded once and leads to allocation once', () => {
  const { order, pipeline } = newOrder()
  startPipeline(order, pipeline, now)
  const done = recordDownloadSuccess(order, pipeline, 'ast_1', stored, 'https://p.test/thumb', now)
  assert.deepEqual(
    done.jobs.map((job) => job.name),
    ['allocate-order'],
  )
  assert.equal(order.items[0]?.status, 'Ok')
  assert.equal(order.items[0]?.thumbnailUrl, 'https://p.test/thumb')
  assert.equal(order.status.details.downloadAssets, 'Complete')
  assert.deepEqual(recordDownloadSuccess(order, pipeline, 'ast_1', stored, null, now), { changed: false, jobs: [] })
})

test('a final failure is not retried: the asset fails at its first attempt, saying so', () => {
  const { order, pipeline } = newOrder()
  startPipeline(order, pipeline, now)
  const reason = 'printroute has no sample nope.jpg; its samples are landscape.jpg'
  const result = recordDownloadFailure(order, pipeline, 'ast_1', 1, reason, 30, now, { final: true })
  assert.equal(result.changed, true)
  assert.equal(
    result.jobs.some((job) => job.name === 'download-file'),
    false,
    'no second attempt',
  )
  const issues = order.status.issues.map((issue) => [issue.errorCode, issue.description])
  assert.equal(issues.length, 2, JSON.stringify(issues))
  assert.match(
    issues[0]?.[1] ?? '',
    /^Download attempt 1 of 10 failed for asset ast_1 .*: printroute has no sample nope\.jpg.*\(not retried\)$/,
  )
  assert.equal(issues[1]?.[0], 'order.items.assets.FailedToDownloaded')
  assert.match(issues[1]?.[1] ?? '', /failed to download after 1 attempt: printroute has no sample/)
  assert.equal(order.items[0]?.assets[0]?.status, 'Error')
})

test('failed attempts are recorded once each, retried with backoff, and fail the asset after the tenth', () => {
  const { order, pipeline } = newOrder()
  startPipeline(order, pipeline, now)
  for (let attempt = 1; attempt <= DOWNLOAD_MAX_ATTEMPTS; attempt++) {
    const result = recordDownloadFailure(order, pipeline, 'ast_1', attempt, 'HTTP 404 from x.test', 30, now)
    assert.equal(result.changed, true)
    if (attempt < DOWNLOAD_MAX_ATTEMPTS) {
      assert.equal(result.jobs[0]?.key, `download:ord_1:ast_1:${attempt + 1}`)
      assert.equal(result.jobs[0]?.startAfter?.getTime(), now.getTime() + 30 * 2 ** (attempt - 1) * 1000)
    }
    // A re-run of the same attempt changes nothing.
    assert.deepEqual(recordDownloadFailure(order, pipeline, 'ast_1', attempt, 'again', 30, now), {
      changed: false,
      jobs: [],
    })
  }
  const codes = order.status.issues.map((issue) => issue.errorCode)
  assert.equal(codes.filter((code) => code === 'order.items.assets.NotDownloaded').length, 10)
  assert.equal(codes.at(-1), 'order.items.assets.FailedToDownloaded')
  assert.equal(order.items[0]?.status, 'Invalid')
  assert.equal(order.items[0]?.assets[0]?.status, 'Error')
  assert.equal(order.status.details.downloadAssets, 'Error')
  assert.ok(
    order.status.issues.every((issue) => !issue.description.includes('secret')),
    'URL queries stay out of issues',
  )
})

test("an operator's retry of a failed download: pending again, its issue gone, one more attempt, then on as usual", () => {
  const { order, pipeline } = newOrder()
  startPipeline(order, pipeline, now)
  assert.equal(retryFailedDownload(order, pipeline, 'ast_1', now), undefined, 'nothing failed yet')
  recordDownloadFailure(order, pipeline, 'ast_1', 1, 'HTTP 404', 30, now, { final: true })
  assert.equal(pipeline.phase, 'failed')
  assert.deepEqual(failedDownloads(pipeline), ['ast_1'])
  const retried = retryFailedDownload(order, pipeline, 'ast_1', now)
  assert.deepEqual(
    retried?.jobs.map((job) => [job.name, job.key]),
    [['download-file', `download:${order.id}:ast_1:2`]],
  )
  assert.equal(pipeline.phase, 'downloading')
  assert.equal(pipeline.files.ast_1?.status, 'pending')
  assert.equal(order.status.details.downloadAssets, 'InProgress')
  assert.equal(order.items[0]?.assets[0]?.status, 'InProgress')
  assert.ok(!order.status.issues.some((issue) => issue.errorCode === 'order.items.assets.FailedToDownloaded'))
  assert.equal(retryFailedDownload(order, pipeline, 'ast_1', now), undefined, 'pending: not failed any more')
  const done = recordDownloadSuccess(order, pipeline, 'ast_1', stored, null, now)
  assert.deepEqual(
    done.jobs.map((job) => job.name),
    ['allocate-order'],
  )
})

test('a retry that fails again fails the asset again, with its issue; an asset held by its preflight is no retry', () => {
  const { order, pipeline } = newOrder()
  startPipeline(order, pipeline, now)
  recordDownloadFailure(order, pipeline, 'ast_1', 1, 'HTTP 404', 30, now, { final: true })
  retryFailedDownload(order, pipeline, 'ast_1', now)
  const again = recordDownloadFailure(order, pipeline, 'ast_1', 2, 'HTTP 404', 30, now, { final: true })
  assert.equal(again.changed, true)
  assert.equal(pipeline.phase, 'failed')
  assert.equal(
    order.status.issues.filter((issue) => issue.errorCode === 'order.items.assets.FailedToDownloaded').length,
    1,
  )
  const file = pipeline.files.ast_1
  if (file) file.stored = stored
  assert.deepEqual(failedDownloads(pipeline), [], 'a file that downloaded (and failed its preflight) is not listed')
})
