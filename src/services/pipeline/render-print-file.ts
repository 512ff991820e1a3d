// Step render-print-file: the print file of one asset for one shipment, made outside any transaction (an image
// rendered to the lab's size and format, with a reduced preview; a book's PDF checked and passed on as it is),
// then recorded on the order, or its failure.
import { createHash } from 'node:crypto'
import type { Clock } from '../../adapters/clock.ts'
import type { Database } from '../../adapters/database.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import type { PrintFileFormat } from '../../domain/catalogue.types.ts'
import type { PipelineOrder, PrintFile } from '../../domain/pipeline/pipeline-order.ts'
import { printFileFormatOf, recordPrintFile, recordPrintFileFailure } from '../../domain/pipeline/render-print-file.ts'
import { printFileDpi } from '../../domain/print-files.ts'
import { effectiveDpi, printAreaRequestOf } from '../../domain/print-geometry.ts'
import { type LabColour, SRGB_COLOUR } from '../../domain/print-specs.ts'
import { readOrder } from '../../repositories/orders.repository.ts'
import { renderLine } from './log-lines.ts'
import { orderNumberOf, type StepTransition } from './order-transition.ts'
import type { FileStore, PdfChecker, PdfColourConverter, PrintFileRenderer } from './ports.ts'

export interface RenderPrintFileDeps {
  db: Database
  clock: Clock
  catalogue: Catalogue
  /** The catalogue version the order's shipments were allocated with; the served one when absent. */
  catalogueOf?: (version: number | null) => Promise<Catalogue>
  files: Pick<FileStore, 'get' | 'put'>
  renderer: Pick<PrintFileRenderer, 'renderPrintFile'>
  checkPdf: PdfChecker
  /** A CMYK lab's book PDFs converted to its colour (`--ghostscript`); passed through as they are when absent. */
  convertPdfColour?: PdfColourConverter | undefined
  transition: StepTransition
}

export type RenderPrintFile = (orderId: string, shipmentId: string, assetId: string) => Promise<void>

/** The print file made and its size in bytes, or why it could not be made. */
type RenderOutcome =
  | { printFile: PrintFile; bytes: number; failure?: undefined }
  | { printFile?: undefined; failure: string | undefined }

type OrderItem = PipelineOrder['document']['items'][number]

/** Which print file to make: of `asset` of `item`, from the kept copy `sourceKey`, in `format`. */
interface RenderRequest {
  orderId: string
  shipmentId: string
  item: OrderItem
  asset: OrderItem['assets'][number]
  sourceKey: string
  format: PrintFileFormat
  /** The lab the shipment goes to: its offer for the variant says the print file's colour. */
  labCode: string
  /** The catalogue the shipment was allocated with: its print area sizes are the ones the lab was given. */
  catalogue: Catalogue
}

