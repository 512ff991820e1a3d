// Whether a lab takes new work (docs/allocation.md#lab-availability): the operator may pause it, and its day's
// jobs are limited by the capacity it reports through the lab API and by the catalogue's `dailyJobLimit`. Pure:
// the services read the stored state and pass the unavailable labs to the allocation.
import type { LabUnavailability } from './allocation/model.ts'
import type { Catalogue } from './catalogue.ts'
import type { Lab } from './catalogue.types.ts'
import { utcDate, zonedDateTime } from './delivery-promise.ts'

/** A lab's stored availability (migrations/0015_lab_availability.sql); a lab without a row has the defaults. */
export interface LabAvailabilityState {
  labCode: string
  paused: boolean
  /** The lab's date ("YYYY-MM-DD") its last capacity report applies to; null when it never reported one. */
  capacityDate: string | null
  /** The jobs the lab said it can take on `capacityDate`, on top of those it had been given when it said so. */
  capacityJobs: number | null
  /** The jobs it had been given on `capacityDate` when it reported. */
  capacityBase: number
  /** The lab's date `givenJobs` counts; null when it was never given a job since the count began. */
  givenDate: string | null
  givenJobs: number
}

/** "Today" for a lab: the date in its calendar's time zone, in UTC when it has no calendar. */
export function labDate(lab: Lab, now: Date): string {
  return lab.calendar ? zonedDateTime(now, lab.calendar.timeZone).date : utcDate(now)
}

/** The jobs (shipments) the lab has been given on `date`. */
export function jobsGivenOn(state: LabAvailabilityState | undefined, date: string): number {
  return state && state.givenDate === date ? state.givenJobs : 0
}

/**
 * The most jobs the lab may be given on `date`: the lower of the total its report for that date allows (those it
 * had then plus those it said it can take) and the catalogue's daily limit; null when neither limits it.
 */
export function dailyCapacity(lab: Lab, state: LabAvailabilityState | undefined, date: string): number | null {
  const reported =
    state && state.capacityDate === date && state.capacityJobs !== null ? state.capacityBase + state.capacityJobs : null
  if (reported === null) return lab.dailyJobLimit
  return lab.dailyJobLimit === null ? reported : Math.min(reported, lab.dailyJobLimit)
}

/** Why the lab takes no new work now, or undefined when it does. */
export function labUnavailability(
  lab: Lab,
  state: LabAvailabilityState | undefined,
  now: Date,
): LabUnavailability | undefined {
  if (state?.paused) return 'LabPaused'
  const date = labDate(lab, now)
  const capacity = dailyCapacity(lab, state, date)
  return capacity !== null && jobsGivenOn(state, date) >= capacity ? 'AtCapacity' : undefined
}

/**
 * The catalogue's labs that take no new work now, with the reason: what the allocation is given. `belowQuality`
 * names the labs whose upheld claims are above their threshold (domain/lab-quality.ts); a pause or a full day is
 * named first.
 */
export function unavailableLabs(
  catalogue: Catalogue,
  states: readonly LabAvailabilityState[],
  now: Date,
  belowQuality: readonly string[] = [],
): Record<string, LabUnavailability> {
  const byCode = new Map(states.map((state) => [state.labCode, state]))
  const result: Record<string, LabUnavailability> = {}
  for (const lab of catalogue.labs) {
    const reason =
      labUnavailability(lab, byCode.get(lab.code), now) ??
      (belowQuality.includes(lab.code) ? 'QualityBelowThreshold' : undefined)
    if (reason) result[lab.code] = reason
  }
  return result
}

/**
 * The labs whose day is limited now (a capacity report for today, or a catalogue limit): the rows an allocation
 * locks, so that two allocations at once cannot both take a lab's last job.
 */
export function limitedLabCodes(catalogue: Catalogue, states: readonly LabAvailabilityState[], now: Date): string[] {
  const byCode = new Map(states.map((state) => [state.labCode, state]))
  return catalogue.labs
    .filter((lab) => dailyCapacity(lab, byCode.get(lab.code), labDate(lab, now)) !== null)
    .map((lab) => lab.code)
    .sort()
}
