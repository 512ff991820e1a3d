// A book's full-spread cover (docs/api.md#book-cover-dimensions): back, spine and front side by side with the bleed
// round the outside, so width = 2 x trim width + spine + 2 x bleed and height = trim height + 2 x bleed. The trim
// and bleed are the catalogue's `book` entry, the spine the lab paper's width for the page count (domain/spine.ts).
// Pure and exact: every length is whole micrometres (the catalogue gives millimetres to 3 decimals) until the one
// rounding, half up, to the unit's step.
import type { BookSpec } from './print-specs.ts'
import { millimetresToMicrometres } from './spine.ts'

export const COVER_UNITS = ['mm', 'pt', 'in'] as const
export type CoverUnit = (typeof COVER_UNITS)[number]

/** Decimals each unit is given to: 0.01 mm, 0.01 pt (1/7200 in), 0.001 in. */
export const COVER_UNIT_DECIMALS: Readonly<Record<CoverUnit, number>> = { mm: 2, pt: 2, in: 3 }

/** The cover's lengths in one unit, in the wire's key order. */
export interface CoverDimensions {
  width: number
  height: number
  spineWidth: number
  bleed: number
  safeArea: number
  unit: CoverUnit
}

/** `numerator / denominator` rounded half up, for non-negative integers (exact: no floating-point division). */
function roundedQuotient(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator))
}

/**
 * Whole micrometres in `unit`, rounded half up to the unit's step. 1 in = 25,400 micrometres = 72 pt, so a
 * hundredth of a point is 254/72 micrometres and a thousandth of an inch 25.4.
 */
export function micrometresIn(micrometres: number, unit: CoverUnit): number {
  if (!Number.isInteger(micrometres) || micrometres < 0) throw new RangeError('micrometres must be a whole number')
  switch (unit) {
    case 'mm':
      return roundedQuotient(micrometres, 10) / 100
    case 'pt':
      return roundedQuotient(micrometres * 72, 254) / 100
    case 'in':
      return roundedQuotient(micrometres * 10, 254) / 1000
  }
}

function micrometresOf(millimetres: number): number {
  const micrometres = millimetresToMicrometres(millimetres)
  // The catalogue refuses more than 3 decimals (catalogue.print-specs.ts), so this holds for any loaded book.
  if (micrometres === undefined) throw new RangeError(`unvalidated book length ${millimetres} mm`)
  return micrometres
}

/** The full-spread cover of `book` with a spine of `spineMicrometres`, in `unit`. */
export function coverDimensions(book: BookSpec, spineMicrometres: number, unit: CoverUnit): CoverDimensions {
  const bleed = micrometresOf(book.bleedMm)
  const width = 2 * micrometresOf(book.trimMm.width) + spineMicrometres + 2 * bleed
  const height = micrometresOf(book.trimMm.height) + 2 * bleed
  return {
    width: micrometresIn(width, unit),
    height: micrometresIn(height, unit),
    spineWidth: micrometresIn(spineMicrometres, unit),
    bleed: micrometresIn(bleed, unit),
    safeArea: micrometresIn(micrometresOf(book.safeMm), unit),
    unit,
  }
}
