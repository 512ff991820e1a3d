// Validation of a catalogue file (docs/catalogue.md, "Validation rules") in two passes that report together:
//  1. the structure, against the JSON Schema of catalogue.schema.ts (Ajv, every error at once);
//  2. by hand, what a schema cannot express: references between products, labs, zones, shipping classes and
//     currencies, case-insensitive uniqueness, and the lab/variant coverage. These read only the parts of the
//     document the first pass found well formed, so one mistake is reported once.
// Every problem carries the path of the bad entry, so an operator fixes a file in one pass instead of one error
// per restart. On success the file comes back canonicalised: SKU references and attribute values in lab
// entries, explicit variants and overrides take the product's own spelling, so the builder can compare exactly.

import { Ajv, type ErrorObject } from 'ajv'
import { attributeCombinations, attributesInclude, DEFAULT_PRINT_AREA, variantKey } from '../domain/catalogue.ts'
import type {
  CatalogueFile,
  CustomsEntry,
  ImportRuleEntry,
  LabCalendarEntry,
  LabColourEntry,
  LabEntry,
  LabProductEntry,
  PixelSizeEntry,
  PrintAreaEntry,
  PrintAreaSpecEntry,
  ProductEntry,
  ShippingMethodTermsEntry,
  ShippingRateEntry,
  TaxRateEntry,
  VariantEntry,
  VariantOverrideEntry,
  ZoneEntry,
} from '../domain/catalogue.types.ts'
import {
  PERCENT_PATTERN,
  parsePercentToBasisPoints,
  parseRateToMillionths,
  RATE_PATTERN,
} from '../domain/catalogue-money.ts'
import { CMYK_PROFILE_NAMES, CMYK_PROFILES } from '../domain/colour-profiles.ts'
import { isIsoCountryCode } from '../domain/country-codes.ts'
import { isIsoDate, isKnownTimeZone } from '../domain/delivery-promise.ts'
import {
  CANVAS_EDGE_COLOURS,
  colourAttributeOf,
  FRAME_COLOURS,
  HEX_COLOUR_PATTERN,
  isDrawnAsColour,
  resolveColour,
} from '../domain/mockups.ts'
import { DEFAULT_MINIMUM_DPI } from '../domain/resolution.ts'
import { SHIPPING_METHODS, type ShippingMethod } from '../domain/shipping-methods.ts'
import { millimetresToMicrometres, SPINE_PRINT_AREA } from '../domain/spine.ts'
import { unfetchableUrlReason } from '../domain/urls.ts'
import { checkPriceLists } from './catalogue.price-lists.ts'
import {
  checkBook,
  checkResolvedSpec,
  checkSpecMap,
  type SpecLayer,
  type SpecProblems,
} from './catalogue.print-specs.ts'
import { CatalogueSchema, IGNORED_FIELD_PREFIX, SPINE_MILLIMETRES_REASON } from './catalogue.schema.ts'

/** How many uncovered variants one problem line lists before summarising the rest. */
const MAX_VARIANTS_LISTED = 5

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

/** The entries of a map, without `$` comment keys; none when `value` is not an object. */
function entriesOf(value: unknown): [string, unknown][] {
  if (!isJsonObject(value)) return []
  return Object.entries(value).filter(([key]) => !key.startsWith(IGNORED_FIELD_PREFIX))
}

function itemsOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/** The string, when it is one with some non-space character (the schema reports every other value). */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined
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

/** A schema-checked customs entry without `$` comment fields, in the file's key order. */
function customsEntry(value: CustomsEntry): CustomsEntry {
  return value.originCountryCode === undefined
    ? { hsCode: value.hsCode, weightGrams: value.weightGrams }
    : { hsCode: value.hsCode, originCountryCode: value.originCountryCode, weightGrams: value.weightGrams }
}

/** Case-insensitive lookup of a name among `names`, returning the catalogue's spelling. */
function findName(names: Iterable<string>, given: string): string | undefined {
  const lower = given.toLowerCase()
  for (const name of names) if (name.toLowerCase() === lower) return name
  return undefined
}

/** Problems by raw path (`products[0].sku`); paths get their readable labels only when reported. */
class Problems {
  readonly list: { path: string; reason: string }[] = []

  add(path: string, reason: string): void {
    // An empty map fails two schema keywords for one reason.
    if (this.list.some((problem) => problem.path === path && problem.reason === reason)) return
    this.list.push({ path, reason })
  }

  /** True when some problem is at `path` or inside it. */
  under(path: string): boolean {
    return this.list.some(
      (problem) =>
        path === '' ||
        problem.path === path ||
        problem.path.startsWith(`${path}.`) ||
        problem.path.startsWith(`${path}[`),
    )
  }
}

/** `products[3].sku` -> `products[3] (TEST-CASE).sku`: entries are named by their SKU or lab code. */
function labeller(root: unknown): (path: string) => string {
  return (path) => {
    if (path === '') return '(root)'
    return path.replace(/^(products|labs)\[(\d+)\]/, (whole, list: 'products' | 'labs', index: string) => {
      const entry = isJsonObject(root) ? itemsOf(root[list])[Number(index)] : undefined
      const name = isJsonObject(entry) ? entry[list === 'products' ? 'sku' : 'code'] : undefined
      return typeof name === 'string' ? `${whole} (${name})` : whole
    })
  }
}

export function validateCatalogueFile(json: unknown): CatalogueValidationResult {
  const problems = new Problems()
  checkStructure(json, problems)
  const label = labeller(json)
  const file = isJsonObject(json) ? new References(json, problems, label).check() : undefined
  if (!file) return { problems: problems.list.map(({ path, reason }) => `${label(path)}: ${reason}`) }
  return { file, problems: [] }
}

// ---- pass 1: the structure ----------------------------------------------------------------------------

const validateStructure = new Ajv({ allErrors: true, verbose: true, strict: false }).compile(CatalogueSchema)

const TYPE_REASONS: Record<string, string> = {
  string: 'must be a string',
  object: 'must be an object',
  array: 'must be an array',
  boolean: 'must be true or false',
  integer: 'must be an integer',
  number: 'must be a number',
}

/** `/products/0/sku` -> `products[0].sku` */
function pathOf(instancePath: string): string {
  let path = ''
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    path = join(path, /^\d+$/.test(segment) ? Number(segment) : segment)
  }
  return path
}

