// What a merchant pays for an allocation: the one pricing code behind order charges (docs/billing.md) and quotes
// (docs/api.md#quotes), so a quote for an order's items always equals that order's charges.
//
// The merchant pays the selling price of the account's price list (docs/billing.md#price-lists,
// domain/price-lists.ts) of the labs' costs converted from each lab's currency to the requested one; without a
// list (`selling` not given, or a catalogue with no default list for an account without one) the selling price is
// the converted cost itself. Plus the destination's tax on items and shipping. Every amount is rounded once, at
// the line, half-up (away from zero):
//   unitCost     = price(convert(lab cost of one copy))            taxUnitCost = tax% of unitCost
//   item cost    = unitCost x copies                                item tax    = taxUnitCost x copies
//   shipment cost = price(convert(lab shipping cost of shipment))  shipment tax = tax% of shipment cost
// (a list's rule is the price of one copy, or of a shipment's shipping: the line is still that price x copies).
// Routing compares plans by their costs (domain/routing.ts calls this without `selling`).
// and the totals are plain sums, so the contract's arithmetic holds exactly:
//   items = sum(item cost), shipping = sum(shipment cost), totalTax = sum(item tax) + sum(shipment tax),
//   totalCost = items + shipping + totalTax.

import type { PlannedShipment } from './allocation/model.ts'
import type { Catalogue } from './catalogue.ts'
import { percentOfMinorUnits } from './catalogue-money.ts'
import type { PricedProduct, PriceList } from './price-lists.ts'

export interface PricedItem {
  itemId: string
  copies: number
  /** One copy, in the priced currency (minor units). */
  unitCost: bigint
  taxUnitCost: bigint
  /** unitCost x copies. */
  cost: bigint
  /** taxUnitCost x copies. */
  tax: bigint
}

export interface PricedShipment {
  labCode: string
  /** Shipping of the shipment, in the priced currency. */
  cost: bigint
  tax: bigint
  /** The shipment's items, in the shipment's order. */
  items: PricedItem[]
  /**
   * Duties and import taxes printroute prepays for a DDP shipment (domain/customs.ts `prepaidDuties`), in the priced
   * currency, untaxed; absent (or 0) for every other shipment.
   */
  duties?: bigint
}

export interface PriceTotals {
  items: bigint
  shipping: bigint
  tax: bigint
  /** items + shipping + tax. */
  total: bigint
}

export interface PricedAllocation {
  currency: string
  shipments: PricedShipment[]
  totals: PriceTotals
  /** True where the destination has a sales tax that is not computed (US): callers warn about it. */
  salesTaxNotComputed: boolean
  /** The price list the figures come from; null: the labs' costs. */
  priceList: string | null
}

/** What selling prices need beyond the costs: the list, each item's product, the shipping method. */
export interface SellingPrices {
  /** Null: the labs' costs (no list applies). */
  list: PriceList | null
  productOfItem: ReadonlyMap<string, PricedProduct>
  shippingMethod: string
}

/**
 * Prices planned shipments (from `allocateShipments`) in `currency` for a destination. `copiesByItem` gives the
 * copies of every item id the shipments hold. Throws RangeError for an unknown currency or a missing item.
 */
export function priceAllocation(
  catalogue: Catalogue,
  shipments: readonly PlannedShipment[],
  copiesByItem: ReadonlyMap<string, number>,
  destinationCountryCode: string,
  currency: string,
  selling?: SellingPrices,
): PricedAllocation {
  const target = currency.toUpperCase()
  if (!catalogue.isKnownCurrency(target)) throw new RangeError(`unknown currency ${currency}`)
  const list = selling?.list ?? null
  const context = {
    currency: target,
    baseCurrency: catalogue.baseCurrency,
    convert: (minor: bigint, from: string, to: string) => catalogue.convertMinorUnits(minor, from, to),
  }
  const itemPrice = (itemId: string, cost: bigint): bigint => {
    if (!list || !selling) return cost
    const product = selling.productOfItem.get(itemId)
    if (!product) throw new RangeError(`no product given for item ${itemId}`)
    return catalogue.priceLists.productPrice(list, product, cost, context)
  }
  const shippingPrice = (cost: bigint): bigint =>
    list && selling ? catalogue.priceLists.shippingPrice(list, selling.shippingMethod, cost, context) : cost
  const taxRate = catalogue.taxRate(destinationCountryCode)
  const taxOf = (minor: bigint) => percentOfMinorUnits(minor, taxRate.basisPoints)
  const totals: PriceTotals = { items: 0n, shipping: 0n, tax: 0n, total: 0n }
  const priced = shipments.map((shipment): PricedShipment => {
    const items = shipment.items.map((planned): PricedItem => {
      const copies = copiesByItem.get(planned.itemId)
      if (copies === undefined) throw new RangeError(`no copies given for item ${planned.itemId}`)
      const unitCost = itemPrice(
        planned.itemId,
        catalogue.convertMinorUnits(planned.unitCost.minor, planned.unitCost.currency, target),
      )
      const taxUnitCost = taxOf(unitCost)
      const count = BigInt(copies)
      return { itemId: planned.itemId, copies, unitCost, taxUnitCost, cost: unitCost * count, tax: taxUnitCost * count }
    })
    const cost = shippingPrice(
      catalogue.convertMinorUnits(shipment.shippingCost.minor, shipment.shippingCost.currency, target),
    )
    const tax = taxOf(cost)
    for (const item of items) {
      totals.items += item.cost
      totals.tax += item.tax
    }
    totals.shipping += cost
    totals.tax += tax
    return { labCode: shipment.labCode, cost, tax, items }
  })
  totals.total = totals.items + totals.shipping + totals.tax
  return {
    currency: target,
    shipments: priced,
    totals,
    salesTaxNotComputed: taxRate.salesTaxNotComputed,
    priceList: list?.name ?? null,
  }
}
