// Account settings (docs/api.md#account-settings): GET and PATCH /v4.0/account/settings for the
// callback URL, the pause window and the rotation of the callback signing secret. Settings belong to the
// account: a Sandbox or a Live key reads the same ones; only a Live key changes them.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { ServiceError, validationFailed } from '../../domain/outcomes.ts'
import { AccountError, type AccountSettingsChange, type AccountsService } from '../../services/accounts.service.ts'
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
      schema: {
        operationId: 'getAccountSettings',
        tags: ['account'],
        summary: 'The account settings',
        response: { 200: SettingsResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const settings = await accounts.getSettings(request.caller.accountId).catch(notFound)
      return { outcome: 'Ok' as const, settings, traceParent: request.traceParent }
    },
  )

  api.patch(
    '/account/settings',
    {
      schema: {
        operationId: 'updateAccountSettings',
        tags: ['account'],
        summary: 'Change account settings; fields left out stay as they are',
        body: PatchSettingsSchema,
        response: { 200: SettingsResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      // The settings are the account's, Live included (its callback URL, its signing secret): a Sandbox key,
      // often handed to a developer or a test system, must not be able to redirect or re-key Live callbacks.
      if (request.caller.environment !== 'live') {
        throw new ServiceError(
          'Unauthorized',
          'Account settings apply to Live too, so they are changed with a Live key (a Sandbox key can read them)',
        )
      }
      const result = await accounts
        .updateSettings(request.caller.accountId, request.body as AccountSettingsChange)
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
      return { outcome: 'Updated' as const, settings: result.settings, traceParent: request.traceParent }
    },
  )
}
