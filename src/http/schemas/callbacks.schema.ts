// Callback deliveries and the event feed (docs/callbacks.md).
import { Type } from 'typebox'
import { DELIVERY_STATUSES } from '../../domain/callback-deliveries.ts'
import { LIST_DEFAULT_TOP, LIST_MAX_TOP } from '../../services/callbacks.service.ts'
import { CaseInsensitiveEnum, Nullable, TraceParent, UrlString } from './common.schema.ts'

const AttemptSchema = Type.Object({
  attempt: Type.Integer(),
  time: Type.String(),
  httpStatus: Nullable(Type.Integer()),
  latencyMs: Type.Integer(),
  responseSnippet: Nullable(Type.String()),
  error: Nullable(Type.String()),
})

export const CallbackSchema = Type.Object({
  id: Type.String({ description: 'Delivery ID, cbd_<number>.' }),
  eventId: Type.String(),
  orderId: Nullable(Type.String({ description: 'The order (ord_<number>); null for a test callback.' })),
  type: Type.String(),
  url: Type.String(),
  status: Type.String({ description: 'pending, delivered or failed.' }),
  nextAttemptAt: Nullable(Type.String()),
  redeliveryOf: Nullable(Type.String()),
  created: Type.String(),
  lastUpdated: Type.String(),
  attempts: Type.Array(AttemptSchema),
})

export const ListCallbacksQuerySchema = Type.Object(
  {
    orderId: Type.Optional(Type.String({ maxLength: 40 })),
    status: Type.Optional(CaseInsensitiveEnum(DELIVERY_STATUSES)),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX_TOP, default: LIST_DEFAULT_TOP })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
)

export const CallbackListResponseSchema = Type.Object({
  outcome: Type.String(),
  callbacks: Type.Array(CallbackSchema),
  hasMore: Type.Boolean(),
  traceParent: TraceParent,
})

export const CallbackIdParamsSchema = Type.Object({ callbackId: Type.String({ maxLength: 40 }) })

export const CallbackResponseSchema = Type.Object({
  outcome: Type.String(),
  callback: CallbackSchema,
  traceParent: TraceParent,
})

export const EventsQuerySchema = Type.Object(
  {
    after: Type.Optional(Type.String({ maxLength: 40, description: 'An event id (evt_123); events after it.' })),
    orderId: Type.Optional(Type.String({ maxLength: 40, description: "Only this order's events (ord_123)." })),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX_TOP, default: LIST_MAX_TOP })),
  },
  { additionalProperties: false },
)

export const EventsResponseSchema = Type.Object({
  outcome: Type.String(),
  events: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  nextCursor: Nullable(Type.String()),
  hasMore: Type.Boolean(),
  traceParent: TraceParent,
})

export const TestCallbackBodySchema = Type.Object(
  {
    url: Type.Optional(
      UrlString("Where to send the test callback (http or https); the environment's callback URL when absent."),
    ),
  },
  { additionalProperties: false },
)

export const TestCallbackResponseSchema = Type.Object({
  outcome: Type.String({ description: 'Delivered when the receiver answered 2xx, else Failed.' }),
  callback: CallbackSchema,
  traceParent: TraceParent,
})
