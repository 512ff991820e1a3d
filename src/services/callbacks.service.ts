// Callback delivery (docs/callbacks.md): one job per attempt POSTs the stored CloudEvent, signed, to
// the delivery's URL; any 2xx is delivered, anything else is retried on the schedule below and, after the last
// attempt, marked failed and kept. Every attempt is recorded. Also the merchant's views: deliveries with their
// attempts, redelivery, test callbacks sent at once, and the events feed for merchants who poll.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { DeliveryStatus } from '../domain/callback-deliveries.ts'
import type { Environment } from '../domain/environment.ts'
import { formatId, invalidIdFailure, parseIdOrNumber, parseRequestId } from '../domain/ids.ts'
import { deliveryJob, type JobRequest } from '../domain/jobs.ts'
import { CALLBACK_LIST_DEFAULT_TOP, CALLBACK_LIST_MAX_TOP } from '../domain/limits.ts'
import { buildTestCloudEvent, testEventType } from '../domain/order-events.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import { DELIVERY_RETRY_SCHEDULE_SECONDS, nextAttemptAt as nextAttemptAtOf } from '../domain/retry-schedule.ts'
import { newTraceparent } from '../domain/traceparent.ts'
import { unfetchableUrlReason } from '../domain/urls.ts'
import {
  endpointAccepts,
  filterableEventOf,
  WEBHOOK_ID_PREFIX,
  type WebhookEndpoint,
} from '../domain/webhook-endpoints.ts'
import { webhookHeaders } from '../domain/webhook-signature.ts'
import { ensureSigningSecret, readEnvironmentSettings } from '../repositories/accounts.repository.ts'
import {
  type AttemptRow,
  type DeliveryRow,
  deleteFinishedDeliveries,
  findDelivery,
  findDeliveryForCaller,
  insertAttempt,
  insertDelivery,
  insertFinishedDelivery,
  listAttempts,
  listDeliveries,
  listOverdueDeliveries,
  updateDelivery,
} from '../repositories/callback-deliveries.repository.ts'
import {
  deleteUnneededEvents,
  drawEventIds,
  findEvent,
  insertEvent,
  listEvents,
} from '../repositories/events.repository.ts'
import { ensureLabSigningSecret, readLabPushEndpoint } from '../repositories/lab-push.repository.ts'
import { readOrderTraceId } from '../repositories/orders.repository.ts'
import { findWebhookEndpoint, findWebhookEndpointById } from '../repositories/webhook-endpoints.repository.ts'
import type { Caller } from './accounts.service.ts'
import {
  type CallbackDeliveryResult,
  noMetrics,
  type ServiceLogger,
  type ServiceMetrics,
  silentLogger,
} from './observability.ts'
import type { FileLinkRefresher } from './orders.service.ts'
import type { WebhookRecoveryService } from './webhook-recovery.service.ts'

/** The delivery retry schedule (domain/retry-schedule.ts), which the storefront fulfilment outbox shares. */
export const CALLBACK_RETRY_SCHEDULE_SECONDS: readonly number[] = DELIVERY_RETRY_SCHEDULE_SECONDS
/** A receiver has this long to answer (docs/callbacks.md#delivery-and-retries). */
export const CALLBACK_TIMEOUT_MS = 15_000
/** How much of each answer is kept with its attempt. */
export const RESPONSE_SNIPPET_CHARACTERS = 500
/**
 * The sweeper looks at a pending delivery only once its next attempt is this overdue: its job normally runs
 * within seconds of being due, so anything later means the job is stuck behind a busy queue, retrying after
 * errors, or given up on; the job's own state tells which.
 */
export const STALLED_DELIVERY_MARGIN_SECONDS = 600
/** Finished deliveries, their attempts and the events no longer needed are kept this long (30 days). */
export const CALLBACK_RETENTION_SECONDS = 30 * 86_400
/** Rows per sweeper page and per retention delete (short statements: PGlite has one connection). */
const SWEEP_PAGE_SIZE = 100
const RETENTION_BATCH_SIZE = 1000

/** What a delivery attempt got: an HTTP answer, or none (`permanent`: no retry can help, e.g. a refused address). */
export type PostOutcome =
  | { answered: true; status: number; body: string }
  | { answered: false; error: string; permanent: boolean }

/** Sends a callback; the safe fetcher in production (same address rules as asset downloads). */
export type CallbackPoster = (
  url: string,
  body: string,
  options: { headers: Record<string, string>; timeoutMs: number },
) => Promise<PostOutcome>

