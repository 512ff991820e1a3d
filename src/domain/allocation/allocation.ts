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
// Each sits in a file of its own beside this one (exact-search.ts, heuristic.ts), over the problem both solve
// (problem.ts); model.ts declares what allocation takes and gives, explanation.ts explains a result.
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
import type { Catalogue } from '../catalogue.ts'
import { allocateExactly } from './exact-search.ts'
import { bestUnsplitShipment, explainItems } from './explanation.ts'
import { allocateByLocalSearch } from './heuristic.ts'
import type { AllocationMethod, AllocationOptions, AllocationRequest, AllocationResult } from './model.ts'
import {
  type AllocationProblem,
  PairEstimates,
  plannedShipments,
  prepareProblem,
  type SearchResult,
} from './problem.ts'

/**
 * Orders with at most this many items get the exact optimum. The exact search does about labs x 3^items steps:
 * 12 items from 10 labs that all make everything is 5.3 million steps, measured in exact-search.test.ts and
 * docs/allocation.md; every further item triples it.
 */
export const EXACT_ALLOCATION_MAX_ITEMS = 12

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
