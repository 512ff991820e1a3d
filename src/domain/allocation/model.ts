// What allocation takes and gives (allocation.ts): the request and its items, the reasons a lab is excluded, the
// planned shipments, the result and its explanation. Types and the rejection reasons only: no computation.
import type { CatalogueMoney, PrintFileFormat, Variant } from '../catalogue.types.ts'
import type { DeliveryEstimate } from '../delivery-promise.ts'
import type { ShippingMethod } from '../shipping-methods.ts'

export interface AllocationItem {
  /** Unique within the request: an order item id (`ori_12`) or a quote item id. */
  itemId: string
  variant: Variant
  copies: number
  /** Books: the production cost depends on the page count (`catalogue.costPerCopy`); null for other products. */
  pageCount: number | null
}

export interface AllocationRequest {
  destinationCountryCode: string
  shippingMethod: ShippingMethod
  items: readonly AllocationItem[]
  /** Labs that must not be used for particular items (a lab reported the item out of stock or rejected it). */
  excludedLabsByItem?: Readonly<Record<string, readonly string[]>>
  /**
   * Why a lab of `excludedLabsByItem` is excluded (item id -> lab code -> reason), for the explanation; a lab
   * excluded without a reason here counts as `Rejected`.
   */
  exclusionReasons?: Readonly<Record<string, Readonly<Record<string, ExclusionByRequest>>>>
  /**
   * Labs that take no new work now, for every item (lab code -> why): the operator paused the lab, or it has had
   * its jobs for the day (domain/lab-availability.ts). An exclusion of the order's history names its own reason.
   */
  unavailableLabs?: Readonly<Record<string, LabUnavailability>>
  /** When the work reaches the labs, and the date it must arrive by: every shipment then carries its estimate. */
  promise?: DeliveryPromiseContext
}

/** What delivery estimates are computed from (domain/delivery-promise.ts). */
export interface DeliveryPromiseContext {
  /** The moment the labs are taken to receive the work. */
  received: Date
  /** "YYYY-MM-DD": use only labs whose estimate for an item arrives by this date, when some plan can. */
  deliverBy?: string
}

/** Why a lab was not a candidate for an item (docs/allocation.md#explanation). */
export type LabExclusionReason = 'DoesNotMakeProduct' | 'DoesNotShipThere' | ExclusionByRequest | ExclusionByPromise

/**
 * Why a `deliverBy` date excludes a lab for an item: the catalogue gives no estimate for it (the lab has no calendar
 * or its rate no transit days), or its estimate arrives after the date.
 */
export type ExclusionByPromise = 'NoDeliveryEstimate' | 'TooLate'

/**
 * Exclusions an order's history causes: a lab refused a shipment of the item, or gave the item back saying why: out of
 * stock, a defect in its file, or it cannot make it (docs/allocation.md#re-routed-items).
 */
export type ExclusionByHistory = 'Rejected' | ItemRejectionReason

/** Why a lab gives one item of a shipment back (POST /labs/v1/jobs/{id}/reject with `items`). */
export type ItemRejectionReason = 'OutOfStock' | 'FileDefect' | 'CannotProduce'

export const ITEM_REJECTION_REASONS = [
  'OutOfStock',
  'FileDefect',
  'CannotProduce',
] as const satisfies readonly ItemRejectionReason[]

/**
 * Why a request excludes a lab: the order's history, its Sandbox scenario (`SandboxScenario`: the scenario kept
 * the lab from the item to split the order; the scenario outOfStock says `OutOfStock` for every lab), or a claim
 * (`AtFaultForClaim`: a reprint is made without the lab whose work the claim's category blames,
 * docs/claims.md#reprints).
 */
export type ExclusionByRequest = ExclusionByHistory | 'SandboxScenario' | 'AtFaultForClaim' | LabUnavailability

/**
 * Why a lab takes no new work at the moment of the allocation: the operator paused it (`LabPaused`), the jobs it
 * was given today reached its capacity (`AtCapacity`, docs/allocation.md#lab-availability), or its upheld claims per
 * 1,000 items shipped are above the catalogue's threshold (`QualityBelowThreshold`, docs/allocation.md#lab-quality).
 */
export type LabUnavailability = 'LabPaused' | 'AtCapacity' | 'QualityBelowThreshold'

