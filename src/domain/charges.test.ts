import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import {
  applyLines,
  type BillingState,
  buildCharge,
  chargeTotal,
  creditedChargeOf,
  diffLines,
  followReallocatedItems,
  linesOfShipments,
  netCharged,
  newBillingState,
  type PriceLine,
  refundableOfCharge,
  replaceShipmentLines,
  withCredit,
  withCreditsCapped,
  withoutShipping,
} from './charges.ts'

tier('pure')

const line = (itemId: string | null, shipmentId: string, cost: number, tax: number): PriceLine => ({
  itemId,
  shipmentId,
  cost: String(cost),
  tax: String(tax),
})

const order = {
  'item:ori_1': line('ori_1', 'shp_1', 1500, 300),
  'item:ori_2': line('ori_2', 'shp_2', 700, 140),
  'shipping:shp_1': line(null, 'shp_1', 500, 100),
  'shipping:shp_2': line(null, 'shp_2', 250, 50),
}

const ids = (count: number) => ({ chargeId: 'chg_1', lineIds: Array.from({ length: count }, (_, i) => `chi_${i + 1}`) })

test('the first charge is an Item charge with Item and Shipping lines; totalCost = lines + tax', () => {
  const drafts = diffLines({}, order)
  assert.deepEqual(
    drafts.map((draft) => draft.key),
    ['item:ori_1', 'item:ori_2', 'shipping:shp_1', 'shipping:shp_2'],
  )
  const charge = buildCharge(drafts, 'GBP', ids(drafts.length), true)
  assert.equal(charge.chargeType, 'Item')
  assert.deepEqual(
    charge.items.map((entry) => [entry.id, entry.chargeType, entry.itemId, entry.shipmentId, entry.cost.amount]),
    [
      ['chi_1', 'Item', 'ori_1', 'shp_1', '15.00'],
      ['chi_2', 'Item', 'ori_2', 'shp_2', '7.00'],
      ['chi_3', 'Shipping', null, 'shp_1', '5.00'],
      ['chi_4', 'Shipping', null, 'shp_2', '2.50'],
    ],
  )
  assert.deepEqual(charge.totalTax, { amount: '5.90', currency: 'GBP' })
  assert.deepEqual(charge.totalCost, { amount: '35.40', currency: 'GBP' })
})

test('refunding everything gives a Refund charge of negative Refund lines that cancels the first exactly', () => {
  const drafts = diffLines(order, {})
  const refund = buildCharge(drafts, 'GBP', ids(drafts.length), false)
  assert.equal(refund.chargeType, 'Refund')
  assert.ok(refund.items.every((entry) => entry.chargeType === 'Refund' && entry.cost.amount.startsWith('-')))
  assert.equal(refund.totalCost.amount, '-35.40')
  assert.equal(refund.totalTax.amount, '-5.90')
})

test('a cancel after fulfilment started refunds only the shipping of the cancelled shipments', () => {
  const target = withoutShipping(order, ['shp_2'])
  const drafts = diffLines(order, target)
  assert.deepEqual(drafts, [{ key: 'shipping:shp_2', itemId: null, shipmentId: 'shp_2', cost: -250n, tax: -50n }])
  assert.equal(chargeTotal(drafts).total, -300n)
})

test('replacing a shipment: lines of the old one go, the new ones come; an extra cost is an Other charge', () => {
  const target = replaceShipmentLines(order, ['shp_2'], {
    'item:ori_2': line('ori_2', 'shp_3', 700, 140),
    'shipping:shp_3': line(null, 'shp_3', 900, 180),
  })
  const drafts = diffLines(order, target)
  // Same item cost in the new shipment: no money for it, only the shipping changes.
  assert.deepEqual(
    drafts.map((draft) => [draft.key, draft.cost, draft.tax]),
    [
      ['shipping:shp_2', -250n, -50n],
      ['shipping:shp_3', 900n, 180n],
    ],
  )
  const charge = buildCharge(drafts, 'GBP', ids(2), false)
  assert.equal(charge.chargeType, 'Other')
  assert.deepEqual(
    charge.items.map((entry) => entry.chargeType),
    ['Refund', 'Shipping'],
  )
  const billing = newBillingState('GBP', 'none')
  billing.lines = structuredClone(order)
  applyLines(billing, target)
  // The item's line follows it to the new shipment even though no money moved.
  assert.equal(billing.lines['item:ori_2']?.shipmentId, 'shp_3')
  assert.equal(billing.lines['shipping:shp_2'], undefined)
})

