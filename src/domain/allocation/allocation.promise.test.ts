// The delivery promise in allocation (allocation.ts, problem.ts): estimates on every shipment and considered lab,
// and a deliverBy date that keeps late (item, lab) pairs out.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import {
  allocated,
  assertValidAllocation,
  bruteForce,
  buildInstance,
  excludedFor,
  instanceArbitrary,
  item,
  type LabSpec,
  labCodesByItem,
  labsOf,
  SKUS,
  smallCatalogueFile,
  variant,
} from '../../../test/support/allocation.fixture.ts'
import { tier } from '../../../test/support/tiers.ts'
import { parseCatalogue } from '../../catalogue/catalogue.loader.ts'
import type { CatalogueFile } from '../catalogue.types.ts'
import { addCalendarDays, type DeliveryEstimate, estimateDelivery, laterDate } from '../delivery-promise.ts'
import { allocateShipments } from './allocation.ts'
import type { AllocationItem, AllocationRequest } from './model.ts'

tier('pure')

// ---------------------------------------------------------------------------------------------------------
// The delivery promise: estimates, and a deliverBy date that keeps late (item, lab) pairs out
// ---------------------------------------------------------------------------------------------------------

/** Monday 2 March 2026, 09:00 UTC: before the test labs' 12:00 cut-off, so production starts that day. */
const RECEIVED = new Date('2026-03-02T09:00:00Z')

/**
 * slow: cheapest for both items, 5 production days, transit 2-4 (dispatch Mon 9 March, delivery 11-13 March);
 * fast: dearer, 1 day, transit 1-2 (dispatch Tue 3 March, delivery 4-5 March); nocal: cheapest SMALL, no calendar.
 */
const PROMISE_LABS: LabSpec[] = [
  { code: 'fast', makes: { SMALL: '2.00', SMALL2: '2.00' }, calendar: { productionDays: 1 }, transit: [1, 2] },
  { code: 'nocal', makes: { SMALL: '0.50', LARGE: '1.00' } },
  { code: 'slow', makes: { SMALL: '1.00', SMALL2: '1.00' }, calendar: { productionDays: 5 }, transit: [2, 4] },
]
const promiseCatalogue = parseCatalogue(smallCatalogueFile(PROMISE_LABS), 'promise-test.json')

function promiseRequest(deliverBy?: string, extra: AllocationItem[] = []): AllocationRequest {
  return {
    destinationCountryCode: 'FR',
    shippingMethod: 'Standard',
    items: [item('x', variant(promiseCatalogue, 'SMALL')), item('y', variant(promiseCatalogue, 'SMALL2')), ...extra],
    promise: { received: RECEIVED, ...(deliverBy ? { deliverBy } : {}) },
  }
}

const SLOW: DeliveryEstimate = {
  estimatedDispatchDate: '2026-03-09',
  estimatedDelivery: { from: '2026-03-11', to: '2026-03-13' },
}
const FAST: DeliveryEstimate = {
  estimatedDispatchDate: '2026-03-03',
  estimatedDelivery: { from: '2026-03-04', to: '2026-03-05' },
}

test('promise: without deliverBy the cheapest plan is chosen and every shipment and considered lab has its estimate', () => {
  const request = promiseRequest()
  const result = allocateShipments(promiseCatalogue, request, { explain: true })
  assertValidAllocation(promiseCatalogue, request, result)
  // slow alone: 1 + 1 + 3 + 1 = 6.00, against nocal's SMALL with slow's SMALL2 (7.50) or fast alone (8.00).
  assert.deepEqual(labsOf(result), { slow: ['x', 'y'] })
  assert.deepEqual(allocated(result).shipments[0]?.estimate, SLOW)
  assert.equal(result.deliverBy, undefined)
  const x = result.explanation?.items[0]
  assert.deepEqual(
    x?.considered.map(({ labCode, estimate }) => [labCode, estimate]),
    [
      ['fast', FAST],
      ['nocal', null],
      ['slow', SLOW],
    ],
  )
  assert.deepEqual(x?.excluded, [])
  // The estimates are the domain's own, from the lab's calendar and the rate's transit days.
  const slow = promiseCatalogue.findLab('slow')
  const rate = promiseCatalogue.shippingRate('slow', 'Standard', 'FR')
  assert.deepEqual(SLOW, estimateDelivery(slow?.calendar ?? null, 5, rate?.transitDays ?? null, RECEIVED))
  // Without a promise context nothing carries an estimate, exactly as before.
  const plain = allocateShipments(promiseCatalogue, { ...request, promise: undefined }, { explain: true })
  assert.equal('estimate' in (allocated(plain).shipments[0] ?? {}), false)
  assert.equal('estimate' in (plain.explanation?.items[0]?.considered[0] ?? {}), false)
})

