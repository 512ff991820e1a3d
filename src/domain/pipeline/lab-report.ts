// The lab-report step's transitions (services/pipeline/lab-report.ts): what a lab reports about a shipment it holds
// (acknowledged, items printed, parcels shipped, items given back, tracking scans), applied forward only.
import type { ExclusionByHistory, ItemRejectionReason } from '../allocation/model.ts'
import type { DeliveryEstimate } from '../delivery-promise.ts'
import { applyTrackingEvents, type TrackingRefusal, trackingRefusal } from '../delivery-tracking.ts'
import type { DeliveryStatus, OrderDocument, Parcel, Shipment, TrackingEvent } from '../order.ts'
import { beginAllocation } from './allocate-order.ts'
import { refreshOrderEstimate, setParcels, setShipmentEstimate } from './delivery-estimates.ts'
import {
  type CancellationAnswer,
  itemsAwaitingAllocation,
  type LabItemState,
  NOTHING,
  type PipelineShipment,
  type PipelineState,
  type ShipmentState,
  setDetail,
  type Transition,
  touch,
} from './pipeline-order.ts'

/** One item a lab gives back, and why (docs/pipeline.md#lab-reports); a `FileDefect` says what is wrong. */
export interface RejectedItem {
  itemId: string
  reason: ItemRejectionReason
  description?: string
}

export type LabReport =
  | { kind: 'acknowledged' }
  | { kind: 'inProduction' }
  /** These items are printed (empty: every open item of the shipment). */
  | { kind: 'printed'; itemIds: string[] }
  | {
      kind: 'shipped'
      carrier: { name: string; service: string } | null
      tracking: { number: string; url: string } | null
      /**
       * When the parcel left; absent: the time the report is recorded, and a report without one repeats any parcel of
       * the same items, carrier and tracking (a lab's retry of a report without a date is the same report).
       */
      dispatchDate?: Date
      /** The items of this parcel; absent: every item of the shipment not yet shipped. */
      itemIds?: string[]
    }
  /**
   * With `items`: only those items leave the shipment and are allocated again. Without: the whole shipment (its
   * items not yet shipped), the lab excluded for `unavailableItemIds` (out of stock) or, when none, for every item.
   */
  | { kind: 'rejected'; reason: string; unavailableItemIds: string[]; items?: RejectedItem[] }
  /**
   * Carrier scans of a shipped shipment (domain/delivery-tracking.ts). `fromStatus` (the simulated labs): applied
   * only while the shipment's `deliveryStatus` is still that (null: no scan yet), so a step run twice at once, or
   * by a timer and an advance together, reports its scan once.
   */
  | { kind: 'tracking'; events: TrackingEvent[]; fromStatus?: DeliveryStatus | null }
  /** The lab's answer to a cancellation request: applied by domain/lab-cancellation.ts, not recordLabReport. */
  | { kind: 'cancellation'; answer: CancellationAnswer }

const PROGRESS: Record<ShipmentState, number> = {
  allocated: 0,
  submitted: 1,
  acknowledged: 2,
  inProduction: 3,
  shipped: 4,
  rejected: 4,
  cancelled: 4,
}

/**
 * Why an item report cannot apply: an item id the shipment does not hold (`InvalidValue`), or an item already in a
 * different parcel or shipped and now rejected (`ItemAlreadyShipped`). `field` names the report's field
 * (`itemIds[1]`, `items[0].itemId`), as the lab API's 400 answer does.
 */
export interface ItemReportRefusal {
  code: 'InvalidValue' | 'ItemAlreadyShipped'
  field: string
  itemId: string
  shipmentId: string
  /**
   * A whole-shipment `shipped` report after every item has shipped, differing from the parcels reported: the
   * field's value as reported and as shipped (`field` is then a parcel field: `tracking.number`, `carrier.name`...).
   */
  parcel?: { provided: string | null; shipped: string | null }
}

/** What a lab report did; a report that cannot apply also says why (the lab API answers with it). */
export interface LabReportTransition extends Transition {
  refusal?: TrackingRefusal
  itemRefusal?: ItemReportRefusal
}

/** Where one item of a shipment is at its lab (the lab API's job view shows it). */
export function labItemState(pipeline: PipelineState, shipmentId: string, itemId: string): LabItemState {
  const shipment = pipeline.shipments[shipmentId]
  const reported = shipment?.itemStates?.[itemId]
  if (reported) return reported
  return shipment?.state === 'shipped' ? 'shipped' : 'open'
}

