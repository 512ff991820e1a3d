// The account's API keys (docs/api.md#api-keys): GET /v4.0/account/keys lists both environments'
// keys (prefixes only), POST /v4.0/account/keys issues one for the caller's environment and shows it once,
// POST /v4.0/account/keys/{prefix}/revoke revokes one. Always the caller's account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { type AccountsService, auditActorOf } from '../../services/accounts.service.ts'
import { outcomeReply } from '../replies.ts'
import {
  IssuedKeyResponseSchema,
  KeyListResponseSchema,
  KeyPrefixParamsSchema,
  KeyResponseSchema,
} from '../schemas/account-keys.schema.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import { refuseBody } from '../validation.ts'

export function registerAccountKeyRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/account/keys',
    {
      schema: {
        operationId: 'listApiKeys',
        tags: ['account'],
        summary: "The account's API keys of both environments, newest first (prefixes, never the keys)",
        response: { 200: KeyListResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', {
        keys: await accounts.listAccountKeys(request.caller),
      }),
  )

  api.post(
    '/account/keys',
    {
      schema: {
        operationId: 'createApiKey',
        tags: ['account'],
        summary: "Issue a new API key for the caller's environment (no body); the key is shown only here",
        response: { 200: IssuedKeyResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      refuseBody(request.body, 'Issuing a key takes no body')
      const key = await accounts.issueAccountKey(request.caller, auditActorOf(request.caller))
      return outcomeReply(request, 'Created', { key })
    },
  )

  api.post(
    '/account/keys/:prefix/revoke',
    {
      schema: {
        operationId: 'revokeApiKey',
        tags: ['account'],
        summary: 'Revoke an API key of the account at once (no body); a Sandbox key revokes only Sandbox keys',
        params: KeyPrefixParamsSchema,
        response: { 200: KeyResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      refuseBody(request.body, 'Revoking a key takes no body')
      const key = await accounts.revokeAccountKey(request.caller, request.params.prefix, auditActorOf(request.caller))
      return outcomeReply(request, 'Updated', { key })
    },
  )
}
