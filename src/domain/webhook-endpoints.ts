// Webhook endpoints (docs/callbacks.md#webhook-endpoints): an environment's extra receivers beside its callback
// URL, each with filters saying which events it wants. Pure: what the filters accept, which event types exist, and
// the limits. The services store endpoints and fan events out to the ones whose filters match.
import { type CloudEventEnvelope, cloudEventEnvelope } from './cloud-events.ts'
import type { Environment } from './environment.ts'
import { addFailure, type Failures } from './failures.ts'
import { formatId, ID_PREFIXES } from './ids.ts'
import { STAGES } from './order.ts'
import { CALLBACK_DELIVERY_STATUSES, testEventType } from './order-events.ts'

/** Public id prefix of an endpoint: `whk_12`. */
export const WEBHOOK_ID_PREFIX = ID_PREFIXES.webhookEndpoint

/** Every limit an endpoint has, each documented in docs/callbacks.md#webhook-endpoints. */
export const WEBHOOK_ENDPOINT_LIMITS = {
  /** Endpoints per account and environment (deleted ones do not count). */
  perEnvironment: 20,
  /** Entries of `eventTypes`. */
  eventTypes: 50,
  /** Characters of one `eventTypes` entry. */
  eventTypeLength: 200,
  /** Keys of `metadataFilter`. */
  metadataKeys: 10,
  /** Characters of one `metadataFilter` key. */
  metadataKeyLength: 100,
  /** Characters of a string value of `metadataFilter`. */
  metadataValueLength: 200,
  /** Characters of `description`. */
  descriptionLength: 200,
} as const

/** An endpoint whose every attempt has failed for this long is disabled (reason `failing`). */
export const WEBHOOK_AUTO_DISABLE_SECONDS = 3 * 86_400

/** A value `metadataFilter` may require: JSON scalars only (an order's metadata value must equal it exactly). */
export type MetadataFilterValue = string | number | boolean

export type WebhookDisabledReason = 'manual' | 'failing'

/**
 * What an endpoint is and how it stands: the same fields in the stored endpoint (dates) and in the API's view of it
 * (ISO 8601 texts), so the two cannot drift apart.
 */
interface WebhookEndpointState<Time> {
  url: string
  description: string | null
  /** Exact types and prefixes ending in `*`; empty: every event. */
  eventTypes: string[]
  /** Key -> value the order's metadata must carry; empty: no condition. */
  metadataFilter: Record<string, MetadataFilterValue>
  enabled: boolean
  disabledReason: WebhookDisabledReason | null
  disabledAt: Time | null
  failingSince: Time | null
  lastAttemptAt: Time | null
  lastSuccessAt: Time | null
}

/** An endpoint as the services work with it (the signing secrets stay in the repository's row). */
export interface WebhookEndpoint extends WebhookEndpointState<Date> {
  id: number
  accountId: number
  environment: Environment
  createdAt: Date
  updatedAt: Date
}

/** The type of the event that tells an account one of its endpoints was disabled for failing. */
export function webhookDisabledEventType(vendor: string): string {
  return `com.${vendor}.webhook.endpoint#Disabled`
}

/**
 * Every event type printroute sends, for `vendor`: what a filter is checked against. Order events (one per stage,
 * shipment and delivery status), the test callback, and the endpoint-disabled event. Keep in step with
 * order-events.ts#eventType: a test compares the two.
 */
export function knownEventTypes(vendor: string): string[] {
  const order = `com.${vendor}.order`
  return [
    ...STAGES.map((stage) => `${order}.status.stage.changed#${stage}`),
    `${order}.status.details.downloadAssets#Complete`,
    `${order}.status.details.shipping#Complete`,
    `${order}.status.issues.paymentAuthorisation#Authorised`,
    `${order}.items.assets.asset#Replaced`,
    `${order}.shipments.parcel#Shipped`,
    `${order}.shipments.shipment#Shipped`,
    `${order}.shipments.shipment#Moved`,
    ...CALLBACK_DELIVERY_STATUSES.map((status) => `${order}.shipments.shipment#${status}`),
    `${order}.status.delivery#Delivered`,
    // Webhook endpoints and the feed only, never a callback URL (docs/callbacks.md).
    `${order}.credits.credit#Issued`,
    `${order}.draft#Confirmed`,
    `${order}.draft#Expired`,
    `${order}.hold#Released`,
    testEventType(vendor),
    webhookDisabledEventType(vendor),
  ]
}

