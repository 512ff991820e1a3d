// The operator's actions on one order (docs/admin.md#acting-on-an-order): cancel, refund part of a charge, retry a
// failed download, release a held order, add a note, and move a shipment to another lab
// (docs/admin.md#moving-a-shipment-to-another-lab). One function per action, called by the command line
// (operator.service.ts) and the console (console-sections.ts) alike; the rules are the order operations service's
// (services/order-operations.service.ts), over the merchant's actions and the pipeline's machinery. The checks of
// what the operator typed come first, in this order for both front ends: the order's ID, the reason (or the note),
// the amount; each refusal an OperatorRefusal that each front end words.
import type { AuditActor } from '../../domain/audit.ts'
import { parseId } from '../../domain/ids.ts'
import {
  OperatorRefusal,
  ORDER_ACTION_REASON_MAX_LENGTH,
  ORDER_NOTE_MAX_LENGTH,
} from '../../domain/operator-refusal.ts'
import type { OrderActionInput, OrderNote, OrderOperationsService, OrderOperator } from '../order-operations.service.ts'
import type { ShipmentMoveResult, ShipmentMovesService } from '../shipment-moves.service.ts'
import type { OperatorContext } from './context.ts'
import { positiveAmountMinor } from './operator-rules.ts'

/** What the order actions run on: the order operations service (built when first needed) and who acts. */
export interface OrdersDeps {
  orderOperations(): Promise<OrderOperationsService>
  actor: AuditActor
}

/** An order action as the operator gives it: the order, why, and the order's version as read (the console's). */
export interface OrderActionRequest {
  order: string
  reason: string
  version?: string
}

function operatorOf(actor: AuditActor): OrderOperator {
  if (actor.kind !== 'operator' && actor.kind !== 'cli') throw new Error(`an order action by ${actor.kind}`)
  return actor
}

/** The request's order and reason checked, as the service takes them. */
function checked(input: OrderActionRequest): OrderActionInput {
  const order = typeof input.order === 'string' ? input.order.trim() : ''
  if (parseId('ord', order) === undefined) throw new OperatorRefusal({ field: 'order', reason: 'not-an-id' }, order)
  const reason = typeof input.reason === 'string' ? input.reason.trim() : ''
  if (reason === '') throw new OperatorRefusal({ field: 'reason', reason: 'missing' }, reason)
  if (reason.length > ORDER_ACTION_REASON_MAX_LENGTH) {
    throw new OperatorRefusal({ field: 'reason', reason: 'too-long' }, `${reason.slice(0, 20)}...`)
  }
  return {
    orderId: order.toLowerCase(),
    reason,
    ...(typeof input.version === 'string' && input.version !== '' ? { version: input.version } : {}),
  }
}

/** Cancels the order as the merchant's cancel does (labs holding shipments asked), for the reason given. */
export async function cancelOrder(deps: OrdersDeps, input: OrderActionRequest) {
  const request = checked(input)
  return (await deps.orderOperations()).cancel(request, operatorOf(deps.actor))
}

/** Credits `amount` (tax included) on the order's charge (`charge`, else its first): a credit note. */
export async function refundOrder(deps: OrdersDeps, input: OrderActionRequest & { amount: string; charge?: string }) {
  const request = checked(input)
  const amount = typeof input.amount === 'string' ? input.amount.trim() : ''
  const amountMinor = positiveAmountMinor(amount)
  if (amountMinor === undefined) throw new OperatorRefusal({ field: 'amount', reason: 'not-a-positive-amount' }, amount)
  const charge = typeof input.charge === 'string' && input.charge.trim() !== '' ? input.charge.trim() : undefined
  return (await deps.orderOperations()).refund(
    { ...request, amountMinor, ...(charge ? { chargeId: charge } : {}) },
    operatorOf(deps.actor),
  )
}

/** Queues one more download of the asset whose download failed (`asset`, else every such asset). */
export async function retryDownload(deps: OrdersDeps, input: OrderActionRequest & { asset?: string }) {
  const request = checked(input)
  const asset = typeof input.asset === 'string' && input.asset.trim() !== '' ? input.asset.trim() : undefined
  return (await deps.orderOperations()).retryDownload(
    { ...request, ...(asset ? { assetId: asset } : {}) },
    operatorOf(deps.actor),
  )
}

/** Releases an order held for payment or by its pause window: its fulfilment starts now. */
export async function releaseOrder(deps: OrdersDeps, input: OrderActionRequest) {
  const request = checked(input)
  return (await deps.orderOperations()).release(request, operatorOf(deps.actor))
}

/** Adds a note to the order (shown on the console's order page, recorded in the audit trail). */
export async function addOrderNote(deps: OrdersDeps, input: { order: string; text: string }): Promise<OrderNote> {
  const order = typeof input.order === 'string' ? input.order.trim() : ''
  if (parseId('ord', order) === undefined) throw new OperatorRefusal({ field: 'order', reason: 'not-an-id' }, order)
  const text = typeof input.text === 'string' ? input.text.trim() : ''
  if (text === '') throw new OperatorRefusal({ field: 'note', reason: 'missing' }, text)
  if (text.length > ORDER_NOTE_MAX_LENGTH) {
    throw new OperatorRefusal({ field: 'note', reason: 'too-long' }, `${text.slice(0, 20)}...`)
  }
  return (await deps.orderOperations()).addNote({ orderId: order.toLowerCase(), text }, operatorOf(deps.actor))
}

/** What a move runs on: the shipment moves service (built when first needed) and who acts. */
export type ShipmentMoveDeps = Pick<OperatorContext, 'shipmentMoves' | 'actor'>

/**
 * Moves a shipment its lab has not started to another lab able to make every item and ship it by its method, with
 * the operator's reason (audited as `order.shipmentMoved`); the merchant's charges do not change. Refusals are
 * ShipmentMoveRefused (domain/shipment-move.ts), naming the shipment, the lab or the reason.
 */
export async function moveShipment(
  deps: ShipmentMoveDeps,
  input: { shipment: string; lab: string; reason: string },
): Promise<ShipmentMoveResult> {
  const moves = await deps.shipmentMoves()
  return moves.move({ shipmentId: input.shipment, labCode: input.lab, reason: input.reason }, deps.actor)
}

export type { ShipmentMoveResult, ShipmentMovesService }
