// Book cover dimensions (docs/api.md#book-cover-dimensions): the full-spread cover of a book for a page count, from
// the catalogue's `book` entry and the spine width the spine endpoint gives (services/spine.service.ts), whose
// paper is the lab's that makes the book. The lab: the one named (`labCode`); else the one allocation picks for the
// destination, exactly as the spine endpoint picks it; else, when every lab making the book has the same paper,
// that paper. Reads only the catalogue.
import type { Catalogue } from '../domain/catalogue.ts'
import type { Product, SpinePaper } from '../domain/catalogue.types.ts'
import { catalogueValidationFailed } from '../domain/catalogue-matching.ts'
import { type CoverDimensions, type CoverUnit, coverDimensions } from '../domain/cover-dimensions.ts'
import { addFailure, type Failures, hasFailures } from '../domain/failures.ts'
import { ServiceError } from '../domain/outcomes.ts'
import type { BookSpec } from '../domain/print-specs.ts'
import type { ShippingMethod } from '../domain/shipping-methods.ts'
import { hasSpine, spineWidthMicrometres } from '../domain/spine.ts'
import type { SpineService } from './spine.service.ts'

/** A cover request as the schema lets it through. */
export interface CoverDimensionsInput {
  sku: string
  pageCount: number
  /** Omitted: millimetres. */
  unit?: CoverUnit
  /** The lab whose paper makes the spine (a shipment's `fulfillmentLocation.labCode`). */
  labCode?: string
  /** Else: the destination the lab is chosen for, as POST /v4.0/products/spine chooses it. */
  destinationCountryCode?: string
  shippingMethod?: ShippingMethod
}

/** The answer: the cover's lengths in the wire's key order, then what they are for. */
export interface CoverDimensionsAnswer extends CoverDimensions {
  /** The catalogue's spelling. */
  sku: string
  pageCount: number
  /** The lab whose paper gave the spine; null when none was asked for and every lab making the book has the same. */
  labCode: string | null
}

/** The full-spread cover of a book (GET /v4.0/products/{sku}/cover-dimensions). */
export interface CoverDimensionsService {
  /** EntityNotFound for an unknown SKU; ValidationFailed naming each problem (the SKU when it has no cover). */
  coverDimensions(input: CoverDimensionsInput): CoverDimensionsAnswer
}

/** A book with a cover: a `book` entry (trim, bleed) and a spine, whose width the page count sets. */
function coverBook(product: Product): BookSpec | null {
  return product.book !== null && hasSpine(product) ? product.book : null
}

function samePaper(a: SpinePaper, b: SpinePaper): boolean {
  return (
    a.coverAllowanceMicrometres === b.coverAllowanceMicrometres &&
    a.pageThicknessMicrometres === b.pageThicknessMicrometres
  )
}

/** The papers of the labs making the book, by lab code (books are sold without attributes: any variant's labs). */
function papersOf(product: Product): Map<string, SpinePaper> {
  const papers = new Map<string, SpinePaper>()
  for (const variant of product.variants) {
    for (const offer of variant.offers) if (offer.spine) papers.set(offer.lab.code, offer.spine)
  }
  return papers
}

function checkPageCount(book: BookSpec, pageCount: number, failures: Failures): boolean {
  if (pageCount < book.minPages) {
    addFailure(failures, 'pageCount', {
      code: 'MustBeGreaterThanOrEqualTo',
      providedValue: pageCount,
      comparisonValue: book.minPages,
    })
  } else if (pageCount > book.maxPages) {
    addFailure(failures, 'pageCount', {
      code: 'MustBeLessThanOrEqualTo',
      providedValue: pageCount,
      comparisonValue: book.maxPages,
    })
  } else return true
  return false
}

interface Deps {
  catalogue: Catalogue
  spine: SpineService
}

/**
 * The lab and paper for the spine, or undefined with the failures recorded. `pageCount` is a count within the
 * book's range (the spine service checks the destination with it; the request's own is judged apart).
 */
