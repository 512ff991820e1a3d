// Examples in the OpenAPI document (test/http/openapi.test.ts validates each against its schema). The order
// answer is built by the domain's own builder, so it has exactly the shape and key order the API serves.
import { buildNewOrderDocument } from '../domain/order.ts'

const recipient = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phoneNumber: '+44 20 7946 0000',
  address: {
    line1: '14 Test Street',
    line2: null,
    postalOrZipCode: 'EC1A 1BB',
    countryCode: 'GB',
    townOrCity: 'London',
    stateOrCounty: null,
  },
}

export const createOrderRequestExample = {
  merchantReference: 'MR-1001',
  shippingMethod: 'Standard',
  idempotencyKey: 'shop-order-1001',
  recipient,
  items: [
    {
      merchantReference: 'item-1',
      sku: 'GLOBAL-CAN-10x10',
      copies: 2,
      sizing: 'fillPrintArea',
      attributes: { wrap: 'ImageWrap' },
      assets: [{ printArea: 'default', url: 'https://images.example.com/canvas.jpg' }],
    },
  ],
  metadata: { shopOrder: 1001 },
}

const exampleOrder = buildNewOrderDocument(
  {
    merchantReference: 'MR-1001',
    shippingMethod: 'Standard',
    idempotencyKey: 'shop-order-1001',
    callbackUrl: null,
    recipient,
    branding: null,
    packingSlip: null,
    metadata: { shopOrder: 1001 },
    items: [
      {
        merchantReference: 'item-1',
        sku: 'GLOBAL-CAN-10x10',
        copies: 2,
        sizing: 'fillPrintArea',
        recipientCost: null,
        attributes: { wrap: 'ImageWrap' },
        assets: [
          {
            printArea: 'default',
            url: 'https://images.example.com/canvas.jpg',
            md5Hash: null,
            pageCount: null,
          },
        ],
      },
    ],
  },
  { order: 'ord_1042', items: ['ori_2001'], assets: ['ast_3001'] },
  new Date('2026-03-01T09:00:00.000Z'),
)

const TRACE_PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'

export const createOrderResponseExample = { outcome: 'Created', order: exampleOrder, traceParent: TRACE_PARENT }

export const createQuoteRequestExample = {
  shippingMethod: 'Standard',
  destinationCountryCode: 'GB',
  currencyCode: 'GBP',
  items: [
    { sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'ImageWrap' }, assets: [{ printArea: 'default' }] },
  ],
}

const money = (amount: string) => ({ amount, currency: 'GBP' })
const QUOTE_ITEM_ID = 'qit_9e915df3a2ba871d1b84f16c1626fb6a'
/** uk6's promise for a canvas quoted on Sunday 1 March 2026 (docs/api.md#delivery-estimates). */
const QUOTE_ESTIMATE = {
  estimatedDispatchDate: '2026-03-05',
  estimatedDelivery: { from: '2026-03-09', to: '2026-03-10' },
}

export const createQuoteResponseExample = {
  outcome: 'Created',
  quotes: [
    {
      id: 'quo_12',
      shipmentMethod: 'Standard',
      costSummary: {
        items: money('14.37'),
        shipping: money('9.95'),
        totalCost: money('29.18'),
        totalTax: money('4.86'),
      },
      shipments: [
        {
          carrier: { name: 'Royal Mail', service: 'Tracked 48' },
          fulfillmentLocation: { countryCode: 'GB', labCode: 'uk6' },
          cost: money('9.95'),
          tax: money('1.99'),
          items: [QUOTE_ITEM_ID],
          ...QUOTE_ESTIMATE,
          customs: {
            incoterm: 'DAP',
            dutiesAndTaxes: null,
            collectedBy: 'none',
            basis: 'Domestic shipment (GB to GB): no customs.',
          },
        },
      ],
      items: [
        {
          id: QUOTE_ITEM_ID,
          sku: 'GLOBAL-CAN-10x10',
          copies: 1,
          unitCost: money('14.37'),
          taxUnitCost: money('2.87'),
          attributes: { wrap: 'ImageWrap' },
          assets: [{ printArea: 'default', pageCount: null }],
        },
      ],
      expiresAt: '2026-03-08T09:00:00.000Z',
      usableForOrders: true,
      ...QUOTE_ESTIMATE,
    },
  ],
  issues: [],
  traceParent: TRACE_PARENT,
}

export const getProductResponseExample = {
  outcome: 'Ok',
  product: {
    sku: 'GLOBAL-CAN-10x10',
    description: 'Stretched canvas, 10x10", 38mm deep',
    productDimensions: { width: 10, height: 10, units: 'in' },
    attributes: { wrap: ['Black', 'ImageWrap', 'MirrorWrap', 'White'] },
    printAreas: { default: { required: true } },
    variants: [
      {
        attributes: { wrap: 'ImageWrap' },
        shipsTo: ['GB', 'US'],
        printAreaSizes: { default: { horizontalResolution: 3000, verticalResolution: 3000 } },
      },
    ],
  },
  traceParent: TRACE_PARENT,
}

