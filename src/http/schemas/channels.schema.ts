// Storefront channels (docs/channels.md): a merchant's stores, the links of their variants to products, and the
// store orders waiting as "not connected". One create shape for every store type: which fields a type needs is
// checked by the service, so each problem is reported under its own field.
import { Type } from 'typebox'
import { CHANNEL_APPROVAL_MODES, MAX_APPROVAL_DELAY_HOURS } from '../../domain/approval.ts'
import { CHANNEL_WEBHOOK_STATES, CHANNEL_WEBHOOK_TOPICS } from '../../domain/channel-webhooks.ts'
import { CHANNEL_LIMITS, CHANNEL_STATUSES } from '../../domain/channels.ts'
import { SHIPPING_METHODS, SIZING_MODES } from '../../domain/shipping-methods.ts'
import {
  Nullable,
  named,
  OkOutcome,
  Outcome,
  outcomeResponse,
  SingleLineString,
  StringEnum,
  UrlString,
} from './common.schema.ts'

const Secret = (description: string) => SingleLineString({ maxLength: CHANNEL_LIMITS.secretLength, description })
const ExternalId = (description: string) =>
  SingleLineString({ maxLength: CHANNEL_LIMITS.externalIdLength, minLength: 1, description })
const ChannelType = StringEnum(['shopify', 'woocommerce'] as const, 'The store: shopify or woocommerce.')
const ApprovalMode = StringEnum(
  CHANNEL_APPROVAL_MODES,
  'automatic: the order is created at once; delayed: it is held before production for delayHours (its holdUntil), ' +
    'so it can be looked at or cancelled first; manual: it is created as a draft that waits for actions/confirm.',
)
const DelayHours = Type.Integer({
  minimum: 1,
  maximum: MAX_APPROVAL_DELAY_HOURS,
  description: `delayed only: hours from the order's create to its start, 1..${MAX_APPROVAL_DELAY_HOURS} (14 days).`,
})
const ChannelApprovalSchema = named(
  'ChannelApproval',
  Type.Object(
    { mode: ApprovalMode, delayHours: Type.Optional(DelayHours) },
    {
      additionalProperties: false,
      description: "How the channel's orders are approved before production (default automatic).",
    },
  ),
)
const ShippingMethod = (description: string) =>
  Type.String({ maxLength: 20, description: `${description} One of ${SHIPPING_METHODS.join(', ')} (any case).` })
const ChannelWebhooksSchema = named(
  'ChannelWebhooks',
  Type.Object(
    {
      state: StringEnum(
        CHANNEL_WEBHOOK_STATES,
        "subscribed: each topic reaches the channel's webhookUrl; pending: printroute is subscribing them; failed: " +
          'the store refused or failed (reason says why): printroute tries a passing failure again by itself ' +
          '(nextAttemptAt), and POST .../webhooks/subscribe tries again now.',
      ),
      topics: Type.Array(StringEnum(CHANNEL_WEBHOOK_TOPICS, 'An Admin API webhook topic.'), {
        description: "The topics known to reach the channel's webhookUrl.",
      }),
      reason: Type.Optional(
        Type.String({ description: 'Why they failed, or the subscriptions to other addresses left alone.' }),
      ),
      checkedAt: Nullable(Type.String({ description: 'When the store was last asked; null until it was.' })),
      nextAttemptAt: Type.Optional(
        Type.String({
          description:
            'failed in passing (HTTP 5xx, 429, a timeout): when printroute tries again by itself; absent when it ' +
            'will not (a refusal, or its retries used up).',
        }),
      ),
      elsewhere: Type.Optional(
        Type.Array(Type.Object({ topic: Type.String(), uri: Type.String() }), {
          description: "The app's subscriptions of these topics to other addresses: left alone.",
        }),
      ),
    },
    {
      description:
        "Shopify: the app's webhook subscriptions (ORDERS_CREATE, ORDERS_CANCELLED, APP_UNINSTALLED), made by " +
        'printroute with the Admin API token when the channel is created or given new secrets.',
    },
  ),
)
const ChannelName = Nullable(SingleLineString({ maxLength: 100, description: 'What the merchant calls it.' }))

export const ChannelSchema = named(
  'Channel',
  Type.Object({
    id: Type.String({ description: 'Channel ID, chn_<number>.' }),
    type: ChannelType,
    name: Nullable(Type.String()),
    shopDomain: Type.Optional(Type.String({ description: "Shopify: the shop's myshopify.com domain." })),
    storeUrl: Type.Optional(Type.String({ description: "WooCommerce: the store's address." })),
    status: StringEnum(
      CHANNEL_STATUSES,
      'active; failing: the store refused the last fulfilment, or the channel secrets key changed and the secrets must be given again with PATCH (statusReason says which); uninstalled: the app was removed.',
    ),
    statusReason: Nullable(Type.String()),
    hasAdminAccessToken: Type.Optional(Type.Boolean({ description: 'Shopify: the token is stored (never shown).' })),
    hasConsumerKey: Type.Optional(Type.Boolean()),
    hasConsumerSecret: Type.Optional(Type.Boolean()),
    hasWebhookSecret: Type.Boolean({ description: 'The webhook secret is stored (never shown).' }),
    approval: ChannelApprovalSchema,
    shippingMethod: StringEnum(
      SHIPPING_METHODS,
      "The shipping method the channel's orders are created with (default Standard), whatever the store order says.",
    ),
    webhookUrl: Type.String({ description: "Where the store's webhooks go: paste it in the store's settings." }),
    webhooks: Type.Optional(ChannelWebhooksSchema),
    created: Type.String(),
    lastUpdated: Type.String(),
  }),
)

