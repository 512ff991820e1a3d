// Moving a shipment to another lab (docs/admin.md#moving-a-shipment-to-another-lab): the operator's action, which
// the command line (`printroute orders move`) and the console's order page both call through
// services/operator/orders.ts. The rules are domain/shipment-move.ts's; this service finds the shipment's order,
// applies the move through the one order change (services/order-change.ts: lock, change, save, the merchant's
// events and the labs' pushes, jobs), cancels the old lab's job, counts the job given to the new lab and appends the
// audit entry, all in the order's transaction.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AuditActor } from '../domain/audit.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import { parseId } from '../domain/ids.ts'
import type { PipelineOrder, Transition } from '../domain/pipeline/pipeline-order.ts'
import {
  type AppliedMove,
  applyMove,
  type MovableShipment,
  type MoveLabChoice,
  moveReasonOf,
  planMove,
  ShipmentMoveRefused,
  type ShipmentMoveResult,
  shipmentMoveRefusal,
} from '../domain/shipment-move.ts'

export type { MovableShipment, MoveLabChoice, ShipmentMoveResult }

import { unavailableLabs as unavailableLabsNow } from '../domain/lab-availability.ts'
import { findOrderNumberOfShipment } from '../repositories/attention.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import { listLabAvailability } from '../repositories/lab-availability.repository.ts'
import { upsertLabJob } from '../repositories/lab-jobs.repository.ts'
import { drawShipmentIds, readOrder } from '../repositories/orders.repository.ts'
import type { ServiceLogger } from './observability.ts'
import { createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'
import type { LabQualityGate, LabRoom } from './pipeline/lab-room.ts'

/**
 * One hand-off of a moved shipment to its new lab, for the `shipment_costs` row of kind `Moved` (migration 0032):
 * the lab's agreed cost at the hand-off, from the allocation's plan at the new lab.
 */
export interface ShipmentMovesService {
  /** The order's shipments and the labs each could move to; undefined for an order that does not exist. */
  choices(orderId: string): Promise<MovableShipment[] | undefined>
  /** Moves the shipment to the lab; a refusal is a ShipmentMoveRefused naming the field at fault. */
  move(input: { shipmentId: string; labCode: string; reason: string }, actor: AuditActor): Promise<ShipmentMoveResult>
}

export interface ShipmentMovesDeps {
  db: Database
  clock: Clock
  catalogue: Catalogue
  jobs: JobEnqueuer
  events: OrderEventsService
  labRoom: LabRoom
  log: ServiceLogger
  /** The labs' quality rates: the move form names the labs above their threshold; none when absent. */
  labQuality?: LabQualityGate
}

interface MoveTransition extends Transition {
  applied: AppliedMove
}

export function createShipmentMovesService(deps: ShipmentMovesDeps): ShipmentMovesService {
  const { clock, catalogue } = deps
  const changer = createOrderChanger(deps)

  async function orderNumberOf(shipmentId: string): Promise<number> {
    const number = parseId('shp', shipmentId)
    const orderNumber = number === undefined ? undefined : await findOrderNumberOfShipment(deps.db, number)
    if (orderNumber === undefined) {
      throw new ShipmentMoveRefused(
        'shipment',
        number === undefined
          ? `"${shipmentId}" is not a shipment ID (expected shp_<number>)`
          : `No order has a shipment ${shipmentId}`,
      )
    }
    return orderNumber
  }

  async function moveIn(
    order: PipelineOrder,
    tx: Queryable,
    input: { shipmentId: string; labCode: string; reason: string },
    actor: AuditActor,
  ): Promise<MoveTransition> {
    const now = clock.now()
    const refusal = shipmentMoveRefusal(order, input.shipmentId, now)
    if (refusal) throw new ShipmentMoveRefused('shipment', refusal)
    const unavailableLabs = await deps.labRoom.unavailableLabsFor(order, tx)
    const planned = planMove(catalogue, order, input.shipmentId, input.labCode, { unavailableLabs, now })
    if (!planned.ok) throw new ShipmentMoveRefused('lab', planned.refusal)
    const [toShipmentId] = await drawShipmentIds(tx, 1)
    if (!toShipmentId) throw new Error('no shipment id drawn')
    await deps.labRoom.countJobsGiven(order, tx, [{ labCode: planned.move.toLabCode }])
    const applied = applyMove(catalogue, order, input.shipmentId, toShipmentId, planned.move, input.reason, now)
    if (applied.labHadJob) {
      // The old lab's job is cancelled: its list drops it, reading it shows `cancelled`.
      await upsertLabJob(
        tx,
        {
          shipmentNumber: parseId('shp', input.shipmentId) ?? 0,
          orderNumber: order.orderNumber,
          labCode: applied.fromLabCode,
          environment: order.environment,
          state: 'cancelled',
        },
        now,
      )
    }
    await appendAuditEvent(
      tx,
      {
        actor,
        action: 'order.shipmentMoved',
        // The instance's own entry, not the account's: the merchant's audit trail (GET /v4.0/account/audit) does
        // not show the operator's reason or the labs' choice; `account` in `after` names whose order it was.
        accountId: null,
        environment: order.environment,
        target: order.document.id,
        before: { shipmentId: applied.fromShipmentId, labCode: applied.fromLabCode },
        after: {
          shipmentId: applied.toShipmentId,
          labCode: applied.toLabCode,
          reason: input.reason,
          account: `acc_${order.accountId}`,
        },
      },
      now,
    )
    return { changed: true, jobs: applied.jobs, applied }
  }

  return {
    async choices(orderId) {
      const number = parseId('ord', orderId)
      const order = number === undefined ? undefined : await readOrder(deps.db, number)
      if (!order) return undefined
      const now = clock.now()
      // Read without a lock or a count: the form only offers; the move checks again under the order's lock.
      const unavailableLabs =
        order.environment === 'live'
          ? unavailableLabsNow(
              catalogue,
              await listLabAvailability(deps.db),
              now,
              (await deps.labQuality?.labsBelowThreshold()) ?? [],
            )
          : {}
      return order.document.shipments.map((shipment) => {
        const held = order.pipeline.shipments[shipment.id]
        const labCode = held?.labCode ?? shipment.fulfillmentLocation.labCode
        const refusal = shipmentMoveRefusal(order, shipment.id, now)
        if (refusal) return { shipmentId: shipment.id, labCode, refusal, labs: [] }
        const labs = catalogue.labs
          .filter((lab) => lab.code !== labCode)
          .map((lab): MoveLabChoice => {
            const planned = planMove(catalogue, order, shipment.id, lab.code, { unavailableLabs, now })
            const choice = { labCode: lab.code, name: lab.name, countryCode: lab.countryCode }
            return planned.ok ? choice : { ...choice, refusal: planned.refusal }
          })
          .sort((a, b) => Number(a.refusal !== undefined) - Number(b.refusal !== undefined))
        return { shipmentId: shipment.id, labCode, labs }
      })
    },

    async move(input, actor) {
      const shipmentId = String(input.shipmentId ?? '').trim()
      const labCode = String(input.labCode ?? '').trim()
      const reason = moveReasonOf(input.reason)
      if (labCode === '') throw new ShipmentMoveRefused('lab', 'A lab is required: the code of the lab to move to')
      const orderNumber = await orderNumberOf(shipmentId)
      const changed = await changer.change(orderNumber, (order, tx) =>
        moveIn(order, tx, { shipmentId, labCode, reason }, actor),
      )
      if (!changed) throw new ShipmentMoveRefused('shipment', `No order has a shipment ${shipmentId}`)
      const { order } = changed
      const { applied } = changed.result
      const result: ShipmentMoveResult = {
        orderId: order.document.id,
        accountId: `acc_${order.accountId}`,
        environment: order.environment,
        fromShipmentId: applied.fromShipmentId,
        fromLabCode: applied.fromLabCode,
        toShipmentId: applied.toShipmentId,
        toLabCode: applied.toLabCode,
        oldJobCancelled: applied.labHadJob,
        rerenderedAssetIds: applied.rerenderedAssetIds,
        reason,
      }
      deps.log.info(
        {
          orderId: result.orderId,
          step: 'move',
          shipmentId: result.fromShipmentId,
          toShipmentId: result.toShipmentId,
          labCode: result.fromLabCode,
          toLabCode: result.toLabCode,
        },
        `order ${result.orderId}: shipment ${result.fromShipmentId} moved from lab ${result.fromLabCode} to lab ${result.toLabCode} as ${result.toShipmentId}`,
      )
      return result
    },
  }
}
