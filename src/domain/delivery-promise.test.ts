// The delivery promise (domain/delivery-promise.ts, docs/catalogue.md#delivery-estimates): fixed instants worked
// out by hand across cut-offs, weekends, holidays, time zones and clock changes; then properties over random
// calendars and instants (biased towards the hours around each zone's clock changes, where a cut-off is easiest
// to get wrong) and over the bundled sample catalogue's labs and rates.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import type { Lab, LabCalendar, ShippingRate, TransitDays } from './catalogue.types.ts'
import {
  addCalendarDays,
  combinedEstimate,
  type DeliveryEstimate,
  dateOfDayNumber,
  dayNumber,
  deliveryWindow,
  estimateAfterDispatch,
  estimateDelivery,
  estimateDispatchDate,
  isIsoDate,
  isKnownTimeZone,
  isWorkingDay,
  latestDispatchDate,
  productionStartDate,
  shipByDate,
  zonedDateTime,
} from './delivery-promise.ts'
import { SHIPPING_METHODS } from './shipping-methods.ts'

tier('pure')

const MONDAY_TO_FRIDAY = [1, 2, 3, 4, 5]

function calendar(options: {
  timeZone: string
  workingDays?: number[]
  holidays?: string[]
  cutOffTime?: string
}): LabCalendar {
  const [hours, minutes] = (options.cutOffTime ?? '14:00').split(':').map(Number)
  return {
    timeZone: options.timeZone,
    workingDays: new Set(options.workingDays ?? MONDAY_TO_FRIDAY),
    holidays: new Set(options.holidays ?? []),
    cutOffMinutes: (hours ?? 0) * 60 + (minutes ?? 0),
  }
}

/** The date production starts for work received at `instant` (an ISO instant with its zone, e.g. "...Z"). */
function startOf(lab: LabCalendar, instant: string): string {
  return productionStartDate(lab, new Date(instant))
}

function dispatchOf(lab: LabCalendar, productionDays: number, instant: string): string {
  return estimateDispatchDate(lab, productionDays, new Date(instant))
}

/** ISO weekday of a date, 1 = Monday ... 7 = Sunday. */
function weekdayOf(date: string): number {
  return new Date(`${date}T12:00:00Z`).getUTCDay() || 7
}

// England's bank holidays of December 2026 and January 2027, as the sample catalogue's London labs have them.
const LONDON = calendar({ timeZone: 'Europe/London', holidays: ['2026-12-25', '2026-12-28', '2027-01-01'] })

// ---- cut-off, weekends, holidays ------------------------------------------------------------------------------

test('the cut-off is exclusive: 13:59:59 starts the same working day, 14:00:00 the next', () => {
  // Wednesday 25 November 2026; London is on GMT, so lab time is UTC.
  assert.equal(weekdayOf('2026-11-25'), 3)
  assert.equal(startOf(LONDON, '2026-11-25T13:59:59.999Z'), '2026-11-25')
  assert.equal(startOf(LONDON, '2026-11-25T14:00:00Z'), '2026-11-26')
  assert.equal(startOf(LONDON, '2026-11-25T00:00:00Z'), '2026-11-25', 'midnight is before any cut-off after it')
  assert.equal(startOf(LONDON, '2026-11-25T23:59:59Z'), '2026-11-26')
  // Production days are working days after the start day.
  assert.equal(dispatchOf(LONDON, 2, '2026-11-25T13:59:59Z'), '2026-11-27')
  assert.equal(dispatchOf(LONDON, 2, '2026-11-25T14:00:00Z'), '2026-11-30', 'Friday, then Monday')
})

test('a cut-off of 00:00 starts every order on the next working day; 23:59 nearly always the same day', () => {
  const midnight = calendar({ timeZone: 'UTC', cutOffTime: '00:00' })
  assert.equal(startOf(midnight, '2026-11-25T00:00:00Z'), '2026-11-26')
  const late = calendar({ timeZone: 'UTC', cutOffTime: '23:59' })
  assert.equal(startOf(late, '2026-11-25T23:58:59Z'), '2026-11-25')
  assert.equal(startOf(late, '2026-11-25T23:59:00Z'), '2026-11-26')
})

test('work received at the weekend, or on Friday after the cut-off, starts on Monday', () => {
  assert.equal(startOf(LONDON, '2026-11-27T14:00:00Z'), '2026-11-30', 'Friday after the cut-off')
  assert.equal(startOf(LONDON, '2026-11-28T09:00:00Z'), '2026-11-30', 'Saturday morning')
  assert.equal(startOf(LONDON, '2026-11-29T23:59:00Z'), '2026-11-30', 'Sunday night')
  assert.equal(dispatchOf(LONDON, 1, '2026-11-28T09:00:00Z'), '2026-12-01')
})

