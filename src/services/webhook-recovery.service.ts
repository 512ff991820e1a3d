// When a webhook endpoint keeps failing (docs/callbacks.md#when-a-webhook-endpoint-keeps-failing): every attempt to
// an endpoint is counted on it; one whose attempts have all failed for 3 days is disabled in the transaction of the
// attempt that crossed the line, the account is told (an account event in the feed, sent to its other endpoints
// that want it, an audit entry by printroute itself, a warning in the log), and once it is fixed and enabled again
// redeliver-missed sends it every event it missed.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AuditActor } from '../domain/audit.ts'
import type { Environment } from '../domain/environment.ts'
import { formatId, parseRequestId } from '../domain/ids.ts'
import { deliveryJob, type JobRequest } from '../domain/jobs.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import {
  buildWebhookDisabledEvent,
  endpointAccepts,
  filterableEventOf,
  WEBHOOK_AUTO_DISABLE_SECONDS,
  WEBHOOK_ID_PREFIX,
  WEBHOOK_REDELIVER_MISSED_LIMIT,
  webhookDisabledEventType,
  webhookEndpointView,
} from '../domain/webhook-endpoints.ts'
import { lockAccountForEvents } from '../repositories/accounts.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import { insertDelivery } from '../repositories/callback-deliveries.repository.ts'
import { drawEventIds, insertEvent, listMissedEvents } from '../repositories/events.repository.ts'
import {
  findWebhookEndpoint,
  findWebhookEndpointById,
  listWebhookEndpoints,
  recordWebhookAttempt,
  updateWebhookEndpoint,
  type WebhookEndpointRow,
} from '../repositories/webhook-endpoints.repository.ts'
import type { Caller } from './accounts.service.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'

/** Events read per statement while looking for missed ones (short statements: PGlite has one connection). */
const MISSED_EVENTS_PAGE_SIZE = 500

export interface WebhookRecoveryDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  /** `<vendor>` of `com.<vendor>.webhook.endpoint#Disabled`. */
  vendor: string
  /** The CloudEvent `source` of an endpoint's events: where it can be read (the environment's API address). */
  eventSource: (environment: Environment, webhookId: string) => string
  log?: ServiceLogger
}

/** How one attempt to an endpoint went, as the delivery attempt path records it. */
export interface WebhookAttempt {
  webhookId: number
  succeeded: boolean
  at: Date
  /** The failed attempt's error (`HTTP 500`, a connection error); null for a success. */
  error: string | null
}

export interface RedeliverMissedInput {
  /** ISO 8601; the endpoint's `missedSince` when absent. */
  since?: string
  /** At most this many events (1 to 10,000, the default). */
  limit?: number
}

export interface RedeliverMissedResult {
  redelivered: number
  since: string
  hasMore: boolean
  /** Where the next request goes on from when `hasMore` (the last redelivered event's time); else null. */
  nextSince: string | null
}

export interface WebhookRecoveryService {
  /**
   * Records an attempt to an endpoint in the attempt's transaction; disables the endpoint when its failures have
   * lasted 3 days, and tells the account. Call it before anything else in `tx` locks the account row.
   */
  recordAttempt(tx: Queryable, attempt: WebhookAttempt): Promise<void>
  /** Sends the endpoint, enabled again, every event since `since` it accepts and has not got (nor is getting). */
  redeliverMissed(
    caller: Caller,
    id: string,
    input: RedeliverMissedInput,
    actor: AuditActor,
  ): Promise<RedeliverMissedResult>
}

interface RecoveryContext extends Omit<WebhookRecoveryDeps, 'log'> {
  log: ServiceLogger
}

export function createWebhookRecoveryService(deps: WebhookRecoveryDeps): WebhookRecoveryService {
  const context: RecoveryContext = { ...deps, log: deps.log ?? silentLogger }
  return {
    recordAttempt: (tx, attempt) => recordAttempt(context, tx, attempt),
    redeliverMissed: (caller, id, input, actor) => redeliverMissed(context, caller, id, input, actor),
  }
}

