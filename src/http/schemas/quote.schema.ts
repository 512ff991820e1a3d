// Quotes on the wire (docs/wire-contract.md#quotes): the request and the answer, keys in the contract's order. Items
// carry what prices an item, within the order limits of order.schema.ts, so anything quotable can be ordered and
// the reverse; printroute's optional asset `url` and item `sizing` only ask for resolution warnings.
import { Type } from 'typebox'
import { COLLECTED_BY } from '../../domain/customs.ts'
import { SHIPPING_METHODS, SIZING_MODES } from '../../domain/shipping-methods.ts'
import {
  CaseInsensitiveEnum,
  MoneySchema,
  Nullable,
  NullableString,
  named,
  Outcome,
  StringEnum,
  TraceParent,
  UrlString,
} from './common.schema.ts'
import {
  AssetPageCountSchema,
  AssetPrintAreaSchema,
  DeliveryWindowSchema,
  IncotermSchema,
  IsoDate,
  ItemAttributesSchema,
  ItemSkuSchema,
  ORDER_LIMITS,
  RecipientCostRequestSchema,
} from './order.schema.ts'
import { QuoteWarningSchema } from './preview.schema.ts'

const QuoteAssetRequestSchema = Type.Object(
  {
    printArea: AssetPrintAreaSchema,
    pageCount: AssetPageCountSchema(
      'Pages of the book file; required on the page print area of page-priced products (books).',
    ),
    url: Type.Optional(UrlString("printroute's own: the image's URL, downloaded to check its resolution (warnings).")),
  },
  { additionalProperties: false },
)

const QuoteItemRequestSchema = named(
  'QuoteItemInput',
  Type.Object(
    {
      sku: ItemSkuSchema,
      copies: Type.Integer({ minimum: 1, maximum: ORDER_LIMITS.maxCopies }),
      attributes: ItemAttributesSchema,
      assets: Type.Array(QuoteAssetRequestSchema, { maxItems: ORDER_LIMITS.maxAssetsPerItem }),
      // printroute's own: the declared value of one copy, as an order's; omitted: the quoted unit cost.
      recipientCost: Type.Optional(Nullable(RecipientCostRequestSchema)),
      sizing: Type.Optional(
        CaseInsensitiveEnum(
          SIZING_MODES,
          "printroute's own: the sizing of asset URLs' resolution check; fillPrintArea.",
        ),
      ),
    },
    { additionalProperties: false },
  ),
)

export const CreateQuoteRequestSchema = named(
  'CreateQuoteRequest',
  Type.Object(
    {
      shippingMethod: Type.Optional(
        Nullable(CaseInsensitiveEnum(SHIPPING_METHODS, 'Quote this method only; omitted: every method that serves.')),
      ),
      destinationCountryCode: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter ISO 3166-1 code.' }),
      currencyCode: Type.Optional(
        NullableString({
          pattern: '^[A-Za-z]{3}$',
          description: "ISO 4217 code; omitted: the account's billing currency.",
        }),
      ),
      items: Type.Array(QuoteItemRequestSchema, { minItems: 1, maxItems: ORDER_LIMITS.maxItems }),
      customs: Type.Optional(
        Nullable(
          Type.Object(
            { incoterm: IncotermSchema },
            {
              additionalProperties: false,
              description:
                "printroute's own: quote DDP (the total includes the duties printroute prepays) or DAP; omitted: DAP.",
            },
          ),
        ),
      ),
      deliverBy: Type.Optional(
        Nullable(
          IsoDate(
            "printroute's own: quote the cheapest plan whose every shipment arrives by this date; when none can, " +
              'the quote carries a DeliveryDateUnreachable issue with the earliest date any plan reaches.',
          ),
        ),
      ),
    },
    { additionalProperties: false },
  ),
)
export type CreateQuoteRequest = Type.Static<typeof CreateQuoteRequestSchema>

const QuoteItemId = Type.String({ pattern: '^qit_[0-9a-f]{32}$', description: 'Quote item id, qit_ + 32 hex.' })