/** Whether one filter entry accepts `type`: equal, or a prefix ending in `*` (`*` alone accepts everything). */
function entryAccepts(entry: string, type: string): boolean {
  return entry.endsWith('*') ? type.startsWith(entry.slice(0, -1)) : entry === type
}

/** Whether an `eventTypes` filter accepts `type` (empty: every type). */
export function eventTypeMatches(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.length === 0 || eventTypes.some((entry) => entryAccepts(entry, type))
}

/**
 * Whether a `metadataFilter` accepts an event: empty accepts every event; otherwise the event must be about an
 * order (`metadata` not undefined) whose metadata carries every key with exactly the filter's value.
 */
export function metadataMatches(
  filter: Readonly<Record<string, MetadataFilterValue>>,
  metadata: Readonly<Record<string, unknown>> | null | undefined,
): boolean {
  const entries = Object.entries(filter)
  if (entries.length === 0) return true
  if (metadata == null) return false
  return entries.every(([key, value]) => Object.hasOwn(metadata, key) && metadata[key] === value)
}

/** The facts of an event a filter looks at: its type and, for an order's event, the order's metadata. */
export interface FilterableEvent {
  type: string
  /** The order's metadata (null when it has none); undefined for an event about no order. */
  orderMetadata: Readonly<Record<string, unknown>> | null | undefined
}

/** Whether an endpoint's filters accept an event (enabled or not: the caller decides what a disabled one gets). */
export function endpointAccepts(
  endpoint: Pick<WebhookEndpoint, 'eventTypes' | 'metadataFilter'>,
  event: FilterableEvent,
): boolean {
  return (
    eventTypeMatches(endpoint.eventTypes, event.type) && metadataMatches(endpoint.metadataFilter, event.orderMetadata)
  )
}

/**
 * A filter of more entries than `limit`: one TooMany failure under `path`, and its entries are not checked one by
 * one (both filters refuse an oversized list whole). Undefined within the limit.
 */
function tooManyEntries(path: string, count: number, limit: number): Failures | undefined {
  if (count <= limit) return undefined
  const failures: Failures = {}
  addFailure(failures, path, { code: 'TooMany', providedValue: count, comparisonValue: limit })
  return failures
}

/**
 * Problems of an `eventTypes` filter, under `eventTypes[i]`: each entry must be a known type, or a prefix ending in
 * `*` that some known type starts with. A typo is refused with the list of types, so it cannot silently match
 * nothing.
 */
export function eventTypesFailures(eventTypes: readonly string[], vendor: string): Failures {
  const tooMany = tooManyEntries('eventTypes', eventTypes.length, WEBHOOK_ENDPOINT_LIMITS.eventTypes)
  if (tooMany) return tooMany
  const failures: Failures = {}
  const known = knownEventTypes(vendor)
  for (const [index, entry] of eventTypes.entries()) {
    const path = `eventTypes[${index}]`
    if (entry.length > WEBHOOK_ENDPOINT_LIMITS.eventTypeLength) {
      addFailure(failures, path, {
        code: 'TooLong',
        providedValue: entry,
        comparisonValue: WEBHOOK_ENDPOINT_LIMITS.eventTypeLength,
      })
    } else if (entry.indexOf('*') !== -1 && entry.indexOf('*') !== entry.length - 1) {
      addFailure(failures, path, {
        code: 'InvalidFormat',
        providedValue: entry,
        comparisonValue: 'an event type, or a prefix of event types ending in * (only as the last character)',
      })
    } else if (!known.some((type) => entryAccepts(entry, type))) {
      addFailure(failures, path, {
        code: 'InvalidValue',
        providedValue: entry,
        comparisonValue: 'an event type printroute sends, or a prefix ending in * that some of them start with',
        validValues: known,
      })
    }
  }
  return failures
}

