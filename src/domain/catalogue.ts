// The loaded catalogue: an immutable, indexed view of one validated catalogue file. No I/O here (the loader
// reads files), so domain code may import it. Everything a request needs is precomputed at load time:
// product details (GET /v4.0/products/{sku} is a hot path), each variant's labs and `shipsTo`, the zone of
// every country, and each lab's rates by destination zone.

import {
  type CatalogueFile,
  type CatalogueMoney,
  type CustomsEntry,
  type ImportRule,
  type ImportRuleEntry,
  type Lab,
  type LabCalendar,
  type LabCalendarEntry,
  type LabColourEntry,
  type LabEntry,
  type LabOffer,
  type LabProductEntry,
  type PixelSize,
  type PrintArea,
  type Product,
  type ProductCustoms,
  type ProductDetails,
  type ProductEntry,
  type ShippingCost,
  type ShippingGuarantee,
  type ShippingRate,
  type SpinePaper,
  type SpinePaperEntry,
  type TaxRate,
  type Variant,
  type VariantEntry,
  WEEKDAYS,
  type Zone,
} from './catalogue.types.ts'
import {
  convertMinorUnits,
  parseMoneyToMinor,
  parsePercentToBasisPoints,
  parseRateToMillionths,
} from './catalogue-money.ts'
import {
  bookSpecOf,
  bookSpecWire,
  printAreaSpecWire,
  samePrintAreaSpec,
  variantPrintAreaSpecs,
} from './catalogue-print-specs.ts'
import { ISO_COUNTRY_CODES, isIsoCountryCode } from './country-codes.ts'
import { nearestMatches } from './edit-distance.ts'
import { PriceLists, priceListWarnings } from './price-lists.ts'
import { type LabColour, SRGB_COLOUR } from './print-specs.ts'
import { DEFAULT_MINIMUM_DPI } from './resolution.ts'
import { SHIPPING_METHODS, type ShippingMethod } from './shipping-methods.ts'
import { millimetresToMicrometres } from './spine.ts'

/** The print area an asset goes to when it names none (specification, Asset). */
export const DEFAULT_PRINT_AREA = 'default'

/**
 * How an unknown SKU's nearest SKUs are chosen (docs/errors.md#nearest-skus): at most 3, each within a third of
 * the given SKU's length in edits (at least 2), letter case ignored.
 */
export const NEAREST_SKUS = {
  limit: 3,
  maxDistance: (length: number) => Math.max(2, Math.floor(length / 3)),
} as const

/** A lab that can make a variant and ship it to a destination by a method, with the rate it would charge. */
export interface LabOption {
  readonly offer: LabOffer
  readonly rate: ShippingRate
}

/** One line of a shipment for pricing: how many units of which shipping class. */
export interface ShipmentUnits {
  readonly shippingClass: string
  readonly copies: number
}

/**
 * Every combination of attribute values, first attribute varying slowest:
 * {a:[1,2], b:[x,y]} -> [{a:1,b:x}, {a:1,b:y}, {a:2,b:x}, {a:2,b:y}]. No attributes -> one empty combination.
 */
export function attributeCombinations(
  attributes: Readonly<Record<string, readonly string[]>>,
): Record<string, string>[] {
  let combinations: Record<string, string>[] = [{}]
  for (const [name, values] of Object.entries(attributes)) {
    const next: Record<string, string>[] = []
    for (const combination of combinations) {
      for (const value of values) next.push({ ...combination, [name]: value })
    }
    combinations = next
  }
  return combinations
}

/** `GLOBAL-CAN-10x10{edge=38mm,wrap=Black}`: readable, stable, used as a map key and in messages. */
export function variantKey(sku: string, attributes: Readonly<Record<string, string>>): string {
  const parts = Object.entries(attributes).map(([name, value]) => `${name}=${value}`)
  return `${sku}{${parts.join(',')}}`
}

/** True when every name in `when` is in `attributes` with the same value (exact spelling). */
export function attributesInclude(
  attributes: Readonly<Record<string, string>>,
  when: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(when).every(([name, value]) => attributes[name] === value)
}

