// Quotes (docs/wire-contract.md#quotes): what an order of these items would cost by each shipping method,
// without creating it. The items are checked exactly as an order's (domain/catalogue-matching.ts), allocated by
// the allocation the pipeline runs (domain/allocation.ts) and priced by the pricing behind order charges
// (domain/pricing.ts), so a quote for an order's items shows that order's shipments and charges. Reads only the
// catalogue: no database, no state.
import { randomBytes } from 'node:crypto'
import { type AllocationItem, allocateShipments } from '../domain/allocation.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import {
  availableShippingMethods,
  type MatchedItem,
  matchOrderItems,
  QUOTE_PATHS,
} from '../domain/catalogue-matching.ts'
import { isIsoCountryCode } from '../domain/country-codes.ts'
import { addFailure, hasFailures } from '../domain/failures.ts'
import { toWireMoney, type WireMoney } from '../domain/money.ts'
import { validationFailed } from '../domain/outcomes.ts'
import { type PricedItem, priceAllocation } from '../domain/pricing.ts'
import type { ShippingMethod, SizingMode } from '../domain/shipping-methods.ts'

/** A quote request as the schema lets it through (the shipping method already in canonical spelling). */
export interface CreateQuoteInput {
  shippingMethod?: ShippingMethod | null
  destinationCountryCode: string
  currencyCode?: string | null
  items: {
    sku: string
    copies: number
    attributes?: Record<string, string> | null
    assets: { printArea?: string; pageCount?: number | null; url?: string }[]
    /** Only for the resolution check of asset URLs (services/previews.service.ts, quoteWarnings). */
    sizing?: SizingMode
  }[]
}

/** What a quote needs to know about the caller: the currency quotes default to. */
export interface QuoteCaller {
  billingCurrency: string
}

export interface QuoteShipment {
  carrier: { name: string; service: string }
  fulfillmentLocation: { countryCode: string; labCode: string }
  cost: WireMoney
  tax: WireMoney
  /** Quote item ids, in request order. */
  items: string[]
}

export interface QuoteItem {
  id: string
  sku: string
  copies: number
  unitCost: WireMoney
  taxUnitCost: WireMoney
  attributes: Record<string, string>
  assets: { printArea: string; pageCount: number | null }[]
}

/** Keys in the contract's order; `shipmentMethod` is the contract's (and the public API's) spelling. */
export interface Quote {
  shipmentMethod: ShippingMethod
  costSummary: { items: WireMoney; shipping: WireMoney; totalCost: WireMoney; totalTax: WireMoney }
  shipments: QuoteShipment[]
  items: QuoteItem[]
}

export interface QuoteIssue {
  errorCode: string
  description: string
}

export interface QuoteResult {
  outcome: 'Created' | 'CreatedWithIssues'
  quotes: Quote[]
  issues: QuoteIssue[]
}

/**
 * docs/wire-contract.md#quotes: destinations where sales tax is not computed (the US) get this issue and
 * `CreatedWithIssues`.
 */
export const SALES_TAX_WARNING_CODE = 'destinationCountryCode.UsSalesTaxWarning'

/** `qit_` + 32 lowercase hex (docs/wire-contract.md#identifiers): random, as a quote is never stored or looked up. */
export function newQuoteItemId(): string {
  return `qit_${randomBytes(16).toString('hex')}`
}

/**
 * The page count that prices a matched item: the `pageCount` of the asset on the product's page-count print area
 * (books); null for products not priced by page, whose `pageCount`s change nothing.
 */
export function pricedPageCount(item: MatchedItem): number | null {
  const pricing = item.product.pagePricing
  if (!pricing) return null
  return item.assets.find((asset) => asset.printArea === pricing.pageCountPrintArea)?.pageCount ?? null
}