/** Puts back a job the queue gave up on (the job queue; see JobQueue.requeueAbandoned). */
export interface AbandonedJobRequeuer {
  requeueAbandoned(job: JobRequest): Promise<boolean>
}

export interface CallbacksDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer & AbandonedJobRequeuer
  post: CallbackPoster
  /** Delays of the attempts (tests shorten it); CALLBACK_RETRY_SCHEDULE_SECONDS by default. */
  retryScheduleSeconds?: readonly number[]
  /** How long finished deliveries and unneeded events are kept; CALLBACK_RETENTION_SECONDS by default. */
  retentionSeconds?: number
  /** A new signing secret, for environments that have none yet. */
  newSigningSecret: () => string
  /** `<vendor>` of `com.<vendor>.test`, the test callback's type (the order events' vendor). */
  vendor: string
  /** The CloudEvent `source` of an environment's test callbacks. */
  testEventSource: (environment: Environment) => string
  /** Events are stored with file tokens; each delivery and each read of the feed carries fresh links. */
  fileLinks: FileLinkRefresher
  /** One line per delivery attempt; silent when absent. */
  log?: ServiceLogger
  metrics?: ServiceMetrics
  /** Counts each attempt to a webhook endpoint on it, and disables one that keeps failing. */
  webhookAttempts: Pick<WebhookRecoveryService, 'recordAttempt'>
}

export interface CallbackAttemptView {
  attempt: number
  time: string
  httpStatus: number | null
  latencyMs: number
  responseSnippet: string | null
  error: string | null
}

export interface CallbackView {
  id: string
  eventId: string
  /** Null for a test callback. */
  orderId: string | null
  type: string
  url: string
  status: DeliveryStatus
  nextAttemptAt: string | null
  redeliveryOf: string | null
  created: string
  lastUpdated: string
  attempts: CallbackAttemptView[]
  /** The webhook endpoint it went to (whk_<number>); null for a callback URL. */
  webhookId: string | null
}

/** A delivery as listings show it (the merchant's GET /v4.0/callbacks, and a lab's GET /labs/v1/pushes). */
export function toCallbackView(row: DeliveryRow, attempts: AttemptRow[]): CallbackView {
  return {
    id: formatId('cbd', row.id),
    eventId: formatId('evt', row.eventId),
    orderId: row.orderNumber === null ? null : formatId('ord', row.orderNumber),
    type: row.type,
    url: row.url,
    status: row.status,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    redeliveryOf: row.redeliveryOf === null ? null : formatId('cbd', row.redeliveryOf),
    created: row.createdAt.toISOString(),
    lastUpdated: row.updatedAt.toISOString(),
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      time: attempt.attemptedAt.toISOString(),
      httpStatus: attempt.httpStatus,
      latencyMs: attempt.latencyMs,
      responseSnippet: attempt.responseSnippet,
      error: attempt.error,
    })),
    webhookId: row.webhookId === null ? null : formatId(WEBHOOK_ID_PREFIX, row.webhookId),
  }
}

/** The event number of a feed cursor: `evt_123` or `123`; absent means from the start. */
export function parseEventCursor(after: string | undefined): number {
  if (after === undefined || after === '') return 0
  const number = parseIdOrNumber('evt', after)
  if (number === undefined) throw validationFailed({ after: [invalidIdFailure('evt', after)] })
  return number
}

/** At most `top` rows, read as one more so that `hasMore` needs no count. */
async function readPage<Row>(
  top: number,
  read: (limit: number) => Promise<Row[]>,
): Promise<{ page: Row[]; hasMore: boolean }> {
  const rows = await read(top + 1)
  return { page: rows.slice(0, top), hasMore: rows.length > top }
}

/** The order number of an `orderId` filter (`ord_123`); null when absent. */
function parseOrderFilter(orderId: string | undefined): number | null {
  return orderId === undefined ? null : parseRequestId('ord', orderId, 'orderId')
}

/** The deliveries listing's filter (GET /v4.0/callbacks): one order's, one status, one endpoint's, and the page. */
export interface CallbackListFilter {
  orderId?: string
  status?: DeliveryStatus
  /** Only the deliveries to this webhook endpoint (whk_12). */
  webhookId?: string
  top?: number
  skip?: number
}

/** The events feed's query: the cursor, the page size, one order's events only, one endpoint's events only. */
export interface EventFeedQuery {
  after?: string
  top?: number
  orderId?: string
  /** Only the events this webhook endpoint's filters accept (`whk_12`). */
  webhookId?: string
}

/** Feed events read per statement while looking for the ones an endpoint's filters accept. */
const FILTERED_FEED_PAGE_SIZE = 500

