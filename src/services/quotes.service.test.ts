// The quotes service on the small test catalogue (hand-computed prices, every failure path) and, as a property over
// random baskets of the sample catalogue in every currency, the contract's arithmetic on the wire amounts.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { testCatalogueFile, testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue, parseCatalogue } from '../catalogue/catalogue.loader.ts'
import type { Failures } from '../domain/failures.ts'
import { parseAmountToMinor, type WireMoney } from '../domain/money.ts'
import { ServiceError } from '../domain/outcomes.ts'
import { SHIPPING_METHODS } from '../domain/shipping-methods.ts'
import {
  type CreateQuoteInput,
  createQuotesService,
  newQuoteItemId,
  type PricedQuote,
  type QuoteResult,
  SALES_TAX_WARNING_CODE,
} from './quotes.service.ts'

tier('pure')

const testCatalogue = parseCatalogue(testCatalogueFile(), 'test-catalogue')
const GBP_ACCOUNT = { billingCurrency: 'GBP' }

/** A service whose item ids count up (qit_ + 32 hex digits of the counter), so answers can be compared. */
function countingService(catalogue = testCatalogue) {
  let next = 0
  return createQuotesService({
    catalogue,
    newItemId: () => `qit_${(++next).toString(16).padStart(32, '0')}`,
  })
}

const canvas = { sku: 'test-canvas', copies: 1, attributes: { WRAP: 'black' }, assets: [{ printArea: 'DEFAULT' }] }
const tee = { sku: 'TEST-TEE', copies: 2, attributes: { color: 'white', size: 'm' }, assets: [{ printArea: 'front' }] }

function quoteFor(result: QuoteResult, method: string): PricedQuote {
  const quote = result.quotes.find((candidate) => candidate.shipmentMethod === method)
  assert.ok(quote, `no ${method} quote among ${result.quotes.map((candidate) => candidate.shipmentMethod).join(', ')}`)
  return quote
}

