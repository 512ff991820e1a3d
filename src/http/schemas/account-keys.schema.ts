// The account's API keys (docs/api.md "API keys").
import { Type } from 'typebox'
import { ENVIRONMENTS } from '../../domain/environment.ts'
import { Nullable, named, OkOutcome, Outcome, StringEnum, TraceParent } from './common.schema.ts'

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

export const KeyListResponseSchema = named(
  'ApiKeyListResponse',
  Type.Object({
    outcome: OkOutcome,
    keys: Type.Array(KeySchema),
    traceParent: TraceParent,
  }),
)

export const IssuedKeyResponseSchema = named(
  'IssuedApiKeyResponse',
  Type.Object({
    outcome: Outcome('CreatedOutcome', ['Created'] as const),
    key: IssuedKeySchema,
    traceParent: TraceParent,
  }),
)

export const KeyPrefixParamsSchema = Type.Object({ prefix: Type.String({ maxLength: 40 }) })

export const KeyResponseSchema = named(
  'ApiKeyResponse',
  Type.Object({ outcome: Outcome('UpdatedOutcome', ['Updated'] as const), key: KeySchema, traceParent: TraceParent }),
)
