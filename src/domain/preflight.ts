// Preflight: what printroute checks in a file before it goes to a lab, with stable codes (docs/errors.md,
// "Preflight checks"). The inspector adapter measures a file; the pure checks turn the measures and the product's
// specification into this report; the print-files service stores it, and the pipeline holds an order item whose
// asset has an `error`.

import type { PixelSize } from './catalogue.types.ts'
import type { BookSpec, LabColour, PrintAreaSpec } from './print-specs.ts'

export const PREFLIGHT_CODES = [
  'NotAPdf',
  'Encrypted',
  'Unreadable',
  'PageSizeMismatch',
  'MixedPageSizes',
  'MissingBleed',
  'PageCountOutOfRange',
  'PageCountNotMultiple',
  'FontNotEmbedded',
  'LowResolutionImage',
  'SpotColour',
  'RgbInCmykJob',
  'ImageTooSmall',
  'ImageTooLarge',
] as const
export type PreflightCode = (typeof PREFLIGHT_CODES)[number]

export type PreflightSeverity = 'error' | 'warning'

export interface PreflightCheck {
  readonly code: PreflightCode
  readonly severity: PreflightSeverity
  /** 1-based page of a PDF the finding is on; absent for the whole file or an image. */
  readonly page?: number
  /** For people: says what was found and what the product needs, in one sentence. */
  readonly message: string
  /** What the file has ("148.0 x 210.0 mm", "72 dpi", "DeviceN (PANTONE 185 C)"). */
  readonly measured: string
  /** What the product needs ("154.0 x 216.0 mm incl. 3 mm bleed", "at least 150 dpi"). */
  readonly required: string
}

export const PREFLIGHT_STATUSES = ['Pending', 'Running', 'Passed', 'PassedWithWarnings', 'Failed'] as const
export type PreflightStatus = (typeof PREFLIGHT_STATUSES)[number]

/** A safe fix printroute applied to its own copy of the file, said in the report. */
export interface PreflightFix {
  /** `SetTrimBox`, `SetBleedBox`, `ConvertedToLabColour`, ... */
  readonly code: string
  readonly message: string
}

export interface PreflightReport {
  readonly pageCount: number | null
  readonly checks: readonly PreflightCheck[]
  readonly fixes: readonly PreflightFix[]
  /** The catalogue SKUs this file fits (product kind, page size and count); sorted. */
  readonly validSkus: readonly string[]
  /**
   * The PDF pages given a thumbnail with the trim, bleed and safe lines (domain/preflight-thumbnails.ts), kept
   * in the blob store beside the file; absent for images and for reports made before thumbnails.
   */
  readonly thumbnails?: readonly { readonly page: number; readonly width: number; readonly height: number }[]
}

/** Failed when any check is an error, PassedWithWarnings when any is a warning, else Passed. */
export function preflightStatusOf(checks: readonly PreflightCheck[]): 'Passed' | 'PassedWithWarnings' | 'Failed' {
  if (checks.some((check) => check.severity === 'error')) return 'Failed'
  return checks.length > 0 ? 'PassedWithWarnings' : 'Passed'
}

/** What the inspector measured in one PDF page (points; boxes as [x0, y0, x1, y1] as the PDF writes them). */
export interface PdfPageMeasures {
  readonly page: number
  readonly mediaBox: readonly [number, number, number, number]
  readonly trimBox: readonly [number, number, number, number] | null
  readonly bleedBox: readonly [number, number, number, number] | null
  readonly images: readonly {
    widthPx: number
    heightPx: number
    drawnWidthPt: number
    drawnHeightPt: number
    colourSpace: string
  }[]
  readonly fonts: readonly { name: string; embedded: boolean }[]
  /** Separation / DeviceN colourant names used on the page (spot colours). */
  readonly spotColours: readonly string[]
  /** Device colour spaces painted with on the page (`DeviceRGB`, `DeviceCMYK`, `DeviceGray`, `ICCBased(RGB)`...). */
  readonly colourSpaces: readonly string[]
}

/** What the inspector measured in one file; the pure checks (domain/preflight-checks.ts) judge it. */
export type FileInspection =
  | { readonly kind: 'unreadable'; readonly reason: string }
  | { readonly kind: 'not-supported'; readonly contentType: string }
  | {
      readonly kind: 'pdf'
      readonly encrypted: boolean
      readonly pageCount: number
      readonly pages: readonly PdfPageMeasures[]
      /** Only the first pages were measured (the inspector's page limit); `pageCount` still counts them all. */
      readonly truncated: boolean
    }
  | {
      readonly kind: 'image'
      readonly format: string
      readonly widthPx: number
      readonly heightPx: number
      readonly colourSpace: string
      readonly hasProfile: boolean
      /** Pixels beyond the inspector's limit: refused before decoding (a decompression bomb). */
      readonly tooLarge: boolean
    }

/** Measures a stored file within explicit limits (bytes, pages, time, memory); never throws for a bad file. */
export interface FileInspector {
  inspect(path: string, contentType: string): Promise<FileInspection>
}

/** One lab able to make the product, and the colour of its print files for it. */
export interface MakingLabColour {
  readonly lab: string
  readonly colour: LabColour
}

/** A note (in the report's `fixes`): an RGB image will be converted to a CMYK lab's colour by printroute's render. */
export const CONVERT_TO_LAB_COLOUR = 'ConvertToLabColour'

/**
 * What a file is checked for: one print area of one product, as the order item (or the upload) names it. The
 * specifications are null where the catalogue declares none; each check that needs one is then skipped, so a
 * catalogue without them preflights exactly as leniently as printroute printed before.
 */
export interface PreflightTarget {
  readonly sku: string
  readonly printArea: string
  /** The item's `pageCount` (books), when it gives one: the PDF must have exactly that many pages. */
  readonly pageCount?: number
  readonly spec: PrintAreaSpec | null
  readonly book: BookSpec | null
  /** The colour the chosen lab's press wants; null: no lab chosen (or it takes what it is given). */
  readonly colour: LabColour | null
  /**
   * The labs able to make the product (the variant's offers, else every variant's) and their colours, when no lab
   * is chosen yet (a stand-alone preflight, an order asset at its download): RgbInCmykJob fires when one of them
   * prints CMYK. Absent or empty: only `colour` decides.
   */
  readonly makingLabs?: readonly MakingLabColour[]
  /**
   * printroute converts a CMYK lab's book PDF to its colour (`--ghostscript`, docs/print-files.md#pdfs-and-colour):
   * RgbInCmykJob says so instead of "unconverted". Absent: PDFs go to labs unconverted.
   */
  readonly convertsPdfColour?: boolean
  /** The print area's pixel size (the catalogue's `printAreas` or the variant's own). */
  readonly pixelSize: PixelSize
  /**
   * What the print area takes: a PDF (a book's pages) or an image. Absent: a PDF when `book` is given, an image
   * when `spec` is, else either (no NotAPdf check, as before preflight).
   */
  readonly fileKind?: 'pdf' | 'image'
}
