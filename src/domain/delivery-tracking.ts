// A dispatched parcel's story after the lab's door (docs/api.md#delivery-tracking): the carrier's scans a lab
// reports, and the shipment's `deliveryStatus` they lead to. Pure; the lab-report step applies it under the
// order's lock (pipeline/lab-report.ts, `recordLabReport` with a `tracking` report).
//
// Statuses only move forward. Each has a rank: InTransit 1; OutForDelivery and DeliveryFailed 2; Delivered and
// Returned 3, which are final. A scan of a higher rank moves the status; a scan of the same rank moves it only while
// it is not final and only when it is not older than the scan that set it (a failed attempt, then out for delivery
// again); a scan of a lower rank, or any scan after a final status, is recorded and changes nothing. So a late
// InTransit after Delivered is kept in `trackingEvents` and the shipment stays Delivered.
//
// The scans of one report are applied oldest first; scans of the same instant in rank order, then in the order of
// DELIVERY_STATUSES. So the status one report leads to depends on its scans, never on the order they are listed in.
import type { DeliveryEstimate } from './delivery-promise.ts'
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  keepCreditsLast,
  type OrderDocument,
  type Shipment,
  type TrackingEvent,
} from './order.ts'
import { keepReprintKeysLast } from './pipeline/delivery-estimates.ts'
import type { ShipmentState } from './pipeline/pipeline-order.ts'

export const DELIVERY_STATUS_RANK: Readonly<Record<DeliveryStatus, number>> = {
  InTransit: 1,
  OutForDelivery: 2,
  DeliveryFailed: 2,
  Delivered: 3,
  Returned: 3,
}

/** Statuses after which nothing moves the shipment. */
const FINAL_RANK = 3

/** The most scans one shipment keeps; a lab API report that would go beyond is refused (docs/pipeline.md). */
export const MAX_TRACKING_EVENTS_PER_SHIPMENT = 500

/** A scan's identity: reports are idempotent by the scan's time and status. */
function scanKey(event: TrackingEvent): string {
  return `${new Date(event.time).toISOString()} ${event.status}`
}

/** The scan in canonical form: an ISO 8601 UTC time, keys in wire order, `location` only when given. */
export function canonicalTrackingEvent(event: TrackingEvent): TrackingEvent {
  return {
    time: new Date(event.time).toISOString(),
    status: event.status,
    description: event.description,
    ...(event.location ? { location: event.location } : {}),
  }
}

/** The scans of `events` the shipment does not have yet (repeats within `events` counted once), canonical. */
export function newTrackingEvents(shipment: Shipment, events: readonly TrackingEvent[]): TrackingEvent[] {
  const seen = new Set((shipment.trackingEvents ?? []).map(scanKey))
  const fresh: TrackingEvent[] = []
  for (const event of events) {
    const key = scanKey(event)
    if (seen.has(key)) continue
    seen.add(key)
    fresh.push(canonicalTrackingEvent(event))
  }
  return fresh
}

/** Why a lab's tracking report cannot apply to its shipment; the lab API answers it as a 400. */
export type TrackingRefusal =
  /** The parcel has not left the lab (or the lab gave the shipment back): there is no carrier to scan it. */
  | { reason: 'notShipped'; state: ShipmentState | undefined }
  /** The merchant cancelled the shipment. */
  | { reason: 'cancelled' }
  /** The shipment would keep more than MAX_TRACKING_EVENTS_PER_SHIPMENT scans. */
  | { reason: 'tooManyScans'; kept: number; fresh: number }

/**
 * Whether a tracking report can apply to the shipment as it is now (`state` from the pipeline, `onOrder` the
 * shipment on the order, absent once a lab rejected it). Decided again under the order's lock, where it is final.
 */
export function trackingRefusal(
  state: ShipmentState | undefined,
  onOrder: Shipment | undefined,
  events: readonly TrackingEvent[],
): TrackingRefusal | undefined {
  if (state === 'cancelled' || onOrder?.cancelled) return { reason: 'cancelled' }
  if (state !== 'shipped' || !onOrder) return { reason: 'notShipped', state }
  const kept = onOrder.trackingEvents?.length ?? 0
  const fresh = newTrackingEvents(onOrder, events).length
  if (kept + fresh > MAX_TRACKING_EVENTS_PER_SHIPMENT) return { reason: 'tooManyScans', kept, fresh }
  return undefined
}

