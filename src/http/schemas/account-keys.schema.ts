// The account's API keys (docs/api.md "API keys").
import { Type } from 'typebox'
import { ENVIRONMENTS } from '../../domain/environment.ts'
import { Nullable, named, OkOutcome, Outcome, outcomeResponse, StringEnum } from './common.schema.ts'

const Prefix = Type.String({ description: 'The visible start of the key (pr_live_AbCdEf12); not enough to use it.' })
const KeyEnvironment = named('Environment', StringEnum(ENVIRONMENTS))
const Created = Type.String({ description: 'When the key was issued (ISO 8601).' })

export const KeySchema = named(
  'ApiKey',
  Type.Object({
    prefix: Prefix,
    environment: KeyEnvironment,
    created: Created,
    revoked: Nullable(Type.String({ description: 'When the key was revoked; null while it works.' })),
  }),
)

export const IssuedKeySchema = named(
  'IssuedApiKey',
  Type.Object({
    key: Type.String({ description: 'The whole key. Shown only in this answer: store it now.' }),
    prefix: Prefix,
    environment: KeyEnvironment,
    created: Created,
  }),
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