test('work received on a holiday starts on the next working day, and production days skip holidays', () => {
  // Friday 25 December is a holiday, the weekend follows, Monday 28 is the substitute Boxing Day.
  assert.equal(startOf(LONDON, '2026-12-25T09:00:00Z'), '2026-12-29')
  assert.equal(dispatchOf(LONDON, 0, '2026-12-25T09:00:00Z'), '2026-12-29')
  // Thursday 24 before the cut-off starts that day; its first production day is Tuesday 29.
  assert.equal(dispatchOf(LONDON, 1, '2026-12-24T09:00:00Z'), '2026-12-29')
  assert.equal(dispatchOf(LONDON, 3, '2026-12-24T09:00:00Z'), '2026-12-31')
  assert.equal(dispatchOf(LONDON, 4, '2026-12-24T09:00:00Z'), '2027-01-04', '1 January is a holiday too')
  assert.equal(isWorkingDay(LONDON, '2026-12-25'), false)
  assert.equal(isWorkingDay(LONDON, '2026-12-24'), true)
  assert.equal(isWorkingDay(LONDON, '2026-12-26'), false, 'a Saturday')
})

test('a lab working Saturdays starts and dispatches on Saturdays, but the carrier delivers Monday to Friday', () => {
  const berlin = calendar({
    timeZone: 'Europe/Berlin',
    workingDays: [1, 2, 3, 4, 5, 6],
    holidays: ['2026-12-25', '2026-12-26'],
  })
  // Friday 27 November: 12:59:59 UTC is 13:59:59 in Berlin (CET, UTC+1); 13:00 UTC is the 14:00 cut-off.
  assert.equal(startOf(berlin, '2026-11-27T12:59:59Z'), '2026-11-27')
  assert.equal(startOf(berlin, '2026-11-27T13:00:00Z'), '2026-11-28')
  const estimate = estimateDelivery(berlin, 0, { min: 1, max: 2 }, new Date('2026-11-27T13:00:00Z'))
  assert.deepEqual(estimate, {
    estimatedDispatchDate: '2026-11-28',
    estimatedDelivery: { from: '2026-11-30', to: '2026-12-01' },
  })
  assert.equal(dispatchOf(berlin, 1, '2026-11-28T09:00:00Z'), '2026-11-30', 'Sunday is not worked')
  // A holiday falling on a Saturday is not worked either: Thursday 24, then 25, 26 (Saturday) and Sunday 27 off.
  assert.equal(dispatchOf(berlin, 1, '2026-12-24T10:00:00Z'), '2026-12-28')
})

test('Australia/Melbourne: a UTC instant that is already the next day there counts on that day', () => {
  const melbourne = calendar({ timeZone: 'Australia/Melbourne', cutOffTime: '12:00' })
  // Thursday 26 November 20:00 UTC is Friday 27, 07:00 in Melbourne (AEDT, UTC+11).
  assert.deepEqual(zonedDateTime(new Date('2026-11-26T20:00:00Z'), 'Australia/Melbourne'), {
    date: '2026-11-27',
    minuteOfDay: 7 * 60,
  })
  assert.equal(startOf(melbourne, '2026-11-26T20:00:00Z'), '2026-11-27')
  assert.equal(startOf(melbourne, '2026-11-27T00:59:59Z'), '2026-11-27')
  assert.equal(startOf(melbourne, '2026-11-27T01:00:00Z'), '2026-11-30', 'noon in Melbourne, a Friday')
  // Friday 14:00 UTC is already Saturday 01:00 in Melbourne.
  assert.equal(startOf(melbourne, '2026-11-27T14:00:00Z'), '2026-11-30')
})

test('America/Los_Angeles: a UTC instant that is still the previous day there counts on that day', () => {
  const losAngeles = calendar({ timeZone: 'America/Los_Angeles', cutOffTime: '18:00', holidays: ['2026-11-26'] })
  // Saturday 28 November 01:30 UTC is Friday 27, 17:30 in Los Angeles (PST, UTC-8): before the cut-off.
  assert.equal(startOf(losAngeles, '2026-11-28T01:30:00Z'), '2026-11-27')
  assert.equal(startOf(losAngeles, '2026-11-28T02:00:00Z'), '2026-11-30')
  // Thursday 26 01:00 UTC is Wednesday 25, 17:00 there: the holiday on Thursday is not yet the lab's day.
  assert.equal(startOf(losAngeles, '2026-11-26T01:00:00Z'), '2026-11-25')
  assert.equal(startOf(losAngeles, '2026-11-26T02:00:00Z'), '2026-11-27', 'after the cut-off, Thursday is a holiday')
})

