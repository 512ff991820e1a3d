// Validation of a catalogue file (docs/catalogue.md, "Validation rules"). Every problem is collected with the
// path of the bad entry, so an operator fixes a file in one pass instead of one error per restart. On success
// the file comes back canonicalised: SKU references and attribute values in lab entries, explicit variants and
// overrides take the product's own spelling, so the builder can compare strings exactly.

import { attributeCombinations, DEFAULT_PRINT_AREA, variantKey } from '../domain/catalogue.ts'
import {
  CATALOGUE_FORMAT_VERSION,
  type CatalogueFile,
  type LabEntry,
  type LabProductEntry,
  type PagePricingEntry,
  type PixelSizeEntry,
  PRINT_FILE_FORMATS,
  type PrintAreaEntry,
  type PrintFileFormat,
  type ProductEntry,
  type ShippingCostEntry,
  type ShippingRateEntry,
  type SpinePaperEntry,
  type TaxRateEntry,
  type VariantEntry,
  type VariantOverrideEntry,
  type ZoneEntry,
} from '../domain/catalogue.types.ts'
import {
  MONEY_PATTERN,
  PERCENT_PATTERN,
  parsePercentToBasisPoints,
  parseRateToMillionths,
  RATE_PATTERN,
} from '../domain/catalogue-money.ts'
import { isIsoCountryCode } from '../domain/country-codes.ts'
import { SHIPPING_METHODS, type ShippingMethod } from '../domain/shipping-methods.ts'
import { millimetresToMicrometres, SPINE_PRINT_AREA } from '../domain/spine.ts'

/** Letters, digits, `-`, `_`, `.`: SKUs travel in URL paths (GET /v4.0/products/{sku}). */
const SKU_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
/** Lab codes are shown to merchants as `fulfillmentLocation.labCode`: lower case, like `uk6`, `prodigi_gb2`. */
const LAB_CODE_PATTERN = /^[a-z0-9][a-z0-9_-]*$/
/** Print areas are returned lower case (CONTRACT.md, "Objects"), so the catalogue spells them that way. */
const PRINT_AREA_PATTERN = /^[a-z][a-z0-9_-]*$/
const CURRENCY_CODE_PATTERN = /^[A-Z]{3}$/
/** Upper bound for print-area pixel sizes: far above any real print (30x40 in at 300 dpi is 9000x12000). */
const MAX_RESOLUTION_PX = 100_000
/** How many uncovered variants one problem line lists before summarising the rest. */
const MAX_VARIANTS_LISTED = 5
/** Fields starting with this are comments or tooling (`$schema`, `$comment`) and are ignored. */
const IGNORED_FIELD_PREFIX = '$'

export interface CatalogueValidationResult {
  /** Present only when `problems` is empty. */
  readonly file?: CatalogueFile
  /** One line per problem: `<path>: <reason>`. */
  readonly problems: readonly string[]
}

type JsonObject = Record<string, unknown>

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`
  return path === '' ? key : `${path}.${key}`
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${String(value)}`
}

/** Collects problems and reads typed fields, reporting what is wrong with each and returning undefined. */
class Checker {
  readonly problems: string[] = []

  report(path: string, reason: string): void {
    this.problems.push(`${path === '' ? '(root)' : path}: ${reason}`)
  }

  /** An object whose keys are exactly `fields` (required-ness is checked by the field readers). */
  record(value: unknown, path: string, fields: readonly string[]): JsonObject | undefined {
    if (!isJsonObject(value)) {
      this.report(path, `must be an object, got ${describe(value)}`)
      return undefined
    }
    for (const key of Object.keys(value)) {
      if (!fields.includes(key) && !key.startsWith(IGNORED_FIELD_PREFIX)) {
        this.report(join(path, key), `unknown field (expected one of ${fields.join(', ')})`)
      }
    }
    return value
  }

  /** An object used as a map (any keys); `$`-prefixed keys are dropped. */
  map(value: unknown, path: string, { nonEmpty }: { nonEmpty: boolean }): [string, unknown][] | undefined {
    if (!isJsonObject(value)) {
      this.report(path, `must be an object, got ${describe(value)}`)
      return undefined
    }
    const entries = Object.entries(value).filter(([key]) => !key.startsWith(IGNORED_FIELD_PREFIX))
    if (nonEmpty && entries.length === 0) this.report(path, 'must not be empty')
    return entries
  }

  array(value: unknown, path: string, { nonEmpty }: { nonEmpty: boolean }): unknown[] | undefined {
    if (!Array.isArray(value)) {
      this.report(path, `must be an array, got ${describe(value)}`)
      return undefined
    }
    if (nonEmpty && value.length === 0) this.report(path, 'must not be empty')
    return value
  }

  present(parent: JsonObject, key: string, path: string): boolean {
    if (parent[key] !== undefined) return true
    this.report(join(path, key), 'is required')
    return false
  }

  string(value: unknown, path: string): string | undefined {
    if (typeof value !== 'string') {
      this.report(path, `must be a string, got ${describe(value)}`)
      return undefined
    }
    if (value.trim() === '') {
      this.report(path, 'must not be empty or whitespace')
      return undefined
    }
    return value
  }

  requiredString(parent: JsonObject, key: string, path: string): string | undefined {
    return this.present(parent, key, path) ? this.string(parent[key], join(path, key)) : undefined
  }

  matching(value: unknown, path: string, pattern: RegExp, reason: string): string | undefined {
    const text = this.string(value, path)
    if (text === undefined) return undefined
    if (!pattern.test(text)) {
      this.report(path, `${reason}, got ${describe(text)}`)
      return undefined
    }
    return text
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (typeof value === 'boolean') return value
    this.report(path, `must be true or false, got ${describe(value)}`)
    return undefined
  }

