// The catalogue as the New order and Catalogue pages show it: products read from GET /v4.0/products, countries
// by name, recommended pixel sizes.
import type { Static } from 'typebox'
import type { ProductListEntrySchema, ProductSchema } from '../../http/schemas/product.schema.ts'
import type { ApiClient } from '../kit/api-client.ts'
import { type Html, html } from '../kit/html.ts'

export type Product = Static<typeof ProductSchema>
export type ProductEntry = Static<typeof ProductListEntrySchema>
type PixelSize = Product['variants'][number]['printAreaSizes'][string]

/** The API's largest page of products. */
export const PRODUCTS_PAGE_MAX = 100
/** Enough pages for any catalogue a person browses; beyond it the lists stop rather than the page hanging. */
const MOST_PRODUCT_PAGES = 20

/** Every product of the catalogue, page by page (the list is served from memory, so this is cheap). */
export async function allProducts(api: ApiClient): Promise<ProductEntry[]> {
  const products: ProductEntry[] = []
  for (let page = 0; page < MOST_PRODUCT_PAGES; page++) {
    const answer = await api.get<{ products: ProductEntry[]; hasMore: boolean }>('/products', {
      top: PRODUCTS_PAGE_MAX,
      skip: page * PRODUCTS_PAGE_MAX,
    })
    if (!answer.ok) break
    products.push(...answer.body.products)
    if (!answer.body.hasMore) break
  }
  return products
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' })

export function countryName(code: string): string {
  try {
    return regionNames.of(code) ?? code
  } catch {
    return code
  }
}

/** `<option>`s of the countries by name, `selected` chosen (or the first when it is not among them). */
export function countryOptions(codes: readonly string[], selected: string): Html {
  const byName = [...new Set(codes)]
    .map((code) => ({ code, name: countryName(code) }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en'))
  return html`${byName.map(
    ({ code, name }) =>
      html`<option value="${code}"${code === selected ? html` selected` : ''}>${name} (${code})</option>`,
  )}`
}

/** The countries some variant of the product ships to, sorted. */
export function shipsToOf(product: Pick<Product, 'variants'>): string[] {
  return [...new Set(product.variants.flatMap((variant) => variant.shipsTo))].sort()
}

export function pixelSize(size: PixelSize | undefined): string {
  return size ? `${size.horizontalResolution} × ${size.verticalResolution} px` : '—'
}

/** The recommended size of a print area: one size when every variant agrees, else what it depends on. */
export function recommendedSize(product: Pick<Product, 'variants'>, printArea: string): string {
  const sizes = [...new Set(product.variants.map((variant) => pixelSize(variant.printAreaSizes[printArea])))]
  return sizes.length === 1 ? (sizes[0] as string) : `${sizes.join(', ')} (by variant)`
}

/** Attributes a client must choose (more than one allowed value); single-valued ones may be left out. */
export function isChoice(values: readonly string[]): boolean {
  return values.length > 1
}

/** Countries as a count, with every one in a <details> when there are many, by name when there are few. */
export function countriesSummary(codes: readonly string[], fewest = 6): Html {
  if (codes.length === 0) return html`<span class="muted">nowhere</span>`
  if (codes.length <= fewest) return html`${codes.map((code) => countryName(code)).join(', ')}`
  return html`<details class="countries"><summary>${codes.length} countries</summary><p class="country-codes">${codes.join(' ')}</p></details>`
}
