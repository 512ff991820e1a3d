// The storefront fulfilment outbox (docs/channels.md#fulfilments): when a shipment of a channel's order ships, the
// order change that ships it also writes one outbox row and its first attempt job (in the change's transaction,
// through the order events service), so a shipment that shipped is never left untold. Each attempt calls the store's
// adapter; failures are retried on the callbacks' schedule (domain/retry-schedule.ts), a store's Retry-After
// honoured, every attempt logged, and the channel shown as failing until the store takes one again.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import { openSecret } from '../domain/channels.ts'
import { formatId } from '../domain/ids.ts'
import { jobRequest } from '../domain/jobs.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { DELIVERY_RETRY_SCHEDULE_SECONDS, nextAttemptAt } from '../domain/retry-schedule.ts'
import {
  type StorefrontAdapter,
  type StorefrontCredentials,
  StorefrontError,
  type StorefrontFulfilment,
  type StorefrontKind,
} from '../domain/storefronts.ts'
import {
  type ChannelFulfilmentRow,
  findChannel,
  findChannelOrderOfOrder,
  findFulfilment,
  insertFulfilment,
  insertFulfilmentAttempt,
  updateChannel,
  updateFulfilment,
} from '../repositories/channels.repository.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'

/** Writes the outbox rows of the shipments a change ships, in its transaction (OrderEventsDeps.channelFulfilments). */
export interface ChannelFulfilmentRecorder {
  shipped(tx: Queryable, order: PipelineOrder, shipmentIds: readonly string[]): Promise<void>
}

export function createChannelFulfilmentRecorder(deps: { clock: Clock; jobs: JobEnqueuer }): ChannelFulfilmentRecorder {
  return {
    async shipped(tx, order, shipmentIds) {
      if (shipmentIds.length === 0) return
      const channelOrder = await findChannelOrderOfOrder(tx, order.orderNumber)
      if (!channelOrder) return
      const items = new Map(order.document.items.map((item) => [item.id, item]))
      for (const shipmentId of shipmentIds) {
        const shipment = order.document.shipments.find((candidate) => candidate.id === shipmentId)
        if (!shipment) continue
        const fulfilment: StorefrontFulfilment = {
          externalOrderId: channelOrder.externalOrderId,
          lineItems: shipment.items.flatMap(({ itemId }) => {
            const item = items.get(itemId)
            return item?.merchantReference
              ? [{ externalLineItemId: item.merchantReference, quantity: item.copies }]
              : []
          }),
          tracking: {
            carrier: shipment.carrier.name || null,
            number: shipment.tracking?.number || null,
            url: shipment.tracking?.url || null,
          },
        }
        const id = await insertFulfilment(tx, {
          channelId: channelOrder.channelId,
          channelOrderId: channelOrder.id,
          shipmentId,
          fulfilment,
          at: deps.clock.now(),
        })
        if (id !== undefined) {
          await deps.jobs.enqueue(tx, [jobRequest('fulfil-channel-shipment', { fulfilmentId: id, attempt: 1 })])
        }
      }
    },
  }
}

export interface ChannelFulfilmentsService {
  /** The job: one attempt of one outbox row (a re-run of an attempt already recorded does nothing). */
  deliver(fulfilmentId: number, attempt: number): Promise<void>
}

export interface ChannelFulfilmentsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  adapters: Partial<Record<StorefrontKind, StorefrontAdapter>>
  secretsKey: Buffer
  /** Delays of the attempts (tests shorten it); DELIVERY_RETRY_SCHEDULE_SECONDS by default. */
  retryScheduleSeconds?: readonly number[]
  log?: ServiceLogger
}

/** What one attempt got: the store's fulfilment, or its error (retryable or not). */
type AttemptOutcome =
  | { ok: true; externalFulfilmentId: string | null }
  | { ok: false; error: string; status: number | null; retryable: boolean; retryAfterSeconds: number | null }

/** Longest error text kept with an attempt and shown as the channel's status reason. */
const ERROR_CHARACTERS = 500