  integer(value: unknown, path: string, minimum: number, maximum = Number.MAX_SAFE_INTEGER): number | undefined {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
      const expected = minimum === 1 ? 'a positive integer' : `an integer of at least ${minimum}`
      this.report(path, `must be ${expected}, got ${describe(value)}`)
      return undefined
    }
    if (value > maximum) {
      this.report(path, `must be at most ${maximum}, got ${value}`)
      return undefined
    }
    return value
  }

  positiveNumber(value: unknown, path: string): number | undefined {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      this.report(path, `must be a positive number, got ${describe(value)}`)
      return undefined
    }
    return value
  }

  money(value: unknown, path: string): string | undefined {
    return this.matching(value, path, MONEY_PATTERN, 'must be a decimal string with at most 2 decimals like "12.50"')
  }

  countryCode(value: unknown, path: string): string | undefined {
    const code = this.string(value, path)
    if (code === undefined) return undefined
    if (!isIsoCountryCode(code)) {
      this.report(path, `must be an ISO 3166-1 alpha-2 country code in upper case, got ${describe(code)}`)
      return undefined
    }
    return code
  }

  oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | undefined {
    const text = this.string(value, path)
    if (text === undefined) return undefined
    const found = allowed.find((candidate) => candidate === text)
    if (found === undefined) this.report(path, `must be one of ${allowed.join(', ')}, got ${describe(text)}`)
    return found
  }
}

/** Case-insensitive lookup of a name among `names`, returning the catalogue's spelling. */
function findName(names: Iterable<string>, given: string): string | undefined {
  const lower = given.toLowerCase()
  for (const name of names) if (name.toLowerCase() === lower) return name
  return undefined
}

function productLabel(index: number, entry: unknown): string {
  const sku = isJsonObject(entry) ? entry.sku : undefined
  return typeof sku === 'string' ? `products[${index}] (${sku})` : `products[${index}]`
}

function labLabel(index: number, entry: unknown): string {
  const code = isJsonObject(entry) ? entry.code : undefined
  return typeof code === 'string' ? `labs[${index}] (${code})` : `labs[${index}]`
}

/** A product that passed its own checks, with its variant list (explicit or generated) for the lab checks. */
interface CheckedProduct {
  readonly label: string
  readonly entry: ProductEntry
  readonly variants: readonly Readonly<Record<string, string>>[]
}

interface Context {
  readonly checker: Checker
  readonly currencies: ReadonlySet<string>
  readonly shippingClasses: ReadonlySet<string>
  readonly zones: ReadonlyMap<string, ZoneEntry>
  /** Lower-cased SKU -> product, for every product that passed its checks. */
  readonly products: Map<string, CheckedProduct>
  /** Lower-cased SKUs of every entry, valid or not, so a broken product is not also reported as unknown. */
  readonly seenSkus: Set<string>
}

export function validateCatalogueFile(json: unknown): CatalogueValidationResult {
  const checker = new Checker()
  const root = checker.record(json, '', [
    'formatVersion',
    'name',
    'currencies',
    'shippingClasses',
    'zones',
    'taxRates',
    'products',
    'labs',
  ])
  if (!root) return { problems: checker.problems }

  if (root.formatVersion !== CATALOGUE_FORMAT_VERSION) {
    checker.report('formatVersion', `must be ${CATALOGUE_FORMAT_VERSION}, got ${describe(root.formatVersion)}`)
  }
  const name = checker.requiredString(root, 'name', '')
  const currencies = checkCurrencies(checker, root)
  const shippingClasses = checkShippingClasses(checker, root)
  const zones = checkZones(checker, root)
  const taxRates = checkTaxRates(checker, root)

  const context: Context = {
    checker,
    currencies: new Set(Object.keys(currencies?.rates ?? {})),
    shippingClasses: new Set(shippingClasses ?? []),
    zones,
    products: new Map(),
    seenSkus: new Set(),
  }
  const products: ProductEntry[] = []
  if (checker.present(root, 'products', '')) {
    const list = checker.array(root.products, 'products', { nonEmpty: true }) ?? []
    list.forEach((value, index) => {
      const checked = checkProduct(context, value, index)
      if (checked) products.push(checked.entry)
    })
  }
  const labs: LabEntry[] = []
  const problemsBeforeLabs = checker.problems.length
  if (checker.present(root, 'labs', '')) {
    const list = checker.array(root.labs, 'labs', { nonEmpty: true }) ?? []
    const codes = new Map<string, string>()
    list.forEach((value, index) => {
      const lab = checkLab(context, value, index, codes)
      if (lab) labs.push(lab)
    })
  }
  // Coverage is only meaningful when every lab was read: a lab refused for a typo would otherwise make each of
  // its products look orphaned, burying the one real problem under dozens of follow-on lines.
  if (checker.problems.length === problemsBeforeLabs && labs.length > 0) checkEveryVariantIsMade(context, labs)

  if (checker.problems.length > 0 || !name || !currencies || !shippingClasses || !taxRates) {
    return { problems: checker.problems }
  }
  const file: CatalogueFile = {
    formatVersion: CATALOGUE_FORMAT_VERSION,
    name,
    currencies,
    shippingClasses,
    zones: Object.fromEntries(zones),
    taxRates,
    products,
    labs,
  }
  return { file, problems: [] }
}

// ---- top-level tables ---------------------------------------------------------------------------------

function checkCurrencies(checker: Checker, root: JsonObject): CatalogueFile['currencies'] | undefined {
  if (!checker.present(root, 'currencies', '')) return undefined
  const table = checker.record(root.currencies, 'currencies', ['base', 'rates'])
  if (!table) return undefined
  const base = checker.present(table, 'base', 'currencies')
    ? checker.matching(table.base, 'currencies.base', CURRENCY_CODE_PATTERN, 'must be a 3-letter upper-case code')
    : undefined
  const rates: Record<string, string> = {}
  let valid = base !== undefined
  const entries = checker.present(table, 'rates', 'currencies')
    ? checker.map(table.rates, 'currencies.rates', { nonEmpty: true })
    : undefined
  if (!entries) valid = false
  for (const [code, value] of entries ?? []) {
    const path = `currencies.rates.${code}`
    if (!CURRENCY_CODE_PATTERN.test(code)) {
      checker.report(path, 'currency code must be 3 upper-case letters')
      valid = false
      continue
    }
    const rate = checker.matching(value, path, RATE_PATTERN, 'must be a decimal string with at most 6 decimals')
    if (rate === undefined) {
      valid = false
    } else if (parseRateToMillionths(rate) === 0n) {
      checker.report(path, 'must be greater than 0')
      valid = false
    } else {
      rates[code] = rate
    }
  }
  if (base !== undefined && entries) {
    const baseRate = rates[base]
    if (baseRate === undefined && !entries.some(([code]) => code === base)) {
      checker.report('currencies.rates', `must list the base currency ${base} (with rate "1")`)
      valid = false
    } else if (baseRate !== undefined && parseRateToMillionths(baseRate) !== parseRateToMillionths('1')) {
      checker.report(`currencies.rates.${base}`, `the base currency's rate must be "1", got ${describe(baseRate)}`)
      valid = false
    }
  }
  return valid && base !== undefined ? { base, rates } : undefined
}