/** The parcel an item of the shipment went in; undefined while it has not shipped. */
function parcelOf(onOrder: Shipment, itemId: string): Parcel | undefined {
  return onOrder.parcels?.find((parcel) => parcel.items.some((entry) => entry.itemId === itemId))
}

/** A parcel as a `shipped` report describes it: `dispatchDate` null when the report gave none (then: now). */
type ReportedParcel = Omit<Parcel, 'items' | 'dispatchDate'> & { dispatchDate: string | null }

/**
 * The report field where a reported parcel differs from one already recorded (undefined: the same parcel). The
 * tracking URL counts: a lab that re-sends a tracking number with another URL is changing what the merchant was
 * shown, not repeating itself. A report without a dispatch date differs in no date: its retry, sent later, is the
 * same report.
 */
function parcelDifference(recorded: Omit<Parcel, 'items'>, reported: ReportedParcel): string | undefined {
  if ((recorded.tracking === null) !== (reported.tracking === null)) return 'tracking'
  if (recorded.tracking?.number !== reported.tracking?.number) return 'tracking.number'
  if (recorded.tracking?.url !== reported.tracking?.url) return 'tracking.url'
  if (recorded.carrier.name !== reported.carrier.name) return 'carrier.name'
  if (recorded.carrier.service !== reported.carrier.service) return 'carrier.service'
  if (reported.dispatchDate !== null && recorded.dispatchDate !== reported.dispatchDate) return 'dispatchDate'
  return undefined
}

function sameParcel(recorded: Omit<Parcel, 'items'>, reported: ReportedParcel): boolean {
  return parcelDifference(recorded, reported) === undefined
}

/**
 * The parcels a shipment has shipped in; a shipment shipped before parcels were kept shows its one parcel as its
 * own carrier, tracking and dispatch date.
 */
function shippedParcels(onOrder: Shipment): Omit<Parcel, 'items'>[] {
  if (onOrder.parcels && onOrder.parcels.length > 0) return onOrder.parcels
  if (onOrder.dispatchDate === null) return []
  return [{ carrier: onOrder.carrier, tracking: onOrder.tracking, dispatchDate: onOrder.dispatchDate }]
}

/**
 * Where a whole-shipment `shipped` report (no `itemIds`) differs once every item has shipped: it can only repeat a
 * parcel already reported. Compared with the parcel of the same tracking number (else the last parcel, which the
 * shipment shows), so the field named is the one the lab changed.
 */
function repeatDifference(
  onOrder: Shipment,
  described: ReportedParcel,
): { field: string; values: { provided: string | null; shipped: string | null } } | undefined {
  const parcels = shippedParcels(onOrder)
  if (parcels.length === 0 || parcels.some((parcel) => sameParcel(parcel, described))) return undefined
  const sameNumber = parcels.find(
    (parcel) => (parcel.tracking?.number ?? null) === (described.tracking?.number ?? null),
  )
  const shipped = sameNumber ?? (parcels.at(-1) as Omit<Parcel, 'items'>)
  const field = parcelDifference(shipped, described) as string
  return { field, values: { provided: parcelField(described, field), shipped: parcelField(shipped, field) } }
}

/** A parcel's value at a report field (`tracking.url`), as text; null when it has none. */
function parcelField(parcel: ReportedParcel, field: string): string | null {
  switch (field) {
    case 'tracking':
      return parcel.tracking ? parcel.tracking.number : null
    case 'tracking.number':
      return parcel.tracking?.number ?? null
    case 'tracking.url':
      return parcel.tracking?.url ?? null
    case 'carrier.name':
      return parcel.carrier.name
    case 'carrier.service':
      return parcel.carrier.service
    default:
      return parcel.dispatchDate
  }
}

/** The parcel a `shipped` report describes, before its items (the shipment's carrier when the report names none). */
function parcelOfReport(onOrder: Shipment, report: Extract<LabReport, { kind: 'shipped' }>): ReportedParcel {
  return {
    carrier: report.carrier ?? onOrder.carrier,
    tracking: report.tracking,
    dispatchDate: report.dispatchDate ? report.dispatchDate.toISOString() : null,
  }
}

/**
 * Why an item report (`printed`, `shipped`, `rejected` with `items`) cannot apply to the shipment as it is; undefined
 * when it can (a repeat can: it changes nothing). Decided again under the order's lock by `recordLabReport`.
 */