test('Europe/London at the end of March: after the clocks go forward the cut-off is 13:00 UTC', () => {
  const london = calendar({ timeZone: 'Europe/London' })
  // Friday 26 March 2027 is still GMT; Tuesday 30 March is BST (UTC+1).
  assert.equal(startOf(london, '2027-03-26T13:59:59Z'), '2027-03-26')
  assert.equal(startOf(london, '2027-03-30T12:59:59Z'), '2027-03-30')
  assert.equal(startOf(london, '2027-03-30T13:00:00Z'), '2027-03-31')
})

test('Europe/London at the end of October: after the clocks go back the cut-off is 14:00 UTC again', () => {
  const london = calendar({ timeZone: 'Europe/London' })
  // Friday 23 October 2026 is BST; Monday 26 October is GMT.
  assert.equal(startOf(london, '2026-10-23T12:59:59Z'), '2026-10-23')
  assert.equal(startOf(london, '2026-10-23T13:00:00Z'), '2026-10-26')
  assert.equal(startOf(london, '2026-10-26T13:59:59Z'), '2026-10-26')
  assert.equal(startOf(london, '2026-10-26T14:00:00Z'), '2026-10-27')
})

test('a cut-off in the hour the clocks skip or repeat: once it has passed, it has passed', () => {
  const everyDay = calendar({ timeZone: 'Europe/London', workingDays: [1, 2, 3, 4, 5, 6, 7], cutOffTime: '01:30' })
  // Sunday 28 March 2027: 00:59 GMT, then 01:00 UTC is 02:00 BST (01:30 never shows).
  assert.equal(startOf(everyDay, '2027-03-28T00:59:59Z'), '2027-03-28')
  assert.equal(startOf(everyDay, '2027-03-28T01:00:00Z'), '2027-03-29')
  // Sunday 25 October 2026: 01:00-01:59 shows twice, first in BST (00:00-00:59 UTC), then in GMT (01:00-01:59 UTC).
  assert.equal(startOf(everyDay, '2026-10-25T00:29:59Z'), '2026-10-25', '01:29:59 BST')
  assert.equal(startOf(everyDay, '2026-10-25T00:30:00Z'), '2026-10-26', '01:30 BST: the cut-off')
  assert.equal(startOf(everyDay, '2026-10-25T01:15:00Z'), '2026-10-26', '01:15 GMT comes after the cut-off')
  assert.equal(startOf(everyDay, '2026-10-25T01:29:59Z'), '2026-10-26')
  assert.equal(startOf(everyDay, '2026-10-25T02:00:00Z'), '2026-10-26')
  // The cut-off on either side of the repeated hour is untouched.
  const early = calendar({ timeZone: 'Europe/London', workingDays: [1, 2, 3, 4, 5, 6, 7], cutOffTime: '00:30' })
  assert.equal(startOf(early, '2026-10-25T00:15:00Z'), '2026-10-26', '01:15 BST, after 00:30')
  const late = calendar({ timeZone: 'Europe/London', workingDays: [1, 2, 3, 4, 5, 6, 7], cutOffTime: '02:30' })
  assert.equal(startOf(late, '2026-10-25T01:15:00Z'), '2026-10-25', '01:15 GMT, before 02:30')
  assert.equal(startOf(late, '2026-10-25T02:30:00Z'), '2026-10-26')
})

// ---- production and transit days ----------------------------------------------------------------------------

test('production days 0: dispatched the day production starts', () => {
  assert.equal(dispatchOf(LONDON, 0, '2026-11-25T10:00:00Z'), '2026-11-25')
  assert.equal(dispatchOf(LONDON, 0, '2026-11-28T10:00:00Z'), '2026-11-30')
})

test('transit counts Monday to Friday from the day after dispatch; 0 is the dispatch day itself', () => {
  assert.deepEqual(deliveryWindow('2026-11-27', { min: 1, max: 3 }), { from: '2026-11-30', to: '2026-12-02' })
  assert.deepEqual(deliveryWindow('2026-11-27', { min: 0, max: 0 }), { from: '2026-11-27', to: '2026-11-27' })
  assert.deepEqual(deliveryWindow('2026-11-27', { min: 0, max: 2 }), { from: '2026-11-27', to: '2026-12-01' })
  assert.deepEqual(deliveryWindow('2026-11-28', { min: 1, max: 1 }), { from: '2026-11-30', to: '2026-11-30' })
  assert.deepEqual(deliveryWindow('2026-11-29', { min: 2, max: 5 }), { from: '2026-12-01', to: '2026-12-04' })
  // Public holidays at the destination are not known: Christmas Day counts as a delivery day.
  assert.deepEqual(deliveryWindow('2026-12-24', { min: 1, max: 2 }), { from: '2026-12-25', to: '2026-12-28' })
})

