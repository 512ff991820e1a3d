// The account's API keys (issue 12; docs/api.md "API keys"): GET /v4.0/account/keys lists both environments'
// keys (prefixes only), POST /v4.0/account/keys issues one for the caller's environment and shows it once,
// POST /v4.0/account/keys/{prefix}/revoke revokes one. Always the caller's account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { type AccountsService, ENVIRONMENTS } from '../../services/accounts.service.ts'
import { ErrorResponseSchema, Nullable, StringEnum, TraceParent } from '../schemas/common.schema.ts'
import { refuseBody } from '../validation.ts'

const Prefix = Type.String({ description: 'The visible start of the key (pr_live_AbCdEf12); not enough to use it.' })
const KeyEnvironment = StringEnum(ENVIRONMENTS)
const Created = Type.String({ description: 'When the key was issued (ISO 8601).' })

const KeySchema = Type.Object({
  prefix: Prefix,
  environment: KeyEnvironment,
  created: Created,
  revoked: Nullable(Type.String({ description: 'When the key was revoked; null while it works.' })),
})

const IssuedKeySchema = Type.Object({
  key: Type.String({ description: 'The whole key. Shown only in this answer: store it now.' }),
  prefix: Prefix,
  environment: KeyEnvironment,
  created: Created,
})

const errors = { 400: ErrorResponseSchema, 401: ErrorResponseSchema, 404: ErrorResponseSchema }

export function registerAccountKeyRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/account/keys',
    {
      schema: {
        summary: "The account's API keys of both environments, newest first (prefixes, never the keys)",
        response: {
          200: Type.Object({ outcome: Type.String(), keys: Type.Array(KeySchema), traceParent: TraceParent }),
          ...errors,
        },
      },
    },
    async (request) => ({
      outcome: 'Ok',
      keys: await accounts.listAccountKeys(request.caller),
      traceParent: request.traceParent,
    }),
  )

  api.post(
    '/account/keys',
    {
      schema: {
        summary: "Issue a new API key for the caller's environment (no body); the key is shown only here",
        response: {
          200: Type.Object({ outcome: Type.String(), key: IssuedKeySchema, traceParent: TraceParent }),
          ...errors,
        },
      },
    },
    async (request) => {
      refuseBody(request.body, 'Issuing a key takes no body')
      const key = await accounts.issueAccountKey(request.caller)
      return { outcome: 'Created', key, traceParent: request.traceParent }
    },
  )

  api.post(
    '/account/keys/:prefix/revoke',
    {
      schema: {
        summary: 'Revoke an API key of the account at once (no body); a Sandbox key revokes only Sandbox keys',
        params: Type.Object({ prefix: Type.String({ maxLength: 40 }) }),
        response: {
          200: Type.Object({ outcome: Type.String(), key: KeySchema, traceParent: TraceParent }),
          ...errors,
        },
      },
    },
    async (request) => {
      refuseBody(request.body, 'Revoking a key takes no body')
      const key = await accounts.revokeAccountKey(request.caller, request.params.prefix)
      return { outcome: 'Updated', key, traceParent: request.traceParent }
    },
  )
}
