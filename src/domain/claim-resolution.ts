// Resolving a claim (docs/claims.md#resolutions), as pure rules: what a Refund or Credit gives back by default, the
// reprint planned and put on the order (docs/claims.md#reprints), and the claim's view once decided. The claim
// resolution service applies them under the order's lock through the one order change.
//
// A reprint is a new shipment on the same order for the claimed items (every item of the parcel for a missing
// parcel). It is allocated again like any shipment, without the lab at fault when the claim's category blames the
// lab; its print files are the original's where the new lab takes the same file, else made again from the kept
// asset. It is charged nothing: no billing line names it, so the order's charges and totals do not change, and its
// hand-off is recorded with kind `Reprint` (price 0). An order that was Complete is InProgress again until the
// reprint ships.
import { allocateShipments } from './allocation/allocation.ts'
import type { AllocationItem, AllocationRequest, ExclusionByRequest, LabUnavailability } from './allocation/model.ts'
import type { Catalogue } from './catalogue.ts'
import { pricedPageCount } from './catalogue-matching.ts'
import type { BillingState } from './charges.ts'
import { dutiesLineKey, itemLineKey, shippingLineKey } from './charges.ts'
import type { ClaimResolution, ClaimStatus, ClaimView } from './claims.ts'
import type { JobRequest } from './jobs.ts'
import type { Shipment } from './order.ts'
import { labCostOf } from './order-allocation.ts'
import { type AllocatedShipment, addShipment } from './pipeline/allocate-order.ts'
import { refreshOrderEstimate } from './pipeline/delivery-estimates.ts'
import type { PipelineOrder } from './pipeline/pipeline-order.ts'
import { submissionJobs } from './pipeline/submit-shipment.ts'
import { type RoutingRound, routingRound, withReprintClaim } from './routing.ts'
import { printFileServes } from './shipment-move.ts'
import type { ShippingMethod } from './shipping-methods.ts'

/** What the operator decides: one of the resolutions, or a rejection. */
export const CLAIM_DECISIONS = ['Reprint', 'Refund', 'Credit', 'Reject'] as const
export type ClaimDecision = (typeof CLAIM_DECISIONS)[number]

export function isClaimDecision(value: string): value is ClaimDecision {
  return (CLAIM_DECISIONS as readonly string[]).includes(value)
}

/** The longest note (or rejection reason) a decision takes: it is shown to the merchant and kept in the audit trail. */
export const CLAIM_NOTE_MAX_LENGTH = 2000

/**
 * What the claimed items were charged, tax included (minor units): their item lines, and for a missing parcel
 * (`shipmentId`) the parcel's shipping and prepaid duties too. Credits already made are the caller's to subtract
 * (the refundable amount caps it).
 */
export function claimedAmountMinor(
  billing: BillingState | undefined,
  itemIds: readonly string[],
  shipmentId: string | null,
): bigint {
  if (!billing) return 0n
  const keys = itemIds.map(itemLineKey)
  if (shipmentId) keys.push(shippingLineKey(shipmentId), dutiesLineKey(shipmentId))
  let total = 0n
  for (const key of keys) {
    const line = billing.lines[key]
    if (line) total += BigInt(line.cost) + BigInt(line.tax)
  }
  return total > 0n ? total : 0n
}

/** What a decision did. */
export interface ClaimResolutionResult {
  claim: ClaimView
  orderId: string
  /** The reprint's shipment and lab, with the print files kept and those made again. */
  reprint: { shipmentId: string; labCode: string; keptAssetIds: string[]; rerenderedAssetIds: string[] } | null
  creditNote: string | null
  amount: { amount: string; currency: string } | null
}

/** A claim in the operator's queue. */
export interface ClaimSummary {
  id: string
  orderId: string
  accountId: string
  environment: string
  labCode: string
  status: ClaimStatus
  categories: string[]
  preferredResolution: string | null
  createdAt: string
  version: number
}

/** One claim as the console and `claims show` present it. */
export interface ClaimDetail extends ClaimSummary {
  view: ClaimView
  items: { itemId: string; shipmentId: string; sku: string | null; category: string; description: string }[]
  orderStage: string | null
  resolvedBy: string | null
  labAnswer: { answer: string; comment: string | null; answeredAt: string | null } | null
  /** The lab's photos with its answer (evd_ ids); the merchant's are on each item of `view`. */
  labEvidence: string[]
}

/** A reprint as allocation planned it: the lab and its shipment, in the pipeline's terms. */
export interface PlannedReprint {
  allocated: Omit<AllocatedShipment, 'id'>
  /**
   * How the reprint's allocation was reached, naming the claim, for the order's routing (`pipeline.routing`): the
   * lab at fault excluded as `AtFaultForClaim`. Absent for an order without billing (nothing to price it in).
   */
  routing?: RoutingRound
}

