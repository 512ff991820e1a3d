// Orders on the wire: the create request and the order object, in the specification's key order.
import { type TUnsafe, Type } from 'typebox'
import { ADDRESS_PROBLEM_CODES } from '../../domain/address-rules.ts'
import { CUSTOMS_ID_MAX_LENGTH, INCOTERMS } from '../../domain/customs.ts'
import {
  ASSET_STATUSES,
  BRANDING_KEYS,
  CHARGE_TYPES,
  CREDIT_REASONS,
  DELIVERY_STATUSES,
  DETAIL_STATES,
  ITEM_STATUSES,
  PACKING_SLIP_STATUSES,
  SHIPMENT_STATUSES,
  STAGES,
} from '../../domain/order.ts'
import { ORDER_LIST_STATUSES } from '../../domain/order-list.ts'
import { ISSUE_CODES } from '../../domain/pipeline/pipeline-order.ts'
import { SANDBOX_SCENARIO_HEADER, SANDBOX_SCENARIOS } from '../../domain/sandbox-scenarios.ts'
import { SHIPPING_METHODS, SIZING_MODES } from '../../domain/shipping-methods.ts'
import { MAX_URL_LENGTH } from '../../domain/urls.ts'
import {
  CaseInsensitiveEnum,
  MoneySchema,
  NonBlankString,
  Nullable,
  NullableString,
  NullableUrlString,
  named,
  OkOutcome,
  Outcome,
  outcomeResponse,
  SingleLineString,
  StringEnum,
  UrlString,
} from './common.schema.ts'

// Enumerations named for the OpenAPI document (a generated client gets a union type for each).
export const ShippingMethodSchema = named('ShippingMethod', StringEnum(SHIPPING_METHODS))
export const IncotermSchema = named(
  'Incoterm',
  StringEnum(
    INCOTERMS,
    'Who pays duties and import taxes: DDP the merchant (printroute charges them with the order), DAP the ' +
      'recipient on delivery.',
  ),
)

const CustomsIdSchema = (description: string) =>
  Type.Optional(NonBlankString({ maxLength: CUSTOMS_ID_MAX_LENGTH, singleLine: true, description }))

/** The order's `customs` (docs/api.md#customs-and-duties): the same shape in the request and on the order. */
export const OrderCustomsSchema = named(
  'OrderCustoms',
  Type.Object(
    {
      incoterm: IncotermSchema,
      iossNumber: CustomsIdSchema('EU Import One-Stop Shop number (IM + 10 digits); EU destinations only.'),
      eoriNumber: CustomsIdSchema("The merchant's EORI number, for the customs declaration."),
      recipientTaxId: CustomsIdSchema("The recipient's tax id (VAT number, CPF, ...), for the customs declaration."),
    },
    {
      additionalProperties: false,
      description:
        "printroute's own: the incoterm and customs numbers of a cross-border order; omitted: DAP, no numbers.",
    },
  ),
)
export const SizingSchema = named('Sizing', StringEnum(SIZING_MODES))

// Limits of our own (the specification leaves them open); documented in docs/api.md.
export const ORDER_LIMITS = {
  maxItems: 100,
  maxAssetsPerItem: 20,
  maxCopies: 10_000,
  maxPageCount: 2_000,
  shortText: 200,
  url: MAX_URL_LENGTH,
  /** Deepest list offset: paging further is better done with createdTo. */
  maxSkip: 1_000_000,
} as const

export const AddressRequestSchema = named(
  'AddressInput',
  Type.Object(
    {
      line1: NonBlankString({ maxLength: ORDER_LIMITS.shortText }),
      line2: Type.Optional(NullableString({ maxLength: ORDER_LIMITS.shortText })),
      postalOrZipCode: NonBlankString({ maxLength: 50, singleLine: true }),
      countryCode: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter ISO 3166-1 country code.' }),
      townOrCity: NonBlankString({ maxLength: ORDER_LIMITS.shortText }),
      stateOrCounty: Type.Optional(NullableString({ maxLength: ORDER_LIMITS.shortText })),
    },
    { additionalProperties: false },
  ),
)