function checkShippingClasses(checker: Checker, root: JsonObject): string[] | undefined {
  if (!checker.present(root, 'shippingClasses', '')) return undefined
  const list = checker.array(root.shippingClasses, 'shippingClasses', { nonEmpty: true })
  if (!list) return undefined
  const classes: string[] = []
  list.forEach((value, index) => {
    const path = join('shippingClasses', index)
    const shippingClass = checker.string(value, path)
    if (shippingClass === undefined) return
    if (classes.includes(shippingClass)) checker.report(path, `duplicates ${describe(shippingClass)}`)
    else classes.push(shippingClass)
  })
  return classes
}

function checkZones(checker: Checker, root: JsonObject): Map<string, ZoneEntry> {
  const zones = new Map<string, ZoneEntry>()
  if (!checker.present(root, 'zones', '')) return zones
  const entries = checker.map(root.zones, 'zones', { nonEmpty: true }) ?? []
  const zoneOfCountry = new Map<string, string>()
  let restOfWorldZone: string | undefined
  for (const [name, value] of entries) {
    const path = join('zones', name)
    const zone = checker.record(value, path, ['countries', 'restOfWorld'])
    if (!zone) continue
    if (zone.restOfWorld !== undefined) {
      if (zone.restOfWorld !== true) checker.report(join(path, 'restOfWorld'), 'must be true when present')
      else if (zone.countries !== undefined) checker.report(path, 'a rest-of-world zone must not list countries')
      else if (restOfWorldZone !== undefined)
        checker.report(path, `only one rest-of-world zone allowed (${restOfWorldZone} is one)`)
      else {
        restOfWorldZone = name
        zones.set(name, { restOfWorld: true })
      }
      continue
    }
    if (!checker.present(zone, 'countries', path)) continue
    const list = checker.array(zone.countries, join(path, 'countries'), { nonEmpty: true })
    if (!list) continue
    const countries: string[] = []
    list.forEach((countryValue, index) => {
      const countryPath = join(join(path, 'countries'), index)
      const country = checker.countryCode(countryValue, countryPath)
      if (country === undefined) return
      const other = zoneOfCountry.get(country)
      if (other !== undefined) checker.report(countryPath, `${country} is already in zone ${other}`)
      else {
        zoneOfCountry.set(country, name)
        countries.push(country)
      }
    })
    zones.set(name, { countries })
  }
  return zones
}

function checkTaxRates(checker: Checker, root: JsonObject): Record<string, TaxRateEntry> | undefined {
  if (!checker.present(root, 'taxRates', '')) return undefined
  const entries = checker.map(root.taxRates, 'taxRates', { nonEmpty: false })
  if (!entries) return undefined
  const taxRates: Record<string, TaxRateEntry> = {}
  for (const [country, value] of entries) {
    const path = join('taxRates', country)
    if (!isIsoCountryCode(country)) {
      checker.report(path, 'key must be an ISO 3166-1 alpha-2 country code in upper case')
      continue
    }
    const entry = checker.record(value, path, ['name', 'ratePercent', 'salesTaxNotComputed'])
    if (!entry) continue
    const name = checker.requiredString(entry, 'name', path)
    let ratePercent: string | undefined
    if (checker.present(entry, 'ratePercent', path)) {
      ratePercent = checker.matching(
        entry.ratePercent,
        join(path, 'ratePercent'),
        PERCENT_PATTERN,
        'must be a percentage string with at most 2 decimals like "20" or "25.5"',
      )
      if (ratePercent !== undefined && parsePercentToBasisPoints(ratePercent) === undefined) {
        checker.report(join(path, 'ratePercent'), 'must not exceed 100')
        ratePercent = undefined
      }
    }
    const notComputed =
      entry.salesTaxNotComputed === undefined
        ? false
        : checker.boolean(entry.salesTaxNotComputed, join(path, 'salesTaxNotComputed'))
    if (name !== undefined && ratePercent !== undefined && notComputed !== undefined) {
      taxRates[country] = notComputed ? { name, ratePercent, salesTaxNotComputed: true } : { name, ratePercent }
    }
  }
  return taxRates
}

// ---- products -----------------------------------------------------------------------------------------

