// Time comes from one place so pause windows, retries and retention are tested without sleeping.
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/** A clock that only moves when told to (tests). */
export class ManualClock implements Clock {
  #now: number

  constructor(start = new Date('2026-01-01T00:00:00.000Z')) {
    this.#now = start.getTime()
  }

  now(): Date {
    return new Date(this.#now)
  }

  advanceSeconds(seconds: number): void {
    this.#now += seconds * 1000
  }
}