test('estimateDelivery: dispatch and window together; null when the lab, product or rate lacks a figure', () => {
  const received = new Date('2026-11-25T10:00:00Z')
  assert.deepEqual(estimateDelivery(LONDON, 2, { min: 2, max: 3 }, received), {
    estimatedDispatchDate: '2026-11-27',
    estimatedDelivery: { from: '2026-12-01', to: '2026-12-02' },
  })
  assert.deepEqual(estimateDelivery(LONDON, 0, { min: 0, max: 0 }, received), {
    estimatedDispatchDate: '2026-11-25',
    estimatedDelivery: { from: '2026-11-25', to: '2026-11-25' },
  })
  assert.equal(estimateDelivery(null, 2, { min: 2, max: 3 }, received), null)
  assert.equal(estimateDelivery(LONDON, null, { min: 2, max: 3 }, received), null)
  assert.equal(estimateDelivery(LONDON, 2, null, received), null)
})

test('estimateAfterDispatch: the dispatch instant in the lab time zone (UTC without a calendar), then transit', () => {
  const melbourne = calendar({ timeZone: 'Australia/Melbourne' })
  // Friday 27 November 14:00 UTC is Saturday 28, 01:00 in Melbourne: the real dispatch, whatever the working days.
  const dispatchedAt = new Date('2026-11-27T14:00:00Z')
  assert.deepEqual(estimateAfterDispatch(melbourne, { min: 0, max: 1 }, dispatchedAt), {
    estimatedDispatchDate: '2026-11-28',
    estimatedDelivery: { from: '2026-11-28', to: '2026-11-30' },
  })
  assert.deepEqual(estimateAfterDispatch(null, { min: 0, max: 1 }, dispatchedAt), {
    estimatedDispatchDate: '2026-11-27',
    estimatedDelivery: { from: '2026-11-27', to: '2026-11-30' },
  })
  assert.deepEqual(estimateAfterDispatch(LONDON, { min: 2, max: 3 }, new Date('2026-12-24T16:00:00Z')), {
    estimatedDispatchDate: '2026-12-24',
    estimatedDelivery: { from: '2026-12-28', to: '2026-12-29' },
  })
  assert.equal(estimateAfterDispatch(melbourne, null, dispatchedAt), null)
})

// ---- several shipments ----------------------------------------------------------------------------------------

test('combinedEstimate takes the latest of each date separately; none, or any unknown, gives null', () => {
  const a: DeliveryEstimate = {
    estimatedDispatchDate: '2026-11-27',
    estimatedDelivery: { from: '2026-12-01', to: '2026-12-04' },
  }
  const b: DeliveryEstimate = {
    estimatedDispatchDate: '2026-11-30',
    estimatedDelivery: { from: '2026-12-01', to: '2026-12-02' },
  }
  const c: DeliveryEstimate = {
    estimatedDispatchDate: '2026-11-25',
    estimatedDelivery: { from: '2026-12-03', to: '2026-12-03' },
  }
  assert.deepEqual(combinedEstimate([a, b, c]), {
    estimatedDispatchDate: '2026-11-30',
    estimatedDelivery: { from: '2026-12-03', to: '2026-12-04' },
  })
  assert.deepEqual(combinedEstimate([c, b, a]), combinedEstimate([a, b, c]), 'order does not matter')
  assert.deepEqual(combinedEstimate([b]), b)
  assert.equal(combinedEstimate([]), null)
  assert.equal(combinedEstimate([a, null]), null)
  assert.equal(combinedEstimate([null]), null)
  // The inputs are left as they were.
  assert.equal(a.estimatedDispatchDate, '2026-11-27')
})

// ---- dates and zones refused ----------------------------------------------------------------------------------

test('invalid dates and instants are refused with RangeError, never read as some other day', () => {
  assert.equal(isIsoDate('2028-02-29'), true)
  for (const bad of ['2027-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-1-5', '2026-11-27T00:00', '']) {
    assert.equal(isIsoDate(bad), false, bad)
    assert.throws(() => dayNumber(bad), RangeError, bad)
  }
  assert.throws(() => dayNumber('2026-02-30'), /not a calendar date: 2026-02-30/)
  assert.throws(() => dayNumber('27/11/2026'), /not a YYYY-MM-DD date: "27\/11\/2026"/)
  assert.throws(() => addCalendarDays('2026-11-31', 1), RangeError)
  assert.throws(() => deliveryWindow('2026-02-30', { min: 1, max: 2 }), RangeError)
  assert.throws(() => isWorkingDay(LONDON, '2026-02-30'), RangeError)
  const invalid = new Date('not a date')
  assert.throws(() => estimateDelivery(LONDON, 1, { min: 1, max: 2 }, invalid), /not a valid instant/)
  assert.throws(() => estimateAfterDispatch(null, { min: 1, max: 2 }, invalid), /not a valid instant/)
  assert.throws(() => zonedDateTime(invalid, 'UTC'), RangeError)
})

