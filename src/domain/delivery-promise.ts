// The delivery promise (docs/catalogue.md#delivery-estimates): when a lab dispatches work it receives at a given
// moment, and when the parcel arrives. Pure: the moment is an argument, never the clock.
//
// Dates are civil dates, "YYYY-MM-DD", with no time zone of their own:
// - Work is received at an instant. In the lab's time zone, that instant falls on a date and a time of day. If the
//   date is a working day (one of the calendar's weekdays and not one of its holidays) and the time is before the
//   cut-off, production starts that day; otherwise it starts on the next working day. Where the clocks go back and
//   a time of day comes twice, the cut-off is its first occurrence: once passed, it stays passed that day.
// - The dispatch date is `productionDays` working days after the start day (0: dispatched the day it starts).
// - Transit counts working days at the destination, Monday to Friday, from the day after dispatch: the window is
//   dispatch + `min` to dispatch + `max` such days (0: delivered the day it is dispatched). Public holidays at the
//   destination are not known to the catalogue and not counted out.
// The estimate of several shipments (a quote, an order) is the latest of each of their dates.
import type { LabCalendar, TransitDays } from './catalogue.types.ts'
import type { Failure } from './failures.ts'

export interface DeliveryWindow {
  /** The earliest usual delivery date. */
  from: string
  /** The latest date the promise allows: what `deliverBy` is compared with. */
  to: string
}

export interface DeliveryEstimate {
  estimatedDispatchDate: string
  estimatedDelivery: DeliveryWindow
}

/** The most days any walk over a calendar takes: a calendar that never works would otherwise loop for ever. */
const MAX_DAYS_WALKED = 3_700

