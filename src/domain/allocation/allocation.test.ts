// Lab allocation (allocation.ts) on the sample catalogue and on small catalogues that force each trade-off: splitting,
// consolidating, shipping classes, currencies, rounding, page counts, ties, methods and the labs a request excludes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import {
  allocated,
  allocateOn,
  assertValidAllocation,
  bruteForce,
  buildInstance,
  instanceArbitrary,
  item,
  type LabSpec,
  labCodesByItem,
  labsOf,
  sample,
  smallCatalogueFile,
  variant,
} from '../../../test/support/allocation.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import { parseCatalogue } from '../../catalogue/catalogue.loader.ts'
import { allocateShipments, allocateShipmentsHeuristically } from './allocation.ts'
import type { AllocationItem, AllocationRequest } from './model.ts'

tier('pure')

// ---------------------------------------------------------------------------------------------------------
// The bundled sample catalogue
// ---------------------------------------------------------------------------------------------------------

const sampleCanvas = variant(sample, 'GLOBAL-CAN-10x10', { wrap: 'Black' })
const sampleCase = variant(sample, 'GLOBAL-TECH-IP11P-FC-CP')
const samplePhoto = variant(sample, 'GLOBAL-PHO-4x6', { finish: 'gloss' })
const sampleFineArt = variant(sample, 'GLOBAL-FAP-16x20')

test('sample: a US canvas and an iPhone case split into a US shipment and a GB shipment', () => {
  const request: AllocationRequest = {
    destinationCountryCode: 'US',
    shippingMethod: 'Budget',
    items: [item('ori_1', sampleCanvas), item('ori_2', sampleCase)],
  }
  const result = allocateShipments(sample, request)
  assertValidAllocation(sample, request, result)
  assert.deepEqual(labsOf(result), { prodigi_gb2: ['ori_2'], us1: ['ori_1'] })
  const [gb, us] = allocated(result).shipments
  assert.equal(gb?.labCountryCode, 'GB')
  assert.equal(us?.labCountryCode, 'US')
  assert.deepEqual(us?.productionCost, { minor: 2000n, currency: 'USD' })
  assert.equal(allocated(result).method, 'exact')
})

test('sample: a GB order stays one shipment from one lab when that is cheaper than cheaper production elsewhere', () => {
  const request: AllocationRequest = {
    destinationCountryCode: 'GB',
    shippingMethod: 'Budget',
    items: [item('canvas', sampleCanvas), item('photos', samplePhoto, 2), item('print', sampleFineArt)],
  }
  // The photos alone are cheaper at prodigi_gb2 (0.90 against 1.05), but a second parcel costs more than that.
  const photoLabs = sample.labOptions(samplePhoto, 'GB', 'Budget').map(({ offer }) => offer.lab.code)
  assert.ok(photoLabs.includes('prodigi_gb2') && photoLabs.includes('uk6'))
  const result = allocateShipments(sample, request)
  assertValidAllocation(sample, request, result)
  assert.deepEqual(labsOf(result), { uk6: ['canvas', 'photos', 'print'] })
  // Royal Mail Budget within GB: box 7.95 for the canvas, then envelope 0.50 x 2 and tube 2.00.
  assert.deepEqual(allocated(result).shipments[0]?.shippingCost, { minor: 1095n, currency: 'GBP' })
  assert.deepEqual(bruteForce(sample, request), {
    cost: allocated(result).totalCostInBaseCurrency.minor,
    shipmentCount: 1,
    labCodes: ['uk6', 'uk6', 'uk6'],
  })
})

test('sample: Overnight only uses labs in the destination country', () => {
  for (const [country, lab] of [
    ['GB', 'uk6'],
    ['US', 'us1'],
    ['DE', 'de1'],
    ['NL', 'nl1'],
  ] as const) {
    const request: AllocationRequest = {
      destinationCountryCode: country,
      shippingMethod: 'Overnight',
      items: [item('canvas', sampleCanvas)],
    }
    const result = allocateShipments(sample, request)
    assertValidAllocation(sample, request, result)
    assert.deepEqual(labsOf(result), { [lab]: ['canvas'] }, country)
    assert.equal(allocated(result).shipments[0]?.labCountryCode, country)
  }
  // The iPhone case is made only in GB, so it cannot arrive overnight in the US; the canvas could.
  const result = allocateShipments(sample, {
    destinationCountryCode: 'US',
    shippingMethod: 'Overnight',
    items: [item('canvas', sampleCanvas), item('case', sampleCase)],
  })
  assert.deepEqual(result, { ok: false, unavailableItemIds: ['case'] })
})

