// The pipeline's transitions are pure and idempotent: applied twice (a job re-run after a crash), the second
// application changes nothing and causes no jobs.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import type { DeliveryEstimate } from './delivery-promise.ts'
import { buildNewOrderDocument, type NewOrder, type OrderDocument } from './order.ts'
import {
  applyAllocation,
  DOWNLOAD_MAX_ATTEMPTS,
  emptyPipeline,
  type PipelineState,
  recordDownloadFailure,
  recordDownloadSuccess,
  recordLabReport,
  recordPrintFile,
  recordPrintFileFailure,
  recordSubmitted,
  startPipeline,
} from './order-pipeline.ts'

tier('pure')

const now = new Date('2026-03-01T09:00:00.000Z')
const stored = {
  blobKey: 'assets/ord_1/ast_1',
  contentType: 'image/jpeg',
  bytes: 10,
  md5: 'x',
  width: null,
  height: null,
}

function newOrder(assetCount = 1): { order: OrderDocument; pipeline: PipelineState } {
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
    packingSlip: { url: 'https://x.test/slip.pdf' },
    metadata: null,
    items: [
      {
        merchantReference: null,
        sku: 'GLOBAL-FAP-16x24',
        copies: 1,
        sizing: 'fillPrintArea',
        recipientCost: null,
        attributes: {},
        assets: Array.from({ length: assetCount }, (_, index) => ({
          printArea: 'default',
          url: `https://x.test/a${index}.jpg?sig=secret`,
          md5Hash: null,
          pageCount: null,
        })),
      },
    ],
  }
  const assets = Array.from({ length: assetCount }, (_, index) => `ast_${index + 1}`)
  const order = buildNewOrderDocument(input, { order: 'ord_1', items: ['ori_1'], assets }, now)
  return { order, pipeline: emptyPipeline() }
}

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
