import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import { type BillingState, netCharged, newBillingState, type PriceLine } from './charges.ts'
import { applyTrackingEvents } from './delivery-tracking.ts'
import type { Charge, OrderDocument, Shipment } from './order.ts'
import {
  addCredit,
  CreditAboveRefundable,
  creditDraft,
  creditedCharge,
  creditIssuedEvent,
  creditOf,
  hasLateDeliveryCredit,
  lateDeliveryCreditMinor,
  lateDeliveryCreditRequest,
} from './order-credits.ts'

tier('pure')

const HALF = { creditPercent: '50', basisPoints: 5000 }

const line = (itemId: string | null, shipmentId: string, cost: number, tax: number): PriceLine => ({
  itemId,
  shipmentId,
  cost: String(cost),
  tax: String(tax),
})

function billing(lines: Record<string, PriceLine>): BillingState {
  return { ...newBillingState('GBP', 'invoice'), lines }
}

const shipment = (id: string, late?: boolean): Shipment => ({
  id,
  dispatchDate: '2026-03-02T10:00:00.000Z',
  carrier: { name: 'DPD', service: 'Next Day' },
  fulfillmentLocation: { countryCode: 'GB', labCode: 'lab' },
  tracking: null,
  items: [{ itemId: 'ori_1' }],
  status: 'Shipped',
  cancelled: false,
  ...(late === undefined ? {} : { deliveredAt: '2026-03-06T12:00:00.000Z', deliveredLate: late }),
})

const firstCharge: Charge = {
  id: 'chg_1',
  chargeType: 'Item',
  prodigiInvoiceNumber: 'INV-000001',
  totalCost: { amount: '20.40', currency: 'GBP' },
  totalTax: { amount: '3.40', currency: 'GBP' },
  items: [
    {
      id: 'chi_1',
      chargeType: 'Item',
      itemId: 'ori_1',
      shipmentId: 'shp_1',
      cost: { amount: '10.00', currency: 'GBP' },
    },
    {
      id: 'chi_2',
      chargeType: 'Shipping',
      itemId: null,
      shipmentId: 'shp_1',
      cost: { amount: '7.00', currency: 'GBP' },
    },
  ],
}

function order(shipments: Shipment[], charges: Charge[] = [firstCharge]): OrderDocument {
  return { id: 'ord_1', charges, shipments, status: { stage: 'Complete' } } as unknown as OrderDocument
}

const charged = () =>
  billing({ 'item:ori_1': line('ori_1', 'shp_1', 1000, 200), 'shipping:shp_1': line(null, 'shp_1', 700, 140) })

test('the credit is the share of the charged shipping, tax included, rounded half-up once', () => {
  assert.equal(lateDeliveryCreditMinor(840n, 5000), 420n)
  assert.equal(lateDeliveryCreditMinor(835n, 5000), 418n, '417.5 rounds up')
  assert.equal(lateDeliveryCreditMinor(833n, 5000), 417n, '416.5 rounds up')
  assert.equal(lateDeliveryCreditMinor(1000n, 3333), 333n, '333.3 rounds down')
  assert.equal(lateDeliveryCreditMinor(999n, 10000), 999n, '100%: all of it')
  assert.equal(lateDeliveryCreditMinor(0n, 5000), 0n, 'shipping charged nothing: nothing')
  assert.equal(lateDeliveryCreditMinor(-100n, 5000), 0n)
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 1, max: 10000 }), (gross, bp) => {
      const credit = lateDeliveryCreditMinor(gross, bp)
      // Within half a minor unit of the exact share, never more than what was charged.
      const exact2 = 2n * gross * BigInt(bp)
      assert.ok(credit * 20000n - exact2 <= 10000n && exact2 - credit * 20000n < 10000n)
      assert.ok(credit <= gross)
    }),
  )
})

test('a late shipment on a guaranteed method is due its credit; on time, unguaranteed or unbilled it is not', () => {
  const due = lateDeliveryCreditRequest(order([shipment('shp_1', true)]), charged(), 'shp_1', HALF)
  assert.deepEqual(due, { reason: 'LateDelivery', shipmentId: 'shp_1', amountMinor: 420n })
  assert.equal(lateDeliveryCreditRequest(order([shipment('shp_1', false)]), charged(), 'shp_1', HALF), undefined)
  assert.equal(lateDeliveryCreditRequest(order([shipment('shp_1')]), charged(), 'shp_1', HALF), undefined)
  assert.equal(lateDeliveryCreditRequest(order([shipment('shp_1', true)]), charged(), 'shp_1', undefined), undefined)
  assert.equal(lateDeliveryCreditRequest(order([shipment('shp_1', true)]), undefined, 'shp_1', HALF), undefined)
  assert.equal(lateDeliveryCreditRequest(order([shipment('shp_1', true)]), charged(), 'shp_9', HALF), undefined)
  const freeShipping = billing({ 'item:ori_1': line('ori_1', 'shp_1', 1000, 200) })
  assert.equal(lateDeliveryCreditRequest(order([shipment('shp_1', true)]), freeShipping, 'shp_1', HALF), undefined)
})

