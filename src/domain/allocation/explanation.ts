// The explanation (docs/allocation.md#explanation): per item, every lab considered with its costs or excluded with
// the reason, and the best allocation from a single lab.
import type { Catalogue } from '../catalogue.ts'
import type { AllocationRequest, ItemExplanation, PlannedShipment } from './model.ts'
import {
  type AllocationProblem,
  arrivesBy,
  compareCodes,
  excludedLabCodes,
  exclusionReason,
  type PairEstimates,
  plannedShipments,
  type SearchResult,
  shipmentCostInBase,
} from './problem.ts'

/**
 * Per item, every lab of the catalogue: a candidate with its costs (and its estimate, with `estimates`), or why it
 * is not one. With `deliverBy` (the date the problem applied), labs whose estimate misses it are excluded.
 */
export function explainItems(
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
export function bestUnsplitShipment(problem: AllocationProblem): PlannedShipment | null {
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
