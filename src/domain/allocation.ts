// Lab allocation (the "allocate labs" step of the order flow in docs/pipeline.md): for every item of an
// order or quote, pick a lab that makes the item's variant and ships to the destination by the order's method, so
// that the whole order costs as little as possible. All items one lab makes travel together as one shipment, so an
// order may be split across labs. Pure and deterministic: no I/O, no clock, no randomness.
//
// Cost of a shipment, in its lab's currency: the production cost of every copy (`catalogue.costPerCopy`) plus
// `catalogue.shipmentCost(rate, units)` (the largest shipping class pays `perShipment` once, every other copy pays
// `perAdditionalItem` of its own class). Labs charge in different currencies, so each shipment's cost is converted
// once to the catalogue's base currency (`convertMinorUnits`, exact, half-up to whole minor units) and the order's
// cost is the sum of those: that sum is what is minimised and reported as `totalCostInBaseCurrency`.
// Among equally cheap allocations the one with fewer shipments wins, then the one whose items, in request order,
// go to labs earlier in code order (compare the first item whose lab differs).
//
// Orders of up to EXACT_ALLOCATION_MAX_ITEMS items get the proven optimum (a dynamic programme over labs and subsets
// of items); larger ones a deterministic local search. docs/allocation.md explains both, with measured times.
//
// The delivery promise (docs/allocation.md#delivery-dates): with a promise context every planned shipment carries
// its estimate (domain/delivery-promise.ts), and a `deliverBy` date keeps out every (item, lab) pair whose own
// estimate is unknown (NoDeliveryEstimate) or arrives after the date (TooLate). That is exactly the set of plans
// that meet the date: a shipment's estimate is `estimateDelivery` of its lab's calendar and rate with the largest
// production days of its items, and the estimate grows with the production days, so a shipment's dates are the
// latest of its items' own dates from that lab, and a shipment arrives by the date if and only if each of its items
// would on its own. Every plan built from the remaining pairs therefore meets the date, every plan that meets it is
// built from them, and the search's cheapest plan over them is the cheapest plan that meets the date. When no plan
// can (some item has no pair left), the cheapest plan without the date is returned, saying so, with the earliest
// date any plan reaches: the latest over the items of each item's earliest `to` (each item can take its own
// earliest lab, and a shipment is as late as its latest item).

import type { Catalogue } from './catalogue.ts'
import type {
  CatalogueMoney,
  Lab,
  LabOffer,
  PrintFileFormat,
  Product,
  ShippingRate,
  Variant,
} from './catalogue.types.ts'
import { type DeliveryEstimate, deliveryWindow, estimateDispatchDate } from './delivery-promise.ts'
import type { ShippingMethod } from './shipping-methods.ts'

/**
 * Orders with at most this many items get the exact optimum. The exact search does about labs x 3^items steps:
 * 12 items from 10 labs that all make everything is 5.3 million steps, measured in allocation.test.ts and
 * docs/allocation.md; every further item triples it.
 */
export const EXACT_ALLOCATION_MAX_ITEMS = 12

/** Improvement rounds after which the heuristic stops even if a move still helps; every round strictly improves. */
const HEURISTIC_MAX_ROUNDS = 1_000

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
 * Why a request excludes a lab: the order's history, or its Sandbox scenario (`SandboxScenario`: the scenario kept
 * the lab from the item to split the order; the scenario outOfStock says `OutOfStock` for every lab).
 */
export type ExclusionByRequest = ExclusionByHistory | 'SandboxScenario' | LabUnavailability
/**
 * Why a lab takes no new work at the moment of the allocation: the operator paused it (`LabPaused`), or the jobs it
 * was given today reached its capacity (`AtCapacity`, docs/allocation.md#lab-availability).
 */
export type LabUnavailability = 'LabPaused' | 'AtCapacity'

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

/**
 * Allocates every item to a lab at the lowest total cost: exact up to EXACT_ALLOCATION_MAX_ITEMS items, the
 * heuristic beyond. Throws RangeError for a malformed request (repeated itemId, copies not a positive integer, a
 * variant of another catalogue).
 */
export function allocateShipments(
  catalogue: Catalogue,
  request: AllocationRequest,
  options: AllocationOptions = {},
): AllocationResult {
  return allocateWith(catalogue, request, options, (problem) =>
    problem.items.length <= EXACT_ALLOCATION_MAX_ITEMS
      ? { search: allocateExactly(problem), method: 'exact' }
      : { search: allocateByLocalSearch(problem), method: 'heuristic' },
  )
}

/**
 * The heuristic `allocateShipments` uses above EXACT_ALLOCATION_MAX_ITEMS items, for any order size: never cheaper
 * than the exact optimum, usually equal. Exported so tests (and benchmarks) can compare the two.
 */
export function allocateShipmentsHeuristically(
  catalogue: Catalogue,
  request: AllocationRequest,
  options: AllocationOptions = {},
): AllocationResult {
  return allocateWith(catalogue, request, options, (problem) => ({
    search: allocateByLocalSearch(problem),
    method: 'heuristic',
  }))
}

type Search = (problem: AllocationProblem) => { search: SearchResult; method: AllocationMethod }

/** The allocation by `search`, with the `deliverBy` date applied as the opening comment explains. */
function allocateWith(
  catalogue: Catalogue,
  request: AllocationRequest,
  options: AllocationOptions,
  search: Search,
): AllocationResult {
  const estimates = request.promise ? new PairEstimates(request.promise.received) : undefined
  const deliverBy = request.promise?.deliverBy
  const prepared = prepareProblem(catalogue, request, estimates)
  if (!('problem' in prepared)) {
    const failed = unavailable(catalogue, request, prepared.unavailableItemIds, options, estimates)
    return deliverBy === undefined
      ? failed
      : { ...failed, deliverBy: { date: deliverBy, met: false, earliestDeliveryDate: null } }
  }
  const solve = (problem: AllocationProblem) => {
    const { search: found, method } = search(problem)
    return buildResult(request, problem, found, method, options)
  }
  const cheapest = solve(prepared.problem)
  if (deliverBy === undefined) return cheapest
  const earliest = prepared.earliestDeliveryDate ?? null
  if (earliest === null || earliest > deliverBy) {
    return { ...cheapest, deliverBy: { date: deliverBy, met: false, earliestDeliveryDate: earliest } }
  }
  const meeting = prepareProblem(catalogue, request, estimates, deliverBy)
  if (!('problem' in meeting)) throw new Error('allocation: an item lost every lab that meets the date')
  const chosen = solve(meeting.problem)
  return { ...chosen, deliverBy: { date: deliverBy, met: true, cheapestWithoutDate: cheapest.shipments } }
}

