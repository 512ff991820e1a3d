// Moving a shipment to another lab (docs/admin.md#moving-a-shipment-to-another-lab), as pure rules: whether the
// shipment can still move, whether the new lab can make every item and ship it to the destination by the method
// (the allocation's own capability checks, domain/allocation/), and the move itself on the order and its pipeline.
//
// A move is the operator's decision, taken while the shipment's lab has not started: the shipment is allocated
// (its print files are being made) or with its lab, submitted or acknowledged, and no answer of the lab to a
// cancellation request says it is too late. The shipment leaves the order (as a shipment a lab rejects whole does)
// and a new one, with a new id, takes its items at the new lab; its print files are made again where the new lab's
// format, colour or paper differs, else the old ones are kept. The old lab's job becomes `cancelled`, and the
// pipeline keeps `moved` on it so the lab still reads the job and what left it. The merchant's charges stay as
// they are: the billing lines only follow the items to the new shipment id (the operator absorbs any difference in
// the lab's cost, which the hand-off's cost row records).
import { allocateShipments } from './allocation/allocation.ts'
import type { AllocationItem, LabExclusionReason, LabUnavailability, PlannedShipment } from './allocation/model.ts'
import type { Catalogue } from './catalogue.ts'
import { pricedPageCount } from './catalogue-matching.ts'
import type { BillingState } from './charges.ts'
import { dutiesLineKey, shippingLineKey } from './charges.ts'
import type { Environment } from './environment.ts'
import type { JobRequest } from './jobs.ts'
import { openCancellationRequest } from './lab-cancellation.ts'
import type { OrderDocument } from './order.ts'
import { labCostOf } from './order-allocation.ts'
import { type AllocatedShipment, addShipment } from './pipeline/allocate-order.ts'
import { refreshOrderEstimate } from './pipeline/delivery-estimates.ts'
import type { PipelineOrder } from './pipeline/pipeline-order.ts'
import { submissionJobs } from './pipeline/submit-shipment.ts'
import type { ShippingMethod } from './shipping-methods.ts'

/** The longest reason an operator may give for a move (it goes into the audit trail and the order's pipeline). */
export const MOVE_REASON_MAX_LENGTH = 500

/** A move refused: the field at fault (`shipment`, `lab` or `reason`) and why, in words both front ends show. */
export class ShipmentMoveRefused extends Error {
  readonly field: 'shipment' | 'lab' | 'reason'
  constructor(field: 'shipment' | 'lab' | 'reason', message: string) {
    super(message)
    this.name = 'ShipmentMoveRefused'
    this.field = field
  }
}

/** The reason as given, trimmed; refused when empty or too long. */
export function moveReasonOf(reason: unknown): string {
  const text = typeof reason === 'string' ? reason.trim() : ''
  if (text === '') throw new ShipmentMoveRefused('reason', 'A reason is required to move a shipment')
  if (text.length > MOVE_REASON_MAX_LENGTH) {
    throw new ShipmentMoveRefused('reason', `The reason is longer than ${MOVE_REASON_MAX_LENGTH} characters`)
  }
  return text
}

/** Why the shipment cannot move at all (whatever the lab); undefined when it can. */
export function shipmentMoveRefusal(order: PipelineOrder, shipmentId: string, now: Date): string | undefined {
  const { document, pipeline } = order
  const shipment = pipeline.shipments[shipmentId]
  const onOrder = document.shipments.find((candidate) => candidate.id === shipmentId)
  if (!shipment) return `Order ${document.id} has no shipment ${shipmentId}`
  if (shipment.moved) {
    return `Shipment ${shipmentId} was already moved to lab ${shipment.moved.toLabCode} (shipment ${shipment.moved.toShipmentId})`
  }
  switch (shipment.state) {
    case 'shipped':
      return `Shipment ${shipmentId} has shipped: it can no longer be moved`
    case 'inProduction':
      return `Lab ${shipment.labCode} has started production of shipment ${shipmentId}: it can no longer be moved`
    case 'cancelled':
      return `Shipment ${shipmentId} was cancelled`
    case 'rejected':
      return `Lab ${shipment.labCode} rejected shipment ${shipmentId}: its items are allocated again`
    default:
      break
  }
  if (!onOrder) return `Order ${document.id} has no shipment ${shipmentId}`
  if (document.status.stage !== 'InProgress' || pipeline.phase === 'cancelled' || pipeline.phase === 'complete') {
    return `Order ${document.id} is ${document.status.stage}: its shipments can no longer be moved`
  }
  if (pipeline.phase === 'failed') {
    return `Order ${document.id} has failed (see its issues): its shipments are not moved`
  }
  const started = Object.entries(shipment.itemStates ?? {}).find(([, state]) => state !== 'rejected')
  if (started) {
    return `Lab ${shipment.labCode} has reported item ${started[0]} of shipment ${shipmentId} ${started[1]}: it can no longer be moved`
  }
  const request = shipment.cancellationRequested
  if (request?.answer === 'tooLate') {
    return `Lab ${shipment.labCode} answered tooLate when asked to cancel shipment ${shipmentId}: it has started, so the shipment cannot be moved`
  }
  if (openCancellationRequest(shipment, now)) {
    return `The merchant's cancel is waiting for lab ${shipment.labCode}'s answer on shipment ${shipmentId}: it is not moved meanwhile`
  }
  return undefined
}

