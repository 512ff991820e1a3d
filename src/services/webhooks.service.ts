// Webhook endpoints (docs/callbacks.md#webhook-endpoints): an environment's extra receivers beside its callback URL,
// each with its own URL, filters and signing secret. Creating, reading, changing (with secret rotation), deleting,
// and the test send. The fan-out of events to them is in order-events.service.ts; their deliveries are signed and
// attempted by callbacks.service.ts.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import { type AuditActor, settingsDifference } from '../domain/audit.ts'
import type { Environment } from '../domain/environment.ts'
import type { Failures } from '../domain/failures.ts'
import { formatId, parseRequestId } from '../domain/ids.ts'
import { DEFAULT_SIGNING_OVERLAP_SECONDS, isSigningOverlap, MAX_SIGNING_OVERLAP_SECONDS } from '../domain/limits.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import { unfetchableUrlReason } from '../domain/urls.ts'
import {
  eventTypesFailures,
  type MetadataFilterValue,
  metadataFilterFailures,
  WEBHOOK_ENDPOINT_LIMITS,
  WEBHOOK_ID_PREFIX,
  type WebhookEndpointView,
  webhookEndpointView,
} from '../domain/webhook-endpoints.ts'
import { lockAccountForEvents } from '../repositories/accounts.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import {
  countWebhookEndpoints,
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  type WebhookEndpointChange,
  type WebhookEndpointRow,
} from '../repositories/webhook-endpoints.repository.ts'
import type { Caller } from './accounts.service.ts'
import type { CallbacksService, CallbackView } from './callbacks.service.ts'

/** An endpoint as the API shows it (keys in this order); never its secret, only the secret's first characters. */
export type WebhookView = WebhookEndpointView

/** A new endpoint as asked for (POST /v4.0/webhooks). */
export interface NewWebhookInput {
  url: string
  description?: string | null
  eventTypes?: string[]
  metadataFilter?: Record<string, unknown>
  enabled?: boolean
}

/** A change to an endpoint (PATCH /v4.0/webhooks/{id}); absent fields stay as they are. */
export interface WebhookChangeInput {
  url?: string
  description?: string | null
  eventTypes?: string[]
  metadataFilter?: Record<string, unknown>
  enabled?: boolean
  rotateSigningSecret?: boolean
  signingSecretOverlapSeconds?: number
}

export interface WebhooksServiceDeps {
  db: Database
  clock: Clock
  /** `<vendor>` of the event types a filter is checked against. */
  vendor: string
  newSigningSecret: () => string
  /** Sends the test callback (signed with the endpoint's secrets, recorded as its delivery). */
  callbacks: Pick<CallbacksService, 'sendWebhookTestCallback'>
}

export interface WebhooksService {
  /** The environment's endpoints, oldest first. */
  list(caller: Caller): Promise<WebhookView[]>
  get(caller: Caller, id: string): Promise<WebhookView>
  /** A new endpoint, with its signing secret: the only time the whole secret is shown (and on rotation). */
  create(
    caller: Caller,
    input: NewWebhookInput,
    actor: AuditActor,
  ): Promise<{ webhook: WebhookView; signingSecret: string }>
  /** Changes an endpoint; `signingSecret` only when it was rotated. */
  update(
    caller: Caller,
    id: string,
    change: WebhookChangeInput,
    actor: AuditActor,
  ): Promise<{ webhook: WebhookView; signingSecret?: string }>
  /** Deletes an endpoint: it gets nothing more, and its pending deliveries are not attempted. */
  delete(caller: Caller, id: string, actor: AuditActor): Promise<WebhookView>
  /** Sends a test callback to the endpoint now, once, whether it is enabled or not. */
  test(caller: Caller, id: string, input: { traceParent?: string }): Promise<CallbackView>
}

