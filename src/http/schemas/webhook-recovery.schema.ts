// A webhook endpoint as the API shows it, and redeliver-missed (docs/callbacks.md#when-a-webhook-endpoint-keeps-failing).
import { Type } from 'typebox'
import { WEBHOOK_REDELIVER_MISSED_LIMIT } from '../../domain/webhook-endpoints.ts'
import { Nullable, named, OkOutcome, outcomeResponse, StringEnum } from './common.schema.ts'

const IsoTime = (description: string) => Nullable(Type.String({ description }))

export const WebhookEndpointSchema = named(
  'WebhookEndpoint',
  Type.Object({
    id: Type.String({ description: 'Endpoint ID, whk_<number>.' }),
    url: Type.String(),
    description: Nullable(Type.String()),
    eventTypes: Type.Array(Type.String(), { description: 'Event types and prefixes ending in *; empty: every event.' }),
    metadataFilter: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
      description: "Values the order's metadata must carry; empty: no condition.",
    }),
    enabled: Type.Boolean(),
    disabledReason: Nullable(StringEnum(['manual', 'failing'] as const)),
    disabledAt: IsoTime('When it was disabled; null while enabled.'),
    failingSince: IsoTime('The first failed attempt since the last success; null when the last attempt succeeded.'),
    lastAttemptAt: IsoTime('The last delivery attempt to it.'),
    lastSuccessAt: IsoTime('The last attempt answered with a 2xx.'),
    signingSecretPrefix: Type.String({ description: 'The first 10 characters of its signing secret.' }),
    previousSigningSecretExpiresAt: IsoTime('Until when the secret before the last rotation still signs too.'),
    created: Type.String(),
    lastUpdated: Type.String(),
  }),
)

export const WebhookIdParamsSchema = Type.Object({ id: Type.String({ maxLength: 40 }) })

export const WebhookListResponseSchema = outcomeResponse('WebhookListResponse', OkOutcome, {
  webhooks: Type.Array(WebhookEndpointSchema),
})

export const WebhookResponseSchema = outcomeResponse('WebhookResponse', OkOutcome, { webhook: WebhookEndpointSchema })

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
