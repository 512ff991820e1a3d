import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import type { OrderDocument } from '../domain/order.ts'
import { allocateOrderItems } from './order-allocation.ts'

const catalogue = loadCatalogue()

/** A book order whose spine asset is listed first and carries a (meaningless) page count of its own. */
function bookOrder(pages: number): OrderDocument {
  return {
    id: 'ord_1',
    shippingMethod: 'Standard',
    recipient: { address: { countryCode: 'GB' } },
    items: [
      {
        id: 'ori_1',
        sku: 'BOOK-A4-L-HARD-M',
        copies: 1,
        attributes: {},
        assets: [
          { id: 'ast_1', printArea: 'spine', pageCount: 1 },
          { id: 'ast_2', printArea: 'default', pageCount: pages },
        ],
      },
    ],
  } as unknown as OrderDocument
}

test('books are priced by the page count of the page print area, whatever the order of the assets', () => {
  const price = (pages: number) => {
    const result = allocateOrderItems(catalogue, {
      order: bookOrder(pages),
      itemIds: ['ori_1'],
      excludedLabsByItem: {},
      currency: 'GBP',
    })
    assert.ok(result.ok)
    return result.shipments[0]?.price.items[0]?.unitCost as bigint
  }
  const product = catalogue.findProduct('BOOK-A4-L-HARD-M')
  const pricing = product?.pagePricing
  assert.ok(pricing)
  // More pages than the base cost more; the spine asset's page count plays no part.
  assert.ok(price(pricing.basePages + 40) > price(pricing.basePages))
  assert.equal(
    price(pricing.basePages),
    price(pricing.minimumPages < pricing.basePages ? pricing.minimumPages : pricing.basePages),
  )
})
