// The submit-shipment step's transitions (services/pipeline/submit-shipment.ts): which shipments are handed to their
// labs (not while a prepaid order waits for payment), and a shipment recorded as with its lab.
import { type JobRequest, jobRequest } from '../jobs.ts'
import type { OrderDocument } from '../order.ts'
import { NOTHING, type PipelineState, setDetail, type Transition, touch } from './pipeline-order.ts'

/** True while a prepaid order's charges are not paid: it is not handed to any lab until they are. */
export function isAwaitingPayment(pipeline: PipelineState): boolean {
  return pipeline.billing !== undefined && BigInt(pipeline.billing.unpaid) > 0n
}

/**
 * The jobs that hand the order's ready shipments to their labs: none before every print file is made
 * (phase `producing`) or while the order waits for payment. Called when the last print file is made and again
 * when a payment arrives; submitting twice is harmless (deterministic job key, `recordSubmitted` is idempotent).
 */
export function submissionJobs(order: OrderDocument, pipeline: PipelineState): JobRequest[] {
  if (pipeline.phase !== 'producing' || isAwaitingPayment(pipeline)) return []
  const jobs: JobRequest[] = []
  for (const [id, candidate] of Object.entries(pipeline.shipments)) {
    if (candidate.state !== 'allocated') continue
    jobs.push(jobRequest('submit-shipment', { orderId: order.id, shipmentId: id }))
  }
  if (jobs.length > 0) setDetail(order, 'inProduction', 'InProgress')
  return jobs
}

/** The shipment is with its lab. */
export function recordSubmitted(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  now: Date,
): Transition {
  const shipment = pipeline.shipments[shipmentId]
  // A shipment cancelled (or re-planned) since its submit job was queued is not submitted: the state check and
  // the action's change both happen under the order's row lock, so exactly one of them wins.
  if (shipment?.state !== 'allocated' || isAwaitingPayment(pipeline)) return NOTHING
  shipment.state = 'submitted'
  shipment.submitted = {
    recipient: structuredClone(order.recipient),
    shippingMethod: order.shippingMethod,
    at: now.toISOString(),
  }
  touch(order, now)
  return { changed: true, jobs: [] }
}