export const RecipientRequestSchema = named(
  'RecipientInput',
  Type.Object(
    {
      name: NonBlankString({ maxLength: ORDER_LIMITS.shortText }),
      email: Type.Optional(NullableString({ maxLength: 254, format: 'email', singleLine: true })),
      phoneNumber: Type.Optional(NullableString({ maxLength: 50, singleLine: true })),
      address: AddressRequestSchema,
    },
    { additionalProperties: false },
  ),
)

// An item's fields as an order takes them. Quotes and previews take the same fields the same way (quote.schema.ts,
// preview.schema.ts): what can be quoted or previewed can be ordered, and the reverse.
export const ItemSkuSchema = NonBlankString({ maxLength: 100, singleLine: true })
export const ItemAttributesSchema = Type.Optional(
  Nullable(Type.Record(Type.String(), SingleLineString({ maxLength: 100 }), { maxProperties: 20 })),
)
export const AssetPrintAreaSchema = Type.Optional(
  NonBlankString({ maxLength: 50, singleLine: true, description: 'Print area; `default` when omitted.' }),
)
export const ASSET_MD5_HASH_PATTERN = '^[0-9a-fA-F]{32}$'

/** An asset's page count (books), with what the request it is part of does with it. */
export function AssetPageCountSchema(description?: string) {
  return Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 1,
        maximum: ORDER_LIMITS.maxPageCount,
        ...(description === undefined ? {} : { description }),
      }),
    ),
  )
}

const AssetRequestSchema = named(
  'AssetInput',
  Type.Object(
    {
      printArea: AssetPrintAreaSchema,
      url: UrlString('Public http(s) URL of the image or PDF, fetched exactly as given.'),
      md5Hash: Type.Optional(NullableString({ pattern: ASSET_MD5_HASH_PATTERN })),
      pageCount: AssetPageCountSchema(),
    },
    { additionalProperties: false },
  ),
)

export const RecipientCostRequestSchema = Type.Object(
  {
    amount: Type.String({ pattern: '^\\d{1,12}(\\.\\d{1,2})?$', description: 'Decimal amount, e.g. "15.00".' }),
    currency: Type.String({ pattern: '^[A-Za-z]{3}$' }),
  },
  { additionalProperties: false },
)

const ItemRequestSchema = named(
  'ItemInput',
  Type.Object(
    {
      merchantReference: Type.Optional(NullableString({ maxLength: ORDER_LIMITS.shortText, singleLine: true })),
      sku: ItemSkuSchema,
      copies: Type.Integer({ minimum: 1, maximum: ORDER_LIMITS.maxCopies }),
      sizing: CaseInsensitiveEnum(SIZING_MODES),
      recipientCost: Type.Optional(Nullable(RecipientCostRequestSchema)),
      attributes: ItemAttributesSchema,
      assets: Type.Array(AssetRequestSchema, { maxItems: ORDER_LIMITS.maxAssetsPerItem }),
    },
    { additionalProperties: false },
  ),
)

const BrandingEntryRequestSchema = Nullable(
  Type.Object({ url: UrlString('Public http(s) URL of the branded asset.') }, { additionalProperties: false }),
)

const BrandingRequestSchema = Type.Object(
  Object.fromEntries(BRANDING_KEYS.map((key) => [key, Type.Optional(BrandingEntryRequestSchema)])),
  { additionalProperties: false },
)

export const MetadataSchema = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Any JSON object, at most 2,000 characters serialised.',
})

/**
 * The create-order request's own header, declared so the OpenAPI document (and the SDK made from it) shows it. Any
 * string passes the schema: an unknown scenario is answered by the orders service, with the valid names.
 */
export const CreateOrderHeadersSchema = Type.Object({
  [SANDBOX_SCENARIO_HEADER.toLowerCase()]: Type.Optional(
    Type.String({
      description:
        `Sandbox only: the test scenario the order takes (docs/sandbox.md), one of ${SANDBOX_SCENARIOS.join(', ')}; ` +
        'wins over metadata.sandboxScenario. Live ignores it and answers with a Warning header.',
    }),
  ),
})