/** Whether failures since `failingSince` have lasted long enough, at `at`, to disable the endpoint. */
function failedLongEnough(failingSince: Date | null, at: Date): boolean {
  return failingSince !== null && at.getTime() - failingSince.getTime() >= WEBHOOK_AUTO_DISABLE_SECONDS * 1000
}

async function recordAttempt(context: RecoveryContext, tx: Queryable, attempt: WebhookAttempt): Promise<void> {
  const before = await findWebhookEndpointById(tx, attempt.webhookId)
  if (!before) return
  // Disabling writes an account event, which needs the account's row lock before the endpoint's (the order the
  // fan-out and the endpoint routes take them in); the endpoint's row is locked by recording the attempt.
  const mayDisable =
    !attempt.succeeded && before.enabled && failedLongEnough(before.failingSince ?? attempt.at, attempt.at)
  if (mayDisable) await lockAccountForEvents(tx, before.accountId, before.environment)
  const after = await recordWebhookAttempt(tx, attempt.webhookId, { succeeded: attempt.succeeded, at: attempt.at })
  if (!mayDisable || !after?.enabled || after.deletedAt !== null) return
  if (!failedLongEnough(after.failingSince, attempt.at)) return
  await disableFailingEndpoint(context, tx, after, attempt)
}

/**
 * Disables an endpoint for failing and tells the account: the audit entry (printroute as the actor), the account
 * event in the feed and at the account's other enabled endpoints whose filters accept it, and a warning line.
 * Never at callback URLs: a receiver written for order events must not get a new kind of event unasked.
 */
async function disableFailingEndpoint(
  context: RecoveryContext,
  tx: Queryable,
  endpoint: WebhookEndpointRow,
  attempt: WebhookAttempt,
): Promise<void> {
  const { accountId, environment } = endpoint
  const failingSince = endpoint.failingSince as Date
  const now = context.clock.now()
  const disabled = await updateWebhookEndpoint(tx, endpoint.id, {
    enabled: { enabled: false, reason: 'failing' },
    at: now,
  })
  const webhook = webhookEndpointView(disabled, now)
  await appendAuditEvent(
    tx,
    {
      actor: { kind: 'system' },
      action: 'webhook.disabled',
      accountId,
      environment,
      target: webhook.id,
      before: { enabled: true },
      after: { enabled: false, disabledReason: 'failing', failingSince: failingSince.toISOString() },
    },
    now,
  )
  const [eventNumber] = await drawEventIds(tx, 1)
  const eventId = eventNumber as number
  const type = webhookDisabledEventType(context.vendor)
  const body = JSON.stringify(
    buildWebhookDisabledEvent({
      id: formatId('evt', eventId),
      type,
      source: context.eventSource(environment, webhook.id),
      time: now,
      webhook,
      failingSince,
      lastError: attempt.error,
    }),
  )
  await insertEvent(tx, {
    id: eventId,
    orderNumber: null,
    accountId,
    environment,
    sequence: 0,
    type,
    createdAt: now,
    body,
    accountEvent: true,
  })
  const others = (await listWebhookEndpoints(tx, { accountId, environment }, { enabledOnly: true })).filter(
    (other) => other.id !== endpoint.id && endpointAccepts(other, { type, orderMetadata: undefined }),
  )
  const jobs: JobRequest[] = []
  for (const other of others) {
    const deliveryId = await insertDelivery(tx, {
      eventId,
      orderNumber: null,
      accountId,
      environment,
      url: other.url,
      redeliveryOf: null,
      at: now,
      webhookId: other.id,
    })
    jobs.push(deliveryJob(deliveryId, 1))
  }
  if (jobs.length > 0) await context.jobs.enqueue(tx, jobs)
  context.log.warn(
    {
      step: 'callback',
      accountId: formatId('acc', accountId),
      environment,
      webhookId: webhook.id,
      url: webhook.url,
      failingSince: webhook.failingSince,
      lastError: attempt.error,
      eventId: formatId('evt', eventId),
    },
    `webhook endpoint ${webhook.id} disabled: every attempt has failed since ${webhook.failingSince} (last: ${attempt.error ?? 'unknown'})`,
  )
}

