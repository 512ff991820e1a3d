// Price-locked quotes (docs/api.md#price-locked-quotes): what a stored quote holds, whether an order matches it,
// and the order's prices taken from it. Pure: the quotes repository stores a QuoteLock, the orders service checks
// a new order against it, the pipeline prices the order's first allocation with it.
import type { Incoterm } from './customs.ts'
import { addFailure, type Failures } from './failures.ts'
import type { PricedItem, PricedShipment } from './pricing.ts'
import type { RoutingRound } from './routing.ts'
import type { ShippingMethod } from './shipping-methods.ts'

/** One quoted item, canonical spelling (the catalogue's), with its quoted prices in minor units. */
export interface QuotedItem {
  sku: string
  copies: number
  attributes: Record<string, string>
  /**
   * The page count the item was priced at (books); null for items not priced by page. Absent on quotes stored
   * before page counts were kept: see `quoteMismatches` and `lockedPrices` for how those are compared.
   */
  pageCount?: number | null
  unitCost: string
  taxUnitCost: string
}

/** One quoted shipment: its shipping and tax in minor units, and its items (indexes into the quote's items). */
export interface QuotedShipment {
  labCode: string
  cost: string
  tax: string
  itemIndexes: number[]
  /**
   * A DDP quote's duties and import taxes printroute prepays for the shipment (minor units, "0" where none are
   * due); absent on every shipment of a DAP quote. So the quote's incoterm needs no column of its own.
   */
  duties?: string
}

/** The incoterm a quote was made for: DDP when its shipments carry prepaid duties. */
export function quotedIncoterm(quote: Pick<QuoteLock, 'shipments'>): Incoterm {
  return quote.shipments.some((shipment) => shipment.duties !== undefined) ? 'DDP' : 'DAP'
}

/** Everything a stored quote keeps besides its id, owner and times. */
export interface QuoteLock {
  shippingMethod: ShippingMethod
  destinationCountryCode: string
  currency: string
  /** In request order. */
  items: QuotedItem[]
  shipments: QuotedShipment[]
  /** The routing as at quote time (GET /quotes/{id}/routing). */
  routing: RoutingRound
}

export interface StoredQuote extends QuoteLock {
  id: string
  createdAt: Date
  expiresAt: Date
  /** The order created with this quote (`ord_12`); null while unused. */
  usedByOrderId: string | null
}

/** An order item as far as a quote is concerned (canonical spelling, as the catalogue matched it). */
export interface QuotableItem {
  sku: string
  copies: number
  attributes: Readonly<Record<string, string>>
  /** The page count that prices the item (books), null for items not priced by page; absent: not known. */
  pageCount?: number | null
}

/** An ordered item: its page count is always known, and where the request gave it (for naming a mismatch). */
export interface OrderedItem extends QuotableItem {
  pageCount: number | null
  /** The position of the asset carrying the priced page count in the item's `assets`; -1 when none does. */
  pageCountAssetIndex: number
}

function sameAttributes(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && b[key] === a[key])
}

/** Equal page counts; a side that does not know its page count (undefined) is not compared. */
function samePages(a: number | null | undefined, b: number | null | undefined): boolean {
  return a === undefined || b === undefined || a === b
}

function sameItem(quoted: QuotableItem, ordered: QuotableItem): boolean {
  return (
    quoted.sku.toLowerCase() === ordered.sku.toLowerCase() &&
    quoted.copies === ordered.copies &&
    sameAttributes(quoted.attributes, ordered.attributes) &&
    samePages(quoted.pageCount, ordered.pageCount)
  )
}

/**
 * For each ordered item, the index of the quoted item it is (items are compared as multisets: the n-th of equal
 * ordered items takes the n-th equal quoted item); undefined where no quoted item is left that equals it.
 */
