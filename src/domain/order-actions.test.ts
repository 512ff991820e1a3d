import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import type { DeliveryEstimate } from './delivery-promise.ts'
import type { OrderDocument, Recipient, Stage } from './order.ts'
import { STAGES } from './order.ts'
import {
  anyAssetReplaceable,
  availableActions,
  cancelOrder,
  canReplaceAsset,
  replaceAsset,
  replaceOpenShipments,
  updateRecipient,
} from './order-actions.ts'
import { refreshOrderEstimate, setShipmentEstimate } from './pipeline/delivery-estimates.ts'
import { emptyPipeline, ISSUE_CODES, type PipelineState, type ShipmentState } from './pipeline/pipeline-order.ts'

tier('pure')

function withShipments(...states: ShipmentState[]): PipelineState {
  const pipeline = emptyPipeline()
  states.forEach((state, index) => {
    pipeline.shipments[`shp_${index + 1}`] = { labCode: 'uk6', state, printFiles: {}, formats: {} }
  })
  return pipeline
}

const SHIPMENT_STATES: ShipmentState[] = [
  'allocated',
  'submitted',
  'acknowledged',
  'inProduction',
  'shipped',
  'rejected',
  'cancelled',
]

test('metadata can always be changed', () => {
  for (const stage of STAGES) {
    for (const state of SHIPMENT_STATES) {
      assert.equal(availableActions(stage, withShipments(state)).changeMetaData.isAvailable, 'Yes')
    }
  }
})

test('cancel, recipient and shipping method are available while nothing has reached a lab', () => {
  for (const stage of STAGES) {
    for (const pipeline of [
      emptyPipeline(),
      withShipments(),
      withShipments('allocated'),
      withShipments('rejected', 'allocated'),
    ]) {
      const expected = stage === 'InProgress' ? 'Yes' : 'No'
      const actions = availableActions(stage, pipeline)
      assert.equal(actions.cancel.isAvailable, expected, stage)
      assert.equal(actions.changeRecipientDetails.isAvailable, expected, stage)
      assert.equal(actions.changeShippingMethod.isAvailable, expected, stage)
    }
  }
})

test('once any shipment is with a lab, only metadata can change', () => {
  for (const submitted of ['submitted', 'acknowledged', 'inProduction', 'shipped'] as ShipmentState[]) {
    for (const stage of STAGES) {
      const actions = availableActions(stage, withShipments('allocated', submitted))
      assert.equal(actions.cancel.isAvailable, 'No', submitted)
      assert.equal(actions.changeRecipientDetails.isAvailable, 'No', submitted)
      assert.equal(actions.changeShippingMethod.isAvailable, 'No', submitted)
    }
  }
})

test('a failed order can be cancelled or get a new recipient, but is not re-planned for another method', () => {
  const pipeline = withShipments('allocated')
  pipeline.phase = 'failed'
  const actions = availableActions('InProgress', pipeline)
  assert.deepEqual(
    [actions.cancel.isAvailable, actions.changeRecipientDetails.isAvailable, actions.changeShippingMethod.isAvailable],
    ['Yes', 'Yes', 'No'],
  )
})

const NOW = new Date('2026-03-01T10:00:00Z')

/** A minimal order whose shipments shp_1, shp_2, ... are in these pipeline states. */
function orderWith(stage: Stage, ...states: ShipmentState[]): { order: OrderDocument; pipeline: PipelineState } {
  const pipeline = withShipments(...states)
  pipeline.phase = 'producing'
  const order = {
    id: 'ord_1',
    lastUpdated: '2026-03-01T09:00:00.000Z',
    shippingMethod: 'Standard',
    status: { stage, details: {}, issues: [] },
    recipient: { name: 'Ada', email: null, phoneNumber: null, address: { countryCode: 'GB' } },
    items: states.map((_, index) => ({ id: `ori_${index + 1}`, assets: [{ id: `ast_${index + 1}` }] })),
    shipments: states.map((state, index) => ({
      id: `shp_${index + 1}`,
      carrier: { name: 'Royal Mail', service: 'Standard' },
      fulfillmentLocation: { countryCode: 'GB', labCode: 'uk6' },
      items: [{ itemId: `ori_${index + 1}` }],
      status: state === 'shipped' ? 'Shipped' : 'Processing',
      cancelled: false,
    })),
  } as unknown as OrderDocument
  return { order, pipeline }
}