/** Hex SHA-256 of a file's bytes: what a lab compares the file it downloaded with. */
function sha256Of(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

function previewBlobKey(orderId: string, shipmentId: string, assetId: string): string {
  return `previews/${orderId}/${shipmentId}/${assetId}.jpg`
}

/** The lab's own colour for the variant; a lab the catalogue version no longer lists for it gets sRGB. */
function labColourOf(request: RenderRequest): LabColour {
  const variant = request.catalogue.findVariant(request.item.sku, request.item.attributes)
  return variant?.offers.find((offer) => offer.lab.code === request.labCode)?.colour ?? SRGB_COLOUR
}

export function createRenderPrintFile(deps: RenderPrintFileDeps): RenderPrintFile {
  async function render(request: RenderRequest): Promise<RenderOutcome> {
    const { orderId, shipmentId, item, asset, format } = request
    try {
      const input = await deps.files.get(request.sourceKey)
      if (format === 'pdf') {
        // Books: the PDF is checked and passed through as it is, unless the lab's colour is CMYK and a converter
        // is configured: then the converted file is the print file (docs/print-files.md#pdfs-and-colour).
        await deps.checkPdf(input, asset.pageCount)
        const colour = labColourOf(request)
        const converted =
          colour.space === 'cmyk' && deps.convertPdfColour ? await deps.convertPdfColour(input, colour) : null
        if (converted) {
          const blobKey = `print-files/${orderId}/${shipmentId}/${asset.id}.pdf`
          await deps.files.put(blobKey, converted, 'application/pdf')
          const printFile = {
            blobKey,
            width: 0,
            height: 0,
            format: 'pdf',
            previewBlobKey: null,
            geometry: null,
            sha256: sha256Of(converted),
            bytes: converted.length,
            colourSpace: 'cmyk',
          }
          return { printFile, bytes: converted.length }
        }
        const printFile = {
          blobKey: request.sourceKey,
          width: 0,
          height: 0,
          format: 'pdf',
          previewBlobKey: null,
          geometry: null,
          sha256: sha256Of(input),
          bytes: input.length,
        }
        return { printFile, bytes: input.length }
      }
      const variant = request.catalogue.findVariant(item.sku, item.attributes)
      const size = variant?.printAreaSizes[asset.printArea]
      if (!variant || !size) throw new Error(`the catalogue has no print area ${asset.printArea} for ${item.sku}`)
      // An area the catalogue gives a spec is laid out from it (bleed, the item's canvas wrap); others as before.
      const area = printAreaRequestOf(variant, asset.printArea, request.catalogue.colours)
      const colour = labColourOf(request)
      const dpi = printFileDpi(variant.printAreaSpecs[asset.printArea])
      const rendered = await deps.renderer.renderPrintFile(input, {
        width: size.horizontalResolution,
        height: size.verticalResolution,
        sizing: item.sizing,
        format,
        ...(area ? { area } : {}),
        colour,
        dpi,
      })
      const blobKey = `print-files/${orderId}/${shipmentId}/${asset.id}.${rendered.format === 'jpeg' ? 'jpg' : rendered.format}`
      await deps.files.put(blobKey, rendered.data, `image/${rendered.format}`)
      const preview = previewBlobKey(orderId, shipmentId, asset.id)
      await deps.files.put(preview, rendered.preview, 'image/jpeg')
      const printFile = {
        blobKey,
        width: rendered.width,
        height: rendered.height,
        format: rendered.format,
        previewBlobKey: preview,
        geometry: { source: rendered.source, plan: rendered.plan },
        sha256: rendered.manifest.outputSha256,
        bytes: rendered.data.length,
        dpi: Math.floor(effectiveDpi(rendered.source, rendered.plan, dpi)),
        fileDpi: dpi,
        colourSpace: rendered.colourSpace,
        manifest: rendered.manifest,
      }
      return { printFile, bytes: rendered.data.length }
    } catch (error) {
      return { failure: (error as Error).message }
    }
  }

  return async (orderId, shipmentId, assetId) => {
    const orderNumber = orderNumberOf(orderId)
    const snapshot = await readOrder(deps.db, orderNumber)
    const shipment = snapshot?.pipeline.shipments[shipmentId]
    if (!snapshot || !shipment || shipment.state !== 'allocated' || shipment.printFiles[assetId]) return
    const source = snapshot.pipeline.files[assetId]?.stored
    const item = snapshot.document.items.find((candidate) => candidate.assets.some((asset) => asset.id === assetId))
    const asset = item?.assets.find((candidate) => candidate.id === assetId)
    if (!source || !item || !asset) return
    const format = printFileFormatOf(shipment.formats[assetId], source.contentType)
    const started = performance.now()
    const catalogue = deps.catalogueOf
      ? await deps.catalogueOf(snapshot.pipeline.catalogueVersion ?? null)
      : deps.catalogue
    const outcome = await render({
      orderId,
      shipmentId,
      item,
      asset,
      sourceKey: source.blobKey,
      format,
      labCode: shipment.labCode,
      catalogue,
    })
    const ms = Math.round(performance.now() - started)
    const now = deps.clock.now()
    await deps.transition(
      orderNumber,
      (order) =>
        outcome.printFile
          ? recordPrintFile(order.document, order.pipeline, shipmentId, assetId, outcome.printFile, now)
          : recordPrintFileFailure(
              order.document,
              order.pipeline,
              shipmentId,
              assetId,
              outcome.failure ?? 'unknown error',
              now,
            ),
      ({ order }) =>
        renderLine(
          order,
          { shipmentId, assetId, ms },
          outcome.printFile
            ? { printFile: outcome.printFile, bytes: outcome.bytes, failure: undefined }
            : { printFile: undefined, bytes: 0, failure: outcome.failure },
        ),
    )
  }
}
