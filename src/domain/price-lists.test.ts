// Price lists (domain/price-lists.ts, docs/billing.md#price-lists): rules, price points, base lists and their
// discounts, the default list, the load-time checks (catalogue/catalogue.price-lists.ts) and warnings, and
// priceAllocation on a list: hand-computed cases on the small test catalogue, then properties over random lists
// and baskets (money stays exact, a cost rule never sells below cost, price points are the smallest at or above).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { CatalogueError, parseCatalogue } from '../catalogue/catalogue.loader.ts'
import { allocateShipments } from './allocation/allocation.ts'
import type { AllocationItem } from './allocation/model.ts'
import type { Catalogue } from './catalogue.ts'
import type { Variant } from './catalogue.types.ts'
import { applyRule, discounted, type PriceRule, roundUpToPricePoint } from './price-lists.ts'
import { priceAllocation } from './pricing.ts'
import type { ShippingMethod } from './shipping-methods.ts'

tier('pure')

type Json = Record<string, any>

function withLists(lists: Json, change?: (file: Json) => void): Catalogue {
  const file = testCatalogueJson()
  file.priceLists = lists
  change?.(file)
  return parseCatalogue(file, 'price lists')
}

function problemsOf(lists: Json, change?: (file: Json) => void): readonly string[] {
  try {
    withLists(lists, change)
  } catch (error) {
    if (error instanceof CatalogueError) return error.problems
    throw error
  }
  assert.fail('the catalogue was accepted')
}

const RETAIL = {
  retail: {
    default: true,
    products: {
      '*': { markupPercent: '40', roundUpTo: '0.99' },
      canvas: { prices: { GBP: '25.00', USD: '30.00' } },
    },
    shipping: { '*': {}, Express: { markupPercent: '10' } },
  },
  wholesale: { base: 'retail', percentOff: '20' },
  trade: { products: { '*': { markupPercent: '5', plus: '1.00' } }, shipping: { '*': { prices: { GBP: '3.00' } } } },
}

function variantOf(catalogue: Catalogue, sku: string, attributes: Record<string, string> = {}): Variant {
  const found = catalogue.findVariant(sku, attributes)
  assert.ok(found, `no variant ${sku}`)
  return found
}

function price(
  catalogue: Catalogue,
  listName: string | null,
  items: { sku: string; attributes?: Record<string, string>; copies: number }[],
  destination: string,
  method: ShippingMethod,
  currency: string,
) {
  const allocationItems: AllocationItem[] = items.map((item, index) => ({
    itemId: `i${index}`,
    variant: variantOf(catalogue, item.sku, item.attributes),
    copies: item.copies,
    pageCount: null,
  }))
  const result = allocateShipments(catalogue, {
    destinationCountryCode: destination,
    shippingMethod: method,
    items: allocationItems,
  })
  if (!result.ok) assert.fail('no allocation')
  const productOfItem = new Map(
    allocationItems.map((item) => {
      const product = catalogue.findProduct(item.variant.sku)
      assert.ok(product)
      return [item.itemId, { sku: product.sku, category: product.category }]
    }),
  )
  return priceAllocation(
    catalogue,
    result.shipments,
    new Map(allocationItems.map((item) => [item.itemId, item.copies])),
    destination,
    currency,
    { list: catalogue.priceLists.listFor(listName), productOfItem, shippingMethod: method },
  )
}

