// The problem both searches solve: items, candidate labs, and each lab's costs in a form both searches use, with
// the delivery estimates of each (item, lab) pair; and the shipments a search's assignment makes, priced with the
// catalogue's own functions.
import type { Catalogue } from '../catalogue.ts'
import type { Lab, LabOffer, Product, ShippingRate } from '../catalogue.types.ts'
import { type DeliveryEstimate, deliveryWindow, estimateDispatchDate } from '../delivery-promise.ts'
import type {
  AllocationItem,
  AllocationRequest,
  ExclusionByRequest,
  LabUnavailability,
  PlannedShipment,
  PlannedShipmentItem,
} from './model.ts'

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
export class PairEstimates {
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
export function arrivesBy(estimate: DeliveryEstimate | null, deliverBy: string): boolean {
  return estimate !== null && estimate.estimatedDelivery.to <= deliverBy
}

export interface ItemFacts {
  readonly item: AllocationItem
  readonly product: Product
  /** Index of the product's shipping class in `catalogue.shippingClasses` (larger = bigger parcel). */
  readonly classRank: number
}

export interface LabFacts {
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

export interface AllocationProblem {
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
export function prepareProblem(
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

export function excludedLabCodes(request: AllocationRequest, itemId: string): Set<string> {
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
export function exclusionReason(request: AllocationRequest, itemId: string, labCode: string): ExclusionByRequest {
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
export function compareCodes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Cost in base-currency minor units of a shipment from `labIndex` whose items' line costs sum to `lineTotal` and
 * whose largest shipping class has rank `largestClass` (-1: an empty shipment, which costs nothing).
 */
export function shipmentCostInBase(
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

/** An allocation found by a search: the lab (index into `problem.labs`) of each item, and its total cost. */
export interface SearchResult {
  readonly labOfItem: readonly number[]
  /** Base-currency minor units, as the search computed it; buildResult checks the shipments add up to it. */
  readonly cost: bigint
}

/** The shipments of a search's assignment, priced with the catalogue's own functions. */
export function plannedShipments(
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