export function itemReportRefusal(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  report: LabReport,
): ItemReportRefusal | undefined {
  const onOrder = order.shipments.find((candidate) => candidate.id === shipmentId)
  const shipment = pipeline.shipments[shipmentId]
  if (!onOrder || !shipment) return undefined
  const held = new Set(onOrder.items.map((entry) => entry.itemId))
  const refuse = (code: ItemReportRefusal['code'], field: string, itemId: string): ItemReportRefusal => ({
    code,
    field,
    itemId,
    shipmentId,
  })
  switch (report.kind) {
    case 'printed': {
      const index = report.itemIds.findIndex((itemId) => !held.has(itemId))
      return index < 0 ? undefined : refuse('InvalidValue', `itemIds[${index}]`, report.itemIds[index] as string)
    }
    case 'shipped': {
      const parcel = parcelOfReport(onOrder, report)
      if (report.itemIds === undefined) {
        // Without items the report is a parcel of every item not yet shipped; with none left, a repeat or nothing.
        if (onOrder.items.some((entry) => labItemState(pipeline, shipmentId, entry.itemId) !== 'shipped'))
          return undefined
        const difference = repeatDifference(onOrder, parcel)
        if (!difference) return undefined
        return { ...refuse('ItemAlreadyShipped', difference.field, ''), parcel: difference.values }
      }
      for (const [index, itemId] of report.itemIds.entries()) {
        if (!held.has(itemId)) return refuse('InvalidValue', `itemIds[${index}]`, itemId)
        const shippedIn = parcelOf(onOrder, itemId)
        if (shippedIn && !sameParcel(shippedIn, parcel))
          return refuse('ItemAlreadyShipped', `itemIds[${index}]`, itemId)
      }
      return undefined
    }
    case 'rejected': {
      for (const [index, { itemId }] of (report.items ?? []).entries()) {
        const field = `items[${index}].itemId`
        // An item this shipment already gave back: a repeat.
        if (shipment.itemStates?.[itemId] === 'rejected') continue
        if (!held.has(itemId)) return refuse('InvalidValue', field, itemId)
        if (labItemState(pipeline, shipmentId, itemId) === 'shipped') return refuse('ItemAlreadyShipped', field, itemId)
      }
      return undefined
    }
    default:
      return undefined
  }
}

/**
 * A lab reports on a shipment it holds. Reports that would move a shipment (or an item) backwards are ignored; a
 * report the shipment cannot take (an item it does not hold, an item shipped in another parcel) changes nothing
 * and says why in `itemRefusal`. With a `shipped` report, `afterDispatch` is the shipment's estimate from its real
 * dispatch date (`estimateAfterDispatch`; null: the catalogue gives none), which replaces the allocation's once the
 * last parcel has shipped; the promise stays.
 */
export function recordLabReport(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  report: LabReport,
  now: Date,
  afterDispatch?: DeliveryEstimate | null,
): LabReportTransition {
  const shipment = pipeline.shipments[shipmentId]
  const onOrder = order.shipments.find((candidate) => candidate.id === shipmentId)
  if (report.kind === 'tracking') {
    // Only a parcel that has left the lab has a carrier. Decided here, under the order's lock, whatever a check
    // made before the lock found.
    const refusal = trackingRefusal(shipment?.state, onOrder, report.events)
    if (refusal) return { changed: false, jobs: [], refusal }
    if (!onOrder) return NOTHING
    // A simulated lab's scan applies only from the status its step was decided on (a step run twice reports once).
    if (report.fromStatus !== undefined && (onOrder.deliveryStatus ?? null) !== report.fromStatus) return NOTHING
    if (!applyTrackingEvents(order, onOrder, report.events, shipment?.promise)) return NOTHING
    touch(order, now)
    return { changed: true, jobs: [] }
  }
  if (!shipment || !onOrder || PROGRESS[shipment.state] < 1) return NOTHING
  const itemRefusal = itemReportRefusal(order, pipeline, shipmentId, report)
  if (itemRefusal) return { changed: false, jobs: [], itemRefusal }
  if (shipment.state === 'shipped' || shipment.state === 'rejected' || shipment.state === 'cancelled') return NOTHING
  switch (report.kind) {
    case 'cancellation':
      // Answers to cancellation requests are applied by recordCancellationAnswer (domain/lab-cancellation.ts).
      return NOTHING
    case 'acknowledged':
    case 'inProduction': {
      if (PROGRESS[report.kind] <= PROGRESS[shipment.state]) return NOTHING
      shipment.state = report.kind
      touch(order, now)
      return { changed: true, jobs: [] }
    }
    case 'printed': {
      const itemIds = report.itemIds.length > 0 ? report.itemIds : onOrder.items.map((entry) => entry.itemId)
      let changed = startProduction(shipment)
      for (const itemId of itemIds) {
        if (labItemState(pipeline, shipmentId, itemId) !== 'open') continue
        shipment.itemStates = { ...shipment.itemStates, [itemId]: 'printed' }
        changed = true
      }
      if (!changed) return NOTHING
      touch(order, now)
      return { changed: true, jobs: [] }
    }
    case 'shipped':
      return recordParcel(order, pipeline, shipment, onOrder, report, now, afterDispatch)
    case 'rejected':
      return recordRejection(order, pipeline, shipmentId, report, now)
  }
}

