// The catalogue's print specifications (docs/catalogue.md#print-specifications) resolved per variant, and their wire
// form on GET /v4.0/products/{sku}. A variant's specification of a print area is the product's entry with the
// matching `variantOverrides` laid over it in file order, then the explicit variant's own: the way
// `printAreaSizes` resolve. Pure: the loader's validation and the catalogue builder both resolve through here, so
// what validation checked is exactly what the model holds.
import type {
  BookEntry,
  PagePricingEntry,
  PrintAreaSpecEntry,
  PrintSpecWire,
  ProductEntry,
  VariantEntry,
} from './catalogue.types.ts'
import type { BookSpec, PrintAreaSpec } from './print-specs.ts'

/** What a print area's `recommendedDpi` is when the catalogue gives none: the ~300 dpi the sample's pixel sizes assume. */
export const DEFAULT_RECOMMENDED_DPI = 300

/** The fields each resolved specification must end up with (wrapMm and the two resolutions have defaults). */
export const REQUIRED_SPEC_FIELDS = ['trimMm', 'bleedMm', 'safeMm'] as const

/** True when every name in `when` is in `attributes` with the same value (exact spelling, as validated). */
function matches(attributes: Readonly<Record<string, string>>, when: Readonly<Record<string, string>>): boolean {
  return Object.entries(when).every(([name, value]) => attributes[name] === value)
}

/**
 * The entries that make one variant's specification of each print area, first to last: the product's, each
 * matching override's, the explicit variant's. Only print areas the product specifies (validation refuses
 * overrides of others), in the product's print area order.
 */
export function printAreaSpecLayers(
  product: Pick<ProductEntry, 'printAreas' | 'printAreaSpecs' | 'variantOverrides'>,
  variant: Pick<VariantEntry, 'attributes' | 'printAreaSpecs'>,
): Record<string, PrintAreaSpecEntry[]> {
  const layers: Record<string, PrintAreaSpecEntry[]> = {}
  const specs = product.printAreaSpecs ?? {}
  for (const area of Object.keys(product.printAreas)) {
    const base = specs[area]
    if (base === undefined) continue
    const list = [base]
    for (const override of product.variantOverrides ?? []) {
      const layer = override.printAreaSpecs?.[area]
      if (layer !== undefined && matches(variant.attributes, override.when)) list.push(layer)
    }
    const own = variant.printAreaSpecs?.[area]
    if (own !== undefined) list.push(own)
    layers[area] = list
  }
  return layers
}

/** The fields of `layers` laid over each other (later wins), before defaults. */
export function mergeSpecLayers(layers: readonly PrintAreaSpecEntry[]): PrintAreaSpecEntry {
  const merged: PrintAreaSpecEntry = {}
  for (const layer of layers) {
    if (layer.trimMm !== undefined) merged.trimMm = layer.trimMm
    if (layer.bleedMm !== undefined) merged.bleedMm = layer.bleedMm
    if (layer.safeMm !== undefined) merged.safeMm = layer.safeMm
    if (layer.wrapMm !== undefined) merged.wrapMm = layer.wrapMm
    if (layer.minDpi !== undefined) merged.minDpi = layer.minDpi
    if (layer.recommendedDpi !== undefined) merged.recommendedDpi = layer.recommendedDpi
  }
  return merged
}

/**
 * A merged entry with its defaults: no wrap band, `minDpi` the product's `minimumDpi`, `recommendedDpi`
 * DEFAULT_RECOMMENDED_DPI. Undefined while trimMm, bleedMm or safeMm is missing.
 */
export function completeSpec(merged: PrintAreaSpecEntry, minimumDpi: number): PrintAreaSpec | undefined {
  const { trimMm, bleedMm, safeMm } = merged
  if (trimMm === undefined || bleedMm === undefined || safeMm === undefined) return undefined
  return {
    trimMm: { width: trimMm.width, height: trimMm.height },
    bleedMm,
    safeMm,
    wrapMm: merged.wrapMm ?? null,
    minDpi: merged.minDpi ?? minimumDpi,
    recommendedDpi: merged.recommendedDpi ?? DEFAULT_RECOMMENDED_DPI,
  }
}

/** One variant's resolved specifications, by print area (validated files only: an incomplete one throws). */
export function variantPrintAreaSpecs(
  product: Pick<ProductEntry, 'sku' | 'printAreas' | 'printAreaSpecs' | 'variantOverrides'>,
  variant: Pick<VariantEntry, 'attributes' | 'printAreaSpecs'>,
  minimumDpi: number,
): Record<string, PrintAreaSpec> {
  const specs: Record<string, PrintAreaSpec> = {}
  for (const [area, layers] of Object.entries(printAreaSpecLayers(product, variant))) {
    const spec = completeSpec(mergeSpecLayers(layers), minimumDpi)
    if (!spec) throw new Error(`catalogue: unvalidated print area spec ${product.sku} ${area}`)
    specs[area] = spec
  }
  return specs
}

/** The trim (a fresh object), bleed and safe margin every specification starts with, in the documented order. */
function edgesOf(
  spec: Pick<BookSpec, 'trimMm' | 'bleedMm' | 'safeMm'>,
): Pick<BookSpec, 'trimMm' | 'bleedMm' | 'safeMm'> {
  return {
    trimMm: { width: spec.trimMm.width, height: spec.trimMm.height },
    bleedMm: spec.bleedMm,
    safeMm: spec.safeMm,
  }
}

/** A book's interior with its page range from `pagePricing`. */
export function bookSpecOf(book: BookEntry, pages: Pick<PagePricingEntry, 'minimumPages' | 'maximumPages'>): BookSpec {
  return {
    ...edgesOf(book),
    minPages: pages.minimumPages,
    maxPages: pages.maximumPages,
    pageMultiple: book.pageMultiple,
  }
}

/** A print area specification on the wire, keys in the documented order (fresh objects). */
export function printAreaSpecWire(spec: PrintAreaSpec): PrintSpecWire['area'] {
  return {
    ...edgesOf(spec),
    wrapMm: spec.wrapMm,
    minDpi: spec.minDpi,
    recommendedDpi: spec.recommendedDpi,
  }
}

/** A book specification on the wire, keys in the documented order. */
export function bookSpecWire(book: BookSpec): PrintSpecWire['book'] {
  return {
    ...edgesOf(book),
    minPages: book.minPages,
    maxPages: book.maxPages,
    pageMultiple: book.pageMultiple,
  }
}

/** True when two resolved specifications are the same in every field. */
export function samePrintAreaSpec(a: PrintAreaSpec, b: PrintAreaSpec): boolean {
  return JSON.stringify(printAreaSpecWire(a)) === JSON.stringify(printAreaSpecWire(b))
}