/** The schema's own reason for this failure (catalogue.schema.ts, VS Code's keywords), else a generic one. */
function reasonOf(error: ErrorObject): string {
  const { errorMessage, patternErrorMessage } = (error.parentSchema ?? {}) as Record<string, string | undefined>
  const given = error.keyword === 'pattern' ? (patternErrorMessage ?? errorMessage) : errorMessage
  if (given !== undefined) return given
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'type':
      return TYPE_REASONS[String(params.type)] ?? `must be ${String(params.type)}`
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`
    case 'maximum':
      return `must be at most ${String(params.limit)}`
    case 'minimum':
      return `must be at least ${String(params.limit)}`
    case 'exclusiveMinimum':
      return `must be greater than ${String(params.limit)}`
    default:
      return error.message ?? 'is invalid'
  }
}

function checkStructure(json: unknown, problems: Problems): void {
  if (validateStructure(json)) return
  const errors = validateStructure.errors ?? []
  const wrongType = new Set(errors.filter((error) => error.keyword === 'type').map((error) => error.instancePath))
  for (const error of errors) {
    // Errors about a map key come once more as their `propertyNames` summary, which is reported instead.
    if ((error as { propertyName?: string }).propertyName !== undefined) continue
    // A value of the wrong type fails its enumeration or constant too; the type says it all.
    if (error.keyword !== 'type' && wrongType.has(error.instancePath)) continue
    const path = pathOf(error.instancePath)
    const params = error.params as Record<string, string>
    const parentSchema = error.parentSchema as {
      properties?: JsonObject
      propertyNames?: { errorMessage: string }
    }
    switch (error.keyword) {
      case 'required':
        problems.add(join(path, String(params.missingProperty)), 'is required')
        break
      case 'additionalProperties':
        problems.add(
          join(path, String(params.additionalProperty)),
          `unknown field (expected one of ${Object.keys(parentSchema.properties ?? {}).join(', ')})`,
        )
        break
      case 'propertyNames':
        problems.add(join(path, String(params.propertyName)), parentSchema.propertyNames?.errorMessage ?? 'bad key')
        break
      case 'minItems':
      case 'minProperties':
      case 'not':
        problems.add(path, 'must not be empty')
        break
      case 'uniqueItems': {
        // Ajv reports the first pair of equal items it meets, in an order that depends on the item type.
        const later = Math.max(Number(params.i), Number(params.j))
        const earlier = Math.min(Number(params.i), Number(params.j))
        problems.add(join(path, later), `duplicates ${describe(itemsOf(error.data)[earlier])} at [${earlier}]`)
        break
      }
      default:
        problems.add(path, `${reasonOf(error)}, got ${describe(error.data)}`)
    }
  }
}

// ---- pass 2: references -------------------------------------------------------------------------------

/** A product without problems, in canonical form, with its variants (explicit or generated). */
interface CheckedProduct {
  readonly path: string
  readonly entry: ProductEntry
  readonly variants: readonly Readonly<Record<string, string>>[]
}

/** Checks what the schema cannot, on the parts the schema found well formed; builds the canonical file. */
class References {
  readonly #root: JsonObject
  readonly #problems: Problems
  readonly #label: (path: string) => string
  /** Currency codes with a valid, positive rate. */
  #currencies = new Set<string>()
  #shippingClasses: string[] = []
  readonly #zones = new Map<string, ZoneEntry>()
  /** Lower-cased SKU -> product, for every product without problems. */
  readonly #products = new Map<string, CheckedProduct>()
  /** Lower-cased SKU -> path of every product entry, sound or not: a broken product is no unknown SKU. */
  readonly #seenSkus = new Map<string, string>()
  /** The `colours` table: lower-cased name -> "#rrggbb", for the entries without problems. */
  readonly #colours: Record<string, string> = {}
  /** Lower-cased names of `colours` entries with problems: already reported, not again on each product. */
  readonly #brokenColours = new Set<string>()

  constructor(root: JsonObject, problems: Problems, label: (path: string) => string) {
    this.#root = root
    this.#problems = problems
    this.#label = label
  }

  #add(path: string, reason: string): void {
    this.#problems.add(path, reason)
  }

  #under(path: string): boolean {
    return this.#problems.under(path)
  }

  /** The problem list as catalogue.print-specs.ts's checks take it. */
  get #specProblems(): SpecProblems {
    return { add: (path, reason) => this.#add(path, reason), under: (path) => this.#under(path) }
  }

  /** The canonical file, or undefined when the catalogue has any problem (from either pass). */
  check(): CatalogueFile | undefined {
    const root = this.#root
    this.#checkCurrencies()
    this.#checkShippingClasses()
    this.#checkZones()
    this.#checkTaxRates()
    this.#checkColours()
    const importRules = this.#checkImportRules()
    const products: ProductEntry[] = []
    itemsOf(root.products).forEach((value, index) => {
      const checked = this.#checkProduct(value, join('products', index))
      if (checked) products.push(checked.entry)
    })
    const labs: LabEntry[] = []
    const labCodes = new Map<string, string>()
    itemsOf(root.labs).forEach((value, index) => {
      const lab = this.#checkLab(value, join('labs', index), labCodes)
      if (lab) labs.push(lab)
    })
    // Coverage is only meaningful when every lab was read: a lab refused for a typo would otherwise make each of
    // its products look orphaned, burying the one real problem under dozens of follow-on lines.
    if (!this.#under('labs') && labs.length > 0) this.#checkEveryVariantIsMade(labs)
    // Price lists name products, categories, methods and currencies: checked once those are read.
    const priceLists =
      this.#problems.list.length > 0
        ? undefined
        : checkPriceLists(
            root.priceLists,
            {
              products,
              currencies: this.#currencies,
              baseCurrency: String((root.currencies as JsonObject).base),
              methods: SHIPPING_METHODS.filter((method) =>
                labs.some((lab) => lab.shippingRates.some((rate) => rate.method === method)),
              ),
            },
            this.#specProblems,
          )
    const shippingMethods = this.#checkShippingMethods(labs)
    if (this.#problems.list.length > 0) return undefined

    const file = root as unknown as CatalogueFile
    return {
      formatVersion: file.formatVersion,
      name: file.name,
      currencies: {
        base: file.currencies.base,
        rates: Object.fromEntries(entriesOf(file.currencies.rates)) as Record<string, string>,
      },
      shippingClasses: [...file.shippingClasses],
      zones: Object.fromEntries(this.#zones),
      taxRates: Object.fromEntries(
        entriesOf(file.taxRates).map(([country, value]) => {
          const { name, ratePercent, salesTaxNotComputed } = value as TaxRateEntry
          const entry: TaxRateEntry = salesTaxNotComputed
            ? { name, ratePercent, salesTaxNotComputed: true }
            : { name, ratePercent }
          return [country, entry]
        }),
      ),
      products,
      labs,
      ...(file.colours === undefined
        ? {}
        : { colours: Object.fromEntries(entriesOf(file.colours)) as Record<string, string> }),
      ...(importRules === undefined ? {} : { importRules }),
      ...(priceLists === undefined ? {} : { priceLists }),
      ...(shippingMethods === undefined ? {} : { shippingMethods }),
    }
  }

  /**
   * Shipping methods' terms: a guarantee's credit more than 0 and at most 100 percent, on a method some lab ships
   * by (a guarantee nobody can deliver is a typo). The terms in canonical form.
   */
  #checkShippingMethods(labs: readonly LabEntry[]): CatalogueFile['shippingMethods'] {
    if (this.#root.shippingMethods === undefined) return undefined
    const terms: NonNullable<CatalogueFile['shippingMethods']> = {}
    for (const [method, value] of entriesOf(this.#root.shippingMethods)) {
      if (!isJsonObject(value) || !(SHIPPING_METHODS as readonly string[]).includes(method)) continue
      const path = join('shippingMethods', method)
      const entry = value as ShippingMethodTermsEntry
      const percent = entry.guarantee?.creditPercent
      if (typeof percent === 'string' && PERCENT_PATTERN.test(percent)) {
        const basisPoints = parsePercentToBasisPoints(percent)
        const field = join(join(path, 'guarantee'), 'creditPercent')
        if (basisPoints === undefined) this.#add(field, 'must not exceed 100')
        else if (basisPoints === 0) this.#add(field, 'must be more than 0')
      }
      if (!this.#under('labs') && !labs.some((lab) => lab.shippingRates.some((rate) => rate.method === method))) {
        this.#add(path, `no lab has a shipping rate for ${method}`)
      }
      terms[method as ShippingMethod] = entry.guarantee
        ? { guarantee: { creditPercent: entry.guarantee.creditPercent } }
        : {}
    }
    return terms
  }

  /**
   * Import rules: a known currency, a real effective date, the threshold and its VAT collection given together,
   * percents of at most 100, and each destination in one rule only. The rules in canonical form.
   */
  #checkImportRules(): ImportRuleEntry[] | undefined {
    if (this.#root.importRules === undefined) return undefined
    const ruleOfCountry = new Map<string, number>()
    const rules: ImportRuleEntry[] = []
    itemsOf(this.#root.importRules).forEach((value, index) => {
      const path = join('importRules', index)
      if (!isJsonObject(value)) return
      const rule = value as unknown as ImportRuleEntry
      if (typeof rule.currency === 'string' && rule.currency.trim() !== '' && !this.#currencies.has(rule.currency)) {
        this.#add(
          join(path, 'currency'),
          `must be a currency of the rate table (${[...this.#currencies].join(', ')}), got ${describe(rule.currency)}`,
        )
      }
      if (typeof rule.effectiveDate === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(rule.effectiveDate)) {
        if (!isIsoDate(rule.effectiveDate)) this.#add(join(path, 'effectiveDate'), 'must be a real date')
      }
      if ((rule.lowValueThreshold === undefined) !== (rule.lowValueVatCollection === undefined)) {
        const missing = rule.lowValueThreshold === undefined ? 'lowValueThreshold' : 'lowValueVatCollection'
        const given = rule.lowValueThreshold === undefined ? 'lowValueVatCollection' : 'lowValueThreshold'
        this.#add(join(path, missing), `is required with ${given}`)
      }
      const percents: [string, unknown][] = [
        ['importTaxPercent', rule.importTaxPercent],
        ['defaultDutyPercent', rule.defaultDutyPercent],
        ...entriesOf(rule.dutyPercentByHsChapter).map(([chapter, percent]): [string, unknown] => [
          `dutyPercentByHsChapter.${chapter}`,
          percent,
        ]),
      ]
      for (const [field, percent] of percents) {
        if (typeof percent === 'string' && PERCENT_PATTERN.test(percent)) {
          if (parsePercentToBasisPoints(percent) === undefined) this.#add(join(path, field), 'must not exceed 100')
        }
      }
      itemsOf(rule.destinations).forEach((country, countryIndex) => {
        if (typeof country !== 'string' || !isIsoCountryCode(country)) return
        const other = ruleOfCountry.get(country)
        if (other !== undefined && other !== index) {
          this.#add(
            join(join(path, 'destinations'), countryIndex),
            `${country} already has a rule (importRules[${other}])`,
          )
        } else ruleOfCountry.set(country, index)
      })
      if (this.#under(path)) return
      const entry: ImportRuleEntry = {
        name: rule.name,
        destinations: [...rule.destinations],
        currency: rule.currency,
        dutyPercentByHsChapter: Object.fromEntries(entriesOf(rule.dutyPercentByHsChapter)) as Record<string, string>,
        defaultDutyPercent: rule.defaultDutyPercent,
        effectiveDate: rule.effectiveDate,
        source: rule.source,
      }
      if (rule.customsUnion !== undefined) entry.customsUnion = rule.customsUnion
      if (rule.lowValueThreshold !== undefined) entry.lowValueThreshold = rule.lowValueThreshold
      if (rule.lowValueVatCollection !== undefined) entry.lowValueVatCollection = rule.lowValueVatCollection
      if (rule.importTaxPercent !== undefined) entry.importTaxPercent = rule.importTaxPercent
      rules.push(entry)
    })
    return rules
  }

  // ---- top-level tables -------------------------------------------------------------------------------

  #checkCurrencies(): void {
    const table = this.#root.currencies
    if (!isJsonObject(table)) return
    const rates = entriesOf(table.rates)
    for (const [code, rate] of rates) {
      if (typeof rate !== 'string' || !RATE_PATTERN.test(rate) || !/^[A-Z]{3}$/.test(code)) continue
      if (parseRateToMillionths(rate) === 0n) this.#add(`currencies.rates.${code}`, 'must be greater than 0')
      else this.#currencies.add(code)
    }
    const base = table.base
    if (typeof base !== 'string' || !/^[A-Z]{3}$/.test(base) || !isJsonObject(table.rates)) return
    const baseRate = rates.find(([code]) => code === base)?.[1]
    if (baseRate === undefined) {
      this.#add('currencies.rates', `must list the base currency ${base} (with rate "1")`)
    } else if (
      typeof baseRate === 'string' &&
      RATE_PATTERN.test(baseRate) &&
      parseRateToMillionths(baseRate) !== parseRateToMillionths('1')
    ) {
      this.#add(`currencies.rates.${base}`, `the base currency's rate must be "1", got ${describe(baseRate)}`)
    }
  }

  #checkShippingClasses(): void {
    itemsOf(this.#root.shippingClasses).forEach((value, index) => {
      const shippingClass = textOf(value)
      if (shippingClass === undefined) return
      if (this.#shippingClasses.includes(shippingClass)) {
        this.#add(join('shippingClasses', index), `duplicates ${describe(shippingClass)}`)
      } else this.#shippingClasses.push(shippingClass)
    })
  }

  // The schema lets `countries` and `restOfWorld` each be absent, because its way of saying "exactly one of
  // them" would report neither field by name.
  #checkZones(): void {
    const zoneOfCountry = new Map<string, string>()
    let restOfWorldZone: string | undefined
    for (const [name, zone] of entriesOf(this.#root.zones)) {
      const path = join('zones', name)
      if (!isJsonObject(zone)) continue
      if (zone.restOfWorld !== undefined) {
        if (zone.restOfWorld !== true) continue
        if (zone.countries !== undefined) this.#add(path, 'a rest-of-world zone must not list countries')
        else if (restOfWorldZone !== undefined) {
          this.#add(path, `only one rest-of-world zone allowed (${restOfWorldZone} is one)`)
        } else {
          restOfWorldZone = name
          this.#zones.set(name, { restOfWorld: true })
        }
        continue
      }
      if (zone.countries === undefined) {
        this.#add(join(path, 'countries'), 'is required')
        continue
      }
      const countries: string[] = []
      itemsOf(zone.countries).forEach((country, index) => {
        if (typeof country !== 'string' || !isIsoCountryCode(country)) return
        const other = zoneOfCountry.get(country)
        if (other !== undefined) {
          this.#add(join(join(path, 'countries'), index), `${country} is already in zone ${other}`)
        } else {
          zoneOfCountry.set(country, name)
          countries.push(country)
        }
      })
      this.#zones.set(name, { countries })
    }
  }

  #checkTaxRates(): void {
    for (const [country, entry] of entriesOf(this.#root.taxRates)) {
      if (!isJsonObject(entry) || typeof entry.ratePercent !== 'string') continue
      if (PERCENT_PATTERN.test(entry.ratePercent) && parsePercentToBasisPoints(entry.ratePercent) === undefined) {
        this.#add(join(join('taxRates', country), 'ratePercent'), 'must not exceed 100')
      }
    }
  }

  #checkColours(): void {
    const seen = new Map<string, string>()
    for (const [name, hex] of entriesOf(this.#root.colours)) {
      const lower = name.toLowerCase()
      const earlier = seen.get(lower)
      if (earlier !== undefined) {
        this.#add(join('colours', name), `duplicates colour ${earlier} (names are compared case-insensitively)`)
        this.#brokenColours.add(lower)
        continue
      }
      seen.set(lower, name)
      if (typeof hex === 'string' && HEX_COLOUR_PATTERN.test(hex)) this.#colours[lower] = hex
      else this.#brokenColours.add(lower)
    }
  }

  /**
   * Every value a mockup draws as a colour (a framed product's frame colour, a canvas's colour wrap) must be one the
   * catalogue's `colours` or the built-in names know: otherwise its mockup would show some other colour.
   */
  #checkMockupColours(product: ProductEntry, path: string): void {
    const found = colourAttributeOf(product)
    if (!found || found.attribute === null) return
    const { use, attribute } = found
    const builtIn = Object.keys(use === 'frame' ? FRAME_COLOURS : { ...CANVAS_EDGE_COLOURS, ...FRAME_COLOURS })
    ;(product.attributes?.[attribute] ?? []).forEach((value, index) => {
      if (!isDrawnAsColour(use, value) || this.#brokenColours.has(value.toLowerCase())) return
      if (resolveColour(value, use, this.#colours) !== undefined) return
      const what = use === 'frame' ? 'frame colour' : 'canvas wrap colour'
      this.#add(
        join(join(join(path, 'attributes'), attribute), index),
        `${what} ${describe(value)} has no colour to draw its mockup with: add it to the catalogue's colours ` +
          `(${JSON.stringify({ [value]: '#rrggbb' })}) or use a built-in name (${builtIn.join(', ')})`,
      )
    })
  }

  // ---- products ---------------------------------------------------------------------------------------

  #checkProduct(value: unknown, path: string): CheckedProduct | undefined {
    if (!isJsonObject(value)) return undefined
    const sku = textOf(value.sku)
    if (sku !== undefined) {
      const lower = sku.toLowerCase()
      const earlier = this.#seenSkus.get(lower)
      if (earlier !== undefined) {
        this.#add(
          join(path, 'sku'),
          `duplicates the SKU of ${this.#label(earlier)} (SKUs are compared case-insensitively)`,
        )
      } else this.#seenSkus.set(lower, path)
    }
    const shippingClass = textOf(value.shippingClass)
    if (shippingClass !== undefined && !this.#shippingClasses.includes(shippingClass)) {
      this.#add(
        join(path, 'shippingClass'),
        `must be one of ${this.#shippingClasses.join(', ')}, got ${describe(shippingClass)}`,
      )
    }
    this.#checkAttributeNames(value.attributes, join(path, 'attributes'))
    const printAreasPath = join(path, 'printAreas')
    if (isJsonObject(value.printAreas) && SPINE_PRINT_AREA in value.printAreas && value.pagePricing === undefined) {
      // The spine width follows from the page count (domain/spine.ts), which only page-priced products carry.
      this.#add(join(printAreasPath, SPINE_PRINT_AREA), 'a book with a spine needs pagePricing')
    }
    if (this.#under(join(path, 'attributes')) || this.#under(printAreasPath)) return undefined

    const product = value as unknown as ProductEntry
    if (typeof product.category === 'string') this.#checkMockupColours(product, path)
    const attributes = Object.fromEntries(entriesOf(product.attributes)) as Record<string, string[]>
    const printAreas: Record<string, PrintAreaEntry> = {}
    for (const [name, area] of entriesOf(product.printAreas)) {
      const { required, horizontalResolution, verticalResolution } = area as PrintAreaEntry
      printAreas[name] = { required, horizontalResolution, verticalResolution }
    }
    const specsPath = join(path, 'printAreaSpecs')
    const printAreaSpecs =
      product.printAreaSpecs === undefined
        ? undefined
        : checkSpecMap(product.printAreaSpecs, specsPath, Object.keys(printAreas), undefined, this.#specProblems)
    // The areas variants may override: those the product specifies, sound or not (a broken one is reported once).
    const specAreas = entriesOf(product.printAreaSpecs).map(([area]) => area)
    let variants: VariantEntry[] | undefined
    let combinations: Record<string, string>[] | undefined
    if (product.variants === undefined) combinations = attributeCombinations(attributes)
    else if (!this.#under(join(path, 'variants'))) {
      variants = this.#checkExplicitVariants(
        product.variants,
        join(path, 'variants'),
        attributes,
        printAreas,
        specAreas,
      )
      combinations = variants?.map((variant) => variant.attributes)
    }
    const overridesPath = join(path, 'variantOverrides')
    const variantOverrides =
      product.variantOverrides === undefined || combinations === undefined || this.#under(overridesPath)
        ? undefined
        : this.#checkVariantOverrides(
            product.variantOverrides,
            overridesPath,
            { attributes, printAreas, specAreas },
            combinations,
          )
    const pagePricingPath = join(path, 'pagePricing')
    const pagePricing =
      product.pagePricing === undefined || this.#under(pagePricingPath)
        ? undefined
        : this.#checkPagePricing(product.pagePricing, pagePricingPath, printAreas)
    // A book entry is judged against a sound page range only (a broken one is reported already).
    const book =
      product.pagePricing !== undefined && pagePricing === undefined
        ? undefined
        : checkBook(product.book, join(path, 'book'), { sku: sku ?? '', pagePricing }, this.#specProblems)
    if (printAreaSpecs && combinations && (product.variantOverrides === undefined || variantOverrides)) {
      this.#checkResolvedSpecs(product, path, printAreaSpecs, {
        attributes,
        variants: variants ?? combinations.map((combination) => ({ attributes: combination })),
        explicit: variants !== undefined,
        overrides: variantOverrides ?? [],
      })
    }

    if (this.#under(path) || sku === undefined || combinations === undefined) return undefined
    const { width, height, units } = product.productDimensions
    const entry: ProductEntry = {
      sku,
      description: product.description,
      category: product.category,
      shippingClass: product.shippingClass,
      productDimensions: { width, height, units },
      attributes,
      printAreas,
    }
    if (variants) entry.variants = variants
    if (variantOverrides) entry.variantOverrides = variantOverrides
    if (pagePricing) entry.pagePricing = pagePricing
    if (product.minimumDpi !== undefined) entry.minimumDpi = product.minimumDpi
    if (product.customs !== undefined) entry.customs = customsEntry(product.customs)
    if (printAreaSpecs) entry.printAreaSpecs = printAreaSpecs
    if (book) entry.book = book
    const checked: CheckedProduct = { path, entry, variants: combinations }
    this.#products.set(sku.toLowerCase(), checked)
    return checked
  }

  /**
   * Every variant's specification of every specified area, the override layers laid over the product's entry
   * (domain/catalogue-print-specs.ts), against the rules of catalogue.print-specs.ts.
   */
  #checkResolvedSpecs(
    product: ProductEntry,
    path: string,
    specs: Record<string, PrintAreaSpecEntry>,
    context: {
      attributes: Record<string, string[]>
      variants: readonly VariantEntry[]
      explicit: boolean
      overrides: readonly VariantOverrideEntry[]
    },
  ): void {
    const hasWrapAttribute = Object.keys(context.attributes).some((name) => name.toLowerCase() === 'wrap')
    const minimumDpi = product.minimumDpi ?? DEFAULT_MINIMUM_DPI
    context.variants.forEach((variant, variantIndex) => {
      for (const [area, entry] of Object.entries(specs)) {
        const layers: SpecLayer[] = [{ path: join(join(path, 'printAreaSpecs'), area), entry }]
        context.overrides.forEach((override, index) => {
          const layer = override.printAreaSpecs?.[area]
          if (layer !== undefined && attributesInclude(variant.attributes, override.when)) {
            layers.push({ path: `${join(join(path, 'variantOverrides'), index)}.printAreaSpecs.${area}`, entry: layer })
          }
        })
        const own = variant.printAreaSpecs?.[area]
        if (own !== undefined && context.explicit) {
          layers.push({ path: `${join(join(path, 'variants'), variantIndex)}.printAreaSpecs.${area}`, entry: own })
        }
        const sku = product.sku
        checkResolvedSpec(
          layers,
          { sku, variant: variantKey('', variant.attributes), minimumDpi, hasWrapAttribute },
          this.#specProblems,
        )
      }
    })
  }

  #checkAttributeNames(value: unknown, path: string): void {
    const names: string[] = []
    for (const [name, values] of entriesOf(value)) {
      const attributePath = join(path, name)
      const clash = findName(names, name)
      if (clash !== undefined) {
        this.#add(attributePath, `duplicates attribute ${clash} (names are compared case-insensitively)`)
        continue
      }
      names.push(name)
      const seen: string[] = []
      itemsOf(values).forEach((item, index) => {
        const text = textOf(item)
        if (text === undefined) return
        const same = findName(seen, text)
        if (same !== undefined) {
          this.#add(
            join(attributePath, index),
            `duplicates value ${describe(same)} (values are compared case-insensitively)`,
          )
        } else seen.push(text)
      })
    }
  }

  #checkSizeOverrides(
    value: Record<string, unknown>,
    path: string,
    printAreas: Record<string, PrintAreaEntry>,
  ): Record<string, PixelSizeEntry> | undefined {
    const sizes: Record<string, PixelSizeEntry> = {}
    let valid = true
    for (const [area, size] of entriesOf(value)) {
      if (!(area in printAreas)) {
        this.#add(join(path, area), `unknown print area (the product has ${Object.keys(printAreas).join(', ')})`)
        valid = false
        continue
      }
      const { horizontalResolution, verticalResolution } = size as PixelSizeEntry
      sizes[area] = { horizontalResolution, verticalResolution }
    }
    return valid ? sizes : undefined
  }

  /** The product's spelling of the attribute named `given` (any letter case); else reports it at `path`. */
  #attributeName(known: readonly string[], given: string, path: string): string | undefined {
    const name = findName(known, given)
    if (name === undefined) {
      this.#add(path, `unknown attribute (the product has ${known.length ? known.join(', ') : 'none'})`)
    }
    return name
  }

  /** The attribute's spelling of the value `text` (any letter case); else reports it at `path`. */
  #attributeValue(allowed: readonly string[], text: string, path: string): string | undefined {
    const value = findName(allowed, text)
    if (value === undefined) this.#add(path, `${describe(text)} is not one of ${allowed.join(', ')}`)
    return value
  }

  /**
   * Checks `{name: value}` against the product's attributes, returning the canonical spelling in product order.
   * `complete` demands every attribute; otherwise a subset is fine (override `when`).
   */
  #checkAttributeValues(
    value: Record<string, unknown>,
    path: string,
    attributes: Record<string, string[]>,
    complete: boolean,
  ): Record<string, string> | undefined {
    const canonical: Record<string, string> = {}
    const known = Object.keys(attributes)
    let valid = true
    const entries = entriesOf(value)
    for (const [givenName, givenValue] of entries) {
      const valuePath = join(path, givenName)
      const name = this.#attributeName(known, givenName, valuePath)
      if (name === undefined) {
        valid = false
        continue
      }
      const canonicalValue = this.#attributeValue(attributes[name] ?? [], String(givenValue), valuePath)
      if (canonicalValue === undefined) valid = false
      else canonical[name] = canonicalValue
    }
    if (complete) {
      const given = entries.map(([name]) => name)
      const missing = known.filter((name) => !(name in canonical) && !findName(given, name))
      if (missing.length > 0) {
        this.#add(path, `must name a value for every attribute; missing ${missing.join(', ')}`)
        valid = false
      }
    }
    if (!valid) return undefined
    // Product attribute order, so variant keys and the wire output do not depend on how the file spelled them.
    const ordered: Record<string, string> = {}
    for (const name of known) {
      const canonicalValue = canonical[name]
      if (canonicalValue !== undefined) ordered[name] = canonicalValue
    }
    return ordered
  }

  #checkExplicitVariants(
    list: readonly VariantEntry[],
    path: string,
    attributes: Record<string, string[]>,
    printAreas: Record<string, PrintAreaEntry>,
    specAreas: readonly string[],
  ): VariantEntry[] | undefined {
    const variants: VariantEntry[] = []
    const seen = new Map<string, number>()
    let valid = true
    list.forEach((variant, index) => {
      const variantPath = join(path, index)
      const values = this.#checkAttributeValues(variant.attributes, join(variantPath, 'attributes'), attributes, true)
      const sizes =
        variant.printAreaSizes === undefined
          ? null
          : this.#checkSizeOverrides(variant.printAreaSizes, join(variantPath, 'printAreaSizes'), printAreas)
      const specs =
        variant.printAreaSpecs === undefined
          ? null
          : checkSpecMap(
              variant.printAreaSpecs,
              join(variantPath, 'printAreaSpecs'),
              Object.keys(printAreas),
              specAreas,
              this.#specProblems,
            )
      if (values === undefined || sizes === undefined || specs === undefined) {
        valid = false
        return
      }
      const key = variantKey('', values).toLowerCase()
      const earlier = seen.get(key)
      if (earlier !== undefined) {
        this.#add(join(variantPath, 'attributes'), `duplicates variants[${earlier}]`)
        valid = false
        return
      }
      seen.set(key, index)
      const entry: VariantEntry = sizes ? { attributes: values, printAreaSizes: sizes } : { attributes: values }
      if (specs) entry.printAreaSpecs = specs
      if (variant.customs !== undefined) entry.customs = customsEntry(variant.customs)
      variants.push(entry)
    })
    return valid ? variants : undefined
  }

  #checkVariantOverrides(
    list: readonly VariantOverrideEntry[],
    path: string,
    product: {
      attributes: Record<string, string[]>
      printAreas: Record<string, PrintAreaEntry>
      specAreas: readonly string[]
    },
    variants: readonly Readonly<Record<string, string>>[],
  ): VariantOverrideEntry[] | undefined {
    const { attributes, printAreas } = product
    const overrides: VariantOverrideEntry[] = []
    let valid = true
    list.forEach((override, index) => {
      const overridePath = join(path, index)
      const when = this.#checkAttributeValues(override.when, join(overridePath, 'when'), attributes, false)
      if (override.printAreaSizes === undefined && override.printAreaSpecs === undefined) {
        this.#add(join(overridePath, 'printAreaSizes'), 'is required (or printAreaSpecs, or both)')
        valid = false
        return
      }
      const sizes =
        override.printAreaSizes === undefined
          ? null
          : this.#checkSizeOverrides(override.printAreaSizes, join(overridePath, 'printAreaSizes'), printAreas)
      const specs =
        override.printAreaSpecs === undefined
          ? null
          : checkSpecMap(
              override.printAreaSpecs,
              join(overridePath, 'printAreaSpecs'),
              Object.keys(printAreas),
              product.specAreas,
              this.#specProblems,
            )
      if (when === undefined || sizes === undefined || specs === undefined) {
        valid = false
        return
      }
      // An override that matches nothing is almost certainly a typo in `when`.
      if (!variants.some((variant) => Object.entries(when).every(([name, v]) => variant[name] === v))) {
        this.#add(join(overridePath, 'when'), 'matches no variant of the product')
        valid = false
        return
      }
      const entry: VariantOverrideEntry = { when }
      if (sizes) entry.printAreaSizes = sizes
      if (specs) entry.printAreaSpecs = specs
      overrides.push(entry)
    })
    return valid ? overrides : undefined
  }

  #checkPagePricing(
    pricing: NonNullable<ProductEntry['pagePricing']>,
    path: string,
    printAreas: Record<string, PrintAreaEntry>,
  ): ProductEntry['pagePricing'] {
    const pageCountPrintArea = pricing.pageCountPrintArea ?? DEFAULT_PRINT_AREA
    if (!(pageCountPrintArea in printAreas)) {
      this.#add(
        join(path, 'pageCountPrintArea'),
        `print area ${describe(pageCountPrintArea)} is not one of the product's print areas (${Object.keys(printAreas).join(', ')})`,
      )
      return undefined
    }
    const { basePages, minimumPages, maximumPages } = pricing
    if (maximumPages < minimumPages) {
      this.#add(join(path, 'maximumPages'), `must be at least minimumPages (${minimumPages})`)
      return undefined
    }
    return { pageCountPrintArea, basePages, minimumPages, maximumPages }
  }

  // ---- labs -------------------------------------------------------------------------------------------

  #checkLab(value: unknown, path: string, codes: Map<string, string>): LabEntry | undefined {
    if (!isJsonObject(value)) return undefined
    const code = textOf(value.code)
    if (code !== undefined && !this.#under(join(path, 'code'))) {
      const earlier = codes.get(code)
      if (earlier !== undefined) this.#add(join(path, 'code'), `duplicates the code of ${this.#label(earlier)}`)
      else codes.set(code, path)
    }
    const currency = textOf(value.currency)
    if (currency !== undefined && !this.#currencies.has(currency)) {
      this.#add(join(path, 'currency'), `${describe(currency)} is not in the currency rate table`)
    }
    const defaultColour = this.#checkColour(value.defaultColour, join(path, 'defaultColour'))
    const products = this.#checkLabProducts(value.products, join(path, 'products'))
    this.#checkColourFormats(value, path, defaultColour)
    const shippingRates = this.#checkShippingRates(value, path, products)
    const calendar = this.#checkCalendar(value, path, products)
    this.#checkPushUrl(value, path)
    if (this.#under(path)) return undefined
    const lab = value as unknown as LabEntry
    return {
      code: lab.code,
      name: lab.name,
      countryCode: lab.countryCode,
      currency: lab.currency,
      defaultPrintFileFormat: lab.defaultPrintFileFormat,
      ...(defaultColour ? { defaultColour } : {}),
      products,
      shippingRates,
      ...(calendar ? { calendar } : {}),
      ...(lab.dailyJobLimit !== undefined ? { dailyJobLimit: lab.dailyJobLimit } : {}),
      ...(lab.qualityThreshold !== undefined ? { qualityThreshold: lab.qualityThreshold } : {}),
      ...(lab.push !== undefined ? { push: { url: lab.push.url } } : {}),
    }
  }

  /**
   * A lab's calendar (delivery estimates, domain/delivery-promise.ts): a time zone the runtime knows, real holiday
   * dates, production-day categories that some product of the lab has; and no production days on a lab product
   * of a lab without a calendar.
   */
  /** A lab's push URL is checked like a callback URL (domain/urls.ts): one the fetcher could never call is refused here. */
  #checkPushUrl(lab: JsonObject, labPath: string): void {
    const push = lab.push
    if (!isJsonObject(push)) return
    const url = textOf(push.url)
    const urlPath = join(join(labPath, 'push'), 'url')
    if (url === undefined || this.#under(urlPath)) return
    const reason = unfetchableUrlReason(url)
    if (reason !== undefined) this.#add(urlPath, reason)
  }

  #checkCalendar(lab: JsonObject, labPath: string, products: readonly LabProductEntry[]): LabCalendarEntry | undefined {
    const path = join(labPath, 'calendar')
    const value = lab.calendar
    if (!isJsonObject(value)) {
      itemsOf(lab.products).forEach((item, index) => {
        if (isJsonObject(item) && item.productionDays !== undefined) {
          this.#add(join(join(join(labPath, 'products'), index), 'productionDays'), 'needs the lab to have a calendar')
        }
      })
      return undefined
    }
    const timeZone = textOf(value.timeZone)
    if (timeZone !== undefined && !this.#under(join(path, 'timeZone')) && !isKnownTimeZone(timeZone)) {
      this.#add(join(path, 'timeZone'), `unknown time zone ${describe(timeZone)} (an IANA name like "Europe/London")`)
    }
    itemsOf(value.holidays).forEach((holiday, index) => {
      const holidayPath = join(join(path, 'holidays'), index)
      if (typeof holiday === 'string' && !this.#under(holidayPath) && !isIsoDate(holiday)) {
        this.#add(holidayPath, `${describe(holiday)} is not a calendar date`)
      }
    })
    const categoriesMade = new Set(
      products.map((entry) => this.#products.get(entry.sku.toLowerCase())?.entry.category).filter(Boolean),
    )
    // A lab product entry with a problem of its own (or naming a product with one) is missing from `products`:
    // its category would look unmade, a follow-on line burying the real one, so categories wait until all are sound.
    const everyProductSound = itemsOf(lab.products).length === products.length
    const productionDays = isJsonObject(value.productionDays) ? value.productionDays : {}
    for (const [category] of entriesOf(productionDays.categories)) {
      if (category.startsWith(IGNORED_FIELD_PREFIX) || !everyProductSound || categoriesMade.has(category)) continue
      this.#add(
        join(join(join(path, 'productionDays'), 'categories'), category),
        `no product of this lab is in category ${describe(category)} (categories: ${[...categoriesMade].join(', ')})`,
      )
    }
    if (this.#under(path)) return undefined
    const calendar = value as unknown as LabCalendarEntry
    const categories = calendar.productionDays.categories
    return {
      timeZone: calendar.timeZone,
      workingDays: [...calendar.workingDays],
      ...(calendar.holidays ? { holidays: [...calendar.holidays] } : {}),
      cutOffTime: calendar.cutOffTime,
      productionDays: {
        default: calendar.productionDays.default,
        ...(categories
          ? {
              categories: Object.fromEntries(
                entriesOf(categories).filter(([name]) => !name.startsWith(IGNORED_FIELD_PREFIX)),
              ) as Record<string, number>,
            }
          : {}),
      },
    }
  }

  #checkLabProducts(value: unknown, path: string): LabProductEntry[] {
    const products: LabProductEntry[] = []
    /** variant key -> index of the lab entry that already makes it: one lab, one price per variant. */
    const madeBy = new Map<string, number>()
    itemsOf(value).forEach((item, index) => {
      const entryPath = join(path, index)
      if (!isJsonObject(item)) return
      const givenSku = textOf(item.sku)
      if (givenSku === undefined) return
      const product = this.#products.get(givenSku.toLowerCase())
      if (!product) {
        // A product that failed its own checks is already reported; skipping its lab entries keeps the rest of
        // this lab checkable instead of piling follow-on problems onto the real one.
        if (!this.#seenSkus.has(givenSku.toLowerCase())) {
          this.#add(join(entryPath, 'sku'), `unknown SKU ${describe(givenSku)}`)
        }
        return
      }
      const entry = item as unknown as LabProductEntry
      const { sku } = product.entry
      const restriction =
        entry.attributes === undefined || this.#under(join(entryPath, 'attributes'))
          ? undefined
          : this.#checkAttributeRestriction(
              entry.attributes,
              join(entryPath, 'attributes'),
              product.entry.attributes ?? {},
            )

      const pageCostPath = join(entryPath, 'perAdditionalPageCost')
      if (product.entry.pagePricing && entry.perAdditionalPageCost === undefined) this.#add(pageCostPath, 'is required')
      if (!product.entry.pagePricing && entry.perAdditionalPageCost !== undefined) {
        this.#add(pageCostPath, `only allowed for products with pagePricing; ${sku} has none`)
      }
      const spinePath = join(entryPath, 'spine')
      const hasSpine = SPINE_PRINT_AREA in product.entry.printAreas
      if (hasSpine && entry.spine === undefined) this.#add(spinePath, 'is required')
      if (!hasSpine && entry.spine !== undefined) {
        this.#add(spinePath, `only allowed for books with a spine print area; ${sku} has none`)
      }
      if (entry.spine !== undefined && !this.#under(spinePath)) {
        // Exact decimals are no schema matter: 0.448 is not a multiple of 0.001 in binary floating point.
        for (const field of ['coverAllowanceMm', 'pageThicknessMm'] as const) {
          const given = entry.spine[field]
          if (millimetresToMicrometres(given) === undefined) {
            this.#add(join(spinePath, field), `${SPINE_MILLIMETRES_REASON[field]}, got ${describe(given)}`)
          }
        }
      }
      if (this.#under(entryPath)) return

      const covered = product.variants.filter((variant) =>
        Object.entries(restriction ?? {}).every(([name, values]) => values.includes(variant[name] ?? '')),
      )
      if (covered.length === 0) {
        this.#add(entryPath, `the attribute restriction matches no variant of ${sku}`)
        return
      }
      for (const variant of covered) {
        const key = variantKey(sku, variant)
        const earlier = madeBy.get(key)
        if (earlier !== undefined) {
          this.#add(
            entryPath,
            `${key} is already made by ${this.#label(join(path, earlier))} (one price per variant and lab)`,
          )
          return
        }
      }
      for (const variant of covered) madeBy.set(variantKey(sku, variant), index)

      const canonical: LabProductEntry = { sku, unitCost: entry.unitCost }
      if (restriction) canonical.attributes = restriction
      if (entry.perAdditionalPageCost !== undefined) canonical.perAdditionalPageCost = entry.perAdditionalPageCost
      if (entry.printFileFormat !== undefined) canonical.printFileFormat = entry.printFileFormat
      const colour = this.#checkColour(entry.colour, join(entryPath, 'colour'))
      if (colour) canonical.colour = colour
      if (entry.productionDays !== undefined) canonical.productionDays = entry.productionDays
      if (entry.spine !== undefined) {
        const { paper, coverAllowanceMm, pageThicknessMm } = entry.spine
        canonical.spine = { paper, coverAllowanceMm, pageThicknessMm }
      }
      products.push(canonical)
    })
    return products
  }

  /**
   * A `colour` entry: `srgb` alone (sharp's fixed sRGB conversion has no intent to choose), `cmyk` with a profile
   * printroute ships, an intent and a compensation, which a press's conversion needs all of; absolute colorimetric
   * without compensation, which lcms would ignore. Every problem is named; undefined when there is any.
   */
  #checkColour(value: unknown, path: string): LabColourEntry | undefined {
    if (!isJsonObject(value) || this.#under(path)) return undefined
    const colour = value as unknown as LabColourEntry
    const problemsBefore = this.#problems.list.length
    if (colour.space === 'srgb') {
      for (const field of ['profile', 'intent', 'blackPointCompensation'] as const) {
        if (colour[field] !== undefined) {
          this.#add(
            join(path, field),
            'only allowed with space cmyk (sRGB print files are converted as they always were)',
          )
        }
      }
      return this.#problems.list.length === problemsBefore ? { space: 'srgb' } : undefined
    }
    for (const field of ['profile', 'intent', 'blackPointCompensation'] as const) {
      if (colour[field] === undefined) this.#add(join(path, field), 'is required with space cmyk')
    }
    if (colour.profile !== undefined && !Object.hasOwn(CMYK_PROFILES, colour.profile)) {
      this.#add(
        join(path, 'profile'),
        `unknown profile ${describe(colour.profile)} (printroute ships: ${CMYK_PROFILE_NAMES.join(', ')})`,
      )
    }
    if (colour.intent === 'absolute' && colour.blackPointCompensation === true) {
      this.#add(join(path, 'blackPointCompensation'), 'must be false with intent absolute (it has no effect there)')
    }
    if (this.#problems.list.length !== problemsBefore) return undefined
    const { space, profile, intent, blackPointCompensation } = colour
    return { space, profile, intent, blackPointCompensation } as LabColourEntry
  }

  /**
   * A CMYK colour needs a format that holds CMYK: PNG cannot. JPEG and TIFF can; a PDF is the customer's file passed
   * on as it is (an image sent to a PDF lab is rendered as a JPEG, in CMYK).
   */
  #checkColourFormats(lab: JsonObject, labPath: string, defaultColour: LabColourEntry | undefined): void {
    const defaultFormat = lab.defaultPrintFileFormat
    itemsOf(lab.products).forEach((item, index) => {
      if (!isJsonObject(item)) return
      const entryPath = join(join(labPath, 'products'), index)
      const own = isJsonObject(item.colour) ? (item.colour as unknown as LabColourEntry) : undefined
      const colour = own ?? defaultColour
      const format = item.printFileFormat ?? defaultFormat
      if (colour?.space !== 'cmyk' || format !== 'png') return
      this.#add(
        own ? join(entryPath, 'colour') : entryPath,
        own
          ? 'cmyk needs a format that holds CMYK (jpeg, tiff or pdf), not png'
          : `prints png, which cannot hold the lab's defaultColour cmyk: give it colour {"space": "srgb"} or another printFileFormat`,
      )
    })
  }

  #checkAttributeRestriction(
    value: Record<string, string[]>,
    path: string,
    attributes: Record<string, string[]>,
  ): Record<string, string[]> | undefined {
    const restriction: Record<string, string[]> = {}
    const known = Object.keys(attributes)
    let valid = true
    for (const [givenName, list] of entriesOf(value) as [string, string[]][]) {
      const namePath = join(path, givenName)
      const name = this.#attributeName(known, givenName, namePath)
      if (name === undefined) {
        valid = false
        continue
      }
      const allowed = attributes[name] ?? []
      const values: string[] = []
      list.forEach((text, index) => {
        const canonical = this.#attributeValue(allowed, text, join(namePath, index))
        if (canonical === undefined) valid = false
        else if (!values.includes(canonical)) values.push(canonical)
      })
      restriction[name] = values
    }
    return valid ? restriction : undefined
  }

  #checkShippingRates(lab: JsonObject, labPath: string, products: readonly LabProductEntry[]): ShippingRateEntry[] {
    const path = join(labPath, 'shippingRates')
    const labCountry = typeof lab.countryCode === 'string' ? lab.countryCode : undefined
    // Every class this lab's products ship in must be priced by every rate, so that whether a lab can ship an
    // item never depends on the item's size, only on method and destination.
    const classesUsed = new Map<string, string>()
    for (const labProduct of products) {
      const product = this.#products.get(labProduct.sku.toLowerCase())
      if (product && !classesUsed.has(product.entry.shippingClass)) {
        classesUsed.set(product.entry.shippingClass, product.entry.sku)
      }
    }
    /** The sound rates, with their index in the file. */
    const rates: { rate: ShippingRateEntry; index: number }[] = []
    const seen = new Map<string, number>()
    itemsOf(lab.shippingRates).forEach((item, index) => {
      const ratePath = join(path, index)
      if (!isJsonObject(item)) return
      const zone = textOf(item.zone)
      if (zone !== undefined && !this.#zones.has(zone)) {
        this.#add(
          join(ratePath, 'zone'),
          `unknown zone ${describe(zone)} (zones: ${[...this.#zones.keys()].join(', ')})`,
        )
      }
      const costsPath = join(ratePath, 'costs')
      const costs = entriesOf(item.costs)
      for (const [shippingClass] of costs) {
        if (!this.#shippingClasses.includes(shippingClass)) {
          this.#add(
            join(costsPath, shippingClass),
            `unknown shipping class (classes: ${this.#shippingClasses.join(', ')})`,
          )
        }
      }
      for (const [shippingClass, sku] of classesUsed) {
        if (costs.length > 0 && !costs.some(([name]) => name === shippingClass)) {
          this.#add(costsPath, `must price shipping class ${shippingClass} (used by ${sku}, which this lab makes)`)
        }
      }
      const method = SHIPPING_METHODS.find((candidate) => candidate === item.method)
      if (method !== undefined && zone !== undefined && this.#zones.has(zone)) {
        const key = `${method} ${zone}`
        const earlier = seen.get(key)
        if (earlier !== undefined) {
          this.#add(ratePath, `duplicates the ${method} rate to zone ${zone} of ${this.#label(join(path, earlier))}`)
          return
        }
        seen.set(key, index)
        // Overnight exists only where a lab is domestic to the destination (docs/catalogue.md).
        const zoneEntry = this.#zones.get(zone)
        const domestic =
          zoneEntry !== undefined &&
          'countries' in zoneEntry &&
          zoneEntry.countries.length === 1 &&
          zoneEntry.countries[0] === labCountry
        const judged = labCountry !== undefined && isIsoCountryCode(labCountry) && !this.#under(join('zones', zone))
        if (method === 'Overnight' && judged && !domestic) {
          this.#add(ratePath, `Overnight is only for domestic delivery: zone ${zone} must list exactly ${labCountry}`)
          return
        }
      }
      const transit = isJsonObject(item.transitDays) ? item.transitDays : undefined
      if (
        transit &&
        typeof transit.min === 'number' &&
        typeof transit.max === 'number' &&
        transit.min > transit.max &&
        !this.#under(join(ratePath, 'transitDays'))
      ) {
        this.#add(
          join(join(ratePath, 'transitDays'), 'min'),
          `must be at most max (${transit.max}) on the ${describe(item.method)} rate to zone ${describe(zone)}`,
        )
      }
      if (this.#under(ratePath)) return
      const rate = item as unknown as ShippingRateEntry
      rates.push({
        index,
        rate: {
          method: rate.method,
          zone: rate.zone,
          carrier: rate.carrier,
          service: rate.service,
          tracked: rate.tracked,
          costs: Object.fromEntries(
            entriesOf(rate.costs).map(([shippingClass, cost]) => {
              const { perShipment, perAdditionalItem } = cost as ShippingRateEntry['costs'][string]
              return [shippingClass, { perShipment, perAdditionalItem }]
            }),
          ),
          ...(rate.transitDays ? { transitDays: { min: rate.transitDays.min, max: rate.transitDays.max } } : {}),
        },
      })
    })
    this.#checkTransitByMethod(rates, path)
    return rates.map(({ rate }) => rate)
  }

  /**
   * Per zone, a faster method (SHIPPING_METHODS, slowest first) takes no longer than a slower one, at either end of
   * its transit days: otherwise a merchant paying for Express could be promised a later delivery than Standard
   * gives. Each end is compared with the shortest of the slower rates' (the nearest such method on a tie), so a
   * rate out of order is reported once per end, naming the rate it must not exceed.
   */
  #checkTransitByMethod(rates: readonly { rate: ShippingRateEntry; index: number }[], path: string): void {
    const zones = new Set(rates.map(({ rate }) => rate.zone))
    for (const zone of zones) {
      const byMethod = rates
        .filter(({ rate }) => rate.zone === zone && rate.transitDays !== undefined)
        .sort((a, b) => SHIPPING_METHODS.indexOf(a.rate.method) - SHIPPING_METHODS.indexOf(b.rate.method))
      byMethod.forEach((faster, position) => {
        for (const end of ['min', 'max'] as const) {
          const days = (entry: { rate: ShippingRateEntry }) => entry.rate.transitDays?.[end] ?? 0
          const slowers = byMethod.slice(0, position)
          const bound = slowers.reduce<(typeof slowers)[number] | undefined>(
            (shortest, slower) => (shortest === undefined || days(slower) <= days(shortest) ? slower : shortest),
            undefined,
          )
          if (bound === undefined || days(faster) <= days(bound)) continue
          this.#add(
            join(join(join(path, faster.index), 'transitDays'), end),
            `the ${faster.rate.method} rate to zone ${zone} must not take longer than the slower ${bound.rate.method} ` +
              `rate (${this.#label(join(path, bound.index))}): ${end} ${days(faster)} is more than ${days(bound)}`,
          )
        }
      })
    }
  }

  // ---- coverage ---------------------------------------------------------------------------------------

  #checkEveryVariantIsMade(labs: readonly LabEntry[]): void {
    for (const product of this.#products.values()) {
      const labProducts = labs.flatMap((lab) => lab.products.filter((entry) => entry.sku === product.entry.sku))
      if (labProducts.length === 0) {
        this.#add(product.path, "no lab makes this product (add it to some lab's products)")
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
      this.#add(product.path, `no lab makes variant${orphans.length > 1 ? 's' : ''} ${listed.join(', ')}${more}`)
    }
  }
}