/** A shipment with an item printed or shipped is in production, if it was not already; whether it moved. */
function startProduction(shipment: PipelineShipment): boolean {
  if (PROGRESS[shipment.state] >= PROGRESS.inProduction) return false
  shipment.state = 'inProduction'
  return true
}

/**
 * One parcel of the shipment left the lab: its items are shipped. The shipment's own carrier, tracking and dispatch
 * date are its first parcel's while items remain, and the last parcel's once every item has shipped (the delivery
 * estimate follows that dispatch). A parcel with the same carrier, tracking and dispatch date as one already reported
 * is that parcel: its new items join it, and a repeat changes nothing.
 */
function recordParcel(
  order: OrderDocument,
  pipeline: PipelineState,
  shipment: PipelineShipment,
  onOrder: Shipment,
  report: Extract<LabReport, { kind: 'shipped' }>,
  now: Date,
  afterDispatch: DeliveryEstimate | null | undefined,
): LabReportTransition {
  const shipmentId = onOrder.id
  const requested = report.itemIds ?? onOrder.items.map((entry) => entry.itemId)
  const fresh = [...new Set(requested)].filter((itemId) => labItemState(pipeline, shipmentId, itemId) !== 'shipped')
  if (fresh.length === 0) return NOTHING
  const described = parcelOfReport(onOrder, report)
  const parcels = structuredClone(onOrder.parcels ?? [])
  // New items join the parcel they match; without a date, only a tracked one (its number names it): two untracked
  // parcels reported without dates are two parcels.
  const joinable = described.dispatchDate !== null || described.tracking !== null
  let parcel = joinable ? parcels.find((candidate) => sameParcel(candidate, described)) : undefined
  if (!parcel) {
    parcel = { items: [], ...described, dispatchDate: described.dispatchDate ?? now.toISOString() }
    parcels.push(parcel)
  }
  parcel.items.push(...fresh.map((itemId) => ({ itemId })))
  setParcels(onOrder, parcels)
  shipment.itemStates = { ...shipment.itemStates, ...Object.fromEntries(fresh.map((id) => [id, 'shipped' as const])) }
  touch(order, now)
  const remaining = onOrder.items.filter((entry) => labItemState(pipeline, shipmentId, entry.itemId) !== 'shipped')
  if (remaining.length > 0) {
    startProduction(shipment)
    showParcel(onOrder, parcels[0] as Parcel)
    setDetail(order, 'shipping', 'InProgress')
    return { changed: true, jobs: [] }
  }
  showParcel(onOrder, parcel)
  if (afterDispatch !== undefined) setShipmentEstimate(onOrder, afterDispatch)
  finishShipment(order, pipeline, shipment, onOrder)
  return { changed: true, jobs: [] }
}

/** The shipment's own carrier, tracking and dispatch date become the parcel's. */
function showParcel(onOrder: Shipment, parcel: Parcel): void {
  onOrder.dispatchDate = parcel.dispatchDate
  onOrder.carrier = { ...parcel.carrier }
  onOrder.tracking = parcel.tracking ? { ...parcel.tracking } : null
}