/** Callback delivery and the merchant's views of it (docs/callbacks.md). */
export interface CallbacksService {
  /** One attempt of a delivery (the `deliver-callback` job); re-running an attempt already recorded does nothing. */
  deliver(deliveryId: number, attempt: number): Promise<void>
  /** Puts back the attempt jobs the queue gave up on of deliveries long overdue; how many (a scheduled job). */
  sweepStalledDeliveries(): Promise<number>
  /** Deletes finished deliveries and unneeded events past the retention period; how many (a scheduled job). */
  expireCallbackHistory(): Promise<{ deliveries: number; events: number }>
  /** The caller's deliveries, newest first, each with every attempt. */
  listCallbacks(caller: Caller, filter: CallbackListFilter): Promise<{ callbacks: CallbackView[]; hasMore: boolean }>
  /** Sends a delivery's event again as a new delivery, to the order's callback URL as it is now. */
  redeliver(caller: Caller, id: string): Promise<CallbackView>
  /** Sends a signed test callback now, once, to `url` or the environment's callback URL, and records it. */
  sendTestCallback(caller: Caller, input: { url?: string; traceParent?: string }): Promise<CallbackView>
  /**
   * Sends a signed test callback now, once, to a webhook endpoint (the caller has found it in its environment),
   * signed with the endpoint's secrets, and records it as a delivery to that endpoint.
   */
  sendWebhookTestCallback(
    caller: Caller,
    endpoint: { id: number; url: string; eventTypes: readonly string[] },
    input: { traceParent?: string },
  ): Promise<CallbackView>
  /** The caller's events after the cursor, oldest first, as the CloudEvents' JSON texts exactly as sent. */
  listEvents(
    caller: Caller,
    query: EventFeedQuery,
  ): Promise<{ events: string[]; nextCursor: string | null; hasMore: boolean }>
}

/** The dependencies with their defaults filled in, as every function of the service takes them. */
interface CallbacksContext
  extends Omit<CallbacksDeps, 'retryScheduleSeconds' | 'retentionSeconds' | 'log' | 'metrics'> {
  schedule: readonly number[]
  retentionSeconds: number
  log: ServiceLogger
  metrics: ServiceMetrics
}

export function createCallbacksService(deps: CallbacksDeps): CallbacksService {
  const context: CallbacksContext = {
    ...deps,
    schedule: deps.retryScheduleSeconds ?? CALLBACK_RETRY_SCHEDULE_SECONDS,
    retentionSeconds: deps.retentionSeconds ?? CALLBACK_RETENTION_SECONDS,
    log: deps.log ?? silentLogger,
    metrics: deps.metrics ?? noMetrics,
  }
  return {
    deliver: (deliveryId, attempt) => deliver(context, deliveryId, attempt),
    sweepStalledDeliveries: () => sweepStalledDeliveries(context),
    expireCallbackHistory: () => expireCallbackHistory(context),
    listCallbacks: (caller, filter) => listCallbacks(context, caller, filter),
    redeliver: (caller, id) => redeliver(context, caller, id),
    sendTestCallback: (caller, input) => sendTestCallback(context, caller, input),
    sendWebhookTestCallback: (caller, endpoint, input) =>
      sendTest(context, caller, { url: endpoint.url, endpoint, traceParent: input.traceParent }),
    listEvents: (caller, query) => listFeedEvents(context, caller, query),
  }
}

/**
 * The secrets that sign now: the current one and, until its overlap ends, the one before it. A merchant's
 * callback is signed with its environment's secrets; a delivery to a webhook endpoint with the endpoint's own; a
 * lab's pushed job with the lab's (made on first need, as for a lab whose push URL comes from the catalogue).
 */
async function signingSecretsOf(
  context: CallbacksContext,
  signer: { accountId: number | null; labCode: string | null; webhookId: number | null; environment: Environment },
  now: Date,
): Promise<string[]> {
  const { db } = context
  const { accountId, labCode, webhookId, environment } = signer
  let stored: { current: string | null; previous: string | null; previousExpiresAt: Date | null } | undefined
  let current: string
  if (webhookId !== null) {
    const endpoint = await findWebhookEndpointById(db, webhookId)
    if (!endpoint) throw new Error(`webhook endpoint ${formatId(WEBHOOK_ID_PREFIX, webhookId)} does not exist`)
    stored = endpoint
    current = endpoint.current
  } else if (labCode !== null) {
    stored = await readLabPushEndpoint(db, labCode)
    current = stored?.current ?? (await ensureLabSigningSecret(db, labCode, context.newSigningSecret(), now))
  } else {
    stored = await readEnvironmentSettings(db, accountId as number, environment)
    current =
      stored?.current ?? (await ensureSigningSecret(db, accountId as number, environment, context.newSigningSecret()))
  }
  const previous =
    stored?.previous && stored.previousExpiresAt && stored.previousExpiresAt > now ? [stored.previous] : []
  return [current, ...previous]
}

