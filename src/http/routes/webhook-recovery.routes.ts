// Webhook endpoints that keep failing (docs/callbacks.md#when-a-webhook-endpoint-keeps-failing):
//   GET  /v4.0/webhooks                         the environment's endpoints, oldest first;
//   GET  /v4.0/webhooks/{id}                    one endpoint as the API shows it;
//   POST /v4.0/webhooks/{id}/redeliver-missed   sends an endpoint, enabled again, every event it missed.
// Always the caller's account and environment.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { auditActorOf } from '../../services/accounts.service.ts'
import type { WebhookRecoveryService } from '../../services/webhook-recovery.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import {
  RedeliverMissedBodySchema,
  RedeliverMissedResponseSchema,
  WebhookIdParamsSchema,
  WebhookListResponseSchema,
  WebhookResponseSchema,
} from '../schemas/webhook-recovery.schema.ts'

export function registerWebhookRecoveryRoutes(app: FastifyInstance, recovery: WebhookRecoveryService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/webhooks',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        operationId: 'listWebhooks',
        tags: ['webhooks'],
        summary: "The environment's webhook endpoints, oldest first (never their secrets)",
        response: { 200: WebhookListResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { webhooks: await recovery.listEndpoints(request.caller) }),
  )

  api.get(
    '/webhooks/:id',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        operationId: 'getWebhook',
        tags: ['webhooks'],
        summary: 'One webhook endpoint, with its filters and failure state (never its secret)',
        params: WebhookIdParamsSchema,
        response: { 200: WebhookResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', { webhook: await recovery.findEndpoint(request.caller, request.params.id) }),
  )

  api.post(
    '/webhooks/:id/redeliver-missed',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        operationId: 'redeliverMissedWebhookEvents',
        tags: ['webhooks'],
        summary: 'Send an enabled endpoint every event it missed since a time (at most 10,000 a request)',
        params: WebhookIdParamsSchema,
        body: RedeliverMissedBodySchema,
        response: { 200: RedeliverMissedResponseSchema, ...ErrorResponses },
      },
      // The body is optional: none is the same as `{}` (from where the endpoint began to miss events).
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {}
      },
    },
    async (request) => {
      const result = await recovery.redeliverMissed(
        request.caller,
        request.params.id,
        request.body,
        auditActorOf(request.caller),
      )
      return outcomeReply(request, 'Ok', result)
    },
  )
}
