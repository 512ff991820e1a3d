// Duties and taxes with known outcomes, computed by hand: the test catalogue with customs data and import rules
// for the EU (IOSS, EUR 150), the UK (VAT at sale, GBP 135), the US (no threshold) and Australia (AUD 1,000).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { customsTestCatalogue } from '../../test/support/customs-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import type { CatalogueMoney } from './catalogue.types.ts'
import {
  type CustomsOrder,
  declaredValue,
  itemCustoms,
  orderShipmentCustoms,
  prepaidDuties,
  shipmentCustoms,
  withPrepaidDuties,
} from './customs.ts'
import { parseAmountToMinor } from './money.ts'
import type { PricedShipment } from './pricing.ts'

tier('pure')

const catalogue = customsTestCatalogue()

const value = (amount: string, currency: string): CatalogueMoney => ({
  minor: parseAmountToMinor(amount) as bigint,
  currency,
})

function tees(copies: number, unitValue: CatalogueMoney) {
  return [{ sku: 'TEST-TEE', attributes: { color: 'white', size: 'm' }, copies, unitValue }]
}

test('itemCustoms: the product data, a variant override, and the lab country as default origin', () => {
  assert.deepEqual(itemCustoms(catalogue, 'test-tee', 'gb'), {
    hsCode: '610910',
    originCountryCode: 'GB',
    weightGrams: 180,
  })
  assert.deepEqual(itemCustoms(catalogue, 'TEST-CANVAS', 'US'), {
    hsCode: '491191',
    originCountryCode: 'US',
    weightGrams: 900,
  })
  // TEST-FRAME black/large declares its own origin and weight.
  assert.deepEqual(itemCustoms(catalogue, 'TEST-FRAME', 'GB', { color: 'black', size: 'large' }), {
    hsCode: '4911910000',
    originCountryCode: 'IT',
    weightGrams: 2400,
  })
  assert.deepEqual(itemCustoms(catalogue, 'TEST-FRAME', 'GB', { color: 'black', size: 'small' }), {
    hsCode: '491191',
    originCountryCode: 'GB',
    weightGrams: 800,
  })
  // A product without customs data is declared without an HS code or weight.
  assert.deepEqual(itemCustoms(catalogue, 'TEST-CASE', 'GB'), {
    hsCode: null,
    originCountryCode: 'GB',
    weightGrams: null,
  })
})

test('EU destination under the IOSS threshold: no duty, VAT collected under IOSS', () => {
  const customs = shipmentCustoms(catalogue, {
    destinationCountryCode: 'DE',
    labCountryCode: 'GB',
    incoterm: 'DDP',
    currency: 'EUR',
    items: tees(3, value('50.00', 'EUR')),
  })
  assert.equal(customs.collectedBy, 'ioss')
  assert.deepEqual(customs.dutiesAndTaxes, { minor: 0n, currency: 'EUR' })
  assert.equal(prepaidDuties(customs), 0n)
  assert.match(customs.basis, /EUR 150\.00 is at or under the low-value threshold of EUR 150\.00/)
  assert.match(customs.basis, /Import One-Stop Shop/)
  assert.match(customs.basis, /effective 2021-07-01/)
})

test('EU destination over the IOSS threshold: 12% duty, then 19% import VAT on goods plus duty', () => {
  const input = {
    destinationCountryCode: 'DE',
    labCountryCode: 'GB',
    currency: 'EUR',
    items: tees(4, value('50.00', 'EUR')),
  }
  const dap = shipmentCustoms(catalogue, { ...input, incoterm: 'DAP' })
  // Goods EUR 200.00; duty 12% = 24.00; VAT 19% of 224.00 = 42.56; total 66.56.
  assert.equal(dap.duties, 2400n)
  assert.equal(dap.importTax, 4256n)
  assert.deepEqual(dap.dutiesAndTaxes, { minor: 6656n, currency: 'EUR' })
  assert.equal(dap.collectedBy, 'recipient')
  assert.equal(prepaidDuties(dap), 0n)
  assert.match(dap.basis, /HS chapter 61 at 12%/)
  assert.match(dap.basis, /import VAT EUR 42\.56 \(19% of goods value plus duty\)/)

  const ddp = shipmentCustoms(catalogue, { ...input, incoterm: 'DDP' })
  assert.equal(ddp.collectedBy, 'merchant')
  assert.equal(prepaidDuties(ddp), 6656n)
})