test('promise: a shipment without a calendar or transit days has a null estimate', () => {
  const request: AllocationRequest = {
    destinationCountryCode: 'FR',
    shippingMethod: 'Standard',
    items: [item('z', variant(promiseCatalogue, 'LARGE'))],
    promise: { received: RECEIVED },
  }
  const result = allocateShipments(promiseCatalogue, request)
  assert.deepEqual(labsOf(result), { nocal: ['z'] })
  assert.equal(allocated(result).shipments[0]?.estimate, null)
})

test('promise: a shipment is made when its slowest item is (the largest production days of its items)', () => {
  const catalogue = parseCatalogue(
    smallCatalogueFile([
      {
        code: 'm',
        makes: { SMALL: '1.00', SMALL2: '1.00' },
        calendar: { productionDays: 1, bySku: { SMALL2: 3 } },
        transit: [1, 2],
      },
    ]),
    'promise-test.json',
  )
  const lab = catalogue.findLab('m')
  const transit = catalogue.shippingRate('m', 'Standard', 'FR')?.transitDays ?? null
  const allocate = (...skus: string[]) =>
    allocated(
      allocateShipments(catalogue, {
        destinationCountryCode: 'FR',
        shippingMethod: 'Standard',
        items: skus.map((sku, index) => item(`i${index}`, variant(catalogue, sku))),
        promise: { received: RECEIVED },
      }),
    ).shipments[0]?.estimate
  const oneDay = estimateDelivery(lab?.calendar ?? null, 1, transit, RECEIVED)
  const threeDays = estimateDelivery(lab?.calendar ?? null, 3, transit, RECEIVED)
  assert.notDeepEqual(oneDay, threeDays)
  assert.deepEqual(allocate('SMALL'), oneDay)
  assert.deepEqual(allocate('SMALL2'), threeDays)
  assert.deepEqual(allocate('SMALL', 'SMALL2'), threeDays)
})

test('promise: deliverBy excludes late pairs (TooLate) and pairs without an estimate (NoDeliveryEstimate)', () => {
  const request = promiseRequest('2026-03-06')
  const result = allocateShipments(promiseCatalogue, request, { explain: true })
  assertValidAllocation(promiseCatalogue, request, result)
  // The dearer lab is the only one that arrives by Friday 6 March.
  assert.deepEqual(labsOf(result), { fast: ['x', 'y'] })
  assert.deepEqual(allocated(result).shipments[0]?.estimate, FAST)
  assert.equal(allocated(result).totalCostInBaseCurrency.minor, 800n)
  const outcome = result.deliverBy
  assert.ok(outcome?.met, 'the date is met')
  assert.equal(outcome.date, '2026-03-06')
  // What the plan would have been without the date: slow, 6.00.
  assert.deepEqual(
    outcome.cheapestWithoutDate.map(({ labCode, itemIds, costInBaseCurrency, estimate }) => ({
      labCode,
      itemIds,
      cost: costInBaseCurrency.minor,
      estimate,
    })),
    [{ labCode: 'slow', itemIds: ['x', 'y'], cost: 600n, estimate: SLOW }],
  )
  const x = result.explanation?.items[0]
  assert.deepEqual(
    x?.considered.map(({ labCode, estimate }) => [labCode, estimate]),
    [['fast', FAST]],
  )
  assert.deepEqual(x?.excluded, [
    { labCode: 'nocal', reason: 'NoDeliveryEstimate' },
    { labCode: 'slow', reason: 'TooLate', estimate: SLOW },
  ])
  // The best unsplit plan is one that meets the date too.
  assert.equal(result.explanation?.bestUnsplit?.labCode, 'fast')
  // A date the cheapest plan meets changes nothing but saying so: it cost nothing.
  const relaxed = allocateShipments(promiseCatalogue, promiseRequest('2026-03-13'))
  assert.deepEqual(labsOf(relaxed), { slow: ['x', 'y'] })
  assert.ok(relaxed.deliverBy?.met)
  assert.deepEqual(relaxed.deliverBy.cheapestWithoutDate, allocated(relaxed).shipments)
})