/** What one signed POST of an event got: the answer, whether it counts as delivered, and its attempt's row. */
interface SentEvent {
  outcome: PostOutcome
  /** Any 2xx. */
  delivered: boolean
  attempt: Omit<AttemptRow, 'deliveryId' | 'attempt'>
}

/**
 * POSTs an event's JSON text to `url` through the poster, signed with the environment's secrets as at `at` (the
 * same headers for every callback, test or not), and times the answer: what its attempt is recorded as.
 */
async function postSignedEvent(
  context: CallbacksContext,
  signed: {
    accountId: number | null
    labCode?: string | null
    /** A delivery to a webhook endpoint is signed with the endpoint's secrets. */
    webhookId?: number | null
    environment: Environment
    eventId: number
    url: string
    body: string
    at: Date
  },
): Promise<SentEvent> {
  const { body, at } = signed
  const signer = {
    accountId: signed.accountId,
    labCode: signed.labCode ?? null,
    webhookId: signed.webhookId ?? null,
    environment: signed.environment,
  }
  const headers = {
    'content-type': 'application/json',
    ...webhookHeaders(await signingSecretsOf(context, signer, at), formatId('evt', signed.eventId), at, body),
  }
  const started = performance.now()
  const outcome = await context.post(signed.url, body, { headers, timeoutMs: CALLBACK_TIMEOUT_MS })
  const latencyMs = Math.round(performance.now() - started)
  const delivered = outcome.answered && outcome.status >= 200 && outcome.status <= 299
  return {
    outcome,
    delivered,
    attempt: {
      attemptedAt: at,
      httpStatus: outcome.answered ? outcome.status : null,
      latencyMs,
      responseSnippet: outcome.answered ? outcome.body.slice(0, RESPONSE_SNIPPET_CHARACTERS) : null,
      error: outcome.answered ? (delivered ? null : `HTTP ${outcome.status}`) : outcome.error,
    },
  }
}

/** What recording an attempt decided: how it counts, and when the next attempt is due (null: none). */
interface RecordedAttempt {
  result: CallbackDeliveryResult
  nextAttemptAt: Date | null
}

async function deliver(context: CallbacksContext, deliveryId: number, attempt: number): Promise<void> {
  const { db, clock } = context
  const delivery = await findDelivery(db, deliveryId)
  if (delivery?.status !== 'pending' || delivery.attempts !== attempt - 1) return
  const event = await findEvent(db, delivery.eventId)
  if (!event) return
  if (delivery.webhookId !== null && (await refuseForEndpoint(context, delivery, attempt))) return
  const at = clock.now()
  const body = context.fileLinks.refresh(event.body)
  const sent = await postSignedEvent(context, {
    accountId: delivery.accountId,
    labCode: delivery.labCode,
    webhookId: delivery.webhookId,
    environment: delivery.environment,
    eventId: event.id,
    url: delivery.url,
    body,
    at,
  })
  const recorded = await recordDeliveryAttempt(context, deliveryId, attempt, sent)
  if (!recorded) return
  context.metrics.callbackDelivery(recorded.result)
  await logDeliveryAttempt(context, { delivery, eventType: event.type, attempt, sent, recorded })
}

/**
 * A delivery to a webhook endpoint that was deleted or disabled since it was made is not POSTed: it is marked
 * failed, with an attempt saying why (no request was made, so nothing counts against the endpoint's run of
 * failures). True when it was refused; false when the endpoint takes it.
 */
async function refuseForEndpoint(context: CallbacksContext, delivery: DeliveryRow, attempt: number): Promise<boolean> {
  const webhookId = delivery.webhookId as number
  const endpoint = await findWebhookEndpointById(context.db, webhookId)
  const state = !endpoint || endpoint.deletedAt !== null ? 'deleted' : endpoint.enabled ? null : 'disabled'
  if (state === null) return false
  const error = `webhook endpoint ${formatId(WEBHOOK_ID_PREFIX, webhookId)} is ${state}`
  await context.db.transaction(async (tx) => {
    const locked = await findDelivery(tx, delivery.id, true)
    if (locked?.status !== 'pending' || locked.attempts !== attempt - 1) return
    const now = context.clock.now()
    await insertAttempt(tx, {
      deliveryId: delivery.id,
      attempt,
      attemptedAt: now,
      httpStatus: null,
      latencyMs: 0,
      responseSnippet: null,
      error,
    })
    await updateDelivery(tx, delivery.id, { status: 'failed', attempts: attempt, nextAttemptAt: null, at: now })
  })
  context.log.info(
    {
      ...(delivery.orderNumber === null ? {} : { orderId: formatId('ord', delivery.orderNumber) }),
      step: 'callback',
      deliveryId: formatId('cbd', delivery.id),
      webhookId: formatId(WEBHOOK_ID_PREFIX, webhookId),
      url: delivery.url,
      attempt,
      result: 'gave_up',
    },
    `callback ${formatId('cbd', delivery.id)} not sent: ${error}`,
  )
  return true
}