test('sample: an excluded lab is avoided and the next-best lab chosen', () => {
  const base: AllocationRequest = {
    destinationCountryCode: 'US',
    shippingMethod: 'Budget',
    items: [item('ori_1', sampleCanvas), item('ori_2', sampleCase)],
  }
  for (const excluded of ['us1', 'US1']) {
    const request = { ...base, excludedLabsByItem: { ori_1: [excluded] } }
    const result = allocateShipments(sample, request)
    assertValidAllocation(sample, { ...request, excludedLabsByItem: { ori_1: ['us1'] } }, result)
    // Without us1 only uk6 makes the canvas and ships it to the US by Budget.
    assert.deepEqual(labsOf(result), { prodigi_gb2: ['ori_2'], uk6: ['ori_1'] })
    const reference = bruteForce(sample, { ...request, excludedLabsByItem: { ori_1: ['us1'] } })
    assert.ok('cost' in reference)
    assert.equal(allocated(result).totalCostInBaseCurrency.minor, reference.cost)
  }
})

test('sample: items no allowed lab can serve make the allocation fail with their ids, in request order', () => {
  const request: AllocationRequest = {
    destinationCountryCode: 'US',
    shippingMethod: 'Budget',
    items: [item('case', sampleCase), item('canvas', sampleCanvas), item('photo', samplePhoto)],
    excludedLabsByItem: { case: ['prodigi_gb2'], canvas: ['us1', 'uk6'] },
  }
  assert.deepEqual(allocateShipments(sample, request), { ok: false, unavailableItemIds: ['case', 'canvas'] })
  assert.deepEqual(allocateShipmentsHeuristically(sample, request), {
    ok: false,
    unavailableItemIds: ['case', 'canvas'],
  })
})

test('sample: reported costs add up across labs and currencies', () => {
  const tee = variant(sample, 'GLOBAL-TEE-BC-3001', { color: 'black', size: 'm' })
  const book = variant(sample, 'PHBK_14_SQ_HPC')
  const request: AllocationRequest = {
    destinationCountryCode: 'US',
    shippingMethod: 'Standard',
    items: [
      item('canvas', sampleCanvas, 2),
      item('case', sampleCase, 3),
      item('tee', tee, 4),
      item('book', book, 1, 60),
      item('photo', samplePhoto, 10),
      item('print', sampleFineArt),
    ],
  }
  const result = allocateShipments(sample, request)
  assertValidAllocation(sample, request, result)
  assert.ok(allocated(result).shipments.length >= 2)
  const reference = bruteForce(sample, request)
  assert.ok('cost' in reference)
  assert.equal(allocated(result).totalCostInBaseCurrency.minor, reference.cost)
  assert.deepEqual(labCodesByItem(request, result), reference.labCodes)
})

test('an empty request allocates nothing at zero cost; malformed requests throw', () => {
  assert.deepEqual(allocateShipments(sample, { destinationCountryCode: 'GB', shippingMethod: 'Budget', items: [] }), {
    ok: true,
    method: 'exact',
    shipments: [],
    totalCostInBaseCurrency: { minor: 0n, currency: 'GBP' },
  })
  const request = (items: AllocationItem[]): AllocationRequest => ({
    destinationCountryCode: 'GB',
    shippingMethod: 'Budget',
    items,
  })
  assert.throws(() => allocateShipments(sample, request([item('a', sampleCanvas), item('a', samplePhoto)])), RangeError)
  assert.throws(() => allocateShipments(sample, request([item('a', sampleCanvas, 0)])), RangeError)
  assert.throws(() => allocateShipments(sample, request([item('a', sampleCanvas, 1.5)])), RangeError)
  const foreign = variant(parseCatalogue(smallCatalogueFile([{ code: 'a', makes: { SMALL: '1.00' } }]), 'x'), 'SMALL')
  assert.throws(() => allocateShipments(sample, request([item('a', { ...foreign, sku: 'NOPE' })])), RangeError)
})

test('an item id that is an Object.prototype member does not read exclusions from the prototype', () => {
  const request: AllocationRequest = {
    destinationCountryCode: 'GB',
    shippingMethod: 'Budget',
    items: [item('constructor', sampleCanvas), item('toString', samplePhoto)],
    excludedLabsByItem: {},
  }
  const result = allocateShipments(sample, request)
  assertValidAllocation(sample, request, result)
  assert.deepEqual(labsOf(result), { uk6: ['constructor', 'toString'] })
})

test('splitting is chosen when each lab is much cheaper for one item', () => {
  const { result, totalCostInBaseCurrency } = allocateOn(
    [
      { code: 'a', makes: { SMALL: '1.00', SMALL2: '20.00' } },
      { code: 'b', makes: { SMALL: '20.00', SMALL2: '1.00' } },
    ],
    [
      ['x', 'SMALL'],
      ['y', 'SMALL2'],
    ],
  )
  assert.deepEqual(labsOf(result), { a: ['x'], b: ['y'] })
  assert.equal(totalCostInBaseCurrency.minor, 800n) // (1.00 + 3.00) x 2, against 1.00 + 20.00 + 3.00 + 1.00
})

