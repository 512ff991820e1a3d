// Whether an image is sharp enough for the product it prints on (docs/api.md#resolution-warnings): its effective
// resolution (domain/print-geometry.ts, effectiveDpi) against the product's minimum (the catalogue's `minimumDpi`).
// The same check answers previews, quotes that carry asset URLs and orders once an asset is downloaded; it never
// refuses anything, it warns.
import type { PixelSize, Product } from './catalogue.types.ts'
import { effectiveDpi, type PrintFilePlan, planPrintFile } from './print-geometry.ts'
import type { SizingMode } from './shipping-methods.ts'

/** The minimum of a product whose catalogue entry gives none: the usual floor for prints seen at arm's length. */
export const DEFAULT_MINIMUM_DPI = 150

export const LOW_RESOLUTION = 'LowResolution'

export interface ResolutionWarning {
  code: typeof LOW_RESOLUTION
  printArea: string
  /** Whole dots per inch, rounded down. */
  effectiveDpi: number
  minimumDpi: number
  message: string
}

export interface ResolutionCheck {
  /** The print file's plan for this source (the renderer applies the same one). */
  plan: PrintFilePlan
  /** Whole dots per inch, rounded down. */
  effectiveDpi: number
  warning: ResolutionWarning | null
}

export function checkResolution(input: {
  product: Product
  printArea: string
  target: PixelSize
  source: { width: number; height: number }
  sizing: SizingMode
}): ResolutionCheck {
  const { product, printArea, target, source, sizing } = input
  const plan = planPrintFile({
    sourceWidth: source.width,
    sourceHeight: source.height,
    targetWidth: target.horizontalResolution,
    targetHeight: target.verticalResolution,
    sizing,
  })
  const exact = effectiveDpi(source, plan)
  const dpi = Math.floor(exact)
  const minimumDpi = product.minimumDpi
  const warning: ResolutionWarning | null =
    exact < minimumDpi
      ? {
          code: LOW_RESOLUTION,
          printArea,
          effectiveDpi: dpi,
          minimumDpi,
          message:
            `The ${source.width} x ${source.height} px image prints at ${dpi} dpi on print area ${printArea} of ` +
            `${product.sku}, below the ${minimumDpi} dpi it needs to print sharply: it may look soft or pixelated.`,
        }
      : null
  return { plan, effectiveDpi: dpi, warning }
}
