// Routing explanations (docs/api.md#routing): an allocation's explanation (domain/allocation/) in the money of
// the order or quote, as GET /orders/{id}/routing and GET /quotes/{id}/routing show it. Plans are priced by the
// pricing behind charges and quotes (domain/pricing.ts), so a chosen plan's total is what the order's items and
// shipping cost before tax. Stored as it is made (in the order's pipeline state, in the quote's row): an
// explanation shows the catalogue of the moment it was made.
//
// A round made while a price list applied (docs/billing.md#price-lists) is stored twice over: in the labs' costs
// (the operator's console shows them beside the margins) and, in `sellingPrices`, priced through the list as the
// order's charges and the quote's prices are. The merchant is shown the second (`merchantRouting`): the labs'
// costs would tell it the operator's margin.
import type { AllocationResult, ExclusionByHistory, LabExclusionReason, PlannedShipment } from './allocation/model.ts'
import type { Catalogue } from './catalogue.ts'
import type { DeliveryEstimate, DeliveryWindow } from './delivery-promise.ts'
import { toWireMoney, type WireMoney } from './money.ts'
import type { PricingContext } from './price-lists.ts'
import { priceAllocation, type SellingPrices } from './pricing.ts'
import type { ShippingMethod } from './shipping-methods.ts'

/** A lab that could make the item and ship it, with what the item alone would cost from it. */
export interface RoutingLab {
  labCode: string
  labCountryCode: string
  /** Unit cost x copies. */
  productionCost: WireMoney
  /** The item's copies shipped on their own from this lab. */
  shippingCost: WireMoney
  /** The item's delivery estimate from this lab; absent when the catalogue gives none (or the round had none). */
  estimatedDispatchDate?: string
  estimatedDelivery?: DeliveryWindow
}

export interface RoutingExclusion {
  labCode: string
  reason: LabExclusionReason
  /** On `TooLate`: the estimate that misses the round's `deliverBy`. */
  estimatedDispatchDate?: string
  estimatedDelivery?: DeliveryWindow
}

export interface RoutingItem {
  itemId: string
  /** The lab of the chosen plan; null when no lab can take the item. */
  chosenLabCode: string | null
  labsConsidered: RoutingLab[]
  labsExcluded: RoutingExclusion[]
}

export interface RoutingShipment {
  labCode: string
  labCountryCode: string
  itemIds: string[]
  itemsCost: WireMoney
  shippingCost: WireMoney
  /** itemsCost + shippingCost (before tax). */
  totalCost: WireMoney
  /** The shipment's delivery estimate; absent when the catalogue gives none (or the round made none). */
  estimatedDispatchDate?: string
  estimatedDelivery?: DeliveryWindow
}

export interface RoutingPlan {
  shipments: RoutingShipment[]
  /** Sum of the shipments' totalCost (before tax). */
  totalCost: WireMoney
}

/**
 * `Allocation`: an allocation of the order (the first, or a later one after a lab refused a shipment or the
 * shipping method changed); `Estimate`: the order has not been allocated yet, so this is what allocating it now
 * would do; `Quote`: the allocation behind a quote.
 */
export type RoutingBasis = 'Allocation' | 'Estimate' | 'Quote'

/**
 * An item a lab gave back, allocated again by the round that names it (docs/allocation.md#re-routed-items): the
 * shipment and lab it left, and why. `Rejected`: the lab refused its whole shipment (`description` is its reason).
 */
export interface ReroutedItem {
  itemId: string
  fromShipmentId: string
  fromLabCode: string
  reason: ExclusionByHistory
  description?: string
}

export interface RoutingRound {
  basis: RoutingBasis
  /** When the allocation (or the estimate, or the quote) was made. */
  at: string
  shippingMethod: ShippingMethod
  /** In request order: the items this round allocated. */
  items: RoutingItem[]
  /** Null when an item could not be allocated (`unavailableItemIds`). */
  chosenPlan: RoutingPlan | null
  /** The cheapest plan that ships everything from one lab; null when no lab can. */
  bestUnsplitPlan: RoutingPlan | null
  /** bestUnsplitPlan.totalCost - chosenPlan.totalCost (0 when the chosen plan is not split); null without both. */
  splitSaving: WireMoney | null
  unavailableItemIds: string[]
  // The delivery date asked for (docs/api.md#routing), only on rounds that had one.
  /** The date every shipment was to arrive by. */
  deliverBy?: string
  /** Whether the chosen plan meets it; false: no plan could, and the cheapest plan without the date was chosen. */
  deliverByMet?: boolean
  /** When met: chosenPlan.totalCost minus the cheapest plan's without the date (0 when that one met it already). */
  deliverByCost?: WireMoney
  /** When not met: the earliest date any plan reaches; null when some item has no lab with an estimate. */
  earliestDeliveryDate?: string | null
  /** On a round after a lab gave items back: which items, from where and why. */
  reroutedItems?: ReroutedItem[]
  /** On a reprint's round (docs/claims.md#reprints): the claim the reprint resolves. */
  claimId?: string
  /**
   * The catalogue version the round was worked out with (docs/catalogue.md#versions): the active one at the time,
   * so a re-allocation after a lab gave items back names the version it used. Absent for a catalogue not stored.
   */
  catalogueVersion?: number
  /**
   * Stored only, never on the wire as it is: the same round priced through the price list that applied when it
   * was made (`merchantRouting` shows it to the merchant). Absent when no list applied.
   */
  sellingPrices?: SellingRound
}

