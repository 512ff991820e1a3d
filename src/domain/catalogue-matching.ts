// Checks order (or quote) items against the catalogue, the rules of docs/wire-contract.md#orders-and-the-pause-window:
// the SKU exists, attributes are valid and complete, every required print area has an asset and none is unknown
// or repeated, page-priced products carry a page count, and the order can reach its destination by the chosen
// shipping method. Pure: no I/O, every problem is reported at once under its request path, and whatever
// matches comes back in the catalogue's spelling (SKU, attribute names and values, lower-case print areas).

import type { Catalogue } from './catalogue.ts'
import { DEFAULT_PRINT_AREA } from './catalogue.ts'
import type { Product, Variant } from './catalogue.types.ts'
import { isIsoCountryCode } from './country-codes.ts'
import { addFailure, type Failure, type Failures } from './failures.ts'
import { type ServiceError, validationFailed } from './outcomes.ts'
import { canonicalSpelling, SHIPPING_METHODS, type ShippingMethod } from './shipping-methods.ts'

export interface ItemToMatch {
  sku: string
  copies: number
  /** Attribute name -> value, any letter case; attributes with one allowed value may be left out. */
  attributes?: Readonly<Record<string, string>> | null
  /** `printArea` omitted or null means `default`; `pageCount` matters only for page-priced products. */
  assets: readonly { printArea?: string | null; pageCount?: number | null }[]
}

export interface ItemsToMatch {
  destinationCountryCode: string
  /** Any letter case; omitted or null (a quote for every method) skips the method check. */
  shippingMethod?: string | null
  items: readonly ItemToMatch[]
}

/** Request paths to report under; the defaults are the create-order body's. */
export interface MatchPaths {
  /** `recipient.address.countryCode` for orders, `destinationCountryCode` for quotes. */
  countryCode: string
  shippingMethod: string
  items: string
}

export const ORDER_PATHS: MatchPaths = {
  countryCode: 'recipient.address.countryCode',
  shippingMethod: 'shippingMethod',
  items: 'items',
}

export const QUOTE_PATHS: MatchPaths = {
  countryCode: 'destinationCountryCode',
  shippingMethod: 'shippingMethod',
  items: 'items',
}

export interface MatchedAsset {
  /** Lower case, as in the catalogue; `default` when the request named none. */
  printArea: string
  pageCount: number | null
}

export interface MatchedItem {
  /** Position of the item in the request. */
  index: number
  /** The catalogue's spelling of the SKU. */
  sku: string
  copies: number
  product: Product
  /** The exact variant: every attribute resolved, single-valued ones filled in. */
  variant: Variant
  /** The attributes the request gave, in the catalogue's spelling and attribute order (omitted ones stay out). */
  attributes: Record<string, string>
  /** In request order, one per request asset. */
  assets: MatchedAsset[]
}

/**
 * The position of the asset whose `pageCount` prices an item of `product`: books are priced by the page count of
 * their page-count print area, not of any asset. -1 for products not priced by page, or when no asset is there.
 */
export function pageCountAssetIndex(
  product: Pick<Product, 'pagePricing'> | undefined,
  assets: readonly { printArea: string }[],
): number {
  const area = product?.pagePricing?.pageCountPrintArea
  return area === undefined ? -1 : assets.findIndex((asset) => asset.printArea === area)
}

/** The page count that prices an item of `product` (books); null for products not priced by page. */
export function pricedPageCount(
  product: Pick<Product, 'pagePricing'> | undefined,
  assets: readonly { printArea: string; pageCount: number | null }[],
): number | null {
  return assets[pageCountAssetIndex(product, assets)]?.pageCount ?? null
}

export interface MatchResult {
  failures: Failures
  /** Items that matched without a problem, in request order; all of them when `failures` is empty. */
  items: MatchedItem[]
  /** Upper-cased destination ("gb" -> "GB"). */
  destinationCountryCode: string
  /** PascalCase method, or null when none was given or it is not a shipping method. */
  shippingMethod: ShippingMethod | null
}