function failuresOf(action: () => unknown): Failures {
  try {
    action()
  } catch (error) {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`)
    assert.equal(error.outcome, 'ValidationFailed')
    assert.ok(error.failures)
    return error.failures
  }
  assert.fail('the quote was made, but it should have been refused')
}

const money = (amount: string, currency: string): WireMoney => ({ amount, currency })

test('without a method, one quote per method that serves the destination, slowest first', () => {
  const result = countingService().createQuote(GBP_ACCOUNT, { destinationCountryCode: 'gb', items: [canvas, tee] })
  assert.equal(result.outcome, 'Created')
  assert.deepEqual(result.issues, [])
  // gb1 ships within the UK by all five methods.
  assert.deepEqual(
    result.quotes.map((quote) => quote.shipmentMethod),
    [...SHIPPING_METHODS],
  )
})

test('a GB quote carries the lab costs, shipping and 20% VAT, keys in contract order', () => {
  const result = countingService().createQuote(GBP_ACCOUNT, {
    shippingMethod: 'Standard',
    destinationCountryCode: 'GB',
    items: [canvas, tee],
  })
  assert.equal(result.quotes.length, 1)
  const quote = quoteFor(result, 'Standard')
  assert.deepEqual(Object.keys(quote), ['shipmentMethod', 'costSummary', 'shipments', 'items'])
  // gb1: canvas 10.00, tee 8.00 x 2; shipping: the canvas's large class 6.00 + 2 tees x 1.00; VAT on each line.
  assert.deepEqual(quote.costSummary, {
    items: money('26.00', 'GBP'),
    shipping: money('8.00', 'GBP'),
    totalCost: money('40.80', 'GBP'),
    totalTax: money('6.80', 'GBP'),
  })
  const [canvasId, teeId] = ['qit_00000000000000000000000000000001', 'qit_00000000000000000000000000000002']
  assert.deepEqual(quote.shipments, [
    {
      carrier: { name: 'Evri', service: 'Evri Standard 48' },
      fulfillmentLocation: { countryCode: 'GB', labCode: 'gb1' },
      cost: money('8.00', 'GBP'),
      tax: money('1.60', 'GBP'),
      items: [canvasId, teeId],
      customs: {
        incoterm: 'DAP',
        dutiesAndTaxes: null,
        collectedBy: 'none',
        basis: 'Domestic shipment (GB to GB): no customs.',
      },
    },
  ])
  assert.deepEqual(quote.items, [
    {
      id: canvasId,
      sku: 'TEST-CANVAS',
      copies: 1,
      unitCost: money('10.00', 'GBP'),
      taxUnitCost: money('2.00', 'GBP'),
      attributes: { wrap: 'Black' },
      assets: [{ printArea: 'default', pageCount: null }],
    },
    {
      id: teeId,
      sku: 'TEST-TEE',
      copies: 2,
      unitCost: money('8.00', 'GBP'),
      taxUnitCost: money('1.60', 'GBP'),
      attributes: { color: 'white', size: 'm' },
      assets: [{ printArea: 'front', pageCount: null }],
    },
  ])
})

test("the currency defaults to the account's billing currency; currencyCode converts every line", () => {
  const input: CreateQuoteInput = { shippingMethod: 'Standard', destinationCountryCode: 'GB', items: [canvas, tee] }
  const inUsd = quoteFor(countingService().createQuote({ billingCurrency: 'USD' }, input), 'Standard')
  // At 1.25 USD per GBP: 12.50 + 2 x 10.00, shipping 10.00, VAT 2.50 + 2 x 2.00 + 2.00.
  assert.deepEqual(inUsd.costSummary, {
    items: money('32.50', 'USD'),
    shipping: money('10.00', 'USD'),
    totalCost: money('51.00', 'USD'),
    totalTax: money('8.50', 'USD'),
  })
  const asked = quoteFor(countingService().createQuote(GBP_ACCOUNT, { ...input, currencyCode: 'usd' }), 'Standard')
  assert.deepEqual(asked.costSummary, inUsd.costSummary)
  const defaulted = quoteFor(countingService().createQuote(GBP_ACCOUNT, { ...input, currencyCode: null }), 'Standard')
  assert.equal(defaulted.costSummary.totalCost.currency, 'GBP')
})

test('a destination where sales tax is not computed gets CreatedWithIssues and the warning, and no tax', () => {
  const result = countingService().createQuote(GBP_ACCOUNT, { destinationCountryCode: 'US', items: [canvas] })
  assert.equal(result.outcome, 'CreatedWithIssues')
  assert.equal(result.issues.length, 1)
  assert.deepEqual(Object.keys(result.issues[0] ?? {}), ['errorCode', 'description'])
  assert.equal(result.issues[0]?.errorCode, SALES_TAX_WARNING_CODE)
  assert.match(result.issues[0]?.description ?? '', /Sales tax.*US/)
  assert.ok(result.quotes.length > 0)
  for (const quote of result.quotes) assert.equal(quote.costSummary.totalTax.amount, '0.00')
})

test('the item ids are qit_ and 32 lower-case hex, one per item, the same in every quote of an answer', () => {
  const result = createQuotesService({ catalogue: testCatalogue }).createQuote(GBP_ACCOUNT, {
    destinationCountryCode: 'GB',
    items: [canvas, tee, { ...tee, attributes: { color: 'black', size: 's' } }],
  })
  const ids = result.quotes[0]?.items.map((item) => item.id) ?? []
  assert.equal(new Set(ids).size, 3)
  for (const id of ids) assert.match(id, /^qit_[0-9a-f]{32}$/)
  for (const quote of result.quotes) {
    assert.deepEqual(
      quote.items.map((item) => item.id),
      ids,
    )
    assert.deepEqual(quote.shipments.flatMap((shipment) => shipment.items).sort(), [...ids].sort())
  }
  assert.notEqual(newQuoteItemId(), newQuoteItemId())
})

test('a book is priced by the pages of its page asset; every asset is echoed with its page count', () => {
  const book = {
    sku: 'TEST-BOOK',
    copies: 1,
    assets: [{ printArea: 'spine' }, { printArea: 'default', pageCount: 30 }],
  }
  const quote = quoteFor(
    countingService().createQuote(GBP_ACCOUNT, {
      shippingMethod: 'Budget',
      destinationCountryCode: 'GB',
      items: [book],
    }),
    'Budget',
  )
  // 20.00 for the 20 base pages + 10 x 0.50.
  assert.deepEqual(quote.items[0]?.unitCost, money('25.00', 'GBP'))
  assert.deepEqual(quote.items[0]?.assets, [
    { printArea: 'spine', pageCount: null },
    { printArea: 'default', pageCount: 30 },
  ])
})

test('every problem is reported at once, under the quote request paths', () => {
  const failures = failuresOf(() =>
    countingService().createQuote(GBP_ACCOUNT, {
      destinationCountryCode: 'GB',
      currencyCode: 'XYZ',
      items: [
        { sku: 'TEST-NOPE', copies: 1, assets: [] },
        { sku: 'TEST-TEE', copies: 1, attributes: { color: 'white' }, assets: [{ printArea: 'sleeve' }] },
        { sku: 'TEST-BOOK', copies: 1, assets: [{ printArea: 'default' }] },
      ],
    }),
  )
  assert.deepEqual(Object.keys(failures).sort(), [
    'currencyCode',
    'items[0].sku',
    'items[1].assets',
    'items[1].assets[0].printArea',
    'items[1].attributes',
    'items[2].assets[0].pageCount',
  ])
  assert.deepEqual(failures.currencyCode, [
    { code: 'UnknownCurrency', providedValue: 'XYZ', validValues: ['GBP', 'USD', 'EUR'] },
  ])
  assert.equal(failures['items[0].sku']?.[0]?.code, 'UnknownSku')
  assert.equal(failures['items[1].attributes']?.[0]?.code, 'MissingRequiredAttributes')
  assert.equal(failures['items[1].assets[0].printArea']?.[0]?.code, 'UnknownPrintArea')
  assert.equal(failures['items[1].assets']?.[0]?.code, 'MissingRequiredPrintArea')
  assert.equal(failures['items[2].assets[0].pageCount']?.[0]?.code, 'PageCountRequired')
})

test('an account billing currency without a rate is refused like a requested one', () => {
  const failures = failuresOf(() =>
    countingService().createQuote({ billingCurrency: 'JPY' }, { destinationCountryCode: 'GB', items: [canvas] }),
  )
  assert.deepEqual(failures.currencyCode, [
    { code: 'UnknownCurrency', providedValue: 'JPY', validValues: ['GBP', 'USD', 'EUR'] },
  ])
})

test('the destination is checked: not a country, or not served for an item or by the method', () => {
  const notACountry = failuresOf(() =>
    countingService().createQuote(GBP_ACCOUNT, { destinationCountryCode: 'XX', items: [canvas] }),
  )
  assert.deepEqual(notACountry.destinationCountryCode, [{ code: 'NotAValidCountryCode', providedValue: 'XX' }])

  // Nobody ships to the rest-of-world zone (JP) in the test catalogue.
  const unreachable = failuresOf(() =>
    countingService().createQuote(GBP_ACCOUNT, { destinationCountryCode: 'JP', items: [canvas] }),
  )
  assert.deepEqual(unreachable['items[0].sku'], [
    { code: 'NotAvailableForDestination', providedValue: 'test-canvas', comparisonValue: 'JP' },
  ])

  // gb1 ships to the EU by Standard only.
  const method = failuresOf(() =>
    countingService().createQuote(GBP_ACCOUNT, {
      shippingMethod: 'Express',
      destinationCountryCode: 'DE',
      items: [tee],
    }),
  )
  assert.deepEqual(method.shippingMethod, [
    { code: 'ShippingMethodNotAvailable', providedValue: 'Express', validValues: ['Standard'] },
  ])
})

test('items that each reach the destination, but by no common method, are refused naming each one', () => {
  // gb1 now ships Budget to Canada but no longer makes black tees; us1 ships its black tees there by Standard only.
  const file = testCatalogueJson()
  file.labs[0].products[1].attributes = { color: ['white'] }
  file.labs[0].shippingRates.push({
    method: 'Budget',
    zone: 'ca',
    carrier: 'Royal Mail',
    service: 'International Standard',
    tracked: false,
    costs: file.labs[0].shippingRates[0].costs,
  })
  const catalogue = parseCatalogue(file, 'split methods')
  const phoneCase = { sku: 'TEST-CASE', copies: 1, assets: [{}] }
  const blackTee = { ...tee, attributes: { color: 'black', size: 's' } }
  const failures = failuresOf(() =>
    countingService(catalogue).createQuote(GBP_ACCOUNT, { destinationCountryCode: 'CA', items: [phoneCase, blackTee] }),
  )
  assert.deepEqual(failures, {
    destinationCountryCode: [
      {
        code: 'NoCommonShippingMethod',
        providedValue: 'CA',
        comparisonValue: { 'items[0]': ['Budget'], 'items[1]': ['Standard'] },
      },
    ],
  })
  // Each on its own is quoted.
  for (const item of [phoneCase, blackTee]) {
    const result = countingService(catalogue).createQuote(GBP_ACCOUNT, { destinationCountryCode: 'CA', items: [item] })
    assert.equal(result.quotes.length, 1)
  }
})

// ---- the property: the contract's arithmetic holds exactly in every answer, in every currency ----------------

const sample = loadCatalogue()
const DESTINATIONS = ['GB', 'US', 'DE', 'FR', 'NL', 'HU', 'AU', 'NZ', 'CA', 'JP', 'CH', 'BR']

/** Random quote requests over the whole sample catalogue: any product, variant, copies, page count, currency. */
const requestArbitrary = fc.record({
  destinationCountryCode: fc.constantFrom(...DESTINATIONS),
  currencyCode: fc.constantFrom(...sample.currencies),
  items: fc.array(
    fc
      .record({
        product: fc.nat(),
        variant: fc.nat(),
        copies: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 10_000 })),
        pages: fc.nat(),
      })
      .map(({ product: productPick, variant: variantPick, copies, pages }) => {
        const product = sample.products[productPick % sample.products.length]
        assert.ok(product)
        const variant = product.variants[variantPick % product.variants.length]
        assert.ok(variant)
        const pricing = product.pagePricing
        const pageCount = pricing
          ? pricing.minimumPages + (pages % (pricing.maximumPages - pricing.minimumPages + 1))
          : null
        const assets = Object.values(product.printAreas)
          .filter((area) => area.required)
          .map((area) => ({
            printArea: area.name,
            pageCount: area.name === pricing?.pageCountPrintArea ? pageCount : null,
          }))
        return { sku: product.sku, copies, attributes: { ...variant.attributes }, assets }
      }),
    { minLength: 1, maxLength: 8 },
  ),
})

function minor(money: WireMoney, currency: string): bigint {
  assert.equal(money.currency, currency)
  assert.match(money.amount, /^\d+\.\d{2}$/)
  const value = parseAmountToMinor(money.amount)
  assert.ok(value !== undefined)
  return value
}

test('property: items = sum(unitCost x copies), shipping = sum(shipment cost), totalCost = items + shipping + totalTax', () => {
  const service = createQuotesService({ catalogue: sample })
  let quoted = 0
  fc.assert(
    fc.property(requestArbitrary, (request) => {
      let result: QuoteResult
      try {
        result = service.createQuote(GBP_ACCOUNT, request)
      } catch (error) {
        // Random items may not reach the destination together; nothing else may be refused.
        assert.ok(error instanceof ServiceError && error.failures, String(error))
        const codes = Object.values(error.failures).flatMap((list) => list.map((failure) => failure.code))
        for (const code of codes)
          assert.ok(['NotAvailableForDestination', 'NoCommonShippingMethod'].includes(code), code)
        return
      }
      const currency = request.currencyCode
      assert.equal(result.outcome, request.destinationCountryCode === 'US' ? 'CreatedWithIssues' : 'Created')
      const variants = request.items.map((item) => sample.findVariant(item.sku, item.attributes))
      assert.deepEqual(
        result.quotes.map((quote) => quote.shipmentMethod),
        sample.shippingMethodsFor(
          request.destinationCountryCode,
          variants.map((variant) => {
            assert.ok(variant)
            return variant
          }),
        ),
      )
      for (const quote of result.quotes) {
        const items = quote.items.reduce((sum, item) => sum + minor(item.unitCost, currency) * BigInt(item.copies), 0n)
        const itemTax = quote.items.reduce(
          (sum, item) => sum + minor(item.taxUnitCost, currency) * BigInt(item.copies),
          0n,
        )
        const shipping = quote.shipments.reduce((sum, shipment) => sum + minor(shipment.cost, currency), 0n)
        const shippingTax = quote.shipments.reduce((sum, shipment) => sum + minor(shipment.tax, currency), 0n)
        const summary = quote.costSummary
        assert.equal(minor(summary.items, currency), items)
        assert.equal(minor(summary.shipping, currency), shipping)
        assert.equal(minor(summary.totalTax, currency), itemTax + shippingTax)
        assert.equal(minor(summary.totalCost, currency), items + shipping + itemTax + shippingTax)
        // Every item in exactly one shipment.
        assert.deepEqual(
          quote.shipments.flatMap((shipment) => shipment.items).sort(),
          quote.items.map((item) => item.id).sort(),
        )
      }
      quoted++
    }),
    { numRuns: 150 },
  )
  assert.ok(quoted > 50, `only ${quoted} of 150 random requests could be quoted`)
})