/** A round's figures as the merchant pays them: priced through `priceList`. */
export interface SellingRound {
  priceList: string
  round: RoutingRound
}

/** `LabCosts`: the labs' costs (no price list applies); `SellingPrices`: priced through `priceList`. */
export type RoutingAmounts = 'LabCosts' | 'SellingPrices'

/** The rounds as a party sees them, with what their money figures are. */
export interface RoutingFigures {
  allocations: RoutingRound[]
  amounts: RoutingAmounts
  /** With `SellingPrices`: the list (of the latest round priced through one). */
  priceList?: string
}

export interface RoutingContext {
  basis: RoutingBasis
  at: Date
  destinationCountryCode: string
  shippingMethod: ShippingMethod
  /** The copies of every item the allocation holds. */
  copiesByItem: ReadonlyMap<string, number>
  /** The currency the routing is priced in (the order's billing currency, the quote's currency). */
  currency: string
  /**
   * The price list the order's charges or the quote's prices come from, with each item's product: the round also
   * keeps its figures priced through it (`sellingPrices`). Absent, or a null list: the labs' costs only.
   */
  selling?: SellingPrices
}

/**
 * What the merchant is shown: each round in what it paid (its `sellingPrices` where a list applied), named
 * `SellingPrices` with the list when any round was priced through one. A round made when no list applied shows the
 * labs' costs, which is what the merchant was charged then.
 */
export function merchantRouting(rounds: readonly RoutingRound[]): RoutingFigures {
  const priceList = rounds.findLast((round) => round.sellingPrices)?.sellingPrices?.priceList
  const allocations = rounds.map((round) => round.sellingPrices?.round ?? labCostRound(round))
  return priceList === undefined
    ? { allocations, amounts: 'LabCosts' }
    : { allocations, amounts: 'SellingPrices', priceList }
}

/** What the operator is shown: every round in the labs' costs. */
export function operatorRouting(rounds: readonly RoutingRound[]): RoutingFigures {
  return { allocations: rounds.map(labCostRound), amounts: 'LabCosts' }
}

function labCostRound({ sellingPrices: _selling, ...round }: RoutingRound): RoutingRound {
  return round
}

/**
 * The routing of one allocation (made with `{explain: true}`), priced in `context.currency`: in the labs' costs,
 * and, when `context.selling` has a list, also through it (`sellingPrices`).
 */
export function routingRound(catalogue: Catalogue, result: AllocationResult, context: RoutingContext): RoutingRound {
  const round = pricedRound(catalogue, result, context, undefined)
  const selling = context.selling
  if (!selling?.list) return round
  return {
    ...round,
    sellingPrices: { priceList: selling.list.name, round: pricedRound(catalogue, result, context, selling) },
  }
}

/** The round's figures in the labs' costs (`selling` absent) or through `selling`'s list. */
function pricedRound(
  catalogue: Catalogue,
  result: AllocationResult,
  context: RoutingContext,
  selling: SellingPrices | undefined,
): RoutingRound {
  const { explanation } = result
  if (!explanation) throw new Error('routingRound needs an allocation made with {explain: true}')
  const currency = context.currency.toUpperCase()
  const money = (minor: bigint) => toWireMoney({ minor, currency })
  const convert = (minor: bigint, from: string) => catalogue.convertMinorUnits(minor, from, currency)
  const price = labPrices(catalogue, currency, selling)
  const planOf = (shipments: readonly PlannedShipment[]): RoutingPlan & { total: bigint } => {
    const { copiesByItem, destinationCountryCode } = context
    const priced = priceAllocation(catalogue, shipments, copiesByItem, destinationCountryCode, currency, selling)
    return {
      shipments: shipments.map((planned, index) => {
        const shipment = priced.shipments[index]
        if (!shipment) throw new Error('pricing lost a shipment')
        const itemsCost = shipment.items.reduce((sum, item) => sum + item.cost, 0n)
        return {
          labCode: planned.labCode,
          labCountryCode: planned.labCountryCode,
          itemIds: [...planned.itemIds],
          itemsCost: money(itemsCost),
          shippingCost: money(shipment.cost),
          totalCost: money(itemsCost + shipment.cost),
          ...estimateFields(planned.estimate),
        }
      }),
      totalCost: money(priced.totals.items + priced.totals.shipping),
      total: priced.totals.items + priced.totals.shipping,
    }
  }
  const chosen = result.ok ? planOf(result.shipments) : null
  const unsplit = explanation.bestUnsplit ? planOf([explanation.bestUnsplit]) : null
  const labOfItem = new Map(
    (result.ok ? result.shipments : []).flatMap((shipment) => shipment.itemIds.map((id) => [id, shipment.labCode])),
  )
  const withoutTotal = ({ total: _total, ...plan }: RoutingPlan & { total: bigint }): RoutingPlan => plan
  return {
    basis: context.basis,
    at: context.at.toISOString(),
    shippingMethod: context.shippingMethod,
    items: explanation.items.map((item) => {
      const copies = BigInt(context.copiesByItem.get(item.itemId) ?? 0)
      return {
        itemId: item.itemId,
        chosenLabCode: labOfItem.get(item.itemId) ?? null,
        labsConsidered: item.considered.map((lab) => ({
          labCode: lab.labCode,
          labCountryCode: lab.labCountryCode,
          // Like pricing: the unit cost is converted (and rounded) once, priced, then multiplied.
          productionCost: money(price.unit(item.itemId, convert(lab.unitCost.minor, lab.unitCost.currency)) * copies),
          shippingCost: money(price.shipping(convert(lab.shippingCost.minor, lab.shippingCost.currency))),
          ...estimateFields(lab.estimate),
        })),
        labsExcluded: item.excluded.map(({ labCode, reason, estimate }) => ({
          labCode,
          reason,
          ...estimateFields(estimate),
        })),
      }
    }),
    chosenPlan: chosen && withoutTotal(chosen),
    bestUnsplitPlan: unsplit && withoutTotal(unsplit),
    splitSaving: chosen && unsplit ? money(unsplit.total - chosen.total) : null,
    unavailableItemIds: result.ok ? [] : [...result.unavailableItemIds],
    ...deliverByFields(result, chosen, planOf),
    ...(catalogue.version === null ? {} : { catalogueVersion: catalogue.version }),
  }
}

