// Writes the events an order change causes to the outbox, inside the transaction of that change (the
// pipeline's transitions, the order actions, payments): the change and its events commit together or not at
// all. When the order has a callback URL (its own, else the account's) each event also gets a delivery and
// its first delivery job (only the Prodigi Print API's types when the environment's callbackEvents is `prodigi`), in
// the same transaction, so a committed event is always delivered; so does each
// enabled webhook endpoint of the environment whose filters accept the event (docs/callbacks.md#webhook-endpoints).
import type { Clock } from '../adapters/clock.ts'
import type { Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { Environment } from '../domain/environment.ts'
import { formatId } from '../domain/ids.ts'
import { deliveryJob, type JobRequest } from '../domain/jobs.ts'
import { type LabShipmentSnapshot, labShipmentsOf } from '../domain/lab-events.ts'
import type { OrderDocument } from '../domain/order.ts'
import {
  buildCloudEvent,
  callbackUrlAccepts,
  eventExtraData,
  eventType,
  type OrderEventKind,
  orderEventsOf,
  parseCallbackEventSet,
} from '../domain/order-events.ts'
import type { PipelineOrder, PipelinePhase } from '../domain/pipeline/pipeline-order.ts'
import { newTraceparent } from '../domain/traceparent.ts'
import { endpointAccepts } from '../domain/webhook-endpoints.ts'
import { lockAccountForEvents } from '../repositories/accounts.repository.ts'
import { insertDelivery } from '../repositories/callback-deliveries.repository.ts'
import { drawEventIds, insertEvent, lastOrderSequence } from '../repositories/events.repository.ts'
import { listWebhookEndpoints } from '../repositories/webhook-endpoints.repository.ts'

/** The order as a transaction found it, right after locking it. */
export interface OrderSnapshot {
  document: OrderDocument
  phase: PipelinePhase
  /** Each Live shipment as its lab saw it: what the pushes to labs are derived from. */
  labShipments: Record<string, LabShipmentSnapshot>
}

export function snapshotOf(order: PipelineOrder): OrderSnapshot {
  return { document: structuredClone(order.document), phase: order.pipeline.phase, labShipments: labShipmentsOf(order) }
}

/** Writes the pushes to labs a change causes, in its transaction (services/labs/lab-pushes.service.ts). */
export interface LabEventsRecorder {
  record(tx: Queryable, before: OrderSnapshot, order: PipelineOrder, extra?: readonly OrderEventKind[]): Promise<number>
}

export interface OrderEventsDeps {
  clock: Clock
  jobs: JobEnqueuer
  /** `<vendor>` in the event types. */
  vendor: string
  /** The CloudEvent `source`: where the order can be read (the environment's API address). */
  sourceOf: (environment: Environment, orderId: string) => string
  /** The pushes to labs, derived from the same change; none when absent. */
  labEvents?: LabEventsRecorder
  /** The storefront fulfilment outbox: the shipments of a channel's order that the change ships; none when absent. */
  channelFulfilments?: {
    shipped(tx: Queryable, order: PipelineOrder, shipmentIds: readonly string[]): Promise<void>
  }
}

/**
 * Writes the callbacks an order change causes (CloudEvents, their deliveries and first attempt jobs), and the
 * pushes to labs it causes.
 */
export interface OrderEventsService {
  /** Records, in the order's locked transaction, the events of the change from `before` to `order`; how many. */
  record(tx: Queryable, before: OrderSnapshot, order: PipelineOrder, extra?: readonly OrderEventKind[]): Promise<number>
}

export function createOrderEventsService(deps: OrderEventsDeps): OrderEventsService {
  const { clock } = deps
  return {
    /**
     * Records the events of the change from `before` to `order` (about to be saved in `tx`, which holds the
     * order's row lock). Returns how many events were written.
     */
    async record(
      tx: Queryable,
      before: OrderSnapshot,
      order: PipelineOrder,
      extra: readonly OrderEventKind[] = [],
    ): Promise<number> {
      const pauseWindowEnded =
        order.onHoldUntil !== null &&
        before.phase === 'waiting' &&
        order.pipeline.phase !== 'waiting' &&
        order.pipeline.phase !== 'cancelled'
      const labEvents = (await deps.labEvents?.record(tx, before, order, extra)) ?? 0
      // A shipment new to the order that the operator moved from another one (domain/shipment-move.ts).
      const movedShipments = order.document.shipments.flatMap((shipment) => {
        const from = order.pipeline.shipments[shipment.id]?.movedFrom
        const isNew = !before.document.shipments.some((earlier) => earlier.id === shipment.id)
        return from && isNew ? [{ shipmentId: shipment.id, fromShipmentId: from.shipmentId }] : []
      })
      // Events the document does not show (claims, credits) follow those it does.
      const events = [
        ...orderEventsOf({ before: before.document, after: order.document, pauseWindowEnded, movedShipments }),
        ...extra,
      ]
      if (deps.channelFulfilments) {
        const shipped = events.flatMap((event) => (event.kind === 'shipmentShipped' ? [event.shipmentId] : []))
        await deps.channelFulfilments.shipped(tx, order, shipped)
      }
      if (events.length === 0) return labEvents
      const account = await lockAccountForEvents(tx, order.accountId, order.environment)
      const url = order.document.callbackUrl ?? account.callbackUrl
      // The environment's callbackEvents limits what its callback URLs (the order's own or the account's) get;
      // webhook endpoints filter by their own eventTypes.
      const callbackEvents = parseCallbackEventSet(account.callbackEvents)
      // Read once per change, under the account lock: an endpoint created or disabled concurrently is seen by
      // either all of this change's events or none of them.
      const endpoints = await listWebhookEndpoints(
        tx,
        { accountId: order.accountId, environment: order.environment },
        { enabledOnly: true },
      )
      const orderMetadata = order.document.metadata
      const ids = await drawEventIds(tx, events.length)
      let sequence = await lastOrderSequence(tx, order.orderNumber)
      const now = clock.now()
      const jobs: JobRequest[] = []
      for (const [index, event] of events.entries()) {
        sequence += 1
        const id = ids[index] as number
        const type = eventType(deps.vendor, event)
        const cloudEvent = buildCloudEvent({
          id: formatId('evt', id),
          type,
          source: deps.sourceOf(order.environment, order.document.id),
          time: now,
          order: order.document,
          traceParent: newTraceparent(),
          sequence,
          extra: eventExtraData(event),
        })
        await insertEvent(tx, {
          id,
          orderNumber: order.orderNumber,
          accountId: order.accountId,
          environment: order.environment,
          sequence,
          type,
          createdAt: now,
          body: JSON.stringify(cloudEvent),
        })
        if (url && callbackUrlAccepts(callbackEvents, event)) {
          const deliveryId = await insertDelivery(tx, {
            eventId: id,
            orderNumber: order.orderNumber,
            accountId: order.accountId,
            environment: order.environment,
            url,
            redeliveryOf: null,
            at: now,
          })
          jobs.push(deliveryJob(deliveryId, 1))
        }
        for (const endpoint of endpoints) {
          if (!endpointAccepts(endpoint, { type, orderMetadata })) continue
          const deliveryId = await insertDelivery(tx, {
            eventId: id,
            orderNumber: order.orderNumber,
            accountId: order.accountId,
            environment: order.environment,
            url: endpoint.url,
            redeliveryOf: null,
            webhookId: endpoint.id,
            at: now,
          })
          jobs.push(deliveryJob(deliveryId, 1))
        }
      }
      if (jobs.length > 0) await deps.jobs.enqueue(tx, jobs)
      return events.length + labEvents
    },
  }
}