/** A shipment's move planned at a lab: the allocation's shipment there, in the pipeline's terms. */
export interface PlannedMove {
  toLabCode: string
  /** The shipment as allocation plans it at the lab (its lab costs, carrier, formats, estimate). */
  plan: PlannedShipment
  allocated: Omit<AllocatedShipment, 'id'>
}

/** Words for the reason allocation rules a lab out for an item. */
function exclusionWords(reason: LabExclusionReason, lab: string, sku: string, country: string, method: string): string {
  switch (reason) {
    case 'DoesNotMakeProduct':
      return `lab ${lab} does not make ${sku}`
    case 'DoesNotShipThere':
      return `lab ${lab} does not ship ${sku} to ${country} by ${method}`
    case 'LabPaused':
      return `lab ${lab} is paused`
    case 'AtCapacity':
      return `lab ${lab} has had its jobs for the day`
    case 'QualityBelowThreshold':
      return `lab ${lab} has more upheld claims than its quality threshold allows`
    case 'OutOfStock':
      return `lab ${lab} reported ${sku} out of stock for this order`
    case 'FileDefect':
      return `lab ${lab} gave ${sku} back for a defect in its file`
    case 'CannotProduce':
      return `lab ${lab} said it cannot produce ${sku}`
    case 'AtFaultForClaim':
      return `lab ${lab} was at fault for a claim on ${sku} of this order`
    case 'Rejected':
      return `lab ${lab} rejected ${sku} of this order before`
    case 'NoDeliveryEstimate':
    case 'TooLate':
    case 'SandboxScenario':
      return `lab ${lab} cannot take ${sku} (${reason})`
  }
}

/** The shipping method the shipment was given with (its lab's), else the order's. */
function methodOf(order: PipelineOrder, shipmentId: string): ShippingMethod {
  return (order.pipeline.shipments[shipmentId]?.submitted?.shippingMethod ??
    order.document.shippingMethod) as ShippingMethod
}

/**
 * The shipment planned at `toLabCode` with the allocation's checks: every item made there and shipped to the
 * destination by the shipment's method, the order's history (a lab that rejected an item) and, for Live, the lab's
 * pause and capacity (`unavailableLabs`). A refusal names each thing the lab cannot do.
 */