export const CreateChannelBodySchema = named(
  'CreateChannelRequest',
  Type.Object(
    {
      type: ChannelType,
      name: Type.Optional(ChannelName),
      shopDomain: Type.Optional(SingleLineString({ maxLength: 255, description: 'Shopify: shop-name.myshopify.com.' })),
      adminAccessToken: Type.Optional(Secret("Shopify: the custom app's Admin API access token (shpat_...).")),
      storeUrl: Type.Optional(UrlString("WooCommerce: the store's address.")),
      consumerKey: Type.Optional(Secret('WooCommerce: the REST API consumer key.')),
      consumerSecret: Type.Optional(Secret('WooCommerce: the REST API consumer secret.')),
      webhookSecret: Secret("The secret the store signs its webhooks with (Shopify: the app's API secret key)."),
      approval: Type.Optional(ChannelApprovalSchema),
      shippingMethod: Type.Optional(
        Nullable(ShippingMethod("The channel's orders' shipping method; default Standard.")),
      ),
    },
    { additionalProperties: false },
  ),
)

export const UpdateChannelBodySchema = named(
  'UpdateChannelRequest',
  Type.Object(
    {
      name: Type.Optional(ChannelName),
      adminAccessToken: Type.Optional(Secret('Shopify: a new Admin API access token.')),
      consumerKey: Type.Optional(Secret('WooCommerce: a new consumer key.')),
      consumerSecret: Type.Optional(Secret('WooCommerce: a new consumer secret.')),
      webhookSecret: Type.Optional(Secret('A new webhook secret.')),
      approval: Type.Optional(ChannelApprovalSchema),
      shippingMethod: Type.Optional(Nullable(ShippingMethod('The shipping method of orders created from now on.'))),
    },
    { additionalProperties: false },
  ),
)

export const ChannelIdParamsSchema = Type.Object({ channelId: Type.String({ maxLength: 40 }) })
export const LinkParamsSchema = Type.Object({
  channelId: Type.String({ maxLength: 40 }),
  linkId: Type.Integer({ minimum: 1 }),
})
export const PendingOrderParamsSchema = Type.Object({
  channelId: Type.String({ maxLength: 40 }),
  externalOrderId: Type.String({ maxLength: CHANNEL_LIMITS.externalIdLength }),
})

const LinkAsset = Type.Object(
  {
    printArea: SingleLineString({ maxLength: 100, minLength: 1 }),
    url: UrlString('The print file for this print area.'),
  },
  { additionalProperties: false },
)

export const CreateLinkBodySchema = named(
  'CreateChannelLinkRequest',
  Type.Object(
    {
      externalVariantId: Type.Optional(
        Nullable(ExternalId("The store's variant id (exactly one of this and externalSku).")),
      ),
      externalSku: Type.Optional(Nullable(ExternalId("The store's SKU (exactly one of this and externalVariantId)."))),
      sku: Type.Optional(Nullable(SingleLineString({ maxLength: 100, description: 'The printroute product SKU.' }))),
      attributes: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
      assets: Type.Optional(Nullable(Type.Array(LinkAsset, { maxItems: CHANNEL_LIMITS.assets }))),
      sizing: Type.Optional(Nullable(StringEnum(SIZING_MODES))),
      ignore: Type.Optional(
        Nullable(Type.Boolean({ description: 'true: the store fulfils this item otherwise; orders leave it alone.' })),
      ),
    },
    { additionalProperties: false },
  ),
)

export const ChannelLinkSchema = named(
  'ChannelLink',
  Type.Object({
    id: Type.String(),
    externalVariantId: Nullable(Type.String()),
    externalSku: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    attributes: Type.Record(Type.String(), Type.String()),
    assets: Type.Array(Type.Object({ printArea: Type.String(), url: Type.String() })),
    sizing: Nullable(StringEnum(SIZING_MODES)),
    ignore: Type.Boolean(),
    created: Type.String(),
  }),
)

const LineItemSchema = named(
  'ChannelLineItem',
  Type.Object({
    externalLineItemId: Type.String(),
    externalVariantId: Nullable(Type.String()),
    externalSku: Nullable(Type.String()),
    title: Type.String(),
    quantity: Type.Integer(),
  }),
)

export const PendingOrderSchema = named(
  'ChannelPendingOrder',
  Type.Object({
    externalOrderId: Type.String(),
    name: Type.String(),
    received: Type.String(),
    unlinkedItems: Type.Array(LineItemSchema),
    problem: Nullable(Type.String({ description: 'Why creating it failed when last tried; a release tries again.' })),
  }),
)

