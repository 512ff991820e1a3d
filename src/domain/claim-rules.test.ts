// The rules of a new claim (docs/claims.md#rules), on orders made up in place: the window after delivery (or
// dispatch), a missing parcel's window after its estimated delivery, one open claim per item, one lab per claim,
// photos as the category asks, and the retraction of Pending claims only.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import {
  type ClaimFacts,
  itemClaimDeadline,
  missingParcelRuleDue,
  missingParcelWindow,
  planClaim,
  retractRefusal,
} from './claim-rules.ts'
import type { OrderDocument, Shipment } from './order.ts'

tier('pure')

function shipment(id: string, itemIds: string[], extra: Partial<Shipment> = {}): Shipment {
  return {
    id,
    dispatchDate: '2026-03-02T10:00:00.000Z',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    fulfillmentLocation: { countryCode: 'GB', labCode: 'uk6' },
    tracking: null,
    items: itemIds.map((itemId) => ({ itemId })),
    status: 'Shipped',
    cancelled: false,
    estimatedDelivery: { from: '2026-03-04', to: '2026-03-06' },
    ...extra,
  }
}

function order(shipments: Shipment[]): OrderDocument {
  const itemIds = shipments.flatMap((each) => each.items.map((item) => item.itemId))
  return {
    id: 'ord_1',
    status: { stage: 'Complete' },
    items: itemIds.map((id) => ({ id })),
    shipments,
  } as unknown as OrderDocument
}

const facts = (overrides: Partial<ClaimFacts> = {}): ClaimFacts => ({
  now: new Date('2026-03-10T00:00:00Z'),
  windowDays: 30,
  evidence: new Map([[1, { id: 1, used: false, createdAt: new Date('2026-03-09T12:00:00Z') }]]),
  openClaims: new Map(),
  ...overrides,
})

const damaged = (itemId: string, evidence = ['evd_1']) => ({
  items: [{ itemId, category: 'Damaged', description: 'Crushed', evidence }],
})

test('the window runs from delivery, or from dispatch when never delivered', () => {
  const delivered = shipment('shp_1', ['ori_1'], { deliveredAt: '2026-03-05T12:00:00.000Z' })
  assert.equal(itemClaimDeadline(delivered, 30)?.toISOString(), '2026-04-04T12:00:00.000Z')
  assert.equal(itemClaimDeadline(shipment('shp_1', ['ori_1']), 30)?.toISOString(), '2026-04-01T10:00:00.000Z')
  const missing = { items: [{ itemId: 'ori_1', category: 'MissingItem', description: 'Gone' }] }
  const inTime = planClaim(order([delivered]), missing, facts({ now: new Date('2026-04-04T12:00:00Z') }))
  assert.equal(inTime.kind, 'planned')
  const late = planClaim(order([delivered]), missing, facts({ now: new Date('2026-04-04T12:00:01Z') }))
  assert.equal(late.kind === 'refused' && late.failures['items[0].itemId']?.[0]?.code, 'ClaimWindowClosed')
})

test('a missing parcel may be reported from the end of its estimated delivery day to the window after it', () => {
  const window = missingParcelWindow(shipment('shp_1', ['ori_1']), 30)
  assert.equal(window?.from.toISOString(), '2026-03-07T00:00:00.000Z')
  assert.equal(window?.to.toISOString(), '2026-04-06T00:00:00.000Z')
  const request = { category: 'PackageMissing', shipmentId: 'shp_1' }
  const early = planClaim(
    order([shipment('shp_1', ['ori_1'])]),
    request,
    facts({ now: new Date('2026-03-06T23:00:00Z') }),
  )
  assert.equal(early.kind === 'refused' && early.failures.shipmentId?.[0]?.code, 'NotYetDue')
  const made = planClaim(order([shipment('shp_1', ['ori_1', 'ori_2'])]), request, facts())
  assert.equal(made.kind, 'planned')
  if (made.kind === 'planned') {
    assert.equal(made.claim.shipmentNumber, 1)
    assert.deepEqual(
      made.claim.items.map((item) => [item.itemId, item.category]),
      [
        ['ori_1', 'PackageMissing'],
        ['ori_2', 'PackageMissing'],
      ],
    )
  }
  const delivered = order([shipment('shp_1', ['ori_1'], { deliveryStatus: 'Delivered' })])
  const refused = planClaim(delivered, request, facts())
  assert.equal(refused.kind === 'refused' && refused.failures.shipmentId?.[0]?.code, 'ShipmentDelivered')
})

test('items and a shipment at once, or neither, are refused naming the field', () => {
  const document = order([shipment('shp_1', ['ori_1'])])
  const both = planClaim(document, { ...damaged('ori_1'), shipmentId: 'shp_1', category: 'PackageMissing' }, facts())
  assert.equal(both.kind === 'refused' && both.failures.shipmentId?.[0]?.code, 'InvalidValue')
  const neither = planClaim(document, {}, facts())
  assert.equal(neither.kind === 'refused' && neither.failures.items?.[0]?.code, 'Required')
})