/** Oldest first; at the same instant, lower ranks first, then in the order of DELIVERY_STATUSES. */
function scanOrder(a: TrackingEvent, b: TrackingEvent): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1
  const byRank = DELIVERY_STATUS_RANK[a.status] - DELIVERY_STATUS_RANK[b.status]
  return byRank !== 0 ? byRank : DELIVERY_STATUSES.indexOf(a.status) - DELIVERY_STATUSES.indexOf(b.status)
}

/**
 * Whether `event` sets the status, from the scan that set the current one (none yet: any scan does), by the rule
 * above; "not older" in scan order, so that reports of one instant end alike whichever arrives first.
 */
function moves(current: TrackingEvent | undefined, event: TrackingEvent): boolean {
  if (current === undefined) return true
  const rank = DELIVERY_STATUS_RANK[current.status]
  const eventRank = DELIVERY_STATUS_RANK[event.status]
  if (eventRank !== rank) return eventRank > rank
  return rank < FINAL_RANK && scanOrder(event, current) >= 0
}

/**
 * Adds a lab's scans to a shipped shipment and moves its status; true when anything changed (a new scan, even one
 * that moves nothing). The delivery is late when its date (UTC) is after the promise's `to` (the estimate made at
 * allocation; the shipment's own estimate when there was none) or after the order's `deliverBy`.
 */
export function applyTrackingEvents(
  order: OrderDocument,
  shipment: Shipment,
  events: readonly TrackingEvent[],
  promise: DeliveryEstimate | undefined,
): boolean {
  const fresh = newTrackingEvents(shipment, events).sort(scanOrder)
  if (fresh.length === 0) return false
  const status = shipment.deliveryStatus
  let current = status && latestScanOf(shipment.trackingEvents ?? [], status)
  let delivered: TrackingEvent | undefined
  for (const event of fresh) {
    if (!moves(current, event)) continue
    if (event.status === 'Delivered' && current?.status !== 'Delivered') delivered = event
    current = event
  }
  // Keys are set in the wire order (deliveryStatus, trackingEvents, deliveredAt, deliveredLate): the stored
  // document is served as it is.
  if (current !== undefined) shipment.deliveryStatus = current.status
  shipment.trackingEvents = [...(shipment.trackingEvents ?? []), ...fresh].sort(scanOrder)
  if (delivered && shipment.deliveredAt === undefined) {
    shipment.deliveredAt = delivered.time
    shipment.deliveredLate = isLate(
      delivered.time,
      promise?.estimatedDelivery.to ?? shipment.estimatedDelivery?.to,
      order,
    )
  }
  keepReprintKeysLast(shipment)
  markOrderDelivered(order)
  return true
}

/**
 * The scan that set `status`: the latest scan of it. A later scan of a status of the same rank would have moved
 * it, and an earlier one cannot be it once a later one of that status exists.
 */
function latestScanOf(events: readonly TrackingEvent[], status: DeliveryStatus): TrackingEvent | undefined {
  let latest: TrackingEvent | undefined
  for (const event of events) if (event.status === status && (!latest || event.time >= latest.time)) latest = event
  return latest
}

function isLate(deliveredAt: string, promisedTo: string | undefined, order: OrderDocument): boolean {
  const date = deliveredAt.slice(0, 10)
  const limits = [promisedTo, order.deliverBy].filter((limit): limit is string => limit !== undefined)
  return limits.some((limit) => date > limit)
}

/**
 * When every shipment that was not cancelled has been delivered and nothing is left to ship (the order is
 * Complete): the order's `deliveredAt` (the last delivery) and `deliveredLate` (any of them late).
 */
function markOrderDelivered(order: OrderDocument): void {
  if (order.deliveredAt !== undefined || order.status.stage !== 'Complete') return
  const live = order.shipments.filter((shipment) => !shipment.cancelled && shipment.status !== 'Cancelled')
  if (live.length === 0 || live.some((shipment) => shipment.deliveredAt === undefined)) return
  order.deliveredAt = live.map((shipment) => shipment.deliveredAt as string).reduce((a, b) => (a >= b ? a : b))
  order.deliveredLate = live.some((shipment) => shipment.deliveredLate === true)
  // A shipment delivered late before this one may already have its credit: `credits` stays the last key.
  keepCreditsLast(order)
}