export const CreateOrderRequestSchema = named(
  'CreateOrderRequest',
  Type.Object(
    {
      merchantReference: Type.Optional(NullableString({ maxLength: ORDER_LIMITS.shortText, singleLine: true })),
      shippingMethod: CaseInsensitiveEnum(SHIPPING_METHODS),
      idempotencyKey: Type.Optional(NullableString({ maxLength: ORDER_LIMITS.shortText, singleLine: true })),
      callbackUrl: Type.Optional(NullableUrlString('Callback URL for this order; overrides the account setting.')),
      recipient: RecipientRequestSchema,
      branding: Type.Optional(Nullable(BrandingRequestSchema)),
      items: Type.Array(ItemRequestSchema, { minItems: 1, maxItems: ORDER_LIMITS.maxItems }),
      packingSlip: Type.Optional(
        Nullable(
          Type.Object({ url: UrlString('Public http(s) URL of the packing slip.') }, { additionalProperties: false }),
        ),
      ),
      metadata: Type.Optional(Nullable(MetadataSchema)),
      customs: Type.Optional(Nullable(OrderCustomsSchema)),
      deliverBy: Type.Optional(
        Nullable(
          IsoDate(
            "printroute's own: every shipment must arrive by this date; the cheapest plan that does is chosen, " +
              'and an order no plan can deliver in time is refused (DeliveryDateUnreachable).',
          ),
        ),
      ),
      quoteId: Type.Optional(
        NullableString({
          maxLength: 40,
          singleLine: true,
          description:
            'A quote (quo_...) from POST /quotes whose prices the order is charged; items, destination country and ' +
            'shipping method must match it and it must not have expired.',
        }),
      ),
      acceptUnverifiedAddress: Type.Optional(
        Nullable(
          Type.Boolean({
            description:
              "printroute's own: true accepts the recipient's address as sent even where it has a problem that " +
              'stops delivery (docs/addresses.md): no AddressUnverified issue, and no refusal in the refuse mode; ' +
              'advisories are still listed.',
          }),
        ),
      ),
      draft: Type.Optional(
        Nullable(
          Type.Boolean({
            description:
              "printroute's own: true creates a draft (docs/api.md#drafts-and-holds): validated, priced and stored " +
              'like any order and shown with draft: true, but not started (no charge, download or allocation) until ' +
              'POST /orders/{id}/actions/confirm; cancelled if not confirmed within 30 days.',
          }),
        ),
      ),
      holdUntil: Type.Optional(
        Nullable(
          Type.String({
            format: 'date-time',
            description:
              "printroute's own: keeps the order before production until this instant (after now, at most 14 days " +
              'ahead), like the account pause window but readable all along; POST /orders/{id}/actions/confirm ' +
              'releases it early.',
          }),
        ),
      ),
    },
    { additionalProperties: false },
  ),
)
export type CreateOrderRequest = Type.Static<typeof CreateOrderRequestSchema>

// ---- The order object (responses) ----

/**
 * An address as answers show it, named `name` in the OpenAPI document: the order's recipient (Address) and the
 * address check's suggestion (SuggestedAddress) have the same fields, so a client reads both alike.
 */
export function addressResponseSchema(name: string) {
  return named(
    name,
    Type.Object({
      line1: Type.String(),
      line2: Nullable(Type.String()),
      postalOrZipCode: Type.String(),
      countryCode: Type.String(),
      townOrCity: Type.String(),
      stateOrCounty: Nullable(Type.String()),
    }),
  )
}

const AddressSchema = addressResponseSchema('Address')

const RecipientSchema = named(
  'Recipient',
  Type.Object({
    name: Type.String(),
    email: Nullable(Type.String()),
    phoneNumber: Nullable(Type.String()),
    address: AddressSchema,
  }),
)

const AssetSchema = named(
  'Asset',
  Type.Object({
    id: Type.String(),
    printArea: Type.String(),
    url: Type.String(),
    thumbnailUrl: Nullable(Type.String()),
    md5Hash: Nullable(Type.String()),
    pageCount: Nullable(Type.Integer()),
    status: named('AssetStatus', StringEnum(ASSET_STATUSES)),
  }),
)

const ItemSchema = named(
  'Item',
  Type.Object({
    id: Type.String(),
    status: named('ItemStatus', StringEnum(ITEM_STATUSES)),
    merchantReference: Nullable(Type.String()),
    sku: Type.String(),
    copies: Type.Integer(),
    sizing: SizingSchema,
    thumbnailUrl: Nullable(Type.String()),
    recipientCost: Nullable(MoneySchema),
    attributes: Type.Record(Type.String(), Type.String()),
    assets: Type.Array(AssetSchema),
  }),
)

