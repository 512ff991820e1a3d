// Catalogue: the products (GET /v4.0/products) with search and paging, each with its attributes, print areas,
// variants and their recommended pixel sizes, where it ships and the labs that make it; and a quote calculator
// (POST /v4.0/quotes) for a basket and a destination. Both are GET forms: nothing here changes anything.
import type { FastifyInstance } from 'fastify'
import type { Static } from 'typebox'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import type { QuoteResponseSchema } from '../../http/schemas/quote.schema.ts'
import type { ApiBody } from '../kit/api-client.ts'
import { formatDate, formatDeliveryWindow, formatMoney } from '../kit/format.ts'
import {
  errorSummary,
  type FieldErrors,
  type FieldTarget,
  type FormValues,
  fieldErrors,
  fieldMessages,
  formValue,
  integerOrText,
  invalidAttributes,
  NO_ERRORS,
} from '../kit/forms.ts'
import { type Html, html } from '../kit/html.ts'
import { DASHBOARD_PATH, errorNotice, listPage, skipOf } from '../kit/layout.ts'
import { mayUse, scopeMissing } from '../kit/scopes.ts'
import type { Dashboard } from './page-context.ts'
import {
  allProducts,
  countriesSummary,
  countryName,
  countryOptions,
  isChoice,
  type Product,
  type ProductEntry,
  pixelSize,
  recommendedSize,
} from './products.ts'

const PATH = `${DASHBOARD_PATH}/catalogue`
const QUOTE_PATH = `${PATH}/quote`
/** Products per page of the list. */
export const CATALOGUE_PAGE_SIZE = 20
/** Variants tables this long start folded. */
const FOLDED_VARIANTS = 4
const DEFAULT_BASKET_ROWS = 3
const MOST_BASKET_ROWS = 20
const DEFAULT_DESTINATION = 'GB'

type QuoteAnswer = Static<typeof QuoteResponseSchema>

function listUrl(search: string, skip: number): string {
  const params = new URLSearchParams()
  if (search !== '') params.set('q', search)
  if (skip > 0) params.set('skip', String(skip))
  const query = params.toString()
  return `${PATH}${query ? `?${query}` : ''}`
}