test('a cost rule marks the lab cost up and rounds up to the price point; a fixed price is the price', () => {
  const catalogue = withLists(RETAIL)
  // TEST-TEE from gb1: 8.00 + 40% = 11.20 -> 11.99; VAT 20% of 11.99 = 2.398 -> 2.40 a tee.
  const tee = price(
    catalogue,
    null,
    [{ sku: 'TEST-TEE', attributes: { color: 'white', size: 'm' }, copies: 2 }],
    'GB',
    'Standard',
    'GBP',
  )
  assert.equal(tee.priceList, 'retail')
  const item = tee.shipments[0]?.items[0]
  assert.deepEqual([item?.unitCost, item?.taxUnitCost, item?.cost, item?.tax], [1199n, 240n, 2398n, 480n])
  // Shipping "*" is the cost (4.00 for two tees to GB), VAT 0.80.
  assert.equal(tee.shipments[0]?.cost, 400n)
  assert.deepEqual(tee.totals, { items: 2398n, shipping: 400n, tax: 480n + 80n, total: 2398n + 400n + 560n })

  // The canvas category is fixed: 25.00 GBP, 30.00 USD; EUR converts the GBP price (25.00 x 1.2 = 30.00).
  const canvas = (currency: string) =>
    price(
      catalogue,
      null,
      [{ sku: 'TEST-CANVAS', attributes: { wrap: 'Black' }, copies: 1 }],
      'GB',
      'Standard',
      currency,
    ).shipments[0]?.items[0]?.unitCost
  assert.equal(canvas('GBP'), 2500n)
  assert.equal(canvas('USD'), 3000n)
  assert.equal(canvas('EUR'), 3000n)
})

test('a list with a base takes its prices less percentOff; shipping by method; plus converts from the base', () => {
  const catalogue = withLists(RETAIL)
  const tee = [{ sku: 'TEST-TEE', attributes: { color: 'white', size: 'm' }, copies: 1 }]
  // wholesale: 11.99 less 20% (2.398 -> 2.40) = 9.59.
  const wholesale = price(catalogue, 'wholesale', tee, 'GB', 'Express', 'GBP')
  assert.equal(wholesale.priceList, 'wholesale')
  assert.equal(wholesale.shipments[0]?.items[0]?.unitCost, 959n)
  // Express shipping from retail, not discounted: cost + 10%.
  const atCost = price(catalogue, 'no-such-list-falls-back', tee, 'GB', 'Express', 'GBP')
  const expressCost = price(withLists({}), null, tee, 'GB', 'Express', 'GBP').shipments[0]?.cost ?? 0n
  assert.equal(atCost.priceList, 'retail')
  assert.equal(wholesale.shipments[0]?.cost, expressCost + (expressCost * 10n + 50n) / 100n)
  // trade: 8.00 + 5% = 8.40, + 1.00 GBP; in USD: 10.00 + 0.50 + 1.25 = 11.75; shipping fixed 3.00 GBP = 3.75 USD.
  const trade = price(catalogue, 'trade', tee, 'GB', 'Standard', 'USD')
  assert.equal(trade.shipments[0]?.items[0]?.unitCost, 1175n)
  assert.equal(trade.shipments[0]?.cost, 375n)
})

test('without a default list an account without one pays the costs, exactly as priceAllocation without a list', () => {
  const lists = structuredClone(RETAIL) as Json
  delete lists.retail.default
  const catalogue = withLists(lists)
  const items = [{ sku: 'TEST-TEE', attributes: { color: 'white', size: 'm' }, copies: 3 }]
  const listless = price(catalogue, null, items, 'DE', 'Standard', 'EUR')
  assert.equal(listless.priceList, null)
  const result = allocateShipments(catalogue, {
    destinationCountryCode: 'DE',
    shippingMethod: 'Standard',
    items: [
      {
        itemId: 'i0',
        variant: variantOf(catalogue, 'TEST-TEE', { color: 'white', size: 'm' }),
        copies: 3,
        pageCount: null,
      },
    ],
  })
  assert.ok(result.ok)
  const plain = priceAllocation(catalogue, result.shipments, new Map([['i0', 3]]), 'DE', 'EUR')
  assert.deepEqual(listless, plain)
  // The named list applies when asked for.
  assert.equal(price(catalogue, 'retail', items, 'DE', 'Standard', 'EUR').priceList, 'retail')
})