const IssueSchema = named(
  'Issue',
  Type.Object({
    objectId: Type.String(),
    errorCode: Type.String({
      description:
        `What the issue is: ${Object.values(ISSUE_CODES).join(', ')}. ` +
        'order.items.assets.LowResolution is a warning: the order goes on. More codes may be added.',
    }),
    description: Type.String(),
    authorisationDetails: Nullable(Type.Object({ authorisationUrl: Type.String(), paymentDetails: MoneySchema })),
  }),
)

const DetailState = named('DetailState', StringEnum(DETAIL_STATES))

const StatusSchema = named(
  'OrderStatus',
  Type.Object({
    stage: named('Stage', StringEnum(STAGES)),
    details: Type.Object({
      downloadAssets: DetailState,
      allocateProductionLocation: DetailState,
      printReadyAssetsPrepared: DetailState,
      inProduction: DetailState,
      shipping: DetailState,
    }),
    issues: Type.Array(IssueSchema),
  }),
)

const CarrierSchema = named('Carrier', Type.Object({ name: Type.String(), service: Type.String() }))
const FulfillmentLocationSchema = named(
  'FulfillmentLocation',
  Type.Object({ countryCode: Type.String(), labCode: Type.String() }),
)

/** A civil date, "YYYY-MM-DD" (a real calendar date is checked by the service). */
export function IsoDate(description: string) {
  return Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', format: 'date', description })
}

export const DeliveryWindowSchema = named(
  'DeliveryWindow',
  Type.Object(
    {
      from: IsoDate('The earliest usual delivery date.'),
      to: IsoDate('The latest date of the promise.'),
    },
    { description: "printroute's own: when the parcel is expected (docs/api.md#delivery-estimates)." },
  ),
)

const DeliveryStatusSchema = named(
  'ShipmentDeliveryStatus',
  StringEnum(
    DELIVERY_STATUSES,
    "printroute's own: where a shipped parcel is, from its carrier's scans (forward only).",
  ),
)

const TrackingEventSchema = named(
  'TrackingEvent',
  Type.Object({
    time: Type.String({ format: 'date-time' }),
    status: DeliveryStatusSchema,
    description: Type.String(),
    location: Type.Optional(Type.String()),
  }),
)

const TrackingSchema = named('Tracking', Type.Object({ number: Type.String(), url: Type.String() }))

const ShipmentSchema = named(
  'Shipment',
  Type.Object({
    id: Type.String(),
    dispatchDate: Nullable(Type.String()),
    carrier: CarrierSchema,
    fulfillmentLocation: FulfillmentLocationSchema,
    tracking: Nullable(TrackingSchema),
    items: Type.Array(Type.Object({ itemId: Type.String() })),
    status: named('ShipmentStatus', StringEnum(SHIPMENT_STATUSES)),
    cancelled: Type.Boolean(),
    estimatedDispatchDate: Type.Optional(
      IsoDate("printroute's own: when the lab is expected to dispatch; after dispatch, the real date."),
    ),
    estimatedDelivery: Type.Optional(DeliveryWindowSchema),
    parcels: Type.Optional(
      Type.Array(
        named(
          'Parcel',
          Type.Object({
            items: Type.Array(Type.Object({ itemId: Type.String() })),
            carrier: CarrierSchema,
            tracking: Nullable(TrackingSchema),
            dispatchDate: Type.String({ format: 'date-time' }),
          }),
        ),
        {
          description:
            "printroute's own (docs/api.md#parcels): the parcels the lab dispatched, in the order it reported them; " +
            "absent until the first. While some items have not shipped, the shipment's carrier, tracking and " +
            "dispatchDate are its first parcel's; once every item has shipped, its last parcel's.",
        },
      ),
    ),
    deliveryStatus: Type.Optional(DeliveryStatusSchema),
    trackingEvents: Type.Optional(
      Type.Array(TrackingEventSchema, { description: "printroute's own: the carrier's scans, oldest first." }),
    ),
    deliveredAt: Type.Optional(
      Type.String({ format: 'date-time', description: "printroute's own: the time of the Delivered scan." }),
    ),
    deliveredLate: Type.Optional(
      Type.Boolean({ description: "printroute's own: delivered after the promised estimatedDelivery.to." }),
    ),
    reprintOf: Type.Optional(
      Type.String({
        description:
          "printroute's own (docs/claims.md#reprints): this shipment reprints the claimed items of that shipment; absent on every other shipment.",
      }),
    ),
    claimId: Type.Optional(
      Type.String({ description: "printroute's own: with reprintOf, the claim (clm_) the reprint resolves." }),
    ),
  }),
)