test('a lab rejection moves the charged lines to the new shipments without changing any amount', () => {
  const billing = newBillingState('GBP', 'prepaid')
  billing.lines = structuredClone(order)
  followReallocatedItems(billing, new Map([['ori_2', 'shp_9']]))
  assert.deepEqual(billing.lines['item:ori_2'], line('ori_2', 'shp_9', 700, 140))
  assert.deepEqual(billing.lines['shipping:shp_9'], line(null, 'shp_9', 250, 50))
  assert.equal(billing.lines['shipping:shp_2'], undefined)
  assert.deepEqual(billing.lines['shipping:shp_1'], order['shipping:shp_1'])
  // The keys moved, the money did not.
  assert.equal(chargeTotal(diffLines(order, billing.lines)).total, 0n)
})

test('charges always add up to the current price, whatever sequence of price changes', () => {
  const lineArb = fc.record({ cost: fc.integer({ min: 0, max: 100_000 }), tax: fc.integer({ min: 0, max: 20_000 }) })
  const priceArb = fc.dictionary(
    fc.constantFrom('item:ori_1', 'item:ori_2', 'shipping:shp_1', 'shipping:shp_2', 'shipping:shp_3'),
    lineArb,
  )
  fc.assert(
    fc.property(fc.array(priceArb, { minLength: 1, maxLength: 6 }), (prices) => {
      const billing = newBillingState('EUR', 'none')
      let charged = 0n
      for (const price of prices) {
        const target = Object.fromEntries(
          Object.entries(price).map(([key, value]) => [
            key,
            line(
              key.startsWith('item') ? key.slice(5) : null,
              key.startsWith('item') ? 'shp_1' : key.slice(9),
              value.cost,
              value.tax,
            ),
          ]),
        )
        const drafts = diffLines(billing.lines, target)
        applyLines(billing, target)
        if (drafts.length > 0) {
          const charge = buildCharge(drafts, 'EUR', ids(drafts.length), false)
          charged += BigInt(charge.totalCost.amount.replace('.', ''))
        }
        const expected = Object.values(price).reduce((sum, value) => sum + BigInt(value.cost + value.tax), 0n)
        assert.equal(charged, expected)
      }
    }),
  )
})

test("a DDP shipment's duties are an untaxed line of their own, an Other charge item after the shipping; a cancel refunds them", () => {
  const priced = [
    {
      labCode: 'uk6',
      cost: 500n,
      tax: 100n,
      duties: 1860n,
      items: [{ itemId: 'ori_1', copies: 1, unitCost: 1500n, taxUnitCost: 300n, cost: 1500n, tax: 300n }],
    },
    // Nothing due: no line at all.
    { labCode: 'uk6', cost: 250n, tax: 50n, duties: 0n, items: [] },
  ]
  const lines = linesOfShipments(priced, ['shp_1', 'shp_2'])
  assert.deepEqual(lines['duties:shp_1'], line(null, 'shp_1', 1860, 0))
  assert.equal(lines['duties:shp_2'], undefined)
  const drafts = diffLines({}, lines)
  assert.deepEqual(
    drafts.map((draft) => draft.key),
    ['item:ori_1', 'shipping:shp_1', 'shipping:shp_2', 'duties:shp_1'],
  )
  const charge = buildCharge(drafts, 'AUD', ids(drafts.length), true)
  assert.deepEqual(
    charge.items.map((item) => [item.chargeType, item.shipmentId, item.cost.amount]),
    [
      ['Item', 'shp_1', '15.00'],
      ['Shipping', 'shp_1', '5.00'],
      ['Shipping', 'shp_2', '2.50'],
      ['Other', 'shp_1', '18.60'],
    ],
  )
  // 15.00 + 5.00 + 2.50 + 18.60 of lines, 3.00 + 1.00 + 0.50 of tax (none on the duties).
  assert.deepEqual(charge.totalCost, { amount: '45.60', currency: 'AUD' })
  assert.deepEqual(charge.totalTax, { amount: '4.50', currency: 'AUD' })
  assert.deepEqual(Object.keys(withoutShipping(lines, ['shp_1'])).sort(), ['item:ori_1', 'shipping:shp_2'])
})