test('cancel: nothing with a lab -> the whole order; some -> those not with a lab; all -> nothing', () => {
  const whole = orderWith('InProgress', 'allocated', 'allocated')
  const result = cancelOrder(whole.order, whole.pipeline, NOW)
  assert.deepEqual(result, {
    outcome: 'Cancelled',
    changed: true,
    wholeOrder: true,
    cancelledShipmentIds: ['shp_1', 'shp_2'],
    requestedShipmentIds: [],
    awaitedShipmentIds: [],
  })
  assert.equal(whole.order.status.stage, 'Cancelled')
  assert.equal(whole.pipeline.phase, 'cancelled')
  assert.ok(whole.order.shipments.every((shipment) => shipment.cancelled && shipment.status === 'Cancelled'))
  assert.equal(whole.order.lastUpdated, NOW.toISOString())

  const partial = orderWith('InProgress', 'inProduction', 'allocated', 'rejected')
  const partly = cancelOrder(partial.order, partial.pipeline, NOW)
  assert.equal(partly.outcome, 'FailedToCancel')
  assert.equal(partly.wholeOrder, false)
  assert.deepEqual(partly.cancelledShipmentIds, ['shp_2'])
  assert.equal(partial.order.status.stage, 'InProgress')
  assert.deepEqual(
    partial.order.shipments.map((shipment) => shipment.cancelled),
    [false, true, false],
  )

  for (const submitted of ['submitted', 'acknowledged', 'inProduction', 'shipped'] as ShipmentState[]) {
    const none = orderWith('InProgress', submitted)
    const before = structuredClone(none)
    assert.equal(cancelOrder(none.order, none.pipeline, NOW).outcome, 'FailedToCancel')
    assert.deepEqual(none, before)
  }
  for (const stage of ['Complete', 'Cancelled'] as Stage[]) {
    const closed = orderWith(stage, 'shipped')
    const before = structuredClone(closed)
    assert.equal(cancelOrder(closed.order, closed.pipeline, NOW).outcome, 'ActionNotAvailable')
    assert.deepEqual(closed, before)
  }
  // No shipments yet (new or on hold): the whole order.
  const fresh = orderWith('InProgress')
  assert.equal(cancelOrder(fresh.order, fresh.pipeline, NOW).outcome, 'Cancelled')
})