const ChargeTypeSchema = named('ChargeType', StringEnum(CHARGE_TYPES))

/** One credit on the order (docs/billing.md#late-delivery-credits): the order's `credits[]` and an event's `credit`. */
export const OrderCreditSchema = named(
  'OrderCredit',
  Type.Object({
    id: Type.String({ description: 'crd_<number>.' }),
    reason: named(
      'CreditReason',
      StringEnum(
        CREDIT_REASONS,
        'LateDelivery: a shipment on a guaranteed shipping method delivered after its promise; Claim: a claim upheld.',
      ),
    ),
    shipmentId: Nullable(Type.String({ description: 'The shipment credited; null for a credit of the whole order.' })),
    amount: named(
      'CreditAmount',
      Type.Object(
        {
          amount: Type.String({ description: 'What was credited, tax included: a positive decimal with two places.' }),
          currency: Type.String({ description: 'ISO 4217 currency code.' }),
        },
        { additionalProperties: false },
      ),
    ),
    creditNote: Nullable(
      Type.String({ description: 'The credit note issued for it (CN-000012; Sandbox SBX-CN-000003).' }),
    ),
    issuedAt: Type.String({ format: 'date-time' }),
    claimId: Type.Optional(Type.String({ description: 'With reason Claim: the claim it settles.' })),
  }),
)

const ChargeSchema = named(
  'Charge',
  Type.Object({
    id: Type.String(),
    chargeType: ChargeTypeSchema,
    prodigiInvoiceNumber: Nullable(Type.String()),
    totalCost: MoneySchema,
    totalTax: MoneySchema,
    items: Type.Array(
      named(
        'ChargeItem',
        Type.Object({
          id: Type.String(),
          chargeType: ChargeTypeSchema,
          itemId: Nullable(Type.String()),
          shipmentId: Nullable(Type.String()),
          cost: MoneySchema,
        }),
      ),
    ),
  }),
)

const BrandingSchema = named(
  'Branding',
  Type.Object(Object.fromEntries(BRANDING_KEYS.map((key) => [key, Nullable(Type.Object({ url: Type.String() }))]))),
)

export const OrderSchema = named(
  'Order',
  Type.Object({
    id: Type.String({ description: 'Order ID, prefix ord_.' }),
    created: Type.String({ format: 'date-time' }),
    lastUpdated: Type.String({ format: 'date-time' }),
    callbackUrl: Nullable(Type.String()),
    merchantReference: Nullable(Type.String()),
    shippingMethod: ShippingMethodSchema,
    idempotencyKey: Nullable(Type.String()),
    status: StatusSchema,
    charges: Type.Array(ChargeSchema),
    shipments: Type.Array(ShipmentSchema),
    recipient: RecipientSchema,
    branding: Nullable(BrandingSchema),
    items: Type.Array(ItemSchema),
    packingSlip: Nullable(
      named(
        'PackingSlip',
        Type.Object({ url: Type.String(), status: named('PackingSlipStatus', StringEnum(PACKING_SLIP_STATUSES)) }),
      ),
    ),
    metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
    quoteId: Type.Optional(
      Type.String({ description: 'The quote whose prices the order is charged; present only on such orders.' }),
    ),
    deliverBy: Type.Optional(IsoDate("printroute's own: the date every shipment must arrive by, when given.")),
    customs: Type.Optional(OrderCustomsSchema),
    holdUntil: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          "printroute's own: the per-order hold's end (the instant it was released, once released early); only on " +
          'orders created with holdUntil.',
      }),
    ),
    draft: Type.Optional(
      Type.Boolean({
        description: "printroute's own: present, always true, only while the order is a draft; absent once confirmed.",
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: "printroute's own: with draft, when the draft is cancelled unless confirmed before.",
      }),
    ),
    addressAdvisories: Type.Optional(
      Type.Array(
        named(
          'AddressAdvisory',
          Type.Object({
            field: Type.String({ description: 'The order field: recipient.phoneNumber, recipient.address.line1, ...' }),
            code: StringEnum(ADDRESS_PROBLEM_CODES),
            message: Type.String(),
          }),
        ),
        {
          description:
            "printroute's own: address problems that do not stop delivery (a phone number an express courier asks " +
            'for, a line longer than couriers print, a missing state where the postcode routes the parcel); they ' +
            'never change the outcome. Absent when there are none (docs/addresses.md).',
        },
      ),
    ),
    estimatedDispatchDate: Type.Optional(
      IsoDate("printroute's own: the latest estimated dispatch date of the shipments; absent until allocated."),
    ),
    estimatedDelivery: Type.Optional(DeliveryWindowSchema),
    deliveredAt: Type.Optional(
      Type.String({ format: 'date-time', description: "printroute's own: when the last shipment was delivered." }),
    ),
    deliveredLate: Type.Optional(
      Type.Boolean({ description: "printroute's own: whether any shipment was delivered after its promise." }),
    ),
    credits: Type.Optional(
      Type.Array(OrderCreditSchema, {
        description:
          "printroute's own: credits given back on the order, oldest first (a late delivery on a guaranteed shipping " +
          'method, docs/billing.md#late-delivery-credits); each is also a Refund charge with its credit note. ' +
          'Absent until the first.',
      }),
    ),
  }),
)