/** Lower-cased values in product attribute order: the case-insensitive lookup key of a variant. */
function lookupKey(product: Product, attributes: Readonly<Record<string, string>>): string | undefined {
  const parts: string[] = []
  for (const name of Object.keys(product.attributes)) {
    const value = attributes[name]
    if (value === undefined) return undefined
    parts.push(value.toLowerCase())
  }
  return parts.join('\u0000')
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

function money(amount: string, currency: string): CatalogueMoney {
  const minor = parseMoneyToMinor(amount)
  if (minor === undefined) throw new Error(`catalogue: unvalidated money string ${JSON.stringify(amount)}`)
  return { minor, currency }
}

/** Builds the immutable catalogue from a file the loader has already validated and canonicalised. */
export class Catalogue {
  /** Where it came from, for logs and error messages ("sample-catalogue.json"). */
  readonly sourceName: string
  readonly name: string
  readonly products: readonly Product[]
  readonly labs: readonly Lab[]
  readonly zones: readonly Zone[]
  /** Smallest first; a shipment is charged at its largest class (see `shipmentCost`). */
  readonly shippingClasses: readonly string[]
  readonly baseCurrency: string
  /** Every currency the rate table knows, as written in the file. */
  readonly currencies: readonly string[]
  /** The file's `colours`: colour name in lower case -> "#rrggbb" in lower case (mockups, domain/mockups.ts). */
  readonly colours: Readonly<Record<string, string>>
  /** The file's `importRules`, loaded (docs/catalogue.md#customs); empty when it gives none. */
  readonly importRules: readonly ImportRule[]
  /**
   * The stored version this catalogue is (docs/catalogue.md#versions); null for one read from a file and not
   * (yet) stored. A catalogue served from the database is reached through domain/live-catalogue.ts, which
   * answers this member with the version it serves.
   */
  readonly version: number | null = null
  /** The file's price lists (docs/billing.md#price-lists); empty when it gives none. */
  readonly priceLists: PriceLists
  /**
   * What the catalogue allows but an operator should know, one line each (`<path>: <reason>`): a fixed selling
   * price below a lab's cost. Logged at start-up and shown by an import.
   */
  readonly warnings: readonly string[]
  /** Guaranteed shipping methods (docs/catalogue.md#shipping-guarantees): method -> the guarantee; none: empty. */
  readonly #guarantees = new Map<ShippingMethod, ShippingGuarantee>()

  /** The validated file it was built from, for `fileText()`. */
  readonly #file: CatalogueFile
  readonly #productsBySku = new Map<string, Product>()
  readonly #variantsByLookupKey = new Map<Product, Map<string, Variant>>()
  readonly #productDetails = new Map<Product, ProductDetails>()
  readonly #productDetailsJson = new Map<Product, string>()
  readonly #labsByCode = new Map<string, Lab>()
  /** lab code -> zone name -> method -> rate */
  readonly #ratesByLab = new Map<string, Map<string, Map<ShippingMethod, ShippingRate>>>()
  readonly #zonesByCountry = new Map<string, Zone>()
  readonly #restOfWorldZone: Zone | undefined
  readonly #taxRates = new Map<string, TaxRate>()
  readonly #currencyRates = new Map<string, bigint>()
  readonly #shippingClassRank = new Map<string, number>()
  readonly #importRulesByCountry = new Map<string, ImportRule>()

  constructor(file: CatalogueFile, sourceName: string) {
    this.sourceName = sourceName
    this.#file = file
    this.name = file.name
    this.shippingClasses = Object.freeze([...file.shippingClasses])
    file.shippingClasses.forEach((shippingClass, rank) => {
      this.#shippingClassRank.set(shippingClass, rank)
    })

    this.baseCurrency = file.currencies.base
    for (const [code, rate] of Object.entries(file.currencies.rates)) {
      const millionths = parseRateToMillionths(rate)
      if (millionths === undefined) throw new Error(`catalogue: unvalidated rate ${code}`)
      this.#currencyRates.set(code, millionths)
    }
    this.currencies = Object.freeze([...this.#currencyRates.keys()])
    this.colours = Object.freeze(
      Object.fromEntries(
        Object.entries(file.colours ?? {}).map(([name, hex]) => [name.toLowerCase(), hex.toLowerCase()]),
      ),
    )

    this.zones = this.#buildZones(file)
    this.#restOfWorldZone = this.zones.find((zone) => zone.restOfWorld)

    for (const [countryCode, entry] of Object.entries(file.taxRates)) {
      const basisPoints = parsePercentToBasisPoints(entry.ratePercent)
      if (basisPoints === undefined) throw new Error(`catalogue: unvalidated tax rate ${countryCode}`)
      this.#taxRates.set(
        countryCode,
        deepFreeze({
          countryCode,
          name: entry.name,
          ratePercent: entry.ratePercent,
          basisPoints,
          salesTaxNotComputed: entry.salesTaxNotComputed === true,
        }),
      )
    }

    this.importRules = Object.freeze((file.importRules ?? []).map((entry) => importRule(entry)))
    for (const rule of this.importRules) {
      for (const country of rule.destinations) this.#importRulesByCountry.set(country, rule)
    }

    this.labs = Object.freeze(file.labs.map((entry) => this.#buildLab(entry)))
    this.products = Object.freeze(file.products.map((entry) => this.#buildProduct(file, entry)))
    for (const product of this.products) {
      const details = this.#buildProductDetails(product)
      this.#productDetails.set(product, details)
      this.#productDetailsJson.set(product, JSON.stringify(details))
    }
    this.priceLists = new PriceLists(
      file.priceLists ?? {},
      new Set(this.products.map((product) => product.sku.toLowerCase())),
    )
    for (const [method, terms] of Object.entries(file.shippingMethods ?? {})) {
      const creditPercent = terms?.guarantee?.creditPercent
      if (creditPercent === undefined) continue
      const basisPoints = parsePercentToBasisPoints(creditPercent)
      if (basisPoints === undefined) throw new Error(`catalogue: unvalidated guarantee ${method}`)
      this.#guarantees.set(method as ShippingMethod, deepFreeze({ creditPercent, basisPoints }))
    }
    this.warnings = Object.freeze(
      priceListWarnings(this.priceLists, {
        products: this.products,
        labs: this.labs,
        baseCurrency: this.baseCurrency,
        convert: (minor, from, to) => this.convertMinorUnits(minor, from, to),
      }),
    )
  }

  /**
   * The validated file as JSON text: a catalogue built in memory (a test's) is stored as a version from this.
   * Reading it back gives an equal catalogue.
   */
  fileText(): string {
    return `${JSON.stringify(this.#file, null, 2)}\n`
  }

  // ---- products and variants ----------------------------------------------------------------------------

  /** Case-insensitive SKU lookup; the product carries the catalogue's spelling. */
  findProduct(sku: string): Product | undefined {
    return this.#productsBySku.get(sku.toLowerCase())
  }

  /** The `product` member of GET /v4.0/products/{sku}, keys in contract order; undefined for an unknown SKU. */
  productDetails(sku: string): ProductDetails | undefined {
    const product = this.findProduct(sku)
    return product && this.#productDetails.get(product)
  }

  /** The catalogue's SKUs nearest to an unknown `sku`, nearest first (NEAREST_SKUS); empty when none is near. */
  nearestSkus(sku: string): string[] {
    return nearestMatches(
      sku,
      this.products.map((product) => product.sku),
      NEAREST_SKUS,
    )
  }

  /** `productDetails(sku)` already serialised, for the HTTP layer's hot path. */
  productDetailsJson(sku: string): string | undefined {
    const product = this.findProduct(sku)
    return product && this.#productDetailsJson.get(product)
  }

  /**
   * The variant with these attributes: names and values matched case-insensitively; attributes with a single
   * allowed value may be omitted. Undefined when an attribute is unknown, missing or has an invalid value.
   */
  findVariant(sku: string, attributes: Readonly<Record<string, string>> = {}): Variant | undefined {
    const product = this.findProduct(sku)
    if (!product) return undefined
    const canonical: Record<string, string> = {}
    for (const [name, allowed] of Object.entries(product.attributes)) {
      if (allowed.length === 1 && allowed[0] !== undefined) canonical[name] = allowed[0]
    }
    for (const [givenName, value] of Object.entries(attributes)) {
      const name = Object.keys(product.attributes).find((known) => known.toLowerCase() === givenName.toLowerCase())
      if (name === undefined) return undefined
      canonical[name] = value
    }
    const key = lookupKey(product, canonical)
    return key === undefined ? undefined : this.#variantsByLookupKey.get(product)?.get(key)
  }

  // ---- labs, zones, shipping ----------------------------------------------------------------------------

  findLab(code: string): Lab | undefined {
    return this.#labsByCode.get(code.toLowerCase())
  }

  /**
   * A country is known when it is a valid ISO 3166-1 alpha-2 code and some zone covers it: a zone lists it, or
   * the catalogue has a rest-of-world zone. Letter case is ignored ("gb" = "GB").
   */
  isKnownCountry(countryCode: string): boolean {
    return this.zoneFor(countryCode) !== undefined
  }

  /** The destination zone of a country, or undefined when the country is invalid or no zone covers it. */
  zoneFor(countryCode: string): Zone | undefined {
    const code = countryCode.toUpperCase()
    if (!isIsoCountryCode(code)) return undefined
    return this.#zonesByCountry.get(code) ?? this.#restOfWorldZone
  }

  /** The rate a lab charges to ship by `method` to a country, or undefined when it does not ship that way. */
  shippingRate(labCode: string, method: ShippingMethod, countryCode: string): ShippingRate | undefined {
    const zone = this.zoneFor(countryCode)
    if (!zone) return undefined
    return this.#ratesByLab.get(labCode.toLowerCase())?.get(zone.name)?.get(method)
  }

  /** The guarantee of a shipping method (a late delivery is credited), or undefined when it has none. */
  shippingGuarantee(method: ShippingMethod): ShippingGuarantee | undefined {
    return this.#guarantees.get(method)
  }

  /** Every rate a lab offers to a country, slowest method first. */
  shippingRatesFrom(labCode: string, countryCode: string): readonly ShippingRate[] {
    const zone = this.zoneFor(countryCode)
    const byMethod = zone && this.#ratesByLab.get(labCode.toLowerCase())?.get(zone.name)
    return byMethod ? SHIPPING_METHODS.flatMap((method) => byMethod.get(method) ?? []) : []
  }

  /**
   * The labs that make `variant` and ship it to the country by `method`, each with its rate: the candidates lab
   * allocation and quotes choose from. Sorted by lab code.
   */
  labOptions(variant: Variant, countryCode: string, method: ShippingMethod): readonly LabOption[] {
    const options: LabOption[] = []
    for (const offer of variant.offers) {
      const rate = this.shippingRate(offer.lab.code, method, countryCode)
      if (rate) options.push({ offer, rate })
    }
    return options
  }

  /** True when some lab making the variant ships to the country by any method. */
  variantShipsTo(variant: Variant, countryCode: string): boolean {
    return this.shippingMethodsForVariant(variant, countryCode).length > 0
  }

  /** Methods by which some lab making the variant ships to the country, slowest first. */
  shippingMethodsForVariant(variant: Variant, countryCode: string): readonly ShippingMethod[] {
    return SHIPPING_METHODS.filter((method) => this.labOptions(variant, countryCode, method).length > 0)
  }

  /**
   * Methods that can serve a whole order: for each method, every variant must have a lab that makes it and
   * ships to the country by that method (items may still come from different labs, as separate shipments).
   * With no variants: every method some lab offers to the country.
   */
  shippingMethodsFor(countryCode: string, variants: readonly Variant[]): ShippingMethod[] {
    if (variants.length === 0) {
      return SHIPPING_METHODS.filter((method) =>
        this.labs.some((lab) => this.shippingRate(lab.code, method, countryCode)),
      )
    }
    return SHIPPING_METHODS.filter((method) =>
      variants.every((variant) => this.labOptions(variant, countryCode, method).length > 0),
    )
  }

  /**
   * Shipping cost of one shipment at `rate`: the largest shipping class among the units pays `perShipment` once;
   * every other unit (each copy counts) pays `perAdditionalItem` of its own class. In the lab's currency.
   */
  shipmentCost(rate: ShippingRate, units: readonly ShipmentUnits[]): CatalogueMoney {
    const currency = this.#labsByCode.get(rate.labCode)?.currency ?? this.baseCurrency
    let largest: ShipmentUnits | undefined
    for (const line of units) {
      if (line.copies <= 0) continue
      if (!largest || this.#rankOf(line.shippingClass) > this.#rankOf(largest.shippingClass)) largest = line
    }
    if (!largest) return { minor: 0n, currency }
    let minor = this.#costOf(rate, largest.shippingClass).perShipment.minor
    for (const line of units) {
      if (line.copies <= 0) continue
      const additionalCopies = line === largest ? line.copies - 1 : line.copies
      minor += BigInt(additionalCopies) * this.#costOf(rate, line.shippingClass).perAdditionalItem.minor
    }
    return { minor, currency }
  }

  // ---- production cost, tax, currency -------------------------------------------------------------------

  /**
   * Production cost of one copy from `offer`: the unit cost, plus for page-priced products every page beyond the
   * product's base pages at the offer's per-page cost. `pageCount` is ignored for products not priced by page.
   */
  costPerCopy(product: Product, offer: LabOffer, pageCount: number | null): CatalogueMoney {
    const pricing = product.pagePricing
    if (!pricing || !offer.perAdditionalPageCost || pageCount === null) return offer.unitCost
    const additionalPages = BigInt(Math.max(0, pageCount - pricing.basePages))
    return {
      minor: offer.unitCost.minor + additionalPages * offer.perAdditionalPageCost.minor,
      currency: offer.unitCost.currency,
    }
  }

  /** Tax charged on items and shipping to a country; a zero rate (name null) where the catalogue lists none. */
  taxRate(countryCode: string): TaxRate {
    const code = countryCode.toUpperCase()
    return (
      this.#taxRates.get(code) ??
      Object.freeze({ countryCode: code, name: null, ratePercent: '0', basisPoints: 0, salesTaxNotComputed: false })
    )
  }

  /** The import rule of a destination country (docs/catalogue.md#customs); undefined where none is given. */
  importRuleFor(countryCode: string): ImportRule | undefined {
    return this.#importRulesByCountry.get(countryCode.toUpperCase())
  }

  isKnownCurrency(code: string): boolean {
    return this.#currencyRates.has(code.toUpperCase())
  }

  /**
   * Converts minor units between currencies through the base-currency rates, exactly, rounding half-up (away
   * from zero) to whole minor units once. Throws RangeError for a currency the rate table does not know.
   */
  convertMinorUnits(minor: bigint, fromCurrency: string, toCurrency: string): bigint {
    const from = this.#currencyRates.get(fromCurrency.toUpperCase())
    const to = this.#currencyRates.get(toCurrency.toUpperCase())
    if (from === undefined) throw new RangeError(`unknown currency ${fromCurrency}`)
    if (to === undefined) throw new RangeError(`unknown currency ${toCurrency}`)
    if (from === to) return minor
    return convertMinorUnits(minor, from, to)
  }

  convertMoney(amount: CatalogueMoney, toCurrency: string): CatalogueMoney {
    const currency = toCurrency.toUpperCase()
    return { minor: this.convertMinorUnits(amount.minor, amount.currency, currency), currency }
  }

  // ---- construction -------------------------------------------------------------------------------------

  #rankOf(shippingClass: string): number {
    const rank = this.#shippingClassRank.get(shippingClass)
    if (rank === undefined) throw new RangeError(`unknown shipping class ${shippingClass}`)
    return rank
  }

  #costOf(rate: ShippingRate, shippingClass: string): ShippingCost {
    const cost = rate.costs[shippingClass]
    if (!cost) throw new RangeError(`rate ${rate.labCode}/${rate.method}/${rate.zone} does not price ${shippingClass}`)
    return cost
  }

  #buildZones(file: CatalogueFile): readonly Zone[] {
    const zones: Zone[] = []
    let restOfWorldName: string | undefined
    for (const [name, entry] of Object.entries(file.zones)) {
      if ('restOfWorld' in entry) {
        restOfWorldName = name
        continue
      }
      const zone = deepFreeze({ name, countries: [...entry.countries].sort(), restOfWorld: false })
      for (const country of zone.countries) this.#zonesByCountry.set(country, zone)
      zones.push(zone)
    }
    if (restOfWorldName !== undefined) {
      const unlisted = ISO_COUNTRY_CODES.filter((code) => !this.#zonesByCountry.has(code))
      zones.push(deepFreeze({ name: restOfWorldName, countries: unlisted, restOfWorld: true }))
    }
    return Object.freeze(zones)
  }

  #buildLab(entry: CatalogueFile['labs'][number]): Lab {
    const byZone = new Map<string, Map<ShippingMethod, ShippingRate>>()
    const shippingRates = entry.shippingRates.map((rateEntry): ShippingRate => {
      const costs: Record<string, ShippingCost> = {}
      for (const [shippingClass, cost] of Object.entries(rateEntry.costs)) {
        costs[shippingClass] = {
          perShipment: money(cost.perShipment, entry.currency),
          perAdditionalItem: money(cost.perAdditionalItem, entry.currency),
        }
      }
      const rate = deepFreeze({
        labCode: entry.code,
        method: rateEntry.method,
        zone: rateEntry.zone,
        carrier: rateEntry.carrier,
        service: rateEntry.service,
        tracked: rateEntry.tracked,
        costs,
        transitDays: rateEntry.transitDays ? { min: rateEntry.transitDays.min, max: rateEntry.transitDays.max } : null,
      })
      const byMethod = byZone.get(rate.zone) ?? new Map<ShippingMethod, ShippingRate>()
      byMethod.set(rate.method, rate)
      byZone.set(rate.zone, byMethod)
      return rate
    })
    const lab = deepFreeze({
      code: entry.code,
      name: entry.name,
      countryCode: entry.countryCode,
      currency: entry.currency,
      defaultPrintFileFormat: entry.defaultPrintFileFormat,
      shippingRates,
      calendar: entry.calendar ? labCalendar(entry.calendar) : null,
      dailyJobLimit: entry.dailyJobLimit ?? null,
      qualityThreshold: entry.qualityThreshold ?? null,
      pushUrl: entry.push?.url ?? null,
    })
    this.#labsByCode.set(lab.code.toLowerCase(), lab)
    this.#ratesByLab.set(lab.code.toLowerCase(), byZone)
    return lab
  }

  #buildProduct(file: CatalogueFile, entry: CatalogueFile['products'][number]): Product {
    const attributes = entry.attributes ?? {}
    const printAreas: Record<string, PrintArea> = {}
    for (const [name, area] of Object.entries(entry.printAreas)) {
      printAreas[name] = {
        name,
        required: area.required,
        size: { horizontalResolution: area.horizontalResolution, verticalResolution: area.verticalResolution },
      }
    }
    const pagePricing = entry.pagePricing
      ? {
          pageCountPrintArea: entry.pagePricing.pageCountPrintArea ?? DEFAULT_PRINT_AREA,
          basePages: entry.pagePricing.basePages,
          minimumPages: entry.pagePricing.minimumPages,
          maximumPages: entry.pagePricing.maximumPages,
        }
      : null

    // Explicit variants or every combination; then each variant's sizes: product sizes, overrides in order,
    // then the explicit variant's own sizes.
    const variantEntries: readonly VariantEntry[] =
      entry.variants ?? attributeCombinations(attributes).map((combination) => ({ attributes: combination }))
    const shipsToCache = new Map<string, readonly string[]>()
    const minimumDpi = entry.minimumDpi ?? DEFAULT_MINIMUM_DPI
    const productCustoms = entry.customs ? customsOf(entry.customs) : null
    const variants = variantEntries.map((variantEntry): Variant => {
      const printAreaSizes: Record<string, PixelSize> = {}
      for (const area of Object.values(printAreas)) printAreaSizes[area.name] = area.size
      for (const override of entry.variantOverrides ?? []) {
        if (!attributesInclude(variantEntry.attributes, override.when)) continue
        if (override.printAreaSizes) Object.assign(printAreaSizes, copySizes(override.printAreaSizes))
      }
      if (variantEntry.printAreaSizes) {
        Object.assign(printAreaSizes, copySizes(variantEntry.printAreaSizes))
      }
      const offers = this.#offersFor(file, entry.sku, variantEntry.attributes)
      return {
        sku: entry.sku,
        key: variantKey(entry.sku, variantEntry.attributes),
        attributes: { ...variantEntry.attributes },
        printAreaSizes,
        printAreaSpecs: variantPrintAreaSpecs(entry, variantEntry, minimumDpi),
        offers,
        shipsTo: this.#shipsTo(offers, shipsToCache),
        customs: variantEntry.customs ? customsOf(variantEntry.customs) : productCustoms,
      }
    })

    const product: Product = deepFreeze({
      sku: entry.sku,
      description: entry.description,
      category: entry.category,
      shippingClass: entry.shippingClass,
      productDimensions: { ...entry.productDimensions },
      attributes: Object.fromEntries(Object.entries(attributes).map(([name, values]) => [name, [...values]])),
      printAreas,
      pagePricing,
      book: entry.book && entry.pagePricing ? bookSpecOf(entry.book, entry.pagePricing) : null,
      minimumDpi,
      variants,
      customs: productCustoms,
    })
    this.#productsBySku.set(product.sku.toLowerCase(), product)
    const byKey = new Map<string, Variant>()
    for (const variant of product.variants) {
      const key = lookupKey(product, variant.attributes)
      if (key !== undefined) byKey.set(key, variant)
    }
    this.#variantsByLookupKey.set(product, byKey)
    return product
  }

  #offersFor(file: CatalogueFile, sku: string, attributes: Readonly<Record<string, string>>): LabOffer[] {
    const offers: LabOffer[] = []
    for (const labEntry of file.labs) {
      const lab = this.#labsByCode.get(labEntry.code.toLowerCase())
      if (!lab) continue
      const made = labEntry.products.find(
        (labProduct) =>
          labProduct.sku === sku &&
          Object.entries(labProduct.attributes ?? {}).every(([name, values]) => {
            const value = attributes[name]
            return value !== undefined && values.includes(value)
          }),
      )
      if (!made) continue
      offers.push({
        lab,
        unitCost: money(made.unitCost, lab.currency),
        perAdditionalPageCost:
          made.perAdditionalPageCost === undefined ? null : money(made.perAdditionalPageCost, lab.currency),
        printFileFormat: made.printFileFormat ?? lab.defaultPrintFileFormat,
        colour: labColourOf(made.colour ?? labEntry.defaultColour),
        spine: made.spine ? spinePaper(made.spine) : null,
        productionDays: productionDaysOf(
          labEntry,
          made,
          file.products.find((product) => product.sku === sku),
        ),
      })
    }
    return offers.sort((a, b) => (a.lab.code < b.lab.code ? -1 : a.lab.code > b.lab.code ? 1 : 0))
  }

  /** Union of the countries of every zone the offering labs have any rate to; shared between variants. */
  #shipsTo(offers: readonly LabOffer[], cache: Map<string, readonly string[]>): readonly string[] {
    const cacheKey = offers.map((offer) => offer.lab.code).join(',')
    const cached = cache.get(cacheKey)
    if (cached) return cached
    const countries = new Set<string>()
    for (const offer of offers) {
      for (const zoneName of this.#ratesByLab.get(offer.lab.code.toLowerCase())?.keys() ?? []) {
        const zone = this.zones.find((candidate) => candidate.name === zoneName)
        for (const country of zone?.countries ?? []) countries.add(country)
      }
    }
    const sorted = Object.freeze([...countries].sort())
    cache.set(cacheKey, sorted)
    return sorted
  }

  #buildProductDetails(product: Product): ProductDetails {
    // Fresh objects in contract key order: sku, description, productDimensions, attributes, printAreas, variants,
    // then printroute's `book`. A print area's specification sits on the area when every variant has the same
    // one, else on each variant (`printAreaSpecs`); a product without specifications gives exactly the old shape.
    const printAreas: ProductDetails['printAreas'] = {}
    const differing = new Set<string>()
    for (const area of Object.values(product.printAreas)) {
      const specs = product.variants.map((variant) => variant.printAreaSpecs[area.name])
      const [first] = specs
      const agreed = first !== undefined && specs.every((spec) => spec !== undefined && samePrintAreaSpec(spec, first))
      printAreas[area.name] = agreed
        ? { required: area.required, spec: printAreaSpecWire(first) }
        : { required: area.required }
      if (first !== undefined && !agreed) differing.add(area.name)
    }
    const variantDetails = (variant: Variant): ProductDetails['variants'][number] => {
      const details: ProductDetails['variants'][number] = {
        attributes: { ...variant.attributes },
        shipsTo: [...variant.shipsTo],
        printAreaSizes: copySizes(variant.printAreaSizes),
      }
      const own = Object.entries(variant.printAreaSpecs).filter(([area]) => differing.has(area))
      if (own.length > 0) {
        details.printAreaSpecs = Object.fromEntries(own.map(([area, spec]) => [area, printAreaSpecWire(spec)]))
      }
      return details
    }
    return deepFreeze({
      sku: product.sku,
      description: product.description,
      productDimensions: {
        width: product.productDimensions.width,
        height: product.productDimensions.height,
        units: product.productDimensions.units,
      },
      attributes: Object.fromEntries(Object.entries(product.attributes).map(([name, values]) => [name, [...values]])),
      printAreas,
      variants: product.variants.map(variantDetails),
      ...(product.book ? { book: bookSpecWire(product.book) } : {}),
    })
  }
}

