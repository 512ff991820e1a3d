// Asking a lab to cancel a shipment it holds (docs/pipeline.md#cancellation), as pure rules.
//
// A merchant's cancel reaches a Live shipment already with its lab while the lab has not started production
// (state submitted or acknowledged): printroute records a request on the shipment, the lab sees it in its job
// list (and, with a push endpoint, is told) and answers `cancelled` or `tooLate`. The request is open until:
//   - the lab answers: `cancelled` cancels the shipment (and the order, when nothing else of it is live), whenever
//     the answer comes, even after the merchant's cancel has stopped waiting; `tooLate` leaves it as it is;
//   - the lab reports production or shipping for it: that is a `tooLate`;
//   - the lab rejects it: the lab will not make it and the merchant does not want it made elsewhere, so it is
//     cancelled as if the lab had answered `cancelled`;
//   - 24 hours pass without an answer: the request lapses; a later `cancelled` is refused, and a new cancel by
//     the merchant asks again.
// Each answer is applied under the order's row lock, so two answers at once apply once; a repeat changes nothing.

import type { OrderDocument } from './order.ts'
import { refreshOrderEstimate, setShipmentEstimate } from './pipeline/delivery-estimates.ts'
import type { LabReport } from './pipeline/lab-report.ts'
import type {
  CancellationAnswer,
  CancellationRequest,
  PipelineShipment,
  PipelineState,
  Transition,
} from './pipeline/pipeline-order.ts'

/** How long a lab has to answer a cancellation request before it lapses. */
export const CANCELLATION_REQUEST_LAPSE_HOURS = 24

const LAPSE_MS = CANCELLATION_REQUEST_LAPSE_HOURS * 3_600_000

/** Shipment states in which a lab has not started production: it can still be asked to cancel. */
const NOT_IN_PRODUCTION = new Set<PipelineShipment['state']>(['submitted', 'acknowledged'])

/** The shipment's cancellation request while it waits for the lab's answer; undefined when none is open. */
export function openCancellationRequest(
  shipment: PipelineShipment | undefined,
  now: Date,
): CancellationRequest | undefined {
  const request = shipment?.cancellationRequested
  if (!request || request.answer !== undefined || !NOT_IN_PRODUCTION.has(shipment.state)) return undefined
  return hasLapsed(request, now) ? undefined : request
}

function hasLapsed(request: CancellationRequest, now: Date): boolean {
  return Date.parse(request.at) + LAPSE_MS <= now.getTime()
}

/**
 * Whether a merchant's cancel can ask the shipment's lab: with its lab, production not started, and the lab has
 * not already answered `tooLate` (a request still open, or lapsed, is asked again).
 */
export function canAskToCancel(shipment: PipelineShipment | undefined): boolean {
  return (
    shipment !== undefined &&
    NOT_IN_PRODUCTION.has(shipment.state) &&
    shipment.cancellationRequested?.answer === undefined
  )
}

/** Records a request on the shipment unless one is open; whether a new one was made. */
export function requestCancellation(shipment: PipelineShipment, now: Date): boolean {
  if (openCancellationRequest(shipment, now)) return false
  shipment.cancellationRequested = { at: now.toISOString() }
  return true
}

/** Why a lab's answer cannot apply (the lab API answers 400 with it). */
export type CancellationRefusal =
  | { reason: 'notRequested' }
  | { reason: 'lapsed'; at: string }
  | { reason: 'alreadyAnswered'; answer: CancellationAnswer }

/** What an answer did: the shipment it cancelled (and whether that cancelled the order), or why it was refused. */
export interface CancellationTransition extends Transition {
  cancellationRefusal?: CancellationRefusal
  cancelled?: { shipmentId: string; wholeOrder: boolean }
}

const NOTHING: CancellationTransition = { changed: false, jobs: [] }