/** `{outcome, order, traceParent}`: the envelope of every answer carrying one order. */
export function orderEnvelope<T extends string>(name: string, outcome: TUnsafe<T>) {
  return outcomeResponse(name, outcome, { order: OrderSchema })
}

export const OrderResponseSchema = orderEnvelope('OrderResponse', OkOutcome)

export const CreatedOrderResponseSchema = orderEnvelope(
  'CreatedOrderResponse',
  Outcome(
    'CreateOrderOutcome',
    ['Created', 'CreatedWithIssues', 'AlreadyExists'] as const,
    'Created (address problems that do not stop delivery, if any, in addressAdvisories); CreatedWithIssues when ' +
      'the recipient address has a problem that stops delivery (the order is created with ' +
      'order.recipient.AddressUnverified issues); AlreadyExists for a repeated idempotencyKey (the existing order ' +
      'is returned).',
  ),
)

/** Create's answer for an order held in the pause window: only its ID (specification, "Order transitions"). */
export const OnHoldResponseSchema = outcomeResponse(
  'OnHoldResponse',
  Outcome(
    'OnHoldOutcome',
    ['OnHold', 'AlreadyExists'] as const,
    'OnHold, or AlreadyExists for a repeated key while still on hold.',
  ),
  { order: Type.Object({ id: Type.String() }) },
)

/** Create's answer: the order, or only its ID while it waits in the pause window (served as text, not serialised). */
export const CreateOrderResponseSchema = Type.Union([CreatedOrderResponseSchema, OnHoldResponseSchema])

export const OrderIdParamsSchema = Type.Object({
  // The format (ord_<number>) is checked by the orders service, which names it in the failure.
  orderId: Type.String({ maxLength: 40, description: 'Order ID, e.g. ord_1042.' }),
})

export const ListOrdersQuerySchema = Type.Object(
  {
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: ORDER_LIMITS.maxSkip, default: 0 })),
    createdFrom: Type.Optional(Type.String({ format: 'date-time' })),
    createdTo: Type.Optional(Type.String({ format: 'date-time' })),
    status: Type.Optional(CaseInsensitiveEnum(ORDER_LIST_STATUSES)),
    orderIds: Type.Optional(
      Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100, description: 'Repeated or comma-separated.' }),
    ),
    merchantReferences: Type.Optional(
      Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100, description: 'Repeated or comma-separated.' }),
    ),
    search: Type.Optional(
      SingleLineString({
        maxLength: ORDER_LIMITS.shortText,
        description:
          "printroute's addition: the order with this id (ord_123 or 123), or orders whose merchant reference " +
          'contains the text, in any letter case.',
      }),
    ),
  },
  { additionalProperties: false },
)
export type ListOrdersQuery = Type.Static<typeof ListOrdersQuerySchema>

export const ListOrdersResponseSchema = outcomeResponse('OrderListResponse', OkOutcome, {
  orders: Type.Array(OrderSchema),
  hasMore: Type.Boolean(),
  nextUrl: Nullable(Type.String()),
})