test('asking labs: shipments not yet in production get a request; the labs decide while all can be asked', () => {
  const asking = { asksLabs: true }
  const all = orderWith('InProgress', 'submitted', 'acknowledged')
  const before = structuredClone(all.order)
  const result = cancelOrder(all.order, all.pipeline, NOW, asking)
  assert.deepEqual(result, {
    outcome: 'FailedToCancel',
    changed: true,
    wholeOrder: false,
    cancelledShipmentIds: [],
    requestedShipmentIds: ['shp_1', 'shp_2'],
    awaitedShipmentIds: ['shp_1', 'shp_2'],
  })
  assert.deepEqual(all.order, before, 'the order document waits for the answers')
  assert.deepEqual(all.pipeline.shipments.shp_1?.cancellationRequested, { at: NOW.toISOString() })
  // A second cancel while the requests are open waits again without asking again.
  const again = cancelOrder(all.order, all.pipeline, new Date(NOW.getTime() + 60_000), asking)
  assert.deepEqual(
    [again.changed, again.requestedShipmentIds, again.awaitedShipmentIds],
    [false, [], ['shp_1', 'shp_2']],
  )
  assert.equal(all.pipeline.shipments.shp_1?.cancellationRequested?.at, NOW.toISOString())

  // One in production: the others are asked (and the open one cancelled) but nothing waits: FailedToCancel.
  const mixed = orderWith('InProgress', 'inProduction', 'submitted', 'allocated')
  const partly = cancelOrder(mixed.order, mixed.pipeline, NOW, asking)
  assert.deepEqual(
    [partly.outcome, partly.cancelledShipmentIds, partly.requestedShipmentIds, partly.awaitedShipmentIds],
    ['FailedToCancel', ['shp_3'], ['shp_2'], []],
  )
  assert.equal(mixed.pipeline.shipments.shp_1?.cancellationRequested, undefined)

  // A lab that answered too late is not asked again; without asking (Sandbox) nothing is requested.
  const late = orderWith('InProgress', 'acknowledged')
  const lateShipment = late.pipeline.shipments.shp_1
  assert.ok(lateShipment)
  lateShipment.cancellationRequested = { at: NOW.toISOString(), answer: 'tooLate', answeredAt: NOW.toISOString() }
  const refused = cancelOrder(late.order, late.pipeline, NOW, asking)
  assert.deepEqual([refused.changed, refused.requestedShipmentIds, refused.awaitedShipmentIds], [false, [], []])
  const sandbox = orderWith('InProgress', 'submitted')
  cancelOrder(sandbox.order, sandbox.pipeline, NOW)
  assert.equal(sandbox.pipeline.shipments.shp_1?.cancellationRequested, undefined)
})

test('cancel stays available while every shipment with a lab can still be asked', () => {
  const asking = { asksLabs: true }
  for (const state of ['submitted', 'acknowledged'] as ShipmentState[]) {
    assert.equal(availableActions('InProgress', withShipments('allocated', state), asking).cancel.isAvailable, 'Yes')
    assert.equal(availableActions('InProgress', withShipments('allocated', state)).cancel.isAvailable, 'No')
    const actions = availableActions('InProgress', withShipments(state), asking)
    assert.deepEqual(
      [actions.changeRecipientDetails.isAvailable, actions.changeShippingMethod.isAvailable],
      ['No', 'No'],
    )
  }
  for (const state of ['inProduction', 'shipped'] as ShipmentState[]) {
    assert.equal(availableActions('InProgress', withShipments('submitted', state), asking).cancel.isAvailable, 'No')
  }
  const answered = withShipments('acknowledged')
  const shipment = answered.shipments.shp_1
  assert.ok(shipment)
  shipment.cancellationRequested = { at: NOW.toISOString(), answer: 'tooLate' }
  assert.equal(availableActions('InProgress', answered, asking).cancel.isAvailable, 'No')
  assert.equal(availableActions('Complete', withShipments('submitted'), asking).cancel.isAvailable, 'No')
})

const RECIPIENT: Recipient = {
  name: 'Charles',
  email: null,
  phoneNumber: null,
  address: {
    line1: '1 Street',
    line2: null,
    postalOrZipCode: 'W1',
    countryCode: 'GB',
    townOrCity: 'London',
    stateOrCounty: null,
  },
}

test('updateRecipient reports every live shipment and changes nothing when all are with their labs', () => {
  const partial = orderWith('InProgress', 'submitted', 'allocated', 'cancelled')
  const result = updateRecipient(partial.order, partial.pipeline, RECIPIENT, NOW)
  assert.equal(result.outcome, 'PartiallyUpdated')
  assert.deepEqual(result.results, [
    { shipmentId: 'shp_1', successful: false },
    { shipmentId: 'shp_2', successful: true },
  ])
  assert.equal(partial.order.recipient.name, 'Charles')

  const none = orderWith('InProgress', 'acknowledged')
  assert.equal(updateRecipient(none.order, none.pipeline, RECIPIENT, NOW).outcome, 'FailedToUpdate')
  assert.equal(none.order.recipient.name, 'Ada')

  const fresh = orderWith('InProgress')
  assert.deepEqual(updateRecipient(fresh.order, fresh.pipeline, RECIPIENT, NOW).results, [])
  assert.equal(
    updateRecipient(orderWith('Complete').order, emptyPipeline(), RECIPIENT, NOW).outcome,
    'ActionNotAvailable',
  )
})

