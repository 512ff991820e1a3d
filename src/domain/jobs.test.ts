import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliveryJob, JOB_NAMES, jobRequest } from './jobs.ts'

// A job's id is derived from its key: a key that changed would enqueue again work already queued before an
// upgrade, so the keys are held to their exact text.
test('each job name builds its deterministic key from its payload', () => {
  const keys = [
    jobRequest('start-order', { orderId: 'ord_1', traceId: 'abc' }).key,
    jobRequest('download-file', { orderId: 'ord_1', fileKey: 'ast_2', attempt: 3 }).key,
    jobRequest('allocate-order', { orderId: 'ord_1', round: 2 }).key,
    jobRequest('render-print-file', { orderId: 'ord_1', shipmentId: 'shp_4', assetId: 'ast_2' }).key,
    jobRequest('submit-shipment', { orderId: 'ord_1', shipmentId: 'shp_4' }).key,
    jobRequest('simulated-lab-step', { orderId: 'ord_1', shipmentId: 'shp_4', step: 'produce' }).key,
    deliveryJob(7, 2).key,
  ]
  assert.deepEqual(keys, [
    'start:ord_1',
    'download:ord_1:ast_2:3',
    'allocate:ord_1:2',
    'render:shp_4:ast_2',
    'submit:shp_4',
    'simulated-lab:shp_4:produce:0',
    'callback:7:2',
  ])
  assert.equal(keys.length, JOB_NAMES.length, 'every job name is covered')
})

test('a job request carries its payload, and a start time only when given one', () => {
  const later = new Date('2026-01-01T00:00:00Z')
  assert.deepEqual(deliveryJob(7, 1), {
    name: 'deliver-callback',
    key: 'callback:7:1',
    data: { deliveryId: 7, attempt: 1 },
  })
  assert.deepEqual(jobRequest('submit-shipment', { orderId: 'ord_1', shipmentId: 'shp_4' }, later).startAfter, later)
})