export function createChannelFulfilmentsService(deps: ChannelFulfilmentsDeps): ChannelFulfilmentsService {
  const schedule = deps.retryScheduleSeconds ?? DELIVERY_RETRY_SCHEDULE_SECONDS
  const log = deps.log ?? silentLogger
  return {
    async deliver(fulfilmentId, attempt) {
      const row = await findFulfilment(deps.db, fulfilmentId)
      if (row?.status !== 'pending' || row.attempts !== attempt - 1) return
      const started = Date.now()
      const outcome = await attemptFulfilment(deps, row)
      const latencyMs = Date.now() - started
      const recorded = await deps.db.transaction(async (tx) => {
        const locked = await findFulfilment(tx, fulfilmentId, true)
        if (locked?.status !== 'pending' || locked.attempts !== attempt - 1) return undefined
        const now = deps.clock.now()
        await insertFulfilmentAttempt(tx, fulfilmentId, {
          attempt,
          attemptedAt: now,
          httpStatus: outcome.ok ? 200 : outcome.status,
          latencyMs,
          error: outcome.ok ? null : outcome.error.slice(0, ERROR_CHARACTERS),
        })
        const next =
          outcome.ok || !outcome.retryable ? null : nextAttemptAt(schedule, attempt, now, outcome.retryAfterSeconds)
        const status = outcome.ok ? 'delivered' : next === null ? 'failed' : 'pending'
        await updateFulfilment(tx, fulfilmentId, {
          status,
          attempts: attempt,
          nextAttemptAt: next,
          externalFulfilmentId: outcome.ok ? outcome.externalFulfilmentId : null,
          at: now,
        })
        if (next !== null) {
          await deps.jobs.enqueue(tx, [
            jobRequest('fulfil-channel-shipment', { fulfilmentId, attempt: attempt + 1 }, next),
          ])
        }
        await showChannelState(tx, row.channelId, outcome, now)
        return { status, next }
      })
      if (!recorded) return
      const line = {
        step: 'channel-fulfilment',
        channelId: formatId('chn', row.channelId),
        shipmentId: row.shipmentId,
        attempt,
        maxAttempts: schedule.length,
        status: outcome.ok ? 200 : outcome.status,
        latencyMs,
        result: recorded.status,
        nextAttemptAt: recorded.next?.toISOString() ?? null,
      }
      const message = `fulfilment of ${row.shipmentId} on channel ${line.channelId} attempt ${attempt}/${schedule.length}: ${
        outcome.ok ? 'delivered' : outcome.error
      }`
      if (recorded.status === 'failed') log.warn(line, message)
      else log.info(line, message)
    },
  }
}

async function attemptFulfilment(deps: ChannelFulfilmentsDeps, row: ChannelFulfilmentRow): Promise<AttemptOutcome> {
  const channel = await findChannel(deps.db, row.channelId)
  const adapter = channel && deps.adapters[channel.type]
  if (!channel || !adapter) {
    return { ok: false, error: 'the channel was deleted', status: null, retryable: false, retryAfterSeconds: null }
  }
  try {
    const credentials = JSON.parse(openSecret(deps.secretsKey, channel.credentialsEncrypted)) as StorefrontCredentials
    const done = await adapter.fulfil(credentials, row.fulfilment)
    return { ok: true, externalFulfilmentId: done.externalFulfilmentId }
  } catch (error) {
    if (error instanceof StorefrontError) {
      return {
        ok: false,
        error: error.message,
        status: error.status,
        retryable: error.retryable,
        retryAfterSeconds: error.retryAfterSeconds,
      }
    }
    // Anything else (a bug, an unreadable answer) is retried: the schedule bounds it and the log shows it.
    return { ok: false, error: (error as Error).message, status: null, retryable: true, retryAfterSeconds: null }
  }
}

/** The channel shows failing from a failed attempt until a later one succeeds; an uninstalled channel stays so. */
async function showChannelState(tx: Queryable, channelId: number, outcome: AttemptOutcome, at: Date): Promise<void> {
  const channel = await findChannel(tx, channelId)
  if (!channel || channel.status === 'uninstalled') return
  if (outcome.ok) {
    if (channel.status !== 'active') await updateChannel(tx, channelId, { status: 'active', statusReason: null, at })
    return
  }
  const reason = `fulfilment failed: ${outcome.error}`.slice(0, ERROR_CHARACTERS)
  await updateChannel(tx, channelId, { status: 'failing', statusReason: reason, at })
}