test("an operator's credit: one Refund line of no shipment, tax the order's share rounded half-up once", () => {
  // The order nets 35.40 of which 5.90 tax: 5.00 credited carries 5.00 x 5.90 / 35.40 = 0.8333 -> 0.83 tax.
  const credited = withCredit(order, 'chg_1', 500n)
  const drafts = diffLines(order, credited)
  assert.deepEqual(drafts, [{ key: 'credit:chg_1:1', itemId: null, shipmentId: '', cost: -417n, tax: -83n }])
  assert.equal(creditedChargeOf('credit:chg_1:1'), 'chg_1')
  const charge = buildCharge(drafts, 'GBP', ids(1), false)
  assert.equal(charge.chargeType, 'Refund')
  assert.deepEqual(charge.items[0], {
    id: 'chi_1',
    chargeType: 'Refund',
    itemId: null,
    shipmentId: null,
    cost: { amount: '-4.17', currency: 'GBP' },
  })
  assert.equal(charge.totalCost.amount, '-5.00')
  // Half-up: 3 minor units credited carry 3 x 590 / 3540 = 0.5 minor units of tax, which rounds to 1.
  const halfway = diffLines(order, withCredit(order, 'chg_1', 3n))[0]
  assert.equal(halfway?.tax, -1n)
  assert.equal(netCharged(credited).total, 3540n - 500n)
})

test('what a charge may still be credited: what it took less its credits, never more than the order nets', () => {
  const billing: BillingState = { ...newBillingState('GBP', 'invoice'), lines: order }
  assert.equal(refundableOfCharge(billing, 'chg_1', 3540n), 3540n)
  billing.lines = withCredit(order, 'chg_1', 1000n)
  assert.equal(refundableOfCharge(billing, 'chg_1', 3540n), 2540n)
  // A second credit gets the next key; a credit on another charge does not count against this one.
  billing.lines = withCredit(billing.lines, 'chg_9', 500n)
  assert.ok('credit:chg_9:2' in billing.lines)
  assert.equal(refundableOfCharge(billing, 'chg_9', 800n), 800n - 500n)
  assert.equal(refundableOfCharge(billing, 'chg_1', 3540n), 3540n - 1500n, 'capped by what the order nets')
  // A re-plan or a partial cancel keeps the credit (it belongs to no shipment); a whole cancel nets everything to 0.
  assert.ok('credit:chg_1:1' in withoutShipping(billing.lines, ['shp_1', 'shp_2']))
  assert.ok('credit:chg_1:1' in replaceShipmentLines(billing.lines, ['shp_1', 'shp_2'], {}))
  const cancel = buildCharge(diffLines(billing.lines, {}), 'GBP', ids(6), false)
  assert.equal(cancel.totalCost.amount, '-20.40')
  assert.deepEqual(
    cancel.items.filter((entry) => entry.chargeType === 'Other').map((entry) => entry.cost.amount),
    ['8.33', '4.17'],
  )
})

test('credits never make the order net below zero: a partial cancel after a large credit gives back only the rest', () => {
  // 35.40 charged, 30.00 credited: 5.40 left. A cancel of shp_1 drops its 6.00 shipping: the credit is cut by 0.60.
  const credited = withCredit(order, 'chg_1', 3000n)
  assert.equal(netCharged(withoutShipping(credited, ['shp_1'])).total, -60n, 'uncapped, the order would net below 0')
  const capped = withCreditsCapped(withoutShipping(credited, ['shp_1']))
  assert.equal(netCharged(capped).total, 0n)
  const line = capped['credit:chg_1:1']
  assert.equal(BigInt(line?.cost ?? '0') + BigInt(line?.tax ?? '0'), -2940n)
  // Its tax is its share of the credit's tax (-500 of -3000), rounded half-up once: 2940 x 500 / 3000 = 490.
  assert.equal(line?.tax, '-490')
  // Nothing to cap: the lines as they were.
  assert.equal(withCreditsCapped(credited), credited)
  // A credit larger than what is over goes whole, the latest first.
  const two = withCredit(withCredit(order, 'chg_1', 3000n), 'chg_1', 500n)
  const cut = withCreditsCapped(withoutShipping(two, ['shp_1', 'shp_2']))
  assert.equal(netCharged(cut).total, 0n)
  assert.ok(!('credit:chg_1:2' in cut), 'the latest credit went first')
})