/** Matches every item of an order or quote against the catalogue; see the file comment for the rules. */
export function matchOrderItems(
  catalogue: Catalogue,
  request: ItemsToMatch,
  paths: MatchPaths = ORDER_PATHS,
): MatchResult {
  const failures: Failures = {}
  const destination = request.destinationCountryCode.toUpperCase()
  const destinationIsValid = isIsoCountryCode(destination)
  if (!destinationIsValid) {
    addFailure(failures, paths.countryCode, {
      code: 'NotAValidCountryCode',
      providedValue: request.destinationCountryCode,
    })
  }

  let shippingMethod: ShippingMethod | null = null
  if (request.shippingMethod !== undefined && request.shippingMethod !== null) {
    shippingMethod = canonicalSpelling(SHIPPING_METHODS, request.shippingMethod) ?? null
    if (shippingMethod === null) {
      addFailure(failures, paths.shippingMethod, {
        code: 'InvalidValue',
        providedValue: request.shippingMethod,
        validValues: [...SHIPPING_METHODS],
      })
    }
  }

  const items: MatchedItem[] = []
  /** For the shipping-method check: the variants each deliverable item may turn out to be. */
  const deliverableCandidates: Variant[][] = []
  request.items.forEach((item, index) => {
    const outcome = matchItem(catalogue, item, `${paths.items}[${index}]`, destinationIsValid ? destination : null)
    for (const [path, failure] of outcome.failures) addFailure(failures, path, failure)
    if (outcome.deliverableCandidates.length > 0) deliverableCandidates.push(outcome.deliverableCandidates)
    if (outcome.failures.length === 0 && outcome.matched) items.push({ ...outcome.matched, index })
  })

  if (destinationIsValid && shippingMethod !== null && deliverableCandidates.length > 0) {
    const methodServes = (method: ShippingMethod, candidates: Variant[]) =>
      candidates.some((variant) => catalogue.labOptions(variant, destination, method).length > 0)
    const method = shippingMethod
    if (!deliverableCandidates.every((candidates) => methodServes(method, candidates))) {
      // One failure for the order, naming the methods that would serve every item that can reach the destination.
      addFailure(failures, paths.shippingMethod, {
        code: 'ShippingMethodNotAvailable',
        providedValue: request.shippingMethod,
        validValues: SHIPPING_METHODS.filter((candidate) =>
          deliverableCandidates.every((candidates) => methodServes(candidate, candidates)),
        ),
      })
    }
  }

  return { failures, items, destinationCountryCode: destination, shippingMethod }
}

/**
 * Shipping methods that can serve every matched item to the destination (items may come from different labs,
 * as separate shipments, but all by the same method). Slowest first.
 */
export function availableShippingMethods(
  catalogue: Catalogue,
  destinationCountryCode: string,
  items: readonly MatchedItem[],
): ShippingMethod[] {
  return catalogue.shippingMethodsFor(
    destinationCountryCode,
    items.map((item) => item.variant),
  )
}

interface ItemOutcome {
  failures: [string, Failure][]
  matched: Omit<MatchedItem, 'index'> | null
  /** Variants the item may be that ship to the destination; empty when unknown or undeliverable. */
  deliverableCandidates: Variant[]
}

/** The item checked on its own, as a preview of it needs: no destination, and only the assets it gives. */
export function matchPreviewItem(
  catalogue: Catalogue,
  item: Omit<ItemToMatch, 'copies'>,
): { failures: Failures; item: Omit<MatchedItem, 'index'> | null } {
  const outcome = matchItem(catalogue, { ...item, copies: 1 }, '', null, { partial: true })
  const failures: Failures = {}
  for (const [path, failure] of outcome.failures) addFailure(failures, path, failure)
  return { failures, item: outcome.failures.length === 0 ? outcome.matched : null }
}

/** `items[0].sku`, or `sku` for a body that is the item itself. */
function field(path: string, name: string): string {
  return path ? `${path}.${name}` : name
}