/**
 * Records an attempt with what follows from it: delivered, failed for good, or the next attempt scheduled.
 * Undefined when another run of the same attempt recorded it first (a job retried after a crash).
 */
async function recordDeliveryAttempt(
  context: CallbacksContext,
  deliveryId: number,
  attempt: number,
  sent: SentEvent,
): Promise<RecordedAttempt | undefined> {
  const { clock, schedule } = context
  const { outcome, delivered } = sent
  return context.db.transaction(async (tx): Promise<RecordedAttempt | undefined> => {
    const locked = await findDelivery(tx, deliveryId, true)
    // Another run of this attempt got here first (a job retried after a crash): keep its record.
    if (locked?.status !== 'pending' || locked.attempts !== attempt - 1) return undefined
    // First, so that disabling an endpoint that has failed for too long takes the account's lock before the rest.
    if (locked.webhookId !== null) {
      await context.webhookAttempts.recordAttempt(tx, {
        webhookId: locked.webhookId,
        succeeded: delivered,
        at: sent.attempt.attemptedAt,
        error: sent.attempt.error,
      })
    }
    await insertAttempt(tx, { deliveryId, attempt, ...sent.attempt })
    const now = clock.now()
    const permanent = !outcome.answered && outcome.permanent
    const nextAttemptAt = delivered || permanent ? null : nextAttemptAtOf(schedule, attempt, now)
    if (nextAttemptAt === null) {
      const status = delivered ? 'delivered' : 'failed'
      await updateDelivery(tx, deliveryId, { status, attempts: attempt, nextAttemptAt: null, at: now })
      return { result: delivered ? 'delivered' : 'gave_up', nextAttemptAt: null }
    }
    await updateDelivery(tx, deliveryId, { status: 'pending', attempts: attempt, nextAttemptAt, at: now })
    await context.jobs.enqueue(tx, [deliveryJob(deliveryId, attempt + 1, nextAttemptAt)])
    return { result: 'failed', nextAttemptAt }
  })
}

/** One line per recorded attempt: a warning when the delivery is given up on. */
async function logDeliveryAttempt(
  context: CallbacksContext,
  made: { delivery: DeliveryRow; eventType: string; attempt: number; sent: SentEvent; recorded: RecordedAttempt },
): Promise<void> {
  const { delivery, eventType, attempt, recorded } = made
  const { outcome } = made.sent
  const { latencyMs } = made.sent.attempt
  const { schedule } = context
  const traceId = delivery.orderNumber === null ? undefined : await readOrderTraceId(context.db, delivery.orderNumber)
  const answer = outcome.answered ? `HTTP ${outcome.status}` : outcome.error
  const then =
    recorded.result === 'delivered'
      ? 'delivered'
      : recorded.nextAttemptAt
        ? `next attempt at ${recorded.nextAttemptAt.toISOString()}`
        : 'gave up'
  const line = {
    ...(delivery.orderNumber === null ? {} : { orderId: formatId('ord', delivery.orderNumber) }),
    ...(traceId ? { traceId } : {}),
    step: delivery.labCode === null ? 'callback' : 'lab-push',
    ...(delivery.labCode === null ? {} : { labCode: delivery.labCode }),
    deliveryId: formatId('cbd', delivery.id),
    eventType,
    url: delivery.url,
    attempt,
    maxAttempts: schedule.length,
    status: outcome.answered ? outcome.status : null,
    ...(outcome.answered ? {} : { error: outcome.error }),
    latencyMs,
    result: recorded.result,
    nextAttemptAt: recorded.nextAttemptAt?.toISOString() ?? null,
  }
  const what = delivery.labCode === null ? 'callback' : `push to lab ${delivery.labCode}`
  const message = `${what} ${line.deliveryId} (${eventType}) attempt ${attempt}/${schedule.length}: ${answer} in ${latencyMs} ms; ${then}`
  if (recorded.result === 'gave_up') context.log.warn(line, message)
  else context.log.info(line, message)
}