test('consolidating is chosen when the saved parcel outweighs cheaper production elsewhere', () => {
  const { result, totalCostInBaseCurrency } = allocateOn(
    [
      { code: 'a', makes: { SMALL: '5.00', SMALL2: '5.00' }, costs: { small: ['3.00', '0.50'] } },
      { code: 'b', makes: { SMALL2: '4.00' }, costs: { small: ['3.00', '0.50'] } },
    ],
    [
      ['x', 'SMALL'],
      ['y', 'SMALL2'],
    ],
  )
  assert.deepEqual(labsOf(result), { a: ['x', 'y'] })
  assert.equal(totalCostInBaseCurrency.minor, 1350n) // 5 + 5 + 3 + 0.50, against (5 + 3) + (4 + 3)
})

test('shipping classes: the largest class pays perShipment, every other copy its own perAdditionalItem', () => {
  // Same production everywhere. a: large 10.00 + small 6.00 extra = 16.00; b: large 11.50 + small 1.00 extra = 12.50;
  // split large@a + small@b = 10.00 + 3.00 = 13.00. Were the small item to pay perShipment, a would win at 4.00.
  const spec = (code: string, large: [string, string], small: [string, string]): LabSpec => ({
    code,
    makes: { SMALL: '1.00', LARGE: '1.00' },
    costs: { large, small },
  })
  const both = allocateOn(
    [spec('a', ['10.00', '1.00'], ['3.00', '6.00']), spec('b', ['11.50', '1.00'], ['3.00', '1.00'])],
    [
      ['small', 'SMALL'],
      ['large', 'LARGE'],
    ],
  )
  assert.deepEqual(labsOf(both.result), { b: ['small', 'large'] })
  assert.deepEqual(both.shipments[0]?.shippingCost, { minor: 1250n, currency: 'GBP' })
  // A small item's extra copy is dear at a (6.00), cheap at b: with two copies of it, the split wins.
  const split = allocateOn(
    [spec('a', ['10.00', '1.00'], ['3.00', '6.00']), spec('b', ['14.00', '1.00'], ['3.00', '1.00'])],
    [
      ['small', 'SMALL', 2],
      ['large', 'LARGE'],
    ],
  )
  assert.deepEqual(labsOf(split.result), { a: ['large'], b: ['small'] })
  assert.equal(split.totalCostInBaseCurrency.minor, 200n + 1000n + 300n + 100n + 100n)
})

test('costs in different currencies are compared in the base currency', () => {
  // 10.00 USD = 8.00 GBP, cheaper than 9.00 GBP although the number is larger.
  const { result, shipments, totalCostInBaseCurrency } = allocateOn(
    [
      { code: 'gbp', makes: { SMALL: '9.00' } },
      { code: 'usd', currency: 'USD', makes: { SMALL: '10.00' }, costs: { small: ['3.75', '1.25'] } },
    ],
    [['x', 'SMALL']],
  )
  assert.deepEqual(labsOf(result), { usd: ['x'] })
  assert.deepEqual(shipments[0]?.productionCost, { minor: 1000n, currency: 'USD' })
  assert.deepEqual(shipments[0]?.shippingCost, { minor: 375n, currency: 'USD' })
  assert.deepEqual(totalCostInBaseCurrency, { minor: 1100n, currency: 'GBP' })
})

test('each shipment is converted once, rounding half-up, and the rounded amounts are what is compared', () => {
  // 0.01 EUR is 0.876 pence, which rounds to 1 penny: a tie with the 1-penny GBP lab, so the earlier code wins.
  // Comparing unrounded amounts would have picked the EUR lab.
  const { result, totalCostInBaseCurrency } = allocateOn(
    [
      { code: 'a', makes: { SMALL: '0.00' }, costs: { small: ['0.01', '0.00'] } },
      { code: 'e', currency: 'EUR', makes: { SMALL: '0.01' }, costs: { small: ['0.00', '0.00'] } },
    ],
    [['x', 'SMALL']],
  )
  assert.deepEqual(labsOf(result), { a: ['x'] })
  assert.equal(totalCostInBaseCurrency.minor, 1n)
})

test('page counts change production cost and so the lab', () => {
  const labs: LabSpec[] = [
    { code: 'a', makes: { BOOK: '10.00' }, perAdditionalPageCost: '0.10' },
    { code: 'b', makes: { BOOK: '12.00' }, perAdditionalPageCost: '0.01' },
  ]
  assert.deepEqual(labsOf(allocateOn(labs, [['book', 'BOOK', 1, 20]]).result), { a: ['book'] })
  const thick = allocateOn(labs, [['book', 'BOOK', 1, 100]])
  assert.deepEqual(labsOf(thick.result), { b: ['book'] })
  assert.deepEqual(thick.shipments[0]?.items[0]?.unitCost, { minor: 1280n, currency: 'GBP' })
})