test('date arithmetic round-trips and time zones are checked by name', () => {
  assert.equal(dayNumber('1970-01-01'), 0)
  assert.equal(dateOfDayNumber(dayNumber('2026-11-27')), '2026-11-27')
  assert.equal(addCalendarDays('2026-12-31', 1), '2027-01-01')
  assert.equal(addCalendarDays('2028-03-01', -1), '2028-02-29')
  assert.equal(isKnownTimeZone('Europe/London'), true)
  assert.equal(isKnownTimeZone('UTC'), true)
  assert.equal(isKnownTimeZone('Europe/Londres'), false)
  assert.equal(isKnownTimeZone('GMT+25'), false)
})

test('a calendar that never works is refused instead of walking for ever', () => {
  const never = { ...LONDON, workingDays: new Set<number>() }
  assert.throws(() => startOf(never, '2026-11-25T10:00:00Z'), /no working day within 3700 days of 2026-11-25/)
})

// ---- properties -------------------------------------------------------------------------------------------------

const FIRST_INSTANT = Date.UTC(2026, 0, 1)
const LAST_INSTANT = Date.UTC(2028, 11, 31)
const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** Zones with and without clock changes, whole-hour and odd offsets, both sides of UTC and of the date line. */
const TIME_ZONES = [
  'UTC',
  'Europe/London',
  'Europe/Berlin',
  'America/Los_Angeles',
  'America/New_York',
  'America/Santiago',
  'Australia/Melbourne',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
]

/** Minutes the zone's clocks are ahead of UTC at an instant, from the zone's own wall clock. */
function offsetMinutes(instant: number, timeZone: string): number {
  const local = zonedDateTime(new Date(instant), timeZone)
  return dayNumber(local.date) * 1440 + local.minuteOfDay - Math.floor(instant / MINUTE_MS)
}

/** The instants (to the minute) a zone's clocks change between FIRST_INSTANT and LAST_INSTANT. */
function clockChanges(timeZone: string): number[] {
  const changes: number[] = []
  for (let day = FIRST_INSTANT; day < LAST_INSTANT; day += DAY_MS) {
    if (offsetMinutes(day, timeZone) === offsetMinutes(day + DAY_MS, timeZone)) continue
    let [before, after] = [day, day + DAY_MS]
    const offsetBefore = offsetMinutes(before, timeZone)
    while (after - before > MINUTE_MS) {
      const middle = before + Math.floor((after - before) / 2 / MINUTE_MS) * MINUTE_MS
      if (offsetMinutes(middle, timeZone) === offsetBefore) before = middle
      else after = middle
    }
    changes.push(after)
  }
  return changes
}

const CLOCK_CHANGES = new Map(TIME_ZONES.map((timeZone) => [timeZone, clockChanges(timeZone)]))

test('the clock changes the properties lean on are found', () => {
  assert.deepEqual(
    CLOCK_CHANGES.get('Europe/London')?.map((instant) => new Date(instant).toISOString()),
    [
      '2026-03-29T01:00:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2027-03-28T01:00:00.000Z',
      '2027-10-31T01:00:00.000Z',
      '2028-03-26T01:00:00.000Z',
      '2028-10-29T01:00:00.000Z',
    ],
  )
  assert.deepEqual(CLOCK_CHANGES.get('UTC'), [])
  assert.equal(CLOCK_CHANGES.get('Australia/Lord_Howe')?.length, 6, 'half-hour changes')
})

const anyInstant = fc.integer({ min: FIRST_INSTANT, max: LAST_INSTANT })

/** Instants anywhere, or within three hours of one of the zone's clock changes. */
function instantIn(timeZone: string): fc.Arbitrary<number> {
  const changes = CLOCK_CHANGES.get(timeZone) ?? []
  if (changes.length === 0) return anyInstant
  const nearChange = fc
    .tuple(fc.constantFrom(...changes), fc.integer({ min: -3 * HOUR_MS, max: 3 * HOUR_MS }))
    .map(([change, shift]) => change + shift)
  return fc.oneof(anyInstant, nearChange)
}

const dateArb = fc.integer({ min: dayNumber('2026-01-01'), max: dayNumber('2029-12-31') }).map(dateOfDayNumber)

/**
 * A random lab calendar and an instant work is received at. Mostly, both lean on one of the zone's clock
 * changes: the instant within 90 minutes of it, the cut-off the wall time of an instant within 90 minutes of it.
 */
