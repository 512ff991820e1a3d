// Order actions (issue 4, in progress): which actions are available, and updating metadata. Every action
// locks the order row, so it never interleaves with a pipeline step on the same order.
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import { parseId } from '../domain/ids.ts'
import { METADATA_MAX_CHARACTERS, metadataLength } from '../domain/order.ts'
import { type AvailableActions, availableActions } from '../domain/order-actions.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import { lockOrder, type PipelineOrder, readOrder, saveOrder } from '../repositories/pipeline.repository.ts'
import type { Caller } from './accounts.service.ts'

function orderNumberOf(orderId: string): number {
  const number = parseId('ord', orderId)
  if (number === undefined) {
    throw validationFailed({
      orderId: [{ code: 'InvalidFormat', providedValue: orderId, comparisonValue: 'ord_<number>' }],
    })
  }
  return number
}

/** The caller's own order, or EntityNotFound (another account's or environment's order does not exist). */
function ownOrder(caller: Caller, orderId: string, order: PipelineOrder | undefined): PipelineOrder {
  if (!order || order.accountId !== caller.accountId || order.environment !== caller.environment) {
    throw new ServiceError('EntityNotFound', `Order ${orderId} was not found`)
  }
  return order
}

export function createOrderActionsService(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps
  return {
    async listActions(caller: Caller, orderId: string): Promise<AvailableActions> {
      const order = ownOrder(caller, orderId, await readOrder(db, orderNumberOf(orderId)))
      return availableActions(order.document.status.stage, order.pipeline)
    },

    /** Replaces the metadata, in any state; returns the order's JSON text. */
    async updateMetadata(caller: Caller, orderId: string, metadata: Record<string, unknown>): Promise<string> {
      const length = metadataLength(metadata)
      if (length > METADATA_MAX_CHARACTERS) {
        throw validationFailed({
          metadata: [{ code: 'TooLong', providedValue: length, comparisonValue: METADATA_MAX_CHARACTERS }],
        })
      }
      const orderNumber = orderNumberOf(orderId)
      return db.transaction(async (tx) => {
        const order = ownOrder(caller, orderId, await lockOrder(tx, orderNumber))
        order.document.metadata = metadata
        order.document.lastUpdated = clock.now().toISOString()
        await saveOrder(tx, order)
        return JSON.stringify(order.document)
      })
    },
  }
}

export type OrderActionsService = ReturnType<typeof createOrderActionsService>
