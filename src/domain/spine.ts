// Book spine width (specification, "Book spine width"; docs/wire-contract.md#spine): a hardcover book's spine is as
// thick as its pages plus its cover boards, so the spine image a merchant prints depends on the page count and
// on the paper of the lab that makes the book. Each lab's paper is catalogue data (a lab product entry's `spine`,
// docs/catalogue.md); the lab is the one allocation would choose for the destination (services/spine.service.ts).
// Pure: widths are whole micrometres until they go on the wire, so no floating-point sum drifts.
import type { Product, SpinePaper } from './catalogue.types.ts'

/** CATALOGUE-FACTS.md: "books with a spine have a `spine` print area"; only those have a spine width. */
export const SPINE_PRINT_AREA = 'spine'

const MICROMETRES_PER_MILLIMETRE = 1000
/** Paper figures are given to the micrometre (at most 3 decimals of a millimetre), the precision of a caliper. */
export const SPINE_MILLIMETRE_DECIMALS = 3

/** True for books with a spine: a `spine` print area on a page-priced product (the page count sets the width). */
export function hasSpine(product: Product): boolean {
  return SPINE_PRINT_AREA in product.printAreas && product.pagePricing !== null
}

/**
 * Millimetres from a catalogue file as whole micrometres: 0.448 -> 448. Undefined when the value is not a finite
 * non-negative number with at most SPINE_MILLIMETRE_DECIMALS decimals (0.4485 would silently round otherwise).
 */
export function millimetresToMicrometres(millimetres: number): number | undefined {
  if (!Number.isFinite(millimetres) || millimetres < 0) return undefined
  const scaled = millimetres * MICROMETRES_PER_MILLIMETRE
  const micrometres = Math.round(scaled)
  // Binary fractions make 0.448 x 1000 = 448.00000000000006; anything further off had more decimals.
  return Math.abs(scaled - micrometres) < 1e-6 ? micrometres : undefined
}

/** Spine width of a book of `pageCount` pages on `paper`: cover allowance plus every page's thickness. */
export function spineWidthMicrometres(paper: SpinePaper, pageCount: number): number {
  if (!Number.isInteger(pageCount) || pageCount < 0) throw new RangeError(`page count must be a whole number`)
  return paper.coverAllowanceMicrometres + pageCount * paper.pageThicknessMicrometres
}

/** 25400 -> 25.4: the wire's `widthMm`. An integer over 1000 prints as its exact decimal (at most 3 places). */
export function micrometresToMillimetres(micrometres: number): number {
  return micrometres / MICROMETRES_PER_MILLIMETRE
}
