// The pipeline's log lines (docs/operations.md): one pure function per step outcome, from what the step did to
// the fields and message it logs. Steps write the line once their change is committed (order-transition.ts).
import type { JobRequest } from '../../domain/jobs.ts'
import { formatMinorAsAmount } from '../../domain/money.ts'
import type { DeliverByResult, PlannedOrderShipment } from '../../domain/order-allocation.ts'
import { DOWNLOAD_MAX_ATTEMPTS } from '../../domain/pipeline/download-file.ts'
import type { LabReport } from '../../domain/pipeline/lab-report.ts'
import type { PipelineOrder, PipelineState, PrintFile, StoredFile } from '../../domain/pipeline/pipeline-order.ts'
import { isAwaitingPayment } from '../../domain/pipeline/submit-shipment.ts'
import type { LogFields, ServiceLogger } from '../observability.ts'

/** One line of the log: its level, its fields and its message. */
export interface LogLine {
  level: 'info' | 'warn'
  fields: LogFields
  message: string
}

export function writeLogLine(log: ServiceLogger, line: LogLine): void {
  log[line.level](line.fields, line.message)
}

/** The fields every log line about an order carries: its id and the trace id of the request that created it. */
export function orderLogFields(order: { document: { id: string }; pipeline: PipelineState }): LogFields {
  return order.pipeline.traceId
    ? { orderId: order.document.id, traceId: order.pipeline.traceId }
    : { orderId: order.document.id }
}

/** The line of an order that has just completed or stopped, whichever step brought it there; else undefined. */
export function phaseChangeLine(order: PipelineOrder): LogLine | undefined {
  if (order.pipeline.phase === 'complete') {
    return {
      level: 'info',
      fields: { ...orderLogFields(order), step: 'complete' },
      message: `order ${order.document.id} complete`,
    }
  }
  if (order.pipeline.phase !== 'failed') return undefined
  const failed = Object.entries(order.document.status.details)
    .filter(([, state]) => state === 'Error')
    .map(([detail]) => detail)
  return {
    level: 'warn',
    fields: { ...orderLogFields(order), step: 'failed', details: failed },
    message: `order ${order.document.id} stopped: ${failed.join(', ') || 'a step'} failed (see its issues)`,
  }
}

/** The order entered the pipeline (`orderId` as its start job named it). */
export function startLine(order: PipelineOrder, orderId: string): LogLine {
  const files = Object.keys(order.pipeline.files).length
  return {
    level: 'info',
    fields: { ...orderLogFields(order), step: 'start', files },
    message: `order ${orderId} started: ${files} file${files === 1 ? '' : 's'} to download`,
  }
}

/** Which download attempt a line is about. */
export interface DownloadAttempt {
  fileKey: string
  kind: string
  url: string
  attempt: number
  /** How long the attempt took. */
  ms: number
}

/**
 * One download attempt: the file kept, or the failure with the next attempt's time (from the retry job the
 * failure caused, `jobs`) or that it gave up.
 */
export function downloadLine(
  order: PipelineOrder,
  jobs: readonly JobRequest[],
  attempt: DownloadAttempt,
  outcome: { stored: StoredFile | undefined; failure: string | undefined },
): LogLine {
  const fields = {
    ...orderLogFields(order),
    step: 'download',
    fileKey: attempt.fileKey,
    url: attempt.url,
    attempt: attempt.attempt,
    maxAttempts: DOWNLOAD_MAX_ATTEMPTS,
    ms: attempt.ms,
  }
  const what = `${attempt.kind === 'asset' ? 'asset ' : ''}${attempt.fileKey}`
  const ofAttempts = `attempt ${attempt.attempt}/${DOWNLOAD_MAX_ATTEMPTS}`
  const { stored, failure } = outcome
  if (stored) {
    return {
      level: 'info',
      fields: { ...fields, result: 'ok', bytes: stored.bytes, contentType: stored.contentType },
      message: `downloaded ${what}: ${stored.bytes} bytes ${stored.contentType} in ${attempt.ms} ms (${ofAttempts})`,
    }
  }
  const retry = jobs.find((job) => job.name === 'download-file')?.startAfter
  return {
    level: retry ? 'info' : 'warn',
    fields: { ...fields, result: 'failed', error: failure, nextAttemptAt: retry?.toISOString() ?? null },
    message: `download of ${what} failed (${ofAttempts}): ${failure}; ${retry ? `next attempt at ${retry.toISOString()}` : 'gave up'}`,
  }
}