export function createQuotesService(deps: { catalogue: Catalogue; newItemId?: () => string }) {
  const { catalogue } = deps
  const newItemId = deps.newItemId ?? newQuoteItemId

  return {
    /** One quote per requested method, or per method that can serve every item; ValidationFailed otherwise. */
    createQuote(caller: QuoteCaller, input: CreateQuoteInput): QuoteResult {
      const matched = matchOrderItems(
        catalogue,
        {
          destinationCountryCode: input.destinationCountryCode,
          shippingMethod: input.shippingMethod ?? null,
          items: input.items.map((item) => ({
            sku: item.sku,
            copies: item.copies,
            attributes: item.attributes ?? {},
            assets: item.assets.map((asset) => ({ printArea: asset.printArea, pageCount: asset.pageCount ?? null })),
          })),
        },
        QUOTE_PATHS,
      )
      const failures = matched.failures
      const destination = matched.destinationCountryCode

      // The account's billing currency is the default, and is checked like a requested one: an account created
      // with a currency the catalogue has no rate for gets the same named failure.
      const requestedCurrency = input.currencyCode ?? caller.billingCurrency
      if (!catalogue.isKnownCurrency(requestedCurrency)) {
        addFailure(failures, 'currencyCode', {
          code: 'UnknownCurrency',
          providedValue: requestedCurrency,
          validValues: [...catalogue.currencies],
        })
      }

      let methods: ShippingMethod[] = matched.shippingMethod ? [matched.shippingMethod] : []
      const everyItemMatched = matched.items.length === input.items.length && isIsoCountryCode(destination)
      if (!matched.shippingMethod && everyItemMatched) {
        methods = availableShippingMethods(catalogue, destination, matched.items)
        if (methods.length === 0) {
          // Each item reaches the destination (matching checked that), but no single method carries them all:
          // name the methods of each item so the merchant can split the order.
          addFailure(failures, QUOTE_PATHS.countryCode, {
            code: 'NoCommonShippingMethod',
            providedValue: destination,
            comparisonValue: Object.fromEntries(
              matched.items.map((item) => [
                `${QUOTE_PATHS.items}[${item.index}]`,
                catalogue.shippingMethodsForVariant(item.variant, destination),
              ]),
            ),
          })
        }
      }
      if (hasFailures(failures)) throw validationFailed(failures, 'The quote could not be made')

      const currency = requestedCurrency.toUpperCase()
      // One id per request item, shared by every quote of the answer: item N is the same item in each of them.
      const ids = matched.items.map(() => newItemId())
      const allocationItems: AllocationItem[] = matched.items.map((item, position) => ({
        itemId: ids[position] as string,
        variant: item.variant,
        copies: item.copies,
        pageCount: pricedPageCount(item),
      }))
      const copiesByItem = new Map(allocationItems.map((item) => [item.itemId, item.copies]))
      const quotes = methods.map((method) => {
        const allocation = allocateShipments(catalogue, {
          destinationCountryCode: destination,
          shippingMethod: method,
          items: allocationItems,
        })
        if (!allocation.ok) {
          // Matching found a lab offering the method for every item, so this is a bug: logged, answered 500.
          throw new Error(`no lab allocation for ${method} although every item matched`)
        }
        const priced = priceAllocation(catalogue, allocation.shipments, copiesByItem, destination, currency)
        const money = (minor: bigint) => toWireMoney({ minor, currency: priced.currency })
        const pricedItems = new Map<string, PricedItem>()
        for (const shipment of priced.shipments) for (const item of shipment.items) pricedItems.set(item.itemId, item)

        const quote: Quote = {
          shipmentMethod: method,
          costSummary: {
            items: money(priced.totals.items),
            shipping: money(priced.totals.shipping),
            totalCost: money(priced.totals.total),
            totalTax: money(priced.totals.tax),
          },
          shipments: allocation.shipments.map((planned, index) => {
            const shipment = priced.shipments[index]
            if (!shipment || shipment.labCode !== planned.labCode) throw new Error('pricing reordered the shipments')
            return {
              carrier: { name: planned.carrier.name, service: planned.carrier.service },
              fulfillmentLocation: { countryCode: planned.labCountryCode, labCode: planned.labCode },
              cost: money(shipment.cost),
              tax: money(shipment.tax),
              items: [...planned.itemIds],
            }
          }),
          items: matched.items.map((item, position) => {
            const id = ids[position] as string
            const price = pricedItems.get(id)
            if (!price) throw new Error(`item ${id} was allocated to no shipment`)
            return {
              id,
              sku: item.sku,
              copies: item.copies,
              unitCost: money(price.unitCost),
              taxUnitCost: money(price.taxUnitCost),
              attributes: { ...item.attributes },
              assets: item.assets.map((asset) => ({ printArea: asset.printArea, pageCount: asset.pageCount })),
            }
          }),
        }
        return quote
      })

      const taxRate = catalogue.taxRate(destination)
      const issues: QuoteIssue[] = taxRate.salesTaxNotComputed
        ? [
            {
              errorCode: SALES_TAX_WARNING_CODE,
              description:
                `${taxRate.name ?? 'Sales tax'} is not computed for destination ${destination}: the quoted ` +
                'amounts do not include it, and it may be due on delivery.',
            },
          ]
        : []
      return { outcome: issues.length > 0 ? 'CreatedWithIssues' : 'Created', quotes, issues }
    },
  }
}

export type QuotesService = ReturnType<typeof createQuotesService>
