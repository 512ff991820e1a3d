// The account's API keys (docs/api.md#api-keys): GET /v4.0/account/keys lists both environments'
// keys (prefixes only), POST /v4.0/account/keys issues one for the caller's environment and shows it once,
// POST /v4.0/account/keys/{prefix}/revoke revokes one. Always the caller's account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { scopesBeyond } from '../../domain/key-scopes.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { type AccountsService, auditActorOf } from '../../services/accounts.service.ts'
import { outcomeReply } from '../replies.ts'
import {
  IssuedKeyResponseSchema,
  IssueKeyBodySchema,
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
      config: { scope: 'keys:manage' },
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
      config: { scope: 'keys:manage' },
      schema: {
        operationId: 'createApiKey',
        tags: ['account'],
        summary: "Issue a new API key for the caller's environment, optionally scoped and expiring; shown only here",
        body: IssueKeyBodySchema,
        response: { 200: IssuedKeyResponseSchema, ...ErrorResponses },
      },
      // The body is optional: none is the same as `{}` (a key with every scope that never expires).
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {}
      },
    },
    async (request) => {
      const { scopes, expiresAt } = request.body
      // A key cannot hand out more than it may do itself: a scoped key issues keys within its own scopes.
      const beyond = scopesBeyond(request.caller.scopes, scopes)
      if (beyond.length > 0) {
        throw new ServiceError(
          'Forbidden',
          `The API key ${request.caller.keyPrefix} cannot issue a key with scopes it does not have: ${beyond.join(', ')}`,
          { scope: beyond[0], scopes: beyond },
        )
      }
      const key = await accounts.issueAccountKey(request.caller, auditActorOf(request.caller), {
        scopes: scopes ?? null,
        expiresAt: expiresAt === undefined ? null : new Date(expiresAt),
      })
      return outcomeReply(request, 'Created', { key })
    },
  )

  api.post(
    '/account/keys/:prefix/revoke',
    {
      config: { scope: 'keys:manage' },
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
