// Webhook endpoints (docs/callbacks.md#webhook-endpoints):
//   GET    /v4.0/webhooks                  the environment's endpoints, oldest first;
//   POST   /v4.0/webhooks                  a new endpoint, answered with its signing secret (shown only then);
//   GET    /v4.0/webhooks/{id}             one endpoint;
//   PATCH  /v4.0/webhooks/{id}             changes it (filters, URL, enabled, secret rotation);
//   DELETE /v4.0/webhooks/{id}             deletes it;
//   POST   /v4.0/webhooks/{id}/test        sends it a signed test callback now;
//   POST   /v4.0/webhooks/{id}/redeliver-missed  sends an endpoint enabled again every event it missed.
// Everything is scoped to the caller's account and environment.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { auditActorOf } from '../../services/accounts.service.ts'
import type { WebhookRecoveryService } from '../../services/webhook-recovery.service.ts'
import type { WebhooksService } from '../../services/webhooks.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import {
  CreatedWebhookResponseSchema,
  CreateWebhookBodySchema,
  DeletedWebhookResponseSchema,
  RedeliverMissedBodySchema,
  RedeliverMissedResponseSchema,
  UpdatedWebhookResponseSchema,
  UpdateWebhookBodySchema,
  WebhookIdParamsSchema,
  WebhookListResponseSchema,
  WebhookResponseSchema,
  WebhookTestResponseSchema,
} from '../schemas/webhooks.schema.ts'
import { refuseBody } from '../validation.ts'

export function registerWebhookRoutes(
  app: FastifyInstance,
  webhooks: WebhooksService,
  recovery: Pick<WebhookRecoveryService, 'redeliverMissed'>,
): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const config = { scope: 'webhooks:manage' } as const

  api.get(
    '/webhooks',
    {
      config,
      schema: {
        operationId: 'listWebhooks',
        tags: ['webhooks'],
        summary: "The environment's webhook endpoints, oldest first",
        response: { 200: WebhookListResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { webhooks: await webhooks.list(request.caller) }),
  )

  api.post(
    '/webhooks',
    {
      config,
      schema: {
        operationId: 'createWebhook',
        tags: ['webhooks'],
        summary: 'Add a webhook endpoint; the answer shows its signing secret, once',
        body: CreateWebhookBodySchema,
        response: { 201: CreatedWebhookResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const created = await webhooks.create(request.caller, request.body, auditActorOf(request.caller))
      reply.code(201)
      return outcomeReply(request, 'Created', created)
    },
  )

  api.get(
    '/webhooks/:webhookId',
    {
      config,
      schema: {
        operationId: 'getWebhook',
        tags: ['webhooks'],
        summary: 'One webhook endpoint',
        params: WebhookIdParamsSchema,
        response: { 200: WebhookResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', { webhook: await webhooks.get(request.caller, request.params.webhookId) }),
  )

  api.patch(
    '/webhooks/:webhookId',
    {
      config,
      schema: {
        operationId: 'updateWebhook',
        tags: ['webhooks'],
        summary: 'Change a webhook endpoint; fields left out stay as they are',
        params: WebhookIdParamsSchema,
        body: UpdateWebhookBodySchema,
        response: { 200: UpdatedWebhookResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const updated = await webhooks.update(
        request.caller,
        request.params.webhookId,
        request.body,
        auditActorOf(request.caller),
      )
      return outcomeReply(request, 'Updated', updated)
    },
  )

  api.delete(
    '/webhooks/:webhookId',
    {
      config,
      schema: {
        operationId: 'deleteWebhook',
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint: it receives nothing more',
        params: WebhookIdParamsSchema,
        response: { 200: DeletedWebhookResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const webhook = await webhooks.delete(request.caller, request.params.webhookId, auditActorOf(request.caller))
      return outcomeReply(request, 'Deleted', { webhook })
    },
  )

  api.post(
    '/webhooks/:webhookId/test',
    {
      config,
      schema: {
        operationId: 'testWebhook',
        tags: ['webhooks'],
        summary: "Send the endpoint a test callback now (once, no retries), signed with the endpoint's secret",
        params: WebhookIdParamsSchema,
        response: { 200: WebhookTestResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      refuseBody(request.body, 'The test send takes no body')
      const callback = await webhooks.test(request.caller, request.params.webhookId, {
        traceParent: request.traceParent,
      })
      return outcomeReply(request, 'Ok', { callback })
    },
  )

  api.post(
    '/webhooks/:webhookId/redeliver-missed',
    {
      config,
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
        request.params.webhookId,
        request.body,
        auditActorOf(request.caller),
      )
      return outcomeReply(request, 'Ok', result)
    },
  )
}