/** A lab that could make an item and ship it to the destination by the method, with its costs for the item. */
export interface ConsideredLab {
  labCode: string
  labCountryCode: string
  /** Production cost of one copy (`catalogue.costPerCopy`), in the lab's currency. */
  unitCost: CatalogueMoney
  /** `catalogue.shipmentCost` of the item's copies shipped on their own from this lab, in the lab's currency. */
  shippingCost: CatalogueMoney
  /** With a promise context: the item's estimate from this lab (null when the catalogue gives none). */
  estimate?: DeliveryEstimate | null
}

export interface ExcludedLab {
  labCode: string
  reason: LabExclusionReason
  /** On `TooLate`: the estimate that arrives after the date. */
  estimate?: DeliveryEstimate
}

export interface ItemExplanation {
  itemId: string
  /** Sorted by lab code. */
  considered: ConsideredLab[]
  /** Every other lab of the catalogue, sorted by lab code, with the first reason that rules it out. */
  excluded: ExcludedLab[]
}

/** How the allocation was reached: the same problem the search solved, seen item by item and lab by lab. */
export interface AllocationExplanation {
  /** In request order. */
  items: ItemExplanation[]
  /**
   * The cheapest allocation that sends every item from one lab (ties: the earlier lab code), priced like any
   * shipment; null when no single lab can make and ship every item.
   */
  bestUnsplit: PlannedShipment | null
}

export interface PlannedShipmentItem {
  itemId: string
  /** Production cost of one copy, in the lab's currency. */
  unitCost: CatalogueMoney
  printFileFormat: PrintFileFormat
}

export interface PlannedShipment {
  labCode: string
  labCountryCode: string
  carrier: { name: string; service: string }
  tracked: boolean
  /** In request order. */
  itemIds: string[]
  /** In request order. */
  items: PlannedShipmentItem[]
  /** Sum of unit cost x copies, in the lab's currency. */
  productionCost: CatalogueMoney
  /** `catalogue.shipmentCost` of the shipment's units, in the lab's currency. */
  shippingCost: CatalogueMoney
  /** productionCost + shippingCost converted to the catalogue's base currency (rounded once, half-up). */
  costInBaseCurrency: CatalogueMoney
  /**
   * With a promise context: the lab's estimate for the shipment (its calendar, its rate's transit days and the
   * largest production days of its items); null when the catalogue lacks any of them.
   */
  estimate?: DeliveryEstimate | null
}

/** What became of a request's `deliverBy` date. */
export type DeliverByOutcome =
  | {
      date: string
      /** Every shipment arrives by the date: the plan is the cheapest that does. */
      met: true
      /** The cheapest plan without the date (the same shipments when it already met it), for what the date cost. */
      cheapestWithoutDate: PlannedShipment[]
    }
  | {
      date: string
      /** No plan arrives by the date: the plan is the cheapest without it. */
      met: false
      /** The earliest date any plan reaches; null when some item has no lab with an estimate. */
      earliestDeliveryDate: string | null
    }

/** `exact`: the proven minimum; `heuristic`: the local-search result for orders above EXACT_ALLOCATION_MAX_ITEMS. */
export type AllocationMethod = 'exact' | 'heuristic'

export type AllocationResult =
  | {
      ok: true
      method: AllocationMethod
      /** Sorted by lab code; one per lab used. */
      shipments: PlannedShipment[]
      /** Sum of the shipments' `costInBaseCurrency`. */
      totalCostInBaseCurrency: CatalogueMoney
      /** With `{explain: true}`. */
      explanation?: AllocationExplanation
      /** When the request had a `deliverBy` date. */
      deliverBy?: DeliverByOutcome
    }
  | {
      ok: false
      /** In request order: items that no allowed lab makes and ships to the destination by the method. */
      unavailableItemIds: string[]
      /** With `{explain: true}`. */
      explanation?: AllocationExplanation
      /** When the request had a `deliverBy` date: not met, and no earliest date (an item has no lab at all). */
      deliverBy?: DeliverByOutcome & { met: false }
    }

export interface AllocationOptions {
  /**
   * Also explain the result (`explanation`): every lab per item, considered with its costs or excluded with the
   * reason, and the best allocation from a single lab. Costs labs x items more work, no search.
   */
  explain?: boolean
}
