// The render-print-file step's transitions (services/pipeline/render-print-file.ts): a print file made, or why it
// could not be, for one asset of an allocated shipment.
import type { PrintFileFormat } from '../catalogue.types.ts'
import type { OrderDocument } from '../order.ts'
import {
  addIssue,
  findAsset,
  ISSUE_CODES,
  NOTHING,
  type PipelineShipment,
  type PipelineState,
  type PrintFile,
  setDetail,
  type Transition,
  touch,
} from './pipeline-order.ts'
import { submissionJobs } from './submit-shipment.ts'

/**
 * The format of the print file an asset becomes: a PDF (a book) is passed on as it is, whatever the lab asked
 * for; an image is rendered in the lab's format, as a JPEG for a lab that asked for PDFs.
 */
export function printFileFormatOf(labFormat: string | undefined, sourceContentType: string): PrintFileFormat {
  if (sourceContentType === 'application/pdf') return 'pdf'
  return labFormat === 'png' || labFormat === 'tiff' ? labFormat : 'jpeg'
}

/**
 * The shipment, while it is allocated and still waits for this asset's print file; undefined otherwise (the
 * shipment was cancelled or re-planned, or the print file is already there): a late render job changes nothing.
 */
function shipmentAwaitingPrintFile(
  pipeline: PipelineState,
  shipmentId: string,
  assetId: string,
): PipelineShipment | undefined {
  const shipment = pipeline.shipments[shipmentId]
  if (shipment?.state !== 'allocated' || !(assetId in shipment.printFiles) || shipment.printFiles[assetId]) {
    return undefined
  }
  return shipment
}

export function recordPrintFile(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  assetId: string,
  printFile: PrintFile,
  now: Date,
): Transition {
  const shipment = shipmentAwaitingPrintFile(pipeline, shipmentId, assetId)
  if (!shipment) return NOTHING
  shipment.printFiles[assetId] = printFile
  touch(order, now)
  const waiting = Object.values(pipeline.shipments).filter((candidate) => candidate.state === 'allocated')
  if (waiting.some((candidate) => Object.values(candidate.printFiles).some((file) => file === null))) {
    return { changed: true, jobs: [] }
  }
  // A lab gave items back while this shipment was rendering: the submission waits for that round's shipments, which
  // submit this one too when their own print files are made.
  if (pipeline.phase === 'allocating') return { changed: true, jobs: [] }
  setDetail(order, 'printReadyAssetsPrepared', 'Complete')
  pipeline.phase = 'producing'
  return { changed: true, jobs: submissionJobs(order, pipeline) }
}

export function recordPrintFileFailure(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  assetId: string,
  reason: string,
  now: Date,
): Transition {
  const shipment = shipmentAwaitingPrintFile(pipeline, shipmentId, assetId)
  if (!shipment) return NOTHING
  if (shipment.printFileFailures?.[assetId] !== undefined) return NOTHING
  shipment.printFileFailures = { ...shipment.printFileFailures, [assetId]: reason }
  // The order already stopped on another print file: its issue said so; this reason is kept all the same.
  if (pipeline.phase === 'failed') return { changed: true, jobs: [] }
  const found = findAsset(order, assetId)
  touch(order, now)
  addIssue(
    order,
    found?.item.id ?? order.id,
    ISSUE_CODES.invalidAsset,
    `Asset ${assetId} cannot be made into a print file: ${reason}`,
  )
  if (found) {
    const asset = found.item.assets[found.index]
    if (asset) asset.status = 'Error'
    found.item.status = 'Invalid'
  }
  setDetail(order, 'printReadyAssetsPrepared', 'Error')
  pipeline.phase = 'failed'
  return { changed: true, jobs: [] }
}
