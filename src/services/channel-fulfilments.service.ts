// The storefront fulfilment outbox (docs/channels.md#fulfilments): when a shipment of a channel's order ships, the
// order change that ships it also writes one outbox row and its first attempt job (in the change's transaction,
// through the order events service), so a shipment that shipped is never left untold. Each attempt calls the store's
// adapter; failures are retried on the callbacks' schedule (domain/retry-schedule.ts), a store's Retry-After
// honoured, every attempt logged, and the channel shown as failing until the store takes one again.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import { openSecret, SealedUnderAnotherKeyError, secretsUnreadableReason } from '../domain/channels.ts'
import { formatId, parseRequestId } from '../domain/ids.ts'
import { jobRequest } from '../domain/jobs.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
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
  type FulfilmentStatus,
  findChannel,
  findChannelOrderOfOrder,
  findFulfilment,
  insertFulfilment,
  insertFulfilmentAttempt,
  type ListedFulfilment,
  listFulfilments,
  listOverdueFulfilments,
  markChannelSecretsUnreadable,
  updateChannel,
  updateFulfilment,
} from '../repositories/channels.repository.ts'
import type { AbandonedJobRequeuer } from './callbacks.service.ts'
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

/** One attempt to tell the store, as the list shows it. */
export interface ChannelFulfilmentAttemptView {
  attempt: number
  attempted: string
  /** The store's HTTP status (200 for a fulfilment made); null when it could not be reached. */
  httpStatus: number | null
  error: string | null
}

/** A fulfilment of the outbox as GET /v4.0/channels/{id}/fulfilments shows it. */
export interface ChannelFulfilmentView {
  id: string
  orderId: string | null
  shipmentId: string
  externalOrderId: string
  /** pending (being tried, or waiting for its next attempt), delivered, failed (refused, or its tries used up). */
  state: FulfilmentStatus
  attemptCount: number
  nextAttemptAt: string | null
  lastError: string | null
  created: string
  lastUpdated: string
  attempts: ChannelFulfilmentAttemptView[]
}

export interface ChannelFulfilmentPage {
  fulfilments: ChannelFulfilmentView[]
  hasMore: boolean
  /** The id the next (older) page continues below; null on the last. */
  nextBefore: string | null
}

export interface ChannelFulfilmentsService {
  /** The job: one attempt of one outbox row (a re-run of an attempt already recorded does nothing). */
  deliver(fulfilmentId: number, attempt: number): Promise<void>
  /** The caller's channel's fulfilments, newest first, `top` at a time, older than `before` when given. */
  list(
    scope: AccountScope,
    channelId: string,
    query: { before: string | null; top: number },
  ): Promise<ChannelFulfilmentPage>
  /**
   * "Try again now": a pending or failed fulfilment's next attempt made due at once; one already delivered is
   * ValidationFailed naming fulfilmentId. Answers the fulfilment as it is then.
   */
  retryNow(scope: AccountScope, channelId: string, fulfilmentId: string): Promise<ChannelFulfilmentView>
  /**
   * The sweeper (a scheduled job): a pending fulfilment whose next attempt is overdue by the margin and whose
   * attempt job the queue gave up on gets that job back; how many were put back.
   */
  sweepStalled(): Promise<number>
}

/** A pending fulfilment this long past its next attempt is one whose job the queue may have given up on. */
export const STALLED_FULFILMENT_MARGIN_SECONDS = 600
const SWEEP_PAGE_SIZE = 100

export interface ChannelFulfilmentsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer & AbandonedJobRequeuer
  adapters: Partial<Record<StorefrontKind, StorefrontAdapter>>
  secretsKey: Buffer
  /** Delays of the attempts (tests shorten it); DELIVERY_RETRY_SCHEDULE_SECONDS by default. */
  retryScheduleSeconds?: readonly number[]
  log?: ServiceLogger
}

