// What changed between two catalogue versions (docs/catalogue.md#comparing-versions): per section, each entry
// added, removed or changed, with a short text of it before and after. Plain data, so the command line prints
// it (or its JSON) and the console renders it as tables from the same result.
import type { Catalogue } from './catalogue.ts'
import type {
  CatalogueFile,
  CatalogueMoney,
  PriceListEntry,
  PriceRuleEntry,
  Product,
  ShippingRate,
} from './catalogue.types.ts'
import { formatMinorAsAmount } from './money.ts'
import type { PriceListFallback } from './price-lists.ts'
import { labColourText, type PrintAreaSpec } from './print-specs.ts'

export const CATALOGUE_DIFF_SECTIONS = [
  'products',
  'prices',
  'printFiles',
  'labs',
  'shippingRates',
  'zones',
  'taxRates',
  'currencies',
  'priceLists',
] as const
export type CatalogueDiffSection = (typeof CATALOGUE_DIFF_SECTIONS)[number]

/** What each section lists, for headings. */
export const CATALOGUE_DIFF_SECTION_TITLES: Readonly<Record<CatalogueDiffSection, string>> = {
  products: 'Products and their variants',
  prices: 'Prices (a variant from a lab)',
  printFiles: "Print files (a product from a lab: the file's format and colour)",
  labs: 'Labs',
  shippingRates: 'Shipping rates (lab, zone, method)',
  zones: 'Zones',
  taxRates: 'Tax rates',
  currencies: 'Currencies',
  priceLists: 'Price lists (a list, and its product, category and shipping rules)',
}

export interface CatalogueChange {
  change: 'added' | 'removed' | 'changed'
  /**
   * The entry: a SKU, `GLOBAL-FAP-8x10{} from LAB-UK` (a price), `GLOBAL-FAP-8x10 from LAB-UK` (print files), a lab code, `LAB-UK Budget to Europe`, a zone, a country. */
  key: string
  /** The entry before, as short text; absent when added. */
  before?: string
  /** The entry after; absent when removed. */
  after?: string
}

export interface CatalogueDiff {
  from: number
  to: number
  /** Every section in CATALOGUE_DIFF_SECTIONS order, each with its changes sorted by key (empty: unchanged). */
  sections: { section: CatalogueDiffSection; changes: CatalogueChange[] }[]
  /** The number of changes over all sections. */
  total: number
  /**
   * The accounts whose own price list `from` has and `to` does not (docs/billing.md#price-lists): on `to` they
   * fall back to its default list, or to the labs' costs without one. Empty when none (or not looked up).
   */
  priceListAccounts: PriceListFallback[]
}

/** `12.50 GBP` */
function moneyText(money: CatalogueMoney): string {
  return `${formatMinorAsAmount(money.minor)} ${money.currency}`
}

function compare(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): CatalogueChange[] {
  const changes: CatalogueChange[] = []
  for (const [key, text] of before) {
    const now = after.get(key)
    if (now === undefined) changes.push({ change: 'removed', key, before: text })
    else if (now !== text) changes.push({ change: 'changed', key, before: text, after: now })
  }
  for (const [key, text] of after) {
    if (!before.has(key)) changes.push({ change: 'added', key, after: text })
  }
  return changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}

/** An entry of several fields (a product, a lab): compared field by field. */
type Fields = Record<string, unknown>

/** `name: Wall art lab; countryCode: GB`: the fields given (all by default), each value as JSON unless text. */
function fieldsText(fields: Fields, names: readonly string[] = Object.keys(fields)): string {
  return names
    .map((name) => {
      const value = fields[name]
      // A field one side lacks (print specifications added to a product): "(none)" rather than "undefined".
      return `${name}: ${value === undefined ? '(none)' : typeof value === 'string' ? value : JSON.stringify(value)}`
    })
    .join('; ')
}

/**
 * Like `compare`, for entries of several fields: a changed entry shows only the fields that changed, so an
 * operator reads `name: Wall art lab` -> `name: Wall art lab (Leicester)`, not two whole records.
 */
function compareFields(before: ReadonlyMap<string, Fields>, after: ReadonlyMap<string, Fields>): CatalogueChange[] {
  const changes: CatalogueChange[] = []
  for (const [key, fields] of before) {
    const now = after.get(key)
    if (now === undefined) {
      changes.push({ change: 'removed', key, before: fieldsText(fields) })
      continue
    }
    const changed = [...new Set([...Object.keys(fields), ...Object.keys(now)])].filter(
      (name) => JSON.stringify(fields[name]) !== JSON.stringify(now[name]),
    )
    if (changed.length > 0) {
      changes.push({ change: 'changed', key, before: fieldsText(fields, changed), after: fieldsText(now, changed) })
    }
  }
  for (const [key, fields] of after) {
    if (!before.has(key)) changes.push({ change: 'added', key, after: fieldsText(fields) })
  }
  return changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}