function chooseLab(
  deps: Deps,
  product: Product,
  input: CoverDimensionsInput,
  pageCount: number,
  failures: Failures,
): { labCode: string | null; paper: SpinePaper } | undefined {
  const papers = papersOf(product)
  if (input.labCode !== undefined) {
    const labCode = [...papers.keys()].find((code) => code.toLowerCase() === input.labCode?.toLowerCase())
    if (input.destinationCountryCode !== undefined) {
      addFailure(failures, 'labCode', {
        code: 'InvalidValue',
        providedValue: input.labCode,
        comparisonValue: 'give labCode or destinationCountryCode, not both',
      })
    } else if (labCode === undefined) {
      addFailure(failures, 'labCode', {
        code: 'InvalidValue',
        providedValue: input.labCode,
        validValues: [...papers.keys()].sort(),
      })
    }
    const paper = labCode === undefined ? undefined : papers.get(labCode)
    return labCode === undefined || paper === undefined ? undefined : { labCode, paper }
  }
  if (input.destinationCountryCode !== undefined) {
    try {
      const { labCode } = deps.spine.spineWidth({
        sku: product.sku,
        destinationCountryCode: input.destinationCountryCode,
        numberOfPages: pageCount,
        shippingMethod: input.shippingMethod ?? null,
      })
      const paper = papers.get(labCode)
      if (!paper) throw new Error(`cover: no paper for ${product.sku} at lab ${labCode}`)
      return { labCode, paper }
    } catch (error) {
      // The destination's and the method's failures, under the same names as here; reported with the others.
      if (!(error instanceof ServiceError) || !error.failures) throw error
      for (const [path, list] of Object.entries(error.failures))
        for (const failure of list) addFailure(failures, path, failure)
      return undefined
    }
  }
  const [first, ...others] = [...papers.values()]
  if (first && others.every((paper) => samePaper(paper, first)))
    return { labCode: papers.size === 1 ? ([...papers.keys()][0] ?? null) : null, paper: first }
  addFailure(failures, 'destinationCountryCode', { code: 'Required', providedValue: null })
  return undefined
}

function coverDimensionsOf(deps: Deps, input: CoverDimensionsInput): CoverDimensionsAnswer {
  const product = deps.catalogue.findProduct(input.sku)
  if (!product) {
    const nearestSkus = { sku: deps.catalogue.nearestSkus(input.sku) }
    throw new ServiceError('EntityNotFound', `There is no product with SKU ${input.sku}`, { nearestSkus })
  }
  const failures: Failures = {}
  const book = coverBook(product)
  if (!book) {
    addFailure(failures, 'sku', { code: 'ProductHasNoCover', providedValue: product.sku })
    const why = product.book === null ? 'no book specification in the catalogue' : 'no spine'
    throw catalogueValidationFailed(deps.catalogue, failures, `${product.sku} has no cover to measure (${why})`)
  }
  const pagesValid = checkPageCount(book, input.pageCount, failures)
  const lab = chooseLab(deps, product, input, pagesValid ? input.pageCount : book.minPages, failures)
  if (hasFailures(failures) || !lab) {
    const reason =
      Object.hasOwn(failures, 'destinationCountryCode') && input.destinationCountryCode === undefined
        ? `: the labs making ${product.sku} use different papers, so give destinationCountryCode or labCode`
        : ''
    throw catalogueValidationFailed(
      deps.catalogue,
      failures,
      `The cover of ${product.sku} could not be measured${reason}`,
    )
  }
  const spine = spineWidthMicrometres(lab.paper, input.pageCount)
  return {
    ...coverDimensions(book, spine, input.unit ?? 'mm'),
    sku: product.sku,
    pageCount: input.pageCount,
    labCode: lab.labCode,
  }
}

export function createCoverDimensionsService(deps: Deps): CoverDimensionsService {
  return {
    coverDimensions: (input) => coverDimensionsOf(deps, input),
  }
}