/**
 * The lab's answer to the request on one of its shipments. `cancelled` cancels the shipment as a merchant's cancel
 * cancels one not yet submitted (status Cancelled, `cancelled: true`, no estimate), and the whole order when no
 * other shipment of it is live; the caller refunds (`cancelled` says what). `tooLate` closes the request. The same
 * answer again changes nothing; another answer, an answer with no request, or after the request lapsed is refused.
 */
export function recordCancellationAnswer(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  answer: CancellationAnswer,
  now: Date,
): CancellationTransition {
  const shipment = pipeline.shipments[shipmentId]
  const request = shipment?.cancellationRequested
  if (!shipment || !request) return { ...NOTHING, cancellationRefusal: { reason: 'notRequested' } }
  if (request.answer !== undefined) {
    return request.answer === answer
      ? NOTHING
      : { ...NOTHING, cancellationRefusal: { reason: 'alreadyAnswered', answer: request.answer } }
  }
  if (!openCancellationRequest(shipment, now)) {
    // Lapsed unanswered: the lab's own `tooLate` is what the lapse already meant.
    if (answer === 'tooLate') {
      closeRequest(request, 'tooLate', now)
      return { changed: true, jobs: [] }
    }
    return { ...NOTHING, cancellationRefusal: { reason: 'lapsed', at: request.at } }
  }
  closeRequest(request, answer, now)
  if (answer === 'tooLate') return { changed: true, jobs: [] }
  return {
    changed: true,
    jobs: [],
    cancelled: { shipmentId, wholeOrder: cancelShipment(order, pipeline, shipmentId, now) },
  }
}

function closeRequest(
  request: CancellationRequest,
  answer: CancellationAnswer,
  now: Date,
  closedBy?: CancellationRequest['closedBy'],
): void {
  request.answer = answer
  request.answeredAt = now.toISOString()
  if (closedBy) request.closedBy = closedBy
}

/** Cancels one shipment the lab gave up; the whole order when nothing else of it is live. Whether it did that. */
function cancelShipment(order: OrderDocument, pipeline: PipelineState, shipmentId: string, now: Date): boolean {
  const shipment = pipeline.shipments[shipmentId]
  const onOrder = order.shipments.find((candidate) => candidate.id === shipmentId)
  if (shipment) shipment.state = 'cancelled'
  if (onOrder) {
    onOrder.status = 'Cancelled'
    onOrder.cancelled = true
    setShipmentEstimate(onOrder, null)
  }
  order.lastUpdated = now.toISOString()
  const live = Object.values(pipeline.shipments).some(
    (candidate) => candidate.state !== 'cancelled' && candidate.state !== 'rejected',
  )
  const wholeOrder = !live && order.status.stage === 'InProgress'
  if (wholeOrder) {
    order.status.stage = 'Cancelled'
    pipeline.phase = 'cancelled'
  }
  refreshOrderEstimate(order, pipeline)
  return wholeOrder
}

/**
 * What a lab's other report means for an open request on the shipment, applied before the report itself: a report
 * of production or shipping closes it as `tooLate` (the report then applies as usual); a rejection cancels the
 * shipment (returned: the caller applies it instead of the rejection, so its items are not allocated again).
 * Undefined when no request is open or the report does not touch it.
 */
export function closeCancellationOnReport(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  report: LabReport,
  now: Date,
): { closedTooLate: boolean; insteadOfReport?: CancellationTransition } | undefined {
  const shipment = pipeline.shipments[shipmentId]
  const request = openCancellationRequest(shipment, now)
  if (!shipment || !request) return undefined
  switch (report.kind) {
    case 'inProduction':
    case 'printed':
    case 'shipped':
      closeRequest(request, 'tooLate', now, 'progress')
      return { closedTooLate: true }
    case 'rejected': {
      closeRequest(request, 'cancelled', now, 'rejection')
      const wholeOrder = cancelShipment(order, pipeline, shipmentId, now)
      return {
        closedTooLate: false,
        insteadOfReport: { changed: true, jobs: [], cancelled: { shipmentId, wholeOrder } },
      }
    }
    default:
      return undefined
  }
}
