// The Sandbox's test clock for one order (docs/sandbox.md#advance): POST /v4.0/sandbox/orders/{id}/advance
// moves an order's shipments on by the simulated labs' own steps, at once, rather than on their timers. It
// runs exactly the step a simulated lab would run next (services/pipeline/simulated-labs.ts `runStep`), so the
// order, its shipments, tracking, carrier scans and callbacks are the ones the timers would have produced; a
// timer that fires later for a shipment already moved finds it past its step and does nothing.
import { formatId, parseId } from '../domain/ids.ts'
import { nextSimulatedLabStep, type SimulatedLabStep } from '../domain/jobs.ts'
import type { DeliveryStatus } from '../domain/order.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import type { PipelineOrder, ShipmentState } from '../domain/pipeline/pipeline-order.ts'
import { isAwaitingPayment } from '../domain/pipeline/submit-shipment.ts'
import {
  type AdvanceTarget,
  carrierPathEnded,
  type SandboxScenario,
  simulatedCarrierPath,
} from '../domain/sandbox-scenarios.ts'
import { findOrderForCaller, readOrder } from '../repositories/orders.repository.ts'
import type { Caller } from './accounts.service.ts'
import type { BillingService } from './billing.service.ts'
import { createOrderChanger, type OrderChangeDeps } from './order-change.ts'
import type { PipelineService } from './pipeline/index.ts'
import type { SimulatedLabPipeline } from './pipeline/simulated-labs.ts'

/** What the simulated labs do (services/pipeline/simulated-labs.ts), met by shape. */
export interface SimulatedLabStepper {
  runStep(pipeline: SimulatedLabPipeline, orderId: string, shipmentId: string, step: SimulatedLabStep): Promise<void>
}

/** How far a shipment is along its lab's steps; a shipped one whose parcel arrived (or came back) is one further. */
const PROGRESS: Partial<Record<ShipmentState, number>> = {
  allocated: 0,
  submitted: 1,
  acknowledged: 2,
  inProduction: 3,
  shipped: 4,
}
const ARRIVED = 5
/** The progress every shipment has once the order reached a target. */
const TARGET_PROGRESS: Record<AdvanceTarget, number> = { InProduction: 3, Shipped: 4, Complete: 4, Delivered: ARRIVED }
/** The lab's steps before its carrier's: acknowledge, produce, ship. */
const LAB_STEPS = 3

/** What an order's page and the CLI show of its Sandbox side. */
export interface SandboxOrderFacts {
  orderId: string
  scenario: SandboxScenario | null
  /** Why a plain advance is refused now; null when it can move the order. */
  cannotAdvance: string | null
}

interface LiveShipment {
  id: string
  state: ShipmentState
  deliveryStatus: DeliveryStatus | undefined
}

/** The shipments that count: not rejected (their items went to another lab) and not cancelled. */
function liveShipments(order: PipelineOrder): LiveShipment[] {
  return Object.entries(order.pipeline.shipments)
    .filter(([, shipment]) => shipment.state !== 'rejected' && shipment.state !== 'cancelled')
    .map(([id, shipment]) => ({
      id,
      state: shipment.state,
      deliveryStatus: order.document.shipments.find((candidate) => candidate.id === id)?.deliveryStatus,
    }))
}

function progressOf(order: PipelineOrder, shipment: LiveShipment): number {
  if (shipment.state === 'shipped' && carrierPathEnded(order.sandboxScenario, shipment.deliveryStatus)) return ARRIVED
  return PROGRESS[shipment.state] ?? 0
}

function nextStepOf(order: PipelineOrder, shipment: LiveShipment): SimulatedLabStep | undefined {
  return nextSimulatedLabStep(shipment.state, shipment.deliveryStatus, order.sandboxScenario)
}

function hasReached(order: PipelineOrder, to: AdvanceTarget): boolean {
  const complete = order.document.status.stage === 'Complete'
  if (complete && to !== 'Delivered') return true
  if (to === 'Complete' || (to === 'Delivered' && !complete)) return false
  const shipments = liveShipments(order)
  return shipments.length > 0 && shipments.every((shipment) => progressOf(order, shipment) >= TARGET_PROGRESS[to])
}

/** Why the order cannot be moved at all, or undefined. */
function stoppedReason(order: PipelineOrder, now: Date): string | undefined {
  const id = order.document.id
  if (order.document.status.stage === 'Cancelled') return `order ${id} is cancelled`
  if (order.pipeline.phase === 'failed') return `order ${id} has stopped: a step failed (its status.issues say why)`
  if (order.onHoldUntil && order.onHoldUntil > now) {
    return `order ${id} is on hold in the pause window until ${order.onHoldUntil.toISOString()}`
  }
  return undefined
}

/** Why none of the order's shipments is with a lab that could take a step, for the 400's text. */
function notWithLabsReason(order: PipelineOrder): string {
  const id = order.document.id
  switch (order.pipeline.phase) {
    case 'waiting':
    case 'downloading':
      return `order ${id} is still downloading its assets; its shipments reach their labs after allocation and print files`
    case 'allocating':
      return `order ${id} is being allocated to labs; advance once its shipments are with their labs`
    case 'rendering':
      return `order ${id} is having its print files made; advance once its shipments are with their labs`
    case 'complete':
      return `order ${id} is Complete and every shipment is Delivered or Returned: nothing is left to advance`
    default:
      return `no shipment of order ${id} is with a lab`
  }
}

/** Moving Sandbox orders through the simulated labs by hand (POST /v4.0/sandbox/orders/{id}/advance). */
export interface SandboxService {
  /** The order's scenario and whether a plain advance would move it. */
  describeOrder(caller: Caller, orderId: string): Promise<SandboxOrderFacts>
  /** Moves the order one lab step on, or on to `to`; whether anything changed (ValidationFailed when it cannot). */
  advanceOrder(caller: Caller, orderId: string, to?: AdvanceTarget): Promise<{ changed: boolean }>
}