test('once only: a shipment with its credit is due no other, whatever is reported again', () => {
  const document = order([shipment('shp_1', true), shipment('shp_2', true)])
  const lines = charged()
  const request = lateDeliveryCreditRequest(document, lines, 'shp_1', HALF)
  assert.ok(request)
  const draft = creditDraft(document, lines, request)
  assert.ok(draft)
  addCredit(document, creditOf(draft, { creditId: 'crd_1', creditNote: 'CN-000001' }, 'GBP', new Date(0)))
  assert.equal(hasLateDeliveryCredit(document, 'shp_1'), true)
  assert.equal(hasLateDeliveryCredit(document, 'shp_2'), false)
  assert.equal(lateDeliveryCreditRequest(document, lines, 'shp_1', HALF), undefined)
})

test('the draft credits the charge that took the shipping, as a credit line carrying the order tax share', () => {
  const document = order([shipment('shp_1', true)])
  const lines = charged()
  const draft = creditDraft(document, lines, { reason: 'LateDelivery', shipmentId: 'shp_1', amountMinor: 420n })
  assert.ok(draft)
  assert.equal(draft.chargeId, 'chg_1')
  assert.equal(draft.amountMinor, 420n)
  assert.deepEqual(draft.lines['credit:chg_1:1'], { itemId: null, shipmentId: '', cost: '-350', tax: '-70' })
  assert.equal(netCharged(draft.lines).total, 2040n - 420n)
})

test('the draft is capped by what the charge may still give back, and is nothing once all is given back', () => {
  const document = order([shipment('shp_1', true)])
  const lines = billing({ ...charged().lines, 'credit:chg_1:1': line(null, '', -1600, -320) })
  const draft = creditDraft(document, lines, { reason: 'LateDelivery', shipmentId: 'shp_1', amountMinor: 420n })
  assert.equal(draft?.amountMinor, 120n)
  const all = billing({ ...charged().lines, 'credit:chg_1:1': line(null, '', -1700, -340) })
  assert.equal(
    creditDraft(document, all, { reason: 'LateDelivery', shipmentId: 'shp_1', amountMinor: 420n }),
    undefined,
  )
  assert.equal(creditDraft(order([shipment('shp_1', true)], []), charged(), draft?.request ?? ({} as never)), undefined)
})

test("an exact amount (the operator's) above what the charge may still give back is refused, not capped", () => {
  const document = order([shipment('shp_1', true)])
  const lines = billing({ ...charged().lines, 'credit:chg_1:1': line(null, '', -1600, -320) })
  const request = { reason: 'Claim' as const, shipmentId: 'shp_1', claimId: 'clm_1', exact: true }
  assert.throws(
    () => creditDraft(document, lines, { ...request, amountMinor: 121n }),
    (error: unknown) => error instanceof CreditAboveRefundable && error.refundableMinor === 120n,
  )
  assert.equal(creditDraft(document, lines, { ...request, amountMinor: 120n })?.amountMinor, 120n, 'all that is left')
  assert.equal(creditDraft(document, charged(), { ...request, amountMinor: 0n }), undefined)
})

test('a charge that did not take the shipment shipping: the first charge that took money', () => {
  const other: Charge = { ...firstCharge, id: 'chg_5', items: [] }
  assert.equal(creditedCharge(order([], [other, firstCharge]), 'shp_1')?.id, 'chg_1')
  assert.equal(creditedCharge(order([], [other, firstCharge]), 'shp_7')?.id, 'chg_5')
  assert.equal(creditedCharge(order([], [other]), null)?.id, 'chg_5')
})

test('credits is the last key, kept last when the order is delivered after a credit; a claim credit names its claim', () => {
  const late = shipment('shp_1', true)
  const document = {
    ...order([late, { ...shipment('shp_2'), trackingEvents: [] }]),
    deliverBy: '2026-03-04',
  } as OrderDocument
  const draft = creditDraft(document, charged(), {
    reason: 'Claim',
    shipmentId: null,
    claimId: 'clm_3',
    amountMinor: 100n,
  })
  assert.ok(draft)
  const credit = creditOf(draft, { creditId: 'crd_2', creditNote: null }, 'GBP', new Date('2026-03-07T00:00:00.000Z'))
  assert.deepEqual(Object.keys(credit), ['id', 'reason', 'shipmentId', 'amount', 'creditNote', 'issuedAt', 'claimId'])
  assert.deepEqual(credit.amount, { amount: '1.00', currency: 'GBP' })
  addCredit(document, credit)
  assert.equal(Object.keys(document).at(-1), 'credits')
  const onOrder = document.shipments[1] as Shipment
  applyTrackingEvents(
    document,
    onOrder,
    [{ time: '2026-03-03T10:00:00.000Z', status: 'Delivered', description: 'x' }],
    undefined,
  )
  assert.equal(document.deliveredAt, '2026-03-06T12:00:00.000Z')
  assert.deepEqual(Object.keys(document).slice(-3), ['deliveredAt', 'deliveredLate', 'credits'])
  assert.deepEqual(creditIssuedEvent(credit), { kind: 'creditIssued', creditId: 'crd_2', credit: { ...credit } })
})
