import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import {
  carrierScanStep,
  deliveryJob,
  JOB_NAMES,
  jobRequest,
  nextSimulatedLabStep,
  type SimulatedLabStep,
  scanStatusOf,
} from './jobs.ts'
import { DELIVERY_STATUSES } from './order.ts'
import { SANDBOX_SCENARIOS, simulatedCarrierPath } from './sandbox-scenarios.ts'

tier('pure')

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
    jobRequest('run-preflight', { preflightId: 9 }).key,
    jobRequest('map-channel-webhook', { webhookId: 11 }).key,
    jobRequest('fulfil-channel-shipment', { fulfilmentId: 12, attempt: 3 }).key,
    jobRequest('fulfil-channel-shipment', { fulfilmentId: 12, attempt: 4, now: true }).key,
    jobRequest('subscribe-channel-webhooks', { channelId: 12, attempt: 2 }).key,
    jobRequest('subscribe-channel-webhooks', { channelId: 12, attempt: 2, retry: 3 }).key,
    jobRequest('run-order-import', { importId: 4 }).key,
    jobRequest('expire-draft', { orderId: 'ord_1' }).key,
    jobRequest('simulated-claim-decision', { claimId: 'clm_5' }).key,
    jobRequest('charge-saved-card', { providerPaymentId: 6 }).key,
    jobRequest('refund-card-payment', { refundId: 6 }).key,
    jobRequest('process-payment-event', { provider: 'stripe', eventId: 'evt_1' }).key,
  ]
  assert.deepEqual(keys, [
    'start:ord_1',
    'download:ord_1:ast_2:3',
    'allocate:ord_1:2',
    'render:shp_4:ast_2',
    'submit:shp_4',
    'simulated-lab:shp_4:produce:0',
    'callback:7:2',
    'preflight:9',
    'channel-webhook:11',
    'channel-fulfilment:12:3',
    'channel-fulfilment:12:4:now',
    'channel-webhooks:12:2',
    'channel-webhooks:12:2:r3',
    'order-import:4',
    'expire-draft:ord_1',
    'simulated-claim:clm_5',
    'charge-saved-card:6',
    'card-refund:6',
    'payment-event:stripe:evt_1',
  ])
  assert.equal(
    keys.length,
    JOB_NAMES.length + 2,
    'every job name is covered (the fulfilment and the subscriptions twice)',
  )
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

test('a carrier-scan step is named after the status it reports, and back', () => {
  assert.deepEqual(DELIVERY_STATUSES.map(carrierScanStep), [
    'inTransit',
    'outForDelivery',
    'deliveryFailed',
    'delivered',
    'returned',
  ])
  for (const status of DELIVERY_STATUSES) assert.equal(scanStatusOf(carrierScanStep(status)), status)
  for (const step of ['acknowledge', 'produce', 'ship'] as const) assert.equal(scanStatusOf(step), undefined)
  assert.equal(
    jobRequest('simulated-lab-step', { orderId: 'ord_1', shipmentId: 'shp_4', step: 'deliveryFailed' }).key,
    'simulated-lab:shp_4:deliveryFailed:0',
  )
})

test('before dispatch the next simulated step follows the shipment state; none without a lab', () => {
  assert.equal(nextSimulatedLabStep('submitted'), 'acknowledge')
  assert.equal(nextSimulatedLabStep('acknowledged'), 'produce')
  assert.equal(nextSimulatedLabStep('inProduction'), 'ship')
  for (const state of [undefined, 'allocated', 'rejected', 'cancelled']) {
    assert.equal(nextSimulatedLabStep(state), undefined, String(state))
    assert.equal(nextSimulatedLabStep(state, 'InTransit', 'returned'), undefined, String(state))
  }
})

/** Every step a shipment takes from `submitted` when each step moves it where its report leads. */
function walk(scenario: (typeof SANDBOX_SCENARIOS)[number] | null): SimulatedLabStep[] {
  const steps: SimulatedLabStep[] = []
  let state = 'submitted'
  let status: (typeof DELIVERY_STATUSES)[number] | undefined
  for (let step = nextSimulatedLabStep(state, status, scenario); step; ) {
    steps.push(step)
    if (step === 'acknowledge') state = 'acknowledged'
    else if (step === 'produce') state = 'inProduction'
    else if (step === 'ship') state = 'shipped'
    else status = scanStatusOf(step)
    step = nextSimulatedLabStep(state, status, scenario)
    assert.ok(steps.length <= 10, 'the walk ends')
  }
  return steps
}

test("after ship, the next step is the scan after the shipment's deliveryStatus on the scenario's carrier path", () => {
  const before = ['acknowledge', 'produce', 'ship']
  assert.deepEqual(walk(null), [...before, 'inTransit', 'delivered'])
  assert.deepEqual(walk('lateDelivery'), [...before, 'inTransit', 'delivered'])
  assert.deepEqual(walk('returned'), [...before, 'inTransit', 'returned'])
  assert.deepEqual(walk('deliveryFailed'), [...before, 'inTransit', 'deliveryFailed', 'outForDelivery', 'delivered'])
  for (const scenario of SANDBOX_SCENARIOS) {
    assert.deepEqual(walk(scenario).slice(3), simulatedCarrierPath(scenario).map(carrierScanStep), scenario)
  }
  // Each step happens once: a step job that finds the shipment already past it (a repeat, a late timer) is not
  // the next step, so it does nothing.
  assert.equal(nextSimulatedLabStep('shipped', 'Delivered'), undefined)
  assert.equal(nextSimulatedLabStep('shipped', 'Returned', 'returned'), undefined)
  assert.equal(nextSimulatedLabStep('shipped', 'InTransit'), 'delivered')
  // A status the simulated carrier does not report on this path (reported by someone else) ends its steps.
  assert.equal(nextSimulatedLabStep('shipped', 'DeliveryFailed'), undefined)
  assert.equal(nextSimulatedLabStep('shipped', 'OutForDelivery', 'returned'), undefined)
})
