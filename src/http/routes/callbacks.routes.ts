// Callbacks and events (docs/callbacks.md):
//   GET  /v4.0/callbacks?orderId=&status=&top=&skip=   deliveries, newest first, each with every attempt;
//   POST /v4.0/callbacks/{id}/redeliver                 sends a delivery's event again (a new delivery);
//   POST /v4.0/callbacks/test                           sends a signed test callback now and returns its delivery;
//   GET  /v4.0/events?after=&top=&orderId=              the same events as a feed, oldest first, for pollers.
// Everything is scoped to the caller's account and environment.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { CallbacksService } from '../../services/callbacks.service.ts'
import { outcomeReply, sendOutcomeJson } from '../replies.ts'
import {
  CallbackIdParamsSchema,
  CallbackListResponseSchema,
  CallbackResponseSchema,
  EventsQuerySchema,
  EventsResponseSchema,
  ListCallbacksQuerySchema,
  TestCallbackBodySchema,
  TestCallbackResponseSchema,
} from '../schemas/callbacks.schema.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import { refuseBody } from '../validation.ts'

export function registerCallbackRoutes(app: FastifyInstance, callbacks: CallbacksService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/callbacks',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        operationId: 'listCallbacks',
        tags: ['callbacks'],
        summary: 'Callback deliveries, newest first, with every attempt',
        querystring: ListCallbacksQuerySchema,
        response: {
          200: CallbackListResponseSchema,
          ...ErrorResponses,
        },
      },
    },
    async (request) => {
      const result = await callbacks.listCallbacks(request.caller, request.query)
      return outcomeReply(request, 'Ok', result)
    },
  )

  api.post(
    '/callbacks/:callbackId/redeliver',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        operationId: 'redeliverCallback',
        tags: ['callbacks'],
        summary: "Send a delivery's event again, as a new delivery (no body)",
        params: CallbackIdParamsSchema,
        response: { 200: CallbackResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      refuseBody(request.body, 'Redeliver takes no body')
      const callback = await callbacks.redeliver(request.caller, request.params.callbackId)
      return outcomeReply(request, 'Created', { callback })
    },
  )

  api.post(
    '/callbacks/test',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        operationId: 'sendTestCallback',
        tags: ['callbacks'],
        summary: 'Send a signed test callback now (once, no retries) and return its delivery with the attempt',
        body: TestCallbackBodySchema,
        response: { 200: TestCallbackResponseSchema, ...ErrorResponses },
      },
      // The body is optional: none is the same as `{}` (send to the environment's callback URL).
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {}
      },
    },
    async (request) => {
      const callback = await callbacks.sendTestCallback(request.caller, {
        ...(request.body.url !== undefined ? { url: request.body.url } : {}),
        traceParent: request.traceParent,
      })
      const outcome = callback.status === 'delivered' ? ('Delivered' as const) : ('Failed' as const)
      return outcomeReply(request, outcome, { callback })
    },
  )

  api.get(
    '/events',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listEvents',
        tags: ['callbacks'],
        summary: 'Order events (the CloudEvents sent as callbacks), oldest first, after a cursor',
        querystring: EventsQuerySchema,
        response: {
          200: EventsResponseSchema,
          ...ErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const result = await callbacks.listEvents(request.caller, request.query)
      // The events are served as stored (the exact JSON sent as callbacks), not re-serialised.
      const cursor = result.nextCursor === null ? 'null' : JSON.stringify(result.nextCursor)
      return sendOutcomeJson(reply, request, 'Ok', [
        ['events', `[${result.events.join(',')}]`],
        ['nextCursor', cursor],
        ['hasMore', String(result.hasMore)],
      ])
    },
  )
}