function checkProduct(context: Context, value: unknown, index: number): CheckedProduct | undefined {
  const { checker } = context
  const label = productLabel(index, value)
  const problemsBefore = checker.problems.length
  const product = checker.record(value, label, [
    'sku',
    'description',
    'category',
    'shippingClass',
    'productDimensions',
    'attributes',
    'printAreas',
    'variants',
    'variantOverrides',
    'pagePricing',
  ])
  if (!product) return undefined

  let sku: string | undefined
  if (checker.present(product, 'sku', label)) {
    sku = checker.matching(product.sku, join(label, 'sku'), SKU_PATTERN, 'must be letters, digits, ".", "-" or "_"')
    if (sku !== undefined) {
      const lower = sku.toLowerCase()
      const duplicate = context.products.get(lower)?.label
      if (context.seenSkus.has(lower)) {
        checker.report(
          join(label, 'sku'),
          `duplicates the SKU of ${duplicate ?? 'an earlier product'} (SKUs are compared case-insensitively)`,
        )
      }
      context.seenSkus.add(lower)
    }
  }
  const description = checker.requiredString(product, 'description', label)
  const category = checker.requiredString(product, 'category', label)
  let shippingClass: string | undefined
  if (checker.present(product, 'shippingClass', label)) {
    shippingClass = checker.oneOf(product.shippingClass, join(label, 'shippingClass'), [...context.shippingClasses])
  }
  const productDimensions = checkDimensions(checker, product, label)
  const attributes = product.attributes === undefined ? {} : checkAttributes(checker, product.attributes, label)
  const printAreas = checkPrintAreas(checker, product, label)

  let variants: VariantEntry[] | undefined
  let combinations: Record<string, string>[] = []
  if (attributes && printAreas) {
    if (product.variants === undefined) {
      combinations = attributeCombinations(attributes)
    } else {
      variants = checkExplicitVariants(checker, product.variants, join(label, 'variants'), attributes, printAreas)
      combinations = (variants ?? []).map((variant) => variant.attributes)
    }
  }
  const variantOverrides =
    product.variantOverrides === undefined || !attributes || !printAreas
      ? undefined
      : checkVariantOverrides(checker, product.variantOverrides, label, attributes, printAreas, combinations)
  const pagePricing =
    product.pagePricing === undefined || !printAreas
      ? undefined
      : checkPagePricing(checker, product.pagePricing, join(label, 'pagePricing'), printAreas)
  if (printAreas && SPINE_PRINT_AREA in printAreas && product.pagePricing === undefined) {
    // The spine width follows from the page count (domain/spine.ts), which only page-priced products carry.
    checker.report(join(join(label, 'printAreas'), SPINE_PRINT_AREA), 'a book with a spine needs pagePricing')
  }

  if (
    checker.problems.length > problemsBefore ||
    sku === undefined ||
    description === undefined ||
    category === undefined ||
    shippingClass === undefined ||
    productDimensions === undefined ||
    attributes === undefined ||
    printAreas === undefined
  ) {
    return undefined
  }
  const entry: ProductEntry = { sku, description, category, shippingClass, productDimensions, attributes, printAreas }
  if (variants) entry.variants = variants
  if (variantOverrides) entry.variantOverrides = variantOverrides
  if (pagePricing) entry.pagePricing = pagePricing
  const checked: CheckedProduct = { label, entry, variants: combinations }
  context.products.set(sku.toLowerCase(), checked)
  return checked
}

function checkDimensions(
  checker: Checker,
  product: JsonObject,
  label: string,
): ProductEntry['productDimensions'] | undefined {
  if (!checker.present(product, 'productDimensions', label)) return undefined
  const path = join(label, 'productDimensions')
  const dimensions = checker.record(product.productDimensions, path, ['width', 'height', 'units'])
  if (!dimensions) return undefined
  const width = checker.present(dimensions, 'width', path)
    ? checker.positiveNumber(dimensions.width, join(path, 'width'))
    : undefined
  const height = checker.present(dimensions, 'height', path)
    ? checker.positiveNumber(dimensions.height, join(path, 'height'))
    : undefined
  const units = checker.requiredString(dimensions, 'units', path)
  return width !== undefined && height !== undefined && units !== undefined ? { width, height, units } : undefined
}

function checkAttributes(checker: Checker, value: unknown, label: string): Record<string, string[]> | undefined {
  const path = join(label, 'attributes')
  const entries = checker.map(value, path, { nonEmpty: false })
  if (!entries) return undefined
  const attributes: Record<string, string[]> = {}
  let valid = true
  for (const [name, valuesValue] of entries) {
    const attributePath = join(path, name)
    if (name.trim() === '') {
      checker.report(attributePath, 'attribute name must not be empty')
      valid = false
      continue
    }
    const clash = findName(Object.keys(attributes), name)
    if (clash !== undefined) {
      checker.report(attributePath, `duplicates attribute ${clash} (names are compared case-insensitively)`)
      valid = false
      continue
    }
    const list = checker.array(valuesValue, attributePath, { nonEmpty: true })
    if (!list || list.length === 0) {
      valid = false
      continue
    }
    const values: string[] = []
    list.forEach((item, itemIndex) => {
      const valuePath = join(attributePath, itemIndex)
      const text = checker.string(item, valuePath)
      if (text === undefined) {
        valid = false
        return
      }
      const same = findName(values, text)
      if (same !== undefined) {
        checker.report(valuePath, `duplicates value ${describe(same)} (values are compared case-insensitively)`)
        valid = false
        return
      }
      values.push(text)
    })
    attributes[name] = values
  }
  return valid ? attributes : undefined
}

function checkPixelSize(checker: Checker, value: JsonObject, path: string): PixelSizeEntry | undefined {
  const horizontal = checker.present(value, 'horizontalResolution', path)
    ? checker.integer(value.horizontalResolution, join(path, 'horizontalResolution'), 1, MAX_RESOLUTION_PX)
    : undefined
  const vertical = checker.present(value, 'verticalResolution', path)
    ? checker.integer(value.verticalResolution, join(path, 'verticalResolution'), 1, MAX_RESOLUTION_PX)
    : undefined
  return horizontal !== undefined && vertical !== undefined
    ? { horizontalResolution: horizontal, verticalResolution: vertical }
    : undefined
}

function checkPrintAreas(
  checker: Checker,
  product: JsonObject,
  label: string,
): Record<string, PrintAreaEntry> | undefined {
  if (!checker.present(product, 'printAreas', label)) return undefined
  const path = join(label, 'printAreas')
  const entries = checker.map(product.printAreas, path, { nonEmpty: true })
  if (!entries || entries.length === 0) return undefined
  const printAreas: Record<string, PrintAreaEntry> = {}
  let valid = true
  for (const [name, value] of entries) {
    const areaPath = join(path, name)
    if (!PRINT_AREA_PATTERN.test(name)) {
      checker.report(areaPath, 'print area name must be lower case letters, digits, "-" or "_", starting with a letter')
      valid = false
      continue
    }
    const area = checker.record(value, areaPath, ['required', 'horizontalResolution', 'verticalResolution'])
    if (!area) {
      valid = false
      continue
    }
    const required = checker.present(area, 'required', areaPath)
      ? checker.boolean(area.required, join(areaPath, 'required'))
      : undefined
    const size = checkPixelSize(checker, area, areaPath)
    if (required === undefined || size === undefined) valid = false
    else printAreas[name] = { required, ...size }
  }
  return valid ? printAreas : undefined
}