test('promise: when no plan meets the date, the cheapest plan is chosen with the earliest date any plan reaches', () => {
  // fast reaches Thursday 5 March at the latest; Wednesday 4 March is too early for any plan.
  const result = allocateShipments(promiseCatalogue, promiseRequest('2026-03-04'), { explain: true })
  assert.deepEqual(labsOf(result), { slow: ['x', 'y'] })
  assert.deepEqual(result.deliverBy, { date: '2026-03-04', met: false, earliestDeliveryDate: '2026-03-05' })
  // The explanation is the plan's: nothing was excluded for the date.
  assert.deepEqual(result.explanation?.items[0]?.excluded, [])
  // The earliest date is the latest over the items of each item's earliest: here both reach 5 March from fast.
  // An item that only a lab without a calendar makes has no estimate, so no date can be promised.
  const withLarge = allocateShipments(
    promiseCatalogue,
    promiseRequest('2026-03-31', [item('z', variant(promiseCatalogue, 'LARGE'))]),
  )
  assert.deepEqual(withLarge.deliverBy, { date: '2026-03-31', met: false, earliestDeliveryDate: null })
  // nocal ships the large item anyway, so the small one joins it: 0.50 + 1.00 extra against 1.00 + 1.00 at slow.
  assert.deepEqual(labsOf(withLarge), { nocal: ['x', 'z'], slow: ['y'] })
  // Items no lab can take at all: no plan, no date.
  const none = allocateShipments(promiseCatalogue, {
    ...promiseRequest('2026-03-31'),
    excludedLabsByItem: { x: ['fast', 'nocal', 'slow'] },
  })
  assert.deepEqual(none, {
    ok: false,
    unavailableItemIds: ['x'],
    deliverBy: { date: '2026-03-31', met: false, earliestDeliveryDate: null },
  })
})

test("promise: the earliest date is the latest of each item's earliest, each item from its own earliest lab", () => {
  // x is earliest from fast (5 March); y only from slow (13 March): the earliest plan reaches 13 March.
  const request: AllocationRequest = { ...promiseRequest('2026-03-12'), excludedLabsByItem: { y: ['fast'] } }
  const result = allocateShipments(promiseCatalogue, request)
  assert.deepEqual(result.deliverBy, { date: '2026-03-12', met: false, earliestDeliveryDate: '2026-03-13' })
  const met = allocateShipments(promiseCatalogue, {
    ...request,
    promise: { received: RECEIVED, deliverBy: '2026-03-13' },
  })
  assert.ok(met.deliverBy?.met)
})

/** Per lab of a random instance: its calendar (or none), production days per SKU, transit days (or none). */
const promiseArbitrary = fc.record({
  labs: fc.array(
    fc.record({
      calendar: fc.option(
        fc.record({
          productionDays: fc.integer({ min: 0, max: 4 }),
          saturdays: fc.boolean(),
          timeZone: fc.constantFrom('UTC', 'Europe/London', 'America/Chicago', 'Australia/Sydney'),
          cutOff: fc.constantFrom('00:00', '12:00', '17:30'),
        }),
        { nil: null, freq: 5 },
      ),
      skuDays: fc.array(fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }), { minLength: 4, maxLength: 4 }),
      transit: fc.option(
        fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 4 })).map(([min, extra]) => ({
          min,
          max: min + extra,
        })),
        { nil: null, freq: 5 },
      ),
    }),
    { minLength: 5, maxLength: 5 },
  ),
  receivedHours: fc.integer({ min: 0, max: 24 * 14 }),
  deliverByDays: fc.integer({ min: 0, max: 24 }),
})

type PromiseInstance = typeof promiseArbitrary extends fc.Arbitrary<infer T> ? T : never

function decoratePromise(promise: PromiseInstance): (file: CatalogueFile) => void {
  return (file) => {
    file.labs.forEach((lab, index) => {
      const spec = promise.labs[index]
      if (!spec) return
      if (spec.calendar) {
        lab.calendar = {
          timeZone: spec.calendar.timeZone,
          workingDays: spec.calendar.saturdays
            ? ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
            : ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
          cutOffTime: spec.calendar.cutOff,
          productionDays: { default: spec.calendar.productionDays },
        }
        for (const entry of lab.products) {
          const days = spec.skuDays[SKUS.indexOf(entry.sku as (typeof SKUS)[number])]
          if (days !== null && days !== undefined) entry.productionDays = days
        }
      }
      if (spec.transit) for (const rate of lab.shippingRates) rate.transitDays = spec.transit
    })
  }
}

