// The print files of an order, for a dashboard that shows each one beside its source
// (docs/print-files.md#previews-and-placement): how far each has got, the geometry that made it from the source (what
// was cut, turned or bordered, in source pixels) and a link to its reduced preview. Read from the order's pipeline
// state; nothing here changes an order.
import type { Database } from '../adapters/database.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import { printFileFormatOf } from '../domain/pipeline/render-print-file.ts'
import {
  placementOnSource,
  planPrintLayout,
  printAreaRequestOf,
  type SourcePlacement,
} from '../domain/print-geometry.ts'
import type { SizingMode } from '../domain/shipping-methods.ts'
import type { Caller } from './accounts.service.ts'
import { findCallersOrder } from './orders.service.ts'
import type { FileLinker } from './pipeline/ports.ts'

export type PrintFileStatus = 'pending' | 'rendered' | 'failed'

export interface PrintFileView {
  shipmentId: string
  labCode: string
  itemId: string
  assetId: string
  printArea: string
  format: string
  status: PrintFileStatus
  /** Why the print file could not be made; null unless `failed`. */
  failureReason: string | null
  /** The print area in pixels; null for PDFs (books are passed on as they are). */
  width: number | null
  height: number | null
  sizing: SizingMode
  /** Null until rendered, and for PDFs. */
  rotated: boolean | null
  source: { width: number; height: number } | null
  placement: SourcePlacement | null
  previewUrl: string | null
}

/** The print files of an order (GET /v4.0/orders/{id}/print-files). */
export interface PrintFilesService {
  /** Every print file of the caller's order's shipments, with its state and link; empty until allocated. */
  listPrintFiles(caller: Caller, orderId: string): Promise<PrintFileView[]>
}

export function createPrintFilesService(deps: {
  db: Database
  catalogue: Catalogue
  fileLinks: FileLinker
}): PrintFilesService {
  const { db, catalogue, fileLinks } = deps

  return {
    /**
     * Every print file of the order's shipments, in the order's own order (shipments, their items, the items'
     * assets). Empty until the order is allocated to its labs (on hold included: nothing has started).
     */
    async listPrintFiles(caller: Caller, orderId: string): Promise<PrintFileView[]> {
      const order = await findCallersOrder(db, caller, orderId)
      const { document, pipeline, environment } = order
      const views: PrintFileView[] = []
      for (const onOrder of document.shipments) {
        const shipment = pipeline.shipments[onOrder.id]
        if (!shipment) continue
        for (const { itemId } of onOrder.items) {
          const item = document.items.find((candidate) => candidate.id === itemId)
          if (!item) continue
          for (const asset of item.assets) {
            if (!(asset.id in shipment.printFiles)) continue
            const printFile = shipment.printFiles[asset.id] ?? null
            const failureReason = printFile ? null : (shipment.printFileFailures?.[asset.id] ?? null)
            // Sources are all downloaded before allocation, so a shipment's print file knows its source's type.
            const sourceType = pipeline.files[asset.id]?.stored?.contentType ?? ''
            const format = printFile?.format ?? printFileFormatOf(shipment.formats[asset.id], sourceType)
            const size = format === 'pdf' ? null : (printFile ?? areaSize(item.sku, item.attributes, asset.printArea))
            const geometry = printFile?.geometry ?? null
            views.push({
              shipmentId: onOrder.id,
              labCode: shipment.labCode,
              itemId,
              assetId: asset.id,
              printArea: asset.printArea,
              format,
              status: printFile ? 'rendered' : failureReason !== null ? 'failed' : 'pending',
              failureReason,
              width: size?.width ?? null,
              height: size?.height ?? null,
              sizing: item.sizing,
              rotated: geometry ? geometry.plan.rotate === 90 : null,
              source: geometry?.source ?? null,
              placement: geometry ? placementOnSource(geometry.source, geometry.plan) : null,
              // A link made now, valid for the whole link lifetime: the state keeps the key, never a link.
              previewUrl: printFile?.previewBlobKey ? fileLinks.url(environment, printFile.previewBlobKey) : null,
            })
          }
        }
      }
      return views
    },
  }

  /**
   * The size a print file not made yet will have (a made one has its own size): its layout's when the catalogue
   * gives the area a spec, else the print area's size in the catalogue.
   */
  function areaSize(sku: string, attributes: Record<string, string>, printArea: string) {
    const variant = catalogue.findVariant(sku, attributes)
    const area = variant ? printAreaRequestOf(variant, printArea, catalogue.colours) : null
    if (area) {
      try {
        const { width, height } = planPrintLayout(area)
        return { width, height }
      } catch {
        return null // a spec no file can be laid out from: the render will say why
      }
    }
    const size = variant?.printAreaSizes[printArea]
    return size ? { width: size.horizontalResolution, height: size.verticalResolution } : null
  }
}
