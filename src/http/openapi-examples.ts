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
