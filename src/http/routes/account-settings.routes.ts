// Account settings (docs/api.md#account-settings): GET and PATCH /v4.0/account/settings for the
// callback URL, the pause window and the rotation of the callback signing secret. The callback URL and signing
// secret are the caller's environment's own: a key reads and changes only its environment's, so a Sandbox key
// never sees or moves Live's. The pause window is the account's, so only a Live key changes it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { ServiceError, validationFailed } from '../../domain/outcomes.ts'
import {
  AccountError,
  type AccountSettingsChange,
  type AccountsService,
  auditActorOf,
} from '../../services/accounts.service.ts'
import { outcomeReply } from '../replies.ts'
import { PatchSettingsSchema, SettingsResponseSchema } from '../schemas/account-settings.schema.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'

function notFound(error: unknown): never {
  if (error instanceof AccountError) throw new ServiceError('EntityNotFound', error.message)
  throw error
}

export function registerAccountSettingsRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/account/settings',
    {
      config: { scope: 'account:read' },
      schema: {
        operationId: 'getAccountSettings',
        tags: ['account'],
        summary: 'The account settings',
        response: { 200: SettingsResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const settings = await accounts.getSettings(request.caller.accountId, request.caller.environment).catch(notFound)
      return outcomeReply(request, 'Ok', { settings })
    },
  )

  api.patch(
    '/account/settings',
    {
      config: { scope: 'account:manage' },
      schema: {
        operationId: 'updateAccountSettings',
        tags: ['account'],
        summary: 'Change account settings; fields left out stay as they are',
        body: PatchSettingsSchema,
        response: { 200: SettingsResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      // The pause window holds Live orders too: a Sandbox key, often handed to a developer or a test system,
      // must not change how Live behaves.
      if (request.caller.environment !== 'live' && request.body.pauseWindowSeconds !== undefined) {
        throw new ServiceError(
          'Unauthorized',
          'The pause window applies to Live orders too, so it is changed with a Live key (a Sandbox key can read it)',
        )
      }
      const result = await accounts
        .updateSettings(
          request.caller.accountId,
          request.caller.environment,
          request.body as AccountSettingsChange,
          auditActorOf(request.caller),
        )
        .catch(notFound)
      if ('problems' in result) {
        const body = request.body as Record<string, unknown>
        throw validationFailed(
          Object.fromEntries(
            Object.entries(result.problems).map(([field, message]) => [
              field,
              [
                {
                  code: field === 'signingSecretOverlapSeconds' ? 'RequiresRotateSigningSecret' : 'InvalidValue',
                  providedValue: body[field] ?? null,
                  comparisonValue: message,
                },
              ],
            ]),
          ),
        )
      }
      return outcomeReply(request, 'Updated', { settings: result.settings })
    },
  )
}
