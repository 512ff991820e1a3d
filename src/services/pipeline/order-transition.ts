// How every step changes its order: through services/order-change.ts (row lock, save, events, jobs in one
// transaction); once committed, if the order changed, the step's log line, then the line of an order that has
// just completed or stopped, whichever step brought it there.

import type { Queryable } from '../../adapters/database.ts'
import { parseId } from '../../domain/ids.ts'
import type { PipelineOrder, Transition } from '../../domain/pipeline/pipeline-order.ts'
import type { ServiceLogger } from '../observability.ts'
import type { ChangedOrder, OrderChanger } from '../order-change.ts'
import { type LogLine, phaseChangeLine, writeLogLine } from './log-lines.ts'

/** Changes the order and logs what the change did (`stepLine`, from the order as changed and the result). */
export type StepTransition = <R extends Transition>(
  orderNumber: number,
  change: (order: PipelineOrder, tx: Queryable) => Promise<R> | R,
  stepLine?: (applied: ChangedOrder<R>) => LogLine,
) => Promise<ChangedOrder<R> | undefined>

export function createStepTransition(deps: {
  orders: Pick<OrderChanger, 'change'>
  log: ServiceLogger
}): StepTransition {
  return async (orderNumber, change, stepLine) => {
    const applied = await deps.orders.change(orderNumber, change)
    if (!applied?.result.changed) return applied
    if (stepLine) writeLogLine(deps.log, stepLine(applied))
    if (applied.order.pipeline.phase === applied.before.phase) return applied
    const phaseLine = phaseChangeLine(applied.order)
    if (phaseLine) writeLogLine(deps.log, phaseLine)
    return applied
  }
}

/** The number of an order id a job carries. */
export function orderNumberOf(orderId: string): number {
  const number = parseId('ord', orderId)
  if (number === undefined) throw new Error(`not an order id: ${orderId}`)
  return number
}