export function createWebhooksService(deps: WebhooksServiceDeps): WebhooksService {
  return {
    list: async (caller) => {
      const rows = await listWebhookEndpoints(deps.db, caller)
      const now = deps.clock.now()
      return rows.map((row) => webhookEndpointView(row, now))
    },
    get: async (caller, id) => webhookEndpointView(await findOrNotFound(deps.db, caller, id), deps.clock.now()),
    create: (caller, input, actor) => create(deps, caller, input, actor),
    update: (caller, id, change, actor) => update(deps, caller, id, change, actor),
    delete: (caller, id, actor) => remove(deps, caller, id, actor),
    test: async (caller, id, input) => {
      const endpoint = await findOrNotFound(deps.db, caller, id)
      return deps.callbacks.sendWebhookTestCallback(caller, endpoint, input)
    },
  }
}

/** The caller's endpoint named by `id` (400 when `id` is malformed, 404 when the environment has no such endpoint). */
async function findOrNotFound(db: Queryable, caller: Caller, id: string, lock = false): Promise<WebhookEndpointRow> {
  const number = parseRequestId(WEBHOOK_ID_PREFIX, id, 'id')
  const row = await findWebhookEndpoint(db, caller, number, lock)
  if (!row) throw new ServiceError('EntityNotFound', `Webhook endpoint ${id} was not found`)
  return row
}

/** Problems of the fields given, by field; the same checks for a new endpoint and a change. */
function inputFailures(vendor: string, input: WebhookChangeInput): Failures {
  const failures: Failures = {}
  if (input.url !== undefined) {
    const problem = unfetchableUrlReason(input.url)
    if (problem !== undefined) {
      failures.url = [
        {
          code: 'InvalidValue',
          providedValue: input.url,
          comparisonValue: `"${input.url}" is not an http(s) URL that can be called (${problem})`,
        },
      ]
    }
  }
  if (typeof input.description === 'string' && input.description.length > WEBHOOK_ENDPOINT_LIMITS.descriptionLength) {
    failures.description = [
      {
        code: 'TooLong',
        providedValue: input.description,
        comparisonValue: WEBHOOK_ENDPOINT_LIMITS.descriptionLength,
      },
    ]
  }
  if (input.eventTypes !== undefined) Object.assign(failures, eventTypesFailures(input.eventTypes, vendor))
  if (input.metadataFilter !== undefined) Object.assign(failures, metadataFilterFailures(input.metadataFilter))
  const overlap = input.signingSecretOverlapSeconds
  if (overlap !== undefined) {
    if (!isSigningOverlap(overlap)) {
      failures.signingSecretOverlapSeconds = [
        {
          code: 'InvalidValue',
          providedValue: overlap,
          comparisonValue: `the overlap must be whole seconds from 0 to ${MAX_SIGNING_OVERLAP_SECONDS}`,
        },
      ]
    } else if (input.rotateSigningSecret !== true) {
      failures.signingSecretOverlapSeconds = [
        {
          code: 'RequiresRotateSigningSecret',
          providedValue: overlap,
          comparisonValue: 'an overlap applies only together with rotateSigningSecret: true',
        },
      ]
    }
  }
  return failures
}

function refuseFailures(failures: Failures): void {
  if (Object.keys(failures).length > 0) throw validationFailed(failures)
}

/** What the audit trail records of an endpoint: its settings, never a secret. */
function recordedSettings(row: WebhookEndpointRow) {
  return {
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes,
    metadataFilter: row.metadataFilter,
    enabled: row.enabled,
  }
}

