// The exact search (exact-search.ts): costs in bigint beyond float64, the brute-force optimum on random small
// instances, the tie key over two float64 parts, and the measured time of its worst case.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import {
  allocated,
  allocateOn,
  assertValidAllocation,
  bruteForce,
  buildInstance,
  decimal,
  denseCatalogue,
  denseRequest,
  instanceArbitrary,
  item,
  labCodesByItem,
  smallCatalogueFile,
  timeRuns,
  variant,
} from '../../../test/support/allocation.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import { parseCatalogue } from '../../catalogue/catalogue.loader.ts'
import { allocateShipments, allocateShipmentsHeuristically, EXACT_ALLOCATION_MAX_ITEMS } from './allocation.ts'
import type { AllocationRequest } from './model.ts'

tier('pure')

test('shipments too dear to convert in float64 are costed in bigint', () => {
  // 100 copies at 99,999,999.99 = about 10^12 minor units: conversion needs bigint, the search itself does not.
  const dear = '99999999.99'
  const { result } = allocateOn(
    [
      { code: 'a', makes: { SMALL: dear, SMALL2: '99999999.98' }, costs: { small: ['5.00', '0.01'] } },
      { code: 'b', currency: 'USD', makes: { SMALL: '99999999.97', SMALL2: dear } },
      { code: 'c', makes: { SMALL: '1.00' } },
    ],
    [
      ['x', 'SMALL', 100],
      ['y', 'SMALL2', 100],
      ['z', 'SMALL', 99],
    ],
  )
  assert.equal(allocated(result).method, 'exact')
})

test('costs beyond 2^53 minor units use the same exact search in bigint', () => {
  // 10,000 copies at 999,999,999,999.99 = about 10^18 minor units per item: far beyond float64 integers.
  const huge = '999999999999.99'
  const { result, totalCostInBaseCurrency } = allocateOn(
    [
      { code: 'a', makes: { SMALL: huge, SMALL2: '999999999999.98' }, costs: { small: [huge, '0.01'] } },
      // A copy of `a` under a later code: ties, broken in bigint too.
      { code: 'c', makes: { SMALL: huge, SMALL2: '999999999999.98' }, costs: { small: [huge, '0.01'] } },
      {
        code: 'b',
        currency: 'EUR',
        makes: { SMALL: '999999999999.97', SMALL2: huge },
        costs: { small: [huge, '0.02'] },
      },
    ],
    [
      ['x', 'SMALL', 10_000],
      ['y', 'SMALL2', 10_000],
      ['z', 'SMALL', 9_999],
    ],
  )
  assert.ok(totalCostInBaseCurrency.minor > BigInt(Number.MAX_SAFE_INTEGER))
  assert.equal(allocated(result).method, 'exact')
})

test('property: the exact allocation equals the brute-force optimum, tie-break included, and is valid', () => {
  let splits = 0
  let unavailable = 0
  fc.assert(
    fc.property(instanceArbitrary, (instance) => {
      const { catalogue, request } = buildInstance(instance)
      const result = allocateShipments(catalogue, request)
      const reference = bruteForce(catalogue, request)
      if ('unavailableItemIds' in reference) {
        unavailable++
        assert.deepEqual(result, { ok: false, unavailableItemIds: reference.unavailableItemIds })
        return
      }
      assertValidAllocation(catalogue, request, result)
      assert.equal(allocated(result).totalCostInBaseCurrency.minor, reference.cost)
      assert.equal(allocated(result).shipments.length, reference.shipmentCount)
      assert.deepEqual(labCodesByItem(request, result), reference.labCodes)
      if (reference.shipmentCount > 1) splits++
    }),
    { numRuns: 400 },
  )
  // The generator must reach the interesting cases, not only single-lab or impossible orders.
  assert.ok(splits > 20, `only ${splits} split orders`)
  assert.ok(unavailable > 5, `only ${unavailable} impossible orders`)
})

