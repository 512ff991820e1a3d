// The small interfaces the pipeline needs from the outside world (adapters implement them), and its settings.
import type { PrintFileFormat } from '../../domain/catalogue.types.ts'
import type { Environment } from '../../domain/environment.ts'
import type { JobRequest } from '../../domain/jobs.ts'
import type { AllocationOutcome, AllocationRequest } from '../../domain/order-allocation.ts'
import type { PackingSlipContent } from '../../domain/packing-slip.ts'
import type { PipelineOrder, PipelinePreflight, PrintFileGeometry } from '../../domain/pipeline/pipeline-order.ts'
import type { FileInspection } from '../../domain/preflight.ts'
import type { ThumbnailGuideSpec } from '../../domain/preflight-thumbnails.ts'
import type { PrintFileManifest } from '../../domain/print-files.ts'
import type { PrintAreaRequest } from '../../domain/print-geometry.ts'
import type { BookSpec, LabColour } from '../../domain/print-specs.ts'
import type { SizingMode } from '../../domain/shipping-methods.ts'
import type { SimulatedLabSettings } from './simulated-labs.ts'

export interface AssetFetcher {
  download(
    url: string,
    destinationPath: string,
    options: { expectedMd5?: string | null },
  ): Promise<{ bytes: number; md5: string; contentType: string }>
}

export interface FileStore {
  put(key: string, source: string | Buffer, contentType: string): Promise<void>
  get(key: string): Promise<Buffer>
  delete(key: string): Promise<void>
  listOlderThan(prefix: string, cutoff: Date): AsyncIterable<string>
}

export interface PrintFileRenderer {
  renderPrintFile(
    input: string | Buffer,
    spec: {
      width: number
      height: number
      sizing: SizingMode
      format: PrintFileFormat
      /** The area's spec and the item's wrap (domain/print-geometry.ts); absent for areas without a spec. */
      area?: PrintAreaRequest | null
      /** The lab's colour for the product (LabOffer.colour); sRGB when absent. */
      colour?: LabColour
      /** Pixels per inch written into the file; none when absent. */
      dpi?: number
    },
  ): Promise<
    {
      data: Buffer
      width: number
      height: number
      format: string
      preview: Buffer
      /** The encoded file's colour space as libvips reads it back (`srgb`, `cmyk`, `b-w`). */
      colourSpace: string
      manifest: PrintFileManifest
    } & PrintFileGeometry
  >
  renderThumbnail(input: string | Buffer): Promise<Buffer>
  probe(input: string | Buffer): Promise<{ width: number; height: number }>
}

/**
 * Converts a book's PDF to a CMYK lab's colour (adapters/pdf-colour-converter.ts, Ghostscript when configured):
 * the converted file, or null when it was not converted (the PDF is passed through as it is).
 */
export type PdfColourConverter = (input: Buffer, colour: LabColour) => Promise<Buffer | null>

/** What a file is checked against: the product, its print area, the pages it should have, its variant. */
export interface PreflightSubject {
  sku: string
  printArea: string
  /** The pages the merchant says the file has (page-priced products); null: not said. */
  pageCount: number | null
  attributes: Readonly<Record<string, string>>
}

/**
 * The preflight of an asset just downloaded (services/print-files/preflight.service.ts): null when the engine
 * itself failed (logged; the asset goes on unchecked, as before preflight existed).
 */
export interface AssetPreflight {
  /**
   * Checks the file; a PDF's page thumbnails are kept under `thumbnailKeyPrefix` + `<page>.png` when given
   * (docs/print-files.md#page-thumbnails) and listed in the report.
   */
  checkFile(
    path: string,
    contentType: string,
    subject: PreflightSubject,
    thumbnailKeyPrefix?: string,
  ): Promise<PipelinePreflight | null>
  /** Judges measures made up rather than read (the Sandbox scenario `preflightFails`). */
  judge(inspection: FileInspection, subject: PreflightSubject): PipelinePreflight | null
  /**
   * Applies the report's safe fixes (SetTrimBox, SetBleedBox) to the PDF at `path`, writing printroute's changed
   * copy to `outputPath` (`written`); the preflight then says what was done. A failed fix writes nothing, is
   * logged, and its box fixes leave the report.
   */
  applyFixes(
    path: string,
    outputPath: string,
    subject: PreflightSubject,
    preflight: PipelinePreflight,
  ): Promise<{ preflight: PipelinePreflight; written: boolean }>
}

/**
 * Sets TrimBox and BleedBox on the pages of the PDF at `inputPath` that have neither and measure the book's trim +
 * bleed, writing `outputPath` when a page changed (adapters/file-inspector.ts, bounded like an inspection).
 */
export type PdfBoxFixer = (
  inputPath: string,
  outputPath: string,
  book: Pick<BookSpec, 'trimMm' | 'bleedMm'>,
) => Promise<{ readonly pagesChanged: number } | { readonly failed: string }>

/**
 * Renders page thumbnails of the PDF at `path` with the overlay drawn on them (adapters/file-inspector.ts,
 * bounded like an inspection); `failed` when the renderer overran its limits or could not read the file.
 */
export type PdfThumbnailRenderer = (
  path: string,
  request: {
    pages: readonly {
      page: number
      trimBox: readonly [number, number, number, number] | null
      bleedBox: readonly [number, number, number, number] | null
    }[]
    spec: ThumbnailGuideSpec | null
    maxSide: number
  },
) => Promise<
  | { readonly thumbnails: readonly { page: number; width: number; height: number; png: Uint8Array }[] }
  | { readonly failed: string }
>

/** Runs `use` with a local file path of its own, removed once `use` settles (adapters/scratch-files.ts). */
export type ScratchFileProvider = <R>(use: (path: string) => Promise<R>) => Promise<R>

/** printroute's packing slip of a shipment, as PDF bytes (adapters/packing-slip-pdf.ts). */
export type PackingSlipRenderer = (slip: PackingSlipContent) => Promise<Buffer>

export type PdfChecker = (input: Buffer, expectedPageCount: number | null) => Promise<{ pageCount: number }>

export type Allocator = (request: AllocationRequest) => AllocationOutcome

/** What happens once a shipment is submitted to its lab: the jobs that follow, in the same transaction. */
export interface LabConnector {
  afterSubmit(order: PipelineOrder, shipmentId: string): JobRequest[]
}

/**
 * Links to the files printroute serves (domain/signed-urls.ts): a token for documents that are stored and
 * served later (thumbnails in the order), a link valid from now for what is handed out at once (lab jobs).
 */
export interface FileLinker {
  token(environment: Environment, key: string): string
  url(environment: Environment, key: string): string
}

/** The pipeline's settings, with those of the simulated labs it hands shipments to (one set of options). */
export interface PipelineSettings extends SimulatedLabSettings {
  /** Base delay of download retries (attempt n waits base x 2^(n-2)). */
  downloadRetryBaseSeconds: number
  /** Live orders use the simulated labs too (demos); Sandbox always does. */
  simulateLiveLabs: boolean
  /** Days the kept copies of assets are stored. */
  assetRetentionDays: number
  /**
   * How long a Live allocation round waits before trying again when only paused or full labs could take an item
   * (docs/allocation.md#lab-availability).
   */
  labRoomRetrySeconds: number
}
