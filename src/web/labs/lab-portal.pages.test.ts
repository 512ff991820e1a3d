import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import type { LabJobView } from '../../domain/lab-jobs.ts'
import { queueOf } from './lab-portal.pages.ts'

tier('pure')

const job = (shipmentId: string, state: string, shipBy: string | undefined, priority: LabJobView['priority']) =>
  ({
    shipmentId,
    orderId: 'ord_1',
    state,
    shippingMethod: 'Standard',
    recipient: {
      name: 'Ada',
      email: null,
      phoneNumber: null,
      address: {
        line1: '1 Street',
        line2: null,
        postalOrZipCode: 'EC1A 1BB',
        countryCode: 'GB',
        townOrCity: 'London',
        stateOrCounty: null,
      },
    },
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    items: [],
    ...(shipBy ? { shipBy } : {}),
    priority,
    packingSlipPdf: null,
    packingSlip: null,
    branding: null,
    parcels: [],
  }) satisfies LabJobView

const JOBS = [
  job('shp_1', 'submitted', '2026-12-03', 'normal'),
  job('shp_2', 'acknowledged', '2026-12-01', 'normal'),
  job('shp_3', 'inProduction', undefined, 'urgent'),
  job('shp_4', 'submitted', '2026-12-01', 'urgent'),
  job('shp_5', 'acknowledged', '2026-11-30', 'high'),
]
const ids = (jobs: LabJobView[]) => jobs.map((entry) => entry.shipmentId)

test('the queue: earliest ship-by first, then the most urgent; jobs without a ship-by date last', () => {
  assert.deepEqual(ids(queueOf(JOBS, 'all', '2026-12-01')), ['shp_5', 'shp_4', 'shp_2', 'shp_1', 'shp_3'])
})

test("each view: new, acknowledged, in production, and overdue (ship-by before the lab's today)", () => {
  assert.deepEqual(ids(queueOf(JOBS, 'new', '2026-12-01')), ['shp_4', 'shp_1'])
  assert.deepEqual(ids(queueOf(JOBS, 'acknowledged', '2026-12-01')), ['shp_5', 'shp_2'])
  assert.deepEqual(ids(queueOf(JOBS, 'inProduction', '2026-12-01')), ['shp_3'])
  assert.deepEqual(ids(queueOf(JOBS, 'overdue', '2026-12-01')), ['shp_5'], 'a ship-by date of today is not overdue')
  assert.deepEqual(ids(queueOf(JOBS, 'overdue', '2026-12-02')), ['shp_5', 'shp_4', 'shp_2'])
})