function customsOf(entry: CustomsEntry): ProductCustoms {
  return { hsCode: entry.hsCode, originCountryCode: entry.originCountryCode ?? null, weightGrams: entry.weightGrams }
}

function basisPointsOf(percent: string): number {
  const basisPoints = parsePercentToBasisPoints(percent)
  if (basisPoints === undefined) throw new Error(`catalogue: unvalidated percent ${JSON.stringify(percent)}`)
  return basisPoints
}

/** A validated `importRules` entry with its percents in basis points and its threshold in minor units. */
function importRule(entry: ImportRuleEntry): ImportRule {
  return deepFreeze({
    name: entry.name,
    destinations: [...entry.destinations].sort(),
    customsUnion: entry.customsUnion === true,
    currency: entry.currency,
    lowValue:
      entry.lowValueThreshold !== undefined && entry.lowValueVatCollection !== undefined
        ? { threshold: money(entry.lowValueThreshold, entry.currency), vatCollection: entry.lowValueVatCollection }
        : null,
    importTaxBasisPoints: entry.importTaxPercent === undefined ? null : basisPointsOf(entry.importTaxPercent),
    dutyBasisPointsByChapter: Object.fromEntries(
      Object.entries(entry.dutyPercentByHsChapter)
        .filter(([chapter]) => !chapter.startsWith('$'))
        .map(([chapter, percent]) => [chapter, basisPointsOf(percent)]),
    ),
    defaultDutyBasisPoints: basisPointsOf(entry.defaultDutyPercent),
    effectiveDate: entry.effectiveDate,
    source: entry.source,
  })
}

