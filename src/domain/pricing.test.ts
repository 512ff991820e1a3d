// Pricing of allocations (domain/pricing.ts): hand-computed cases on the small test catalogue, then a property over
// random baskets of the sample catalogue checking, in every currency it knows, that each amount is the line's
// conversion and tax rounded once half-up (against a reference computed from the raw catalogue file, not through
// the Catalogue class) and that the contract's arithmetic holds exactly.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import fc from 'fast-check'
import { testCatalogueFile, testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue, parseCatalogue } from '../catalogue/catalogue.loader.ts'
import { allocateShipments } from './allocation/allocation.ts'
import type { AllocationItem, PlannedShipment } from './allocation/model.ts'
import type { Catalogue } from './catalogue.ts'
import type { Variant } from './catalogue.types.ts'
import { type PricedAllocation, priceAllocation } from './pricing.ts'
import type { ShippingMethod } from './shipping-methods.ts'

tier('pure')

const testCatalogue = parseCatalogue(testCatalogueFile(), 'test-catalogue')
const sample = loadCatalogue()

function variantOf(catalogue: Catalogue, sku: string, attributes: Record<string, string> = {}): Variant {
  const found = catalogue.findVariant(sku, attributes)
  assert.ok(found, `no variant ${sku}`)
  return found
}

function plan(
  catalogue: Catalogue,
  destination: string,
  method: ShippingMethod,
  items: readonly AllocationItem[],
): PlannedShipment[] {
  const result = allocateShipments(catalogue, { destinationCountryCode: destination, shippingMethod: method, items })
  if (!result.ok) assert.fail(`no allocation: ${JSON.stringify(result)}`)
  return result.shipments
}

function copiesOf(items: readonly AllocationItem[]): Map<string, number> {
  return new Map(items.map((item) => [item.itemId, item.copies]))
}

/** item id -> [unitCost, taxUnitCost, cost, tax], for compact assertions. */
function itemFigures(priced: PricedAllocation): Record<string, bigint[]> {
  const figures: Record<string, bigint[]> = {}
  for (const shipment of priced.shipments) {
    for (const item of shipment.items) figures[item.itemId] = [item.unitCost, item.taxUnitCost, item.cost, item.tax]
  }
  return figures
}

test('a GB order pays the lab costs plus 20% VAT on items and shipping, in GBP', () => {
  const items = [
    {
      itemId: 'canvas',
      variant: variantOf(testCatalogue, 'TEST-CANVAS', { wrap: 'Black' }),
      copies: 2,
      pageCount: null,
    },
  ]
  const priced = priceAllocation(
    testCatalogue,
    plan(testCatalogue, 'GB', 'Standard', items),
    copiesOf(items),
    'GB',
    'GBP',
  )
  // gb1: 10.00 a canvas; large class 6.00 for the first unit, 2.00 for the second.
  assert.deepEqual(itemFigures(priced), { canvas: [1000n, 200n, 2000n, 400n] })
  assert.equal(priced.shipments.length, 1)
  assert.equal(priced.shipments[0]?.labCode, 'gb1')
  assert.equal(priced.shipments[0]?.cost, 800n)
  assert.equal(priced.shipments[0]?.tax, 160n)
  assert.deepEqual(priced.totals, { items: 2000n, shipping: 800n, tax: 560n, total: 3360n })
  assert.equal(priced.currency, 'GBP')
  assert.equal(priced.salesTaxNotComputed, false)
})

test('another currency converts each line once; tax is per unit, so it is not the rounded tax of the total', () => {
  // TEST-TEE from gb1 at 8.00 GBP to DE (19% VAT) in EUR at 1.2: 9.60 EUR a tee, VAT 1.824 -> 1.82 a tee,
  // 3.64 for two (rounding the total, 3.648, would give 3.65: the contract sums unit lines instead).
  const items = [
    {
      itemId: 'tee',
      variant: variantOf(testCatalogue, 'TEST-TEE', { color: 'white', size: 'm' }),
      copies: 2,
      pageCount: null,
    },
  ]
  const priced = priceAllocation(
    testCatalogue,
    plan(testCatalogue, 'DE', 'Standard', items),
    copiesOf(items),
    'de',
    'eur',
  )
  assert.equal(priced.currency, 'EUR')
  assert.deepEqual(itemFigures(priced), { tee: [960n, 182n, 1920n, 364n] })
  // Shipping: small 5.00 + 1.50 GBP = 6.50 -> 7.80 EUR, VAT 1.482 -> 1.48.
  assert.equal(priced.shipments[0]?.cost, 780n)
  assert.equal(priced.shipments[0]?.tax, 148n)
  assert.deepEqual(priced.totals, { items: 1920n, shipping: 780n, tax: 512n, total: 3212n })
})