export function planMove(
  catalogue: Catalogue,
  order: PipelineOrder,
  shipmentId: string,
  toLabCode: string,
  input: { unavailableLabs: Readonly<Record<string, LabUnavailability>>; now: Date },
): { ok: true; move: PlannedMove } | { ok: false; refusal: string } {
  const lab = catalogue.findLab(toLabCode)
  if (!lab) return { ok: false, refusal: `The catalogue has no lab ${toLabCode}` }
  const held = order.pipeline.shipments[shipmentId]
  if (held?.labCode === lab.code) return { ok: false, refusal: `Shipment ${shipmentId} is already at lab ${lab.code}` }
  const onOrder = order.document.shipments.find((candidate) => candidate.id === shipmentId)
  const items: AllocationItem[] = []
  const skuOf = new Map<string, string>()
  for (const { itemId } of onOrder?.items ?? []) {
    const item = order.document.items.find((candidate) => candidate.id === itemId)
    const variant = item && catalogue.findVariant(item.sku, item.attributes)
    if (!item || !variant) return { ok: false, refusal: `The catalogue no longer has item ${itemId}'s product` }
    items.push({
      itemId,
      variant,
      copies: item.copies,
      pageCount: pricedPageCount(catalogue.findProduct(item.sku), item.assets),
    })
    skuOf.set(itemId, item.sku)
  }
  if (items.length === 0) return { ok: false, refusal: `Shipment ${shipmentId} has no items to move` }
  const others = catalogue.labs.map((candidate) => candidate.code).filter((code) => code !== lab.code)
  const history = order.pipeline.excludedLabs
  const destination = (held?.submitted?.recipient ?? order.document.recipient).address.countryCode
  const method = methodOf(order, shipmentId)
  const result = allocateShipments(
    catalogue,
    {
      destinationCountryCode: destination,
      shippingMethod: method,
      items,
      // Every other lab is out of the question: the operator chose this one.
      excludedLabsByItem: Object.fromEntries(
        items.map((item) => [item.itemId, [...new Set([...(history[item.itemId] ?? []), ...others])]]),
      ),
      ...(order.pipeline.exclusionReasons ? { exclusionReasons: order.pipeline.exclusionReasons } : {}),
      unavailableLabs: input.unavailableLabs,
      promise: { received: input.now },
    },
    { explain: true },
  )
  if (!result.ok || result.shipments.length !== 1 || result.shipments[0]?.labCode !== lab.code) {
    const reasons = new Set<string>()
    for (const item of result.explanation?.items ?? []) {
      const excluded = item.excluded.find((entry) => entry.labCode === lab.code)
      const sku = skuOf.get(item.itemId) ?? item.itemId
      if (excluded) reasons.add(exclusionWords(excluded.reason, lab.code, sku, destination, method))
    }
    const why = reasons.size > 0 ? [...reasons].join('; ') : `lab ${lab.code} cannot take every item of the shipment`
    return { ok: false, refusal: `Shipment ${shipmentId} cannot move to lab ${lab.code}: ${why}` }
  }
  const plan = result.shipments[0]
  // The new lab's cost, recorded as a `Moved` hand-off when the submit step hands the shipment over
  // (docs/billing.md#margin), in the currency the order is charged in.
  const priceCurrency = held?.labCost?.priceCurrency ?? order.pipeline.billing?.currency
  const labCost = priceCurrency ? { ...labCostOf(catalogue, plan, priceCurrency), kind: 'Moved' as const } : undefined
  return {
    ok: true,
    move: {
      toLabCode: lab.code,
      plan,
      allocated: {
        labCode: plan.labCode,
        labCountryCode: plan.labCountryCode,
        carrier: plan.carrier,
        itemIds: plan.itemIds,
        formats: Object.fromEntries(plan.items.map((item) => [item.itemId, item.printFileFormat])),
        ...(plan.estimate !== undefined ? { estimate: plan.estimate } : {}),
        ...(labCost ? { labCost } : {}),
      },
    },
  }
}

/**
 * Whether an asset's print file made for `fromLab` serves `toLab` too: the same format, colour and (books) paper
 * for the item's variant. Otherwise it is rendered again for the new lab.
 */
export function printFileServes(
  catalogue: Catalogue,
  order: OrderDocument,
  itemId: string,
  fromLab: string,
  toLab: string,
  formats: { from: string | undefined; to: string | undefined },
): boolean {
  if (formats.from === undefined || formats.from !== formats.to) return false
  const item = order.items.find((candidate) => candidate.id === itemId)
  const variant = item && catalogue.findVariant(item.sku, item.attributes)
  const from = variant?.offers.find((offer) => offer.lab.code === fromLab)
  const to = variant?.offers.find((offer) => offer.lab.code === toLab)
  if (!from || !to) return false
  return JSON.stringify([from.colour, from.spine]) === JSON.stringify([to.colour, to.spine])
}

/** What a move did: the new shipment, the print files it made again, and whether the old lab had the job. */
export interface AppliedMove {
  fromShipmentId: string
  fromLabCode: string
  toShipmentId: string
  toLabCode: string
  /** Whether the old lab had been given the job (submitted): then its job is cancelled and it is told. */
  labHadJob: boolean
  /** Assets whose print files are made again for the new lab. */
  rerenderedAssetIds: string[]
  jobs: JobRequest[]
}

/**
 * Moves the shipment to the planned lab under the order's lock: a new shipment `toShipmentId` takes its items (its
 * print files kept where they serve the new lab, else rendered again), the old one leaves the order (kept in the
 * pipeline, `cancelled` with `moved`, when its lab had it; dropped when it had not been submitted), the billing
 * lines follow the items to the new id without changing an amount, and the order's estimate follows.
 */