/** What planReprint gives: the planned reprint, or why there is none. */
export type ReprintPlan = { ok: true; reprint: PlannedReprint } | { ok: false; refusal: string }

/**
 * The reprint of `itemIds` (carried by `reprintOf`) for `claimId`, planned by the allocation, without `excludedLab`
 * (the lab at fault, excluded as `AtFaultForClaim`) when given, and without labs that take no work now. One
 * shipment with its routing round, or a refusal saying why.
 */
export function planReprint(
  catalogue: Catalogue,
  order: PipelineOrder,
  input: {
    itemIds: readonly string[]
    reprintOf: string
    claimId: string
    excludedLab: string | null
    unavailableLabs: Readonly<Record<string, LabUnavailability>>
    now: Date
  },
): ReprintPlan {
  const items: AllocationItem[] = []
  const productOfItem = new Map<string, { sku: string; category: string }>()
  for (const itemId of input.itemIds) {
    const item = order.document.items.find((candidate) => candidate.id === itemId)
    const variant = item && catalogue.findVariant(item.sku, item.attributes)
    const product = item && catalogue.findProduct(item.sku)
    if (!item || !variant || !product) {
      return { ok: false, refusal: `the catalogue no longer has item ${itemId}'s product` }
    }
    items.push({ itemId, variant, copies: item.copies, pageCount: pricedPageCount(product, item.assets) })
    productOfItem.set(itemId, { sku: product.sku, category: product.category })
  }
  if (items.length === 0) return { ok: false, refusal: 'the claim names no item to reprint' }
  const original = order.pipeline.shipments[input.reprintOf]
  const recipient = original?.submitted?.recipient ?? order.document.recipient
  const method = (original?.submitted?.shippingMethod ?? order.document.shippingMethod) as ShippingMethod
  const excluded = input.excludedLab
  const destinationCountryCode = recipient.address.countryCode
  const result = allocateShipments(
    catalogue,
    {
      destinationCountryCode,
      shippingMethod: method,
      items,
      ...exclusions(items, order.pipeline, excluded),
      unavailableLabs: input.unavailableLabs,
      promise: { received: input.now },
    },
    { explain: true },
  )
  const billing = order.pipeline.billing
  const routing =
    billing &&
    withReprintClaim(
      routingRound(catalogue, result, {
        basis: 'Allocation',
        at: input.now,
        destinationCountryCode,
        shippingMethod: method,
        copiesByItem: new Map(items.map((item) => [item.itemId, item.copies])),
        currency: billing.currency,
        selling: { list: catalogue.priceLists.listFor(billing.priceList), productOfItem, shippingMethod: method },
      }),
      input.claimId,
    )
  const without = excluded ? ` without lab ${excluded} (at fault)` : ''
  if (!result.ok) {
    return { ok: false, refusal: `no lab can make the items and ship them by ${method}${without} now` }
  }
  const [plan, ...more] = result.shipments
  if (!plan || more.length > 0) {
    return { ok: false, refusal: `no single lab can make every claimed item${without}: resolve it another way` }
  }
  const priceCurrency = original?.labCost?.priceCurrency ?? order.pipeline.billing?.currency
  const labCost = priceCurrency ? { ...labCostOf(catalogue, plan, priceCurrency), kind: 'Reprint' as const } : undefined
  return {
    ok: true,
    reprint: {
      allocated: {
        labCode: plan.labCode,
        labCountryCode: plan.labCountryCode,
        carrier: plan.carrier,
        itemIds: plan.itemIds,
        formats: Object.fromEntries(plan.items.map((item) => [item.itemId, item.printFileFormat])),
        ...(plan.estimate !== undefined ? { estimate: plan.estimate } : {}),
        ...(labCost ? { labCost } : {}),
      },
      ...(routing ? { routing } : {}),
    },
  }
}

/**
 * The labs a reprint must not use for each claimed item: the lab at fault, and every lab the order's own history
 * already excluded for the item (it rejected the item or ran out of stock), each with the reason the routing names.
 */
function exclusions(
  items: readonly AllocationItem[],
  pipeline: Pick<PipelineOrder['pipeline'], 'excludedLabs' | 'exclusionReasons'>,
  atFault: string | null,
): Required<Pick<AllocationRequest, 'excludedLabsByItem' | 'exclusionReasons'>> {
  const excludedLabsByItem: Record<string, string[]> = {}
  const exclusionReasons: Record<string, Record<string, ExclusionByRequest>> = {}
  for (const { itemId } of items) {
    const history = pipeline.excludedLabs[itemId] ?? []
    const labs = new Set(history)
    if (atFault) labs.add(atFault)
    if (labs.size === 0) continue
    excludedLabsByItem[itemId] = [...labs]
    exclusionReasons[itemId] = {
      ...(pipeline.exclusionReasons?.[itemId] ?? {}),
      ...(atFault ? { [atFault]: 'AtFaultForClaim' as const } : {}),
    }
  }
  return { excludedLabsByItem, exclusionReasons }
}

