// Lab allocation and pricing of an order's items: maps the order onto the pure allocation of domain/allocation/
// and the pricing of domain/pricing.ts (the same functions quotes use) and back onto shipments for the pipeline.

import { allocateShipments } from './allocation/allocation.ts'
import type {
  DeliveryPromiseContext,
  ExclusionByRequest,
  LabUnavailability,
  PlannedShipment,
} from './allocation/model.ts'
import type { Catalogue } from './catalogue.ts'
import { pricedPageCount } from './catalogue-matching.ts'
import type { OrderDocument } from './order.ts'
import type { AllocatedShipment } from './pipeline/allocate-order.ts'
import type { ShipmentLabCost } from './pipeline/pipeline-order.ts'
import { type PricedShipment, priceAllocation } from './pricing.ts'
import { type RoutingBasis, type RoutingRound, routingRound } from './routing.ts'
import { type SandboxScenario, splitsShipments } from './sandbox-scenarios.ts'
import type { ShippingMethod } from './shipping-methods.ts'

export interface AllocationRequest {
  order: OrderDocument
  itemIds: string[]
  excludedLabsByItem: Record<string, string[]>
  /** Why those labs are excluded (the pipeline state keeps it, a scenario adds its own); `Rejected` where absent. */
  exclusionReasons?: Record<string, Record<string, ExclusionByRequest>>
  /** Labs that take no new work now (paused, or at capacity), for every item: Live orders only. */
  unavailableLabs?: Readonly<Record<string, LabUnavailability>>
  /** The method to plan for; the order's own when absent (a shipping method change plans the new one). */
  shippingMethod?: ShippingMethod
  /** Currency the shipments are priced in (the account's billing currency). */
  currency: string
  /**
   * The account's price list (docs/billing.md#price-lists) the shipments are priced on; null or absent: the
   * catalogue's default list (the labs' costs when it has none). Routing still compares the labs' costs.
   */
  priceList?: string | null
  /** Also explain the allocation (`routing` in the outcome), as made on this basis at this time. */
  explain?: { basis: RoutingBasis; at: Date }
  /** When the labs get the work and the date it must arrive by: shipments then carry their estimates. */
  promise?: DeliveryPromiseContext
}

/** With a `deliverBy` date: whether the plan meets it, else the earliest date any plan reaches. */
export type DeliverByResult =
  | { date: string; met: true }
  | { date: string; met: false; earliestDeliveryDate: string | null }

/** A planned shipment with its price, in the order of `allocateShipments`' result. */
export type PlannedOrderShipment = Omit<AllocatedShipment, 'id'> & { price: PricedShipment }

export type AllocationOutcome = (
  | { ok: true; shipments: PlannedOrderShipment[] }
  | { ok: false; unavailableItemIds: string[] }
) & {
  /** When `explain` was asked for and the catalogue still has every item: how the allocation was reached. */
  routing?: RoutingRound
  /** When the request had a `deliverBy` date and the catalogue still has every item. */
  deliverBy?: DeliverByResult
}

export function allocateOrderItems(catalogue: Catalogue, request: AllocationRequest): AllocationOutcome {
  const { order } = request
  const items = []
  const unknown: string[] = []
  const copies = new Map<string, number>()
  const productOfItem = new Map<string, { sku: string; category: string }>()
  for (const itemId of request.itemIds) {
    const item = order.items.find((candidate) => candidate.id === itemId)
    const variant = item && catalogue.findVariant(item.sku, item.attributes)
    if (!item || !variant) {
      // The catalogue changed since the order was placed: nobody makes this item any more.
      unknown.push(itemId)
      continue
    }
    // Books are priced by the page count of the product's page print area (as quotes are), not of any asset.
    const pageCount = pricedPageCount(catalogue.findProduct(item.sku), item.assets)
    items.push({ itemId, variant, copies: item.copies, pageCount })
    copies.set(itemId, item.copies)
    const product = catalogue.findProduct(item.sku)
    if (product) productOfItem.set(itemId, { sku: product.sku, category: product.category })
  }
  if (unknown.length > 0) return { ok: false, unavailableItemIds: unknown }
  const destination = order.recipient.address.countryCode
  const shippingMethod = request.shippingMethod ?? order.shippingMethod
  const result = allocateShipments(
    catalogue,
    {
      destinationCountryCode: destination,
      shippingMethod,
      items,
      excludedLabsByItem: request.excludedLabsByItem,
      ...(request.exclusionReasons ? { exclusionReasons: request.exclusionReasons } : {}),
      ...(request.unavailableLabs ? { unavailableLabs: request.unavailableLabs } : {}),
      ...(request.promise ? { promise: request.promise } : {}),
    },
    { explain: request.explain !== undefined },
  )
  const deliverBy: { deliverBy?: DeliverByResult } = result.deliverBy
    ? {
        deliverBy: result.deliverBy.met
          ? { date: result.deliverBy.date, met: true }
          : { date: result.deliverBy.date, met: false, earliestDeliveryDate: result.deliverBy.earliestDeliveryDate },
      }
    : {}
  const selling = { list: catalogue.priceLists.listFor(request.priceList), productOfItem, shippingMethod }
  const explained = request.explain && {
    routing: routingRound(catalogue, result, {
      ...request.explain,
      destinationCountryCode: destination,
      shippingMethod,
      copiesByItem: copies,
      currency: request.currency,
      selling,
    }),
  }
  if (!result.ok) return { ok: false, unavailableItemIds: result.unavailableItemIds, ...explained, ...deliverBy }
  const priced = priceAllocation(catalogue, result.shipments, copies, destination, request.currency, selling)
  return {
    ...explained,
    ...deliverBy,
    ok: true,
    shipments: result.shipments.map((shipment, index) => ({
      labCode: shipment.labCode,
      labCountryCode: shipment.labCountryCode,
      carrier: shipment.carrier,
      itemIds: shipment.itemIds,
      formats: Object.fromEntries(shipment.items.map((item) => [item.itemId, item.printFileFormat])),
      ...(shipment.estimate !== undefined ? { estimate: shipment.estimate } : {}),
      labCost: labCostOf(catalogue, shipment, priced.currency),
      price: priced.shipments[index] as PricedShipment,
    })),
  }
}