async function create(
  deps: WebhooksServiceDeps,
  caller: Caller,
  input: NewWebhookInput,
  actor: AuditActor,
): Promise<{ webhook: WebhookView; signingSecret: string }> {
  refuseFailures(inputFailures(deps.vendor, input))
  const signingSecret = deps.newSigningSecret()
  const row = await deps.db.transaction(async (tx) => {
    // The account's row lock: two creates at once count one after the other, so neither makes the 21st.
    await lockAccountForEvents(tx, caller.accountId, caller.environment)
    const count = await countWebhookEndpoints(tx, caller)
    if (count >= WEBHOOK_ENDPOINT_LIMITS.perEnvironment) {
      throw validationFailed({
        webhooks: [
          { code: 'TooMany', providedValue: count + 1, comparisonValue: WEBHOOK_ENDPOINT_LIMITS.perEnvironment },
        ],
      })
    }
    const at = deps.clock.now()
    const inserted = await insertWebhookEndpoint(tx, {
      accountId: caller.accountId,
      environment: caller.environment,
      url: input.url,
      description: input.description ?? null,
      eventTypes: input.eventTypes ?? [],
      metadataFilter: (input.metadataFilter ?? {}) as Record<string, MetadataFilterValue>,
      enabled: input.enabled ?? true,
      signingSecret,
      at,
    })
    await audit(tx, caller.environment, actor, inserted, 'webhook.created', null, recordedSettings(inserted), at)
    return inserted
  })
  return { webhook: webhookEndpointView(row, deps.clock.now()), signingSecret }
}

async function audit(
  tx: Queryable,
  environment: Environment,
  actor: AuditActor,
  row: WebhookEndpointRow,
  action: 'webhook.created' | 'webhook.updated' | 'webhook.deleted',
  before: unknown,
  after: unknown,
  at: Date,
): Promise<void> {
  await appendAuditEvent(
    tx,
    {
      actor,
      action,
      accountId: row.accountId,
      environment,
      target: formatId(WEBHOOK_ID_PREFIX, row.id),
      before,
      after,
    },
    at,
  )
}

async function update(
  deps: WebhooksServiceDeps,
  caller: Caller,
  id: string,
  input: WebhookChangeInput,
  actor: AuditActor,
): Promise<{ webhook: WebhookView; signingSecret?: string }> {
  const number = parseRequestId(WEBHOOK_ID_PREFIX, id, 'id')
  refuseFailures(inputFailures(deps.vendor, input))
  const signingSecret = input.rotateSigningSecret === true ? deps.newSigningSecret() : undefined
  const row = await deps.db.transaction(async (tx) => {
    const was = await findWebhookEndpoint(tx, caller, number, true)
    if (!was) throw new ServiceError('EntityNotFound', `Webhook endpoint ${id} was not found`)
    const at = deps.clock.now()
    const change: WebhookEndpointChange = { at }
    if (input.url !== undefined) change.url = input.url
    if (input.description !== undefined) change.description = input.description
    if (input.eventTypes !== undefined) change.eventTypes = input.eventTypes
    if (input.metadataFilter !== undefined) {
      change.metadataFilter = input.metadataFilter as Record<string, MetadataFilterValue>
    }
    // Only a change of state: disabling a disabled endpoint keeps its reason (`failing` stays `failing`).
    if (input.enabled !== undefined && input.enabled !== was.enabled) {
      change.enabled = input.enabled ? { enabled: true } : { enabled: false, reason: 'manual' }
    }
    if (signingSecret !== undefined) {
      const overlap = input.signingSecretOverlapSeconds ?? DEFAULT_SIGNING_OVERLAP_SECONDS
      change.rotation = { secret: signingSecret, previousExpiresAt: new Date(at.getTime() + overlap * 1000) }
    }
    const now = await updateWebhookEndpoint(tx, number, change)
    const difference = settingsDifference(recordedSettings(was), recordedSettings(now), signingSecret !== undefined)
    if (difference)
      await audit(tx, caller.environment, actor, now, 'webhook.updated', difference.before, difference.after, at)
    return now
  })
  const webhook = webhookEndpointView(row, deps.clock.now())
  return signingSecret === undefined ? { webhook } : { webhook, signingSecret }
}

async function remove(deps: WebhooksServiceDeps, caller: Caller, id: string, actor: AuditActor): Promise<WebhookView> {
  const row = await deps.db.transaction(async (tx) => {
    const found = await findOrNotFound(tx, caller, id, true)
    const at = deps.clock.now()
    await deleteWebhookEndpoint(tx, found.id, at)
    await audit(tx, caller.environment, actor, found, 'webhook.deleted', recordedSettings(found), null, at)
    return found
  })
  return webhookEndpointView(row, deps.clock.now())
}
