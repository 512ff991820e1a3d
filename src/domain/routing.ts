// Routing explanations (docs/api.md#routing): an allocation's explanation (domain/allocation.ts) in the money of
// the order or quote, as GET /orders/{id}/routing and GET /quotes/{id}/routing show it. Plans are priced by the
// pricing behind charges and quotes (domain/pricing.ts), so a chosen plan's total is what the order's items and
// shipping cost before tax. Stored as it is made (in the order's pipeline state, in the quote's row): an
// explanation shows the catalogue of the moment it was made.
import type { AllocationResult, LabExclusionReason, PlannedShipment } from './allocation.ts'
import type { Catalogue } from './catalogue.ts'
import { toWireMoney, type WireMoney } from './money.ts'
import { priceAllocation } from './pricing.ts'
import type { ShippingMethod } from './shipping-methods.ts'

/** A lab that could make the item and ship it, with what the item alone would cost from it. */
export interface RoutingLab {
  labCode: string
  labCountryCode: string
  /** Unit cost x copies. */
  productionCost: WireMoney
  /** The item's copies shipped on their own from this lab. */
  shippingCost: WireMoney
}

export interface RoutingItem {
  itemId: string
  /** The lab of the chosen plan; null when no lab can take the item. */
  chosenLabCode: string | null
  labsConsidered: RoutingLab[]
  labsExcluded: { labCode: string; reason: LabExclusionReason }[]
}

export interface RoutingShipment {
  labCode: string
  labCountryCode: string
  itemIds: string[]
  itemsCost: WireMoney
  shippingCost: WireMoney
  /** itemsCost + shippingCost (before tax). */
  totalCost: WireMoney
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
}

/** The routing of one allocation (made with `{explain: true}`), priced in `context.currency`. */
export function routingRound(catalogue: Catalogue, result: AllocationResult, context: RoutingContext): RoutingRound {
  const { explanation } = result
  if (!explanation) throw new Error('routingRound needs an allocation made with {explain: true}')
  const currency = context.currency.toUpperCase()
  const money = (minor: bigint) => toWireMoney({ minor, currency })
  const convert = (minor: bigint, from: string) => catalogue.convertMinorUnits(minor, from, currency)
  const planOf = (shipments: readonly PlannedShipment[]): RoutingPlan & { total: bigint } => {
    const priced = priceAllocation(catalogue, shipments, context.copiesByItem, context.destinationCountryCode, currency)
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
          // Like pricing: the unit cost is converted (and rounded) once, then multiplied.
          productionCost: money(convert(lab.unitCost.minor, lab.unitCost.currency) * copies),
          shippingCost: money(convert(lab.shippingCost.minor, lab.shippingCost.currency)),
        })),
        labsExcluded: item.excluded.map((excluded) => ({ ...excluded })),
      }
    }),
    chosenPlan: chosen && withoutTotal(chosen),
    bestUnsplitPlan: unsplit && withoutTotal(unsplit),
    splitSaving: chosen && unsplit ? money(unsplit.total - chosen.total) : null,
    unavailableItemIds: result.ok ? [] : [...result.unavailableItemIds],
  }
}