/** Entries of several fields (products, labs) by their key: one map per section, as `compareFields` takes them. */
function fieldsByKey<T>(entries: readonly T[], key: (entry: T) => string, fields: (entry: T) => Fields) {
  return new Map<string, Fields>(entries.map((entry) => [key(entry), fields(entry)]))
}

/** `254x254 mm, bleed 3, safe 6, wrap 38, 100-300 dpi` */
function specText(spec: PrintAreaSpec): string {
  const wrap = spec.wrapMm === null ? '' : `, wrap ${spec.wrapMm}`
  return (
    `${spec.trimMm.width}x${spec.trimMm.height} mm, bleed ${spec.bleedMm}, safe ${spec.safeMm}${wrap}, ` +
    `${spec.minDpi}-${spec.recommendedDpi} dpi`
  )
}

/**
 * The print specifications as fields, only where the catalogue gives them (so a catalogue without them diffs as
 * it always did): each specified area's distinct specifications over the variants, and the book's interior.
 */
function printSpecFields(product: Product): Fields {
  const fields: Fields = {}
  const areas: Record<string, string> = {}
  for (const name of Object.keys(product.printAreas)) {
    const texts = new Set(
      product.variants.flatMap((variant) => {
        const spec = variant.printAreaSpecs[name]
        return spec ? [specText(spec)] : []
      }),
    )
    if (texts.size > 0) areas[name] = [...texts].join(' | ')
  }
  if (Object.keys(areas).length > 0) fields.printAreaSpecs = areas
  const book = product.book
  if (book) {
    fields.book =
      `${book.trimMm.width}x${book.trimMm.height} mm, bleed ${book.bleedMm}, safe ${book.safeMm}, ` +
      `${book.minPages}-${book.maxPages} pages by ${book.pageMultiple}`
  }
  return fields
}

function products(catalogue: Catalogue): Map<string, Fields> {
  return fieldsByKey(
    catalogue.products,
    (product) => product.sku,
    (product) => ({
      description: product.description,
      shippingClass: product.shippingClass,
      attributes: product.attributes,
      printAreas: Object.fromEntries(
        Object.values(product.printAreas).map((area) => [
          area.name,
          `${area.size.horizontalResolution}x${area.size.verticalResolution}${area.required ? ' required' : ''}`,
        ]),
      ),
      variants: product.variants.length,
      ...printSpecFields(product),
    }),
  )
}

function prices(catalogue: Catalogue): Map<string, string> {
  const entries = new Map<string, string>()
  for (const product of catalogue.products) {
    for (const variant of product.variants) {
      for (const offer of variant.offers) {
        const perPage = offer.perAdditionalPageCost ? ` + ${moneyText(offer.perAdditionalPageCost)} a page` : ''
        entries.set(`${variant.key} from ${offer.lab.code}`, `${moneyText(offer.unitCost)}${perPage}`)
      }
    }
  }
  return entries
}

/**
 * Each product from each lab making it: the print file's format and colour (the lab product's own, else the lab's
 * default), so a lab switching a product to CMYK or to PDF shows. Variants a lab lists apart that differ are
 * joined with ` | `.
 */
function printFiles(catalogue: Catalogue): Map<string, Fields> {
  const byKey = new Map<string, { formats: Set<string>; colours: Set<string> }>()
  for (const product of catalogue.products) {
    for (const variant of product.variants) {
      for (const offer of variant.offers) {
        const key = `${product.sku} from ${offer.lab.code}`
        const entry = byKey.get(key) ?? { formats: new Set<string>(), colours: new Set<string>() }
        entry.formats.add(offer.printFileFormat)
        entry.colours.add(labColourText(offer.colour))
        byKey.set(key, entry)
      }
    }
  }
  return new Map(
    [...byKey].map(([key, entry]) => [
      key,
      { printFileFormat: [...entry.formats].sort().join(' | '), colour: [...entry.colours].sort().join(' | ') },
    ]),
  )
}

function labs(catalogue: Catalogue): Map<string, Fields> {
  return fieldsByKey(
    catalogue.labs,
    (lab) => lab.code,
    (lab) => ({
      name: lab.name,
      countryCode: lab.countryCode,
      currency: lab.currency,
      dailyJobLimit: lab.dailyJobLimit,
      qualityThreshold: lab.qualityThreshold,
      calendar: lab.calendar ? lab.calendar.timeZone : null,
    }),
  )
}

function rateText(rate: ShippingRate): string {
  const costs = Object.entries(rate.costs)
    .map(
      ([shippingClass, cost]) =>
        `${shippingClass} ${moneyText(cost.perShipment)} + ${moneyText(cost.perAdditionalItem)}`,
    )
    .join('; ')
  const transit = rate.transitDays ? `, ${rate.transitDays.min}-${rate.transitDays.max} days` : ''
  return `${rate.carrier} ${rate.service}${rate.tracked ? ' tracked' : ''}${transit}: ${costs}`
}