/**
 * What one attempt got: the store's fulfilment, or its error (retryable or not). `sealedUnderAnotherKey`: the
 * channel's secrets were sealed under another channel secrets key, so the store was not called (not retryable: only
 * the merchant's PATCH mends it, then "Try again now").
 */
type AttemptOutcome =
  | { ok: true; externalFulfilmentId: string | null }
  | {
      ok: false
      error: string
      status: number | null
      retryable: boolean
      retryAfterSeconds: number | null
      sealedUnderAnotherKey?: SealedUnderAnotherKeyError
    }

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
        // Which keys, for the operator (fingerprints only, never a key or a secret).
        ...(!outcome.ok && outcome.sealedUnderAnotherKey
          ? {
              sealedKeyFingerprint: outcome.sealedUnderAnotherKey.sealedFingerprint,
              currentKeyFingerprint: outcome.sealedUnderAnotherKey.currentFingerprint,
            }
          : {}),
      }
      const message = `fulfilment of ${row.shipmentId} on channel ${line.channelId} attempt ${attempt}/${schedule.length}: ${
        outcome.ok ? 'delivered' : outcome.error
      }`
      if (recorded.status === 'failed') log.warn(line, message)
      else log.info(line, message)
    },
    list: (scope, channelId, query) => listChannelFulfilments(deps, scope, channelId, query),
    retryNow: (scope, channelId, fulfilmentId) => retryNow(deps, scope, channelId, fulfilmentId),
    sweepStalled: () => sweepStalled(deps),
  }
}

function toFulfilmentView(row: ListedFulfilment): ChannelFulfilmentView {
  const last = row.attemptLog.at(-1)
  return {
    id: formatId('chf', row.id),
    orderId: row.orderNumber === null ? null : formatId('ord', row.orderNumber),
    shipmentId: row.shipmentId,
    externalOrderId: row.externalOrderId,
    state: row.status,
    attemptCount: row.attempts,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    lastError: row.status === 'delivered' ? null : (last?.error ?? null),
    created: row.createdAt.toISOString(),
    lastUpdated: row.updatedAt.toISOString(),
    attempts: row.attemptLog.map((attempt) => ({
      attempt: attempt.attempt,
      attempted: attempt.attemptedAt.toISOString(),
      httpStatus: attempt.httpStatus,
      error: attempt.error,
    })),
  }
}

async function scopedChannel(deps: ChannelFulfilmentsDeps, scope: AccountScope, channelId: string): Promise<number> {
  const number = parseRequestId('chn', channelId, 'channelId')
  const channel = await findChannel(deps.db, number, scope)
  if (!channel) throw new ServiceError('EntityNotFound', `Channel ${channelId} was not found`)
  return channel.id
}

async function listChannelFulfilments(
  deps: ChannelFulfilmentsDeps,
  scope: AccountScope,
  channelId: string,
  query: { before: string | null; top: number },
): Promise<ChannelFulfilmentPage> {
  const channel = await scopedChannel(deps, scope, channelId)
  const before = query.before === null ? null : parseRequestId('chf', query.before, 'before')
  const rows = await listFulfilments(deps.db, channel, query.top + 1, before)
  const page = rows.slice(0, query.top)
  const hasMore = rows.length > query.top
  const last = page.at(-1)
  return {
    fulfilments: page.map(toFulfilmentView),
    hasMore,
    nextBefore: hasMore && last ? formatId('chf', last.id) : null,
  }
}

