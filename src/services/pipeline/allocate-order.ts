// Step allocate-order: the order's unallocated items go to labs. The first allocation is where the order enters
// fulfilment: it is charged then (prepaid orders the balance cannot cover wait for payment before any lab gets
// them). A later allocation (a lab rejected a shipment) keeps the agreed price.
//
// Every round is allocated with the delivery promise (docs/api.md#delivery-estimates): the labs receive the work
// now, so each shipment gets its estimate (and keeps it as its promise), and an order's `deliverBy` takes the
// cheapest plan that arrives by then. The date was reachable when the order was accepted, but time passes (the
// order waited for payment, or a lab refused a shipment): when no plan can meet it any more, the cheapest plan
// without it is allocated, and the round's routing and log line say so.
//
// A Live order's allocation skips labs that take no new work (docs/allocation.md#lab-availability): paused, or at
// their capacity for the day. The rows of the labs whose day is limited are locked for the round, and the jobs
// given are counted in the same transaction, so two orders allocated at once cannot both take a lab's last job.
import type { Clock } from '../../adapters/clock.ts'
import type { Queryable } from '../../adapters/database.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import { pricedPageCount } from '../../domain/catalogue-matching.ts'
import { followReallocatedItems, linesOfShipments } from '../../domain/charges.ts'
import { withPrepaidDuties } from '../../domain/customs.ts'
import { parseId } from '../../domain/ids.ts'
import { jobRequest } from '../../domain/jobs.ts'
import { allocateInScenario, type DeliverByResult, type PlannedOrderShipment } from '../../domain/order-allocation.ts'
import { applyAllocation, takeReroutedItems } from '../../domain/pipeline/allocate-order.ts'
import { itemsAwaitingAllocation, type PipelineOrder, type Transition } from '../../domain/pipeline/pipeline-order.ts'
import type { PricedShipment } from '../../domain/pricing.ts'
import { lockedPrices, type StoredQuote } from '../../domain/quote-lock.ts'
import { withReroutedItems } from '../../domain/routing.ts'
import { drawShipmentIds } from '../../repositories/orders.repository.ts'
import { findQuoteOfOrder } from '../../repositories/quotes.repository.ts'
import type { BillingService } from '../billing.service.ts'
import type { ServiceLogger } from '../observability.ts'
import type { LabRoom } from './lab-room.ts'
import { allocationLine, quoteNoLongerFitsLine, writeLogLine } from './log-lines.ts'
import { orderNumberOf, type StepTransition } from './order-transition.ts'
import type { Allocator } from './ports.ts'

export interface AllocateOrderDeps {
  clock: Clock
  catalogue: Catalogue
  allocate: Allocator
  billing: Pick<BillingService, 'startBilling' | 'chargeDifference'>
  /** Says when an order's quote no longer applies (the step's own line is written by `transition`). */
  log: ServiceLogger
  transition: StepTransition
  /** How long a round that only paused or full labs could serve waits before it tries again. */
  labRoomRetrySeconds: number
  /** Which labs take no new work now, and the count of the jobs given to them. */
  labRoom: LabRoom
}

/** `wait`: how many times the round has already waited for a lab with room. */
export type AllocateOrder = (orderId: string, round: number, wait?: number) => Promise<void>

/** An allocation round as applied: the shipments made, or the items no lab could take. */
interface AllocationTransition extends Transition {
  planned: (PlannedOrderShipment & { id: string })[]
  unavailableItemIds: string[]
  /** With the order's `deliverBy`: whether the plan meets it. */
  deliverBy?: DeliverByResult
  /** The round found labs for every item only among paused or full ones: it tries again then. */
  waitingForRoom?: { itemIds: string[]; retryAt: Date }
}

/** The quote an order was created with (docs/api.md#price-locked-quotes); undefined for any other order. */
async function quoteOfOrder(tx: Queryable, order: PipelineOrder): Promise<StoredQuote | undefined> {
  const quoteId = order.document.quoteId
  return quoteId ? findQuoteOfOrder(tx, parseId('quo', quoteId) ?? 0) : undefined
}