/** The caller's endpoint (not deleted) by its public id; EntityNotFound otherwise. */
async function endpointOfCaller(db: Queryable, caller: Caller, id: string, lock = false): Promise<WebhookEndpointRow> {
  const number = parseRequestId(WEBHOOK_ID_PREFIX, id, 'id')
  const endpoint = await findWebhookEndpoint(db, caller, number, lock)
  if (!endpoint) throw new ServiceError('EntityNotFound', `Webhook endpoint ${id} was not found`)
  return endpoint
}

/**
 * Redelivers what an endpoint missed: each event of its environment from `since` (feed order, only events still
 * kept) that its filters accept and that it has no delivery of, delivered or pending, gets a new delivery to it
 * (repeating the newest failed one, if any) with its first attempt job, in one transaction under the endpoint's
 * row lock: two requests at once cannot send an event twice, and a second request finds nothing left.
 */
async function redeliverMissed(
  context: RecoveryContext,
  caller: Caller,
  id: string,
  input: RedeliverMissedInput,
  actor: AuditActor,
): Promise<RedeliverMissedResult> {
  const limit = input.limit ?? WEBHOOK_REDELIVER_MISSED_LIMIT
  return context.db.transaction(async (tx) => {
    const endpoint = await endpointOfCaller(tx, caller, id, true)
    if (!endpoint.enabled) {
      throw validationFailed(
        {
          id: [
            {
              code: 'WebhookEndpointDisabled',
              providedValue: id,
              comparisonValue: `enabled (it is disabled: ${endpoint.disabledReason}); enable it first with PATCH /v4.0/webhooks/${id} {"enabled": true}`,
            },
          ],
        },
        `Webhook endpoint ${id} is disabled: enable it before redelivering what it missed`,
      )
    }
    const since = sinceOf(input.since, endpoint, id)
    const now = context.clock.now()
    let redelivered = 0
    let hasMore = false
    let lastTime: Date | null = null
    let afterId = 0
    scan: for (;;) {
      const page = await listMissedEvents(tx, {
        accountId: caller.accountId,
        environment: caller.environment,
        webhookId: endpoint.id,
        since,
        afterId,
        limit: MISSED_EVENTS_PAGE_SIZE,
      })
      const jobs: JobRequest[] = []
      for (const event of page) {
        afterId = event.id
        if (!endpointAccepts(endpoint, filterableEventOf(event.body))) continue
        if (redelivered === limit) {
          hasMore = true
          if (jobs.length > 0) await context.jobs.enqueue(tx, jobs)
          break scan
        }
        const deliveryId = await insertDelivery(tx, {
          eventId: event.id,
          orderNumber: event.orderNumber,
          accountId: caller.accountId,
          environment: caller.environment,
          url: endpoint.url,
          redeliveryOf: event.lastFailedDeliveryId,
          at: now,
          webhookId: endpoint.id,
        })
        jobs.push(deliveryJob(deliveryId, 1))
        redelivered += 1
        lastTime = event.createdAt
      }
      if (jobs.length > 0) await context.jobs.enqueue(tx, jobs)
      if (page.length < MISSED_EVENTS_PAGE_SIZE) break
    }
    const result: RedeliverMissedResult = {
      redelivered,
      since: since.toISOString(),
      hasMore,
      nextSince: hasMore && lastTime ? lastTime.toISOString() : null,
    }
    await appendAuditEvent(
      tx,
      {
        actor,
        action: 'webhook.missedRedelivered',
        accountId: caller.accountId,
        environment: caller.environment,
        target: formatId(WEBHOOK_ID_PREFIX, endpoint.id),
        after: result,
      },
      now,
    )
    return result
  })
}

/** Where redeliver-missed starts: `since` as given, else where the endpoint's missed events begin. */
function sinceOf(given: string | undefined, endpoint: WebhookEndpointRow, id: string): Date {
  if (given !== undefined) return new Date(given)
  if (endpoint.missedSince !== null) return endpoint.missedSince
  throw validationFailed({
    since: [
      {
        code: 'Required',
        providedValue: null,
        comparisonValue: `a date-time, since webhook endpoint ${id} has never been disabled (nothing says where its missed events begin)`,
      },
    ],
  })
}