/** Every live item of the shipment has shipped: it is Shipped, and the order Complete when nothing else is left. */
function finishShipment(
  order: OrderDocument,
  pipeline: PipelineState,
  shipment: PipelineShipment,
  onOrder: Shipment,
): void {
  shipment.state = 'shipped'
  onOrder.status = 'Shipped'
  const live = Object.values(pipeline.shipments).filter(
    (candidate) => candidate.state !== 'rejected' && candidate.state !== 'cancelled',
  )
  const allShipped =
    live.every((candidate) => candidate.state === 'shipped') && itemsAwaitingAllocation(order, pipeline).length === 0
  if (allShipped) {
    setDetail(order, 'inProduction', 'Complete')
    setDetail(order, 'shipping', 'Complete')
    order.status.stage = 'Complete'
    pipeline.phase = 'complete'
  } else {
    setDetail(order, 'shipping', 'InProgress')
  }
  refreshOrderEstimate(order, pipeline)
}

/**
 * The lab gives items back: with `items`, only those leave the shipment (the rest stay with the lab, untouched);
 * without, every item not yet shipped does. Leaving every remaining item is the whole shipment rejected: it leaves
 * the order. The lab is excluded for each item with the reason given (docs/allocation.md#re-routed-items), and the
 * items are allocated again from the kept copies of their assets; the next round's routing names them.
 */
function recordRejection(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  report: Extract<LabReport, { kind: 'rejected' }>,
  now: Date,
): LabReportTransition {
  const shipment = pipeline.shipments[shipmentId] as PipelineShipment
  const onOrder = order.shipments.find((candidate) => candidate.id === shipmentId) as Shipment
  const unshipped = onOrder.items
    .map((entry) => entry.itemId)
    .filter((itemId) => labItemState(pipeline, shipmentId, itemId) !== 'shipped')
  const byItem = report.items && report.items.length > 0
  // Item id -> why the lab is excluded for it (none: the item is allocated again, the lab still a candidate).
  const leaving = new Map<
    string,
    { exclusion?: ExclusionByHistory; reason: ExclusionByHistory; description?: string }
  >()
  if (byItem) {
    for (const item of report.items ?? []) {
      if (!unshipped.includes(item.itemId) || leaving.has(item.itemId)) continue
      const description = item.description ? { description: item.description } : {}
      leaving.set(item.itemId, { exclusion: item.reason, reason: item.reason, ...description })
    }
  } else {
    const outOfStock = new Set(report.unavailableItemIds)
    for (const itemId of unshipped) {
      if (outOfStock.has(itemId)) leaving.set(itemId, { exclusion: 'OutOfStock', reason: 'OutOfStock' })
      else {
        const exclusion = outOfStock.size > 0 ? {} : { exclusion: 'Rejected' as const }
        leaving.set(itemId, { ...exclusion, reason: 'Rejected', description: report.reason })
      }
    }
  }
  if (leaving.size === 0) return NOTHING
  pipeline.exclusionReasons ??= {}
  for (const [itemId, { exclusion }] of leaving) {
    if (!exclusion) continue
    const excluded = pipeline.excludedLabs[itemId] ?? []
    if (!excluded.includes(shipment.labCode)) excluded.push(shipment.labCode)
    pipeline.excludedLabs[itemId] = excluded
    const reasons = pipeline.exclusionReasons[itemId] ?? {}
    reasons[shipment.labCode] = exclusion
    pipeline.exclusionReasons[itemId] = reasons
  }
  pipeline.reroutes = [
    ...(pipeline.reroutes ?? []).filter((entry) => !leaving.has(entry.itemId)),
    ...[...leaving].map(([itemId, { reason, description }]) => ({
      itemId,
      fromShipmentId: shipmentId,
      fromLabCode: shipment.labCode,
      reason,
      ...(description ? { description } : {}),
    })),
  ]
  shipment.itemStates = {
    ...shipment.itemStates,
    ...Object.fromEntries([...leaving.keys()].map((itemId) => [itemId, 'rejected' as const])),
  }
  const staying = onOrder.items.filter((entry) => !leaving.has(entry.itemId))
  if (staying.length === 0) {
    // The whole shipment: it leaves the order, as a shipment the lab refused always has.
    shipment.state = 'rejected'
    shipment.carrier = { ...onOrder.carrier }
    order.shipments = order.shipments.filter((candidate) => candidate.id !== shipmentId)
  } else {
    onOrder.items = staying
    if (staying.every((entry) => labItemState(pipeline, shipmentId, entry.itemId) === 'shipped')) {
      finishShipment(order, pipeline, shipment, onOrder)
    }
  }
  touch(order, now)
  refreshOrderEstimate(order, pipeline)
  if (pipeline.phase === 'failed') return { changed: true, jobs: [] }
  return { changed: true, jobs: beginAllocation(order, pipeline) }
}
