// The one way an order changes: lock its row, remember how it was, apply the change, save it, record the
// events the difference causes and enqueue the jobs the change asks for, all in one transaction. The pipeline's
// transitions, the order actions and payments all go through here, so the change, its callbacks and its jobs
// commit together or not at all, and a new kind of change cannot forget its callback.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import type { JobRequest } from '../domain/jobs.ts'
import { costOutcomesOf, shipmentStatesOf } from '../domain/lab-statements.ts'
import type { OrderEventKind } from '../domain/order-events.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { lockOrder, saveOrder } from '../repositories/orders.repository.ts'
import { settleShipmentCosts } from '../repositories/shipment-costs.repository.ts'
import { type OrderEventsService, type OrderSnapshot, snapshotOf } from './order-events.service.ts'

/** What a change reports: whether it changed the order (then it is saved) and the jobs it causes. */
export interface OrderChangeResult {
  changed: boolean
  jobs?: readonly JobRequest[]
  /**
   * Events the order's document does not show (a claim made or resolved, a credit issued): recorded after those
   * the change's difference causes, whether or not the document changed.
   */
  events?: readonly OrderEventKind[]
}

/** The order as the change left it, how it was when locked, and what the change returned. */
export interface ChangedOrder<R extends OrderChangeResult> {
  order: PipelineOrder
  before: OrderSnapshot
  result: R
}

export interface OrderChangeDeps {
  db: Database
  jobs: JobEnqueuer
  /** Writes the callbacks a change causes, in its transaction. */
  events: OrderEventsService
  /** When a shipment's cost is settled (shipped, cancelled, rejected); the system's time when absent. */
  clock?: Clock
}

/** The one way an order is changed: lock, change, save, events, jobs, in one transaction. */
export interface OrderChanger {
  /**
   * Applies `change` to the order under its row lock; undefined when there is no such order, or, given a
   * caller's `scope`, when the order is another account's or environment's.
   */
  change<R extends OrderChangeResult>(
    orderNumber: number,
    change: (order: PipelineOrder, tx: Queryable) => Promise<R> | R,
    scope?: AccountScope,
  ): Promise<ChangedOrder<R> | undefined>
}

export function createOrderChanger(deps: OrderChangeDeps): OrderChanger {
  return {
    /**
     * Applies `change` to the order under its row lock, in a transaction of its own. `undefined` when there is no
     * such order, or, given a caller's `scope`, when the order is another account's or environment's. A change
     * that throws rolls everything back.
     */
    async change<R extends OrderChangeResult>(
      orderNumber: number,
      change: (order: PipelineOrder, tx: Queryable) => Promise<R> | R,
      scope?: AccountScope,
    ): Promise<ChangedOrder<R> | undefined> {
      return deps.db.transaction(async (tx) => {
        const order = await lockOrder(tx, orderNumber, scope)
        if (!order) return undefined
        const before = snapshotOf(order)
        const states = shipmentStatesOf(order)
        const result = await change(order, tx)
        if (result.changed) {
          await saveOrder(tx, order)
          // What each shipment costs at its lab is settled with the change that ships, cancels or rejects it.
          const at = deps.clock?.now() ?? new Date()
          for (const { shipmentNumber, outcome } of costOutcomesOf(states, order)) {
            await settleShipmentCosts(tx, shipmentNumber, outcome, at)
          }
          await deps.events.record(tx, before, order, result.events)
        } else if (result.events && result.events.length > 0) {
          await deps.events.record(tx, before, order, result.events)
        }
        if (result.jobs && result.jobs.length > 0) await deps.jobs.enqueue(tx, result.jobs)
        return { order, before, result }
      })
    },
  }
}
