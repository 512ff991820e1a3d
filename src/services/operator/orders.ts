// The operator's actions on orders of any account: moving a shipment to another lab (docs/admin.md#moving-a-shipment-
// to-another-lab). One function per action, called by the command line (operator.service.ts, `printroute orders
// move`) and the console's order page (console-sections.ts) alike.
import type { ShipmentMoveResult, ShipmentMovesService } from '../shipment-moves.service.ts'
import type { OperatorContext } from './context.ts'

/** What the order actions run on: the command line's context, or the console's with its operator as actor. */
export type OrdersDeps = Pick<OperatorContext, 'shipmentMoves' | 'actor'>

/**
 * Moves a shipment its lab has not started to another lab able to make every item and ship it by its method, with
 * the operator's reason (audited as `order.shipmentMoved`); the merchant's charges do not change. Refusals are
 * ShipmentMoveRefused (domain/shipment-move.ts), naming the shipment, the lab or the reason.
 */
export async function moveShipment(
  deps: OrdersDeps,
  input: { shipment: string; lab: string; reason: string },
): Promise<ShipmentMoveResult> {
  const moves = await deps.shipmentMoves()
  return moves.move({ shipmentId: input.shipment, labCode: input.lab, reason: input.reason }, deps.actor)
}

export type { ShipmentMoveResult, ShipmentMovesService }