test('property: with deliverBy the plan is the cheapest that meets the date, or the cheapest with the earliest date', () => {
  let met = 0
  let dearer = 0
  let missed = 0
  fc.assert(
    fc.property(instanceArbitrary, promiseArbitrary, (instance, promise) => {
      const { catalogue, request: plain } = buildInstance(instance, undefined, decoratePromise(promise))
      const received = new Date(Date.UTC(2026, 2, 2) + promise.receivedHours * 3_600_000)
      const deliverBy = addCalendarDays('2026-03-02', promise.deliverByDays)
      const request: AllocationRequest = { ...plain, promise: { received, deliverBy } }
      // Each (item, lab) pair's own estimate, from the catalogue and the domain's dates, not from the allocation.
      const pairEstimate = (requested: AllocationItem, labCode: string): DeliveryEstimate | null => {
        const option = catalogue
          .labOptions(requested.variant, request.destinationCountryCode, request.shippingMethod)
          .find(({ offer }) => offer.lab.code === labCode)
        if (!option) return null
        return estimateDelivery(
          option.offer.lab.calendar,
          option.offer.productionDays,
          option.rate.transitDays,
          received,
        )
      }
      const allowed = (requested: AllocationItem) =>
        catalogue
          .labOptions(requested.variant, request.destinationCountryCode, request.shippingMethod)
          .map(({ offer }) => offer.lab.code)
          .filter((code) => !excludedFor(request, requested.itemId).includes(code))

      const result = allocateShipments(catalogue, request)
      const cheapest = bruteForce(catalogue, plain)
      if ('unavailableItemIds' in cheapest) {
        assert.deepEqual(result, {
          ok: false,
          unavailableItemIds: cheapest.unavailableItemIds,
          deliverBy: { date: deliverBy, met: false, earliestDeliveryDate: null },
        })
        return
      }
      assertValidAllocation(catalogue, request, result)
      const { shipments, totalCostInBaseCurrency } = allocated(result)
      // Every shipment's estimate is the latest of its items' own estimates from its lab.
      for (const shipment of shipments) {
        const own = shipment.itemIds.map((id) =>
          pairEstimate(request.items.find((candidate) => candidate.itemId === id) as AllocationItem, shipment.labCode),
        )
        const latest = own.some((estimate) => estimate === null)
          ? null
          : (own as DeliveryEstimate[]).reduce((a, b) => ({
              estimatedDispatchDate: laterDate(a.estimatedDispatchDate, b.estimatedDispatchDate),
              estimatedDelivery: {
                from: laterDate(a.estimatedDelivery.from, b.estimatedDelivery.from),
                to: laterDate(a.estimatedDelivery.to, b.estimatedDelivery.to),
              },
            }))
        assert.deepEqual(shipment.estimate, latest)
      }
      // The reference: the brute force over the pairs that arrive by the date.
      const excludedLabsByItem: Record<string, string[]> = {}
      for (const requested of request.items) {
        excludedLabsByItem[requested.itemId] = [
          ...excludedFor(request, requested.itemId),
          ...allowed(requested).filter((code) => {
            const estimate = pairEstimate(requested, code)
            return !estimate || estimate.estimatedDelivery.to > deliverBy
          }),
        ]
      }
      const meeting = bruteForce(catalogue, { ...plain, excludedLabsByItem })
      if ('cost' in meeting) {
        met++
        assert.ok(result.deliverBy?.met, 'a plan meets the date, so the date is met')
        for (const shipment of shipments) {
          assert.ok(shipment.estimate && shipment.estimate.estimatedDelivery.to <= deliverBy, 'every shipment in time')
        }
        assert.ok(totalCostInBaseCurrency.minor >= cheapest.cost, 'never cheaper than the cheapest plan')
        assert.equal(totalCostInBaseCurrency.minor, meeting.cost, 'the cheapest plan that meets the date')
        assert.deepEqual(labCodesByItem(request, result), meeting.labCodes, 'tie-break')
        const withoutDate = result.deliverBy.cheapestWithoutDate.reduce(
          (sum, s) => sum + s.costInBaseCurrency.minor,
          0n,
        )
        assert.equal(withoutDate, cheapest.cost)
        if (meeting.cost > cheapest.cost) dearer++
        return
      }
      missed++
      // No plan meets the date: the cheapest, with the earliest date any plan reaches (brute force over items).
      let earliest: string | null = ''
      for (const requested of request.items) {
        const tos = allowed(requested)
          .map((code) => pairEstimate(requested, code)?.estimatedDelivery.to)
          .filter((to): to is string => to !== undefined)
        if (tos.length === 0 || earliest === null) earliest = null
        else earliest = laterDate(earliest, tos.sort()[0] as string)
      }
      assert.deepEqual(result.deliverBy, { date: deliverBy, met: false, earliestDeliveryDate: earliest })
      assert.ok(earliest === null || earliest > deliverBy)
      assert.equal(totalCostInBaseCurrency.minor, cheapest.cost)
      assert.deepEqual(labCodesByItem(plain, result), cheapest.labCodes)
    }),
    // 600 cases: about 120 meet the date and 50 of those need a dearer plan, far above the floors below, which a
    // run of 300 (25 dearer on average) could fall under by chance.
    { numRuns: 600 },
  )
  assert.ok(met > 30 && missed > 30, `met ${met}, missed ${missed}`)
  assert.ok(dearer > 10, `only ${dearer} dearer plans chosen to meet the date`)
})