/** What a planned shipment costs in all (items, shipping and their tax), in minor units. */
function shipmentTotal(shipment: PlannedOrderShipment): bigint {
  return shipment.price.items.reduce(
    (sum, item) => sum + item.cost + item.tax,
    shipment.price.cost + shipment.price.tax,
  )
}

/**
 * An allocation round: the items no lab can take, or the shipments made and what they cost; with the order's
 * `deliverBy`, whether the plan meets it (a warning when no plan could, and the cheapest was allocated).
 */
export function allocationLine(
  order: PipelineOrder,
  round: number,
  outcome: {
    planned: readonly (PlannedOrderShipment & { id: string })[]
    unavailableItemIds: readonly string[]
    deliverBy?: DeliverByResult
    waitingForRoom?: { itemIds: readonly string[]; retryAt: Date }
  },
): LogLine {
  const fields = { ...orderLogFields(order), step: 'allocate', round }
  const { planned, unavailableItemIds, waitingForRoom } = outcome
  if (waitingForRoom) {
    const retryAt = waitingForRoom.retryAt.toISOString()
    return {
      level: 'warn',
      fields: { ...fields, result: 'waitingForRoom', waitingItemIds: waitingForRoom.itemIds, retryAt },
      message: `allocation waits for a lab with room for ${waitingForRoom.itemIds.join(', ')} (every lab that can make it is paused or full); trying again at ${retryAt}`,
    }
  }
  if (unavailableItemIds.length > 0) {
    return {
      level: 'warn',
      fields: { ...fields, result: 'unavailable', unavailableItemIds },
      message: `allocation found no lab for ${unavailableItemIds.join(', ')}`,
    }
  }
  const currency = order.pipeline.billing?.currency ?? ''
  const cost = formatMinorAsAmount(planned.reduce((sum, shipment) => sum + shipmentTotal(shipment), 0n))
  const shipments = planned.map((shipment) => ({
    shipmentId: shipment.id,
    labCode: shipment.labCode,
    itemIds: shipment.itemIds,
    cost: formatMinorAsAmount(shipmentTotal(shipment)),
  }))
  const labs = planned.map((shipment) => `${shipment.labCode} (${shipment.id})`).join(', ')
  const awaitingPayment = isAwaitingPayment(order.pipeline)
  const { deliverBy } = outcome
  const missed = deliverBy && !deliverBy.met ? deliverBy : undefined
  const dateFields = deliverBy
    ? {
        deliverBy: deliverBy.date,
        deliverByMet: deliverBy.met,
        ...(missed ? { earliestDeliveryDate: missed.earliestDeliveryDate } : {}),
      }
    : {}
  const dateWords = missed
    ? `; no plan delivers by ${missed.date} (earliest ${missed.earliestDeliveryDate ?? 'unknown'}): the cheapest was allocated`
    : ''
  return {
    level: missed ? 'warn' : 'info',
    fields: { ...fields, result: 'allocated', shipments, cost, currency, awaitingPayment, ...dateFields },
    message: `allocated to ${labs}; cost ${cost} ${currency}${awaitingPayment ? '; awaiting payment' : ''}${dateWords}`,
  }
}

/** An order created with a quote whose prices no longer apply (`quoteFound`: whether the quote still exists). */
export function quoteNoLongerFitsLine(order: PipelineOrder, quoteId: string, quoteFound: boolean): LogLine {
  return {
    level: 'warn',
    fields: { ...orderLogFields(order), step: 'allocate', quoteId },
    message: `quote ${quoteId} no longer fits the order (${quoteFound ? 'items' : 'not found'}): charged at catalogue prices`,
  }
}

/** Which print file a line is about. */
export interface RenderTarget {
  shipmentId: string
  assetId: string
  /** How long the rendering (or the PDF check) took. */
  ms: number
}