const calendarAndInstantArb: fc.Arbitrary<{ lab: LabCalendar; received: number }> = fc
  .constantFrom(...TIME_ZONES)
  .chain((timeZone) => {
    const changes = CLOCK_CHANGES.get(timeZone) ?? []
    const nearChange = (change: number) =>
      fc.integer({ min: -90 * MINUTE_MS, max: 90 * MINUTE_MS }).map((shift) => change + shift)
    const wallMinute = (instant: number) => zonedDateTime(new Date(instant), timeZone).minuteOfDay
    const moments =
      changes.length === 0
        ? fc.tuple(fc.integer({ min: 0, max: 1439 }), anyInstant)
        : fc.oneof(
            { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 0, max: 1439 }), anyInstant) },
            {
              weight: 3,
              arbitrary: fc
                .constantFrom(...changes)
                .chain((change) => fc.tuple(nearChange(change).map(wallMinute), nearChange(change))),
            },
          )
    return fc
      .record({
        workingDays: fc.subarray([1, 2, 3, 4, 5, 6, 7], { minLength: 1 }),
        holidays: fc.array(dateArb, { maxLength: 60 }),
        moments,
      })
      .map(({ workingDays, holidays, moments: [cutOffMinutes, received] }) => ({
        lab: { timeZone, workingDays: new Set(workingDays), holidays: new Set(holidays), cutOffMinutes },
        received,
      }))
  })

const productionDaysArb = fc.integer({ min: 0, max: 20 })
const transitArb: fc.Arbitrary<TransitDays> = fc
  .tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 }))
  .map(([a, b]) => ({ min: Math.min(a, b), max: Math.max(a, b) }))

test('property: dispatch <= from <= to, and the window ends on carrier days unless transit is 0', () => {
  fc.assert(
    fc.property(calendarAndInstantArb, productionDaysArb, transitArb, ({ lab, received }, productionDays, transit) => {
      const estimate = estimateDelivery(lab, productionDays, transit, new Date(received))
      assert.ok(estimate)
      const { estimatedDispatchDate: dispatch, estimatedDelivery } = estimate
      assert.ok(dispatch <= estimatedDelivery.from, `${dispatch} > ${estimatedDelivery.from}`)
      assert.ok(estimatedDelivery.from <= estimatedDelivery.to, JSON.stringify(estimatedDelivery))
      if (transit.min > 0) assert.ok(weekdayOf(estimatedDelivery.from) <= 5, estimatedDelivery.from)
      if (transit.max > 0) assert.ok(weekdayOf(estimatedDelivery.to) <= 5, estimatedDelivery.to)
    }),
    { numRuns: 500 },
  )
})

test('property: dispatch is a working day, on or after the day received, productionDays working days after start', () => {
  fc.assert(
    fc.property(calendarAndInstantArb, productionDaysArb, ({ lab, received }, productionDays) => {
      const start = productionStartDate(lab, new Date(received))
      const dispatch = estimateDispatchDate(lab, productionDays, new Date(received))
      const receivedOn = zonedDateTime(new Date(received), lab.timeZone).date
      assert.ok(isWorkingDay(lab, start), `start ${start} is not a working day`)
      assert.ok(isWorkingDay(lab, dispatch), `dispatch ${dispatch} is not a working day`)
      assert.ok(!lab.holidays.has(dispatch), `dispatch ${dispatch} is a holiday`)
      assert.ok(receivedOn <= start && start <= dispatch, `${receivedOn} ${start} ${dispatch}`)
      let workingDaysAfterStart = 0
      for (let day = dayNumber(start) + 1; day <= dayNumber(dispatch); day++) {
        if (isWorkingDay(lab, dateOfDayNumber(day))) workingDaysAfterStart++
      }
      assert.equal(workingDaysAfterStart, productionDays)
    }),
    { numRuns: 500 },
  )
})

test('property: a later receipt never gives an earlier start or dispatch, across clock changes too', () => {
  fc.assert(
    fc.property(
      calendarAndInstantArb,
      fc.integer({ min: 0, max: 2 * HOUR_MS }),
      productionDaysArb,
      ({ lab, received }, later, productionDays) => {
        const [first, second] = [new Date(received), new Date(received + later)]
        const [firstStart, secondStart] = [productionStartDate(lab, first), productionStartDate(lab, second)]
        assert.ok(
          firstStart <= secondStart,
          `${first.toISOString()} starts ${firstStart}, ${second.toISOString()} ${secondStart}`,
        )
        assert.ok(estimateDispatchDate(lab, productionDays, first) <= estimateDispatchDate(lab, productionDays, second))
      },
    ),
    { numRuns: 2000 },
  )
})