test('GB under GBP 135: VAT at sale by the merchant; over it: duty and import VAT', () => {
  const under = shipmentCustoms(catalogue, {
    destinationCountryCode: 'GB',
    labCountryCode: 'US',
    incoterm: 'DAP',
    currency: 'GBP',
    items: tees(2, value('67.50', 'GBP')),
  })
  assert.equal(under.collectedBy, 'merchant')
  assert.deepEqual(under.dutiesAndTaxes, { minor: 0n, currency: 'GBP' })

  const over = shipmentCustoms(catalogue, {
    destinationCountryCode: 'GB',
    labCountryCode: 'US',
    incoterm: 'DDP',
    currency: 'GBP',
    items: tees(3, value('50.00', 'GBP')),
  })
  // Goods GBP 150.00; duty 12% = 18.00; VAT 20% of 168.00 = 33.60; total 51.60.
  assert.deepEqual(over.dutiesAndTaxes, { minor: 5160n, currency: 'GBP' })
  assert.equal(over.collectedBy, 'merchant')
  assert.equal(prepaidDuties(over), 5160n)
})

test('US: no low-value threshold, duty from the first dollar and no import tax; amounts in the asked currency', () => {
  const customs = shipmentCustoms(catalogue, {
    destinationCountryCode: 'US',
    labCountryCode: 'GB',
    incoterm: 'DDP',
    currency: 'GBP',
    // USD 20.00 = GBP 16.00 at 1.25; duty 16.5% = 2.64.
    items: tees(1, value('20.00', 'USD')),
  })
  assert.deepEqual(customs.dutiesAndTaxes, { minor: 264n, currency: 'GBP' })
  assert.equal(customs.importTax, 0n)
  assert.match(customs.basis, /US has no low-value threshold/)
})

test('AU: GST at sale up to AUD 1,000, duty 5% by default and GST 10% over it', () => {
  const under = shipmentCustoms(catalogue, {
    destinationCountryCode: 'AU',
    labCountryCode: 'GB',
    incoterm: 'DAP',
    currency: 'AUD',
    items: tees(10, value('100.00', 'AUD')),
  })
  assert.equal(under.collectedBy, 'merchant')
  assert.deepEqual(under.dutiesAndTaxes, { minor: 0n, currency: 'AUD' })
  const over = shipmentCustoms(catalogue, {
    destinationCountryCode: 'AU',
    labCountryCode: 'GB',
    incoterm: 'DAP',
    currency: 'AUD',
    items: [...tees(10, value('100.00', 'AUD')), { sku: 'TEST-CANVAS', copies: 1, unitValue: value('0.01', 'AUD') }],
  })
  // Goods AUD 1000.01: tee duty 5% (chapter 61 not listed) of 1000.00 = 50.00, canvas chapter 49 at 0%;
  // GST 10% of 1050.01 = 105.00; total 155.00.
  assert.deepEqual(over.dutiesAndTaxes, { minor: 15500n, currency: 'AUD' })
  assert.equal(over.collectedBy, 'recipient')
  assert.match(over.basis, /HS chapter 61 at 5%, HS chapter 49 at 0%/)
})

test('no customs: domestic, inside the EU customs union; unknown duties where no rule is given', () => {
  const base = { incoterm: 'DDP' as const, currency: 'GBP', items: tees(9, value('100.00', 'GBP')) }
  const domestic = shipmentCustoms(catalogue, { ...base, destinationCountryCode: 'GB', labCountryCode: 'gb' })
  assert.equal(domestic.collectedBy, 'none')
  assert.equal(domestic.dutiesAndTaxes, null)
  const union = shipmentCustoms(catalogue, { ...base, destinationCountryCode: 'FR', labCountryCode: 'DE' })
  assert.equal(union.collectedBy, 'none')
  assert.equal(union.dutiesAndTaxes, null)
  assert.match(union.basis, /European Union customs union/)
  const unknown = shipmentCustoms(catalogue, { ...base, destinationCountryCode: 'JP', labCountryCode: 'GB' })
  assert.equal(unknown.collectedBy, 'recipient')
  assert.equal(unknown.dutiesAndTaxes, null)
  assert.equal(prepaidDuties(unknown), 0n)
  assert.match(unknown.basis, /no import rule for JP/)
})