function checkSizeOverrides(
  checker: Checker,
  value: unknown,
  path: string,
  printAreas: Record<string, PrintAreaEntry>,
): Record<string, PixelSizeEntry> | undefined {
  const entries = checker.map(value, path, { nonEmpty: true })
  if (!entries || entries.length === 0) return undefined
  const sizes: Record<string, PixelSizeEntry> = {}
  let valid = true
  for (const [area, sizeValue] of entries) {
    const areaPath = join(path, area)
    if (!(area in printAreas)) {
      checker.report(areaPath, `unknown print area (the product has ${Object.keys(printAreas).join(', ')})`)
      valid = false
      continue
    }
    const sizeObject = checker.record(sizeValue, areaPath, ['horizontalResolution', 'verticalResolution'])
    const size = sizeObject && checkPixelSize(checker, sizeObject, areaPath)
    if (size) sizes[area] = size
    else valid = false
  }
  return valid ? sizes : undefined
}

/**
 * Checks `{name: value}` against the product's attributes, returning the canonical spelling. `complete` demands
 * every attribute; otherwise a subset is fine (override `when`).
 */
function checkAttributeValues(
  checker: Checker,
  value: unknown,
  path: string,
  attributes: Record<string, string[]>,
  complete: boolean,
): Record<string, string> | undefined {
  const entries = checker.map(value, path, { nonEmpty: false })
  if (!entries) return undefined
  const canonical: Record<string, string> = {}
  let valid = true
  for (const [givenName, givenValue] of entries) {
    const valuePath = join(path, givenName)
    const name = findName(Object.keys(attributes), givenName)
    if (name === undefined) {
      const known = Object.keys(attributes)
      checker.report(valuePath, `unknown attribute (the product has ${known.length ? known.join(', ') : 'none'})`)
      valid = false
      continue
    }
    const text = checker.string(givenValue, valuePath)
    const allowed = attributes[name] ?? []
    const canonicalValue = text === undefined ? undefined : findName(allowed, text)
    if (text !== undefined && canonicalValue === undefined) {
      checker.report(valuePath, `${describe(text)} is not one of ${allowed.join(', ')}`)
    }
    if (canonicalValue === undefined) valid = false
    else canonical[name] = canonicalValue
  }
  if (complete) {
    const missing = Object.keys(attributes).filter(
      (name) =>
        !(name in canonical) &&
        !findName(
          entries.map(([n]) => n),
          name,
        ),
    )
    if (missing.length > 0) {
      checker.report(path, `must name a value for every attribute; missing ${missing.join(', ')}`)
      valid = false
    }
  }
  if (!valid) return undefined
  // Product attribute order, so variant keys and the wire output do not depend on how the file spelled them.
  const ordered: Record<string, string> = {}
  for (const name of Object.keys(attributes)) {
    const canonicalValue = canonical[name]
    if (canonicalValue !== undefined) ordered[name] = canonicalValue
  }
  return ordered
}

function checkExplicitVariants(
  checker: Checker,
  value: unknown,
  path: string,
  attributes: Record<string, string[]>,
  printAreas: Record<string, PrintAreaEntry>,
): VariantEntry[] | undefined {
  const list = checker.array(value, path, { nonEmpty: true })
  if (!list || list.length === 0) return undefined
  const variants: VariantEntry[] = []
  const seen = new Map<string, number>()
  let valid = true
  list.forEach((item, index) => {
    const variantPath = join(path, index)
    const variant = checker.record(item, variantPath, ['attributes', 'printAreaSizes'])
    if (!variant) {
      valid = false
      return
    }
    const values = checker.present(variant, 'attributes', variantPath)
      ? checkAttributeValues(checker, variant.attributes, join(variantPath, 'attributes'), attributes, true)
      : undefined
    const sizes =
      variant.printAreaSizes === undefined
        ? null
        : checkSizeOverrides(checker, variant.printAreaSizes, join(variantPath, 'printAreaSizes'), printAreas)
    if (values === undefined || sizes === undefined) {
      valid = false
      return
    }
    const key = variantKey('', values).toLowerCase()
    const earlier = seen.get(key)
    if (earlier !== undefined) {
      checker.report(join(variantPath, 'attributes'), `duplicates variants[${earlier}]`)
      valid = false
      return
    }
    seen.set(key, index)
    variants.push(sizes ? { attributes: values, printAreaSizes: sizes } : { attributes: values })
  })
  return valid ? variants : undefined
}

function checkVariantOverrides(
  checker: Checker,
  value: unknown,
  label: string,
  attributes: Record<string, string[]>,
  printAreas: Record<string, PrintAreaEntry>,
  variants: readonly Readonly<Record<string, string>>[],
): VariantOverrideEntry[] | undefined {
  const path = join(label, 'variantOverrides')
  const list = checker.array(value, path, { nonEmpty: false })
  if (!list) return undefined
  const overrides: VariantOverrideEntry[] = []
  let valid = true
  list.forEach((item, index) => {
    const overridePath = join(path, index)
    const override = checker.record(item, overridePath, ['when', 'printAreaSizes'])
    if (!override) {
      valid = false
      return
    }
    const when = checker.present(override, 'when', overridePath)
      ? checkAttributeValues(checker, override.when, join(overridePath, 'when'), attributes, false)
      : undefined
    const sizes = checker.present(override, 'printAreaSizes', overridePath)
      ? checkSizeOverrides(checker, override.printAreaSizes, join(overridePath, 'printAreaSizes'), printAreas)
      : undefined
    if (when === undefined || sizes === undefined) {
      valid = false
      return
    }
    // An override that matches nothing is almost certainly a typo in `when`.
    const matches = variants.some((variant) => Object.entries(when).every(([name, v]) => variant[name] === v))
    if (!matches) {
      checker.report(join(overridePath, 'when'), 'matches no variant of the product')
      valid = false
      return
    }
    overrides.push({ when, printAreaSizes: sizes })
  })
  return valid ? overrides : undefined
}

