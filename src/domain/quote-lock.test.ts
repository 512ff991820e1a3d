import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import type { PricedShipment } from './pricing.ts'
import {
  lockedPrices,
  type QuotedItem,
  type QuoteLock,
  quotedIncoterm,
  quoteMismatches,
  type StoredQuote,
} from './quote-lock.ts'

tier('pure')

const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'

function book(pageCount: number | null | undefined, unitCost: number): QuotedItem {
  const item: QuotedItem = { sku: BOOK, copies: 1, attributes: {}, unitCost: String(unitCost), taxUnitCost: '0' }
  if (pageCount !== undefined) item.pageCount = pageCount
  return item
}

function lock(items: QuotedItem[]): QuoteLock {
  return {
    shippingMethod: 'Standard',
    destinationCountryCode: 'GB',
    currency: 'GBP',
    items,
    shipments: [{ labCode: 'uk1', cost: '500', tax: '0', itemIndexes: items.map((_, index) => index) }],
    routing: {} as QuoteLock['routing'],
  }
}

/** The catalogue's pricing of the order: one shipment holding every item, at 1 each. */
function planned(itemIds: string[]): PricedShipment[] {
  return [
    {
      labCode: 'uk1',
      cost: 1n,
      tax: 0n,
      items: itemIds.map((itemId) => ({ itemId, copies: 1, unitCost: 1n, taxUnitCost: 0n, cost: 1n, tax: 0n })),
    },
  ]
}

const costOf = (shipments: PricedShipment[] | undefined) =>
  Object.fromEntries(shipments?.[0]?.items.map((item) => [item.itemId, item.unitCost]) ?? [])

test('two copies of one book at different page counts each get the price quoted for their pages', () => {
  const quote = lock([book(200, 9000), book(20, 3000)])
  const order = [
    { id: 'ori_1', sku: BOOK, copies: 1, attributes: {}, pageCount: 20 },
    { id: 'ori_2', sku: BOOK, copies: 1, attributes: {}, pageCount: 200 },
  ]
  assert.deepEqual(costOf(lockedPrices(quote, order, planned(['ori_1', 'ori_2']))), { ori_1: 3000n, ori_2: 9000n })
  // Pages that were not quoted: no locked prices at all (the caller prices from the catalogue).
  const other = order.map((item) => ({ ...item, pageCount: 40 }))
  assert.equal(lockedPrices(quote, other, planned(['ori_1', 'ori_2'])), undefined)
})

test('a quote stored before page counts were kept prices the order that was accepted with it', () => {
  const order = [{ id: 'ori_1', sku: BOOK, copies: 1, attributes: {}, pageCount: 20 }]
  assert.deepEqual(costOf(lockedPrices(lock([book(undefined, 3000)]), order, planned(['ori_1']))), { ori_1: 3000n })
  // Products not priced by page carry null on both sides.
  const canvas = { ...book(null, 1500), sku: 'GLOBAL-CAN-10x10' }
  const ordered = [{ id: 'ori_1', sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: {}, pageCount: null }]
  assert.deepEqual(costOf(lockedPrices(lock([canvas]), ordered, planned(['ori_1']))), { ori_1: 1500n })
})

test('an order must ask the delivery date its quote was made for: the same date, or none for none', () => {
  const canvas = { ...book(null, 1500), sku: 'GLOBAL-CAN-10x10' }
  const stored = (deliverBy?: string): StoredQuote => ({
    ...lock([canvas]),
    routing: (deliverBy ? { deliverBy } : {}) as QuoteLock['routing'],
    id: 'quo_1',
    createdAt: new Date('2026-03-01T09:00:00Z'),
    expiresAt: new Date('2026-03-08T09:00:00Z'),
    usedByOrderId: null,
  })
  const order = (deliverBy: string | null) => ({
    items: [{ sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: {}, pageCount: null, pageCountAssetIndex: -1 }],
    destinationCountryCode: 'GB',
    shippingMethod: 'Standard' as const,
    currency: 'GBP',
    deliverBy,
    incoterm: 'DAP' as const,
    now: new Date('2026-03-02T09:00:00Z'),
  })
  assert.deepEqual(quoteMismatches(stored('2026-03-13'), order('2026-03-13')), {})
  assert.deepEqual(quoteMismatches(stored(), order(null)), {})
  assert.deepEqual(quoteMismatches(stored('2026-03-13'), order(null)), {
    deliverBy: [{ code: 'DiffersFromQuote', providedValue: null, comparisonValue: '2026-03-13' }],
  })
  assert.deepEqual(quoteMismatches(stored(), order('2026-03-13')), {
    deliverBy: [{ code: 'DiffersFromQuote', providedValue: '2026-03-13', comparisonValue: null }],
  })
})

test("a DDP quote locks its duties: an order on other terms differs, the order's shipments are charged them", () => {
  const canvas = { ...book(null, 1500), sku: 'GLOBAL-CAN-10x10' }
  const ddp: StoredQuote = {
    ...lock([canvas]),
    shipments: [{ labCode: 'uk6', cost: '500', tax: '100', itemIndexes: [0], duties: '734' }],
    routing: {} as QuoteLock['routing'],
    id: 'quo_2',
    createdAt: new Date('2026-03-01T09:00:00Z'),
    expiresAt: new Date('2026-03-08T09:00:00Z'),
    usedByOrderId: null,
  }
  assert.equal(quotedIncoterm(ddp), 'DDP')
  assert.equal(quotedIncoterm({ shipments: [{ labCode: 'uk6', cost: '1', tax: '0', itemIndexes: [0] }] }), 'DAP')
  const order = (incoterm: 'DDP' | 'DAP') => ({
    items: [{ sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: {}, pageCount: null, pageCountAssetIndex: -1 }],
    destinationCountryCode: 'GB',
    shippingMethod: 'Standard' as const,
    currency: 'GBP',
    deliverBy: null,
    incoterm,
    now: new Date('2026-03-02T09:00:00Z'),
  })
  assert.deepEqual(quoteMismatches(ddp, order('DDP')), {})
  assert.deepEqual(quoteMismatches(ddp, order('DAP')), {
    'customs.incoterm': [{ code: 'DiffersFromQuote', providedValue: 'DAP', comparisonValue: 'DDP' }],
  })
  const catalogued = [
    {
      labCode: 'nl1',
      cost: 999n,
      tax: 0n,
      duties: 1n,
      items: [{ itemId: 'ori_1', copies: 1, unitCost: 1n, taxUnitCost: 0n, cost: 1n, tax: 0n }],
    },
  ]
  const locked = lockedPrices(ddp, [{ id: 'ori_1', sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: {} }], catalogued)
  assert.equal(locked?.[0]?.duties, 734n)
  assert.equal(locked?.[0]?.cost, 500n)
})
