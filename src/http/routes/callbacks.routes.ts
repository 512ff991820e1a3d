// Callbacks and events (issue 6; docs/callbacks.md):
//   GET  /v4.0/callbacks?orderId=&status=&top=&skip=   deliveries, newest first, each with every attempt;
//   POST /v4.0/callbacks/{id}/redeliver                 sends a delivery's event again (a new delivery);
//   GET  /v4.0/events?after=&top=&orderId=              the same events as a feed, oldest first, for pollers.
// Everything is scoped to the caller's account and environment.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { DELIVERY_STATUSES } from '../../domain/callback-deliveries.ts'
import { type CallbacksService, LIST_DEFAULT_TOP, LIST_MAX_TOP } from '../../services/callbacks.service.ts'
import { CaseInsensitiveEnum, ErrorResponseSchema, Nullable, TraceParent } from '../schemas/common.schema.ts'
import { refuseBody } from '../validation.ts'

const AttemptSchema = Type.Object({
  attempt: Type.Integer(),
  time: Type.String(),
  httpStatus: Nullable(Type.Integer()),
  latencyMs: Type.Integer(),
  responseSnippet: Nullable(Type.String()),
  error: Nullable(Type.String()),
})

const CallbackSchema = Type.Object({
  id: Type.String({ description: 'Delivery ID, cbd_<number>.' }),
  eventId: Type.String(),
  orderId: Type.String(),
  type: Type.String(),
  url: Type.String(),
  status: Type.String({ description: 'pending, delivered or failed.' }),
  nextAttemptAt: Nullable(Type.String()),
  redeliveryOf: Nullable(Type.String()),
  created: Type.String(),
  lastUpdated: Type.String(),
  attempts: Type.Array(AttemptSchema),
})

const ListCallbacksQuerySchema = Type.Object(
  {
    orderId: Type.Optional(Type.String({ maxLength: 40 })),
    status: Type.Optional(CaseInsensitiveEnum(DELIVERY_STATUSES)),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX_TOP, default: LIST_DEFAULT_TOP })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
)

const EventsQuerySchema = Type.Object(
  {
    after: Type.Optional(Type.String({ maxLength: 40, description: 'An event id (evt_123); events after it.' })),
    orderId: Type.Optional(Type.String({ maxLength: 40, description: "Only this order's events (ord_123)." })),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX_TOP, default: LIST_MAX_TOP })),
  },
  { additionalProperties: false },
)

const errors = { 400: ErrorResponseSchema, 401: ErrorResponseSchema, 404: ErrorResponseSchema }

export function registerCallbackRoutes(app: FastifyInstance, callbacks: CallbacksService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/callbacks',
    {
      schema: {
        summary: 'Callback deliveries, newest first, with every attempt',
        querystring: ListCallbacksQuerySchema,
        response: {
          200: Type.Object({
            outcome: Type.String(),
            callbacks: Type.Array(CallbackSchema),
            hasMore: Type.Boolean(),
            traceParent: TraceParent,
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const result = await callbacks.listCallbacks(request.caller, request.query)
      return { outcome: 'Ok', ...result, traceParent: request.traceParent }
    },
  )

  api.post(
    '/callbacks/:callbackId/redeliver',
    {
      schema: {
        summary: "Send a delivery's event again, as a new delivery (no body)",
        params: Type.Object({ callbackId: Type.String({ maxLength: 40 }) }),
        response: {
          200: Type.Object({ outcome: Type.String(), callback: CallbackSchema, traceParent: TraceParent }),
          ...errors,
        },
      },
    },
    async (request) => {
      refuseBody(request.body, 'Redeliver takes no body')
      const callback = await callbacks.redeliver(request.caller, request.params.callbackId)
      return { outcome: 'Created', callback, traceParent: request.traceParent }
    },
  )

  api.get(
    '/events',
    {
      schema: {
        summary: 'Order events (the CloudEvents sent as callbacks), oldest first, after a cursor',
        querystring: EventsQuerySchema,
        response: {
          200: Type.Object({
            outcome: Type.String(),
            events: Type.Array(Type.Record(Type.String(), Type.Unknown())),
            nextCursor: Nullable(Type.String()),
            hasMore: Type.Boolean(),
            traceParent: TraceParent,
          }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const result = await callbacks.listEvents(request.caller, request.query)
      // The events are served as stored (the exact JSON sent as callbacks), not re-serialised.
      const cursor = result.nextCursor === null ? 'null' : JSON.stringify(result.nextCursor)
      return reply
        .type('application/json; charset=utf-8')
        .send(
          `{"outcome":"Ok","events":[${result.events.join(',')}],"nextCursor":${cursor},"hasMore":${result.hasMore},"traceParent":"${request.traceParent}"}` as never,
        )
    },
  )
}
