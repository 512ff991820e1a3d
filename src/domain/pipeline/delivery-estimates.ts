// Delivery estimates on the order (docs/api.md#delivery-estimates): the estimate keys of shipments and of the order
// set in their place of the wire order, used by allocation (a shipment's promise) and by lab reports (dispatch).
import { combinedEstimate, type DeliveryEstimate } from '../delivery-promise.ts'
import type { OrderDocument, Parcel, Shipment } from '../order.ts'
import { itemsAwaitingAllocation, type PipelineState } from './pipeline-order.ts'

/** Shipment keys the wire order puts after the estimate (delivery tracking's). */
const SHIPMENT_KEYS_AFTER_ESTIMATE = [
  'parcels',
  'deliveryStatus',
  'trackingEvents',
  'deliveredAt',
  'deliveredLate',
  'reprintOf',
  'claimId',
] as const

/** Shipment keys the wire order puts after `parcels` (delivery tracking's). */
const SHIPMENT_KEYS_AFTER_PARCELS = [
  'deliveryStatus',
  'trackingEvents',
  'deliveredAt',
  'deliveredLate',
  'reprintOf',
  'claimId',
] as const

/** A reprint's keys (docs/claims.md#reprints): the last of a shipment's. */
const SHIPMENT_REPRINT_KEYS = ['reprintOf', 'claimId'] as const

/** Puts a reprint's keys back at the end of the shipment after keys were added before them (delivery tracking's). */
export function keepReprintKeysLast(shipment: Shipment): void {
  const present = SHIPMENT_REPRINT_KEYS.filter((key) => Object.hasOwn(shipment, key)).map(
    (key) => [key, shipment[key]] as const,
  )
  for (const [key] of present) delete shipment[key]
  for (const [key, value] of present) Object.assign(shipment, { [key]: value })
}

/** Order keys the wire order puts after the estimate. */
const ORDER_KEYS_AFTER_ESTIMATE = ['deliveredAt', 'deliveredLate', 'credits'] as const

type Estimated = Pick<Shipment, 'estimatedDispatchDate' | 'estimatedDelivery'>

/**
 * Sets (or, for null, removes) the estimate keys of a shipment or an order in their place of the wire order: the
 * keys that follow them are taken out and put back after them, so the stored text stays in contract order.
 */
function setEstimate<T extends Estimated>(
  target: T,
  estimate: DeliveryEstimate | null,
  keysAfter: readonly (keyof T & string)[],
): void {
  const following = keysAfter.filter((key) => Object.hasOwn(target, key)).map((key) => [key, target[key]] as const)
  for (const [key] of following) delete target[key]
  delete target.estimatedDispatchDate
  delete target.estimatedDelivery
  if (estimate) {
    target.estimatedDispatchDate = estimate.estimatedDispatchDate
    target.estimatedDelivery = { from: estimate.estimatedDelivery.from, to: estimate.estimatedDelivery.to }
  }
  for (const [key, value] of following) target[key] = value
}

/** Sets a shipment's `parcels` in its place of the wire order (after the estimate, before delivery tracking). */
export function setParcels(shipment: Shipment, parcels: Parcel[]): void {
  const following = SHIPMENT_KEYS_AFTER_PARCELS.filter((key) => Object.hasOwn(shipment, key)).map(
    (key) => [key, shipment[key]] as const,
  )
  for (const [key] of following) delete shipment[key]
  shipment.parcels = parcels
  for (const [key, value] of following) Object.assign(shipment, { [key]: value })
}

/** Sets (null: removes) a shipment's `estimatedDispatchDate` and `estimatedDelivery`. */
export function setShipmentEstimate(shipment: Shipment, estimate: DeliveryEstimate | null): void {
  setEstimate(shipment, estimate, SHIPMENT_KEYS_AFTER_ESTIMATE)
}

/** A shipment's estimate as the order shows it; null when it has none. */
export function shipmentEstimate(shipment: Shipment): DeliveryEstimate | null {
  const { estimatedDispatchDate, estimatedDelivery } = shipment
  return estimatedDispatchDate && estimatedDelivery ? { estimatedDispatchDate, estimatedDelivery } : null
}

/**
 * The order's estimate made true again after its shipments changed: the latest of its live (not cancelled)
 * shipments' estimates. None while an item waits for a lab (a refused shipment's items before their new
 * allocation), when a live shipment has no estimate, when none is live, or once the order is cancelled.
 */
export function refreshOrderEstimate(order: OrderDocument, pipeline: PipelineState): void {
  const live = order.shipments.filter((shipment) => !shipment.cancelled)
  const known =
    order.status.stage !== 'Cancelled' && live.length > 0 && itemsAwaitingAllocation(order, pipeline).length === 0
  setEstimate(order, known ? combinedEstimate(live.map(shipmentEstimate)) : null, ORDER_KEYS_AFTER_ESTIMATE)
}
