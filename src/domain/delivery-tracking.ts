// A dispatched parcel's story after the lab's door (docs/api.md#delivery-tracking): the carrier's scans a lab
// reports, and the shipment's `deliveryStatus` they lead to. Pure; the lab-report step applies it under the
// order's lock (order-pipeline.ts, `recordLabReport` with a `tracking` report).
//
// Statuses only move forward. Each has a rank: InTransit 1; OutForDelivery and DeliveryFailed 2; Delivered and
// Returned 3, which are final. A scan of a higher rank moves the status; a scan of the same rank moves it only while
// it is not final and only when it is not older than the scan that set it (a failed attempt, then out for delivery
// again); a scan of a lower rank, or any scan after a final status, is recorded and changes nothing. So a late
// InTransit after Delivered is kept in `trackingEvents` and the shipment stays Delivered.
import type { DeliveryEstimate } from './delivery-promise.ts'
import type { DeliveryStatus, OrderDocument, Shipment, TrackingEvent } from './order.ts'

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

/** The scans of `events` the shipment does not have yet (repeats within `events` counted once). */
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

/** Whether `event` sets the status, from `current` (set by a scan at `currentTime`), by the rule above. */
function moves(current: DeliveryStatus | undefined, currentTime: string | undefined, event: TrackingEvent): boolean {
  if (current === undefined) return true
  const rank = DELIVERY_STATUS_RANK[current]
  const eventRank = DELIVERY_STATUS_RANK[event.status]
  if (eventRank !== rank) return eventRank > rank
  return rank < FINAL_RANK && (currentTime === undefined || event.time >= currentTime)
}

/**
 * Adds a lab's scans to a shipped shipment and moves its status; true when anything changed. The delivery is
 * late when its date (UTC) is after the promise's `to` or the order's `deliverBy`.
 */
export function applyTrackingEvents(
  order: OrderDocument,
  shipment: Shipment,
  events: readonly TrackingEvent[],
  promise: DeliveryEstimate | undefined,
): boolean {
  const fresh = newTrackingEvents(shipment, events)
  if (fresh.length === 0) return false
  const byTime = (a: TrackingEvent, b: TrackingEvent) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0)
  fresh.sort(byTime)
  let status = shipment.deliveryStatus
  let statusTime = status && latestScanOf(shipment.trackingEvents ?? [], status)?.time
  let delivered: TrackingEvent | undefined
  for (const event of fresh) {
    if (!moves(status, statusTime, event)) continue
    if (event.status === 'Delivered' && status !== 'Delivered') delivered = event
    status = event.status
    statusTime = event.time
  }
  // deliveryStatus before trackingEvents: on the first scan both keys are new, and the wire order puts it first.
  if (status !== undefined) shipment.deliveryStatus = status
  shipment.trackingEvents = [...(shipment.trackingEvents ?? []), ...fresh].sort(byTime)
  if (delivered && shipment.deliveredAt === undefined) {
    shipment.deliveredAt = delivered.time
    shipment.deliveredLate = isLate(
      delivered.time,
      promise?.estimatedDelivery.to ?? shipment.estimatedDelivery?.to,
      order,
    )
  }
  markOrderDelivered(order)
  return true
}

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
}