test('re-planning keeps a shipment with the same lab and items, and replaces the others', () => {
  const { order, pipeline } = orderWith('InProgress', 'allocated', 'allocated')
  const [first, second] = order.shipments
  assert.ok(first && second)
  const replaced = replaceOpenShipments(
    order,
    pipeline,
    [first, second],
    [
      {
        id: 'shp_7',
        labCode: 'uk6',
        labCountryCode: 'GB',
        carrier: { name: 'FedEx', service: 'FedEx Next Day' },
        itemIds: ['ori_1'],
        formats: {},
      },
      {
        id: 'shp_8',
        labCode: 'us1',
        labCountryCode: 'US',
        carrier: { name: 'UPS', service: 'UPS 1-day Shipping' },
        itemIds: ['ori_2'],
        formats: { ori_2: 'png' },
      },
    ],
    NOW,
  )
  assert.deepEqual(replaced.keptOrAddedIds, ['shp_1', 'shp_8'])
  assert.deepEqual(replaced.removedIds, ['shp_2'])
  assert.deepEqual(
    order.shipments.map((shipment) => [shipment.id, shipment.carrier.name]),
    [
      ['shp_1', 'FedEx'],
      ['shp_8', 'UPS'],
    ],
  )
  assert.equal(pipeline.shipments.shp_2, undefined)
  assert.deepEqual(pipeline.shipments.shp_8?.formats, { ast_2: 'png' })
  assert.deepEqual(
    replaced.jobs.map((job) => job.key),
    ['render:shp_8:ast_2'],
  )
  assert.equal(pipeline.phase, 'rendering')
})

const ESTIMATES: DeliveryEstimate[] = [
  { estimatedDispatchDate: '2026-03-03', estimatedDelivery: { from: '2026-03-05', to: '2026-03-06' } },
  { estimatedDispatchDate: '2026-03-04', estimatedDelivery: { from: '2026-03-06', to: '2026-03-10' } },
]

/** An order whose shipments carry ESTIMATES (one each, in order) as shipment estimates and promises. */
function estimatedOrder(stage: Stage, ...states: ShipmentState[]) {
  const { order, pipeline } = orderWith(stage, ...states)
  order.shipments.forEach((shipment, index) => {
    const estimate = ESTIMATES[index] ?? null
    setShipmentEstimate(shipment, estimate)
    const state = pipeline.shipments[shipment.id]
    if (state && estimate) state.promise = estimate
  })
  refreshOrderEstimate(order, pipeline)
  return { order, pipeline }
}

test('cancelled shipments lose their estimate, and the order keeps the latest of the others (none once cancelled)', () => {
  const partial = estimatedOrder('InProgress', 'inProduction', 'allocated')
  assert.deepEqual(partial.order.estimatedDelivery, ESTIMATES[1]?.estimatedDelivery)
  cancelOrder(partial.order, partial.pipeline, NOW)
  assert.equal('estimatedDelivery' in (partial.order.shipments[1] ?? {}), false)
  assert.equal(partial.order.estimatedDispatchDate, '2026-03-03')
  assert.deepEqual(partial.order.estimatedDelivery, ESTIMATES[0]?.estimatedDelivery)

  const whole = estimatedOrder('InProgress', 'allocated', 'allocated')
  cancelOrder(whole.order, whole.pipeline, NOW)
  assert.equal('estimatedDispatchDate' in whole.order, false)
  assert.equal('estimatedDelivery' in whole.order, false)
})

