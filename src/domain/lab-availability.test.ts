// Whether a lab takes new work (domain/lab-availability.ts, docs/allocation.md#lab-availability), at fixed instants:
// the lab's date in its time zone, a report counted from when it was made and for its date only, the lower of the
// report and the catalogue limit, and a pause over everything.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import type { Lab } from './catalogue.types.ts'
import {
  dailyCapacity,
  jobsGivenOn,
  type LabAvailabilityState,
  labDate,
  labUnavailability,
  limitedLabCodes,
  unavailableLabs,
} from './lab-availability.ts'

tier('pure')

const catalogue = loadCatalogue()
const sampleLab = (code: string) => catalogue.findLab(code) as Lab
const uk6 = sampleLab('uk6')
const au1 = sampleLab('au1')
const withLimit = (lab: Lab, dailyJobLimit: number | null): Lab => ({ ...lab, dailyJobLimit })
const withoutCalendar = (lab: Lab): Lab => ({ ...lab, calendar: null })

function state(overrides: Partial<LabAvailabilityState> = {}): LabAvailabilityState {
  return {
    labCode: 'uk6',
    paused: false,
    capacityDate: null,
    capacityJobs: null,
    capacityBase: 0,
    givenDate: null,
    givenJobs: 0,
    ...overrides,
  }
}

test("a lab's date is in its calendar's time zone, and in UTC without a calendar", () => {
  // 2026-03-01 15:30 UTC is already 2 March in Melbourne (UTC+11), still 1 March in London.
  const afternoon = new Date('2026-03-01T15:30:00Z')
  assert.equal(labDate(au1, afternoon), '2026-03-02')
  assert.equal(labDate(uk6, afternoon), '2026-03-01')
  assert.equal(labDate(withoutCalendar(au1), afternoon), '2026-03-01')
})

test('a report counts from the jobs the lab had when it reported, and holds for its date only', () => {
  const reported = state({ capacityDate: '2026-03-01', capacityJobs: 2, capacityBase: 3 })
  assert.equal(dailyCapacity(uk6, reported, '2026-03-01'), 5)
  assert.equal(dailyCapacity(uk6, reported, '2026-03-02'), null, 'the next day has no report')
  assert.equal(dailyCapacity(withLimit(uk6, 4), reported, '2026-03-01'), 4, 'the lower of report and limit')
  assert.equal(dailyCapacity(withLimit(uk6, 9), reported, '2026-03-01'), 5)
  assert.equal(dailyCapacity(withLimit(uk6, 9), reported, '2026-03-02'), 9, 'the limit holds every day')
})

test('jobs given count on their date only: a new day starts from 0', () => {
  const given = state({ givenDate: '2026-03-01', givenJobs: 7 })
  assert.equal(jobsGivenOn(given, '2026-03-01'), 7)
  assert.equal(jobsGivenOn(given, '2026-03-02'), 0)
  assert.equal(jobsGivenOn(undefined, '2026-03-01'), 0)
})

test('at capacity once the jobs given reach it; paused before anything else; free again the next day', () => {
  const late = new Date('2026-03-01T23:30:00Z')
  const full = state({
    capacityDate: '2026-03-01',
    capacityJobs: 1,
    capacityBase: 1,
    givenDate: '2026-03-01',
    givenJobs: 2,
  })
  assert.equal(labUnavailability(uk6, full, late), 'AtCapacity')
  assert.equal(labUnavailability(uk6, { ...full, givenJobs: 1 }, late), undefined, 'one job left')
  assert.equal(labUnavailability(uk6, { ...full, paused: true, givenJobs: 0 }, late), 'LabPaused')
  // London keeps UTC until the clocks change at the end of March: midnight UTC starts its 2 March.
  assert.equal(labUnavailability(uk6, full, new Date('2026-03-02T00:00:00Z')), undefined, 'a new day')
  const limited = withLimit(uk6, 0)
  assert.equal(labUnavailability(limited, undefined, late), 'AtCapacity', 'a limit of 0 takes no work at all')
  assert.equal(labUnavailability(uk6, undefined, late), undefined, 'no row: not limited')
})

test('the catalogue labs that take no work now, and the labs whose day is limited (the rows an allocation locks)', () => {
  const now = new Date('2026-03-01T12:00:00Z')
  const states = [
    state({ labCode: 'us1', paused: true }),
    state({ labCode: 'uk6', capacityDate: '2026-03-01', capacityJobs: 0 }),
    state({ labCode: 'de1', capacityDate: '2026-02-28', capacityJobs: 0 }),
  ]
  assert.deepEqual(unavailableLabs(catalogue, states, now), { uk6: 'AtCapacity', us1: 'LabPaused' })
  assert.deepEqual(limitedLabCodes(catalogue, states, now), ['uk6'], "a pause or yesterday's report locks nothing")
})