/**
 * The sweeper (a scheduled job): a pending delivery whose next attempt is overdue by the margin and whose
 * attempt job the queue gave up on (failed after its retries, e.g. on repeated database errors, cancelled,
 * or deleted) gets that job back, under its own deterministic id. Jobs still waiting or running are left
 * to run; a second sweeper at the same moment puts nothing back twice, and an attempt already recorded is
 * never made again (`deliver`). Returns how many jobs were put back.
 */
async function sweepStalledDeliveries(context: CallbacksContext): Promise<number> {
  const dueBefore = new Date(context.clock.now().getTime() - STALLED_DELIVERY_MARGIN_SECONDS * 1000)
  let requeued = 0
  let afterId = 0
  for (;;) {
    const page = await listOverdueDeliveries(context.db, { dueBefore, afterId, limit: SWEEP_PAGE_SIZE })
    for (const delivery of page) {
      if (await context.jobs.requeueAbandoned(deliveryJob(delivery.id, delivery.attempts + 1))) requeued += 1
    }
    if (page.length < SWEEP_PAGE_SIZE) return requeued
    afterId = page.at(-1)?.id ?? afterId
  }
}

/**
 * Retention (a scheduled job): deletes deliveries delivered or failed longer than the retention period ago
 * with their attempts, then events older than that which no delivery refers to any more, keeping each
 * order's latest event (the order's event `sequence` continues from it). Pending deliveries and their
 * events are always kept. In batches, each one statement.
 */
async function expireCallbackHistory(context: CallbacksContext): Promise<{ deliveries: number; events: number }> {
  const { db } = context
  const before = new Date(context.clock.now().getTime() - context.retentionSeconds * 1000)
  let deliveries = 0
  for (;;) {
    const deleted = await deleteFinishedDeliveries(db, { before, limit: RETENTION_BATCH_SIZE })
    deliveries += deleted
    if (deleted < RETENTION_BATCH_SIZE) break
  }
  let events = 0
  for (;;) {
    const deleted = await deleteUnneededEvents(db, { before, limit: RETENTION_BATCH_SIZE })
    events += deleted
    if (deleted < RETENTION_BATCH_SIZE) break
  }
  return { deliveries, events }
}

async function listCallbacks(
  context: CallbacksContext,
  caller: Caller,
  filter: CallbackListFilter,
): Promise<{ callbacks: CallbackView[]; hasMore: boolean }> {
  const { db } = context
  const orderNumber = parseOrderFilter(filter.orderId)
  const webhookId =
    filter.webhookId === undefined ? null : parseRequestId(WEBHOOK_ID_PREFIX, filter.webhookId, 'webhookId')
  const { page, hasMore } = await readPage(filter.top ?? CALLBACK_LIST_DEFAULT_TOP, (limit) =>
    listDeliveries(db, {
      accountId: caller.accountId,
      environment: caller.environment,
      orderNumber,
      status: filter.status ?? null,
      webhookId,
      limit,
      offset: filter.skip ?? 0,
    }),
  )
  const attempts = await listAttempts(
    db,
    page.map((row) => row.id),
  )
  return {
    callbacks: page.map((row) =>
      toCallbackView(
        row,
        attempts.filter((attempt) => attempt.deliveryId === row.id),
      ),
    ),
    hasMore,
  }
}

/**
 * Sends a delivery's event again, as a new delivery (same event, same `webhook-id`), to the order's callback
 * URL as it is now (the order's own, else the environment's; the original URL when neither is set any
 * more). A test callback is sent again to the URL it went to. A delivery to a webhook endpoint goes again to that
 * endpoint, at its URL as it is now (signed with its secrets when sent); a deleted endpoint's is not found.
 */
async function redeliver(context: CallbacksContext, caller: Caller, id: string): Promise<CallbackView> {
  const { db, clock } = context
  const number = parseRequestId('cbd', id, 'id')
  const original = await findDeliveryForCaller(db, caller, number)
  // A lab's push has no account: a merchant never finds one (the query asks for the caller's account).
  if (!original || original.accountId === null) throw new ServiceError('EntityNotFound', `Callback ${id} was not found`)
  const newId = await db.transaction(async (tx) => {
    // Locked, so that retention cannot delete it (and its event) under the new delivery referring to them.
    if (!(await findDelivery(tx, original.id, true))) {
      throw new ServiceError('EntityNotFound', `Callback ${id} was not found`)
    }
    const event = await findEvent(tx, original.eventId)
    const accountId = original.accountId as number
    const url = await redeliveryUrl(tx, original, event?.orderNumber == null ? null : event.body)
    const deliveryId = await insertDelivery(tx, {
      eventId: original.eventId,
      orderNumber: original.orderNumber,
      accountId,
      environment: original.environment,
      url,
      redeliveryOf: original.id,
      webhookId: original.webhookId,
      at: clock.now(),
    })
    await context.jobs.enqueue(tx, [deliveryJob(deliveryId, 1)])
    return deliveryId
  })
  const created = await findDelivery(db, newId)
  return toCallbackView(created as DeliveryRow, [])
}