test('conversion and tax round half up', () => {
  const file = testCatalogueJson()
  file.labs[0].products[3].unitCost = '10.02' // TEST-CASE at gb1
  file.taxRates.DE.ratePercent = '19'
  const catalogue = parseCatalogue(file, 'rounding')
  const items = [{ itemId: 'case', variant: variantOf(catalogue, 'TEST-CASE'), copies: 1, pageCount: null }]
  // 10.02 GBP x 1.25 = 12.525 USD -> 12.53 (half up); US sales tax is not computed: zero.
  const usd = priceAllocation(catalogue, plan(catalogue, 'US', 'Budget', items), copiesOf(items), 'US', 'USD')
  assert.deepEqual(itemFigures(usd), { case: [1253n, 0n, 1253n, 0n] })
  assert.equal(usd.salesTaxNotComputed, true)

  file.labs[0].products[3].unitCost = '2.50'
  const halfTax = parseCatalogue(file, 'half tax')
  const caseOnly = [{ itemId: 'case', variant: variantOf(halfTax, 'TEST-CASE'), copies: 3, pageCount: null }]
  // 19% of 2.50 = 0.475 -> 0.48 a unit, 1.44 for three.
  const gbp = priceAllocation(halfTax, plan(halfTax, 'DE', 'Standard', caseOnly), copiesOf(caseOnly), 'DE', 'GBP')
  assert.deepEqual(itemFigures(gbp), { case: [250n, 48n, 750n, 144n] })
})

test('books are priced by their page count; a destination without a tax rate pays none', () => {
  const file = testCatalogueJson()
  delete file.taxRates.GB
  const untaxed = parseCatalogue(file, 'GB without VAT')
  const items = [{ itemId: 'book', variant: variantOf(untaxed, 'TEST-BOOK'), copies: 1, pageCount: 30 }]
  // gb1: 20.00 for the 20 base pages + 10 more pages x 0.50.
  const priced = priceAllocation(untaxed, plan(untaxed, 'GB', 'Budget', items), copiesOf(items), 'GB', 'GBP')
  assert.deepEqual(itemFigures(priced), { book: [2500n, 0n, 2500n, 0n] })
  assert.equal(priced.totals.tax, 0n)
  assert.equal(priced.salesTaxNotComputed, false)
})

test('an unknown currency or a missing copy count is refused with RangeError', () => {
  const items = [{ itemId: 'case', variant: variantOf(testCatalogue, 'TEST-CASE'), copies: 1, pageCount: null }]
  const shipments = plan(testCatalogue, 'GB', 'Budget', items)
  assert.throws(() => priceAllocation(testCatalogue, shipments, copiesOf(items), 'GB', 'JPY'), RangeError)
  assert.throws(() => priceAllocation(testCatalogue, shipments, new Map(), 'GB', 'GBP'), RangeError)
})

// ---- the property: every amount is its line's exact conversion and tax, and the totals add up --------------

interface RawCatalogue {
  currencies: { rates: Record<string, string> }
  taxRates: Record<string, { ratePercent: string }>
}
/** The sample file as written: the reference below reads rates and tax from it, not from the Catalogue class. */
const raw = JSON.parse(
  readFileSync(new URL('../catalogue/sample-catalogue.json', import.meta.url), 'utf8'),
) as RawCatalogue

/** "1.31" -> 1310000n at 6 places, "19" -> 1900n at 2: exact decimal to scaled integer. */
function scaled(text: string, places: number): bigint {
  const [whole = '0', fraction = ''] = text.split('.')
  return BigInt(whole) * 10n ** BigInt(places) + BigInt(fraction.padEnd(places, '0'))
}

/** a / b rounded half up, for a >= 0, b > 0: the one rounding rule of the contract. */
function roundedQuotient(a: bigint, b: bigint): bigint {
  return (2n * a + b) / (2n * b)
}

function referenceConversion(minor: bigint, from: string, to: string): bigint {
  const fromRate = raw.currencies.rates[from]
  const toRate = raw.currencies.rates[to]
  assert.ok(fromRate && toRate, `rates for ${from} and ${to}`)
  return roundedQuotient(minor * scaled(toRate, 6), scaled(fromRate, 6))
}