export const createPreviewRequestExample = {
  sku: 'GLOBAL-CAN-10x10',
  attributes: { wrap: 'MirrorWrap' },
  sizing: 'fillPrintArea',
  assets: [{ printArea: 'default', url: 'https://images.example.com/canvas.jpg' }],
}

const PREVIEW_LINK_QUERY = 'expires=1741424400&signature=3q2-7wAAAAA'

export const createPreviewResponseExample = {
  outcome: 'Created',
  previews: [
    {
      printArea: 'default',
      previewUrl: `https://sandbox.printroute.example/files/product-previews/5f0c9a1e-preview.jpg?${PREVIEW_LINK_QUERY}`,
      mockupUrl: `https://sandbox.printroute.example/files/product-previews/5f0c9a1e-mockup.jpg?${PREVIEW_LINK_QUERY}`,
      width: 800,
      height: 800,
      rotated: false,
      crop: { left: 150, top: 0, width: 600, height: 600 },
      effectiveDpi: 60,
      warnings: [
        {
          code: 'LowResolution',
          printArea: 'default',
          effectiveDpi: 60,
          minimumDpi: 100,
          message:
            'The 900 x 600 px image prints at 60 dpi on print area default of GLOBAL-CAN-10x10, below the 100 dpi ' +
            'it needs to print sharply: it may look soft or pixelated.',
        },
      ],
      expiresAt: '2026-03-02T09:00:00.000Z',
    },
  ],
  traceParent: TRACE_PARENT,
}

/** Two canvases to the US: each from the cheapest lab that makes it, which splits the order and saves. */
export const getOrderRoutingResponseExample = {
  outcome: 'Ok',
  routing: {
    orderId: 'ord_1042',
    quoteId: null,
    destinationCountryCode: 'US',
    currency: 'GBP',
    allocations: [
      {
        basis: 'Allocation',
        at: '2026-03-01T09:00:05.000Z',
        shippingMethod: 'Standard',
        items: [
          {
            itemId: 'ori_2001',
            chosenLabCode: 'us1',
            labsConsidered: [
              { labCode: 'us1', labCountryCode: 'US', productionCost: money('12.10'), shippingCost: money('6.50') },
              { labCode: 'uk6', labCountryCode: 'GB', productionCost: money('14.37'), shippingCost: money('18.95') },
            ],
            labsExcluded: [{ labCode: 'nl1', reason: 'DoesNotShipThere' }],
          },
          {
            itemId: 'ori_2002',
            chosenLabCode: 'uk6',
            labsConsidered: [
              { labCode: 'uk6', labCountryCode: 'GB', productionCost: money('9.80'), shippingCost: money('18.95') },
            ],
            labsExcluded: [
              { labCode: 'us1', reason: 'DoesNotMakeProduct' },
              { labCode: 'nl1', reason: 'DoesNotShipThere' },
            ],
          },
        ],
        chosenPlan: {
          shipments: [
            {
              labCode: 'us1',
              labCountryCode: 'US',
              itemIds: ['ori_2001'],
              itemsCost: money('12.10'),
              shippingCost: money('6.50'),
              totalCost: money('18.60'),
            },
            {
              labCode: 'uk6',
              labCountryCode: 'GB',
              itemIds: ['ori_2002'],
              itemsCost: money('9.80'),
              shippingCost: money('18.95'),
              totalCost: money('28.75'),
            },
          ],
          totalCost: money('47.35'),
        },
        bestUnsplitPlan: {
          shipments: [
            {
              labCode: 'uk6',
              labCountryCode: 'GB',
              itemIds: ['ori_2001', 'ori_2002'],
              itemsCost: money('24.17'),
              shippingCost: money('24.45'),
              totalCost: money('48.62'),
            },
          ],
          totalCost: money('48.62'),
        },
        splitSaving: money('1.27'),
        unavailableItemIds: [],
      },
    ],
    amounts: 'LabCosts',
  },
  traceParent: TRACE_PARENT,
}

export const createWebhookRequestExample = {
  url: 'https://shop.example.com/printroute/shipments',
  description: 'EU shop: shipment updates',
  eventTypes: ['com.printroute.order.shipments.*'],
  metadataFilter: { channel: 'shop-eu' },
}

export const createWebhookResponseExample = {
  outcome: 'Created',
  webhook: {
    id: 'whk_12',
    ...createWebhookRequestExample,
    enabled: true,
    disabledReason: null,
    disabledAt: null,
    failingSince: null,
    lastAttemptAt: null,
    lastSuccessAt: null,
    signingSecretPrefix: 'whsec_MfKQ',
    previousSigningSecretExpiresAt: null,
    created: '2026-03-08T09:00:00.000Z',
    lastUpdated: '2026-03-08T09:00:00.000Z',
  },
  signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  traceParent: TRACE_PARENT,
}
