// The heuristic (heuristic.ts): valid, deterministic, never cheaper than the exact optimum, and fast on 100 items.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import {
  allocated,
  assertValidAllocation,
  bruteForce,
  buildInstance,
  denseCatalogue,
  denseRequest,
  instanceArbitrary,
  item,
  timeRuns,
  variant,
} from '../../../test/support/allocation.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import { allocateShipments, allocateShipmentsHeuristically, EXACT_ALLOCATION_MAX_ITEMS } from './allocation.ts'
import type { AllocationRequest } from './model.ts'

tier('pure')

test('property: the heuristic is valid, deterministic and never cheaper than the optimum', (t) => {
  let equal = 0
  let runs = 0
  fc.assert(
    fc.property(instanceArbitrary, (instance) => {
      const { catalogue, request } = buildInstance(instance)
      const result = allocateShipmentsHeuristically(catalogue, request)
      const reference = bruteForce(catalogue, request)
      if ('unavailableItemIds' in reference) {
        assert.deepEqual(result, { ok: false, unavailableItemIds: reference.unavailableItemIds })
        return
      }
      assertValidAllocation(catalogue, request, result)
      assert.equal(allocated(result).method, 'heuristic')
      assert.ok(allocated(result).totalCostInBaseCurrency.minor >= reference.cost)
      assert.deepEqual(allocateShipmentsHeuristically(catalogue, request), result)
      runs++
      if (allocated(result).totalCostInBaseCurrency.minor === reference.cost) equal++
    }),
    { numRuns: 300 },
  )
  // Informational: how often local search finds the optimum on these instances.
  t.diagnostic(`heuristic matched the optimum in ${equal} of ${runs} random instances`)
})

test('above the exact limit the heuristic allocates 100 items, deterministically', (t) => {
  const catalogue = denseCatalogue(10, 12)
  for (const itemCount of [EXACT_ALLOCATION_MAX_ITEMS + 1, 40, 100]) {
    const request = denseRequest(catalogue, itemCount)
    const result = allocateShipments(catalogue, request)
    assertValidAllocation(catalogue, request, result)
    assert.equal(allocated(result).method, 'heuristic')
    assert.deepEqual(allocateShipments(catalogue, request), result)
    const { median, max } = timeRuns(5, () => allocateShipments(catalogue, request))
    const message = `heuristic, ${itemCount} items x 10 labs: median ${median.toFixed(1)} ms, max ${max.toFixed(1)} ms`
    t.diagnostic(message)
  }
})

test('property: on 7 to 12 items the heuristic never beats the exact search', () => {
  const catalogue = denseCatalogue(6, 12)
  const labCodes = catalogue.labs.map(({ code }) => code)
  fc.assert(
    fc.property(
      fc.array(fc.record({ product: fc.nat(11), copies: fc.integer({ min: 1, max: 4 }) }), {
        minLength: 7,
        maxLength: 12,
      }),
      fc.array(fc.tuple(fc.nat(11), fc.constantFrom(...labCodes)), { maxLength: 20 }),
      (items, exclusions) => {
        const request: AllocationRequest = {
          destinationCountryCode: 'FR',
          shippingMethod: 'Standard',
          items: items.map(({ product, copies }, index) =>
            item(`i${index}`, variant(catalogue, `P${product}`), copies),
          ),
          excludedLabsByItem: {},
        }
        for (const [itemIndex, code] of exclusions) {
          const id = `i${itemIndex % items.length}`
          const excluded = request.excludedLabsByItem as Record<string, string[]>
          excluded[id] = [...(excluded[id] ?? []), code]
        }
        const exact = allocateShipments(catalogue, request)
        const heuristic = allocateShipmentsHeuristically(catalogue, request)
        if (!exact.ok) {
          assert.deepEqual(heuristic, exact)
          return
        }
        assertValidAllocation(catalogue, request, exact)
        assertValidAllocation(catalogue, request, heuristic)
        assert.ok(allocated(heuristic).totalCostInBaseCurrency.minor >= exact.totalCostInBaseCurrency.minor)
      },
    ),
    { numRuns: 40 },
  )
})