export function createSandboxService(
  deps: OrderChangeDeps & {
    pipeline: PipelineService
    simulatedLabs: SimulatedLabStepper
    billing: BillingService
    now: () => Date
  },
): SandboxService {
  const { db, pipeline, simulatedLabs, billing } = deps
  const orders = createOrderChanger(deps)

  async function load(caller: Caller, orderId: string): Promise<PipelineOrder> {
    const number = parseId('ord', orderId)
    const order = number === undefined ? undefined : await findOrderForCaller(db, caller, number)
    if (!order) {
      throw new ServiceError('EntityNotFound', `Order ${orderId} was not found`)
    }
    return order
  }

  /** Authorises a payment the scenario paymentRequired holds; true when there was one. */
  async function authorise(order: PipelineOrder): Promise<boolean> {
    if (!isAwaitingPayment(order.pipeline)) return false
    const applied = await orders.change(order.orderNumber, (locked) => {
      const { paid, jobs } = billing.authoriseSandboxPayment(locked)
      return { changed: paid, jobs }
    })
    return applied?.result.changed ?? false
  }

  /**
   * Hands shipments whose print files are ready to their labs now rather than when their submit jobs run (the
   * same step, idempotent: the queued job then finds them submitted).
   */
  async function submitReady(order: PipelineOrder): Promise<boolean> {
    if (order.pipeline.phase !== 'producing' || isAwaitingPayment(order.pipeline)) return false
    const ready = liveShipments(order).filter((shipment) => shipment.state === 'allocated')
    for (const { id } of ready) await pipeline.submitShipment(order.document.id, id)
    return ready.length > 0
  }

  /** One step on every shipment that has one and has not reached `below`; false when none had. */
  async function stepAll(order: PipelineOrder, below: number): Promise<boolean> {
    let stepped = false
    for (const shipment of liveShipments(order)) {
      if (progressOf(order, shipment) >= below) continue
      const step = nextStepOf(order, shipment)
      if (!step) continue
      await simulatedLabs.runStep(pipeline, order.document.id, shipment.id, step)
      stepped = true
    }
    return stepped
  }

  function refuse(order: PipelineOrder, to: AdvanceTarget | undefined, reason: string): never {
    throw validationFailed(
      {
        [to === undefined ? 'orderId' : 'to']: [
          { code: 'InvalidValue', providedValue: to ?? order.document.id, comparisonValue: reason },
        ],
      },
      `The order cannot be advanced: ${reason}`,
    )
  }

  /** Why a plain advance would be refused now, or undefined when it would move the order. */
  function plainAdvanceProblem(order: PipelineOrder, now: Date): string | undefined {
    const stopped = stoppedReason(order, now)
    if (stopped) return stopped
    if (isAwaitingPayment(order.pipeline)) return undefined
    const movable = liveShipments(order).some(
      (shipment) =>
        nextStepOf(order, shipment) !== undefined ||
        (shipment.state === 'allocated' && order.pipeline.phase === 'producing'),
    )
    return movable ? undefined : notWithLabsReason(order)
  }

  return {
    /** The order's scenario and whether a plain advance would move it. */
    async describeOrder(caller: Caller, orderId: string): Promise<SandboxOrderFacts> {
      const order = await load(caller, orderId)
      return {
        orderId: formatId('ord', order.orderNumber),
        scenario: order.sandboxScenario,
        cannotAdvance: plainAdvanceProblem(order, deps.now()) ?? null,
      }
    },

    /**
     * Moves the order one lab step on (every shipment with its lab takes its next step; an order held by the
     * scenario paymentRequired is authorised instead), or on to `to`. Returns whether anything changed; throws
     * ValidationFailed with the reason when the order cannot move that way.
     */
    async advanceOrder(caller: Caller, orderId: string, to?: AdvanceTarget): Promise<{ changed: boolean }> {
      let order = await load(caller, orderId)
      const reload = async () => {
        order = (await readOrder(db, order.orderNumber)) ?? order
        return order
      }
      if (to !== undefined && hasReached(order, to)) return { changed: false }
      if (to === undefined) {
        const problem = plainAdvanceProblem(order, deps.now())
        if (problem) refuse(order, to, problem)
        if (await authorise(order)) return { changed: true }
        const submitted = await submitReady(order)
        const stepped = await stepAll(await reload(), Number.POSITIVE_INFINITY)
        return { changed: submitted || stepped }
      }
      const stopped = stoppedReason(order, deps.now())
      if (stopped) refuse(order, to, stopped)
      let changed = await authorise(order)
      if (changed) await reload()
      if ((to === 'Complete' || to === 'Delivered') && !['producing', 'complete'].includes(order.pipeline.phase)) {
        refuse(order, to, `${notWithLabsReason(order)}, so it cannot reach ${to} yet`)
      }
      if (await submitReady(order)) changed = true
      const below = TARGET_PROGRESS[to]
      // Each pass moves every shipment one step: the lab's three, then as many as its carrier's path has scans.
      const passes = LAB_STEPS + simulatedCarrierPath(order.sandboxScenario).length
      for (let pass = 0; pass < passes && !hasReached(await reload(), to); pass += 1) {
        if (!(await stepAll(order, below))) break
        changed = true
      }
      if (!hasReached(await reload(), to)) {
        // A lab rejected the shipment on the way (scenario labRejects): its items are being allocated again.
        if (changed) return { changed }
        refuse(order, to, notWithLabsReason(order))
      }
      return { changed }
    },
  }
}