export function matchQuotedItems(
  quoted: readonly QuotableItem[],
  ordered: readonly QuotableItem[],
): (number | undefined)[] {
  const taken = new Set<number>()
  return ordered.map((item) => {
    const index = quoted.findIndex((candidate, position) => !taken.has(position) && sameItem(candidate, item))
    if (index === -1) return undefined
    taken.add(index)
    return index
  })
}

export interface OrderAgainstQuote {
  items: readonly OrderedItem[]
  destinationCountryCode: string
  shippingMethod: ShippingMethod
  /** The currency the order will be charged in (the account's billing currency). */
  currency: string
  /** The order's `deliverBy`; null without one. */
  deliverBy: string | null
  /** The order's `customs.incoterm` (DAP without `customs`). */
  incoterm: Incoterm
  now: Date
}

/**
 * The `deliverBy` date a quote was made for; null for none. Kept in the quote's routing round, which shows it (and
 * quotes stored before dates existed have none), so the quote needs no column of its own.
 */
export function quotedDeliverBy(quote: QuoteLock): string | null {
  return quote.routing.deliverBy ?? null
}

/** Where an ordered item gives its priced page count: the asset's `pageCount`, else the item's assets. */
function pageCountField(item: OrderedItem): string {
  return item.pageCountAssetIndex < 0 ? 'assets' : `assets[${item.pageCountAssetIndex}].pageCount`
}

/**
 * Where a new order differs from the quote it names (docs/errors.md): expiry and currency on `quoteId`, then each
 * field that differs under its request path. Empty when the order may use the quote's prices.
 */
export function quoteMismatches(quote: StoredQuote, order: OrderAgainstQuote): Failures {
  const failures: Failures = {}
  if (order.now >= quote.expiresAt) {
    addFailure(failures, 'quoteId', {
      code: 'QuoteExpired',
      providedValue: quote.id,
      comparisonValue: quote.expiresAt.toISOString(),
    })
  }
  if (order.currency.toUpperCase() !== quote.currency) {
    addFailure(failures, 'quoteId', {
      code: 'CurrencyDiffersFromQuote',
      providedValue: order.currency.toUpperCase(),
      comparisonValue: quote.currency,
    })
  }
  if (order.shippingMethod !== quote.shippingMethod) {
    addFailure(failures, 'shippingMethod', {
      code: 'DiffersFromQuote',
      providedValue: order.shippingMethod,
      comparisonValue: quote.shippingMethod,
    })
  }
  // The quote's plan was the cheapest for its date (or for none): the same plan, at its price, needs the same date.
  if (order.deliverBy !== quotedDeliverBy(quote)) {
    addFailure(failures, 'deliverBy', {
      code: 'DiffersFromQuote',
      providedValue: order.deliverBy,
      comparisonValue: quotedDeliverBy(quote),
    })
  }
  // A DDP quote's total holds the duties it prepays: the order must ship on the same terms to be charged it.
  if (order.incoterm !== quotedIncoterm(quote)) {
    addFailure(failures, 'customs.incoterm', {
      code: 'DiffersFromQuote',
      providedValue: order.incoterm,
      comparisonValue: quotedIncoterm(quote),
    })
  }
  if (order.destinationCountryCode.toUpperCase() !== quote.destinationCountryCode) {
    addFailure(failures, 'recipient.address.countryCode', {
      code: 'DiffersFromQuote',
      providedValue: order.destinationCountryCode.toUpperCase(),
      comparisonValue: quote.destinationCountryCode,
    })
  }
  if (order.items.length !== quote.items.length) {
    addFailure(failures, 'items', {
      code: 'DiffersFromQuote',
      providedValue: order.items.length,
      comparisonValue: quote.items.length,
    })
    return failures
  }
  // A quote stored before page counts were kept cannot tell the pages a book was priced at: taken as null, it
  // still matches items not priced by page and refuses books rather than lock an unknown price.
  const quotedItems = quote.items.map((item) => ({ ...item, pageCount: item.pageCount ?? null }))
  // Unmatched ordered items are compared, in order, with the unmatched quoted ones: the first field that differs
  // is named, so `copies: 3` where 2 were quoted reads as items[i].copies.
  const matched = matchQuotedItems(quotedItems, order.items)
  const used = new Set(matched.filter((index) => index !== undefined))
  const leftQuoted = quotedItems.filter((_, index) => !used.has(index))
  matched.forEach((match, index) => {
    if (match !== undefined) return
    const quoted = leftQuoted.shift()
    const ordered = order.items[index] as OrderedItem
    if (!quoted) return
    const [field, provided, compared] =
      quoted.sku.toLowerCase() !== ordered.sku.toLowerCase()
        ? ['sku', ordered.sku, quoted.sku]
        : !sameAttributes(quoted.attributes, ordered.attributes)
          ? ['attributes', ordered.attributes, quoted.attributes]
          : quoted.pageCount !== ordered.pageCount
            ? [pageCountField(ordered), ordered.pageCount, quoted.pageCount]
            : ['copies', ordered.copies, quoted.copies]
    addFailure(failures, `items[${index}].${field}`, {
      code: 'DiffersFromQuote',
      providedValue: provided,
      comparisonValue: compared,
    })
  })
  return failures
}