test("re-planning gives kept and new shipments the new plan's estimates and promises, and refreshes the order", () => {
  const { order, pipeline } = estimatedOrder('InProgress', 'allocated', 'allocated')
  const [first, second] = order.shipments
  assert.ok(first && second)
  const faster: DeliveryEstimate = {
    estimatedDispatchDate: '2026-03-03',
    estimatedDelivery: { from: '2026-03-04', to: '2026-03-04' },
  }
  replaceOpenShipments(
    order,
    pipeline,
    [first, second],
    [
      {
        id: 'shp_7',
        labCode: 'uk6',
        labCountryCode: 'GB',
        carrier: { name: 'FedEx', service: 'FedEx Next Day' },
        itemIds: ['ori_1'],
        formats: {},
        estimate: faster,
      },
      {
        id: 'shp_8',
        labCode: 'us1',
        labCountryCode: 'US',
        carrier: { name: 'UPS', service: 'UPS 1-day Shipping' },
        itemIds: ['ori_2'],
        formats: {},
        estimate: faster,
      },
    ],
    NOW,
  )
  assert.deepEqual(
    order.shipments.map((shipment) => [shipment.id, shipment.estimatedDelivery]),
    [
      ['shp_1', faster.estimatedDelivery],
      ['shp_8', faster.estimatedDelivery],
    ],
  )
  assert.deepEqual(pipeline.shipments.shp_1?.promise, faster)
  assert.deepEqual(pipeline.shipments.shp_8?.promise, faster)
  assert.deepEqual(order.estimatedDelivery, faster.estimatedDelivery)
})

/** An order of one book item (ori_1, asset ast_1 on `default`) whose pipeline is at `phase`, its file `status`. */
function heldOrder(phase: PipelineState['phase'], status: 'pending' | 'downloaded' | 'failed' | null) {
  const pipeline = emptyPipeline()
  pipeline.phase = phase
  if (status) {
    pipeline.files.ast_1 = {
      kind: 'asset',
      url: 'http://127.0.0.1/old.pdf',
      expectedMd5: 'a'.repeat(32),
      failedAttempts: 0,
      status,
      stored: null,
    }
  }
  const order = {
    id: 'ord_1',
    lastUpdated: '2026-03-01T09:00:00.000Z',
    status: {
      stage: 'InProgress',
      details: { downloadAssets: phase === 'failed' ? 'Error' : 'InProgress' },
      issues: [
        {
          objectId: 'ori_1',
          errorCode: ISSUE_CODES.preflightFailed,
          description: 'Asset ast_1 failed preflight (Encrypted): The PDF is encrypted.',
          authorisationDetails: null,
        },
        { objectId: 'ord_1', errorCode: 'order.other', description: 'kept', authorisationDetails: null },
      ],
    },
    items: [
      {
        id: 'ori_1',
        status: 'Invalid',
        thumbnailUrl: null,
        assets: [
          {
            id: 'ast_1',
            printArea: 'default',
            url: 'http://127.0.0.1/old.pdf',
            md5Hash: 'a'.repeat(32),
            status: 'Error',
            thumbnailUrl: null,
          },
        ],
      },
    ],
    shipments: [],
  } as unknown as OrderDocument
  return { order, pipeline }
}

const NEW_FILE = { itemId: 'ori_1', printArea: 'DEFAULT', url: 'http://127.0.0.1/new.pdf' }

