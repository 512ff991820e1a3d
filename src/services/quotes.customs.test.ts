// Quotes with known duty outcomes (docs/api.md#customs-and-duties), on the test catalogue with import rules
// (test/support/customs-catalogue.fixture.ts): gb1 (GB) ships TEST-TEE (chapter 61) at 8.00 GBP a copy to DE
// (EU, IOSS up to EUR 150) and to the US (duty from the first dollar); us1 ships to CA, which has no rule.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { customsTestCatalogue } from '../../test/support/customs-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import type { Failures } from '../domain/failures.ts'
import { ServiceError } from '../domain/outcomes.ts'
import { type CreateQuoteInput, createQuotesService, type PricedQuote } from './quotes.service.ts'

tier('pure')

const service = createQuotesService({ catalogue: customsTestCatalogue() })
const EUR_ACCOUNT = { billingCurrency: 'EUR' }

function tees(copies: number, recipientCost?: { amount: string; currency: string }) {
  return {
    sku: 'TEST-TEE',
    copies,
    attributes: { color: 'white', size: 'm' },
    assets: [{ printArea: 'front' }],
    ...(recipientCost ? { recipientCost } : {}),
  }
}

function only(input: CreateQuoteInput, account = EUR_ACCOUNT): PricedQuote {
  const [quote, ...others] = service.createQuote(account, input).quotes
  assert.ok(quote)
  assert.equal(others.length, 0)
  return quote
}

test('EU under the IOSS threshold: nothing more at the border, the quote total is unchanged by DDP', () => {
  // 8.00 GBP = 9.60 EUR a copy; 10 copies = EUR 96.00, under EUR 150.
  const input = { shippingMethod: 'Standard' as const, destinationCountryCode: 'DE', items: [tees(10)] }
  const dap = only(input)
  assert.deepEqual(dap.shipments[0]?.customs, {
    incoterm: 'DAP',
    dutiesAndTaxes: { amount: '0.00', currency: 'EUR' },
    collectedBy: 'ioss',
    basis: dap.shipments[0]?.customs.basis,
  })
  assert.match(
    dap.shipments[0]?.customs.basis ?? '',
    /EUR 96\.00 is at or under the low-value threshold of EUR 150\.00/,
  )
  const ddp = only({ ...input, customs: { incoterm: 'DDP' } })
  assert.equal(ddp.shipments[0]?.customs.collectedBy, 'ioss')
  assert.deepEqual(ddp.costSummary.dutiesAndTaxes, { amount: '0.00', currency: 'EUR' })
  assert.deepEqual(ddp.costSummary.totalCost, dap.costSummary.totalCost)
})

test('EU over the IOSS threshold: DAP the recipient pays at the door, DDP the total includes the duties', () => {
  // 20 copies at EUR 9.60 = EUR 192.00: duty 12% = 23.04; VAT 19% of 215.04 = 40.86; total 63.90.
  const input = { shippingMethod: 'Standard' as const, destinationCountryCode: 'DE', items: [tees(20)] }
  const dap = only(input)
  assert.equal(dap.shipments[0]?.customs.collectedBy, 'recipient')
  assert.deepEqual(dap.shipments[0]?.customs.dutiesAndTaxes, { amount: '63.90', currency: 'EUR' })
  assert.equal(dap.costSummary.dutiesAndTaxes, undefined)

  const ddp = only({ ...input, customs: { incoterm: 'DDP' } })
  assert.equal(ddp.shipments[0]?.customs.collectedBy, 'merchant')
  assert.deepEqual(ddp.costSummary.dutiesAndTaxes, { amount: '63.90', currency: 'EUR' })
  const cents = (amount: string | undefined) => Math.round(Number(amount) * 100)
  assert.equal(cents(ddp.costSummary.totalCost.amount), cents(dap.costSummary.totalCost.amount) + 6390)
  assert.deepEqual(Object.keys(ddp.costSummary), ['items', 'shipping', 'totalCost', 'totalTax', 'dutiesAndTaxes'])
})

test("the items' recipientCost is the declared value: a retail price over the threshold owes duty", () => {
  // 10 copies declared at EUR 20.00 = EUR 200.00: duty 24.00, VAT 19% of 224.00 = 42.56; total 66.56.
  const quote = only({
    shippingMethod: 'Standard',
    destinationCountryCode: 'DE',
    items: [tees(10, { amount: '20.00', currency: 'eur' })],
  })
  assert.deepEqual(quote.shipments[0]?.customs.dutiesAndTaxes, { amount: '66.56', currency: 'EUR' })
})

test('US: duty from the first dollar, no import tax; a destination without a rule is unknown', () => {
  // 1 copy = USD 10.00 at 1.25: duty 16.5% = 1.65.
  const us = only(
    { shippingMethod: 'Standard', destinationCountryCode: 'US', items: [tees(1)], customs: { incoterm: 'DDP' } },
    { billingCurrency: 'USD' },
  )
  const usCustoms = us.shipments.map((shipment) => shipment.customs)
  // us1 makes black tees only: the white tee ships from gb1, across the US border.
  assert.deepEqual(
    usCustoms.map(({ dutiesAndTaxes, collectedBy }) => ({ dutiesAndTaxes, collectedBy })),
    [{ dutiesAndTaxes: { amount: '1.65', currency: 'USD' }, collectedBy: 'merchant' }],
  )

  const black = { ...tees(1), attributes: { color: 'black', size: 'm' } }
  const ca = only({ shippingMethod: 'Standard', destinationCountryCode: 'CA', items: [black] })
  assert.equal(ca.shipments[0]?.customs.dutiesAndTaxes, null)
  assert.equal(ca.shipments[0]?.customs.collectedBy, 'recipient')
  assert.match(ca.shipments[0]?.customs.basis ?? '', /no import rule for CA/)
})

test('a recipientCost currency the catalogue does not know is refused naming the field', () => {
  try {
    service.createQuote(EUR_ACCOUNT, {
      destinationCountryCode: 'DE',
      items: [tees(1), tees(1, { amount: '5.00', currency: 'XYZ' })],
    })
    assert.fail('the quote was made')
  } catch (error) {
    assert.ok(error instanceof ServiceError)
    const failures = error.failures as Failures
    assert.equal(failures['items[1].recipientCost.currency']?.[0]?.code, 'UnknownCurrency')
  }
})