/**
 * Dispatch dates by lab and production days for the last `received` moment asked about: the dispatch date is the
 * costly part of an estimate (the lab's time zone, a walk over its calendar), and the allocations of one request (a
 * quote's methods, a routing estimate) share their moment. A memo, so allocation stays a function of its arguments.
 */
let dispatchMemo: { received: number; byLab: WeakMap<Lab, Map<number, string>> } | undefined

function dispatchDatesAt(received: Date): WeakMap<Lab, Map<number, string>> {
  if (dispatchMemo?.received !== received.getTime()) {
    dispatchMemo = { received: received.getTime(), byLab: new WeakMap() }
  }
  return dispatchMemo.byLab
}

/**
 * The estimates of one allocation, each computed once: every item a lab makes with the same production days goes
 * out by the same rate on the same dates. The same as `estimateDelivery`, in two steps that are each kept.
 */
class PairEstimates {
  readonly #received: Date
  readonly #dispatchDates: WeakMap<Lab, Map<number, string>>
  readonly #known = new Map<string, DeliveryEstimate>()

  constructor(received: Date) {
    this.#received = received
    this.#dispatchDates = dispatchDatesAt(received)
  }

  of(lab: Lab, productionDays: number | null, rate: ShippingRate): DeliveryEstimate | null {
    const transit = rate.transitDays
    if (!lab.calendar || productionDays === null || !transit) return null
    let byDays = this.#dispatchDates.get(lab)
    if (!byDays) {
      byDays = new Map()
      this.#dispatchDates.set(lab, byDays)
    }
    let dispatch = byDays.get(productionDays)
    if (dispatch === undefined) {
      dispatch = estimateDispatchDate(lab.calendar, productionDays, this.#received)
      byDays.set(productionDays, dispatch)
    }
    const key = `${dispatch} ${transit.min} ${transit.max}`
    let estimate = this.#known.get(key)
    if (!estimate) {
      estimate = { estimatedDispatchDate: dispatch, estimatedDelivery: deliveryWindow(dispatch, transit) }
      this.#known.set(key, estimate)
    }
    return estimate
  }
}

/** Whether an estimate arrives by `deliverBy`: an unknown one never does. */
function arrivesBy(estimate: DeliveryEstimate | null, deliverBy: string): boolean {
  return estimate !== null && estimate.estimatedDelivery.to <= deliverBy
}

function unavailable(
  catalogue: Catalogue,
  request: AllocationRequest,
  unavailableItemIds: string[],
  options: AllocationOptions,
  estimates: PairEstimates | undefined,
): AllocationResult & { ok: false } {
  if (!options.explain) return { ok: false, unavailableItemIds }
  return {
    ok: false,
    unavailableItemIds,
    explanation: { items: explainItems(catalogue, request, estimates, undefined), bestUnsplit: null },
  }
}

// ---------------------------------------------------------------------------------------------------------
// The problem: items, candidate labs, and each lab's costs in a form both searches use
// ---------------------------------------------------------------------------------------------------------

interface ItemFacts {
  readonly item: AllocationItem
  readonly product: Product
  /** Index of the product's shipping class in `catalogue.shippingClasses` (larger = bigger parcel). */
  readonly classRank: number
}

interface LabFacts {
  readonly lab: Lab
  readonly rate: ShippingRate
  /** Per item (request order): the offer this lab makes it with, or undefined when it cannot be used for it. */
  readonly offers: readonly (LabOffer | undefined)[]
  /** Per item: production cost of one copy, lab minor units (undefined where `offers` is). */
  readonly unitCosts: readonly (bigint | undefined)[]
  /**
   * Per item: copies x (production cost + `perAdditionalItem` of the item's class). A shipment's cost is the sum of
   * its items' line costs plus the surcharge of its largest class: one copy of that class pays `perShipment`
   * instead of `perAdditionalItem` (the same sum `catalogue.shipmentCost` computes).
   */
  readonly lineCosts: readonly (bigint | undefined)[]
  /** Per shipping-class rank: `perShipment - perAdditionalItem`; set for the classes of the items it can make. */
  readonly largestClassSurcharges: readonly (bigint | undefined)[]
  /**
   * Units of the lab's currency per base unit, in millionths (catalogue-money.ts): base minor units are
   * round(minor x 1,000,000 / rate). The base's own rate is exactly 1 (the loader checks), so converting 1,000,000
   * base minor units to the lab's currency returns the rate itself.
   */
  readonly baseRateMillionths: bigint
}

interface AllocationProblem {
  readonly catalogue: Catalogue
  readonly items: readonly ItemFacts[]
  /** Labs that can serve at least one item, sorted by code: an index into this list is the lab's tie-break rank. */
  readonly labs: readonly LabFacts[]
  /** With a promise context. */
  readonly estimates: PairEstimates | undefined
  /** The `deliverBy` date the problem's pairs meet; undefined when no date was applied. */
  readonly deliverBy: string | undefined
}

/**
 * The items and their candidate labs: those that make the variant and ship it by the method, minus the labs the
 * request excludes and, with `deliverBy`, those whose estimate for the item does not arrive by then. With
 * `estimates`, also the earliest date any plan reaches (see the opening comment).
 */
function prepareProblem(
  catalogue: Catalogue,
  request: AllocationRequest,
  estimates: PairEstimates | undefined,
  deliverBy?: string,
): { problem: AllocationProblem; earliestDeliveryDate: string | null | undefined } | { unavailableItemIds: string[] } {
  const items: ItemFacts[] = []
  const optionsByLab = new Map<string, { lab: Lab; rate: ShippingRate; offers: Map<number, LabOffer> }>()
  const unavailableItemIds: string[] = []
  const seenIds = new Set<string>()
  // The latest over the items of each item's earliest `to`; null once an item has no estimate at all; '' (before
  // every date) while no item has been seen, so a request without items meets any date.
  let earliestDeliveryDate: string | null | undefined = estimates ? '' : undefined
  request.items.forEach((item, index) => {
    if (seenIds.has(item.itemId)) throw new RangeError(`allocation: itemId ${JSON.stringify(item.itemId)} repeated`)
    seenIds.add(item.itemId)
    if (!Number.isSafeInteger(item.copies) || item.copies < 1) {
      throw new RangeError(`allocation: item ${item.itemId} copies must be a positive integer, got ${item.copies}`)
    }
    const product = catalogue.findProduct(item.variant.sku)
    if (!product) {
      throw new RangeError(`allocation: item ${item.itemId} variant ${item.variant.key} is not in the catalogue`)
    }
    items.push({ item, product, classRank: catalogue.shippingClasses.indexOf(product.shippingClass) })

    const excluded = excludedLabCodes(request, item.itemId)
    let available = false
    let earliestOfItem: string | undefined
    for (const { offer, rate } of catalogue.labOptions(
      item.variant,
      request.destinationCountryCode,
      request.shippingMethod,
    )) {
      if (excluded.has(offer.lab.code.toLowerCase())) continue
      const estimate = estimates?.of(offer.lab, offer.productionDays, rate) ?? null
      if (deliverBy !== undefined && !arrivesBy(estimate, deliverBy)) continue
      if (estimate && (earliestOfItem === undefined || estimate.estimatedDelivery.to < earliestOfItem)) {
        earliestOfItem = estimate.estimatedDelivery.to
      }
      available = true
      const byLab = optionsByLab.get(offer.lab.code) ?? { lab: offer.lab, rate, offers: new Map<number, LabOffer>() }
      byLab.offers.set(index, offer)
      optionsByLab.set(offer.lab.code, byLab)
    }
    if (!available) unavailableItemIds.push(item.itemId)
    if (typeof earliestDeliveryDate === 'string') {
      earliestDeliveryDate =
        earliestOfItem === undefined
          ? null
          : earliestOfItem > earliestDeliveryDate
            ? earliestOfItem
            : earliestDeliveryDate
    }
  })
  if (unavailableItemIds.length > 0) return { unavailableItemIds }

  const labs = [...optionsByLab.values()]
    .sort((a, b) => compareCodes(a.lab.code, b.lab.code))
    .map(({ lab, rate, offers }): LabFacts => {
      const labOffers: (LabOffer | undefined)[] = []
      const unitCosts: (bigint | undefined)[] = []
      const lineCosts: (bigint | undefined)[] = []
      const largestClassSurcharges: (bigint | undefined)[] = []
      items.forEach(({ item, product, classRank }, index) => {
        const offer = offers.get(index)
        labOffers.push(offer)
        if (!offer) {
          unitCosts.push(undefined)
          lineCosts.push(undefined)
          return
        }
        const shipping = rate.costs[product.shippingClass]
        if (!shipping) {
          throw new RangeError(`allocation: lab ${lab.code} has no ${product.shippingClass} rate for ${rate.method}`)
        }
        const unitCost = catalogue.costPerCopy(product, offer, item.pageCount).minor
        unitCosts.push(unitCost)
        lineCosts.push(BigInt(item.copies) * (unitCost + shipping.perAdditionalItem.minor))
        largestClassSurcharges[classRank] = shipping.perShipment.minor - shipping.perAdditionalItem.minor
      })
      const baseRateMillionths = catalogue.convertMinorUnits(1_000_000n, catalogue.baseCurrency, lab.currency)
      return { lab, rate, offers: labOffers, unitCosts, lineCosts, largestClassSurcharges, baseRateMillionths }
    })
  return { problem: { catalogue, items, labs, estimates, deliverBy }, earliestDeliveryDate }
}

function excludedLabCodes(request: AllocationRequest, itemId: string): Set<string> {
  const unavailable = Object.keys(request.unavailableLabs ?? {}).map((code) => code.toLowerCase())
  const byItem = request.excludedLabsByItem
  // Object.hasOwn: an item id such as "constructor" must not pick up Object.prototype members.
  if (!byItem || !Object.hasOwn(byItem, itemId)) return new Set(unavailable)
  return new Set([...(byItem[itemId] ?? []).map((code) => code.toLowerCase()), ...unavailable])
}

/**
 * Why an excluded lab is excluded for an item: the reason the order's history gave (`Rejected` when it gave none),
 * else why the lab takes no new work.
 */
function exclusionReason(request: AllocationRequest, itemId: string, labCode: string): ExclusionByRequest {
  const byItem = request.excludedLabsByItem
  const byHistory =
    byItem && Object.hasOwn(byItem, itemId) && (byItem[itemId] ?? []).some((code) => code.toLowerCase() === labCode)
  const reasons = request.exclusionReasons?.[itemId]
  const given = reasons && Object.hasOwn(reasons, labCode) ? reasons[labCode] : undefined
  if (given !== undefined) return given
  const unavailable = request.unavailableLabs
  if (!byHistory && unavailable && Object.hasOwn(unavailable, labCode)) return unavailable[labCode] as LabUnavailability
  return 'Rejected'
}

/** Code-point order, the order `Variant.offers` uses. */
function compareCodes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Cost in base-currency minor units of a shipment from `labIndex` whose items' line costs sum to `lineTotal` and
 * whose largest shipping class has rank `largestClass` (-1: an empty shipment, which costs nothing).
 */
function shipmentCostInBase(
  problem: AllocationProblem,
  labIndex: number,
  lineTotal: bigint,
  largestClass: number,
): bigint {
  if (largestClass < 0) return 0n
  const lab = problem.labs[labIndex] as LabFacts
  const surcharge = lab.largestClassSurcharges[largestClass] ?? 0n
  return problem.catalogue.convertMinorUnits(lineTotal + surcharge, lab.lab.currency, problem.catalogue.baseCurrency)
}

// ---------------------------------------------------------------------------------------------------------
// Exact search: a dynamic programme over labs and subsets of items
// ---------------------------------------------------------------------------------------------------------
//
// best_k(U) = the cheapest way to ship the item set U using only the first k labs, each lab at most once:
//   best_k(U) = min( best_{k-1}(U), min over non-empty S within U that lab k can make: cost_k(S) + best_{k-1}(U \ S) )
// where cost_k(S) is the exact base-currency cost of lab k shipping S. The answer is best_L(all items). Because a
// lab's shipment cost depends on its whole item set (its largest class pays perShipment; its conversion rounds
// once), no per-item bound is involved: the recursion is exact for any rates, including odd ones where
// perAdditionalItem exceeds perShipment. Work: about labs x 3^items additions, independent of the prices.
//
// The search compares (cost, shipments, tie key) lexicographically. The tie key encodes the assignment: the lab's
// rank as the digit of each item, first item most significant, split into parts that stay exact float64 integers.
// That order is total and compatible with addition, so the recursion finds the unique minimum under it, whatever
// order labs and subsets are visited in.

/** An allocation found by a search: the lab (index into `problem.labs`) of each item, and its total cost. */
interface SearchResult {
  readonly labOfItem: readonly number[]
  /** Base-currency minor units, as the search computed it; buildResult checks the shipments add up to it. */
  readonly cost: bigint
}

function allocateExactly(problem: AllocationProblem): SearchResult {
  const itemCount = problem.items.length
  const tables = problem.labs.map((_, labIndex) => shipmentCostsBySubset(problem, labIndex))
  const tieKeys = lexicographicTieKeys(itemCount, problem.labs.length)
  // Any value the search forms is a sum of at most one table entry per lab, so it is at most `bound`. Up to 2^53
  // float64 holds integers exactly and is several times faster than bigint; above (an order worth more than about
  // 90 trillion in base units) the same search runs on bigint.
  const bound = tables.reduce((sum, table) => sum + table.max, 0n)
  const minimiseStage =
    bound <= BigInt(Number.MAX_SAFE_INTEGER)
      ? float64StageMinimiser(
          itemCount,
          tables.map(({ costs }) => (costs instanceof Float64Array ? costs : Float64Array.from(costs, Number))),
        )
      : bigintStageMinimiser(
          itemCount,
          tables.map(({ costs }) => (costs instanceof Float64Array ? Array.from(costs, BigInt) : costs)),
          bound + 1n,
        )
  const shipped = searchSubsets(
    itemCount,
    tables.map(({ mask }) => mask),
    minimiseStage,
    tieKeys,
  )
  const labOfItem = new Array<number>(itemCount).fill(-1)
  let cost = 0n
  shipped.forEach((subset, labIndex) => {
    if (subset === 0) return
    cost += BigInt((tables[labIndex] as SubsetCosts).costs[subset] ?? 0n)
    for (let item = 0; item < itemCount; item++) if (subset & (1 << item)) labOfItem[item] = labIndex
  })
  return { labOfItem, cost }
}

interface SubsetCosts {
  /** Bit i set: the lab can make item i. */
  readonly mask: number
  /** cost_k(S) in base minor units for every S within `mask` (other entries 0, never read). */
  readonly costs: Float64Array | bigint[]
  readonly max: bigint
}

/**
 * cost_k(S) for every subset S of the items lab k can make, built up one item at a time (line costs add up; the
 * largest class is a running maximum), then converted once. In float64 whenever every intermediate value of the
 * conversion stays below 2^53 (orders up to about 45 million in the lab's currency), else in bigint.
 */
function shipmentCostsBySubset(problem: AllocationProblem, labIndex: number): SubsetCosts {
  const lab = problem.labs[labIndex] as LabFacts
  const size = 2 ** problem.items.length
  const classRanks = problem.items.map(({ classRank }) => classRank)
  let mask = 0
  let lineBound = 0n
  lab.lineCosts.forEach((lineCost, item) => {
    if (lineCost === undefined) return
    mask |= 1 << item
    lineBound += lineCost
  })
  const surchargeBound = lab.largestClassSurcharges.reduce<bigint>(
    (bound, surcharge) => (surcharge !== undefined && surcharge > bound ? surcharge : bound),
    0n,
  )
  const largestClasses = new Int8Array(size).fill(-1)

  if (2_000_000n * (lineBound + surchargeBound) + 3n * lab.baseRateMillionths <= BigInt(Number.MAX_SAFE_INTEGER)) {
    const lineCosts = Array.from(lab.lineCosts, (lineCost) => Number(lineCost ?? 0n))
    const surcharges = Array.from(lab.largestClassSurcharges, (surcharge) => Number(surcharge ?? 0n))
    const rate = Number(lab.baseRateMillionths)
    const costs = new Float64Array(size)
    const lineTotals = new Float64Array(size)
    let max = 0
    // Subsets of `mask` in increasing order, so S without its lowest item is always done before S.
    for (let subset = -mask & mask; subset !== 0; subset = (subset - mask) & mask) {
      const lowest = subset & -subset
      const item = 31 - Math.clz32(lowest)
      const rest = subset ^ lowest
      const lineTotal = (lineTotals[rest] as number) + (lineCosts[item] as number)
      const largestClass = Math.max(largestClasses[rest] as number, classRanks[item] as number)
      lineTotals[subset] = lineTotal
      largestClasses[subset] = largestClass
      const cost = toBaseMinorUnits(lineTotal + (surcharges[largestClass] as number), rate)
      costs[subset] = cost
      if (cost > max) max = cost
    }
    return { mask, costs, max: BigInt(max) }
  }

  const costs = new Array<bigint>(size).fill(0n)
  const lineTotals = new Array<bigint>(size).fill(0n)
  let max = 0n
  for (let subset = -mask & mask; subset !== 0; subset = (subset - mask) & mask) {
    const lowest = subset & -subset
    const item = 31 - Math.clz32(lowest)
    const rest = subset ^ lowest
    const lineTotal = (lineTotals[rest] as bigint) + (lab.lineCosts[item] as bigint)
    const largestClass = Math.max(largestClasses[rest] as number, classRanks[item] as number)
    lineTotals[subset] = lineTotal
    largestClasses[subset] = largestClass
    const cost = shipmentCostInBase(problem, labIndex, lineTotal, largestClass)
    costs[subset] = cost
    if (cost > max) max = cost
  }
  return { mask, costs, max }
}

/**
 * `catalogue.convertMinorUnits(minor, labCurrency, base)` in float64: minor x 1,000,000 / rate, rounded half-up
 * (catalogue-money.ts), for 2,000,000 x minor + 3 x rate <= 2^53 - 1. Then numerator = q x denominator + r exactly,
 * and (q + 1) x denominator <= numerator + denominator < 2^53, so the quotient is at least 1/denominator below
 * q + 1 while half a float64 step there is under 1/denominator: the rounded division cannot reach q + 1, and
 * floor gives exactly q.
 */
function toBaseMinorUnits(minor: number, rateMillionths: number): number {
  return Math.floor((minor * 2_000_000 + rateMillionths) / (rateMillionths * 2))
}

/**
 * One stage of the recursion for lab `stage`: for every item set from `firstItems` up, the best subset for this
 * lab to ship (0: none) into `choice`, consulting `winsTie` on equal cost. Keeps best_k between stages.
 */
type StageMinimiser = (
  stage: number,
  mask: number,
  firstItems: number,
  choice: Int32Array,
  winsTie: (items: number, subset: number, current: number) => boolean,
) => void

// The two minimisers are the same loop over float64 and over bigint. One generic function for both sees both
// types once the bigint path has run and loses its fast float64 code (measured: 56 ms instead of 21 ms).

function float64StageMinimiser(itemCount: number, tables: readonly Float64Array[]): StageMinimiser {
  const size = 2 ** itemCount
  let best = new Float64Array(size).fill(Number.POSITIVE_INFINITY)
  best[0] = 0
  return (stage, mask, firstItems, choice, winsTie) => {
    const costs = tables[stage] as Float64Array
    const previous = best // a local, not the captured variable, in the hot loop
    const next = new Float64Array(size)
    for (let items = firstItems; items < size; items++) {
      let lowest = previous[items] as number
      let lowestSubset = 0
      const makeable = items & mask
      for (let subset = makeable; subset !== 0; subset = (subset - 1) & makeable) {
        const candidate = (costs[subset] as number) + (previous[items ^ subset] as number)
        if (candidate < lowest) {
          lowest = candidate
          lowestSubset = subset
        } else if (
          candidate === lowest &&
          lowest !== Number.POSITIVE_INFINITY &&
          winsTie(items, subset, lowestSubset)
        ) {
          lowestSubset = subset
        }
      }
      next[items] = lowest
      choice[items] = lowestSubset
    }
    best = next
  }
}

function bigintStageMinimiser(itemCount: number, tables: readonly bigint[][], infinity: bigint): StageMinimiser {
  const size = 2 ** itemCount
  let best = new Array<bigint>(size).fill(infinity)
  best[0] = 0n
  return (stage, mask, firstItems, choice, winsTie) => {
    const costs = tables[stage] as bigint[]
    const previous = best
    const next = new Array<bigint>(size).fill(infinity)
    for (let items = firstItems; items < size; items++) {
      let lowest = previous[items] as bigint
      let lowestSubset = 0
      const makeable = items & mask
      for (let subset = makeable; subset !== 0; subset = (subset - 1) & makeable) {
        const candidate = (costs[subset] as bigint) + (previous[items ^ subset] as bigint)
        if (candidate < lowest) {
          lowest = candidate
          lowestSubset = subset
        } else if (candidate === lowest && lowest < infinity && winsTie(items, subset, lowestSubset)) {
          lowestSubset = subset
        }
      }
      next[items] = lowest
      choice[items] = lowestSubset
    }
    best = next
  }
}

/**
 * Per part, per subset S: the sum of the place values (in base `labCount`) of S's items within that part, so a
 * lab with rank r shipping S adds r x table[S] to the part. Empty when there is only one lab (nothing to break).
 */
function lexicographicTieKeys(itemCount: number, labCount: number): Float64Array[] {
  if (labCount < 2) return []
  let digitsPerPart = 0
  let placeValue = 1
  while (digitsPerPart < itemCount && placeValue * labCount <= 2 ** 53) {
    placeValue *= labCount
    digitsPerPart++
  }
  const size = 2 ** itemCount
  const tables: Float64Array[] = []
  for (let first = 0; first < itemCount; first += digitsPerPart) {
    // Place values within the part, first item most significant; powers by multiplication stay exact.
    const weights = new Float64Array(itemCount)
    let weight = 1
    for (let item = Math.min(first + digitsPerPart, itemCount) - 1; item >= first; item--) {
      weights[item] = weight
      weight *= labCount
    }
    const table = new Float64Array(size)
    for (let subset = 1; subset < size; subset++) {
      const lowest = subset & -subset
      table[subset] = (table[subset ^ lowest] as number) + (weights[31 - Math.clz32(lowest)] as number)
    }
    tables.push(table)
  }
  return tables
}

function searchSubsets(
  itemCount: number,
  masks: readonly number[],
  minimiseStage: StageMinimiser,
  tieKeys: readonly Float64Array[],
): number[] {
  const size = 2 ** itemCount
  const all = size - 1
  // Shipment count and tie key of best_k(U), for the tie-break.
  let shipments = new Uint8Array(size)
  let keys = tieKeys.map(() => new Float64Array(size))
  const choices: Int32Array[] = []

  for (let rank = 0; rank < masks.length; rank++) {
    /** Whether shipping `subset` from this lab beats `current` (0: not using it) for `items`, at equal cost. */
    const winsTie = (items: number, subset: number, current: number): boolean => {
      const count = (shipments[items ^ subset] as number) + 1
      const currentCount = current === 0 ? (shipments[items] as number) : (shipments[items ^ current] as number) + 1
      if (count !== currentCount) return count < currentCount
      for (let part = 0; part < keys.length; part++) {
        const partKeys = keys[part] as Float64Array
        const partTieKeys = tieKeys[part] as Float64Array
        const key = (partKeys[items ^ subset] as number) + rank * (partTieKeys[subset] as number)
        const currentKey =
          current === 0
            ? (partKeys[items] as number)
            : (partKeys[items ^ current] as number) + rank * (partTieKeys[current] as number)
        if (key !== currentKey) return key < currentKey
      }
      return false
    }
    const last = rank === masks.length - 1
    const choice = new Int32Array(size)
    // The last lab only has to complete the whole order.
    minimiseStage(rank, masks[rank] as number, last ? all : 0, choice, winsTie)
    choices.push(choice)
    if (last) break

    const nextShipments = new Uint8Array(size)
    const nextKeys = keys.map(() => new Float64Array(size))
    for (let items = 0; items < size; items++) {
      const subset = choice[items] as number
      const rest = items ^ subset
      nextShipments[items] = subset === 0 ? (shipments[items] as number) : (shipments[rest] as number) + 1
      for (let part = 0; part < keys.length; part++) {
        const partKeys = keys[part] as Float64Array
        ;(nextKeys[part] as Float64Array)[items] =
          subset === 0
            ? (partKeys[items] as number)
            : (partKeys[rest] as number) + rank * ((tieKeys[part] as Float64Array)[subset] as number)
      }
    }
    shipments = nextShipments
    keys = nextKeys
  }

  // Walk back from the whole order: what the last lab shipped, then what the one before shipped of the rest, ...
  const shipped = new Array<number>(masks.length).fill(0)
  let remaining = all
  for (let rank = choices.length - 1; rank >= 0; rank--) {
    const subset = (choices[rank] as Int32Array)[remaining] as number
    shipped[rank] = subset
    remaining ^= subset
  }
  // Every item has a candidate lab (checked before), so the whole order is always reachable.
  if (remaining !== 0) throw new Error('allocation: exact search left items unassigned')
  return shipped
}

// ---------------------------------------------------------------------------------------------------------
// Heuristic: two starting allocations, each improved by local search until no move helps
// ---------------------------------------------------------------------------------------------------------

/** An allocation being improved: which lab each item goes to, with every lab's shipment kept up to date. */
class AllocationState {
  readonly problem: AllocationProblem
  /** Lab index (rank) per item; -1 while unassigned. */
  readonly labOf: Int32Array
  totalCost = 0n
  shipmentCount = 0
  readonly #lineTotals: bigint[]
  /** Per lab, per class rank: how many of its items have that class. */
  readonly #classCounts: Int32Array[]
  readonly #itemCounts: Int32Array
  readonly #costs: bigint[]

