// The explanation (explanation.ts): every lab per item, considered or excluded, and the best single lab.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allocated, item, labsOf, smallCatalogueFile, variant } from '../../../test/support/allocation.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import { parseCatalogue } from '../../catalogue/catalogue.loader.ts'
import { allocateShipments } from './allocation.ts'
import type { AllocationRequest } from './model.ts'

tier('pure')

test('explain: every lab per item, considered with its costs or excluded with a reason, and the best single lab', () => {
  const catalogue = parseCatalogue(
    smallCatalogueFile([
      { code: 'a', makes: { SMALL: '1.00', SMALL2: '20.00' } },
      { code: 'b', makes: { SMALL: '20.00', SMALL2: '1.00' } },
      { code: 'c', makes: { SMALL: '2.00' }, methods: ['Express'] },
      { code: 'd', makes: { SMALL: '3.00' } },
    ]),
    'allocation-test.json',
  )
  const request: AllocationRequest = {
    destinationCountryCode: 'FR',
    shippingMethod: 'Standard',
    items: [item('x', variant(catalogue, 'SMALL'), 2), item('y', variant(catalogue, 'SMALL2'))],
    excludedLabsByItem: { x: ['d'] },
    exclusionReasons: { x: { d: 'OutOfStock' } },
  }
  const result = allocateShipments(catalogue, request, { explain: true })
  assert.deepEqual(labsOf(result), { a: ['x'], b: ['y'] })
  const gbp = (minor: bigint) => ({ minor, currency: 'GBP' })
  assert.deepEqual(result.explanation?.items, [
    {
      itemId: 'x',
      considered: [
        // 2 copies alone: perShipment 3.00 + perAdditionalItem 1.00.
        { labCode: 'a', labCountryCode: 'GB', unitCost: gbp(100n), shippingCost: gbp(400n) },
        { labCode: 'b', labCountryCode: 'GB', unitCost: gbp(2000n), shippingCost: gbp(400n) },
      ],
      excluded: [
        { labCode: 'c', reason: 'DoesNotShipThere' },
        { labCode: 'd', reason: 'OutOfStock' },
      ],
    },
    {
      itemId: 'y',
      considered: [
        { labCode: 'a', labCountryCode: 'GB', unitCost: gbp(2000n), shippingCost: gbp(300n) },
        { labCode: 'b', labCountryCode: 'GB', unitCost: gbp(100n), shippingCost: gbp(300n) },
      ],
      excluded: [
        { labCode: 'c', reason: 'DoesNotMakeProduct' },
        { labCode: 'd', reason: 'DoesNotMakeProduct' },
      ],
    },
  ])
  // The split costs (2 + 3 + 1) + (1 + 3) = 10.00; a alone 2 + 20 + 3 + 2 x 1 = 27.00, b alone 40 + 1 + 5 = 46.00.
  assert.equal(allocated(result).totalCostInBaseCurrency.minor, 1000n)
  assert.equal(result.explanation?.bestUnsplit?.labCode, 'a')
  assert.deepEqual(result.explanation?.bestUnsplit?.costInBaseCurrency, gbp(2700n))
  // Without explain the result is as before; with it, no single lab: bestUnsplit null.
  assert.equal(allocateShipments(catalogue, request).explanation, undefined)
  const noSingleLab = allocateShipments(
    catalogue,
    { ...request, excludedLabsByItem: { x: ['b'], y: ['a'] } },
    { explain: true },
  )
  assert.equal(noSingleLab.explanation?.bestUnsplit, null)
  // An exclusion without a recorded reason reads as Rejected.
  assert.deepEqual(noSingleLab.explanation?.items[0]?.excluded[0], { labCode: 'b', reason: 'Rejected' })
})