/** Where a redelivery goes: the endpoint's URL now, else the order's callback URL now (see `redeliver`). */
async function redeliveryUrl(tx: Queryable, original: DeliveryRow, orderEventBody: string | null): Promise<string> {
  if (original.webhookId !== null) {
    const endpoint = await findWebhookEndpointById(tx, original.webhookId)
    if (!endpoint || endpoint.deletedAt !== null) {
      const name = formatId(WEBHOOK_ID_PREFIX, original.webhookId)
      throw new ServiceError('EntityNotFound', `Webhook endpoint ${name} of this callback was deleted`)
    }
    return endpoint.url
  }
  const settings = await readEnvironmentSettings(tx, original.accountId as number, original.environment)
  const order =
    orderEventBody === null
      ? null
      : (JSON.parse(orderEventBody) as { data: { order: { callbackUrl: string | null } } }).data.order
  return order ? (order.callbackUrl ?? settings?.callbackUrl ?? original.url) : original.url
}

/**
 * Sends a test callback now, once (no retries), to `url` or else the environment's callback URL, signed
 * like every callback with the environment's secrets, and records it as a delivery with its one attempt
 * (listed by GET /v4.0/callbacks with `orderId` null). Its event (`com.<vendor>.test`) is not in the feed.
 */
async function sendTestCallback(
  context: CallbacksContext,
  caller: Caller,
  input: { url?: string; traceParent?: string },
): Promise<CallbackView> {
  const url = await testCallbackUrl(context, caller, input.url)
  return sendTest(context, caller, { url, traceParent: input.traceParent })
}

/**
 * A test callback sent to `url` and recorded (see `sendTestCallback`); to a webhook endpoint when `endpoint` is
 * given: signed with its secrets, recorded as its delivery, and its `data` names the endpoint and its filter.
 */
async function sendTest(
  context: CallbacksContext,
  caller: Caller,
  input: {
    url: string
    endpoint?: { id: number; eventTypes: readonly string[] }
    traceParent?: string | undefined
  },
): Promise<CallbackView> {
  const { db, clock } = context
  const { url, endpoint } = input
  const webhookId = endpoint?.id ?? null
  const [eventNumber] = await drawEventIds(db, 1)
  const eventId = eventNumber as number
  const at = clock.now()
  const type = testEventType(context.vendor)
  const event = buildTestCloudEvent({
    id: formatId('evt', eventId),
    type,
    source: context.testEventSource(caller.environment),
    time: at,
    environment: caller.environment,
    traceParent: newTraceparent(input.traceParent),
  })
  // Additive fields for an endpoint's test: which endpoint it was sent to and what its filter lets through.
  const body = JSON.stringify(
    endpoint
      ? {
          ...event,
          data: {
            ...event.data,
            webhookId: formatId(WEBHOOK_ID_PREFIX, endpoint.id),
            eventTypes: [...endpoint.eventTypes],
          },
        }
      : event,
  )
  const scope = { accountId: caller.accountId, environment: caller.environment }
  const sent = await postSignedEvent(context, { ...scope, webhookId, eventId, url, body, at })
  // Written once the answer is in, event and delivery together: nothing is ever pending, so neither the
  // attempt jobs nor the sweeper see a test callback.
  const deliveryId = await db.transaction(async (tx) => {
    await insertEvent(tx, { id: eventId, orderNumber: null, ...scope, sequence: 0, type, createdAt: at, body })
    const status = sent.delivered ? 'delivered' : 'failed'
    return insertFinishedDelivery(tx, { eventId, ...scope, url, status, webhookId, at: clock.now() }, sent.attempt)
  })
  const { outcome } = sent
  const { latencyMs } = sent.attempt
  const answer = outcome.answered ? `HTTP ${outcome.status}` : outcome.error
  context.log.info(
    {
      step: 'callback',
      deliveryId: formatId('cbd', deliveryId),
      eventType: type,
      url,
      attempt: 1,
      status: outcome.answered ? outcome.status : null,
      latencyMs,
      result: sent.delivered ? 'delivered' : 'failed',
    },
    `test callback ${formatId('cbd', deliveryId)}: ${answer} in ${latencyMs} ms`,
  )
  const created = await findDelivery(db, deliveryId)
  const attempts = await listAttempts(db, [deliveryId])
  return toCallbackView(created as DeliveryRow, attempts)
}