/** Problems of a `metadataFilter`, under `metadataFilter` or `metadataFilter.<key>`. */
export function metadataFilterFailures(filter: Readonly<Record<string, unknown>>): Failures {
  const entries = Object.entries(filter)
  const tooMany = tooManyEntries('metadataFilter', entries.length, WEBHOOK_ENDPOINT_LIMITS.metadataKeys)
  if (tooMany) return tooMany
  const failures: Failures = {}
  for (const [key, value] of entries) {
    const path = `metadataFilter.${key}`
    if (key.trim() === '') {
      addFailure(failures, path, { code: 'MustNotBeEmptyOrWhitespace', providedValue: key })
    } else if (key.length > WEBHOOK_ENDPOINT_LIMITS.metadataKeyLength) {
      addFailure(failures, path, {
        code: 'TooLong',
        providedValue: key,
        comparisonValue: WEBHOOK_ENDPOINT_LIMITS.metadataKeyLength,
      })
    } else if (typeof value === 'string') {
      if (value.length > WEBHOOK_ENDPOINT_LIMITS.metadataValueLength) {
        addFailure(failures, path, {
          code: 'TooLong',
          providedValue: value,
          comparisonValue: WEBHOOK_ENDPOINT_LIMITS.metadataValueLength,
        })
      }
    } else if (typeof value !== 'boolean' && !(typeof value === 'number' && Number.isFinite(value))) {
      addFailure(failures, path, {
        code: 'InvalidType',
        providedValue: value,
        comparisonValue: 'a string, a number or a boolean, which the order metadata value must equal',
      })
    }
  }
  return failures
}

/** Characters of the signing secret an endpoint object shows (`whsec_abcd`): enough to tell secrets apart. */
export const SIGNING_SECRET_PREFIX_LENGTH = 10

/**
 * An endpoint as the API shows it (docs/callbacks.md#webhook-endpoints): never a whole secret; webhookEndpointView
 * writes its keys in the documented order.
 */
export interface WebhookEndpointView extends WebhookEndpointState<string> {
  id: string
  signingSecretPrefix: string
  previousSigningSecretExpiresAt: string | null
  created: string
  lastUpdated: string
}

/** The endpoint object of the API, from a stored endpoint with its secrets (`current`, `previous`...). */
export function webhookEndpointView(
  row: WebhookEndpoint & { current: string; previous: string | null; previousExpiresAt: Date | null },
  now: Date,
): WebhookEndpointView {
  const previousSigns = row.previous !== null && row.previousExpiresAt !== null && row.previousExpiresAt > now
  const iso = (date: Date | null) => date?.toISOString() ?? null
  return {
    id: formatId(WEBHOOK_ID_PREFIX, row.id),
    url: row.url,
    description: row.description,
    eventTypes: [...row.eventTypes],
    metadataFilter: { ...row.metadataFilter },
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    disabledAt: iso(row.disabledAt),
    failingSince: iso(row.failingSince),
    lastAttemptAt: iso(row.lastAttemptAt),
    lastSuccessAt: iso(row.lastSuccessAt),
    signingSecretPrefix: row.current.slice(0, SIGNING_SECRET_PREFIX_LENGTH),
    // Only while the previous secret still signs beside the current one.
    previousSigningSecretExpiresAt: previousSigns ? iso(row.previousExpiresAt) : null,
    created: row.createdAt.toISOString(),
    lastUpdated: row.updatedAt.toISOString(),
  }
}

/** The event telling an account one of its endpoints was disabled for failing: in the feed, and sent to its others. */
export interface WebhookDisabledCloudEvent extends CloudEventEnvelope {
  data: { webhook: WebhookEndpointView; failingSince: string; lastError: string | null; message: string }
}

/** What an account is told when `webhook` (as it is once disabled) is disabled: envelope as every event has. */
export function buildWebhookDisabledEvent(input: {
  id: string
  type: string
  source: string
  time: Date
  webhook: WebhookEndpointView
  failingSince: Date
  lastError: string | null
}): WebhookDisabledCloudEvent {
  const { webhook } = input
  const failingSince = input.failingSince.toISOString()
  return {
    ...cloudEventEnvelope(input),
    data: {
      webhook,
      failingSince,
      lastError: input.lastError,
      message:
        `Webhook endpoint ${webhook.id} (${webhook.url}) was disabled: every attempt to it has failed since ` +
        `${failingSince}. Fix it, re-enable it (PATCH /v4.0/webhooks/${webhook.id} with "enabled": true) and ` +
        `redeliver what it missed (POST /v4.0/webhooks/${webhook.id}/redeliver-missed).`,
    },
  }
}

/**
 * The facts a filter looks at, read from a stored event's JSON: its type and, for an order's event, the order's
 * metadata (null when it has none); an event about no order has none to give (undefined).
 */
export function filterableEventOf(body: string): FilterableEvent {
  const event = JSON.parse(body) as { type: string; data?: { order?: { metadata?: Record<string, unknown> | null } } }
  const order = event.data?.order
  return { type: event.type, orderMetadata: order === undefined ? undefined : (order.metadata ?? null) }
}

/** Events one redeliver-missed request redelivers at most; `hasMore` and `nextSince` say where to go on. */
export const WEBHOOK_REDELIVER_MISSED_LIMIT = 10_000