/** For each sample lab with a calendar: every zone's rates with transit days, slowest method first. */
function sampleLanes(labs: readonly Lab[]): { lab: Lab; slower: ShippingRate; faster: ShippingRate }[] {
  const lanes: { lab: Lab; slower: ShippingRate; faster: ShippingRate }[] = []
  for (const lab of labs) {
    if (!lab.calendar) continue
    const zones = new Set(lab.shippingRates.map((rate) => rate.zone))
    for (const zone of zones) {
      const rates = lab.shippingRates
        .filter((rate) => rate.zone === zone && rate.transitDays)
        .sort((a, b) => SHIPPING_METHODS.indexOf(a.method) - SHIPPING_METHODS.indexOf(b.method))
      rates.forEach((slower, index) => {
        for (const faster of rates.slice(index + 1)) lanes.push({ lab, slower, faster })
      })
    }
  }
  return lanes
}

test('property: on the sample catalogue, a faster method of the same lab and zone never delivers later', () => {
  const sample = loadCatalogue()
  const lanes = sampleLanes(sample.labs)
  assert.ok(lanes.length > 100, `only ${lanes.length} pairs of methods`)
  // The production days the sample's labs actually have, per lab.
  const productionDaysByLab = new Map<string, number[]>()
  for (const product of sample.products) {
    for (const variant of product.variants) {
      for (const offer of variant.offers) {
        const known = productionDaysByLab.get(offer.lab.code) ?? []
        if (offer.productionDays !== null && !known.includes(offer.productionDays)) known.push(offer.productionDays)
        productionDaysByLab.set(offer.lab.code, known)
      }
    }
  }
  const laneArb = fc.constantFrom(...lanes).chain((lane) =>
    fc.record({
      lane: fc.constant(lane),
      productionDays: fc.constantFrom(...(productionDaysByLab.get(lane.lab.code) ?? [])),
      received: instantIn(lane.lab.calendar?.timeZone ?? 'UTC'),
    }),
  )
  fc.assert(
    fc.property(laneArb, ({ lane: { lab, slower, faster }, productionDays, received }) => {
      const at = new Date(received)
      const slow = estimateDelivery(lab.calendar, productionDays, slower.transitDays, at)
      const fast = estimateDelivery(lab.calendar, productionDays, faster.transitDays, at)
      assert.ok(slow && fast, `${lab.code} ${slower.method}/${faster.method} to ${slower.zone} has no estimate`)
      const what = `${lab.code} to ${slower.zone}: ${faster.method} ${JSON.stringify(fast)} vs ${slower.method} ${JSON.stringify(slow)}`
      assert.ok(fast.estimatedDelivery.from <= slow.estimatedDelivery.from, what)
      assert.ok(fast.estimatedDelivery.to <= slow.estimatedDelivery.to, what)
    }),
    { numRuns: 1000 },
  )
})

// ---- ship by: the latest dispatch that keeps the promise, else the lab's own dispatch date --------------------

/** The promise a lab makes for work received at `instant`, which these tests then ask the ship-by date of. */
function promiseOf(lab: LabCalendar, productionDays: number, transit: TransitDays, instant: string): DeliveryEstimate {
  const estimate = estimateDelivery(lab, productionDays, transit, new Date(instant))
  assert.ok(estimate)
  return estimate
}

test('ship by: a Monday-to-Friday lab ships by the promised dispatch date, whatever the transit', () => {
  // Received Wednesday 25 November before the cut-off, 2 production days: dispatch Friday 27, 1 to 2 days transit.
  const promise = promiseOf(LONDON, 2, { min: 1, max: 2 }, '2026-11-25T10:00:00Z')
  assert.equal(promise.estimatedDispatchDate, '2026-11-27')
  assert.equal(promise.estimatedDelivery.to, '2026-12-01')
  // Saturday and Sunday would still arrive Tuesday 1 December, but the lab does not work then.
  assert.equal(latestDispatchDate(promise, { min: 1, max: 2 }, LONDON), '2026-11-27')
  // Mid-week: dispatching a day later arrives a day later, so the promised date is the last one.
  const midWeek = promiseOf(LONDON, 0, { min: 2, max: 3 }, '2026-11-24T10:00:00Z')
  assert.equal(midWeek.estimatedDispatchDate, '2026-11-24')
  assert.equal(latestDispatchDate(midWeek, { min: 2, max: 3 }, LONDON), '2026-11-24')
})