test('property: with amounts beyond float64 integers the bigint search agrees with the brute force', () => {
  let beyond = 0
  fc.assert(
    fc.property(instanceArbitrary, (instance) => {
      // Up to 6.00 x 10^10 per unit and 3,000 copies: shipments of up to about 10^16 minor units.
      const { catalogue, request } = buildInstance(instance, { amounts: 10n ** 10n, copies: 1_000 })
      const result = allocateShipments(catalogue, request)
      const reference = bruteForce(catalogue, request)
      if ('unavailableItemIds' in reference) return
      assertValidAllocation(catalogue, request, result)
      assert.equal(allocated(result).totalCostInBaseCurrency.minor, reference.cost)
      assert.deepEqual(labCodesByItem(request, result), reference.labCodes)
      if (reference.cost > BigInt(Number.MAX_SAFE_INTEGER)) beyond++
    }),
    { numRuns: 100 },
  )
  assert.ok(beyond > 10, `only ${beyond} instances beyond 2^53`)
})

test('property: with 25 labs the tie key spans two float64 parts and still breaks ties item by item', () => {
  // 25^12 > 2^53, so the lab-per-item key is split after 11 items. Item 0 is pinned to a late lab (so the first
  // part's key is large), items 1-4 and 6-10 to random labs (every other lab excluded); items 5 and 11 are free, one
  // in each part, so the brute force stays at 25 x 25 assignments.
  const codes = Array.from({ length: 25 }, (_, index) => `lab${String(index).padStart(2, '0')}`)
  const cents = fc.integer({ min: 0, max: 2 }).map((units) => decimal(units * 100))
  fc.assert(
    fc.property(
      fc.array(fc.record({ small: cents, large: cents, shipping: fc.tuple(cents, cents) }), {
        minLength: 25,
        maxLength: 25,
      }),
      fc.integer({ min: 13, max: 24 }),
      fc.array(fc.nat(24), { minLength: 9, maxLength: 9 }),
      fc.array(fc.constantFrom('SMALL', 'LARGE'), { minLength: 12, maxLength: 12 }),
      (labs, firstLab, otherLabs, skus) => {
        const catalogue = parseCatalogue(
          smallCatalogueFile(
            labs.map(({ small, large, shipping }, index) => ({
              code: codes[index] ?? 'x',
              makes: { SMALL: small, LARGE: large },
              costs: { small: shipping, large: shipping },
            })),
          ),
          'many-labs.json',
        )
        const items = skus.map((sku, index) => item(`i${index}`, variant(catalogue, sku)))
        const pinned = [firstLab, ...otherLabs.slice(0, 4), null, ...otherLabs.slice(4)]
        const excludedLabsByItem = Object.fromEntries(
          pinned.flatMap((lab, index) =>
            lab === null ? [] : [[`i${index}`, codes.filter((_, other) => other !== lab)]],
          ),
        )
        const request: AllocationRequest = {
          destinationCountryCode: 'FR',
          shippingMethod: 'Standard',
          items,
          excludedLabsByItem,
        }
        const result = allocateShipments(catalogue, request)
        const reference = bruteForce(catalogue, request)
        assert.ok('cost' in reference)
        assertValidAllocation(catalogue, request, result)
        assert.equal(allocated(result).totalCostInBaseCurrency.minor, reference.cost)
        assert.deepEqual(labCodesByItem(request, result), reference.labCodes)
      },
    ),
    { numRuns: 100 },
  )
})

test(`timing: ${EXACT_ALLOCATION_MAX_ITEMS} items x 10 labs that all make everything (worst case of the exact search)`, (t) => {
  for (const [name, catalogue] of [
    ['distinct costs, 5 currencies', denseCatalogue(10, 12)],
    ['identical labs (every subset ties)', denseCatalogue(10, 12, true)],
  ] as const) {
    const request = denseRequest(catalogue, EXACT_ALLOCATION_MAX_ITEMS)
    const result = allocateShipments(catalogue, request)
    assertValidAllocation(catalogue, request, result)
    assert.equal(allocated(result).method, 'exact')
    // The heuristic can only match or lose against a proven optimum.
    const heuristic = allocateShipmentsHeuristically(catalogue, request)
    assertValidAllocation(catalogue, request, heuristic)
    assert.ok(allocated(heuristic).totalCostInBaseCurrency.minor >= allocated(result).totalCostInBaseCurrency.minor)
    const { median, max } = timeRuns(15, () => allocateShipments(catalogue, request))
    const message = `exact, ${name}: median ${median.toFixed(1)} ms, max ${max.toFixed(1)} ms over 15 runs`
    t.diagnostic(message)
  }
})
