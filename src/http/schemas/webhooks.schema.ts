// Webhook endpoints (docs/callbacks.md#webhook-endpoints): an environment's extra receivers with their filters.
// Lengths, counts and the event types a filter may name are checked by the service (domain/webhook-endpoints.ts),
// so that each problem is reported under its own path with the list of valid types.
import { Type } from 'typebox'
import { MAX_SIGNING_OVERLAP_SECONDS } from '../../domain/limits.ts'
import { WEBHOOK_ENDPOINT_LIMITS, WEBHOOK_REDELIVER_MISSED_LIMIT } from '../../domain/webhook-endpoints.ts'
import { CallbackSchema } from './callbacks.schema.ts'
import { Nullable, named, OkOutcome, Outcome, outcomeResponse, StringEnum, UrlString } from './common.schema.ts'

const EventTypes = Type.Array(Type.String(), {
  description:
    `Event types to deliver: exact types (com.<vendor>.order.shipments.shipment#Shipped) and prefixes ending in * ` +
    `(com.<vendor>.order.shipments.*); empty: every event. At most ${WEBHOOK_ENDPOINT_LIMITS.eventTypes} entries ` +
    `of ${WEBHOOK_ENDPOINT_LIMITS.eventTypeLength} characters; an entry that matches no event type is refused.`,
})

const MetadataFilterValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()])

const MetadataFilterRequest = Type.Record(Type.String(), Type.Unknown(), {
  description:
    "Order metadata the event's order must carry, key -> the value it must equal (a string, number or boolean); " +
    `empty: every order. Events about no order never match a non-empty filter. At most ` +
    `${WEBHOOK_ENDPOINT_LIMITS.metadataKeys} keys.`,
})

const Description = Nullable(
  Type.String({
    description: `What the endpoint is for (at most ${WEBHOOK_ENDPOINT_LIMITS.descriptionLength} characters).`,
  }),
)

const Time = (description: string) => Nullable(Type.String({ description }))

export const WebhookSchema = named(
  'WebhookEndpoint',
  Type.Object({
    id: Type.String({ description: 'Endpoint ID, whk_<number>.' }),
    url: Type.String(),
    description: Nullable(Type.String()),
    eventTypes: Type.Array(Type.String(), { description: 'Exact types and prefixes ending in *; empty: every event.' }),
    metadataFilter: Type.Record(Type.String(), MetadataFilterValue, {
      description: 'Order metadata the order must carry; empty: every order.',
    }),
    enabled: Type.Boolean(),
    disabledReason: Nullable(
      named(
        'WebhookDisabledReason',
        StringEnum(
          ['manual', 'failing'] as const,
          'manual: disabled by a PATCH; failing: every attempt failed for 3 days.',
        ),
      ),
    ),
    disabledAt: Time('When it was disabled.'),
    failingSince: Time('The first failed attempt of the current run of failures; null after a success.'),
    lastAttemptAt: Time('The last delivery attempt.'),
    lastSuccessAt: Time('The last attempt answered 2xx.'),
    signingSecretPrefix: Type.String({
      description: 'The first 10 characters of the signing secret (whsec_abcd): which secret is current.',
    }),
    previousSigningSecretExpiresAt: Time(
      'After a rotation: until when the previous secret signs too (a second signature); null when it does not.',
    ),
    created: Type.String(),
    lastUpdated: Type.String(),
  }),
)

const SigningSecret = Type.String({
  description: "The endpoint's whole signing secret (whsec_...). Shown only in this answer: store it now.",
})

export const CreateWebhookBodySchema = named(
  'CreateWebhookRequest',
  Type.Object(
    {
      url: UrlString('Where the events are POSTed (http or https), checked like callback URLs.'),
      description: Type.Optional(Description),
      eventTypes: Type.Optional(EventTypes),
      metadataFilter: Type.Optional(MetadataFilterRequest),
      enabled: Type.Optional(Type.Boolean({ description: 'Whether it receives events (default true).' })),
    },
    { additionalProperties: false },
  ),
)

export const UpdateWebhookBodySchema = named(
  'UpdateWebhookRequest',
  Type.Object(
    {
      url: Type.Optional(UrlString('Where the events are POSTed (http or https).')),
      description: Type.Optional(Description),
      eventTypes: Type.Optional(EventTypes),
      metadataFilter: Type.Optional(MetadataFilterRequest),
      enabled: Type.Optional(
        Type.Boolean({
          description: 'false disables it (reason manual); true enables it again and clears its run of failures.',
        }),
      ),
      rotateSigningSecret: Type.Optional(
        Type.Boolean({ description: "Replace the endpoint's signing secret; the answer shows the new one once." }),
      ),
      signingSecretOverlapSeconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_SIGNING_OVERLAP_SECONDS,
          description: 'With rotateSigningSecret: how long the old secret keeps signing too (default 86400).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
)

export const WebhookIdParamsSchema = Type.Object({ webhookId: Type.String({ maxLength: 40 }) })

export const WebhookListResponseSchema = outcomeResponse('WebhookListResponse', OkOutcome, {
  webhooks: Type.Array(WebhookSchema),
})

export const WebhookResponseSchema = outcomeResponse('WebhookResponse', OkOutcome, { webhook: WebhookSchema })

export const CreatedWebhookResponseSchema = outcomeResponse(
  'CreatedWebhookResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  { webhook: WebhookSchema, signingSecret: SigningSecret },
)

export const UpdatedWebhookResponseSchema = outcomeResponse(
  'UpdatedWebhookResponse',
  Outcome('UpdatedOutcome', ['Updated'] as const),
  { webhook: WebhookSchema, signingSecret: Type.Optional(SigningSecret) },
)

export const DeletedWebhookResponseSchema = outcomeResponse(
  'DeletedWebhookResponse',
  Outcome('DeletedOutcome', ['Deleted'] as const),
  { webhook: WebhookSchema },
)

export const WebhookTestResponseSchema = outcomeResponse('WebhookTestResponse', OkOutcome, {
  callback: CallbackSchema,
})

/** redeliver-missed (docs/callbacks.md#when-a-webhook-endpoint-keeps-failing). */
export const RedeliverMissedBodySchema = named(
  'RedeliverMissedRequest',
  Type.Object(
    {
      since: Type.Optional(
        Type.String({
          format: 'date-time',
          description:
            'Events written at or after this time (ISO 8601 with a time zone); absent: where the endpoint began to miss events when it was last disabled.',
        }),
      ),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: WEBHOOK_REDELIVER_MISSED_LIMIT,
          description:
            'Events redelivered at most by this request (absent: 10,000); `hasMore` says whether others remain.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
)

export const RedeliverMissedResponseSchema = outcomeResponse('RedeliverMissedResponse', OkOutcome, {
  redelivered: Type.Integer({ description: 'Events given a new delivery to the endpoint by this request.' }),
  since: Type.String({ description: 'Where this request began.' }),
  hasMore: Type.Boolean({ description: 'More missed events remain: repeat with `since` set to `nextSince`.' }),
  nextSince: Nullable(Type.String({ description: 'The `since` of the next request when `hasMore`; else null.' })),
})
