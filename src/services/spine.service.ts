// Book spine width (docs/wire-contract.md#spine): how wide the spine image of a book must be for a page count and a
// destination. The width depends on the paper of the lab that makes the book, and that lab is the one allocation
// picks for a one-copy order of the book to the destination (domain/allocation/, as for real orders), by the
// requested shipping method or else the slowest method that reaches the destination. Reads only the catalogue.

import { allocateShipments } from '../domain/allocation/allocation.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { Variant } from '../domain/catalogue.types.ts'
import { catalogueValidationFailed } from '../domain/catalogue-matching.ts'
import { isIsoCountryCode } from '../domain/country-codes.ts'
import { addFailure, type Failures, hasFailures } from '../domain/failures.ts'
import { SHIPPING_METHODS, type ShippingMethod } from '../domain/shipping-methods.ts'
import { hasSpine, micrometresToMillimetres, spineWidthMicrometres } from '../domain/spine.ts'

/** A spine request as the schema lets it through (`state` is accepted and changes nothing: labs serve countries). */
export interface SpineWidthInput {
  sku: string
  destinationCountryCode: string
  numberOfPages: number
  /** printroute's extension: the method the order will use, when it matters which lab makes the book. */
  shippingMethod?: ShippingMethod | null
}

export interface SpineWidth {
  /** The catalogue's spelling. */
  sku: string
  numberOfPages: number
  destinationCountryCode: string
  shippingMethod: ShippingMethod
  labCode: string
  paper: string
  widthMm: number
}

/** The spine width of a book (POST /v4.0/spine). */
export interface SpineService {
  /** The spine width of a book of these pages, or ValidationFailed naming every problem at once. */
  spineWidth(input: SpineWidthInput): SpineWidth
}

export function createSpineService(deps: { catalogue: Catalogue }): SpineService {
  const { catalogue } = deps

  return {
    /** The spine width, or ValidationFailed naming every problem at once. */
    spineWidth(input: SpineWidthInput): SpineWidth {
      const failures: Failures = {}
      const destination = input.destinationCountryCode.toUpperCase()
      const destinationIsValid = isIsoCountryCode(destination)
      if (!destinationIsValid) {
        addFailure(failures, 'destinationCountryCode', {
          code: 'NotAValidCountryCode',
          providedValue: input.destinationCountryCode,
        })
      }
      const method = input.shippingMethod ?? null

      const product = catalogue.findProduct(input.sku)
      /** The variants that could be the book: reaching the destination (by the method, when one was given). */
      let candidates: Variant[] = []
      if (!product) {
        addFailure(failures, 'sku', { code: 'UnknownSku', providedValue: input.sku })
      } else if (!hasSpine(product)) {
        addFailure(failures, 'sku', { code: 'ProductHasNoSpine', providedValue: input.sku })
      } else {
        const pages = product.pagePricing
        if (pages && input.numberOfPages < pages.minimumPages) {
          addFailure(failures, 'numberOfPages', {
            code: 'MustBeGreaterThanOrEqualTo',
            providedValue: input.numberOfPages,
            comparisonValue: pages.minimumPages,
          })
        } else if (pages && input.numberOfPages > pages.maximumPages) {
          addFailure(failures, 'numberOfPages', {
            code: 'MustBeLessThanOrEqualTo',
            providedValue: input.numberOfPages,
            comparisonValue: pages.maximumPages,
          })
        }
        if (destinationIsValid) {
          const reaching = product.variants.filter((variant) => catalogue.variantShipsTo(variant, destination))
          if (reaching.length === 0) {
            addFailure(failures, 'sku', {
              code: 'NotAvailableForDestination',
              providedValue: input.sku,
              comparisonValue: destination,
            })
          } else if (method !== null) {
            candidates = reaching.filter((variant) => catalogue.labOptions(variant, destination, method).length > 0)
            if (candidates.length === 0) {
              addFailure(failures, 'shippingMethod', {
                code: 'ShippingMethodNotAvailable',
                providedValue: method,
                validValues: SHIPPING_METHODS.filter((candidate) =>
                  reaching.some((variant) => catalogue.labOptions(variant, destination, candidate).length > 0),
                ),
              })
            }
          } else {
            candidates = reaching
          }
        }
      }
      if (hasFailures(failures))
        throw catalogueValidationFailed(catalogue, failures, 'The spine width could not be given')

      // Books are sold without choosable attributes; a book with variants is answered for its first variant (in
      // catalogue order) that reaches the destination, as docs/api.md says.
      const variant = candidates[0]
      const methodUsed = method ?? (variant && catalogue.shippingMethodsForVariant(variant, destination)[0])
      if (!product || !variant || !methodUsed) throw new Error('spine: validation let an unservable book through')
      const allocation = allocateShipments(catalogue, {
        destinationCountryCode: destination,
        shippingMethod: methodUsed,
        items: [{ itemId: 'book', variant, copies: 1, pageCount: input.numberOfPages }],
      })
      const labCode = allocation.ok ? allocation.shipments[0]?.labCode : undefined
      const paper = variant.offers.find((offer) => offer.lab.code === labCode)?.spine
      // The catalogue refuses a lab entry for a book with a spine that lacks its paper (docs/catalogue.md).
      if (!labCode || !paper) throw new Error(`spine: no paper for ${product.sku} at lab ${labCode ?? '(none)'}`)
      return {
        sku: product.sku,
        numberOfPages: input.numberOfPages,
        destinationCountryCode: destination,
        shippingMethod: methodUsed,
        labCode,
        paper: paper.paper,
        widthMm: micrometresToMillimetres(spineWidthMicrometres(paper, input.numberOfPages)),
      }
    },
  }
}