test('ties: fewer shipments first, then earlier lab codes item by item', () => {
  // Split x@a + y@b = (1 + 2) + (1 + 2) = 6.00 = both at a: 1 + 3 + 2 + 0. One shipment wins.
  const fewer = allocateOn(
    [
      { code: 'a', makes: { SMALL: '1.00', SMALL2: '3.00' }, costs: { small: ['2.00', '0.00'] } },
      { code: 'b', makes: { SMALL2: '1.00' }, costs: { small: ['2.00', '0.00'] } },
    ],
    [
      ['x', 'SMALL'],
      ['y', 'SMALL2'],
    ],
  )
  assert.deepEqual(labsOf(fewer.result), { a: ['x', 'y'] })
  // Identical labs listed in reverse code order: the earlier code wins, whatever the file order.
  const identical = allocateOn(
    [
      { code: 'zeta', makes: { SMALL: '1.00', LARGE: '2.00' } },
      { code: 'alpha', makes: { SMALL: '1.00', LARGE: '2.00' } },
      { code: 'mid', makes: { SMALL: '1.00', LARGE: '2.00' } },
    ],
    [
      ['x', 'SMALL'],
      ['y', 'LARGE'],
    ],
  )
  assert.deepEqual(labsOf(identical.result), { alpha: ['x', 'y'] })
})

test('a lab without a rate for the method is not used', () => {
  const { result } = allocateOn(
    [
      { code: 'a', makes: { SMALL: '1.00' }, methods: ['Budget'] },
      { code: 'b', makes: { SMALL: '5.00' }, methods: ['Standard', 'Budget'] },
    ],
    [['x', 'SMALL']],
  )
  assert.deepEqual(labsOf(result), { b: ['x'] })
})

test('property: allocation is deterministic and does not depend on the order labs are listed in', () => {
  fc.assert(
    fc.property(instanceArbitrary, (instance) => {
      const { catalogue, request } = buildInstance(instance)
      const first = allocateShipments(catalogue, request)
      assert.deepEqual(allocateShipments(catalogue, request), first)
      // The same labs under the same codes, listed in the file in reverse order.
      const pairs = instance.codes.map((code, index) => [code, instance.labs[index]] as const).reverse()
      const relisted = buildInstance({
        ...instance,
        codes: pairs.map(([code]) => code),
        labs: pairs.map(([, lab]) => lab ?? assert.fail('lab')),
      })
      const again = allocateShipments(relisted.catalogue, {
        ...relisted.request,
        excludedLabsByItem: request.excludedLabsByItem,
      })
      assert.deepEqual(again, first)
    }),
    { numRuns: 150 },
  )
})

test('unavailable labs are excluded for every item with their reason; a reason of the order history comes first', () => {
  const catalogue = parseCatalogue(
    smallCatalogueFile([
      { code: 'a', makes: { SMALL: '1.00', SMALL2: '1.00' } },
      { code: 'b', makes: { SMALL: '2.00', SMALL2: '2.00' } },
      { code: 'c', makes: { SMALL: '3.00', SMALL2: '3.00' } },
    ]),
    'allocation-test.json',
  )
  const request: AllocationRequest = {
    destinationCountryCode: 'FR',
    shippingMethod: 'Standard',
    items: [item('x', variant(catalogue, 'SMALL')), item('y', variant(catalogue, 'SMALL2'))],
    excludedLabsByItem: { x: ['b'] },
    unavailableLabs: { a: 'AtCapacity', b: 'LabPaused' },
  }
  const result = allocateShipments(catalogue, request, { explain: true })
  assert.deepEqual(labsOf(result), { c: ['x', 'y'] }, 'the cheapest labs are skipped')
  const excluded = result.explanation?.items.map((entry) => [entry.itemId, entry.excluded])
  assert.deepEqual(excluded, [
    [
      'x',
      [
        { labCode: 'a', reason: 'AtCapacity' },
        { labCode: 'b', reason: 'Rejected' },
      ],
    ],
    [
      'y',
      [
        { labCode: 'a', reason: 'AtCapacity' },
        { labCode: 'b', reason: 'LabPaused' },
      ],
    ],
  ])
  const none = allocateShipments(catalogue, {
    ...request,
    unavailableLabs: { a: 'LabPaused', b: 'LabPaused', c: 'AtCapacity' },
  })
  assert.equal(none.ok, false, 'no lab left: the items are unavailable')
})
