// The order every API benchmark sends: two items, three assets, a typical real order.
export const BENCH_ORDER = {
  merchantReference: 'bench-order',
  shippingMethod: 'Standard',
  recipient: {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    phoneNumber: '+44 20 7946 0000',
    address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
  },
  items: [
    {
      sku: 'GLOBAL-CAN-10x10',
      copies: 1,
      sizing: 'fillPrintArea',
      attributes: { wrap: 'ImageWrap' },
      assets: [{ printArea: 'default', url: 'https://images.example.com/canvas.jpg' }],
    },
    {
      sku: 'GLOBAL-TEE-BC-3001',
      copies: 2,
      sizing: 'fitPrintArea',
      attributes: { color: 'black', size: 'm' },
      assets: [
        { printArea: 'front', url: 'https://images.example.com/front.png' },
        { printArea: 'back', url: 'https://images.example.com/back.png' },
      ],
    },
  ],
  metadata: { shopOrderId: 5521 },
}