test('the load refuses every problem of a list by path and reason', () => {
  const problems = problemsOf({
    a: { default: true, products: { canvas: { prices: { GBP: '-1' } } }, shipping: { Standard: {} } },
    b: { default: true, base: 'nowhere', percentOff: '10' },
    c: {
      products: { '*': { prices: { USD: '12.00', XYZ: '1.00' } }, 'NO-SUCH': {} },
      shipping: { Teleport: {}, '*': {} },
    },
    d: { products: { '*': { prices: { GBP: '12' }, markupPercent: '10' } }, shipping: { '*': { roundUpTo: '0.999' } } },
    e: { base: 'f' },
    f: { base: 'e', percentOff: 'ten' },
    g: { products: { '*': {} }, shipping: { '*': {} }, percentOff: '5' },
  })
  const expected = [
    'priceLists.a.products.canvas.prices.GBP: must be a decimal string with at most 2 decimals like "12.50", got "-1"',
    'priceLists.f.percentOff: must be a percentage string with at most 2 decimals like "15", got "ten"',
    'priceLists.d.shipping.*.roundUpTo: must be a price point like "0.99" or "0.50", got "0.999"',
  ]
  for (const line of expected) assert.ok(problems.includes(line), `${line}\n in ${problems.join('\n')}`)
  // Schema problems come first; the cross-checks run once the file is well formed.
  const crossChecked = problemsOf({
    a: { default: true, products: { canvas: {} }, shipping: { Standard: {} } },
    b: { default: true, base: 'nowhere', percentOff: '10' },
    c: {
      products: { '*': { prices: { USD: '12.00', XYZ: '1.00' } }, 'NO-SUCH': {} },
      shipping: { Teleport: {}, '*': {} },
    },
    d: { products: { '*': { prices: { GBP: '12' }, markupPercent: '10' } }, shipping: { '*': {} } },
    e: { base: 'f' },
    f: { base: 'e' },
    g: { products: { '*': {} }, shipping: { '*': {} }, percentOff: '5' },
  })
  const crossExpected = [
    'priceLists.a.products: leaves 4 product(s) unpriced: TEST-TEE, TEST-BOOK, TEST-CASE, TEST-FRAME (give a rule for their SKU, category or "*")',
    'priceLists.a.shipping: leaves Budget, StandardPlus, Express, Overnight unpriced (give a rule for the method or "*")',
    'priceLists.b.default: only one list may be the default (a is)',
    'priceLists.b.base: unknown price list "nowhere" (lists: a, b, c, d, e, f, g)',
    "priceLists.c.products.*.prices.XYZ: unknown currency (the catalogue's: GBP, USD, EUR)",
    'priceLists.c.products.*.prices: must give a GBP price (the base currency: others convert from it)',
    'priceLists.c.products.NO-SUCH: "NO-SUCH" is not a SKU or product category of this catalogue, nor "*"',
    'priceLists.c.shipping.Teleport: "Teleport" is not a shipping method (Budget, Standard, StandardPlus, Express, Overnight) nor "*"',
    'priceLists.d.products.*: fixed prices cannot be combined with markupPercent',
    'priceLists.e.base: "f" leads back to e: bases must end in a list of its own',
    'priceLists.g.percentOff: needs a base list to take it off',
  ]
  for (const line of crossExpected)
    assert.ok(
      crossChecked.some((problem) => problem.endsWith(line)),
      `${line}\n in ${crossChecked.join('\n')}`,
    )
})