test('one open claim per item, one lab per claim, photos as the category asks', () => {
  const twoLabs = order([
    shipment('shp_1', ['ori_1']),
    shipment('shp_2', ['ori_2'], { fulfillmentLocation: { countryCode: 'US', labCode: 'us1' } }),
  ])
  const open = planClaim(twoLabs, damaged('ori_1'), facts({ openClaims: new Map([[1, 'clm_4']]) }))
  assert.deepEqual(open.kind === 'refused' && open.failures['items[0].itemId'], [
    { code: 'ClaimAlreadyOpen', providedValue: 'ori_1', comparisonValue: 'clm_4' },
  ])
  const mixed = planClaim(
    twoLabs,
    {
      items: [
        { itemId: 'ori_1', category: 'MissingItem', description: 'Gone' },
        { itemId: 'ori_2', category: 'MissingItem', description: 'Gone' },
      ],
    },
    facts(),
  )
  assert.equal(mixed.kind === 'refused' && mixed.failures['items[1].itemId']?.[0]?.code, 'LabsDiffer')
  const noPhoto = planClaim(twoLabs, damaged('ori_1', []), facts())
  assert.equal(noPhoto.kind === 'refused' && noPhoto.failures['items[0].evidence']?.[0]?.code, 'TooFew')
  const unknown = planClaim(twoLabs, damaged('ori_1', ['evd_2']), facts())
  assert.deepEqual(unknown, { kind: 'evidenceNotFound', evidenceId: 'evd_2' })
  const used = facts({ evidence: new Map([[1, { id: 1, used: true, createdAt: new Date('2026-03-09T12:00:00Z') }]]) })
  const again = planClaim(twoLabs, damaged('ori_1'), used)
  assert.equal(again.kind === 'refused' && again.failures['items[0].evidence[0]']?.[0]?.code, 'EvidenceAlreadyUsed')
  const planned = planClaim(twoLabs, damaged('ori_1'), facts())
  assert.equal(planned.kind === 'planned' && planned.claim.labCode, 'uk6')
})

test('an unshipped or cancelled item is refused', () => {
  const processing = order([shipment('shp_1', ['ori_1'], { status: 'Processing' })])
  const early = planClaim(processing, damaged('ori_1'), facts())
  assert.equal(early.kind === 'refused' && early.failures['items[0].itemId']?.[0]?.code, 'ShipmentNotShipped')
  const cancelled = order([shipment('shp_1', ['ori_1'], { status: 'Cancelled', cancelled: true })])
  const late = planClaim(cancelled, damaged('ori_1'), facts())
  assert.equal(late.kind === 'refused' && late.failures['items[0].itemId']?.[0]?.code, 'ShipmentCancelled')
})

test('only a Pending claim may be retracted', () => {
  assert.equal(retractRefusal('Pending'), null)
  for (const status of ['Resolved', 'Rejected', 'Retracted'] as const) {
    assert.deepEqual(retractRefusal(status), {
      status: [{ code: 'InvalidValue', providedValue: status, validValues: ['Pending'] }],
    })
  }
})

test('the missing-parcel rule is due N whole days after the estimated delivery ended, until the claim window closes', () => {
  const tracked = shipment('shp_1', ['ori_1'], { tracking: { number: 'T1', url: 'https://tracking.example.com/1' } })
  // The estimate ends 2026-03-06: the parcel is missing from 03-07 00:00, the rule's 10 days end 03-17 00:00.
  assert.equal(missingParcelRuleDue(tracked, 10, 30, new Date('2026-03-16T23:59:59Z')), false)
  assert.equal(missingParcelRuleDue(tracked, 10, 30, new Date('2026-03-17T00:00:00Z')), true)
  // The claim window (30 days from 03-07) closed: left alone.
  assert.equal(missingParcelRuleDue(tracked, 10, 30, new Date('2026-04-06T00:00:01Z')), false)
  const at = new Date('2026-03-20T00:00:00Z')
  assert.equal(missingParcelRuleDue(tracked, 0, 30, at), false, 'switched off')
  assert.equal(missingParcelRuleDue(shipment('shp_1', ['ori_1']), 10, 30, at), false, 'no tracking')
  assert.equal(missingParcelRuleDue({ ...tracked, deliveryStatus: 'Delivered' }, 10, 30, at), false)
  assert.equal(missingParcelRuleDue({ ...tracked, deliveryStatus: 'InTransit' }, 10, 30, at), true)
  assert.equal(missingParcelRuleDue({ ...tracked, deliveryStatus: 'Returned' }, 10, 30, at), false, 'came back')
  assert.equal(missingParcelRuleDue({ ...tracked, cancelled: true }, 10, 30, at), false)
  assert.equal(missingParcelRuleDue({ ...tracked, status: 'Processing' }, 10, 30, at), false)
})