/** Where a test callback goes: the URL given, else the environment's; ValidationFailed when neither will do. */
async function testCallbackUrl(context: CallbacksContext, caller: Caller, given: string | undefined): Promise<string> {
  const settings = await readEnvironmentSettings(context.db, caller.accountId, caller.environment)
  const url = given ?? settings?.callbackUrl ?? null
  if (url === null) {
    throw validationFailed({
      url: [
        {
          code: 'Required',
          providedValue: null,
          comparisonValue: `a url, since the ${caller.environment} environment has no callback URL set`,
        },
      ],
    })
  }
  const urlProblem = unfetchableUrlReason(url)
  if (urlProblem !== undefined) {
    throw validationFailed({ url: [{ code: 'InvalidValue', providedValue: url, comparisonValue: urlProblem }] })
  }
  return url
}

/**
 * The caller's events after the cursor, oldest first, as stored JSON texts (the CloudEvents exactly as
 * sent), of one order when `orderId` is given. The cursor is an event id; the next one is the last id
 * returned. Like the deliveries listing, an order the caller does not have just has no events.
 */
async function listFeedEvents(
  context: CallbacksContext,
  caller: Caller,
  query: EventFeedQuery,
): Promise<{ events: string[]; nextCursor: string | null; hasMore: boolean }> {
  const afterId = parseEventCursor(query.after)
  const orderNumber = parseOrderFilter(query.orderId)
  const top = query.top ?? CALLBACK_LIST_MAX_TOP
  const scope = { accountId: caller.accountId, environment: caller.environment, orderNumber }
  const { page, hasMore, readUpTo } =
    query.webhookId === undefined
      ? await readPage(top, (limit) => listEvents(context.db, { ...scope, afterId, limit })).then((read) => ({
          ...read,
          readUpTo: null,
        }))
      : await readFilteredPage(context, scope, afterId, top, await endpointFilterOf(context, caller, query.webhookId))
  // The cursor moves past events the filter skipped too, so that the next page does not read them again.
  const last = page.at(-1)?.id ?? readUpTo ?? (afterId > 0 ? afterId : null)
  return {
    events: page.map((row) => context.fileLinks.refresh(row.body)),
    nextCursor: last === null ? null : formatId('evt', last),
    hasMore,
  }
}

/** The filters of the caller's endpoint `whk_N` (deleted or another account's: EntityNotFound). */
async function endpointFilterOf(
  context: CallbacksContext,
  caller: Caller,
  webhookId: string,
): Promise<Pick<WebhookEndpoint, 'eventTypes' | 'metadataFilter'>> {
  const endpoint = await findWebhookEndpoint(context.db, caller, parseRequestId('whk', webhookId, 'webhookId'))
  if (!endpoint) throw new ServiceError('EntityNotFound', `Webhook endpoint ${webhookId} was not found`)
  return endpoint
}

/**
 * At most `top` events after `afterId` that the endpoint's filters accept, reading the feed on until `top` match
 * (and one more, for `hasMore`) or it ends. `readUpTo`: the last event read when the feed ended, matching or not.
 */
async function readFilteredPage(
  context: CallbacksContext,
  scope: { accountId: number; environment: Environment; orderNumber: number | null },
  afterId: number,
  top: number,
  filter: Pick<WebhookEndpoint, 'eventTypes' | 'metadataFilter'>,
): Promise<{ page: { id: number; body: string }[]; hasMore: boolean; readUpTo: number | null }> {
  const matching: { id: number; body: string }[] = []
  let cursor = afterId
  for (;;) {
    const rows = await listEvents(context.db, { ...scope, afterId: cursor, limit: FILTERED_FEED_PAGE_SIZE })
    for (const row of rows) {
      if (!endpointAccepts(filter, filterableEventOf(row.body))) continue
      matching.push(row)
      if (matching.length > top) return { page: matching.slice(0, top), hasMore: true, readUpTo: null }
    }
    cursor = rows.at(-1)?.id ?? cursor
    if (rows.length < FILTERED_FEED_PAGE_SIZE) {
      return { page: matching, hasMore: false, readUpTo: cursor > afterId ? cursor : null }
    }
  }
}
