// Step lab-report: a lab's report on a shipment (acknowledged, in production, items printed, a parcel shipped, items
// or the whole shipment rejected, the carrier's tracking scans) applied to the order, and the shipment's lab job
// brought to its new state. The one entry of every report: the lab API (services/labs/labs.service.ts) and the
// simulated labs (simulated-labs.ts) both end here.
import type { Clock } from '../../adapters/clock.ts'
import type { Queryable } from '../../adapters/database.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import { withoutShipping } from '../../domain/charges.ts'
import { type DeliveryEstimate, estimateAfterDispatch } from '../../domain/delivery-promise.ts'
import type { TrackingRefusal } from '../../domain/delivery-tracking.ts'
import { parseId } from '../../domain/ids.ts'
import type { JobRequest } from '../../domain/jobs.ts'
import {
  type CancellationRefusal,
  type CancellationTransition,
  closeCancellationOnReport,
  recordCancellationAnswer,
} from '../../domain/lab-cancellation.ts'
import { lateDeliveryCreditRequest } from '../../domain/order-credits.ts'
import type { OrderEventKind } from '../../domain/order-events.ts'
import {
  type ItemReportRefusal,
  type LabReport,
  type LabReportTransition,
  recordLabReport,
} from '../../domain/pipeline/lab-report.ts'
import type { PipelineOrder } from '../../domain/pipeline/pipeline-order.ts'
import type { ShippingMethod } from '../../domain/shipping-methods.ts'
import { upsertLabJob } from '../../repositories/lab-jobs.repository.ts'
import type { BillingService } from '../billing.service.ts'
import { labReportLine } from './log-lines.ts'
import { orderNumberOf, type StepTransition } from './order-transition.ts'

export interface LabReportDeps {
  clock: Clock
  /** Where a shipped shipment's lab calendar and rate are read, for its estimate from the real dispatch date. */
  catalogue: Catalogue
  transition: StepTransition
  /**
   * Refunds a shipment (or an order) its lab cancelled on printroute's request, and credits a guaranteed shipment
   * delivered late, in the report's transaction.
   */
  billing: Pick<BillingService, 'chargeDifference' | 'issueCredit'>
}

/**
 * A guaranteed shipment this report delivered late is credited by itself (docs/billing.md#late-delivery-credits), in
 * the change that records its Delivered scan: the guarantee of the method it was submitted with, as the catalogue
 * gives it now; once per shipment (a repeated report finds the credit, or the delivery, already recorded).
 */
async function creditLateDelivery(
  tx: Queryable,
  order: PipelineOrder,
  shipmentId: string,
  deps: Pick<LabReportDeps, 'catalogue' | 'billing'>,
): Promise<{ events: OrderEventKind[]; jobs: JobRequest[] }> {
  const shipment = order.pipeline.shipments[shipmentId]
  const method = (shipment?.submitted?.shippingMethod ?? order.document.shippingMethod) as ShippingMethod
  const guarantee = deps.catalogue.shippingGuarantee(method)
  const request = lateDeliveryCreditRequest(order.document, order.pipeline.billing, shipmentId, guarantee)
  const issued = request && (await deps.billing.issueCredit(tx, order, request))
  return issued ? { events: [issued.event], jobs: issued.jobs } : { events: [], jobs: [] }
}

/**
 * A shipment's estimate from its real dispatch date (docs/api.md#delivery-estimates): its lab's calendar and the
 * transit days of the rate it was submitted with (method and destination as the lab was given them); null when the
 * catalogue has no such rate or no transit days for it.
 */
export function estimateOfDispatch(
  catalogue: Catalogue,
  order: PipelineOrder,
  shipmentId: string,
  dispatchedAt: Date,
): DeliveryEstimate | null {
  const shipment = order.pipeline.shipments[shipmentId]
  if (!shipment) return null
  // Stored in canonical spelling when the shipment was submitted (the order's own method at that time).
  const method = (shipment.submitted?.shippingMethod ?? order.document.shippingMethod) as ShippingMethod
  const country = (shipment.submitted?.recipient ?? order.document.recipient).address.countryCode
  const rate = catalogue.shippingRate(shipment.labCode, method, country)
  const lab = catalogue.findLab(shipment.labCode)
  return estimateAfterDispatch(lab?.calendar ?? null, rate?.transitDays ?? null, dispatchedAt)
}