function checkPagePricing(
  checker: Checker,
  value: unknown,
  path: string,
  printAreas: Record<string, PrintAreaEntry>,
): PagePricingEntry | undefined {
  const pricing = checker.record(value, path, ['pageCountPrintArea', 'basePages', 'minimumPages', 'maximumPages'])
  if (!pricing) return undefined
  let pageCountPrintArea = DEFAULT_PRINT_AREA
  if (pricing.pageCountPrintArea !== undefined) {
    const area = checker.string(pricing.pageCountPrintArea, join(path, 'pageCountPrintArea'))
    if (area === undefined) return undefined
    pageCountPrintArea = area
  }
  if (!(pageCountPrintArea in printAreas)) {
    checker.report(
      join(path, 'pageCountPrintArea'),
      `print area ${describe(pageCountPrintArea)} is not one of the product's print areas (${Object.keys(printAreas).join(', ')})`,
    )
    return undefined
  }
  const basePages = checker.present(pricing, 'basePages', path)
    ? checker.integer(pricing.basePages, join(path, 'basePages'), 0)
    : undefined
  const minimumPages = checker.present(pricing, 'minimumPages', path)
    ? checker.integer(pricing.minimumPages, join(path, 'minimumPages'), 1)
    : undefined
  const maximumPages = checker.present(pricing, 'maximumPages', path)
    ? checker.integer(pricing.maximumPages, join(path, 'maximumPages'), 1)
    : undefined
  if (basePages === undefined || minimumPages === undefined || maximumPages === undefined) return undefined
  if (maximumPages < minimumPages) {
    checker.report(join(path, 'maximumPages'), `must be at least minimumPages (${minimumPages})`)
    return undefined
  }
  return { pageCountPrintArea, basePages, minimumPages, maximumPages }
}

// ---- labs ---------------------------------------------------------------------------------------------

function checkLab(context: Context, value: unknown, index: number, codes: Map<string, string>): LabEntry | undefined {
  const { checker } = context
  const label = labLabel(index, value)
  const problemsBefore = checker.problems.length
  const lab = checker.record(value, label, [
    'code',
    'name',
    'countryCode',
    'currency',
    'defaultPrintFileFormat',
    'products',
    'shippingRates',
  ])
  if (!lab) return undefined
  let code: string | undefined
  if (checker.present(lab, 'code', label)) {
    code = checker.matching(
      lab.code,
      join(label, 'code'),
      LAB_CODE_PATTERN,
      'must be lower-case letters, digits, "-" or "_"',
    )
    if (code !== undefined) {
      const earlier = codes.get(code)
      if (earlier !== undefined) checker.report(join(label, 'code'), `duplicates the code of ${earlier}`)
      else codes.set(code, label)
    }
  }
  const name = checker.requiredString(lab, 'name', label)
  const countryCode = checker.present(lab, 'countryCode', label)
    ? checker.countryCode(lab.countryCode, join(label, 'countryCode'))
    : undefined
  let currency: string | undefined
  if (checker.present(lab, 'currency', label)) {
    currency = checker.string(lab.currency, join(label, 'currency'))
    if (currency !== undefined && !context.currencies.has(currency)) {
      checker.report(join(label, 'currency'), `${describe(currency)} is not in the currency rate table`)
      currency = undefined
    }
  }
  const defaultPrintFileFormat = checker.present(lab, 'defaultPrintFileFormat', label)
    ? checker.oneOf(lab.defaultPrintFileFormat, join(label, 'defaultPrintFileFormat'), PRINT_FILE_FORMATS)
    : undefined
  const products = checker.present(lab, 'products', label) ? checkLabProducts(context, lab.products, label) : undefined
  const shippingRates = checker.present(lab, 'shippingRates', label)
    ? checkShippingRates(context, lab.shippingRates, label, products ?? [], countryCode)
    : undefined

  if (
    checker.problems.length > problemsBefore ||
    code === undefined ||
    name === undefined ||
    countryCode === undefined ||
    currency === undefined ||
    defaultPrintFileFormat === undefined ||
    products === undefined ||
    shippingRates === undefined
  ) {
    return undefined
  }
  return { code, name, countryCode, currency, defaultPrintFileFormat, products, shippingRates }
}

