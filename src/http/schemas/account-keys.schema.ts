// The account's API keys (docs/api.md "API keys").
import { Type } from 'typebox'
import { ENVIRONMENTS } from '../../domain/environment.ts'
import { KEY_SCOPES, MAX_KEY_SCOPES } from '../../domain/key-scopes.ts'
import { Nullable, named, OkOutcome, Outcome, outcomeResponse, StringEnum } from './common.schema.ts'

const Prefix = Type.String({ description: 'The visible start of the key (pr_live_AbCdEf12); not enough to use it.' })
const KeyEnvironment = named('Environment', StringEnum(ENVIRONMENTS))
const Created = Type.String({ description: 'When the key was issued (ISO 8601).' })
const KeyScope = named('ApiKeyScope', StringEnum(KEY_SCOPES))
const Scopes = Nullable(
  Type.Array(KeyScope, {
    description: 'What the key may do (docs/api.md#api-keys); null: everything, as keys without scopes.',
  }),
)
const ExpiresAt = Nullable(
  Type.String({ description: 'When the key stops working (ISO 8601); null: never. An expired key answers 401.' }),
)

export const KeySchema = named(
  'ApiKey',
  Type.Object({
    prefix: Prefix,
    environment: KeyEnvironment,
    created: Created,
    revoked: Nullable(Type.String({ description: 'When the key was revoked; null while it works.' })),
    scopes: Scopes,
    expiresAt: ExpiresAt,
  }),
)

export const IssuedKeySchema = named(
  'IssuedApiKey',
  Type.Object({
    key: Type.String({ description: 'The whole key. Shown only in this answer: store it now.' }),
    prefix: Prefix,
    environment: KeyEnvironment,
    created: Created,
    scopes: Scopes,
    expiresAt: ExpiresAt,
  }),
)

export const IssueKeyBodySchema = named(
  'IssueApiKeyRequest',
  Type.Object(
    {
      scopes: Type.Optional(
        Type.Array(KeyScope, {
          minItems: 1,
          maxItems: MAX_KEY_SCOPES,
          uniqueItems: true,
          description: 'The scopes of the new key (each once); absent: every scope, as keys were before scopes.',
        }),
      ),
      expiresAt: Type.Optional(
        Type.String({
          format: 'date-time',
          description: 'When the new key stops working (ISO 8601 with a time zone, in the future); absent: never.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
)

export const KeyListResponseSchema = outcomeResponse('ApiKeyListResponse', OkOutcome, {
  keys: Type.Array(KeySchema),
})

export const IssuedKeyResponseSchema = outcomeResponse(
  'IssuedApiKeyResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  { key: IssuedKeySchema },
)

export const KeyPrefixParamsSchema = Type.Object({ prefix: Type.String({ maxLength: 40 }) })

export const KeyResponseSchema = outcomeResponse('ApiKeyResponse', Outcome('UpdatedOutcome', ['Updated'] as const), {
  key: KeySchema,
})