/** A table that may scroll sideways on a phone: its scrolling box is focusable, so keys can scroll it too. */
function scrollingTable(captionId: string, table: Html): Html {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="${captionId}">${table}</div>`
}

function variantsTable(product: ProductEntry, index: number): Html {
  const choices = Object.keys(product.attributes).filter((name) => isChoice(product.attributes[name] ?? []))
  const everywhere = product.shipsTo.join(' ')
  const table = scrollingTable(
    `variants-${index}`,
    html`<table class="variants phone-cards">
<caption id="variants-${index}" class="visually-hidden">Variants of ${product.sku}</caption>
<thead><tr><th scope="col">${choices.length === 0 ? 'Variant' : choices.join(' · ')}</th>${product.printAreas.map((area) => html`<th scope="col" class="number">${area} (recommended)</th>`)}<th scope="col">Ships to</th></tr></thead>
<tbody>${product.variants.map(
      (variant) => html`<tr>
<th scope="row">${choices.length === 0 ? 'Only variant' : choices.map((name) => variant.attributes[name] ?? '—').join(' · ')}</th>
${product.printAreas.map((area) => html`<td class="number" data-label="${area} (recommended)">${pixelSize(variant.printAreaSizes[area])}</td>`)}
<td data-label="Ships to">${variant.shipsTo.join(' ') === everywhere ? html`All ${variant.shipsTo.length} of the product’s countries` : countriesSummary(variant.shipsTo)}</td>
</tr>`,
    )}</tbody></table>`,
  )
  return html`<details class="variants-details"${product.variants.length <= FOLDED_VARIANTS ? html` open` : ''}>
<summary>${product.variants.length} variant${product.variants.length === 1 ? '' : 's'}: options, recommended pixel sizes, destinations</summary>
${table}</details>`
}

/** What a product's card offers: a quote and, on Sandbox, a test order, each when the key may. */
interface CardOffers {
  quote: boolean
  testOrder: boolean
}

function productCard(product: ProductEntry, index: number, offers: CardOffers): Html {
  const { width, height, units } = product.productDimensions
  const attributes = Object.entries(product.attributes)
  return html`<article class="card product" aria-labelledby="product-${index}">
<div class="product-head"><h2 id="product-${index}"><code>${product.sku}</code></h2>
<div class="product-actions">${offers.quote ? html`<a class="button button-quiet button-small" href="${QUOTE_PATH}?sku1=${encodeURIComponent(product.sku)}">Quote<span class="visually-hidden"> ${product.sku}</span></a>` : ''}
${offers.testOrder ? html`<a class="button button-small" href="${DASHBOARD_PATH}/new-order?sku=${encodeURIComponent(product.sku)}">Test order<span class="visually-hidden"> of ${product.sku}</span></a>` : ''}</div></div>
<p>${product.description}</p>
<dl class="facts">
<div><dt>Size</dt><dd>${width} × ${height} ${units}</dd></div>
<div><dt>Print areas</dt><dd><ul class="plain">${product.printAreas.map((area) => html`<li>${area} <span class="muted">(${recommendedSize(product, area)})</span></li>`)}</ul></dd></div>
<div class="facts-wide"><dt>Options</dt><dd>${
    attributes.length === 0
      ? html`<span class="muted">None</span>`
      : html`<ul class="plain">${attributes.map(([name, values]) => html`<li><strong>${name}</strong>: ${values.join(', ')}${isChoice(values) ? '' : html` <span class="muted">(fixed)</span>`}</li>`)}</ul>`
  }</dd></div>
<div class="facts-wide"><dt>Made by</dt><dd><ul class="plain">${product.labs.map((lab) => html`<li>${lab.name} <span class="muted">(${lab.code}, ${countryName(lab.countryCode)})</span></li>`)}</ul></dd></div>
<div class="facts-wide"><dt>Ships to</dt><dd>${countriesSummary(product.shipsTo)}</dd></div>
</dl>
${variantsTable(product, index)}
</article>`
}

interface BasketRow {
  sku: string
  copies: string
  pages: string
  attributes: Record<string, string>
  /** The product of the SKU, when the catalogue has it: its options become selects. */
  product: Product | null
}

interface QuoteForm {
  rows: BasketRow[]
  destination: string
  shippingMethod: string
  /** "YYYY-MM-DD" from a date input, or "" for none. */
  deliverBy: string
}

function queryText(query: FormValues, name: string): string {
  return formValue(query, name).trim()
}

/** The basket as typed: rows `sku1`, `copies1`, `pages1`, `attr1.<name>`, ... numbered from 1. */
function basketFromQuery(query: FormValues): { form: QuoteForm; asked: boolean } {
  const requested = Number.parseInt(queryText(query, 'rows'), 10) || DEFAULT_BASKET_ROWS
  const adding = queryText(query, 'add') !== ''
  const count = Math.min(MOST_BASKET_ROWS, Math.max(1, requested + (adding ? 1 : 0)))
  const rows = Array.from({ length: count }, (_, index): BasketRow => {
    const row = index + 1
    const prefix = `attr${row}.`
    return {
      sku: queryText(query, `sku${row}`),
      copies: queryText(query, `copies${row}`) || '1',
      pages: queryText(query, `pages${row}`),
      attributes: Object.fromEntries(
        Object.keys(query)
          .filter((name) => name.startsWith(prefix))
          .map((name) => [name.slice(prefix.length), queryText(query, name)]),
      ),
      product: null,
    }
  })
  return {
    form: {
      rows,
      destination: queryText(query, 'destination').toUpperCase() || DEFAULT_DESTINATION,
      shippingMethod: queryText(query, 'shippingMethod'),
      deliverBy: queryText(query, 'deliverBy'),
    },
    asked: queryText(query, 'destination') !== '' && !adding,
  }
}

/** The POST /v4.0/quotes body from the filled rows, and which row each of its items came from. */
function quoteRequest(form: QuoteForm) {
  const filled = form.rows.map((row, index) => ({ row, index })).filter(({ row }) => row.sku !== '')
  return {
    rowOfItem: filled.map(({ index }) => index),
    body: {
      destinationCountryCode: form.destination,
      ...(form.shippingMethod === '' ? {} : { shippingMethod: form.shippingMethod }),
      ...(form.deliverBy === '' ? {} : { deliverBy: form.deliverBy }),
      items: filled.map(({ row }) => {
        const pageCount = row.pages === '' ? {} : { pageCount: integerOrText(row.pages) }
        // A quote prices the product, not the pictures: one asset per required print area says which are printed.
        const areas = row.product
          ? Object.entries(row.product.printAreas)
              .filter(([, area]) => area.required)
              .map(([name]) => name)
          : ['default']
        const attributes = Object.fromEntries(
          Object.entries(row.attributes).filter(
            ([name, value]) => value !== '' && (row.product ? name in row.product.attributes : true),
          ),
        )
        return {
          sku: row.sku,
          copies: integerOrText(row.copies),
          ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
          assets: areas.map((printArea) => ({ printArea, ...pageCount })),
        }
      }),
    },
  }
}

/** The options a row offers as selects: the attributes of its product with more than one value. */
function rowChoices(row: BasketRow): [string, string[]][] {
  return Object.entries(row.product?.attributes ?? {}).filter(([, values]) => isChoice(values))
}

function quoteTargetOf(rows: BasketRow[], rowOfItem: number[]): (path: string) => FieldTarget | null {
  return (path) => {
    if (path === 'destinationCountryCode') return { id: 'quote-destination', label: 'Destination' }
    if (path === 'shippingMethod') return { id: 'quote-method', label: 'Shipping method' }
    if (path === 'deliverBy') return { id: 'quote-deliver-by', label: 'Deliver by' }
    const item = /^items\[(\d+)\](?:\.(\w+)(?:\.(.+))?)?/.exec(path)
    const index = item ? rowOfItem[Number(item[1])] : undefined
    const row = index === undefined ? undefined : rows[index]
    if (!item || index === undefined || !row) return null
    const number = index + 1
    if (item[2] === 'copies') return { id: `row-${number}-copies`, label: `Row ${number}, copies` }
    if (item[2] === 'assets') return { id: `row-${number}-pages`, label: `Row ${number}, pages` }
    if (item[2] === 'attributes') {
      const choices = rowChoices(row).map(([name]) => name)
      // A named attribute's select, or the first one left unchosen for a missing one.
      const named = item[3] ?? choices.find((name) => !row.attributes[name]) ?? choices[0]
      const column = named === undefined ? -1 : choices.indexOf(named)
      if (column >= 0) return { id: `row-${number}-attr-${column}`, label: `Row ${number}, ${named}` }
    }
    return { id: `row-${number}-sku`, label: `Row ${number}, SKU` }
  }
}

function basketRowFields(row: BasketRow, index: number, errors: FieldErrors): Html {
  const number = index + 1
  const id = (field: string) => `row-${number}-${field}`
  const choices = rowChoices(row)
  return html`<fieldset class="grid-fields basket-row"><legend>Row ${number}</legend>
<div class="field field-sku"><label for="${id('sku')}">SKU</label>
<input id="${id('sku')}" name="sku${number}" list="catalogue-skus" value="${row.sku}" autocomplete="off" spellcheck="false"${invalidAttributes(errors, id('sku'))}>${fieldMessages(errors, id('sku'))}</div>
<div class="field"><label for="${id('copies')}">Copies</label>
<input id="${id('copies')}" name="copies${number}" type="number" min="1" max="10000" step="1" value="${row.copies}"${invalidAttributes(errors, id('copies'))}>${fieldMessages(errors, id('copies'))}</div>
<div class="field"><label for="${id('pages')}">Pages <span class="muted">(photo books)</span></label>
<input id="${id('pages')}" name="pages${number}" type="number" min="1" step="1" value="${row.pages}"${invalidAttributes(errors, id('pages'))}>${fieldMessages(errors, id('pages'))}</div>
${choices.map(([name, values], column) => {
  const attributeId = id(`attr-${column}`)
  return html`<div class="field"><label for="${attributeId}">${name}</label>
<select id="${attributeId}" name="attr${number}.${name}"${invalidAttributes(errors, attributeId)}><option value="">Choose…</option>${values.map((value) => html`<option value="${value}"${row.attributes[name] === value ? html` selected` : ''}>${value}</option>`)}</select>${fieldMessages(errors, attributeId)}</div>`
})}
</fieldset>`
}

function quotesTable(answer: QuoteAnswer, labNames: Map<string, string>, destination: string): Html {
  return scrollingTable(
    'quotes-caption',
    html`<table class="quotes phone-cards">
<caption id="quotes-caption" class="visually-hidden">Quotes to ${countryName(destination)}, one per shipping method</caption>
<thead><tr><th scope="col">Shipping method</th><th scope="col">Estimated delivery</th><th scope="col" class="number">Items</th><th scope="col" class="number">Shipping</th><th scope="col" class="number">Tax</th><th scope="col" class="number">Total</th><th scope="col">Shipments</th></tr></thead>
<tbody>${answer.quotes.map(
      (quote) => html`<tr>
<th scope="row">${quote.shipmentMethod}${quote.guarantee ? html`<div class="muted small" data-guarantee>guaranteed: ${quote.guarantee.creditPercent}% of shipping back if late</div>` : ''}</th>
<td data-label="Estimated delivery">${formatDeliveryWindow(quote.estimatedDelivery)}${quote.estimatedDispatchDate ? html`<div class="muted small">dispatched ${formatDate(quote.estimatedDispatchDate)}</div>` : ''}</td>
<td class="number" data-label="Items">${formatMoney(quote.costSummary.items)}</td>
<td class="number" data-label="Shipping">${formatMoney(quote.costSummary.shipping)}</td>
<td class="number" data-label="Tax">${formatMoney(quote.costSummary.totalTax)}</td>
<td class="number total" data-label="Total">${formatMoney(quote.costSummary.totalCost)}</td>
<td class="shipments" data-label="Shipments"><ul class="plain">${quote.shipments.map(
        (shipment) =>
          html`<li>${labNames.get(shipment.fulfillmentLocation.labCode) ?? shipment.fulfillmentLocation.labCode} <span class="muted">(${shipment.fulfillmentLocation.labCode}, ${countryName(shipment.fulfillmentLocation.countryCode)})</span>: ${shipment.carrier.name}, ${shipment.carrier.service} · ${formatMoney(shipment.cost)} · ${shipment.items.length} item${shipment.items.length === 1 ? '' : 's'}${shipment.estimatedDelivery ? html` · arrives ${formatDeliveryWindow(shipment.estimatedDelivery)}` : ''}</li>`,
      )}</ul></td>
</tr>`,
    )}</tbody></table>`,
  )
}

export function registerCataloguePages(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.get<{ Querystring: { q?: string; skip?: string } }>('/catalogue', async (request, reply) => {
    const scopes = request.signedIn.caller.scopes
    if (!mayUse(scopes, 'readCatalogue')) {
      return dashboard.sendPage(request, reply, {
        title: 'Catalogue',
        section: 'catalogue',
        content: html`<h1>Catalogue</h1>${scopeMissing('readCatalogue')}`,
      })
    }
    const offers: CardOffers = {
      quote: mayUse(scopes, 'quote'),
      testOrder: dashboard.environment === 'sandbox' && mayUse(scopes, 'createOrders'),
    }
    const search = (request.query.q ?? '').trim()
    const skip = skipOf(request.query.skip)
    const {
      answer,
      entries: products,
      hasMore,
      pages,
    } = await listPage<ProductEntry>(
      request.signedIn.api,
      { path: '/products', key: 'products', query: { search }, skip, pageSize: CATALOGUE_PAGE_SIZE },
      { noun: 'products', urlOf: (offset) => listUrl(search, offset), labels: ['Previous', 'Next'] },
    )
    return dashboard.sendPage(request, reply, {
      title: 'Catalogue',
      section: 'catalogue',
      status: answer.ok ? 200 : answer.status,
      notice: errorNotice(answer),
      content: html`<div class="page-head"><h1>Catalogue</h1>${offers.quote ? html`<a class="button" href="${QUOTE_PATH}">Quote a basket</a>` : ''}</div>
<form class="filters" method="get" action="${PATH}" role="search" aria-label="Search the catalogue">
<div class="field field-wide"><label for="catalogue-q">Search</label>
<input id="catalogue-q" name="q" type="search" value="${search}" placeholder="SKU, description or attribute value, e.g. canvas"></div>
<div class="field field-buttons"><button type="submit">Search</button>${search !== '' ? html` <a href="${PATH}">Clear</a>` : ''}</div>
</form>
<p class="muted result-count" role="status">${
        products.length === 0
          ? search === ''
            ? 'The catalogue has no products.'
            : html`No product matches “${search}”.`
          : html`${search === '' ? 'Products' : html`Products matching “${search}”`}, by SKU${hasMore || skip > 0 ? html` (${skip + 1}–${skip + products.length})` : html`: ${products.length}`}.`
      }</p>
${products.map((product, index) => productCard(product, index, offers))}
${pages}`,
    })
  })

  pages.get<{ Querystring: FormValues }>('/catalogue/quote', async (request, reply) => {
    const { api, caller } = request.signedIn
    // The calculator needs both: the catalogue for its rows, the quotes scope for the price.
    const missing = (['readCatalogue', 'quote'] as const).filter((use) => !mayUse(caller.scopes, use))
    if (missing.length > 0) {
      return dashboard.sendPage(request, reply, {
        title: 'Quote',
        section: 'catalogue',
        content: html`<p class="breadcrumb"><a href="${PATH}">Catalogue</a> /</p>
<h1>Quote a basket</h1>${missing.map((use) => scopeMissing(use))}`,
      })
    }
    const { form, asked } = basketFromQuery(request.query)
    const [catalogue, ...rowProducts] = await Promise.all([
      allProducts(api),
      ...form.rows.map((row) =>
        row.sku === '' ? null : api.get<{ product: Product }>(`/products/${encodeURIComponent(row.sku)}`),
      ),
    ])
    form.rows.forEach((row, index) => {
      const found = rowProducts[index]
      row.product = found?.ok ? found.body.product : null
    })
    const filled = form.rows.some((row) => row.sku !== '')
    let quote: QuoteAnswer | null = null
    let refused: ApiBody | null = null
    let errors: FieldErrors = NO_ERRORS
    if (asked && filled) {
      const { body, rowOfItem } = quoteRequest(form)
      const answer = await api.post<QuoteAnswer>('/quotes', body)
      if (answer.ok) quote = answer.body
      else {
        refused = answer.body
        errors = fieldErrors(answer.body, quoteTargetOf(form.rows, rowOfItem))
      }
    }
    const countries = [...new Set(catalogue.flatMap((product) => product.shipsTo))]
    const labNames = new Map(catalogue.flatMap((product) => product.labs.map((lab) => [lab.code, lab.name] as const)))
    return dashboard.sendPage(request, reply, {
      title: 'Quote',
      section: 'catalogue',
      status: refused ? 400 : 200,
      content: html`<p class="breadcrumb"><a href="${PATH}">Catalogue</a> /</p>
<h1>Quote a basket</h1>
<p class="muted">Prices items for a destination without placing an order (<code>POST /v4.0/quotes</code>): the labs, carriers and costs an order of the same items would get.</p>
${errorSummary(refused, errors, 'No quote')}
<form method="get" action="${QUOTE_PATH}" class="card quote-form">
<input type="hidden" name="rows" value="${form.rows.length}">
<datalist id="catalogue-skus">${catalogue.map((product) => html`<option value="${product.sku}">${product.description}</option>`)}</datalist>
${form.rows.map((row, index) => basketRowFields(row, index, errors))}
<p class="muted small">Options of a product appear once its SKU is in the basket (get a quote or add a row).</p>
<fieldset class="grid-fields"><legend>Destination and shipping</legend>
<div class="field"><label for="quote-destination">Country</label>
<select id="quote-destination" name="destination"${invalidAttributes(errors, 'quote-destination')}>${countryOptions(countries.length > 0 ? countries : [form.destination], form.destination)}</select>${fieldMessages(errors, 'quote-destination')}</div>
<div class="field"><label for="quote-method">Shipping method</label>
<select id="quote-method" name="shippingMethod"${invalidAttributes(errors, 'quote-method')}><option value="">Every method that serves</option>${SHIPPING_METHODS.map((method) => html`<option value="${method}"${method === form.shippingMethod ? html` selected` : ''}>${method}</option>`)}</select>${fieldMessages(errors, 'quote-method')}</div>
<div class="field"><label for="quote-deliver-by">Deliver by <span class="muted">(optional)</span></label>
<input id="quote-deliver-by" name="deliverBy" type="date" value="${form.deliverBy}" aria-describedby="quote-deliver-by-hint"${invalidAttributes(errors, 'quote-deliver-by')}><div id="quote-deliver-by-hint" class="muted small">The cheapest labs that deliver by this date.</div>${fieldMessages(errors, 'quote-deliver-by')}</div>
</fieldset>
<div class="form-buttons"><button type="submit">Get quote</button>
${form.rows.length < MOST_BASKET_ROWS ? html`<button type="submit" name="add" value="1" class="button-quiet">Add a row</button>` : ''}</div>
</form>
${
  quote
    ? html`<section aria-labelledby="quotes-heading"><h2 id="quotes-heading">Quotes to ${countryName(form.destination)}</h2>
${quote.issues.map((issue) => html`<div class="notice notice-info" role="status">${issue.description}</div>`)}
${quotesTable(quote, labNames, form.destination)}</section>`
    : asked && !filled
      ? html`<p class="notice notice-info" role="status">Put a SKU in a row of the basket to get a quote.</p>`
      : ''
}`,
    })
  })
}