export const StoreCancellationSchema = named(
  'ChannelStoreCancellation',
  Type.Object({
    externalOrderId: Type.String(),
    name: Type.String({ description: "The store's name of the order; its id when the cancellation came first." }),
    orderId: Nullable(Type.String({ description: 'The printroute order it had become; null when none was created.' })),
    cancelled: Type.String({ description: 'When the cancellation was recorded.' }),
    answer: Nullable(
      Type.String({
        description:
          'What cancelling the printroute order answered: `ord_12: Cancelled`; `ord_12: FailedToCancel (...)` or ' +
          '`ord_12: ActionNotAvailable (...)` with its stage (too far along: it goes on); or ' +
          '`no printroute order was created`.',
      }),
    ),
  }),
)

export const ChannelListResponseSchema = outcomeResponse('ChannelListResponse', OkOutcome, {
  channels: Type.Array(ChannelSchema),
})
export const ChannelResponseSchema = outcomeResponse('ChannelResponse', OkOutcome, { channel: ChannelSchema })
export const CreatedChannelResponseSchema = outcomeResponse(
  'CreatedChannelResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  { channel: ChannelSchema },
)
export const UpdatedChannelResponseSchema = outcomeResponse(
  'UpdatedChannelResponse',
  Outcome('UpdatedOutcome', ['Updated'] as const),
  { channel: ChannelSchema },
)
export const DeletedChannelResponseSchema = outcomeResponse(
  'DeletedChannelResponse',
  Outcome('DeletedOutcome', ['Deleted'] as const),
  { channel: ChannelSchema },
)
export const ChannelLinkListResponseSchema = outcomeResponse('ChannelLinkListResponse', OkOutcome, {
  links: Type.Array(ChannelLinkSchema),
})
export const CreatedChannelLinkResponseSchema = outcomeResponse(
  'CreatedChannelLinkResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  { link: ChannelLinkSchema },
)
export const DeletedChannelLinkResponseSchema = outcomeResponse(
  'DeletedChannelLinkResponse',
  Outcome('DeletedOutcome', ['Deleted'] as const),
  {},
)
export const PendingOrderListResponseSchema = outcomeResponse('ChannelPendingOrderListResponse', OkOutcome, {
  orders: Type.Array(PendingOrderSchema),
})
export const StoreCancellationListResponseSchema = outcomeResponse('ChannelStoreCancellationListResponse', OkOutcome, {
  cancellations: Type.Array(StoreCancellationSchema),
})
export const ReleasedOrderResponseSchema = outcomeResponse(
  'ChannelReleasedOrderResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  { orderId: Type.String({ description: 'The printroute order created, ord_<number>.' }) },
)

export const CHANNEL_FULFILMENT_LIST_MAX_TOP = 100

export const FulfilmentParamsSchema = Type.Object({
  channelId: Type.String({ maxLength: 40 }),
  fulfilmentId: Type.String({ maxLength: 40 }),
})

export const ListFulfilmentsQuerySchema = Type.Object(
  {
    before: Type.Optional(
      Type.String({
        maxLength: 40,
        description: "A fulfilment ID (chf_<number>): the page continues with older ones (nextUrl's).",
      }),
    ),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: CHANNEL_FULFILMENT_LIST_MAX_TOP, default: 20 })),
  },
  { additionalProperties: false },
)

export const ChannelFulfilmentSchema = named(
  'ChannelFulfilment',
  Type.Object({
    id: Type.String({ description: 'Fulfilment ID, chf_<number>: one shipped shipment told to the store.' }),
    orderId: Nullable(Type.String({ description: 'The printroute order, ord_<number>.' })),
    shipmentId: Type.String(),
    externalOrderId: Type.String({ description: "The store's order id." }),
    state: StringEnum(
      ['pending', 'delivered', 'failed'] as const,
      'pending: being tried or waiting for its next attempt; delivered: the store took it; failed: refused, or its ' +
        'tries used up (POST .../retry tries again).',
    ),
    attemptCount: Type.Integer({ description: 'Attempts made so far.' }),
    nextAttemptAt: Nullable(Type.String({ description: 'When the next attempt is due; null when none is.' })),
    lastError: Nullable(Type.String({ description: "The last attempt's error; null once delivered." })),
    created: Type.String(),
    lastUpdated: Type.String(),
    attempts: Type.Array(
      Type.Object({
        attempt: Type.Integer(),
        attempted: Type.String(),
        httpStatus: Nullable(Type.Integer({ description: "The store's answer; null when it could not be reached." })),
        error: Nullable(Type.String()),
      }),
    ),
  }),
)

export const ChannelFulfilmentListResponseSchema = outcomeResponse('ChannelFulfilmentListResponse', OkOutcome, {
  fulfilments: Type.Array(ChannelFulfilmentSchema),
  hasMore: Type.Boolean(),
  nextUrl: Nullable(Type.String({ description: 'The next (older) page; null on the last.' })),
})

export const RetriedFulfilmentResponseSchema = outcomeResponse('ChannelFulfilmentRetryResponse', OkOutcome, {
  fulfilment: ChannelFulfilmentSchema,
})