test('a discount that takes a cost rule below cost is refused; a fixed price below a lab cost is a warning', () => {
  const problems = problemsOf({
    retail: { products: { '*': { markupPercent: '20' } }, shipping: { '*': {} } },
    deep: { base: 'retail', percentOff: '25' },
  })
  assert.ok(
    problems.some((line) =>
      line.endsWith('priceLists.deep.percentOff: 25% off takes retail\'s rule for "*" (cost + 20%) below the lab cost'),
    ),
    problems.join('\n'),
  )
  // 20% markup, 16.66% off: 1.2 x 0.8334 >= 1, accepted.
  const fine = withLists({
    retail: {
      products: { '*': { markupPercent: '20' }, 'TEST-CASE': { prices: { GBP: '4.00' } } },
      shipping: { '*': {} },
    },
    shallow: { base: 'retail', percentOff: '16.66' },
  })
  // TEST-CASE costs 5.00 at gb1: both lists sell it below (4.00, and 4.00 less 16.66% = 3.33).
  assert.deepEqual(fine.warnings, [
    "priceLists.retail: TEST-CASE sells at GBP 4.00, below lab gb1's cost GBP 5.00",
    "priceLists.shallow: TEST-CASE sells at GBP 3.33, below lab gb1's cost GBP 5.00",
  ])
  // RETAIL's products are priced at or above every cost; only trade's fixed GBP 3.00 shipping is below some rate.
  assert.deepEqual(
    withLists(RETAIL).warnings.filter((line) => !line.startsWith('priceLists.trade: ')),
    [],
  )
})

test('a fixed shipping price below a lab rate is a warning naming the list, method, lab, zone and cost', () => {
  const lists = {
    retail: {
      products: { '*': { markupPercent: '50' } },
      // Below gb1's UK Standard (GBP 6.00 for one large parcel), not below its Express there.
      shipping: { '*': {}, Standard: { prices: { GBP: '5.99' } }, Express: { prices: { GBP: '100.00' } } },
    },
    // Takes retail's shipping as it is: warned about on its own name.
    derived: { base: 'retail', percentOff: '10' },
  }
  const warnings = withLists(lists).warnings
  const standardUk = (name: string) =>
    `priceLists.${name}: Standard shipping sells at GBP 5.99, below lab gb1's cost to zone uk GBP 6.00 (one large parcel)`
  assert.ok(warnings.includes(standardUk('retail')), warnings.join('\n'))
  assert.ok(warnings.includes(standardUk('derived')), warnings.join('\n'))
  assert.ok(!warnings.some((line) => line.includes('Express')), warnings.join('\n'))
  assert.ok(
    warnings.every((line) => / Standard shipping sells at GBP 5\.99, below lab \w+'s cost to zone \w+ GBP /.test(line)),
    warnings.join('\n'),
  )
  // At or above every rate: no warning.
  const generous = withLists({
    retail: { products: { '*': {} }, shipping: { '*': { prices: { GBP: '1000.00' } } } },
  })
  assert.deepEqual(generous.warnings, [])
})

test('the sample catalogue has retail and wholesale lists and no default: its prices stay the costs', async () => {
  const { loadCatalogue } = await import('../catalogue/catalogue.loader.ts')
  const sample = loadCatalogue()
  assert.deepEqual(sample.priceLists.names, ['retail', 'wholesale'])
  assert.equal(sample.priceLists.defaultList, null)
  assert.equal(sample.priceLists.listFor(null), null)
  assert.equal(sample.priceLists.listFor('wholesale')?.name, 'wholesale')
  assert.deepEqual(sample.warnings, [])
})

// ---- properties ------------------------------------------------------------------------------------------

const context = (currency: string) => ({
  currency,
  baseCurrency: 'GBP',
  convert: (minor: bigint, from: string, to: string) => {
    const rates: Record<string, bigint> = { GBP: 1_000_000n, USD: 1_310_000n, EUR: 1_140_000n }
    const a = minor * (rates[to] as bigint)
    const b = rates[from] as bigint
    return (2n * a + b) / (2n * b)
  },
})

const costRule = fc.record({
  kind: fc.constant('cost' as const),
  markupBasisPoints: fc.integer({ min: 0, max: 999_999 }),
  plusMinor: fc.bigInt({ min: 0n, max: 100_000n }),
  priceEnding: fc.option(fc.integer({ min: 0, max: 99 }), { nil: null }),
})

test('property: a price point is the smallest amount at or above, ending in its cents', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 99 }), (minor, ending) => {
      const rounded = roundUpToPricePoint(minor, ending)
      assert.ok(rounded >= minor)
      assert.equal(rounded % 100n, BigInt(ending))
      assert.ok(rounded - minor < 100n, 'nothing smaller ends in those cents')
    }),
  )
})