async function retryNow(
  deps: ChannelFulfilmentsDeps,
  scope: AccountScope,
  channelId: string,
  fulfilmentId: string,
): Promise<ChannelFulfilmentView> {
  const channel = await scopedChannel(deps, scope, channelId)
  const number = parseRequestId('chf', fulfilmentId, 'fulfilmentId')
  await deps.db.transaction(async (tx) => {
    const row = await findFulfilment(tx, number, true)
    if (!row || row.channelId !== channel) {
      throw new ServiceError('EntityNotFound', `Fulfilment ${fulfilmentId} of channel ${channelId} was not found`)
    }
    if (row.status === 'delivered') {
      throw validationFailed(
        {
          fulfilmentId: [
            { code: 'InvalidValue', providedValue: fulfilmentId, comparisonValue: 'a fulfilment not yet delivered' },
          ],
        },
        'The fulfilment was delivered already',
      )
    }
    const now = deps.clock.now()
    await updateFulfilment(tx, row.id, { status: 'pending', attempts: row.attempts, nextAttemptAt: now, at: now })
    // A failed row has no job waiting: its next attempt is queued as the schedule would have (the sweeper knows that
    // job). A pending one may have its next attempt queued for later: this one is due now beside it.
    const attempt = row.attempts + 1
    await deps.jobs.enqueue(tx, [
      jobRequest(
        'fulfil-channel-shipment',
        row.status === 'failed' ? { fulfilmentId: row.id, attempt } : { fulfilmentId: row.id, attempt, now: true },
      ),
    ])
  })
  const [listed] = await listFulfilments(deps.db, channel, 1, number + 1)
  if (!listed) throw new Error(`fulfilment ${number} vanished`)
  return toFulfilmentView(listed)
}

/**
 * The sweeper: pending fulfilments overdue by the margin get their attempt job back under its own deterministic id
 * (JobQueue.requeueAbandoned: only a job failed for good, cancelled or gone is put back; one still waiting or
 * running is left to run). The attempt itself is guarded by the row (deliver makes an attempt only from its own
 * attempt count), so a job put back never tells the store twice.
 */
async function sweepStalled(deps: ChannelFulfilmentsDeps): Promise<number> {
  const dueBefore = new Date(deps.clock.now().getTime() - STALLED_FULFILMENT_MARGIN_SECONDS * 1000)
  let requeued = 0
  let afterId = 0
  for (;;) {
    const page = await listOverdueFulfilments(deps.db, { dueBefore, afterId, limit: SWEEP_PAGE_SIZE })
    for (const row of page) {
      const job = jobRequest('fulfil-channel-shipment', { fulfilmentId: row.id, attempt: row.attempts + 1 })
      if (await deps.jobs.requeueAbandoned(job)) requeued += 1
    }
    if (page.length < SWEEP_PAGE_SIZE) return requeued
    afterId = page.at(-1)?.id ?? afterId
  }
}

async function attemptFulfilment(deps: ChannelFulfilmentsDeps, row: ChannelFulfilmentRow): Promise<AttemptOutcome> {
  const channel = await findChannel(deps.db, row.channelId)
  const adapter = channel && deps.adapters[channel.type]
  if (!channel || !adapter) {
    return { ok: false, error: 'the channel was deleted', status: null, retryable: false, retryAfterSeconds: null }
  }
  let credentials: StorefrontCredentials
  try {
    credentials = JSON.parse(openSecret(deps.secretsKey, channel.credentialsEncrypted)) as StorefrontCredentials
  } catch (error) {
    // A corrupt value is left to the schedule and the log, as any unexpected error below.
    if (!(error instanceof SealedUnderAnotherKeyError)) {
      return { ok: false, error: (error as Error).message, status: null, retryable: true, retryAfterSeconds: null }
    }
    return {
      ok: false,
      error: `not sent: ${secretsUnreadableReason(channel.type)}, then try again`,
      status: null,
      retryable: false,
      retryAfterSeconds: null,
      sealedUnderAnotherKey: error,
    }
  }
  try {
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
  if (outcome.sealedUnderAnotherKey) {
    // The same reason a webhook sets, set once by whichever notices first.
    await markChannelSecretsUnreadable(tx, channelId, {
      reason: secretsUnreadableReason(channel.type),
      currentFingerprint: outcome.sealedUnderAnotherKey.currentFingerprint,
      at,
    })
    return
  }
  const reason = `fulfilment failed: ${outcome.error}`.slice(0, ERROR_CHARACTERS)
  await updateChannel(tx, channelId, { status: 'failing', statusReason: reason, at })
}