/** A validated `calendar` entry as delivery estimates read it (domain/delivery-promise.ts). */
function labCalendar(entry: LabCalendarEntry): LabCalendar {
  const [hours, minutes] = entry.cutOffTime.split(':').map(Number)
  return {
    timeZone: entry.timeZone,
    workingDays: new Set(entry.workingDays.map((day) => WEEKDAYS.indexOf(day) + 1)),
    holidays: new Set(entry.holidays ?? []),
    cutOffMinutes: (hours ?? 0) * 60 + (minutes ?? 0),
  }
}

/**
 * The production days of a lab's product: its own figure, else the calendar's for the product's category, else
 * the calendar's default; null for a lab without a calendar.
 */
function productionDaysOf(lab: LabEntry, made: LabProductEntry, product: ProductEntry | undefined): number | null {
  const calendar = lab.calendar
  if (!calendar) return null
  if (made.productionDays !== undefined) return made.productionDays
  const categories = calendar.productionDays.categories ?? {}
  const category = product?.category
  if (category !== undefined && Object.hasOwn(categories, category)) return categories[category] ?? null
  return calendar.productionDays.default
}

/** A validated `spine` entry in micrometres (the validator has checked every figure converts exactly). */
function spinePaper(entry: SpinePaperEntry): SpinePaper {
  const coverAllowanceMicrometres = millimetresToMicrometres(entry.coverAllowanceMm)
  const pageThicknessMicrometres = millimetresToMicrometres(entry.pageThicknessMm)
  if (coverAllowanceMicrometres === undefined || pageThicknessMicrometres === undefined) {
    throw new Error(`catalogue: unvalidated spine paper ${JSON.stringify(entry)}`)
  }
  return { paper: entry.paper, coverAllowanceMicrometres, pageThicknessMicrometres }
}

function copySizes(sizes: Readonly<Record<string, PixelSize>>): Record<string, PixelSize> {
  const copy: Record<string, PixelSize> = {}
  for (const [area, size] of Object.entries(sizes)) {
    copy[area] = { horizontalResolution: size.horizontalResolution, verticalResolution: size.verticalResolution }
  }
  return copy
}

/** A validated `colour` entry as the renderer reads it; absent (an old catalogue) is sRGB, as print files were. */
function labColourOf(entry: LabColourEntry | undefined): LabColour {
  if (!entry || entry.space === 'srgb') return SRGB_COLOUR
  return Object.freeze({
    space: 'cmyk',
    profile: entry.profile ?? null,
    intent: entry.intent ?? 'relative',
    blackPointCompensation: entry.blackPointCompensation ?? false,
  })
}