function checkLabProducts(context: Context, value: unknown, label: string): LabProductEntry[] | undefined {
  const { checker } = context
  const path = join(label, 'products')
  const list = checker.array(value, path, { nonEmpty: true })
  if (!list) return undefined
  const products: LabProductEntry[] = []
  /** variant key -> index of the lab entry that already makes it: one lab, one price per variant. */
  const madeBy = new Map<string, number>()
  let valid = true
  list.forEach((item, index) => {
    const entryPath = join(path, index)
    const entry = checker.record(item, entryPath, [
      'sku',
      'attributes',
      'unitCost',
      'perAdditionalPageCost',
      'printFileFormat',
      'spine',
    ])
    if (!entry) {
      valid = false
      return
    }
    const givenSku = checker.requiredString(entry, 'sku', entryPath)
    const product = givenSku === undefined ? undefined : context.products.get(givenSku.toLowerCase())
    if (givenSku !== undefined && !product) {
      // A product that failed its own checks is already reported; skipping its lab entries keeps the rest of
      // this lab checkable instead of piling follow-on problems onto the real one.
      if (context.seenSkus.has(givenSku.toLowerCase())) return
      checker.report(join(entryPath, 'sku'), `unknown SKU ${describe(givenSku)}`)
    }
    const unitCost = checker.present(entry, 'unitCost', entryPath)
      ? checker.money(entry.unitCost, join(entryPath, 'unitCost'))
      : undefined
    const printFileFormat: PrintFileFormat | null | undefined =
      entry.printFileFormat === undefined
        ? null
        : checker.oneOf(entry.printFileFormat, join(entryPath, 'printFileFormat'), PRINT_FILE_FORMATS)
    if (!product || unitCost === undefined || printFileFormat === undefined) {
      valid = false
      return
    }
    const productAttributes = product.entry.attributes ?? {}

    let restriction: Record<string, string[]> | undefined
    if (entry.attributes !== undefined) {
      restriction = checkAttributeRestriction(
        checker,
        entry.attributes,
        join(entryPath, 'attributes'),
        productAttributes,
      )
      if (!restriction) {
        valid = false
        return
      }
    }
    let perAdditionalPageCost: string | undefined
    const pageCostPath = join(entryPath, 'perAdditionalPageCost')
    if (product.entry.pagePricing) {
      perAdditionalPageCost = checker.present(entry, 'perAdditionalPageCost', entryPath)
        ? checker.money(entry.perAdditionalPageCost, pageCostPath)
        : undefined
      if (perAdditionalPageCost === undefined) {
        valid = false
        return
      }
    } else if (entry.perAdditionalPageCost !== undefined) {
      checker.report(pageCostPath, `only allowed for products with pagePricing; ${product.entry.sku} has none`)
      valid = false
      return
    }

    let spine: SpinePaperEntry | undefined
    const spinePath = join(entryPath, 'spine')
    if (SPINE_PRINT_AREA in product.entry.printAreas) {
      spine = checker.present(entry, 'spine', entryPath) ? checkSpinePaper(checker, entry.spine, spinePath) : undefined
      if (spine === undefined) {
        valid = false
        return
      }
    } else if (entry.spine !== undefined) {
      checker.report(spinePath, `only allowed for books with a spine print area; ${product.entry.sku} has none`)
      valid = false
      return
    }

    const covered = product.variants.filter((variant) =>
      Object.entries(restriction ?? {}).every(([name, values]) => values.includes(variant[name] ?? '')),
    )
    if (covered.length === 0) {
      checker.report(entryPath, `the attribute restriction matches no variant of ${product.entry.sku}`)
      valid = false
      return
    }
    for (const variant of covered) {
      const key = variantKey(product.entry.sku, variant)
      const earlier = madeBy.get(key)
      if (earlier !== undefined) {
        checker.report(entryPath, `${key} is already made by ${join(path, earlier)} (one price per variant and lab)`)
        valid = false
        return
      }
    }
    for (const variant of covered) madeBy.set(variantKey(product.entry.sku, variant), index)

    const canonical: LabProductEntry = { sku: product.entry.sku, unitCost }
    if (restriction) canonical.attributes = restriction
    if (perAdditionalPageCost !== undefined) canonical.perAdditionalPageCost = perAdditionalPageCost
    if (printFileFormat !== null) canonical.printFileFormat = printFileFormat
    if (spine !== undefined) canonical.spine = spine
    products.push(canonical)
  })
  return valid ? products : undefined
}

/** Upper bounds of spine paper figures: far above any real book, low enough to catch a figure in micrometres. */
const MAX_COVER_ALLOWANCE_MM = 50
const MAX_PAGE_THICKNESS_MM = 5

function checkSpinePaper(checker: Checker, value: unknown, path: string): SpinePaperEntry | undefined {
  const paper = checker.record(value, path, ['paper', 'coverAllowanceMm', 'pageThicknessMm'])
  if (!paper) return undefined
  const name = checker.requiredString(paper, 'paper', path)
  const millimetres = (key: string, minimum: 'zero' | 'positive', maximum: number) => {
    if (!checker.present(paper, key, path)) return undefined
    const at = join(path, key)
    const given = paper[key]
    const micrometres = typeof given === 'number' ? millimetresToMicrometres(given) : undefined
    if (typeof given !== 'number' || micrometres === undefined || (minimum === 'positive' && micrometres === 0)) {
      const least = minimum === 'positive' ? 'a positive' : 'a non-negative'
      checker.report(at, `must be ${least} number of millimetres with at most 3 decimals, got ${describe(given)}`)
      return undefined
    }
    if (given > maximum) {
      checker.report(at, `must be at most ${maximum} mm, got ${given}`)
      return undefined
    }
    return given
  }
  const coverAllowanceMm = millimetres('coverAllowanceMm', 'zero', MAX_COVER_ALLOWANCE_MM)
  const pageThicknessMm = millimetres('pageThicknessMm', 'positive', MAX_PAGE_THICKNESS_MM)
  if (name === undefined || coverAllowanceMm === undefined || pageThicknessMm === undefined) return undefined
  return { paper: name, coverAllowanceMm, pageThicknessMm }
}

function checkAttributeRestriction(
  checker: Checker,
  value: unknown,
  path: string,
  attributes: Record<string, string[]>,
): Record<string, string[]> | undefined {
  const entries = checker.map(value, path, { nonEmpty: true })
  if (!entries || entries.length === 0) return undefined
  const restriction: Record<string, string[]> = {}
  let valid = true
  for (const [givenName, valuesValue] of entries) {
    const namePath = join(path, givenName)
    const name = findName(Object.keys(attributes), givenName)
    if (name === undefined) {
      const known = Object.keys(attributes)
      checker.report(namePath, `unknown attribute (the product has ${known.length ? known.join(', ') : 'none'})`)
      valid = false
      continue
    }
    const list = checker.array(valuesValue, namePath, { nonEmpty: true })
    if (!list || list.length === 0) {
      valid = false
      continue
    }
    const allowed = attributes[name] ?? []
    const values: string[] = []
    list.forEach((item, index) => {
      const valuePath = join(namePath, index)
      const text = checker.string(item, valuePath)
      const canonical = text === undefined ? undefined : findName(allowed, text)
      if (text !== undefined && canonical === undefined) {
        checker.report(valuePath, `${describe(text)} is not one of ${allowed.join(', ')}`)
      }
      if (canonical === undefined) valid = false
      else if (!values.includes(canonical)) values.push(canonical)
    })
    restriction[name] = values
  }
  return valid ? restriction : undefined
}

