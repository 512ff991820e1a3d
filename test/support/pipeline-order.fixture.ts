// An order as the pipeline's transitions take it, for the unit tests of domain/pipeline/: one item with
// `assetCount` assets (their URLs carry a query that issues must not show) and a packing slip, not yet started;
// `stored` is what a download keeps of a file.
import { buildNewOrderDocument, type NewOrder, type OrderDocument } from '../../src/domain/order.ts'
import { emptyPipeline, type PipelineState } from '../../src/domain/pipeline/pipeline-order.ts'

export const now = new Date('2026-03-01T09:00:00.000Z')
export const stored = {
  blobKey: 'assets/ord_1/ast_1',
  contentType: 'image/jpeg',
  bytes: 10,
  md5: 'x',
  width: null,
  height: null,
}

export function newOrder(assetCount = 1): { order: OrderDocument; pipeline: PipelineState } {
  const input: NewOrder = {
    merchantReference: null,
    shippingMethod: 'Standard',
    idempotencyKey: null,
    callbackUrl: null,
    recipient: {
      name: 'A',
      email: null,
      phoneNumber: null,
      address: {
        line1: 'l',
        line2: null,
        postalOrZipCode: 'p',
        countryCode: 'GB',
        townOrCity: 't',
        stateOrCounty: null,
      },
    },
    branding: null,
    packingSlip: { url: 'https://x.test/slip.pdf' },
    metadata: null,
    items: [
      {
        merchantReference: null,
        sku: 'GLOBAL-FAP-16x24',
        copies: 1,
        sizing: 'fillPrintArea',
        recipientCost: null,
        attributes: {},
        assets: Array.from({ length: assetCount }, (_, index) => ({
          printArea: 'default',
          url: `https://x.test/a${index}.jpg?sig=secret`,
          md5Hash: null,
          pageCount: null,
        })),
      },
    ],
  }
  const assets = Array.from({ length: assetCount }, (_, index) => `ast_${index + 1}`)
  const order = buildNewOrderDocument(input, { order: 'ord_1', items: ['ori_1'], assets }, now)
  return { order, pipeline: emptyPipeline() }
}