function referenceTax(minor: bigint, destination: string): bigint {
  const percent = raw.taxRates[destination]?.ratePercent ?? '0'
  return roundedQuotient(minor * scaled(percent, 2), 10_000n)
}

const DESTINATIONS = ['GB', 'US', 'DE', 'FR', 'NL', 'HU', 'AU', 'NZ', 'CA', 'JP', 'CH', 'BR']

/** A random basket of the sample catalogue, as SKUs and attributes so a counterexample reads well. */
const basketArbitrary = fc.record({
  destination: fc.constantFrom(...DESTINATIONS),
  method: fc.nat(),
  picks: fc.array(
    fc
      .record({
        product: fc.nat(),
        variant: fc.nat(),
        copies: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 10_000 })),
        pages: fc.nat(),
      })
      .map((pick) => {
        const product = sample.products[pick.product % sample.products.length]
        assert.ok(product)
        const variant = product.variants[pick.variant % product.variants.length] as Variant
        const pages = product.pagePricing
        const pageCount = pages
          ? pages.minimumPages + (pick.pages % (pages.maximumPages - pages.minimumPages + 1))
          : null
        return { sku: product.sku, attributes: variant.attributes, copies: pick.copies, pageCount }
      }),
    { minLength: 1, maxLength: 10 },
  ),
})

type Basket = typeof basketArbitrary extends fc.Arbitrary<infer T> ? T : never

/**
 * The basket's items that one shipping method takes to the destination: a method of the first item (picked by
 * `method`), and every item some lab offers by it. No method when nothing makes the first item for there.
 */
function shippableBasket(basket: Basket): { shippingMethod: ShippingMethod | undefined; items: AllocationItem[] } {
  const candidates = basket.picks.map(
    (pick, index): AllocationItem => ({
      itemId: `item${index}`,
      variant: variantOf(sample, pick.sku, pick.attributes),
      copies: pick.copies,
      pageCount: pick.pageCount,
    }),
  )
  const first = candidates[0] as AllocationItem
  const methods = sample.shippingMethodsForVariant(first.variant, basket.destination)
  const shippingMethod = methods[basket.method % Math.max(1, methods.length)]
  const items = shippingMethod
    ? candidates.filter((item) => sample.labOptions(item.variant, basket.destination, shippingMethod).length > 0)
    : []
  return { shippingMethod, items }
}

test('property: in every currency, each line is converted and taxed once, half up, and the totals add up exactly', () => {
  let priced = 0
  fc.assert(
    fc.property(basketArbitrary, (basket) => {
      const { destination } = basket
      const { shippingMethod, items } = shippableBasket(basket)
      if (!shippingMethod) return // nothing makes the first pick for this destination
      const shipments = plan(sample, destination, shippingMethod, items)
      for (const currency of sample.currencies) {
        const result = priceAllocation(sample, shipments, copiesOf(items), destination, currency)
        assert.equal(result.currency, currency)
        assert.equal(result.salesTaxNotComputed, destination === 'US')
        assert.equal(result.shipments.length, shipments.length)
        let itemsTotal = 0n
        let shipping = 0n
        let tax = 0n
        result.shipments.forEach((shipment, index) => {
          const planned = shipments[index] as PlannedShipment
          assert.equal(shipment.labCode, planned.labCode)
          assert.deepEqual(
            shipment.items.map((item) => item.itemId),
            planned.itemIds,
          )
          shipment.items.forEach((item, itemIndex) => {
            const unit = planned.items[itemIndex]?.unitCost
            assert.ok(unit)
            const copies = BigInt(item.copies)
            assert.equal(item.unitCost, referenceConversion(unit.minor, unit.currency, currency))
            assert.equal(item.taxUnitCost, referenceTax(item.unitCost, destination))
            assert.equal(item.cost, item.unitCost * copies)
            assert.equal(item.tax, item.taxUnitCost * copies)
            itemsTotal += item.cost
            tax += item.tax
          })
          const { minor, currency: labCurrency } = planned.shippingCost
          assert.equal(shipment.cost, referenceConversion(minor, labCurrency, currency))
          assert.equal(shipment.tax, referenceTax(shipment.cost, destination))
          shipping += shipment.cost
          tax += shipment.tax
        })
        assert.deepEqual(result.totals, { items: itemsTotal, shipping, tax, total: itemsTotal + shipping + tax })
      }
      priced++
    }),
    { numRuns: 200 },
  )
  assert.ok(priced > 100, `only ${priced} of 200 random baskets could be shipped`)
})
