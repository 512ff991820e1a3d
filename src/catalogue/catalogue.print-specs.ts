// The checks of a product's print specifications (docs/catalogue.md#print-specifications) that the schema cannot
// make: millimetres with at most 3 decimals (so cover sums are exact), print areas that exist, overrides only of
// specified areas, and per variant, after the override layers are laid over the product's entry: a safe area
// smaller than half the trim, minDpi at most recommendedDpi, a wrap band only on products with a wrap attribute.
// And the book entry: only on page-priced products, its page range a multiple of its page multiple. Every problem
// goes to catalogue.validation.ts's list with the path of the field that causes it.
import type { BookEntry, PagePricingEntry, PrintAreaSpecEntry, SizeMmEntry } from '../domain/catalogue.types.ts'
import { completeSpec, mergeSpecLayers } from '../domain/catalogue-print-specs.ts'
import { millimetresToMicrometres } from '../domain/spine.ts'
import { IGNORED_FIELD_PREFIX, PRINT_SPEC_MILLIMETRES_REASON } from './catalogue.schema.ts'

/** Records a problem; `under` says whether a path (or something inside it) already has one. */
export interface SpecProblems {
  add(path: string, reason: string): void
  under(path: string): boolean
}

const BAND_FIELDS = ['bleedMm', 'safeMm', 'wrapMm'] as const
const FIELD_ORDER = ['trimMm', 'bleedMm', 'safeMm', 'wrapMm', 'minDpi', 'recommendedDpi'] as const

function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`
}

function entriesOf(value: unknown): [string, unknown][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return []
  return Object.entries(value).filter(([key]) => !key.startsWith(IGNORED_FIELD_PREFIX))
}

/** Reports a schema-valid number of millimetres with more than 3 decimals. */
function checkDecimals(value: unknown, path: string, positive: boolean, problems: SpecProblems): void {
  if (typeof value !== 'number' || problems.under(path)) return
  if (millimetresToMicrometres(value) === undefined) {
    const reason = positive ? PRINT_SPEC_MILLIMETRES_REASON.positive : PRINT_SPEC_MILLIMETRES_REASON.nonNegative
    problems.add(path, `${reason}, got ${value}`)
  }
}

function checkTrimDecimals(trim: unknown, path: string, problems: SpecProblems): void {
  for (const [side, value] of entriesOf(trim)) checkDecimals(value, at(path, side), true, problems)
}

/** A schema-checked entry without `$` fields, in the documented key order. */
function canonicalSpec(entry: PrintAreaSpecEntry): PrintAreaSpecEntry {
  const canonical: Record<string, unknown> = {}
  for (const field of FIELD_ORDER) {
    const value = entry[field]
    if (value === undefined) continue
    canonical[field] =
      field === 'trimMm' ? { width: (value as SizeMmEntry).width, height: (value as SizeMmEntry).height } : value
  }
  return canonical as PrintAreaSpecEntry
}

/**
 * A `printAreaSpecs` map of the product (`overridable` undefined) or of a variant or override (`overridable`: the
 * areas the product specifies). Its canonical form, or undefined when it has a problem.
 */
export function checkSpecMap(
  value: unknown,
  path: string,
  printAreas: readonly string[],
  overridable: readonly string[] | undefined,
  problems: SpecProblems,
): Record<string, PrintAreaSpecEntry> | undefined {
  const specs: Record<string, PrintAreaSpecEntry> = {}
  for (const [area, entry] of entriesOf(value)) {
    const areaPath = at(path, area)
    if (!printAreas.includes(area)) {
      problems.add(areaPath, `unknown print area (the product has ${printAreas.join(', ')})`)
      continue
    }
    if (overridable !== undefined && !overridable.includes(area)) {
      problems.add(areaPath, `the product's printAreaSpecs has no entry for ${area} to lay this over`)
      continue
    }
    const fields = Object.fromEntries(entriesOf(entry))
    checkTrimDecimals(fields.trimMm, at(areaPath, 'trimMm'), problems)
    for (const band of BAND_FIELDS) checkDecimals(fields[band], at(areaPath, band), band === 'wrapMm', problems)
    if (!problems.under(areaPath)) specs[area] = canonicalSpec(entry as PrintAreaSpecEntry)
  }
  return problems.under(path) ? undefined : specs
}