export function applyMove(
  catalogue: Catalogue,
  order: PipelineOrder,
  shipmentId: string,
  toShipmentId: string,
  move: PlannedMove,
  reason: string,
  now: Date,
): AppliedMove {
  const { document, pipeline } = order
  const old = pipeline.shipments[shipmentId]
  const onOrder = document.shipments.find((candidate) => candidate.id === shipmentId)
  if (!old || !onOrder) throw new Error(`no shipment ${shipmentId} on order ${document.id}`)
  const jobs = addShipment(document, pipeline, { ...move.allocated, id: toShipmentId })
  const created = pipeline.shipments[toShipmentId]
  if (!created) throw new Error(`shipment ${toShipmentId} was not added`)
  // Print files that serve the new lab as they are are kept; the others are rendered again.
  const kept = new Set<string>()
  for (const [assetId, file] of Object.entries(old.printFiles)) {
    const itemId = document.items.find((item) => item.assets.some((asset) => asset.id === assetId))?.id
    if (!file || !itemId || !(assetId in created.printFiles)) continue
    const formats = { from: old.formats[assetId], to: created.formats[assetId] }
    if (!printFileServes(catalogue, document, itemId, old.labCode, move.toLabCode, formats)) continue
    created.printFiles[assetId] = file
    kept.add(assetId)
  }
  const renders = jobs.filter((job) => !kept.has(String((job.data as { assetId?: string }).assetId)))
  created.movedFrom = { shipmentId, labCode: old.labCode, at: now.toISOString(), reason }
  const labHadJob = old.state !== 'allocated'
  const itemIds = onOrder.items.map((entry) => entry.itemId)
  document.shipments = document.shipments.filter((candidate) => candidate.id !== shipmentId)
  if (labHadJob) {
    old.state = 'cancelled'
    old.carrier = { ...onOrder.carrier }
    old.moved = { toShipmentId, toLabCode: move.toLabCode, at: now.toISOString(), itemIds }
  } else {
    delete pipeline.shipments[shipmentId]
  }
  if (pipeline.billing) followShipment(pipeline.billing, shipmentId, toShipmentId)
  refreshOrderEstimate(document, pipeline)
  document.lastUpdated = now.toISOString()
  const allJobs: JobRequest[] = [...renders]
  // While another allocation round runs, it sets the phase when it is done; otherwise the order renders again, or
  // (every print file kept) hands the new shipment to its lab at once.
  if (pipeline.phase === 'rendering' || pipeline.phase === 'producing') {
    if (renders.length > 0) {
      pipeline.phase = 'rendering'
      document.status.details.printReadyAssetsPrepared = 'InProgress'
    } else if (pipeline.phase === 'producing') {
      allJobs.push(...submissionJobs(document, pipeline))
    }
  }
  return {
    fromShipmentId: shipmentId,
    fromLabCode: old.labCode,
    toShipmentId,
    toLabCode: move.toLabCode,
    labHadJob,
    rerenderedAssetIds: renders.map((job) => String((job.data as { assetId?: string }).assetId)),
    jobs: allJobs,
  }
}

/** The billing lines of one shipment move to another id, amounts untouched: the merchant pays what was agreed. */
export function followShipment(billing: BillingState, fromShipmentId: string, toShipmentId: string): void {
  for (const line of Object.values(billing.lines)) {
    if (line.shipmentId === fromShipmentId) line.shipmentId = toShipmentId
  }
  for (const keyOf of [shippingLineKey, dutiesLineKey]) {
    const line = billing.lines[keyOf(fromShipmentId)]
    if (!line) continue
    delete billing.lines[keyOf(fromShipmentId)]
    billing.lines[keyOf(toShipmentId)] = line
  }
}

/** A move as done: the order, the old and new shipment and lab, the print files made again. */
export interface ShipmentMoveResult {
  orderId: string
  accountId: string
  environment: Environment
  fromShipmentId: string
  fromLabCode: string
  toShipmentId: string
  toLabCode: string
  /** Whether the old lab had been given the job: then it is cancelled there (and pushed as `lab.job.movedAway`). */
  oldJobCancelled: boolean
  /** Assets whose print files are made again for the new lab (the others' serve it as they are). */
  rerenderedAssetIds: string[]
  reason: string
}

/** A lab as the console's move form offers it for one shipment: able to take it, or why not. */
export interface MoveLabChoice {
  labCode: string
  name: string
  countryCode: string
  /** Undefined when the lab can take the shipment; otherwise why it cannot. */
  refusal?: string
}

/** One shipment of an order as the move form shows it. */
export interface MovableShipment {
  shipmentId: string
  labCode: string
  /** Undefined when it can move; otherwise why it cannot. */
  refusal?: string
  /** Every other catalogue lab, able ones first (empty when the shipment cannot move). */
  labs: MoveLabChoice[]
}