function matchItem(
  catalogue: Catalogue,
  item: ItemToMatch,
  path: string,
  destination: string | null,
  options: { partial: boolean } = { partial: false },
): ItemOutcome {
  const failures: [string, Failure][] = []
  const report = (at: string, failure: Failure) => failures.push([at, failure])

  const product = catalogue.findProduct(item.sku)
  if (!product) {
    report(field(path, 'sku'), { code: 'UnknownSku', providedValue: item.sku })
    return { failures, matched: null, deliverableCandidates: [] }
  }

  const attributes = matchAttributes(product, item.attributes ?? {}, field(path, 'attributes'), report)
  const assets = matchAssets(product, item.assets, field(path, 'assets'), report, options)

  // The variants consistent with the valid attributes given: exactly one once every attribute is resolved.
  const resolved: Record<string, string> = {}
  for (const [name, allowed] of Object.entries(product.attributes)) {
    const value = attributes.canonical[name] ?? (allowed.length === 1 ? allowed[0] : undefined)
    if (value !== undefined) resolved[name] = value
  }
  const candidates = product.variants.filter((variant) =>
    Object.entries(resolved).every(([name, value]) => variant.attributes[name] === value),
  )
  const complete = attributes.complete && Object.keys(resolved).length === Object.keys(product.attributes).length
  const variant = complete ? candidates[0] : undefined
  if (complete && !variant) {
    // Every value is valid on its own, but the product's explicit variant list lacks this combination.
    report(field(path, 'attributes'), {
      code: 'InvalidValue',
      providedValue: item.attributes ?? null,
      validValues: product.variants.map((candidate) => candidate.attributes),
    })
  }

  let deliverableCandidates: Variant[] = []
  if (destination !== null && candidates.length > 0) {
    deliverableCandidates = candidates.filter((candidate) => catalogue.variantShipsTo(candidate, destination))
    if (deliverableCandidates.length === 0) {
      report(field(path, 'sku'), {
        code: 'NotAvailableForDestination',
        providedValue: item.sku,
        comparisonValue: destination,
      })
    }
  }

  const matched = variant
    ? { sku: product.sku, copies: item.copies, product, variant, attributes: attributes.canonical, assets }
    : null
  return { failures, matched, deliverableCandidates }
}

interface AttributesOutcome {
  /** The valid attributes given, catalogue spelling, product attribute order. */
  canonical: Record<string, string>
  /** False when an attribute was unknown, invalid or missing. */
  complete: boolean
}

function matchAttributes(
  product: Product,
  given: Readonly<Record<string, string>>,
  path: string,
  report: (at: string, failure: Failure) => void,
): AttributesOutcome {
  const names = Object.keys(product.attributes)
  const found: Record<string, string> = {}
  /** Attributes the request named, valid value or not: they are reported as invalid, not also as missing. */
  const named = new Set<string>()
  let complete = true
  for (const [givenName, givenValue] of Object.entries(given)) {
    const at = `${path}.${givenName}`
    const name = canonicalSpelling(names, givenName)
    if (name === undefined) {
      report(at, { code: 'UnknownAttribute', providedValue: givenName, validValues: names })
      complete = false
      continue
    }
    const allowed = product.attributes[name] ?? []
    const value = typeof givenValue === 'string' ? canonicalSpelling(allowed, givenValue) : undefined
    const earlier = found[name]
    if (value === undefined || (named.has(name) && earlier !== value)) {
      // An invalid value, or the same attribute twice in different letter case with different values.
      report(at, { code: 'InvalidAttributeValue', providedValue: givenValue, validValues: [...allowed] })
      complete = false
    } else {
      found[name] = value
    }
    named.add(name)
  }

  const missing = names.filter((name) => !named.has(name) && (product.attributes[name]?.length ?? 0) > 1)
  if (missing.length > 0) {
    report(path, {
      code: 'MissingRequiredAttributes',
      providedValue: given,
      missingItems: {
        attributes: missing.map((name) => ({ name, validValues: [...(product.attributes[name] ?? [])] })),
      },
    })
    complete = false
  }

  const canonical: Record<string, string> = {}
  for (const name of names) {
    const value = found[name]
    if (value !== undefined) canonical[name] = value
  }
  return { canonical, complete }
}

/**
 * `partial`: only the assets given are checked (a preview need not have every required area nor page counts; a
 * page count given is checked).
 */
