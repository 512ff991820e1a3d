// Callback deliveries and the event feed (docs/callbacks.md).

import { Type } from 'typebox'
import { DELIVERY_STATUSES } from '../../domain/callback-deliveries.ts'
import { CALLBACK_LIST_DEFAULT_TOP, CALLBACK_LIST_MAX_TOP } from '../../domain/limits.ts'
import { ClaimSchema } from './claims.schema.ts'
import {
  CaseInsensitiveEnum,
  Nullable,
  named,
  OkOutcome,
  Outcome,
  outcomeResponse,
  StringEnum,
  TraceParent,
  UrlString,
} from './common.schema.ts'
import { OrderCreditSchema, OrderSchema } from './order.schema.ts'

const AttemptSchema = named(
  'CallbackAttempt',
  Type.Object({
    attempt: Type.Integer(),
    time: Type.String(),
    httpStatus: Nullable(Type.Integer()),
    latencyMs: Type.Integer(),
    responseSnippet: Nullable(Type.String()),
    error: Nullable(Type.String()),
  }),
)

export const CallbackSchema = named(
  'CallbackDelivery',
  Type.Object({
    id: Type.String({ description: 'Delivery ID, cbd_<number>.' }),
    eventId: Type.String(),
    orderId: Nullable(Type.String({ description: 'The order (ord_<number>); null for a test callback.' })),
    type: Type.String(),
    url: Type.String(),
    status: named('DeliveryStatus', StringEnum(DELIVERY_STATUSES)),
    nextAttemptAt: Nullable(Type.String()),
    redeliveryOf: Nullable(Type.String()),
    created: Type.String(),
    lastUpdated: Type.String(),
    attempts: Type.Array(AttemptSchema),
    webhookId: Nullable(
      Type.String({ description: 'The webhook endpoint it went to (whk_<number>); null for a callback URL.' }),
    ),
  }),
)

export const ListCallbacksQuerySchema = Type.Object(
  {
    orderId: Type.Optional(Type.String({ maxLength: 40 })),
    status: Type.Optional(CaseInsensitiveEnum(DELIVERY_STATUSES)),
    webhookId: Type.Optional(
      Type.String({ maxLength: 40, description: 'Only the deliveries to this webhook endpoint (whk_12).' }),
    ),
    top: Type.Optional(
      Type.Integer({ minimum: 1, maximum: CALLBACK_LIST_MAX_TOP, default: CALLBACK_LIST_DEFAULT_TOP }),
    ),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
)

export const CallbackListResponseSchema = outcomeResponse('CallbackListResponse', OkOutcome, {
  callbacks: Type.Array(CallbackSchema),
  hasMore: Type.Boolean(),
})

export const CallbackIdParamsSchema = Type.Object({ callbackId: Type.String({ maxLength: 40 }) })

export const CallbackResponseSchema = outcomeResponse(
  'CallbackResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  { callback: CallbackSchema },
)

/**
 * A callback: the CloudEvent (JSON format, CloudEvents 1.0) POSTed to the callback URL and kept in the
 * events feed (domain/order-events.ts builds it; docs/callbacks.md). Attributes in the order sent.
 */
export const CallbackEventSchema = named(
  'CallbackEvent',
  Type.Object({
    specversion: StringEnum(['1.0'] as const),
    type: Type.String({
      description:
        'com.<vendor>.order.<path of the changed object>#<new value>, e.g. com.printroute.order.shipments.shipment#Shipped.',
    }),
    source: Type.String({ description: "The order's address on this environment's API." }),
    id: Type.String({ description: 'Event ID (evt_<number>), the same on every attempt: deduplicate on it.' }),
    time: Type.String({ format: 'date-time', description: 'When the change happened.' }),
    datacontenttype: StringEnum(['application/json'] as const),
    data: Type.Object({
      order: named(
        'CallbackOrder',
        Type.Object(
          {
            ...OrderSchema.properties,
            recipient: named(
              'CallbackRecipient',
              Type.Object({
                ...OrderSchema.properties.recipient.properties,
                mobilePhoneNumber: Nullable(
                  Type.String({
                    description: "The phone number again, under the name the specification's callback payload uses.",
                  }),
                ),
              }),
            ),
          },
          { description: 'The complete order as it stood at the change.' },
        ),
      ),
      // creditIssued events only (webhook endpoints and the events feed): the credit as the order's credits[] shows it.
      credit: Type.Optional(OrderCreditSchema),
      /** Claim events only (docs/claims.md#events): the claim as it stood after the change. */
      claim: Type.Optional(ClaimSchema),
      traceParent: TraceParent,
    }),
    subject: Type.String({ description: 'The order ID.' }),
    sequence: Type.String({
      pattern: '^[0-9]{19}$',
      description:
        "CloudEvents sequence extension: the event's place among the order's events, from 1, zero-padded to 19 " +
        'digits (0000000000000000003), so that comparing the strings orders the events.',
    }),
  }),
)

export const EventsQuerySchema = Type.Object(
  {
    after: Type.Optional(Type.String({ maxLength: 40, description: 'An event id (evt_123); events after it.' })),
    orderId: Type.Optional(Type.String({ maxLength: 40, description: "Only this order's events (ord_123)." })),
    webhookId: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          "Only the events this webhook endpoint's filters accept (whk_12), whether or not they were sent to it: what `printroute listen --webhook` follows.",
      }),
    ),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: CALLBACK_LIST_MAX_TOP, default: CALLBACK_LIST_MAX_TOP })),
  },
  { additionalProperties: false },
)

export const EventsResponseSchema = outcomeResponse('EventsResponse', OkOutcome, {
  events: Type.Array(CallbackEventSchema),
  nextCursor: Nullable(Type.String()),
  hasMore: Type.Boolean(),
})

export const TestCallbackBodySchema = named(
  'TestCallbackRequest',
  Type.Object(
    {
      url: Type.Optional(
        UrlString("Where to send the test callback (http or https); the environment's callback URL when absent."),
      ),
    },
    { additionalProperties: false },
  ),
)

export const TestCallbackResponseSchema = outcomeResponse(
  'TestCallbackResponse',
  Outcome(
    'TestCallbackOutcome',
    ['Delivered', 'Failed'] as const,
    'Delivered when the receiver answered 2xx, else Failed.',
  ),
  { callback: CallbackSchema },
)
