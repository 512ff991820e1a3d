// The spine service on the test catalogue with a second books lab: the width follows the paper of the lab that
// allocation picks (which depends on the destination and the shipping method), and every refusal at once.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { parseCatalogue } from '../catalogue/catalogue.loader.ts'
import type { Failures } from '../domain/failures.ts'
import { ServiceError } from '../domain/outcomes.ts'
import { createSpineService } from './spine.service.ts'

tier('pure')

// gb1 makes TEST-BOOK at 20.00 GBP + 0.50 a page beyond 20, on 3.5 mm + 0.12 mm a page (the fixture). us1 now
// makes it too, dearer (60.00 USD = 48.00 GBP, + 0.10 USD a page), on its own paper, 4 mm + 0.1 mm a page: gb1 wins
// wherever both ship, us1 gets the US by the methods gb1 lacks there (StandardPlus, Overnight) and Canada.
const file = testCatalogueJson()
file.labs[1].products.push({
  sku: 'TEST-BOOK',
  unitCost: '60.00',
  perAdditionalPageCost: '0.10',
  printFileFormat: 'pdf',
  spine: { paper: 'US test matte', coverAllowanceMm: 4, pageThicknessMm: 0.1 },
})
const catalogue = parseCatalogue(file, 'two books labs')
const spine = createSpineService({ catalogue })

function failuresOf(action: () => unknown): Failures {
  try {
    action()
  } catch (error) {
    assert.ok(error instanceof ServiceError && error.failures, `expected ValidationFailed, got ${String(error)}`)
    assert.equal(error.outcome, 'ValidationFailed')
    return error.failures
  }
  assert.fail('a width was given, but the request should have been refused')
}

test('the width is the paper of the lab allocation picks: the cheaper lab where both ship', () => {
  const width = spine.spineWidth({ sku: 'test-book', destinationCountryCode: 'us', numberOfPages: 50 })
  assert.deepEqual(width, {
    sku: 'TEST-BOOK',
    numberOfPages: 50,
    destinationCountryCode: 'US',
    shippingMethod: 'Budget',
    labCode: 'gb1',
    paper: 'Test silk 170gsm',
    widthMm: 9.5, // 3.5 + 50 x 0.12
  })
})

test('a method only the other lab offers makes the book there, on its paper', () => {
  const overnight = spine.spineWidth({
    sku: 'TEST-BOOK',
    destinationCountryCode: 'US',
    numberOfPages: 50,
    shippingMethod: 'Overnight',
  })
  assert.equal(overnight.labCode, 'us1')
  assert.equal(overnight.widthMm, 9) // 4 + 50 x 0.1
  // Canada: only us1 ships there; without a method, its slowest one (Standard) is used.
  const canada = spine.spineWidth({ sku: 'TEST-BOOK', destinationCountryCode: 'CA', numberOfPages: 100 })
  assert.equal(canada.labCode, 'us1')
  assert.equal(canada.shippingMethod, 'Standard')
  assert.equal(canada.widthMm, 14)
})

test('the width grows with the page count across the product range', () => {
  const at = (numberOfPages: number) =>
    spine.spineWidth({ sku: 'TEST-BOOK', destinationCountryCode: 'GB', numberOfPages }).widthMm
  assert.equal(at(20), 5.9)
  assert.equal(at(100), 15.5)
  assert.ok(at(21) > at(20))
})

test('products without a spine, unknown SKUs and bad countries are refused, all at once', () => {
  assert.deepEqual(
    failuresOf(() => spine.spineWidth({ sku: 'TEST-CASE', destinationCountryCode: 'GB', numberOfPages: 30 })),
    { sku: [{ code: 'ProductHasNoSpine', providedValue: 'TEST-CASE' }] },
  )
  assert.deepEqual(
    failuresOf(() => spine.spineWidth({ sku: 'TEST-NOPE', destinationCountryCode: 'XX', numberOfPages: 30 })),
    {
      destinationCountryCode: [{ code: 'NotAValidCountryCode', providedValue: 'XX' }],
      sku: [{ code: 'UnknownSku', providedValue: 'TEST-NOPE' }],
    },
  )
})

test("page counts outside the product's range are refused with the limit", () => {
  assert.deepEqual(
    failuresOf(() => spine.spineWidth({ sku: 'TEST-BOOK', destinationCountryCode: 'GB', numberOfPages: 19 })),
    { numberOfPages: [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: 19, comparisonValue: 20 }] },
  )
  assert.deepEqual(
    failuresOf(() => spine.spineWidth({ sku: 'TEST-BOOK', destinationCountryCode: 'XX', numberOfPages: 101 })),
    {
      destinationCountryCode: [{ code: 'NotAValidCountryCode', providedValue: 'XX' }],
      numberOfPages: [{ code: 'MustBeLessThanOrEqualTo', providedValue: 101, comparisonValue: 100 }],
    },
  )
})

test('a destination no lab of the book reaches, or not by the method, is refused', () => {
  assert.deepEqual(
    failuresOf(() => spine.spineWidth({ sku: 'TEST-BOOK', destinationCountryCode: 'JP', numberOfPages: 30 })),
    { sku: [{ code: 'NotAvailableForDestination', providedValue: 'TEST-BOOK', comparisonValue: 'JP' }] },
  )
  assert.deepEqual(
    failuresOf(() =>
      spine.spineWidth({
        sku: 'TEST-BOOK',
        destinationCountryCode: 'CA',
        numberOfPages: 30,
        shippingMethod: 'Express',
      }),
    ),
    { shippingMethod: [{ code: 'ShippingMethodNotAvailable', providedValue: 'Express', validValues: ['Standard'] }] },
  )
})