export function createAllocateOrder(deps: AllocateOrderDeps): AllocateOrder {
  const { clock } = deps

  /**
   * What the first allocation charges: the catalogue's prices, or the quote's for an order created with one
   * (docs/api.md#price-locked-quotes). Such an order is billed in the quote's currency (see `allocate`), so
   * the quote applies unless its items no longer match the order's.
   */
  function chargedPrices(
    order: PipelineOrder,
    quote: StoredQuote | undefined,
    catalogued: PricedShipment[],
  ): PricedShipment[] {
    const quoteId = order.document.quoteId
    // A DDP order prepays its shipments' duties (docs/billing.md#ddp-duties-and-taxes): with the quote's locked ones, or else
    // worked out now from the items' declared values.
    const currency = order.pipeline.billing?.currency ?? deps.catalogue.baseCurrency
    const prepaying = (shipments: PricedShipment[]) =>
      withPrepaidDuties(deps.catalogue, order.document, shipments, currency)
    if (!quoteId) return prepaying(catalogued)
    const items = order.document.items.map((item) => ({
      ...item,
      pageCount: pricedPageCount(deps.catalogue.findProduct(item.sku), item.assets),
    }))
    const locked =
      quote && quote.currency === order.pipeline.billing?.currency ? lockedPrices(quote, items, catalogued) : undefined
    if (locked) return locked
    writeLogLine(deps.log, quoteNoLongerFitsLine(order, quoteId, quote !== undefined))
    return prepaying(catalogued)
  }

  async function allocate(
    order: PipelineOrder,
    tx: Queryable,
    round: number,
    wait: number,
  ): Promise<AllocationTransition> {
    const { document, pipeline } = order
    if (pipeline.phase !== 'allocating' || pipeline.allocationRound !== round) {
      return { changed: false, jobs: [], planned: [], unavailableItemIds: [] }
    }
    const firstAllocation = pipeline.billing === undefined
    // An order created with a quote was accepted on the quote's terms, its currency included: it is billed
    // in that currency even if the account's billing currency changed since (say in its pause window).
    const quote = firstAllocation ? await quoteOfOrder(tx, order) : undefined
    const billing = await deps.billing.startBilling(tx, order, quote?.currency)
    const itemIds = itemsAwaitingAllocation(document, pipeline).map((item) => item.id)
    const unavailable = await deps.labRoom.unavailableLabsFor(order, tx)
    // The allocation of an order's items, as its Sandbox scenario (docs/sandbox.md) bends it.
    const request = {
      order: document,
      itemIds,
      excludedLabsByItem: pipeline.excludedLabs,
      ...(pipeline.exclusionReasons ? { exclusionReasons: pipeline.exclusionReasons } : {}),
      currency: billing.currency,
      priceList: billing.priceList ?? null,
      promise: {
        received: clock.now(),
        ...(document.deliverBy ? { deliverBy: document.deliverBy } : {}),
      },
    }
    // Read in the same turn as the allocation below: the version it is worked out with (domain/live-catalogue.ts).
    const catalogueVersion = deps.catalogue.version
    const result = allocateInScenario(deps.catalogue, deps.allocate, order.sandboxScenario, firstAllocation, {
      ...request,
      unavailableLabs: unavailable,
      explain: { basis: 'Allocation', at: clock.now() },
    })
    // Only paused or full labs could take some item: the order is not failed for a lab's day. Nothing changes
    // (the billing started above is not saved); the round runs again later, when a lab may have room.
    if (!result.ok && Object.keys(unavailable).length > 0) {
      const withEveryLab = allocateInScenario(
        deps.catalogue,
        deps.allocate,
        order.sandboxScenario,
        firstAllocation,
        request,
      )
      if (withEveryLab.ok) {
        const retryAt = new Date(clock.now().getTime() + deps.labRoomRetrySeconds * 1000)
        return {
          changed: false,
          jobs: [jobRequest('allocate-order', { orderId: document.id, round, wait: wait + 1 }, retryAt)],
          planned: [],
          unavailableItemIds: [],
          waitingForRoom: { itemIds: result.unavailableItemIds, retryAt },
        }
      }
    }
    if (result.routing) {
      // The items a lab gave back that this round allocates again: its routing says which, from where and why.
      const rerouted = takeReroutedItems(pipeline, itemIds)
      const round = rerouted.length > 0 ? withReroutedItems(result.routing, rerouted) : result.routing
      pipeline.routing = [...(pipeline.routing ?? []), round]
    }
    const deliverBy = result.deliverBy ? { deliverBy: result.deliverBy } : {}
    if (!result.ok) {
      if (firstAllocation) delete pipeline.billing
      const unavailableItemIds = result.unavailableItemIds
      const applied = applyAllocation(document, pipeline, round, [], unavailableItemIds, clock.now())
      return { ...applied, planned: [], unavailableItemIds, ...deliverBy }
    }
    const ids = await drawShipmentIds(tx, result.shipments.length)
    // A later round allocates work a lab gave back: its shipments are the work moved to another lab.
    const planned = result.shipments.map((shipment, index) => ({
      ...shipment,
      id: ids[index] as string,
      ...(shipment.labCost && !firstAllocation ? { labCost: { ...shipment.labCost, kind: 'Moved' as const } } : {}),
    }))
    await deps.labRoom.countJobsGiven(order, tx, planned)
    if (catalogueVersion !== null) pipeline.catalogueVersion = catalogueVersion
    const applied = applyAllocation(document, pipeline, round, planned, [], clock.now())
    if (firstAllocation) {
      const prices = chargedPrices(
        order,
        quote,
        planned.map((shipment) => shipment.price),
      )
      const target = linesOfShipments(prices, ids)
      applied.jobs.push(...(await deps.billing.chargeDifference(tx, order, target, true)))
    } else {
      const newShipmentOfItem = new Map(
        planned.flatMap((shipment) => shipment.itemIds.map((itemId) => [itemId, shipment.id] as const)),
      )
      followReallocatedItems(billing, newShipmentOfItem)
    }
    return { ...applied, planned, unavailableItemIds: [], ...deliverBy }
  }

  return async (orderId, round, wait = 0) => {
    const applied = await deps.transition(
      orderNumberOf(orderId),
      (order, tx) => allocate(order, tx, round, wait),
      ({ order, result }) => allocationLine(order, round, result),
    )
    // A round that waits changes nothing, so the transition writes no line for it: it is said here.
    if (applied?.result.waitingForRoom) writeLogLine(deps.log, allocationLine(applied.order, round, applied.result))
  }
}