/**
 * Applies a lab's report; `changed` is false for a report the order already reflects (a repeat) or that does
 * not apply to it; `refusal` says why a tracking report could not apply, `itemRefusal` why an item report could not
 * (both decided under the order's lock).
 * `followUp`: jobs enqueued with the change, in its transaction (a simulated lab's next step).
 */
export type ReportLab = (
  orderId: string,
  shipmentId: string,
  report: LabReport,
  followUp?: JobRequest[],
) => Promise<{
  changed: boolean
  refusal?: TrackingRefusal
  itemRefusal?: ItemReportRefusal
  cancellationRefusal?: CancellationRefusal
}>

/**
 * A report on the locked order: an answer to a cancellation request (domain/lab-cancellation.ts), or a report that
 * first closes an open request (production or shipping: too late; a rejection: the shipment is cancelled instead).
 */
function applyReport(
  order: PipelineOrder,
  shipmentId: string,
  report: LabReport,
  now: Date,
  afterDispatch: Parameters<typeof recordLabReport>[5],
): LabReportTransition & CancellationTransition {
  const { document, pipeline } = order
  if (report.kind === 'cancellation') {
    return recordCancellationAnswer(document, pipeline, shipmentId, report.answer, now)
  }
  const closed = closeCancellationOnReport(document, pipeline, shipmentId, report, now)
  if (closed?.insteadOfReport) return closed.insteadOfReport
  const result = recordLabReport(document, pipeline, shipmentId, report, now, afterDispatch)
  return closed?.closedTooLate ? { ...result, jobs: [...result.jobs], changed: true } : result
}

/** Whether the order shows the shipment delivered (its Delivered scan recorded). */
function isDelivered(order: PipelineOrder, shipmentId: string): boolean {
  return order.document.shipments.some((shipment) => shipment.id === shipmentId && shipment.deliveredAt !== undefined)
}

export function createReportLab({ clock, catalogue, transition, billing }: LabReportDeps): ReportLab {
  return async (orderId, shipmentId, report, followUp = []) => {
    const applied = await transition(
      orderNumberOf(orderId),
      async (order, tx) => {
        const now = clock.now()
        // A parcel reported without a dispatch date left now.
        const afterDispatch =
          report.kind === 'shipped'
            ? estimateOfDispatch(catalogue, order, shipmentId, report.dispatchDate ?? now)
            : undefined
        const deliveredBefore = isDelivered(order, shipmentId)
        const result: LabReportTransition & CancellationTransition & { events?: OrderEventKind[] } = applyReport(
          order,
          shipmentId,
          report,
          now,
          afterDispatch,
        )
        if (result.changed && !deliveredBefore && isDelivered(order, shipmentId)) {
          const credited = await creditLateDelivery(tx, order, shipmentId, { catalogue, billing })
          result.jobs.push(...credited.jobs)
          result.events = credited.events
        }
        // A shipment its lab cancelled is refunded as a merchant's cancel refunds: its shipping, or everything
        // when it was the order's last live shipment.
        const lines = order.pipeline.billing?.lines
        if (result.cancelled && lines) {
          const target = result.cancelled.wholeOrder ? {} : withoutShipping(lines, [result.cancelled.shipmentId])
          result.jobs.push(...(await billing.chargeDifference(tx, order, target)))
        }
        if (result.changed) {
          result.jobs.push(...followUp)
          await upsertLabJob(
            tx,
            {
              shipmentNumber: parseId('shp', shipmentId) ?? 0,
              orderNumber: order.orderNumber,
              labCode: order.pipeline.shipments[shipmentId]?.labCode ?? '',
              environment: order.environment,
              state: order.pipeline.shipments[shipmentId]?.state ?? 'submitted',
            },
            clock.now(),
          )
        }
        return result
      },
      ({ order }) => labReportLine(order, shipmentId, report),
    )
    const refusal = applied?.result.refusal
    const itemRefusal = applied?.result.itemRefusal
    const cancellationRefusal = applied?.result.cancellationRefusal
    return {
      changed: applied?.result.changed ?? false,
      ...(refusal ? { refusal } : {}),
      ...(itemRefusal ? { itemRefusal } : {}),
      ...(cancellationRefusal ? { cancellationRefusal } : {}),
    }
  }
}