function matchAssets(
  product: Product,
  assets: ItemToMatch['assets'],
  path: string,
  report: (at: string, failure: Failure) => void,
  options: { partial: boolean },
): MatchedAsset[] {
  const areaNames = Object.keys(product.printAreas)
  const pagePricing = product.pagePricing
  /** Print area -> index of the first asset placed there. */
  const placed = new Map<string, number>()
  const matched = assets.map((asset, index): MatchedAsset => {
    const at = `${path}[${index}]`
    const givenArea = asset.printArea ?? DEFAULT_PRINT_AREA
    const printArea = givenArea.toLowerCase()
    const pageCount = asset.pageCount ?? null
    if (!(printArea in product.printAreas)) {
      report(`${at}.printArea`, { code: 'UnknownPrintArea', providedValue: givenArea, validValues: areaNames })
      return { printArea, pageCount }
    }
    const first = placed.get(printArea)
    if (first !== undefined) {
      report(`${at}.printArea`, {
        code: 'DuplicatePrintArea',
        providedValue: givenArea,
        comparisonValue: `${path}[${first}]`,
      })
    } else {
      placed.set(printArea, index)
    }
    // A preview needs no page count, but one it is given is checked as an order's would be.
    const pageCountGiven = asset.pageCount !== undefined && asset.pageCount !== null
    if (pagePricing && printArea === pagePricing.pageCountPrintArea && (!options.partial || pageCountGiven)) {
      checkPageCount(pagePricing, asset.pageCount, `${at}.pageCount`, report)
    }
    return { printArea, pageCount }
  })

  // One failure naming every missing area, like MissingRequiredAttributes (docs/errors.md).
  const missing = Object.values(product.printAreas).filter((area) => area.required && !placed.has(area.name))
  if (missing.length > 0 && !options.partial) {
    report(path, {
      code: 'MissingRequiredPrintArea',
      providedValue: assets.map((asset) => asset.printArea ?? DEFAULT_PRINT_AREA),
      validValues: missing.map((area) => area.name),
    })
  }
  return matched
}

function checkPageCount(
  pagePricing: NonNullable<Product['pagePricing']>,
  pageCount: number | null | undefined,
  at: string,
  report: (at: string, failure: Failure) => void,
): void {
  if (pageCount === undefined || pageCount === null) {
    report(at, { code: 'PageCountRequired', providedValue: pageCount ?? null })
  } else if (!Number.isInteger(pageCount)) {
    report(at, { code: 'InvalidValue', providedValue: pageCount })
  } else if (pageCount < pagePricing.minimumPages) {
    report(at, {
      code: 'MustBeGreaterThanOrEqualTo',
      providedValue: pageCount,
      comparisonValue: pagePricing.minimumPages,
    })
  } else if (pageCount > pagePricing.maximumPages) {
    report(at, { code: 'MustBeLessThanOrEqualTo', providedValue: pageCount, comparisonValue: pagePricing.maximumPages })
  }
}

/**
 * The `data` of a ValidationFailed answer with catalogue failures: `nearestSkus` maps the path of every
 * `UnknownSku` failure to the catalogue's nearest SKUs (docs/errors.md#nearest-skus); `{}` without one.
 */
export function unknownSkuData(catalogue: Catalogue, failures: Failures): Record<string, unknown> {
  const nearestSkus: Record<string, string[]> = {}
  for (const [path, list] of Object.entries(failures)) {
    const unknown = list.find((failure) => failure.code === 'UnknownSku')
    if (unknown && typeof unknown.providedValue === 'string') {
      // Paths are printroute's own (`sku`, `items[0].sku`), never a client's key.
      nearestSkus[path] = catalogue.nearestSkus(unknown.providedValue)
    }
  }
  return Object.keys(nearestSkus).length === 0 ? {} : { nearestSkus }
}

/** `validationFailed` for failures that may include the catalogue's: an unknown SKU's nearest SKUs in `data`. */
export function catalogueValidationFailed(catalogue: Catalogue, failures: Failures, statusText?: string): ServiceError {
  return validationFailed(failures, statusText, unknownSkuData(catalogue, failures))
}