test('replaceAsset: a held file is pending again under its next replacement, its issues gone, the order downloading', () => {
  const { order, pipeline } = heldOrder('failed', 'failed')
  const result = replaceAsset(order, pipeline, NEW_FILE, NOW)
  assert.ok(!('failures' in result))
  assert.deepEqual([result.outcome, result.changed, result.assetId], ['Updated', true, 'ast_1'])
  assert.deepEqual(
    result.jobs.map((job) => job.key),
    ['download:ord_1:ast_1:1:r1'],
  )
  assert.equal(pipeline.phase, 'downloading')
  assert.deepEqual(pipeline.files.ast_1, {
    kind: 'asset',
    url: NEW_FILE.url,
    expectedMd5: null,
    failedAttempts: 0,
    status: 'pending',
    stored: null,
    replacement: 1,
  })
  const item = order.items[0]
  assert.deepEqual(
    [item?.status, item?.assets[0]?.status, item?.assets[0]?.url],
    ['NotYetDownloaded', 'InProgress', NEW_FILE.url],
  )
  assert.equal(item?.assets[0]?.md5Hash, null)
  assert.equal(order.status.details.downloadAssets, 'InProgress')
  assert.deepEqual(
    order.status.issues.map((issue) => issue.errorCode),
    ['order.other'],
  )
  // A second replacement counts on.
  pipeline.files.ast_1 = {
    ...(pipeline.files.ast_1 as NonNullable<(typeof pipeline.files)['ast_1']>),
    status: 'failed',
  }
  pipeline.phase = 'failed'
  const again = replaceAsset(order, pipeline, NEW_FILE, NOW)
  assert.ok(!('failures' in again))
  assert.deepEqual(
    again.jobs.map((job) => job.key),
    ['download:ord_1:ast_1:1:r2'],
  )
})

test('replaceAsset: when it is available, and what it refuses', () => {
  // Before the start only the URL changes: the start queues the download.
  const waiting = heldOrder('waiting', null)
  const before = replaceAsset(waiting.order, waiting.pipeline, NEW_FILE, NOW)
  assert.ok(!('failures' in before))
  assert.deepEqual([before.outcome, before.jobs, waiting.pipeline.files], ['Updated', [], {}])
  // While downloading, any state of the file; once stopped at the downloads, only a failed file.
  for (const status of ['pending', 'downloaded', 'failed'] as const) {
    assert.equal(canReplaceAsset('InProgress', heldOrder('downloading', status).pipeline, 'ast_1'), true, status)
  }
  assert.equal(canReplaceAsset('InProgress', heldOrder('failed', 'downloaded').pipeline, 'ast_1'), false)
  // Allocation began, or the order ended: not available, nothing changed.
  for (const phase of ['allocating', 'rendering', 'producing', 'complete', 'cancelled'] as const) {
    const { order, pipeline } = heldOrder(phase, 'downloaded')
    const result = replaceAsset(order, pipeline, NEW_FILE, NOW)
    assert.ok(!('failures' in result))
    assert.deepEqual(
      [result.outcome, result.changed, order.items[0]?.assets[0]?.url],
      ['ActionNotAvailable', false, 'http://127.0.0.1/old.pdf'],
    )
  }
  const withShipment = heldOrder('failed', 'failed')
  withShipment.pipeline.shipments.shp_1 = { labCode: 'uk6', state: 'cancelled', printFiles: {}, formats: {} }
  assert.equal(canReplaceAsset('InProgress', withShipment.pipeline, 'ast_1'), false)
  assert.equal(canReplaceAsset('Cancelled', heldOrder('failed', 'failed').pipeline, 'ast_1'), false)
  assert.equal(anyAssetReplaceable(heldOrder('failed', 'failed').order, heldOrder('failed', 'failed').pipeline), true)
  // A bad reference names its field, with the valid values.
  const { order, pipeline } = heldOrder('failed', 'failed')
  assert.deepEqual(replaceAsset(order, pipeline, { ...NEW_FILE, itemId: 'ori_9' }, NOW), {
    failures: { itemId: [{ code: 'InvalidValue', providedValue: 'ori_9', validValues: ['ori_1'] }] },
  })
  assert.deepEqual(replaceAsset(order, pipeline, { ...NEW_FILE, printArea: 'back' }, NOW), {
    failures: { printArea: [{ code: 'UnknownPrintArea', providedValue: 'back', validValues: ['default'] }] },
  })
})