/** What a reprint put on the order: its shipment, its lab, the print files made again, the jobs. */
export interface AppliedReprint {
  shipmentId: string
  labCode: string
  keptAssetIds: string[]
  rerenderedAssetIds: string[]
  jobs: JobRequest[]
}

/**
 * Adds the reprint shipment `shipmentId` to the order under its lock, and its round to the order's routing:
 * `reprintOf` and `claimId` on it (after the shipment's other keys), the original's print files kept where they serve the new lab, the others rendered from
 * the kept asset. The order is InProgress again (its shipping not Complete) until the reprint ships; no billing
 * line is added.
 */
export function applyReprint(
  catalogue: Catalogue,
  order: PipelineOrder,
  planned: PlannedReprint,
  ids: { shipmentId: string; reprintOf: string; claimId: string },
  now: Date,
): AppliedReprint {
  const { document, pipeline } = order
  const original = pipeline.shipments[ids.reprintOf]
  if (planned.routing) pipeline.routing = [...(pipeline.routing ?? []), planned.routing]
  const renderJobs = addShipment(document, pipeline, { ...planned.allocated, id: ids.shipmentId })
  const created = pipeline.shipments[ids.shipmentId]
  const onOrder = document.shipments.find((shipment) => shipment.id === ids.shipmentId)
  if (!created || !onOrder) throw new Error(`reprint ${ids.shipmentId} was not added`)
  markReprint(onOrder, ids.reprintOf, ids.claimId)
  const kept: string[] = []
  for (const [assetId, file] of Object.entries(original?.printFiles ?? {})) {
    const itemId = document.items.find((item) => item.assets.some((asset) => asset.id === assetId))?.id
    if (!file || !itemId || !original || !(assetId in created.printFiles)) continue
    const formats = { from: original.formats[assetId], to: created.formats[assetId] }
    if (!printFileServes(catalogue, document, itemId, original.labCode, created.labCode, formats)) continue
    created.printFiles[assetId] = file
    kept.push(assetId)
  }
  const renders = renderJobs.filter((job) => !kept.includes(String((job.data as { assetId?: string }).assetId)))
  const jobs: JobRequest[] = [...renders]
  if (document.status.stage === 'Complete') document.status.stage = 'InProgress'
  document.status.details.inProduction = 'InProgress'
  document.status.details.shipping = 'InProgress'
  // An allocation round under way sets the phase when it is done (and submits every ready shipment then).
  if (pipeline.phase !== 'allocating') {
    if (renders.length > 0) {
      pipeline.phase = 'rendering'
      document.status.details.printReadyAssetsPrepared = 'InProgress'
    } else {
      pipeline.phase = 'producing'
      jobs.push(...submissionJobs(document, pipeline))
    }
  }
  refreshOrderEstimate(document, pipeline)
  document.lastUpdated = now.toISOString()
  return {
    shipmentId: ids.shipmentId,
    labCode: created.labCode,
    keptAssetIds: kept,
    rerenderedAssetIds: renders.map((job) => String((job.data as { assetId?: string }).assetId)),
    jobs,
  }
}

/** The reprint's own keys, appended after every other key of the shipment (the wire order, docs/claims.md#reprints). */
function markReprint(shipment: Shipment, reprintOf: string, claimId: string): void {
  shipment.reprintOf = reprintOf
  shipment.claimId = claimId
}

/** The claim's view once resolved. */
export function resolvedView(
  view: ClaimView,
  resolution: {
    type: ClaimResolution
    note: string | null
    at: Date
    reprintShipmentId: string | null
    creditNote: string | null
    amount: { amount: string; currency: string } | null
  },
): ClaimView {
  return {
    ...view,
    status: 'Resolved',
    resolution: {
      type: resolution.type,
      note: resolution.note,
      resolvedAt: resolution.at.toISOString(),
      reprintShipmentId: resolution.reprintShipmentId,
      creditNote: resolution.creditNote,
      amount: resolution.amount,
    },
    rejection: null,
    lastUpdated: resolution.at.toISOString(),
  }
}

/** The claim's view once rejected. */
export function rejectedView(view: ClaimView, reason: string, at: Date): ClaimView {
  return {
    ...view,
    status: 'Rejected',
    resolution: null,
    rejection: { reason, rejectedAt: at.toISOString() },
    lastUpdated: at.toISOString(),
  }
}
