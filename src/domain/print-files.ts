// What a rendered print file says about itself (docs/print-files.md): the resolution written into it, so print
// software opens it at its physical size, and the manifest that lets the same file be made again byte for byte.
import type { PrintAreaRequest, PrintFilePlan } from './print-geometry.ts'
import { PRINT_AREA_DPI } from './print-geometry.ts'
import type { ColourSpace, PrintAreaSpec, RenderingIntent } from './print-specs.ts'
import type { SizingMode } from './shipping-methods.ts'

/**
 * The resolution a print file is written at (JPEG JFIF density, TIFF XResolution/YResolution, PNG pHYs), in
 * pixels per inch: the print area's `recommendedDpi` when the catalogue specifies the area, else the resolution
 * every catalogue print-area size is made for (PRINT_AREA_DPI, docs/catalogue.md): 4800 x 7200 px opens as
 * 16 x 24 in. Not worked out from `productDimensions`: those are the finished product's, while a print area may
 * hold more (a canvas's wrap, a bleed), so 2454 px for an 8 in canvas would claim 306.75 dpi and print 2% small.
 */
export function printFileDpi(spec: PrintAreaSpec | undefined): number {
  return spec?.recommendedDpi ?? PRINT_AREA_DPI
}

/** The colour a print file was converted to, with the exact profile file (by its hash) the conversion read. */
export interface PrintFileManifestColour {
  readonly space: ColourSpace
  /** The catalogue's profile name; null for sRGB (libvips' built-in sRGB profile). */
  readonly profile: string | null
  /** The profile file the conversion ran through (domain/colour-profiles.ts, cmykProfileFile); null for sRGB. */
  readonly profileFile: string | null
  /** Hex SHA-256 of that file's bytes; null for sRGB. */
  readonly profileSha256: string | null
  readonly intent: RenderingIntent
  readonly blackPointCompensation: boolean
  /**
   * Where the conversion ran: `printFile` after the geometry, at the print file's size; `source` before it, at the
   * source image's own size (an enlarged photo for a CMYK lab: docs/print-files.md#where-the-conversion-runs).
   * Absent from manifests made before the choice existed, which converted at the print file's size.
   */
  readonly convertedAt?: ColourConversionPoint
}

/** Where a print file's colour conversion runs: at the print file's size, or at the source's before the resize. */
export type ColourConversionPoint = 'printFile' | 'source'

/**
 * Everything a print file was made from (docs/print-files.md#reproducible-print-files): the same input, target,
 * plan, colour (the same profile bytes) and renderer versions give the same bytes, `outputSha256`.
 */
export interface PrintFileManifest {
  /** Hex SHA-256 of the source image as kept. */
  readonly inputSha256: string
  /** Hex SHA-256 of the print file. */
  readonly outputSha256: string
  /** What was asked: the print area's pixels, the sizing, the format and the resolution written into the file. */
  readonly target: {
    readonly width: number
    readonly height: number
    readonly sizing: SizingMode
    readonly format: string
    readonly dpi: number | null
    /** The area's spec and the item's wrap the file was laid out from; absent for an area without a spec. */
    readonly area?: PrintAreaRequest
  }
  readonly plan: PrintFilePlan
  readonly colour: PrintFileManifestColour
  /** sharp's and libvips' versions (sharp.versions): other versions may resample or encode differently. */
  readonly renderer: { readonly sharp: string; readonly libvips: string }
}