/** A print file made (its size and format, or a PDF checked), or why it could not be. */
export function renderLine(
  order: PipelineOrder,
  target: RenderTarget,
  outcome: { printFile: PrintFile | undefined; bytes: number; failure: string | undefined },
): LogLine {
  const { shipmentId, assetId, ms } = target
  const fields = { ...orderLogFields(order), step: 'render', shipmentId, assetId, ms }
  const { printFile, bytes, failure } = outcome
  if (!printFile) {
    return {
      level: 'warn',
      fields: { ...fields, result: 'failed', error: failure },
      message: `print file for ${assetId} failed: ${failure}`,
    }
  }
  const { format, width, height } = printFile
  const pdf = printFile.colourSpace === 'cmyk' ? 'PDF checked and converted to CMYK' : 'PDF checked'
  const what = format === 'pdf' ? pdf : `${width}x${height} ${format}`
  return {
    level: 'info',
    fields: { ...fields, result: 'ok', format, width, height, bytes },
    message: `print file for ${assetId} in ${shipmentId}: ${what}, ${bytes} bytes in ${ms} ms`,
  }
}

/** A shipment handed to its lab, through the lab API or a simulated lab. */
export function submitLine(order: PipelineOrder, shipmentId: string, connector: 'lab API' | 'simulated'): LogLine {
  const labCode = order.pipeline.shipments[shipmentId]?.labCode ?? ''
  return {
    level: 'info',
    fields: { ...orderLogFields(order), step: 'submit', shipmentId, labCode, connector },
    message: `shipment ${shipmentId} submitted to lab ${labCode} (${connector})`,
  }
}

const REPORT_WORDS: Record<LabReport['kind'], string> = {
  acknowledged: 'acknowledged',
  inProduction: 'in production',
  printed: 'printed',
  shipped: 'shipped',
  rejected: 'rejected',
  tracking: 'tracked',
  cancellation: 'answered on cancelling',
}

/** A lab's report on a shipment, with the tracking of a shipped one and the reason of a rejected one. */
export function labReportLine(order: PipelineOrder, shipmentId: string, report: LabReport): LogLine {
  const labCode = order.pipeline.shipments[shipmentId]?.labCode ?? ''
  const onOrder = order.document.shipments.find((candidate) => candidate.id === shipmentId)
  const fields: LogFields = { ...orderLogFields(order), step: 'lab-report', labCode, shipmentId, report: report.kind }
  let message = `lab ${labCode} reports shipment ${shipmentId} ${REPORT_WORDS[report.kind]}`
  if (report.kind === 'printed') {
    fields.itemIds = report.itemIds
    if (report.itemIds.length > 0) message += ` for items ${report.itemIds.join(', ')}`
  } else if (report.kind === 'shipped') {
    // One parcel of several: the report's own carrier and tracking (the shipment shows its first parcel's).
    const carrier = report.itemIds ? (report.carrier ?? onOrder?.carrier ?? null) : (onOrder?.carrier ?? null)
    const trackingNumber = report.itemIds ? (report.tracking?.number ?? null) : (onOrder?.tracking?.number ?? null)
    fields.carrier = carrier
    fields.trackingNumber = trackingNumber
    if (report.itemIds) fields.itemIds = report.itemIds
    message += ` (${carrier?.name ?? 'carrier unknown'}, tracking ${trackingNumber ?? 'none'})`
    if (report.itemIds) message += ` for items ${report.itemIds.join(', ')}`
  } else if (report.kind === 'rejected') {
    fields.reason = report.reason
    fields.unavailableItemIds = report.unavailableItemIds
    if (report.items) fields.items = report.items.map(({ itemId, reason }) => ({ itemId, reason }))
    message += report.items?.length
      ? ` for items ${report.items.map(({ itemId, reason }) => `${itemId} (${reason})`).join(', ')}: ${report.reason}`
      : `: ${report.reason}`
  } else if (report.kind === 'tracking') {
    fields.deliveryStatus = onOrder?.deliveryStatus ?? null
    fields.trackingEvents = report.events.length
    message += `: ${report.events.length} carrier scan(s), delivery status ${onOrder?.deliveryStatus ?? 'none'}`
  } else if (report.kind === 'cancellation') {
    fields.answer = report.answer
    message += `: ${report.answer}`
  }
  return { level: 'info', fields, message }
}