function shippingRates(catalogue: Catalogue): Map<string, string> {
  const entries = new Map<string, string>()
  for (const lab of catalogue.labs) {
    for (const rate of lab.shippingRates) entries.set(`${lab.code} ${rate.method} to ${rate.zone}`, rateText(rate))
  }
  return entries
}

function zones(file: CatalogueFile): Map<string, string> {
  return new Map(
    Object.entries(file.zones).map(([name, entry]) => [
      name,
      'restOfWorld' in entry ? 'rest of world' : [...entry.countries].sort().join(' '),
    ]),
  )
}

function taxRates(file: CatalogueFile): Map<string, string> {
  return new Map(
    Object.entries(file.taxRates).map(([country, entry]) => [
      country,
      `${entry.name} ${entry.ratePercent}%${entry.salesTaxNotComputed ? ' (sales tax not computed)' : ''}`,
    ]),
  )
}

function currencies(file: CatalogueFile): Map<string, string> {
  return new Map(
    Object.entries(file.currencies.rates).map(([code, rate]) => [
      code,
      code === file.currencies.base ? `${rate} (base)` : rate,
    ]),
  )
}

/** `fixed GBP 12.00, USD 15.00`; `cost + 40% + 2.00, up to .99`; `cost`. */
function ruleText(rule: PriceRuleEntry): string {
  if (rule.prices !== undefined) {
    const prices = Object.entries(rule.prices).filter(([currency]) => !currency.startsWith('$'))
    return `fixed ${prices.map(([currency, amount]) => `${currency} ${amount}`).join(', ')}`
  }
  const markup = rule.markupPercent === undefined ? '' : ` + ${rule.markupPercent}%`
  const plus = rule.plus === undefined ? '' : ` + ${rule.plus}`
  const rounded = rule.roundUpTo === undefined ? '' : `, up to ${rule.roundUpTo.slice(1)}`
  return `cost${markup}${plus}${rounded}`
}

function ownEntries<T>(record: Record<string, T> | undefined): [string, T][] {
  return Object.entries(record ?? {}).filter(([key]) => !key.startsWith('$'))
}

/** Each list (`retail`: default, base, percentOff) and each of its rules (`retail products canvas`). */
function priceLists(file: CatalogueFile): { lists: Map<string, Fields>; rules: Map<string, string> } {
  const lists = new Map<string, Fields>()
  const rules = new Map<string, string>()
  for (const [name, entry] of ownEntries<PriceListEntry>(file.priceLists)) {
    lists.set(name, {
      default: entry.default === true ? 'yes' : 'no',
      base: entry.base ?? 'none',
      percentOff: entry.percentOff === undefined ? 'none' : `${entry.percentOff}%`,
    })
    for (const [key, rule] of ownEntries(entry.products)) rules.set(`${name} products ${key}`, ruleText(rule))
    for (const [key, rule] of ownEntries(entry.shipping)) rules.set(`${name} shipping ${key}`, ruleText(rule))
  }
  return { lists, rules }
}

function comparePriceLists(a: CatalogueFile, b: CatalogueFile): CatalogueChange[] {
  const [before, after] = [priceLists(a), priceLists(b)]
  return [...compareFields(before.lists, after.lists), ...compare(before.rules, after.rules)].sort((x, y) =>
    x.key < y.key ? -1 : x.key > y.key ? 1 : 0,
  )
}

/**
 * The changes from catalogue `a` (version `from`) to `b` (version `to`); `priceListAccounts`: the accounts whose
 * list `to` takes away (the caller looks them up: this is pure).
 */
export function diffCatalogues(
  from: number,
  a: Catalogue,
  to: number,
  b: Catalogue,
  priceListAccounts: PriceListFallback[] = [],
): CatalogueDiff {
  const fileA = JSON.parse(a.fileText()) as CatalogueFile
  const fileB = JSON.parse(b.fileText()) as CatalogueFile
  const bySection: Record<CatalogueDiffSection, CatalogueChange[]> = {
    products: compareFields(products(a), products(b)),
    prices: compare(prices(a), prices(b)),
    printFiles: compareFields(printFiles(a), printFiles(b)),
    labs: compareFields(labs(a), labs(b)),
    shippingRates: compare(shippingRates(a), shippingRates(b)),
    zones: compare(zones(fileA), zones(fileB)),
    taxRates: compare(taxRates(fileA), taxRates(fileB)),
    currencies: compare(currencies(fileA), currencies(fileB)),
    priceLists: comparePriceLists(fileA, fileB),
  }
  const sections = CATALOGUE_DIFF_SECTIONS.map((section) => ({ section, changes: bySection[section] }))
  const total = sections.reduce((sum, section) => sum + section.changes.length, 0)
  return { from, to, sections, total, priceListAccounts }
}
