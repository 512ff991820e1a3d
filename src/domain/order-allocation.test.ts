import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import type { OrderDocument } from './order.ts'
import { type AllocationRequest, allocateInScenario, allocateOrderItems, allocateSplit } from './order-allocation.ts'

tier('pure')

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

/** Every item's excluded labs as `lab: reason`, from the routing of an explained allocation. */
function exclusionsOf(result: ReturnType<typeof allocateOrderItems>): Record<string, Record<string, string>> {
  assert.ok(result.routing, 'explained')
  return Object.fromEntries(
    result.routing.items.map((item) => [
      item.itemId,
      Object.fromEntries(item.labsExcluded.map((lab) => [lab.labCode, lab.reason])),
    ]),
  )
}

const explained = (request: AllocationRequest): AllocationRequest => ({
  ...request,
  explain: { basis: 'Allocation', at: new Date('2026-03-01T10:00:00Z') },
})

test('a split scenario names the labs it kept away SandboxScenario, not Rejected', () => {
  const allocate = (request: AllocationRequest) => allocateOrderItems(catalogue, request)
  const split = allocateInScenario(catalogue, allocate, 'splitShipments', true, explained(canvasRequest(2)))
  assert.ok(split.ok)
  assert.deepEqual(
    split.shipments.map((shipment) => shipment.labCode),
    ['nl1', 'uk6'],
  )
  const reasons = exclusionsOf(split)
  // ori_2 was kept from uk6, ori_1 from nl1 (the lab ori_2 then went to); no lab refused anything.
  assert.equal(reasons.ori_2?.uk6, 'SandboxScenario')
  assert.equal(reasons.ori_1?.nl1, 'SandboxScenario')
  const all = Object.values(reasons).flatMap((byLab) => Object.values(byLab))
  assert.equal(all.includes('Rejected'), false)
  assert.deepEqual(split.routing?.unavailableItemIds, [])
  // A later allocation of a split order is the ordinary cheapest, with nothing kept away.
  const later = allocateInScenario(catalogue, allocate, 'splitShipments', false, explained(canvasRequest(2)))
  assert.ok(later.ok)
  assert.deepEqual(
    later.shipments.map((shipment) => shipment.labCode),
    ['uk6'],
  )
  assert.equal(
    Object.values(exclusionsOf(later)).some((byLab) => Object.values(byLab).includes('SandboxScenario')),
    false,
  )
})

test('the outOfStock scenario finds no lab, and the routing names every lab that makes the item OutOfStock', () => {
  const allocate = (request: AllocationRequest) => allocateOrderItems(catalogue, request)
  const request = explained({ ...canvasRequest(1), order: { ...canvasRequest(1).order, shippingMethod: 'Budget' } })
  const result = allocateInScenario(catalogue, allocate, 'outOfStock', true, request)
  assert.equal(result.ok, false)
  assert.ok(!result.ok)
  assert.deepEqual(result.unavailableItemIds, ['ori_1'])
  assert.ok(result.routing)
  assert.equal(result.routing.chosenPlan, null)
  assert.equal(result.routing.bestUnsplitPlan, null)
  assert.deepEqual(result.routing.unavailableItemIds, ['ori_1'])
  const [item] = result.routing.items
  assert.equal(item?.chosenLabCode, null)
  assert.deepEqual(item?.labsConsidered, [])
  const reasons = exclusionsOf(result).ori_1 ?? {}
  // uk6 makes the canvas and ships it to GB by Budget: out of stock. nl1 and us1 make it but have no Budget rate
  // to GB, prodigi_gb2 does not make it: those reasons rule them out first.
  assert.equal(reasons.uk6, 'OutOfStock')
  assert.equal(reasons.nl1, 'DoesNotShipThere')
  assert.equal(reasons.us1, 'DoesNotShipThere')
  assert.equal(reasons.prodigi_gb2, 'DoesNotMakeProduct')
  assert.equal(Object.keys(reasons).length, catalogue.labs.length)
  // Without the scenario the same request is allocated to uk6.
  const ordinary = allocateInScenario(catalogue, allocate, null, true, request)
  assert.ok(ordinary.ok)
  assert.deepEqual(
    ordinary.shipments.map((shipment) => shipment.labCode),
    ['uk6'],
  )
})