test('declaredValue: the recipientCost when given, else the item price flagged as such', () => {
  const price = { minor: 1200n, currency: 'GBP' }
  assert.deepEqual(declaredValue({ amount: '19.99', currency: 'eur' }, price), {
    unitValue: { minor: 1999n, currency: 'EUR' },
    source: 'recipientCost',
  })
  assert.deepEqual(declaredValue(null, price), { unitValue: price, source: 'itemPrice' })
})

test("an order's shipment: each item declared at its recipientCost or else its price, flagged; DDP prepays the duties", () => {
  const order = (incoterm?: 'DDP' | 'DAP'): CustomsOrder => ({
    recipient: { address: { countryCode: 'DE' } },
    ...(incoterm ? { customs: { incoterm } } : {}),
    items: [
      {
        id: 'ori_1',
        sku: 'TEST-TEE',
        copies: 2,
        attributes: { color: 'white', size: 'm' },
        recipientCost: { amount: '60.00', currency: 'EUR' },
      },
      { id: 'ori_2', sku: 'TEST-CANVAS', copies: 1, attributes: { wrap: 'Black', edge: '38mm' }, recipientCost: null },
    ],
  })
  // The canvas is declared at its price, 12.00 GBP = 14.40 EUR; goods EUR 134.40, under EUR 150.
  const under = orderShipmentCustoms(
    catalogue,
    order('DDP'),
    { labCountryCode: 'GB', itemIds: ['ori_1', 'ori_2'] },
    'EUR',
    () => ({
      minor: 1200n,
      currency: 'GBP',
    }),
  )
  assert.deepEqual(
    under.declaredItems.map(({ itemId, hsCode, originCountryCode, weightGrams, declared }) => ({
      itemId,
      hsCode,
      originCountryCode,
      weightGrams,
      declared,
    })),
    [
      {
        itemId: 'ori_1',
        hsCode: '610910',
        originCountryCode: 'GB',
        weightGrams: 180,
        declared: { unitValue: { minor: 6000n, currency: 'EUR' }, source: 'recipientCost' },
      },
      {
        itemId: 'ori_2',
        hsCode: '491191',
        originCountryCode: 'GB',
        weightGrams: 900,
        declared: { unitValue: { minor: 1200n, currency: 'GBP' }, source: 'itemPrice' },
      },
    ],
  )
  assert.equal(under.goodsValue, 13440n)
  assert.equal(under.collectedBy, 'ioss')

  // Priced at 20.00 EUR a copy, the canvas makes it EUR 140.00: still under. At 40.00: EUR 160.00, over: the tee
  // pays 12% of 120.00 = 14.40, the canvas 0%; VAT 19% of 174.40 = 33.14; total 47.54.
  const priced: PricedShipment[] = [
    {
      labCode: 'gb1',
      cost: 0n,
      tax: 0n,
      items: [
        { itemId: 'ori_1', copies: 2, unitCost: 900n, taxUnitCost: 0n, cost: 1800n, tax: 0n },
        { itemId: 'ori_2', copies: 1, unitCost: 4000n, taxUnitCost: 0n, cost: 4000n, tax: 0n },
      ],
    },
  ]
  assert.equal(withPrepaidDuties(catalogue, order('DDP'), priced, 'EUR')[0]?.duties, 4754n)
  assert.equal(withPrepaidDuties(catalogue, order('DAP'), priced, 'EUR')[0]?.duties, undefined)
  assert.equal(withPrepaidDuties(catalogue, order(), priced, 'EUR')[0]?.duties, undefined)
})
