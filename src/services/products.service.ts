// Products straight from the loaded catalogue (no database): the details of one SKU, and the searchable list
// (printroute's addition: the specification has only the details).
import type { Catalogue } from '../domain/catalogue.ts'
import type { Product, ProductDetails } from '../domain/catalogue.types.ts'
import { PRODUCT_LIST_DEFAULT_TOP } from '../domain/limits.ts'
import { toWireMoney } from '../domain/money.ts'
import { ServiceError } from '../domain/outcomes.ts'

export interface ProductLab {
  code: string
  name: string
  countryCode: string
}

/** One product of the list: its details (print areas by name only), the labs that make it, where it ships. */
export interface ProductListEntry {
  sku: string
  description: string
  productDimensions: ProductDetails['productDimensions']
  attributes: ProductDetails['attributes']
  printAreas: string[]
  variants: ProductDetails['variants']
  /** The labs that make some variant, by code. */
  labs: ProductLab[]
  /** Countries some variant ships to (the union of the variants' `shipsTo`), sorted. */
  shipsTo: string[]
  /** The caller's selling price, as the product's details give it; absent when no price list applies. */
  prices?: ProductPrices
}

/** Who a product is priced for: its billing currency and price list (docs/billing.md#price-lists). */
export interface PricedCaller {
  billingCurrency: string
  priceList?: string | null
}

/** The caller's price of a product: the list's name and the lowest price of one copy. */
export interface ProductPrices {
  priceList: string
  fromUnitCost: { amount: string; currency: string }
}

/**
 * The lowest selling price of one copy of the product among its variants and the labs that make them, in the
 * caller's billing currency; undefined when no price list applies to the caller (the labs' costs are not shown).
 */
function pricesOf(catalogue: Catalogue, product: Product, caller: PricedCaller): ProductPrices | undefined {
  const list = catalogue.priceLists.listFor(caller.priceList)
  const currency = caller.billingCurrency.toUpperCase()
  if (!list || !catalogue.isKnownCurrency(currency)) return undefined
  const context = {
    currency,
    baseCurrency: catalogue.baseCurrency,
    convert: (minor: bigint, from: string, to: string) => catalogue.convertMinorUnits(minor, from, to),
  }
  let lowest: bigint | undefined
  for (const variant of product.variants) {
    for (const offer of variant.offers) {
      const cost = catalogue.convertMinorUnits(offer.unitCost.minor, offer.unitCost.currency, currency)
      const price = catalogue.priceLists.productPrice(list, product, cost, context)
      if (lowest === undefined || price < lowest) lowest = price
    }
  }
  if (lowest === undefined) return undefined
  return { priceList: list.name, fromUnitCost: toWireMoney({ minor: lowest, currency }) }
}

export interface ProductListQuery {
  search?: string
  top?: number
  skip?: number
}

interface Listed {
  product: Product
  entry: ProductListEntry
  /** Lower-cased SKU, description and attribute values: what a search looks in. */
  searchable: string[]
}

function listed(product: Product, details: ProductDetails): Listed {
  const labs = new Map<string, ProductLab>()
  const shipsTo = new Set<string>()
  for (const variant of product.variants) {
    for (const { lab } of variant.offers)
      labs.set(lab.code, { code: lab.code, name: lab.name, countryCode: lab.countryCode })
    for (const country of variant.shipsTo) shipsTo.add(country)
  }
  return {
    product,
    // The details' own (frozen) parts, shared rather than copied.
    entry: {
      sku: details.sku,
      description: details.description,
      productDimensions: details.productDimensions,
      attributes: details.attributes,
      printAreas: Object.keys(details.printAreas),
      // The print specifications are the details' alone: the list stays the light shape it always had.
      variants: details.variants.map((variant) =>
        variant.printAreaSpecs === undefined
          ? variant
          : { attributes: variant.attributes, shipsTo: variant.shipsTo, printAreaSizes: variant.printAreaSizes },
      ),
      labs: [...labs.values()].sort((a, b) => compareText(a.code, b.code)),
      shipsTo: [...shipsTo].sort(),
    },
    searchable: [product.sku, product.description, ...Object.values(product.attributes).flat()].map((text) =>
      text.toLowerCase(),
    ),
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The catalogue's products as the API shows them. */
export interface ProductsService {
  /** One product's details; EntityNotFound, naming the nearest SKUs, for an unknown SKU. */
  getProduct(sku: string): ProductDetails
  /**
   * The product's details with the caller's selling price (`prices`, docs/billing.md#price-lists) when a price
   * list applies to the caller; the details alone otherwise.
   */
  getProductFor(sku: string, caller: PricedCaller): ProductDetails
  /**
   * One page of the products, by SKU, whose SKU, description or an attribute value contains the search; each with
   * the caller's selling price (`prices`) when a price list applies to the caller.
   */
  listProducts(query: ProductListQuery, caller?: PricedCaller): { products: ProductListEntry[]; hasMore: boolean }
}

export function createProductsService(deps: { catalogue: Catalogue }): ProductsService {
  const { catalogue } = deps
  // Built once: the catalogue does not change while the process runs. SKUs are unique in any letter case, so
  // the lower-case order is total.
  const list: Listed[] = catalogue.products
    .map((product) => listed(product, catalogue.productDetails(product.sku) as ProductDetails))
    .sort((a, b) => compareText(a.entry.sku.toLowerCase(), b.entry.sku.toLowerCase()))

  function getProduct(sku: string): ProductDetails {
    const details = catalogue.productDetails(sku)
    if (!details) {
      const nearestSkus = { sku: catalogue.nearestSkus(sku) }
      throw new ServiceError('EntityNotFound', `There is no product with SKU ${sku}`, { nearestSkus })
    }
    return details
  }

  return {
    getProduct,

    getProductFor(sku, caller) {
      const details = getProduct(sku)
      const product = catalogue.findProduct(sku)
      const prices = product && pricesOf(catalogue, product, caller)
      return prices ? { ...details, prices } : details
    },

    /**
     * One page of the products, by SKU, whose SKU, description or an attribute value contains `search` in any
     * letter case (surrounding spaces ignored; absent or empty: every product).
     */
    listProducts(query: ProductListQuery, caller?: PricedCaller): { products: ProductListEntry[]; hasMore: boolean } {
      const term = query.search?.trim().toLowerCase() ?? ''
      const top = query.top ?? PRODUCT_LIST_DEFAULT_TOP
      const skip = query.skip ?? 0
      const matching = term === '' ? list : list.filter((item) => item.searchable.some((text) => text.includes(term)))
      return {
        products: matching.slice(skip, skip + top).map(({ entry, product }) => {
          const prices = caller && pricesOf(catalogue, product, caller)
          return prices ? { ...entry, prices } : entry
        }),
        hasMore: matching.length > skip + top,
      }
    },
  }
}
