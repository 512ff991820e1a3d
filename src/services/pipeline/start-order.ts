// Step start-order: the order enters the pipeline (at creation, when its pause window or its own hold ends, or when
// its draft is confirmed) and its files' downloads are queued.
import type { Clock } from '../../adapters/clock.ts'
import { heldUntil, isOpenDraft } from '../../domain/drafts.ts'
import { NOTHING, type Transition } from '../../domain/pipeline/pipeline-order.ts'
import { startOrderJob, startPipeline } from '../../domain/pipeline/start-order.ts'
import { startLine } from './log-lines.ts'
import { orderNumberOf, type StepTransition } from './order-transition.ts'

export interface StartOrderDeps {
  clock: Clock
  transition: StepTransition
}

/** `traceId`: of the request that created the order, kept with it for the log lines of its background work. */
export type StartOrder = (orderId: string, traceId?: string) => Promise<void>

export function createStartOrder({ clock, transition }: StartOrderDeps): StartOrder {
  return async (orderId, traceId) => {
    await transition(
      orderNumberOf(orderId),
      (order): Transition => {
        // The job runs by the database's clock; should it run before the window ends by this process's
        // clock (skew, or a window extended since), it is queued again for the end of the window.
        if (order.onHoldUntil && order.onHoldUntil > clock.now()) {
          const retry = startOrderJob(orderId, order.onHoldUntil, traceId)
          return { changed: false, jobs: [{ ...retry, key: `${retry.key}:${order.onHoldUntil.toISOString()}` }] }
        }
        // A draft waits for its confirm, which queues its start (docs/api.md#drafts-and-holds).
        if (isOpenDraft(order.document)) return NOTHING
        // The order's own hold, likewise: queued again for its end (released early, it has ended already).
        const holdEnd = heldUntil(order.document, clock.now())
        if (holdEnd) {
          const retry = startOrderJob(orderId, holdEnd, traceId)
          return { changed: false, jobs: [{ ...retry, key: `${retry.key}:${holdEnd.toISOString()}` }] }
        }
        const result = startPipeline(order.document, order.pipeline, clock.now())
        if (result.changed && traceId) order.pipeline.traceId = traceId
        return result
      },
      ({ order }) => startLine(order, orderId),
    )
  }
}