const QuoteShipmentCustomsSchema = named(
  'QuoteShipmentCustoms',
  Type.Object(
    {
      incoterm: IncotermSchema,
      // Duties plus import tax due at the border; null where no customs border is crossed or the catalogue has no
      // import rule for the destination (then unknown); 0.00 under a low-value threshold (docs/api.md).
      dutiesAndTaxes: Nullable(MoneySchema),
      collectedBy: StringEnum(
        COLLECTED_BY,
        'Who pays them: merchant (DDP, or VAT charged at sale), recipient (DAP, on delivery), ioss (VAT charged at ' +
          'sale under the EU IOSS), none (nothing due).',
      ),
      basis: Type.String({ description: 'Why, in words: the rule, its threshold and rates, its date and source.' }),
    },
    { description: "printroute's own: the shipment's customs at its destination (docs/api.md#customs-and-duties)." },
  ),
)

const QuoteSchema = named(
  'Quote',
  Type.Object({
    id: Type.String({
      pattern: '^quo_[0-9]+$',
      description: "Quote id: an order created with it as `quoteId` is charged this quote's prices.",
    }),
    shipmentMethod: StringEnum(SHIPPING_METHODS, 'The shipping method of this quote (the contract spells it so).'),
    costSummary: Type.Object({
      items: MoneySchema,
      shipping: MoneySchema,
      totalCost: MoneySchema,
      totalTax: MoneySchema,
      // printroute's own, on a DDP quote only: the duties and import taxes printroute prepays, in totalCost.
      dutiesAndTaxes: Type.Optional(MoneySchema),
    }),
    shipments: Type.Array(
      Type.Object({
        carrier: Type.Object({ name: Type.String(), service: Type.String() }),
        fulfillmentLocation: Type.Object({ countryCode: Type.String(), labCode: Type.String() }),
        cost: MoneySchema,
        tax: MoneySchema,
        items: Type.Array(QuoteItemId),
        estimatedDispatchDate: Type.Optional(IsoDate("printroute's own: when the lab is expected to dispatch.")),
        estimatedDelivery: Type.Optional(DeliveryWindowSchema),
        // Optional to the serializer only, which writes required keys first: present on every shipment, it
        // goes after the estimate, so the keys clients know keep their places.
        customs: Type.Optional(QuoteShipmentCustomsSchema),
      }),
    ),
    items: Type.Array(
      Type.Object({
        id: QuoteItemId,
        sku: Type.String(),
        copies: Type.Integer(),
        unitCost: MoneySchema,
        taxUnitCost: MoneySchema,
        attributes: Type.Record(Type.String(), Type.String()),
        assets: Type.Array(Type.Object({ printArea: Type.String(), pageCount: Nullable(Type.Integer()) })),
      }),
    ),
    expiresAt: Type.String({
      format: 'date-time',
      description: "Until when an order can use this quote's prices (7 days by default).",
    }),
    usableForOrders: Type.Boolean({
      description:
        "printroute's own: whether an order can use this quote. Only a quote in the account's billing currency " +
        '(in which orders are charged) can; an order naming any other is refused with CurrencyDiffersFromQuote.',
    }),
    priceList: Type.Optional(
      Type.String({
        description:
          "printroute's own: the price list the quote's figures come from (docs/billing.md#price-lists): the " +
          "account's, else the catalogue's default list. Absent when they are the labs' costs (no list applies).",
      }),
    ),
    estimatedDispatchDate: Type.Optional(
      IsoDate("printroute's own: the latest of the shipments' estimated dispatch dates."),
    ),
    estimatedDelivery: Type.Optional(DeliveryWindowSchema),
    guarantee: Type.Optional(
      Type.Object(
        {
          creditPercent: Type.String({
            description: 'The share of a late shipment\'s charged shipping (cost and tax) credited, like "50".',
          }),
        },
        {
          description:
            "printroute's own: the shipping method is guaranteed (docs/billing.md#late-delivery-credits): a shipment " +
            'delivered after its promise is credited this share of its shipping by itself. Absent: no guarantee.',
        },
      ),
    ),
  }),
)

export const QuoteResponseSchema = named(
  'QuoteResponse',
  Type.Object({
    outcome: Outcome('QuoteOutcome', ['Created', 'CreatedWithIssues'] as const),
    quotes: Type.Array(QuoteSchema),
    issues: Type.Array(
      named(
        'QuoteIssue',
        Type.Object({
          errorCode: Type.String(),
          description: Type.String(),
          earliestDeliveryDate: Type.Optional(
            IsoDate(
              "printroute's own, on DeliveryDateUnreachable: the earliest date any plan of the method delivers by.",
            ),
          ),
        }),
      ),
    ),
    traceParent: TraceParent,
    warnings: Type.Optional(Type.Array(QuoteWarningSchema, { description: 'Only when an asset carries a url.' })),
  }),
)
