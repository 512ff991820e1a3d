import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import {
  buildLabCloudEvent,
  type LabShipmentSnapshot,
  labEventsOf,
  labEventType,
  labShipmentsOf,
} from './lab-events.ts'
import type { PipelineOrder } from './pipeline/pipeline-order.ts'

tier('pure')

const shipment = (overrides: Partial<LabShipmentSnapshot> = {}): LabShipmentSnapshot => ({
  labCode: 'uk6',
  state: 'submitted',
  itemIds: ['itm_1', 'itm_2'],
  packingSlip: false,
  cancellationRequestedAt: null,
  ...overrides,
})

test('a shipment reaching its lab is created; nothing else changes nothing', () => {
  assert.deepEqual(labEventsOf({ shp_1: shipment({ state: 'allocated' }) }, { shp_1: shipment() }), [
    { shipmentId: 'shp_1', labCode: 'uk6', event: { kind: 'created' } },
  ])
  assert.deepEqual(labEventsOf({}, { shp_1: shipment() }), [
    { shipmentId: 'shp_1', labCode: 'uk6', event: { kind: 'created' } },
  ])
  assert.deepEqual(labEventsOf({ shp_1: shipment() }, { shp_1: shipment() }), [])
  assert.deepEqual(
    labEventsOf({ shp_1: shipment() }, { shp_1: shipment({ state: 'acknowledged' }) }),
    [],
    'the lab reports its own progress: nothing to push',
  )
  assert.deepEqual(
    labEventsOf({ shp_1: shipment({ state: 'allocated' }) }, { shp_1: shipment({ state: 'allocated' }) }),
    [],
  )
})

test('items leaving a job its lab has are itemsRemoved; other item changes are replanned', () => {
  assert.deepEqual(
    labEventsOf(
      { shp_1: shipment({ state: 'acknowledged' }) },
      { shp_1: shipment({ state: 'acknowledged', itemIds: ['itm_2'] }) },
    ),
    [{ shipmentId: 'shp_1', labCode: 'uk6', event: { kind: 'changed', change: 'itemsRemoved' } }],
  )
  assert.deepEqual(labEventsOf({ shp_1: shipment() }, { shp_1: shipment({ itemIds: ['itm_2', 'itm_3'] }) }), [
    { shipmentId: 'shp_1', labCode: 'uk6', event: { kind: 'changed', change: 'replanned' } },
  ])
  assert.deepEqual(
    labEventsOf({ shp_1: shipment() }, { shp_1: shipment({ itemIds: ['itm_2', 'itm_1'] }) }),
    [],
    'the same items in another order are the same job',
  )
  assert.deepEqual(
    labEventsOf({ shp_1: shipment() }, { shp_1: shipment({ state: 'rejected', itemIds: [] }) }),
    [],
    'a job the lab rejected whole is not pushed back to it',
  )
})

test('the packing slip appearing and a cancellation request are pushed to the lab that has the job', () => {
  assert.deepEqual(labEventsOf({ shp_1: shipment() }, { shp_1: shipment({ packingSlip: true }) }), [
    { shipmentId: 'shp_1', labCode: 'uk6', event: { kind: 'changed', change: 'packingSlipAdded' } },
  ])
  const asked = '2026-03-01T10:00:00.000Z'
  assert.deepEqual(labEventsOf({ shp_1: shipment() }, { shp_1: shipment({ cancellationRequestedAt: asked }) }), [
    { shipmentId: 'shp_1', labCode: 'uk6', event: { kind: 'cancellationRequested' } },
  ])
  // The same request (answered or not) is not pushed again; a new one after a lapse is.
  const again = (before: string, after: string) =>
    labEventsOf(
      { shp_1: shipment({ cancellationRequestedAt: before }) },
      { shp_1: shipment({ cancellationRequestedAt: after }) },
    )
  assert.deepEqual(again(asked, asked), [])
  assert.deepEqual(again(asked, '2026-03-02T11:00:00.000Z'), [
    { shipmentId: 'shp_1', labCode: 'uk6', event: { kind: 'cancellationRequested' } },
  ])
  assert.deepEqual(
    labEventsOf(
      { shp_1: shipment({ state: 'allocated' }) },
      { shp_1: shipment({ state: 'allocated', cancellationRequestedAt: '2026-03-01T10:00:00.000Z' }) },
    ),
    [],
    'a shipment not yet with its lab has nothing to cancel there',
  )
})

test('a pushed job is a CloudEvent with the job as data, the shipment as subject, and the reason or change', () => {
  const event = buildLabCloudEvent({
    id: 'evt_9',
    type: labEventType('acme', { kind: 'reminder', reason: 'overdue' }),
    source: 'https://print.example/labs/v1/jobs',
    time: new Date('2026-03-01T09:00:00Z'),
    event: { kind: 'reminder', reason: 'overdue' },
    job: { shipmentId: 'shp_4' },
  })
  assert.deepEqual(event, {
    specversion: '1.0',
    type: 'com.acme.lab.job.reminder',
    source: 'https://print.example/labs/v1/jobs',
    id: 'evt_9',
    time: '2026-03-01T09:00:00.000Z',
    datacontenttype: 'application/json',
    data: { job: { shipmentId: 'shp_4' }, reason: 'overdue' },
    subject: 'shp_4',
  })
})

test('Sandbox shipments never push: their labs are simulated', () => {
  const order = (environment: 'live' | 'sandbox') =>
    ({
      environment,
      document: { shipments: [{ id: 'shp_1', items: [{ itemId: 'itm_1' }] }] },
      pipeline: { shipments: { shp_1: { labCode: 'uk6', state: 'submitted', printFiles: {}, formats: {} } } },
    }) as unknown as PipelineOrder
  assert.deepEqual(labShipmentsOf(order('sandbox')), {})
  assert.deepEqual(labShipmentsOf(order('live')), {
    shp_1: {
      labCode: 'uk6',
      state: 'submitted',
      itemIds: ['itm_1'],
      packingSlip: false,
      cancellationRequestedAt: null,
    },
  })
  assert.equal(labEventsOf({}, labShipmentsOf(order('sandbox'))).length, 0)
})

test('a job its lab had, moved by the operator to another lab, is movedAway once; a lab that never had it is told nothing', () => {
  const moved = shipment({ state: 'cancelled', itemIds: [], movedAway: true })
  assert.deepEqual(labEventsOf({ shp_1: shipment({ state: 'acknowledged' }) }, { shp_1: moved }), [
    { shipmentId: 'shp_1', labCode: 'uk6', event: { kind: 'movedAway' } },
  ])
  assert.deepEqual(labEventsOf({ shp_1: moved }, { shp_1: moved }), [], 'not again')
  assert.deepEqual(
    labEventsOf({ shp_1: shipment({ state: 'allocated' }) }, { shp_1: moved }),
    [],
    'never submitted: the lab never had it',
  )
  assert.deepEqual(
    labEventsOf({ shp_1: shipment() }, { shp_1: shipment({ state: 'cancelled', itemIds: [] }) }),
    [],
    'a cancellation the lab answered itself is not pushed back',
  )
  assert.equal(labEventType('acme', { kind: 'movedAway' }), 'com.acme.lab.job.movedAway')
})