test('property: a cost rule never sells below the cost, in any currency', () => {
  fc.assert(
    fc.property(
      costRule,
      fc.bigInt({ min: 0n, max: 10n ** 10n }),
      fc.constantFrom('GBP', 'USD', 'EUR'),
      (rule, cost, currency) => {
        const priced = applyRule(rule as PriceRule, cost, context(currency))
        assert.ok(priced >= cost, `${priced} < ${cost}`)
      },
    ),
  )
})

test('property: a validated discount of a cost rule never sells below the cost', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 20_000 }),
      fc.integer({ min: 0, max: 9_999 }),
      fc.bigInt({ min: 1n, max: 10n ** 9n }),
      fc.integer({ min: 0, max: 99 }),
      (markup, off, cost, ending) => {
        // What the load accepts: (100% + markup) x (100% - off) >= 100%.
        fc.pre(BigInt(10_000 + markup) * BigInt(10_000 - off) >= 100_000_000n)
        const catalogue = withLists({
          retail: {
            products: {
              '*': { markupPercent: String(markup / 100), roundUpTo: `0.${String(ending).padStart(2, '0')}` },
            },
            shipping: { '*': {} },
          },
          cheap: { base: 'retail', percentOff: String(off / 100) },
        })
        const list = catalogue.priceLists.find('cheap')
        assert.ok(list)
        const sold = catalogue.priceLists.productPrice(
          list,
          { sku: 'TEST-TEE', category: 'apparel' },
          cost,
          context('GBP'),
        )
        assert.ok(sold >= cost, `${sold} < ${cost}`)
        assert.equal(discounted(cost, 0), cost)
      },
    ),
    { numRuns: 60 },
  )
})

test('property: priced on a list, every line is one rounding and the totals add up in every currency', () => {
  const catalogue = withLists(RETAIL)
  const picks = [
    { sku: 'TEST-TEE', attributes: { color: 'white', size: 'm' } },
    { sku: 'TEST-CANVAS', attributes: { wrap: 'Black' } },
    { sku: 'TEST-CASE' },
    { sku: 'TEST-FRAME' },
  ]
  fc.assert(
    fc.property(
      fc.array(fc.record({ pick: fc.nat(picks.length - 1), copies: fc.integer({ min: 1, max: 10_000 }) }), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.constantFrom('GB', 'DE', 'US'),
      fc.constantFrom('GBP', 'USD', 'EUR'),
      fc.constantFrom('retail', 'wholesale', 'trade'),
      (basket, destination, currency, listName) => {
        const seen = new Set<number>()
        const items = basket
          .filter(({ pick }) => !seen.has(pick) && seen.add(pick))
          .map(({ pick, copies }) => ({ ...(picks[pick] as { sku: string }), copies }))
        let priced: ReturnType<typeof price>
        try {
          priced = price(catalogue, listName, items, destination, 'Standard', currency)
        } catch {
          return // not every product ships everywhere by Standard
        }
        let items_ = 0n
        let shipping = 0n
        let tax = 0n
        for (const shipment of priced.shipments) {
          shipping += shipment.cost
          tax += shipment.tax
          for (const item of shipment.items) {
            assert.equal(typeof item.unitCost, 'bigint')
            assert.equal(item.cost, item.unitCost * BigInt(item.copies))
            assert.equal(item.tax, item.taxUnitCost * BigInt(item.copies))
            items_ += item.cost
            tax += item.tax
          }
        }
        assert.deepEqual(priced.totals, { items: items_, shipping, tax, total: items_ + shipping + tax })
      },
    ),
    { numRuns: 80 },
  )
})