  constructor(problem: AllocationProblem) {
    this.problem = problem
    const labCount = problem.labs.length
    this.labOf = new Int32Array(problem.items.length).fill(-1)
    this.#lineTotals = new Array<bigint>(labCount).fill(0n)
    this.#classCounts = problem.labs.map(() => new Int32Array(problem.catalogue.shippingClasses.length))
    this.#itemCounts = new Int32Array(labCount)
    this.#costs = new Array<bigint>(labCount).fill(0n)
  }

  canMake(lab: number, item: number): boolean {
    return (this.problem.labs[lab] as LabFacts).lineCosts[item] !== undefined
  }

  itemCount(lab: number): number {
    return this.#itemCounts[lab] as number
  }

  /** What the lab's shipment would cost (base minor units) with `item` added. */
  costWith(lab: number, item: number): bigint {
    const lineTotal = (this.#lineTotals[lab] as bigint) + this.#lineCost(lab, item)
    const largest = Math.max(this.#largestClass(lab, -1), (this.problem.items[item] as ItemFacts).classRank)
    return shipmentCostInBase(this.problem, lab, lineTotal, largest)
  }

  /** What the shipment of the lab `item` is assigned to would cost without it. */
  costWithout(item: number): bigint {
    const lab = this.labOf[item] as number
    const lineTotal = (this.#lineTotals[lab] as bigint) - this.#lineCost(lab, item)
    const largest = this.#largestClass(lab, (this.problem.items[item] as ItemFacts).classRank)
    return shipmentCostInBase(this.problem, lab, lineTotal, largest)
  }

  cost(lab: number): bigint {
    return this.#costs[lab] as bigint
  }

  /** Moves `item` to `lab` (or assigns it, when unassigned). */
  move(item: number, lab: number): void {
    const from = this.labOf[item] as number
    if (from === lab) return
    const classRank = (this.problem.items[item] as ItemFacts).classRank
    if (from >= 0) {
      this.#setCost(from, this.costWithout(item))
      this.#lineTotals[from] = (this.#lineTotals[from] as bigint) - this.#lineCost(from, item)
      this.#count(from, classRank, -1)
    }
    this.#setCost(lab, this.costWith(lab, item))
    this.#lineTotals[lab] = (this.#lineTotals[lab] as bigint) + this.#lineCost(lab, item)
    this.#count(lab, classRank, 1)
    this.labOf[item] = lab
  }

  #lineCost(lab: number, item: number): bigint {
    const lineCost = (this.problem.labs[lab] as LabFacts).lineCosts[item]
    if (lineCost === undefined) throw new Error(`allocation: lab ${lab} cannot make item ${item}`)
    return lineCost
  }

  /** Adds `change` (1 or -1) items of class `classRank` to the lab, keeping the shipment count right. */
  #count(lab: number, classRank: number, change: number): void {
    const counts = this.#classCounts[lab] as Int32Array
    counts[classRank] = (counts[classRank] as number) + change
    const before = this.#itemCounts[lab] as number
    this.#itemCounts[lab] = before + change
    if (before === 0) this.shipmentCount++
    else if (before + change === 0) this.shipmentCount--
  }

  #setCost(lab: number, cost: bigint): void {
    this.totalCost += cost - (this.#costs[lab] as bigint)
    this.#costs[lab] = cost
  }

  /** Rank of the lab's largest class, counting one item fewer of class `removed` (-1: none removed). */
  #largestClass(lab: number, removed: number): number {
    const counts = this.#classCounts[lab] as Int32Array
    for (let classRank = counts.length - 1; classRank >= 0; classRank--) {
      if ((counts[classRank] as number) - (classRank === removed ? 1 : 0) > 0) return classRank
    }
    return -1
  }
}

/** A snapshot of an allocation's objective: total cost, then shipment count, then the labs in item order. */
interface Objective {
  readonly totalCost: bigint
  readonly shipmentCount: number
  readonly labOf: Int32Array
}

function compareObjectives(a: Objective, b: Objective): number {
  if (a.totalCost !== b.totalCost) return a.totalCost < b.totalCost ? -1 : 1
  if (a.shipmentCount !== b.shipmentCount) return a.shipmentCount - b.shipmentCount
  for (let item = 0; item < a.labOf.length; item++) {
    const difference = (a.labOf[item] as number) - (b.labOf[item] as number)
    if (difference !== 0) return difference
  }
  return 0
}

function snapshot(state: AllocationState): Objective {
  return { totalCost: state.totalCost, shipmentCount: state.shipmentCount, labOf: state.labOf.slice() }
}

function allocateByLocalSearch(problem: AllocationProblem): SearchResult {
  let best: Objective | undefined
  for (const start of [greedyStart(problem), fewestLabsStart(problem)]) {
    improveLocally(start)
    const result = snapshot(start)
    if (!best || compareObjectives(result, best) < 0) best = result
  }
  const { labOf, totalCost } = best as Objective
  return { labOfItem: [...labOf], cost: totalCost }
}

/**
 * Start 1: items from the largest shipping class down (request order within a class), each to the lab where it
 * adds least to the total (ties: a lab already shipping, then the lower code).
 */
function greedyStart(problem: AllocationProblem): AllocationState {
  const state = new AllocationState(problem)
  const order = problem.items.map((_, item) => item)
  order.sort((a, b) => (problem.items[b] as ItemFacts).classRank - (problem.items[a] as ItemFacts).classRank || a - b)
  for (const item of order) state.move(item, cheapestLabFor(state, item, -1))
  return state
}

/**
 * Start 2: few shipments. Repeatedly take the lab that can make the most still-unassigned items (ties: lower code)
 * and give it all of them.
 */
function fewestLabsStart(problem: AllocationProblem): AllocationState {
  const state = new AllocationState(problem)
  let unassigned = problem.items.length
  while (unassigned > 0) {
    let bestLab = -1
    let bestCount = 0
    for (let lab = 0; lab < problem.labs.length; lab++) {
      let count = 0
      for (let item = 0; item < problem.items.length; item++) {
        if (state.labOf[item] === -1 && state.canMake(lab, item)) count++
      }
      if (count > bestCount) {
        bestLab = lab
        bestCount = count
      }
    }
    // Every item has a candidate lab (checked before), so some lab always takes at least one.
    if (bestCount === 0) throw new Error('allocation: an item has no lab')
    for (let item = 0; item < problem.items.length; item++) {
      if (state.labOf[item] === -1 && state.canMake(bestLab, item)) state.move(item, bestLab)
    }
    unassigned -= bestCount
  }
  return state
}

/** The lab (other than `excluded`) where `item` adds least; ties: a lab already shipping, then the lower code. */
function cheapestLabFor(state: AllocationState, item: number, excluded: number): number {
  let bestLab = -1
  let bestIncrease = 0n
  let bestOpensShipment = true
  for (let lab = 0; lab < state.problem.labs.length; lab++) {
    if (lab === excluded || lab === state.labOf[item] || !state.canMake(lab, item)) continue
    const increase = state.costWith(lab, item) - state.cost(lab)
    const opensShipment = state.itemCount(lab) === 0
    if (
      bestLab === -1 ||
      increase < bestIncrease ||
      (increase === bestIncrease && !opensShipment && bestOpensShipment)
    ) {
      bestLab = lab
      bestIncrease = increase
      bestOpensShipment = opensShipment
    }
  }
  return bestLab
}

/**
 * Variable-neighbourhood descent. Each round takes the best single-item move (one item to another lab); when none
 * improves the objective, the best compound move: empty a lab by sending each of its items where it adds least,
 * merge a lab's whole shipment into another lab, or gather into one lab every item it can make. A move is taken
 * only if it strictly improves (cost, shipments, labs in item order), so the descent ends; HEURISTIC_MAX_ROUNDS
 * bounds it anyway.
 */
function improveLocally(state: AllocationState): void {
  for (let round = 0; round < HEURISTIC_MAX_ROUNDS; round++) {
    if (applyBestItemMove(state)) continue
    if (!applyBestCompoundMove(state)) return
  }
}

function applyBestItemMove(state: AllocationState): boolean {
  const { problem } = state
  const current = snapshot(state)
  let bestItem = -1
  let bestLab = -1
  let bestCost = current.totalCost
  let bestShipments = current.shipmentCount
  for (let item = 0; item < problem.items.length; item++) {
    const from = state.labOf[item] as number
    const costWithout = state.costWithout(item)
    const emptiesLab = state.itemCount(from) === 1
    for (let lab = 0; lab < problem.labs.length; lab++) {
      if (lab === from || !state.canMake(lab, item)) continue
      const totalCost =
        current.totalCost + (costWithout - state.cost(from)) + (state.costWith(lab, item) - state.cost(lab))
      const shipmentCount = current.shipmentCount - (emptiesLab ? 1 : 0) + (state.itemCount(lab) === 0 ? 1 : 0)
      // Compare the allocation after this move with the best so far (initially: no move at all).
      let order = totalCost < bestCost ? -1 : totalCost > bestCost ? 1 : shipmentCount - bestShipments
      if (order === 0) order = compareSingleMoves(state, item, lab, bestItem, bestLab)
      if (order < 0) {
        bestItem = item
        bestLab = lab
        bestCost = totalCost
        bestShipments = shipmentCount
      }
    }
  }
  if (bestItem === -1) return false
  state.move(bestItem, bestLab)
  return true
}

/**
 * Lexicographic order of the lab-per-item vectors after moving `item` to `lab` versus after moving `otherItem` to
 * `otherLab` (otherItem -1: no move). Each differs from the current vector in one place only.
 */
function compareSingleMoves(
  state: AllocationState,
  item: number,
  lab: number,
  otherItem: number,
  otherLab: number,
): number {
  if (otherItem === item) return lab - otherLab
  if (otherItem === -1 || item < otherItem) return lab - (state.labOf[item] as number)
  return (state.labOf[otherItem] as number) - otherLab
}

function applyBestCompoundMove(state: AllocationState): boolean {
  const { problem } = state
  const labCount = problem.labs.length
  const itemCount = problem.items.length
  let best = snapshot(state)
  let improved = false

  /** Applies a move, keeps its result if it beats the best so far, and restores the state. */
  const tryMove = (apply: () => void): void => {
    const before = state.labOf.slice()
    apply()
    const result = snapshot(state)
    if (compareObjectives(result, best) < 0) {
      best = result
      improved = true
    }
    before.forEach((lab, item) => {
      state.move(item, lab)
    })
  }

  for (let from = 0; from < labCount; from++) {
    const itemsOfLab: number[] = []
    for (let item = 0; item < itemCount; item++) if (state.labOf[item] === from) itemsOfLab.push(item)
    if (itemsOfLab.length === 0) continue
    // Empty `from`, each item going where it adds least.
    if (itemsOfLab.every((item) => problem.labs.some((_, lab) => lab !== from && state.canMake(lab, item)))) {
      tryMove(() => {
        for (const item of itemsOfLab) state.move(item, cheapestLabFor(state, item, from))
      })
    }
    // Merge `from` into another lab that makes all of its items.
    for (let into = 0; into < labCount; into++) {
      if (into === from || state.itemCount(into) === 0) continue
      if (!itemsOfLab.every((item) => state.canMake(into, item))) continue
      tryMove(() => {
        for (const item of itemsOfLab) state.move(item, into)
      })
    }
  }
  // Gather into one lab everything it can make.
  for (let into = 0; into < labCount; into++) {
    tryMove(() => {
      for (let item = 0; item < itemCount; item++) if (state.canMake(into, item)) state.move(item, into)
    })
  }

  if (!improved) return false
  best.labOf.forEach((lab, item) => {
    state.move(item, lab)
  })
  return true
}

// ---------------------------------------------------------------------------------------------------------
// The result
// ---------------------------------------------------------------------------------------------------------

function buildResult(
  request: AllocationRequest,
  problem: AllocationProblem,
  search: SearchResult,
  method: AllocationMethod,
  options: AllocationOptions,
): AllocationResult & { ok: true } {
  const { shipments, total } = plannedShipments(problem, search)
  const result: AllocationResult & { ok: true } = {
    ok: true,
    method,
    shipments,
    totalCostInBaseCurrency: { minor: total, currency: problem.catalogue.baseCurrency },
  }
  if (!options.explain) return result
  const items = explainItems(problem.catalogue, request, problem.estimates, problem.deliverBy)
  return { ...result, explanation: { items, bestUnsplit: bestUnsplitShipment(problem) } }
}

/** The shipments of a search's assignment, priced with the catalogue's own functions. */
function plannedShipments(
  problem: AllocationProblem,
  { labOfItem, cost }: SearchResult,
): { shipments: PlannedShipment[]; total: bigint } {
  const { catalogue } = problem
  const shipments: PlannedShipment[] = []
  let total = 0n
  problem.labs.forEach(({ lab, rate, offers, unitCosts }, labIndex) => {
    const indexes = problem.items.map((_, item) => item).filter((item) => labOfItem[item] === labIndex)
    if (indexes.length === 0) return
    let production = 0n
    const items: PlannedShipmentItem[] = []
    const units: { shippingClass: string; copies: number }[] = []
    // The shipment is made when its slowest item is: the largest production days, unknown if any is.
    let productionDays: number | null = 0
    for (const index of indexes) {
      const { item, product } = problem.items[index] as ItemFacts
      const offer = offers[index] as LabOffer
      const unitCost = unitCosts[index] as bigint
      production += unitCost * BigInt(item.copies)
      items.push({
        itemId: item.itemId,
        unitCost: { minor: unitCost, currency: lab.currency },
        printFileFormat: offer.printFileFormat,
      })
      units.push({ shippingClass: product.shippingClass, copies: item.copies })
      productionDays =
        productionDays === null || offer.productionDays === null ? null : Math.max(productionDays, offer.productionDays)
    }
    const shippingCost = catalogue.shipmentCost(rate, units)
    const costInBaseCurrency = catalogue.convertMoney(
      { minor: production + shippingCost.minor, currency: lab.currency },
      catalogue.baseCurrency,
    )
    total += costInBaseCurrency.minor
    shipments.push({
      labCode: lab.code,
      labCountryCode: lab.countryCode,
      carrier: { name: rate.carrier, service: rate.service },
      tracked: rate.tracked,
      itemIds: items.map(({ itemId }) => itemId),
      items,
      productionCost: { minor: production, currency: lab.currency },
      shippingCost,
      costInBaseCurrency,
      ...(problem.estimates ? { estimate: problem.estimates.of(lab, productionDays, rate) } : {}),
    })
  })
  // The searches price shipments their own (faster) way; the catalogue's functions above are the reference.
  if (total !== cost) throw new Error(`allocation: the search costed ${cost} but the shipments cost ${total}`)
  return { shipments, total }
}

// ---------------------------------------------------------------------------------------------------------
// The explanation (docs/allocation.md#explanation)
// ---------------------------------------------------------------------------------------------------------

/**
 * Per item, every lab of the catalogue: a candidate with its costs (and its estimate, with `estimates`), or why it
 * is not one. With `deliverBy` (the date the problem applied), labs whose estimate misses it are excluded.
 */
function explainItems(
  catalogue: Catalogue,
  request: AllocationRequest,
  estimates: PairEstimates | undefined,
  deliverBy: string | undefined,
): ItemExplanation[] {
  const labs = [...catalogue.labs].sort((a, b) => compareCodes(a.code, b.code))
  return request.items.map((item): ItemExplanation => {
    const product = catalogue.findProduct(item.variant.sku)
    const offers = new Map(item.variant.offers.map((offer) => [offer.lab.code, offer]))
    const options = new Map(
      catalogue
        .labOptions(item.variant, request.destinationCountryCode, request.shippingMethod)
        .map((option) => [option.offer.lab.code, option]),
    )
    const excluded = excludedLabCodes(request, item.itemId)
    const explanation: ItemExplanation = { itemId: item.itemId, considered: [], excluded: [] }
    for (const lab of labs) {
      const option = options.get(lab.code)
      if (!offers.has(lab.code)) {
        explanation.excluded.push({ labCode: lab.code, reason: 'DoesNotMakeProduct' })
      } else if (!option || !product) {
        explanation.excluded.push({ labCode: lab.code, reason: 'DoesNotShipThere' })
      } else if (excluded.has(lab.code.toLowerCase())) {
        explanation.excluded.push({ labCode: lab.code, reason: exclusionReason(request, item.itemId, lab.code) })
      } else {
        const estimate = estimates ? estimates.of(lab, option.offer.productionDays, option.rate) : undefined
        if (deliverBy !== undefined && !estimate) {
          explanation.excluded.push({ labCode: lab.code, reason: 'NoDeliveryEstimate' })
        } else if (deliverBy !== undefined && estimate && !arrivesBy(estimate, deliverBy)) {
          explanation.excluded.push({ labCode: lab.code, reason: 'TooLate', estimate })
        } else {
          explanation.considered.push({
            labCode: lab.code,
            labCountryCode: lab.countryCode,
            unitCost: catalogue.costPerCopy(product, option.offer, item.pageCount),
            shippingCost: catalogue.shipmentCost(option.rate, [
              { shippingClass: product.shippingClass, copies: item.copies },
            ]),
            ...(estimate !== undefined ? { estimate } : {}),
          })
        }
      }
    }
    return explanation
  })
}

/** The cheapest single lab that can take every item (labs are in code order, so the first of equals wins). */
function bestUnsplitShipment(problem: AllocationProblem): PlannedShipment | null {
  let best: SearchResult | undefined
  problem.labs.forEach((lab, labIndex) => {
    if (lab.lineCosts.some((line) => line === undefined)) return
    const lineTotal = lab.lineCosts.reduce((sum: bigint, line) => sum + (line as bigint), 0n)
    const largestClass = Math.max(...problem.items.map((item) => item.classRank))
    const cost = shipmentCostInBase(problem, labIndex, lineTotal, largestClass)
    if (!best || cost < best.cost) best = { labOfItem: problem.items.map(() => labIndex), cost }
  })
  return best ? (plannedShipments(problem, best).shipments[0] ?? null) : null
}
