import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import type { OrderDocument } from '../domain/order.ts'
import { type AllocationRequest, allocateOrderItems, allocateSplit } from './order-allocation.ts'

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

/** Canvases to the UK by Standard: two labs make them (nl1, uk6); one lab is cheapest for all of them. */
function canvasRequest(count: number, excludedLabsByItem: Record<string, string[]> = {}): AllocationRequest {
  const items = Array.from({ length: count }, (_, index) => ({
    id: `ori_${index + 1}`,
    sku: 'GLOBAL-CAN-10x10',
    copies: 1,
    attributes: { wrap: 'Black' },
    assets: [],
  }))
  const order = { id: 'ord_1', shippingMethod: 'Standard', recipient: { address: { countryCode: 'GB' } }, items }
  return {
    order: order as unknown as OrderDocument,
    itemIds: items.map((item) => item.id),
    excludedLabsByItem,
    currency: 'GBP',
  }
}

test('allocateSplit uses two labs where the cheapest allocation uses one; one item or one lab stays as it is', () => {
  const allocate = (request: AllocationRequest) => allocateOrderItems(catalogue, request)
  const labsOf = (result: ReturnType<typeof allocate>) =>
    result.ok ? result.shipments.map((shipment) => [shipment.labCode, shipment.itemIds]) : result
  assert.deepEqual(labsOf(allocate(canvasRequest(2))), [['uk6', ['ori_1', 'ori_2']]])
  assert.deepEqual(labsOf(allocateSplit(allocate, canvasRequest(2))), [
    ['nl1', ['ori_2']],
    ['uk6', ['ori_1']],
  ])
  assert.deepEqual(labsOf(allocateSplit(allocate, canvasRequest(3))), [
    ['nl1', ['ori_3']],
    ['uk6', ['ori_1', 'ori_2']],
  ])
  assert.deepEqual(labsOf(allocateSplit(allocate, canvasRequest(1))), [['uk6', ['ori_1']]])
  // With nl1 out for every item, no other lab is left: the one-lab allocation stands.
  const noSecondLab = canvasRequest(2, { ori_1: ['nl1'], ori_2: ['nl1'] })
  assert.deepEqual(labsOf(allocateSplit(allocate, noSecondLab)), [['uk6', ['ori_1', 'ori_2']]])
})
