// The account's API keys (docs/api.md "API keys").
import { Type } from 'typebox'
import { ENVIRONMENTS } from '../../services/accounts.service.ts'
import { Nullable, StringEnum, TraceParent } from './common.schema.ts'

const Prefix = Type.String({ description: 'The visible start of the key (pr_live_AbCdEf12); not enough to use it.' })
const KeyEnvironment = StringEnum(ENVIRONMENTS)
const Created = Type.String({ description: 'When the key was issued (ISO 8601).' })

export const KeySchema = Type.Object({
  prefix: Prefix,
  environment: KeyEnvironment,
  created: Created,
  revoked: Nullable(Type.String({ description: 'When the key was revoked; null while it works.' })),
})

export const IssuedKeySchema = Type.Object({
  key: Type.String({ description: 'The whole key. Shown only in this answer: store it now.' }),
  prefix: Prefix,
  environment: KeyEnvironment,
  created: Created,
})

export const KeyListResponseSchema = Type.Object({
  outcome: Type.String(),
  keys: Type.Array(KeySchema),
  traceParent: TraceParent,
})

export const IssuedKeyResponseSchema = Type.Object({
  outcome: Type.String(),
  key: IssuedKeySchema,
  traceParent: TraceParent,
})

export const KeyPrefixParamsSchema = Type.Object({ prefix: Type.String({ maxLength: 40 }) })

export const KeyResponseSchema = Type.Object({ outcome: Type.String(), key: KeySchema, traceParent: TraceParent })