/** One layer of a variant's specification of an area: the entry and where the file wrote it. */
export interface SpecLayer {
  readonly path: string
  readonly entry: PrintAreaSpecEntry
}

/**
 * The rules on one variant's resolved specification of one area: a safe area under half the trim, minDpi at
 * most recommendedDpi, a wrap band only where the product has a wrap attribute. Each problem names the field
 * where the layer that set it wrote it; `variant` is named when more than the product's entry made the spec.
 */
export function checkResolvedSpec(
  layers: readonly SpecLayer[],
  context: { sku: string; variant: string; minimumDpi: number; hasWrapAttribute: boolean },
  problems: SpecProblems,
): void {
  const spec = completeSpec(mergeSpecLayers(layers.map((layer) => layer.entry)), context.minimumDpi)
  const [first] = layers
  if (!spec || !first) return
  /** Where the field's value was written: the last layer giving it; undefined for a default. */
  const source = (field: keyof PrintAreaSpecEntry) =>
    [...layers].reverse().find((layer) => layer.entry[field] !== undefined)?.path
  const which = layers.length > 1 ? ` (variant ${context.variant})` : ''
  const shorter = Math.min(spec.trimMm.width, spec.trimMm.height)
  if (spec.safeMm * 2 >= shorter) {
    problems.add(
      at(source('safeMm') ?? first.path, 'safeMm'),
      `must be less than half the trim's shorter side (${shorter} mm), got ${spec.safeMm}${which}`,
    )
  }
  if (spec.minDpi > spec.recommendedDpi) {
    const minSource = source('minDpi')
    const recommendedSource = source('recommendedDpi')
    if (minSource !== undefined) {
      problems.add(at(minSource, 'minDpi'), `must be at most recommendedDpi (${spec.recommendedDpi})${which}`)
    } else if (recommendedSource !== undefined) {
      problems.add(
        at(recommendedSource, 'recommendedDpi'),
        `must be at least minDpi (${spec.minDpi}, the product's minimumDpi)${which}`,
      )
    } else {
      problems.add(
        at(first.path, 'recommendedDpi'),
        `is required: the default ${spec.recommendedDpi} is below minDpi (${spec.minDpi}, the product's minimumDpi)`,
      )
    }
  }
  const wrapSource = source('wrapMm')
  if (wrapSource !== undefined && !context.hasWrapAttribute) {
    problems.add(
      at(wrapSource, 'wrapMm'),
      `only allowed on products with a wrap attribute (canvases); ${context.sku} has none`,
    )
  }
}

/** The `book` entry of a product: its canonical form, or undefined when it has a problem. */
export function checkBook(
  value: unknown,
  path: string,
  product: { sku: string; pagePricing: PagePricingEntry | undefined },
  problems: SpecProblems,
): BookEntry | undefined {
  if (value === undefined) return undefined
  const fields = Object.fromEntries(entriesOf(value))
  if (product.pagePricing === undefined) {
    problems.add(path, `only allowed for products with pagePricing; ${product.sku} has none`)
  }
  checkTrimDecimals(fields.trimMm, at(path, 'trimMm'), problems)
  checkDecimals(fields.bleedMm, at(path, 'bleedMm'), false, problems)
  checkDecimals(fields.safeMm, at(path, 'safeMm'), false, problems)
  if (problems.under(path)) return undefined
  const book = value as BookEntry
  const shorter = Math.min(book.trimMm.width, book.trimMm.height)
  if (book.safeMm * 2 >= shorter) {
    problems.add(
      at(path, 'safeMm'),
      `must be less than half the trim's shorter side (${shorter} mm), got ${book.safeMm}`,
    )
  }
  const pages = product.pagePricing
  if (pages) {
    for (const field of ['minimumPages', 'maximumPages'] as const) {
      if (pages[field] % book.pageMultiple !== 0) {
        problems.add(
          at(path, 'pageMultiple'),
          `pagePricing.${field} (${pages[field]}) must be a multiple of it (${book.pageMultiple})`,
        )
      }
    }
  }
  if (problems.under(path)) return undefined
  return {
    trimMm: { width: book.trimMm.width, height: book.trimMm.height },
    bleedMm: book.bleedMm,
    safeMm: book.safeMm,
    pageMultiple: book.pageMultiple,
  }
}
