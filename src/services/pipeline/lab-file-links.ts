// The links a lab is given to a shipment's files (the lab API's job list): signed, valid from now.
import type { PipelineOrder } from '../../domain/pipeline/pipeline-order.ts'
import type { FileLinker } from './ports.ts'

/** The packing slip and branding files of an order, as a lab gets them; null for what the order has none of. */
export interface ExtraFileUrls {
  packingSlip: { url: string } | null
  /** Branding key (the part after `branding:`) -> its file. */
  branding: Record<string, { url: string }> | null
}

/** A shipment's print file, as a lab gets it. */
export interface PrintFileUrl {
  assetId: string
  url: string
  format: string
}

/** Signed URLs of the kept copies of the packing slip and branding files, for the lab. */
export function extraFileUrls(fileLinks: Pick<FileLinker, 'url'>, order: PipelineOrder): ExtraFileUrls {
  const urlOf = (fileKey: string) => {
    const stored = order.pipeline.files[fileKey]?.stored
    return stored ? { url: fileLinks.url(order.environment, stored.blobKey) } : null
  }
  const branding: Record<string, { url: string }> = {}
  for (const fileKey of Object.keys(order.pipeline.files)) {
    if (!fileKey.startsWith('branding:')) continue
    const url = urlOf(fileKey)
    if (url) branding[fileKey.slice('branding:'.length)] = url
  }
  return { packingSlip: urlOf('packingSlip'), branding: Object.keys(branding).length > 0 ? branding : null }
}

/** Signs the print files of a shipment for its lab. */
export function printFileUrls(
  fileLinks: Pick<FileLinker, 'url'>,
  order: PipelineOrder,
  shipmentId: string,
): PrintFileUrl[] {
  const shipment = order.pipeline.shipments[shipmentId]
  if (!shipment) return []
  return Object.entries(shipment.printFiles).flatMap(([assetId, file]) =>
    file ? [{ assetId, url: fileLinks.url(order.environment, file.blobKey), format: file.format }] : [],
  )
}

/** Signs printroute's packing slip of a shipment for its lab; null when none was made (docs/print-files.md). */
export function packingSlipPdfUrl(
  fileLinks: Pick<FileLinker, 'url'>,
  order: PipelineOrder,
  shipmentId: string,
): { url: string } | null {
  const slip = order.pipeline.shipments[shipmentId]?.packingSlipPdf
  return slip ? { url: fileLinks.url(order.environment, slip.blobKey) } : null
}