test('ship by: a lab working Saturdays can ship Friday work on Saturday, as transit starts on Monday either way', () => {
  const saturdays = calendar({ timeZone: 'Europe/Berlin', workingDays: [1, 2, 3, 4, 5, 6] })
  const promise = promiseOf(saturdays, 1, { min: 1, max: 1 }, '2026-11-26T09:00:00Z')
  assert.equal(promise.estimatedDispatchDate, '2026-11-27')
  assert.equal(promise.estimatedDelivery.to, '2026-11-30')
  assert.equal(latestDispatchDate(promise, { min: 1, max: 1 }, saturdays), '2026-11-28')
  // Sunday would arrive Monday as well, but the lab does not work on Sundays.
  const everyDay = calendar({ timeZone: 'Europe/Berlin', workingDays: [1, 2, 3, 4, 5, 6, 7] })
  assert.equal(latestDispatchDate(promise, { min: 1, max: 1 }, everyDay), '2026-11-29')
  // A Saturday that is a holiday of the lab is not worked: Friday stays the last date.
  const saturdayOff = calendar({ timeZone: 'Europe/Berlin', workingDays: [1, 2, 3, 4, 5, 6], holidays: ['2026-11-28'] })
  assert.equal(latestDispatchDate(promise, { min: 1, max: 1 }, saturdayOff), '2026-11-27')
  // Transit 0 (delivered the day it is dispatched): a Saturday dispatch arrives Monday, after Friday's promise.
  const sameDay = promiseOf(saturdays, 1, { min: 0, max: 0 }, '2026-11-26T09:00:00Z')
  assert.equal(sameDay.estimatedDelivery.to, '2026-11-27')
  assert.equal(latestDispatchDate(sameDay, { min: 0, max: 0 }, saturdays), '2026-11-27')
})

test('ship by: never before the promised dispatch date, even without transit, calendar, or with a slower rate now', () => {
  const promise = promiseOf(LONDON, 1, { min: 1, max: 2 }, '2026-11-26T09:00:00Z')
  assert.equal(promise.estimatedDispatchDate, '2026-11-27')
  assert.equal(latestDispatchDate(promise, null, LONDON), '2026-11-27')
  assert.equal(latestDispatchDate(promise, { min: 1, max: 2 }, null), '2026-11-27')
  assert.equal(latestDispatchDate(promise, { min: 3, max: 5 }, LONDON), '2026-11-27')
})

test('ship by without a promise: the lab calendar and production days from submission, across holidays', () => {
  const base = { promise: null, transit: null, calendar: LONDON }
  // Submitted Wednesday 23 December 2026 before the cut-off, 2 production days: 24, then 25 and 28 are holidays,
  // 26 and 27 the weekend, so Tuesday 29.
  assert.equal(shipByDate({ ...base, productionDays: 2, submittedAt: new Date('2026-12-23T10:00:00Z') }), '2026-12-29')
  // Submitted on Christmas Eve after the cut-off, 0 production days: the next working day is Tuesday 29.
  assert.equal(shipByDate({ ...base, productionDays: 0, submittedAt: new Date('2026-12-24T15:00:00Z') }), '2026-12-29')
  // Submitted Saturday 28 November: production starts Monday, 3 days later is Thursday 3 December.
  assert.equal(shipByDate({ ...base, productionDays: 3, submittedAt: new Date('2026-11-28T10:00:00Z') }), '2026-12-03')
  // Nothing to go on: absent.
  assert.equal(shipByDate({ ...base, productionDays: null, submittedAt: new Date('2026-11-28T10:00:00Z') }), null)
  assert.equal(shipByDate({ ...base, productionDays: 2, submittedAt: null }), null)
  assert.equal(shipByDate({ ...base, calendar: null, productionDays: 2, submittedAt: new Date() }), null)
})

test('ship by: a promise wins over the calendar fallback', () => {
  const promise = promiseOf(LONDON, 1, { min: 1, max: 2 }, '2026-11-26T09:00:00Z')
  const submittedAt = new Date('2026-12-23T10:00:00Z')
  assert.equal(
    shipByDate({ promise, transit: { min: 1, max: 2 }, calendar: LONDON, productionDays: 2, submittedAt }),
    '2026-11-27',
  )
})

test('ship by: property: dispatching on the ship-by date still arrives by the promise, the next working day later does not', () => {
  const lab = calendar({ timeZone: 'UTC', workingDays: [1, 2, 3, 4, 5, 6, 7], holidays: [] })
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 6 }),
      fc.integer({ min: 0, max: 5 }),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 0, max: 60 }),
      (productionDays, min, extra, dayOffset) => {
        const transit = { min, max: min + extra }
        const received = new Date(Date.UTC(2026, 10, 2 + dayOffset, 9))
        const promise = promiseOf(lab, productionDays, transit, received.toISOString())
        const shipBy = latestDispatchDate(promise, transit, lab)
        assert.ok(shipBy >= promise.estimatedDispatchDate)
        assert.ok(deliveryWindow(shipBy, transit).to <= promise.estimatedDelivery.to)
        assert.ok(deliveryWindow(addCalendarDays(shipBy, 1), transit).to > promise.estimatedDelivery.to)
      },
    ),
  )
})