function checkShippingRates(
  context: Context,
  value: unknown,
  label: string,
  products: readonly LabProductEntry[],
  labCountry: string | undefined,
): ShippingRateEntry[] | undefined {
  const { checker } = context
  const path = join(label, 'shippingRates')
  const list = checker.array(value, path, { nonEmpty: true })
  if (!list) return undefined
  // Every class this lab's products ship in must be priced by every rate, so that whether a lab can ship an
  // item never depends on the item's size, only on method and destination.
  const classesUsed = new Map<string, string>()
  for (const labProduct of products) {
    const product = context.products.get(labProduct.sku.toLowerCase())
    if (product && !classesUsed.has(product.entry.shippingClass)) {
      classesUsed.set(product.entry.shippingClass, product.entry.sku)
    }
  }
  const rates: ShippingRateEntry[] = []
  const seen = new Map<string, number>()
  let valid = true
  list.forEach((item, index) => {
    const ratePath = join(path, index)
    const rate = checker.record(item, ratePath, ['method', 'zone', 'carrier', 'service', 'tracked', 'costs'])
    if (!rate) {
      valid = false
      return
    }
    const method: ShippingMethod | undefined = checker.present(rate, 'method', ratePath)
      ? checker.oneOf(rate.method, join(ratePath, 'method'), SHIPPING_METHODS)
      : undefined
    let zone: string | undefined
    if (checker.present(rate, 'zone', ratePath)) {
      zone = checker.string(rate.zone, join(ratePath, 'zone'))
      if (zone !== undefined && !context.zones.has(zone)) {
        checker.report(
          join(ratePath, 'zone'),
          `unknown zone ${describe(zone)} (zones: ${[...context.zones.keys()].join(', ')})`,
        )
        zone = undefined
      }
    }
    const carrier = checker.requiredString(rate, 'carrier', ratePath)
    const service = checker.requiredString(rate, 'service', ratePath)
    const tracked = checker.present(rate, 'tracked', ratePath)
      ? checker.boolean(rate.tracked, join(ratePath, 'tracked'))
      : undefined
    const costs = checker.present(rate, 'costs', ratePath)
      ? checkShippingCosts(context, rate.costs, join(ratePath, 'costs'), classesUsed)
      : undefined

    if (method !== undefined && zone !== undefined) {
      const key = `${method} ${zone}`
      const earlier = seen.get(key)
      if (earlier !== undefined) {
        checker.report(ratePath, `duplicates the ${method} rate to zone ${zone} of ${join(path, earlier)}`)
        valid = false
        return
      }
      seen.set(key, index)
      // CATALOGUE-FACTS.md: Overnight exists only where a lab is domestic to the destination.
      const zoneEntry = context.zones.get(zone)
      const domestic =
        zoneEntry !== undefined &&
        'countries' in zoneEntry &&
        zoneEntry.countries.length === 1 &&
        zoneEntry.countries[0] === labCountry
      if (method === 'Overnight' && labCountry !== undefined && !domestic) {
        checker.report(
          ratePath,
          `Overnight is only for domestic delivery: zone ${zone} must list exactly ${labCountry}`,
        )
        valid = false
        return
      }
    }
    if (
      method === undefined ||
      zone === undefined ||
      carrier === undefined ||
      service === undefined ||
      tracked === undefined ||
      costs === undefined
    ) {
      valid = false
      return
    }
    rates.push({ method, zone, carrier, service, tracked, costs })
  })
  return valid ? rates : undefined
}

function checkShippingCosts(
  context: Context,
  value: unknown,
  path: string,
  classesUsed: ReadonlyMap<string, string>,
): Record<string, ShippingCostEntry> | undefined {
  const { checker } = context
  const entries = checker.map(value, path, { nonEmpty: true })
  if (!entries) return undefined
  const costs: Record<string, ShippingCostEntry> = {}
  let valid = true
  for (const [shippingClass, costValue] of entries) {
    const classPath = join(path, shippingClass)
    if (!context.shippingClasses.has(shippingClass)) {
      checker.report(classPath, `unknown shipping class (classes: ${[...context.shippingClasses].join(', ')})`)
      valid = false
      continue
    }
    const cost = checker.record(costValue, classPath, ['perShipment', 'perAdditionalItem'])
    if (!cost) {
      valid = false
      continue
    }
    const perShipment = checker.present(cost, 'perShipment', classPath)
      ? checker.money(cost.perShipment, join(classPath, 'perShipment'))
      : undefined
    const perAdditionalItem = checker.present(cost, 'perAdditionalItem', classPath)
      ? checker.money(cost.perAdditionalItem, join(classPath, 'perAdditionalItem'))
      : undefined
    if (perShipment === undefined || perAdditionalItem === undefined) valid = false
    else costs[shippingClass] = { perShipment, perAdditionalItem }
  }
  for (const [shippingClass, sku] of classesUsed) {
    if (entries.length > 0 && !(shippingClass in costs) && !entries.some(([name]) => name === shippingClass)) {
      checker.report(path, `must price shipping class ${shippingClass} (used by ${sku}, which this lab makes)`)
      valid = false
    }
  }
  return valid ? costs : undefined
}

// ---- coverage -----------------------------------------------------------------------------------------

function checkEveryVariantIsMade(context: Context, labs: readonly LabEntry[]): void {
  for (const product of context.products.values()) {
    const labProducts = labs.flatMap((lab) => lab.products.filter((entry) => entry.sku === product.entry.sku))
    if (labProducts.length === 0) {
      context.checker.report(product.label, "no lab makes this product (add it to some lab's products)")
      continue
    }
    const orphans = product.variants.filter(
      (variant) =>
        !labProducts.some((entry) =>
          Object.entries(entry.attributes ?? {}).every(([name, values]) => values.includes(variant[name] ?? '')),
        ),
    )
    if (orphans.length === 0) continue
    const listed = orphans.slice(0, MAX_VARIANTS_LISTED).map((variant) => variantKey('', variant))
    const more = orphans.length > MAX_VARIANTS_LISTED ? ` and ${orphans.length - MAX_VARIANTS_LISTED} more` : ''
    context.checker.report(
      product.label,
      `no lab makes variant${orphans.length > 1 ? 's' : ''} ${listed.join(', ')}${more}`,
    )
  }
}