/**
 * The priced shipments of an order's allocation with the quote's prices in place of the catalogue's: each item
 * costs what the quote said, and each quoted shipment's shipping and tax go to the planned shipment that takes
 * the first of its items (the labs may differ from the quote's; the totals do not). Undefined when the order's
 * items do not all match the quote's (then the caller prices from the catalogue). Page counts are compared where
 * the quote kept them: an order accepted against a quote stored before they were kept is charged that quote.
 */
export function lockedPrices(
  quote: QuoteLock,
  orderItems: readonly (QuotableItem & { id: string })[],
  planned: readonly PricedShipment[],
): PricedShipment[] | undefined {
  const matched = matchQuotedItems(quote.items, orderItems)
  if (orderItems.length !== quote.items.length || matched.some((index) => index === undefined)) return undefined
  const quotedIndexOfItem = new Map(orderItems.map((item, index) => [item.id, matched[index] as number]))
  const itemOfQuotedIndex = new Map(orderItems.map((item, index) => [matched[index] as number, item.id]))
  const shipmentOfItem = new Map(planned.flatMap((shipment, index) => shipment.items.map((i) => [i.itemId, index])))
  const shipping = planned.map(() => ({ cost: 0n, tax: 0n, duties: 0n }))
  for (const quoted of quote.shipments) {
    const target = quoted.itemIndexes
      .map((index) => shipmentOfItem.get(itemOfQuotedIndex.get(index) ?? ''))
      .find((index) => index !== undefined)
    const into = target === undefined ? undefined : shipping[target]
    if (!into) return undefined
    into.cost += BigInt(quoted.cost)
    into.tax += BigInt(quoted.tax)
    into.duties += BigInt(quoted.duties ?? '0')
  }
  // The quote's duties are locked like its shipping: they follow its shipments to the planned ones.
  const ddp = quotedIncoterm(quote) === 'DDP'
  return planned.map((shipment, index) => ({
    labCode: shipment.labCode,
    cost: shipping[index]?.cost ?? 0n,
    tax: shipping[index]?.tax ?? 0n,
    ...(ddp ? { duties: shipping[index]?.duties ?? 0n } : {}),
    items: shipment.items.map((item): PricedItem => {
      const quoted = quote.items[quotedIndexOfItem.get(item.itemId) ?? -1]
      if (!quoted) throw new Error(`item ${item.itemId} has no quoted price`)
      const unitCost = BigInt(quoted.unitCost)
      const taxUnitCost = BigInt(quoted.taxUnitCost)
      const copies = BigInt(item.copies)
      return { ...item, unitCost, taxUnitCost, cost: unitCost * copies, tax: taxUnitCost * copies }
    }),
  }))
}