const DAY_MS = 86_400_000
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** Days since 1970-01-01 of a valid "YYYY-MM-DD" date; throws RangeError for anything else. */
export function dayNumber(date: string): number {
  const match = ISO_DATE.exec(date)
  if (!match) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`)
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const time = Date.UTC(year, month - 1, day)
  const back = new Date(time)
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) {
    throw new RangeError(`not a calendar date: ${date}`)
  }
  return time / DAY_MS
}

/** Whether `date` is a real "YYYY-MM-DD" calendar date (2026-02-30 is not). */
export function isIsoDate(date: string): boolean {
  try {
    dayNumber(date)
    return true
  } catch {
    return false
  }
}

/** The "YYYY-MM-DD" date `days` days after 1970-01-01. */
export function dateOfDayNumber(days: number): string {
  return new Date(days * DAY_MS).toISOString().slice(0, 10)
}

/** ISO weekday of a day number: 1 = Monday ... 7 = Sunday (1970-01-01 was a Thursday). */
function isoWeekday(days: number): number {
  return ((((days + 3) % 7) + 7) % 7) + 1
}

/** The date `days` calendar days after `date` (negative: before). */
export function addCalendarDays(date: string, days: number): string {
  return dateOfDayNumber(dayNumber(date) + days)
}

/** Whether a time zone name is one this runtime knows (IANA names such as "Europe/London", or "UTC"). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone })
    return true
  } catch {
    return false
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>()

/** The civil date and the minute of the day an instant falls on in a time zone; RangeError for an invalid Date. */
export function zonedDateTime(instant: Date, timeZone: string): { date: string; minuteOfDay: number } {
  if (Number.isNaN(instant.getTime())) throw new RangeError(`not a valid instant: ${String(instant)}`)
  let format = formatters.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
    formatters.set(timeZone, format)
  }
  const parts: Record<string, string> = {}
  for (const part of format.formatToParts(instant)) parts[part.type] = part.value
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minuteOfDay: Number(parts.hour) * 60 + Number(parts.minute),
  }
}

/** Whether the lab works on `date`: one of its working weekdays and not one of its holidays. */
export function isWorkingDay(calendar: LabCalendar, date: string): boolean {
  return calendar.workingDays.has(isoWeekday(dayNumber(date))) && !calendar.holidays.has(date)
}

/** The `count`-th day after `date` (0: `date` itself) that `works`, counting only days that do. */
function advanceWorkingDays(date: string, count: number, works: (days: number) => boolean): string {
  let days = dayNumber(date)
  let left = count
  for (let walked = 0; left > 0; walked++) {
    if (walked > MAX_DAYS_WALKED) throw new RangeError(`no working day within ${MAX_DAYS_WALKED} days of ${date}`)
    days++
    if (works(days)) left--
  }
  return dateOfDayNumber(days)
}

/** Minutes the zone's clocks are ahead of UTC at an instant (seconds of the instant dropped). */
function utcOffsetMinutes(instantMs: number, timeZone: string): number {
  const local = zonedDateTime(new Date(instantMs), timeZone)
  return dayNumber(local.date) * 1440 + local.minuteOfDay - Math.floor(instantMs / 60_000)
}

/**
 * Whether `received`, which the lab's clock shows as `local`, came before that day's cut-off. The time of day
 * alone is not enough where the clocks went back earlier that day: with a cut-off of 01:30 in London, 01:15 GMT
 * comes after 01:30 BST, so work received then must wait like work received at 01:45 BST did, or a later receipt
 * would start earlier. A time of day comes twice only on such a day, so only then is more than the clock read.
 */
function isBeforeCutOff(calendar: LabCalendar, received: Date, local: { date: string; minuteOfDay: number }): boolean {
  if (local.minuteOfDay >= calendar.cutOffMinutes) return false
  const receivedMs = received.getTime()
  // Clocks turned back earlier on the local day received were turned back less than a day before it.
  const offsetBefore = utcOffsetMinutes(receivedMs - DAY_MS, calendar.timeZone)
  if (offsetBefore <= utcOffsetMinutes(receivedMs, calendar.timeZone)) return true
  // The clocks went back: under the earlier offset, the cut-off showed at this minute, if it showed at all.
  const firstCutOffMinute = dayNumber(local.date) * 1440 + calendar.cutOffMinutes - offsetBefore
  const showed = utcOffsetMinutes(firstCutOffMinute * 60_000, calendar.timeZone) === offsetBefore
  return !(showed && firstCutOffMinute <= Math.floor(receivedMs / 60_000))
}

/** The day production of work received at `received` starts: today before the cut-off on a working day. */
export function productionStartDate(calendar: LabCalendar, received: Date): string {
  const local = zonedDateTime(received, calendar.timeZone)
  if (isWorkingDay(calendar, local.date) && isBeforeCutOff(calendar, received, local)) return local.date
  return advanceWorkingDays(local.date, 1, (days) => isWorkingDay(calendar, dateOfDayNumber(days)))
}

/** The date the lab dispatches work received at `received` that takes `productionDays` working days. */
export function estimateDispatchDate(calendar: LabCalendar, productionDays: number, received: Date): string {
  const start = productionStartDate(calendar, received)
  return advanceWorkingDays(start, productionDays, (days) => isWorkingDay(calendar, dateOfDayNumber(days)))
}

/** Monday to Friday: the days carriers deliver on. */
function isDestinationWorkingDay(days: number): boolean {
  return isoWeekday(days) <= 5
}

/** The delivery window of a parcel dispatched on `dispatchDate` by a rate with these transit days. */
export function deliveryWindow(dispatchDate: string, transit: TransitDays): DeliveryWindow {
  return {
    from: advanceWorkingDays(dispatchDate, transit.min, isDestinationWorkingDay),
    to: advanceWorkingDays(dispatchDate, transit.max, isDestinationWorkingDay),
  }
}

/** What a lab promises for work it receives at `received`; null when the catalogue lacks any figure it needs. */
export function estimateDelivery(
  calendar: LabCalendar | null,
  productionDays: number | null,
  transit: TransitDays | null,
  received: Date,
): DeliveryEstimate | null {
  if (!calendar || productionDays === null || !transit) return null
  const estimatedDispatchDate = estimateDispatchDate(calendar, productionDays, received)
  return { estimatedDispatchDate, estimatedDelivery: deliveryWindow(estimatedDispatchDate, transit) }
}

/**
 * The promise once the parcel has left: the real dispatch date (the dispatch instant's date in the lab's time
 * zone, or in UTC for a lab without a calendar) and the rate's transit; null without transit days.
 */
export function estimateAfterDispatch(
  calendar: LabCalendar | null,
  transit: TransitDays | null,
  dispatchedAt: Date,
): DeliveryEstimate | null {
  if (!transit) return null
  const estimatedDispatchDate = zonedDateTime(dispatchedAt, calendar?.timeZone ?? 'UTC').date
  return { estimatedDispatchDate, estimatedDelivery: deliveryWindow(estimatedDispatchDate, transit) }
}

/**
 * The latest date a lab can dispatch a shipment and still keep its delivery promise: the latest of the lab's
 * working days, from the promise's own dispatch date on, whose delivery window by the rate's transit days still
 * ends by the promise's `estimatedDelivery.to`. That is later than the promised dispatch date only when the days
 * after it are days carriers do not count (a lab that works on Saturday can dispatch Friday's work then: transit
 * starts on Monday either way). Never earlier than the promised dispatch date: without transit days, without a
 * calendar, or when the rate is now slower than when the promise was made, it is the promised dispatch date.
 */
export function latestDispatchDate(
  promise: DeliveryEstimate,
  transit: TransitDays | null,
  calendar: LabCalendar | null,
): string {
  let latest = promise.estimatedDispatchDate
  if (!transit || !calendar) return latest
  const promised = dayNumber(latest)
  // Dispatch a week later is always at least one carrier working day later, so the walk stops within 7 days.
  for (let days = promised + 1; days <= promised + 7; days++) {
    const date = dateOfDayNumber(days)
    if (deliveryWindow(date, transit).to > promise.estimatedDelivery.to) break
    if (isWorkingDay(calendar, date)) latest = date
  }
  return latest
}

/**
 * The date a lab should dispatch a shipment by ("ship by", docs/pipeline.md#labs): from its delivery promise when
 * it has one (`latestDispatchDate`), else its lab's dispatch date for work of `productionDays` working days
 * received at `submittedAt`, else null (no calendar, no production days, or no submission time known).
 */
export function shipByDate(input: {
  promise: DeliveryEstimate | null
  transit: TransitDays | null
  calendar: LabCalendar | null
  productionDays: number | null
  submittedAt: Date | null
}): string | null {
  const { promise, transit, calendar, productionDays, submittedAt } = input
  if (promise) return latestDispatchDate(promise, transit, calendar)
  if (!calendar || productionDays === null || !submittedAt) return null
  return estimateDispatchDate(calendar, productionDays, submittedAt)
}

/** The later of two dates. */
export function laterDate(a: string, b: string): string {
  return a >= b ? a : b
}

/**
 * The estimate of several shipments taken together (a quote, an order): the latest dispatch date and the latest
 * of each end of the window. Null when there are none, or when any shipment has no estimate.
 */
export function combinedEstimate(estimates: readonly (DeliveryEstimate | null)[]): DeliveryEstimate | null {
  if (estimates.length === 0 || estimates.some((estimate) => estimate === null)) return null
  const known = estimates as readonly DeliveryEstimate[]
  return known.reduce((latest, estimate) => ({
    estimatedDispatchDate: laterDate(latest.estimatedDispatchDate, estimate.estimatedDispatchDate),
    estimatedDelivery: {
      from: laterDate(latest.estimatedDelivery.from, estimate.estimatedDelivery.from),
      to: laterDate(latest.estimatedDelivery.to, estimate.estimatedDelivery.to),
    },
  }))
}

/** Today's date in UTC ("YYYY-MM-DD"): the first date a `deliverBy` may name. */
export function utcDate(instant: Date): string {
  return instant.toISOString().slice(0, 10)
}

/**
 * What is wrong with a requested `deliverBy` date (quotes and orders, docs/api.md#delivery-estimates): not a real
 * calendar date (the schema checks the shape; 2026-02-30 has it), or a date before today in UTC. Undefined for a
 * good date.
 */
export function deliverByFailure(deliverBy: string, now: Date): Failure | undefined {
  if (!isIsoDate(deliverBy)) return { code: 'InvalidFormat', providedValue: deliverBy, comparisonValue: 'date' }
  const today = utcDate(now)
  if (deliverBy < today) return { code: 'MustBeGreaterThanOrEqualTo', providedValue: deliverBy, comparisonValue: today }
  return undefined
}