/**
 * What the lab charges for a planned shipment, in its currency, and converted to the order's price currency at the
 * catalogue's rates (production and shipping together, one rounding). `Original`: the allocation step marks the
 * shipments of a later round `Moved`.
 */
export function labCostOf(catalogue: Catalogue, shipment: PlannedShipment, priceCurrency: string): ShipmentLabCost {
  const currency = shipment.productionCost.currency
  const shipping = catalogue.convertMinorUnits(shipment.shippingCost.minor, shipment.shippingCost.currency, currency)
  const total = shipment.productionCost.minor + shipping
  return {
    currency,
    production: String(shipment.productionCost.minor),
    shipping: String(shipping),
    priceCurrency,
    costInPriceCurrency: String(catalogue.convertMinorUnits(total, currency, priceCurrency)),
    catalogueVersion: catalogue.version,
    kind: 'Original',
  }
}

/**
 * The allocation of an order's items as its Sandbox scenario (docs/sandbox.md) bends it: outOfStock finds no lab
 * with the items in stock; splitShipments and partialShipment split the first allocation (`allocateSplit`). Every
 * other order, and every later allocation of a split one, gets the ordinary cheapest allocation. The pipeline
 * allocates through this, and the routing estimate of an order not yet allocated too, so that the explanation
 * says what the order's allocation does.
 */
export function allocateInScenario(
  catalogue: Catalogue,
  allocate: (request: AllocationRequest) => AllocationOutcome,
  scenario: SandboxScenario | null,
  firstAllocation: boolean,
  request: AllocationRequest,
): AllocationOutcome {
  if (scenario === 'outOfStock') return allocate(withNothingInStock(catalogue, request))
  if (firstAllocation && splitsShipments(scenario)) return allocateSplit(allocate, request)
  return allocate(request)
}

/**
 * The request with every lab of the catalogue out of stock for every item (Sandbox scenario outOfStock): the
 * allocation then finds none, as when no lab has the items, and its explanation says so lab by lab (labs that do
 * not make an item or do not ship it there keep that reason, being the first that rules them out). A reason the
 * order's history gave a lab stays.
 */
function withNothingInStock(catalogue: Catalogue, request: AllocationRequest): AllocationRequest {
  const excludedLabsByItem = { ...request.excludedLabsByItem }
  const exclusionReasons = { ...request.exclusionReasons }
  const labCodes = catalogue.labs.map((lab) => lab.code)
  for (const itemId of request.itemIds) {
    excludedLabsByItem[itemId] = labCodes
    const outOfStock = Object.fromEntries(labCodes.map((code): [string, ExclusionByRequest] => [code, 'OutOfStock']))
    exclusionReasons[itemId] = { ...outOfStock, ...exclusionReasons[itemId] }
  }
  return { ...request, excludedLabsByItem, exclusionReasons }
}

/**
 * An allocation that uses at least two labs when the order has two items or more (Sandbox scenarios
 * splitShipments and partialShipment, docs/sandbox.md). When the cheapest allocation uses one lab, the items are
 * tried from the last one up: that item is kept away from the lab, and the other items away from the lab it then
 * goes to; the first allocation that uses two labs is taken. When no other lab can make any of the items, the
 * one-lab allocation stands. The labs kept away are excluded with the reason `SandboxScenario`, so the routing
 * explanation does not take them for labs that refused the items.
 */
export function allocateSplit(
  allocate: (request: AllocationRequest) => AllocationOutcome,
  request: AllocationRequest,
): AllocationOutcome {
  const cheapest = allocate(request)
  const onlyLab = cheapest.ok && cheapest.shipments.length === 1 ? cheapest.shipments[0]?.labCode : undefined
  if (onlyLab === undefined || request.itemIds.length < 2) return cheapest
  const excluding = (excluded: Record<string, string>) => {
    const byItem = { ...request.excludedLabsByItem }
    const reasons = { ...request.exclusionReasons }
    for (const [itemId, labCode] of Object.entries(excluded)) {
      byItem[itemId] = [...(byItem[itemId] ?? []), labCode]
      reasons[itemId] = { [labCode]: 'SandboxScenario', ...reasons[itemId] }
    }
    return allocate({ ...request, excludedLabsByItem: byItem, exclusionReasons: reasons })
  }
  for (const itemId of [...request.itemIds].reverse()) {
    const moved = excluding({ [itemId]: onlyLab })
    const otherLab = moved.ok
      ? moved.shipments.find((shipment) => shipment.itemIds.includes(itemId))?.labCode
      : undefined
    if (otherLab === undefined) continue
    const others = request.itemIds.filter((other) => other !== itemId).map((other) => [other, otherLab])
    const split = excluding({ ...Object.fromEntries(others), [itemId]: onlyLab })
    if (split.ok && split.shipments.length > 1) return split
  }
  return cheapest
}