/**
 * What one copy (`unit`) and a shipment's shipping cost the merchant, from their converted lab costs: the costs
 * themselves without a list, else as domain/pricing.ts prices the charges' lines.
 */
function labPrices(
  catalogue: Catalogue,
  currency: string,
  selling: SellingPrices | undefined,
): { unit(itemId: string, cost: bigint): bigint; shipping(cost: bigint): bigint } {
  const list = selling?.list
  if (!selling || !list) return { unit: (_itemId, cost) => cost, shipping: (cost) => cost }
  const context: PricingContext = {
    currency,
    baseCurrency: catalogue.baseCurrency,
    convert: (minor, from, to) => catalogue.convertMinorUnits(minor, from, to),
  }
  return {
    unit(itemId, cost) {
      const product = selling.productOfItem.get(itemId)
      if (!product) throw new RangeError(`no product given for item ${itemId}`)
      return catalogue.priceLists.productPrice(list, product, cost, context)
    },
    shipping: (cost) => catalogue.priceLists.shippingPrice(list, selling.shippingMethod, cost, context),
  }
}

/** A round with the items a lab gave back, keys in wire order (`catalogueVersion` last), in both its pricings. */
export function withReroutedItems(round: RoutingRound, reroutedItems: ReroutedItem[]): RoutingRound {
  return withRoundKeys(round, { reroutedItems })
}

/** A reprint's round, naming its claim (before `catalogueVersion`, the wire order), in both its pricings. */
export function withReprintClaim(round: RoutingRound, claimId: string): RoutingRound {
  return withRoundKeys(round, { claimId })
}

/** The round with `keys` added before `catalogueVersion` (the wire order), in its selling prices' round too. */
function withRoundKeys(round: RoutingRound, keys: Pick<RoutingRound, 'reroutedItems' | 'claimId'>): RoutingRound {
  const { catalogueVersion, sellingPrices, ...rest } = round
  return {
    ...rest,
    ...keys,
    ...(catalogueVersion === undefined ? {} : { catalogueVersion }),
    ...(sellingPrices ? { sellingPrices: { ...sellingPrices, round: withRoundKeys(sellingPrices.round, keys) } } : {}),
  }
}

/** The keys of an estimate as the routing shows it: none without one. */
function estimateFields(estimate: DeliveryEstimate | null | undefined): {
  estimatedDispatchDate?: string
  estimatedDelivery?: DeliveryWindow
} {
  if (!estimate) return {}
  return { estimatedDispatchDate: estimate.estimatedDispatchDate, estimatedDelivery: { ...estimate.estimatedDelivery } }
}

/** The round's `deliverBy` keys: none without a date; what meeting it cost, or the earliest date any plan reaches. */
function deliverByFields(
  result: AllocationResult,
  chosen: (RoutingPlan & { total: bigint }) | null,
  planOf: (shipments: readonly PlannedShipment[]) => RoutingPlan & { total: bigint },
): Pick<RoutingRound, 'deliverBy' | 'deliverByMet' | 'deliverByCost' | 'earliestDeliveryDate'> {
  const outcome = result.deliverBy
  if (!outcome) return {}
  if (!outcome.met || !chosen) {
    return {
      deliverBy: outcome.date,
      deliverByMet: false,
      earliestDeliveryDate: outcome.met ? null : outcome.earliestDeliveryDate,
    }
  }
  const cheapest = planOf(outcome.cheapestWithoutDate)
  const currency = chosen.totalCost.currency
  return {
    deliverBy: outcome.date,
    deliverByMet: true,
    deliverByCost: toWireMoney({ minor: chosen.total - cheapest.total, currency }),
  }
}
