// New order (Sandbox only): a test order placed from a form, through POST /v4.0/orders like any client's, then
// watched on its order page as the simulated labs make it. Choosing a product is a GET (?sku=) that renders
// the product's own fields; with htmx the product select swaps those in without a reload, from the same page.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { OrderDocument, Recipient } from '../../domain/order.ts'
import { SANDBOX_SCENARIO_HEADER, SANDBOX_SCENARIOS } from '../../domain/sandbox-scenarios.ts'
import { SHIPPING_METHODS, SIZING_MODES } from '../../domain/shipping-methods.ts'
import type { ApiBody, ApiClient, ApiFailure } from '../kit/api-client.ts'
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
  labelOfPath,
  NO_ERRORS,
} from '../kit/forms.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, DASHBOARD_PATH } from '../kit/layout.ts'
import { mayUse, type SessionScopes, scopeMissing } from '../kit/scopes.ts'
import type { Dashboard } from './page-context.ts'
import {
  countryOptions,
  isChoice,
  PRODUCTS_PAGE_MAX,
  type Product,
  type ProductEntry,
  recommendedSize,
  shipsToOf,
} from './products.ts'
import { recipientFields, recipientFromForm } from './recipient-form.ts'

const PATH = `${DASHBOARD_PATH}/new-order`
const DEFAULT_COUNTRY = 'GB'
const DEFAULT_SHIPPING_METHOD = 'Standard'
const SAMPLE_NAME = /^[a-z0-9-]+\.jpg$/

const SIZING_WORDS: Record<(typeof SIZING_MODES)[number], string> = {
  fillPrintArea: 'Fill the print area (crop what does not fit)',
  fitPrintArea: 'Fit inside the print area (no crop, may leave margins)',
  stretchToPrintArea: 'Stretch to the print area (may distort)',
}

/** What the order form holds, as typed: kept across a refused submit. */
interface OrderForm {
  sku: string
  idempotencyKey: string
  copies: string
  sizing: string
  attributes: Record<string, string>
  /** Per print area: `sample:<name>`, `url` or `none`; the URL typed; the page count typed. */
  images: Record<string, { choice: string; url: string; pageCount: string }>
  /** The recipient's fields as posted (recipientFromForm reads them). */
  recipient: FormValues
  countryCode: string
  shippingMethod: string
  merchantReference: string
  /** The Sandbox scenario chosen (docs/sandbox.md), '' for none. */
  scenario: string
  /** Place the order with its address as typed even where it breaks its country's rules (docs/addresses.md). */
  acceptUnverifiedAddress: boolean
  /** Whether the form was shown with address problems: it then offers to accept the address as typed. */
  addressProblemsShown: boolean
}

function freshForm(product: Product, samples: string[]): OrderForm {
  const countries = shipsToOf(product)
  return {
    sku: product.sku,
    idempotencyKey: `dashboard-${randomUUID()}`,
    copies: '1',
    sizing: 'fillPrintArea',
    attributes: Object.fromEntries(
      Object.entries(product.attributes).map(([name, values]) => [name, isChoice(values) ? '' : (values[0] ?? '')]),
    ),
    images: Object.fromEntries(
      Object.entries(product.printAreas).map(([area, { required }]) => [
        area,
        { choice: required && samples[0] ? `sample:${samples[0]}` : 'none', url: '', pageCount: '' },
      ]),
    ),
    recipient: {},
    countryCode: countries.includes(DEFAULT_COUNTRY) ? DEFAULT_COUNTRY : (countries[0] ?? DEFAULT_COUNTRY),
    shippingMethod: DEFAULT_SHIPPING_METHOD,
    merchantReference: '',
    scenario: '',
    acceptUnverifiedAddress: false,
    addressProblemsShown: false,
  }
}

function formFromBody(body: FormValues, product: Product): OrderForm {
  return {
    sku: product.sku,
    // The rendered form always carries its key; a post without one (not from this page) gets a key of its own.
    idempotencyKey: formValue(body, 'idempotencyKey') || `dashboard-${randomUUID()}`,
    copies: formValue(body, 'copies').trim(),
    sizing: formValue(body, 'sizing'),
    attributes: Object.fromEntries(
      Object.keys(product.attributes).map((name) => [name, formValue(body, `attribute.${name}`)]),
    ),
    images: Object.fromEntries(
      Object.keys(product.printAreas).map((area) => [
        area,
        {
          choice: formValue(body, `image.${area}`) || 'none',
          url: formValue(body, `imageUrl.${area}`).trim(),
          pageCount: formValue(body, `pageCount.${area}`).trim(),
        },
      ]),
    ),
    recipient: body,
    countryCode: formValue(body, 'countryCode'),
    shippingMethod: formValue(body, 'shippingMethod'),
    scenario: formValue(body, 'sandboxScenario'),
    merchantReference: formValue(body, 'merchantReference').trim(),
    acceptUnverifiedAddress: formValue(body, 'acceptUnverifiedAddress') === 'on',
    addressProblemsShown: false,
  }
}

/** The POST /v4.0/orders body, and which print area each asset of it is for (failures name assets by index). */
function orderRequest(form: OrderForm, product: Product, sampleUrl: (name: string) => string) {
  const assetAreas: string[] = []
  const assets = Object.keys(product.printAreas).flatMap((area) => {
    const image = form.images[area]
    if (!image || image.choice === 'none') return []
    const sample = image.choice.startsWith('sample:') ? image.choice.slice('sample:'.length) : null
    const url = sample !== null ? sampleUrl(sample) : image.url
    assetAreas.push(area)
    return [{ printArea: area, url, ...(image.pageCount === '' ? {} : { pageCount: integerOrText(image.pageCount) }) }]
  })
  const attributes = Object.fromEntries(Object.entries(form.attributes).filter(([, value]) => value !== ''))
  return {
    assetAreas,
    body: {
      merchantReference: form.merchantReference === '' ? null : form.merchantReference,
      shippingMethod: form.shippingMethod,
      idempotencyKey: form.idempotencyKey,
      recipient: recipientFromForm(form.recipient, form.countryCode),
      ...(form.acceptUnverifiedAddress ? { acceptUnverifiedAddress: true } : {}),
      items: [
        {
          sku: form.sku,
          copies: integerOrText(form.copies),
          sizing: form.sizing,
          ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
          assets,
        },
      ],
    },
  }
}

/** Ids of the order form's fields, by the API's failure paths. */
function targetOf(product: Product, assetAreas: string[]): (path: string) => FieldTarget | null {
  const areas = Object.keys(product.printAreas)
  const attributes = Object.keys(product.attributes)
  return (path) => {
    if (path === 'shippingMethod') return { id: 'shipping-method', label: 'Shipping method' }
    if (path === 'merchantReference') return { id: 'merchant-reference', label: 'Merchant reference' }
    if (path === 'recipient.address.countryCode') return { id: 'recipient-country', label: 'Country' }
    const recipient = /^recipient\.(?:address\.)?(\w+)$/.exec(path)
    if (recipient) return { id: `recipient-${recipient[1]}`, label: labelOfPath(path) }
    if (path === 'items[0].sku') return { id: 'new-order-sku', label: 'Product' }
    if (path === 'items[0].copies') return { id: 'copies', label: 'Copies' }
    if (path === 'items[0].sizing') return { id: 'sizing', label: 'Sizing' }
    if (path === 'items[0].attributes') return { id: 'attributes', label: 'Options' }
    const attribute = /^items\[0\]\.attributes\.(.+)$/.exec(path)
    if (attribute && attributes.includes(attribute[1] as string)) {
      return { id: `attribute-${attributes.indexOf(attribute[1] as string)}`, label: attribute[1] as string }
    }
    if (path === 'items[0].assets') return { id: 'images', label: 'Images' }
    const asset = /^items\[0\]\.assets\[(\d+)\](?:\.(\w+))?$/.exec(path)
    const area = asset ? assetAreas[Number(asset[1])] : undefined
    if (asset && area !== undefined) {
      const index = areas.indexOf(area)
      const label = `Image for ${area}`
      if (asset[2] === 'url') return { id: `area-${index}-url`, label: `${label}: URL` }
      if (asset[2] === 'pageCount') return { id: `area-${index}-pages`, label: `${label}: page count` }
      return { id: `area-${index}`, label }
    }
    return null
  }
}

interface PageData {
  /** Whether the key may read the catalogue: the product picker needs it. */
  catalogueReadable: boolean
  search: string
  products: ProductEntry[]
  moreProducts: boolean
  samples: string[]
}

async function loadPageData(api: ApiClient, search: string, scopes: SessionScopes): Promise<PageData> {
  const catalogueReadable = mayUse(scopes, 'readCatalogue')
  const [list, samples] = await Promise.all([
    catalogueReadable
      ? api.get<{ products: ProductEntry[]; hasMore: boolean }>('/products', { search, top: PRODUCTS_PAGE_MAX })
      : undefined,
    api.getBesideApi<{ samples: { name: string }[] }>('/samples/'),
  ])
  return {
    catalogueReadable,
    search,
    products: list?.ok ? list.body.products : [],
    moreProducts: list?.ok === true && list.body.hasMore,
    samples: samples.ok
      ? samples.body.samples.map((sample) => sample.name).filter((name) => SAMPLE_NAME.test(name))
      : [],
  }
}

function productPicker(data: PageData, chosen: string): Html {
  if (!data.catalogueReadable) {
    return html`<section class="card picker" aria-labelledby="product-heading">
<h2 id="product-heading">Choose a product</h2>${scopeMissing('readCatalogue')}</section>`
  }
  const listed = data.products.some((product) => product.sku === chosen)
  return html`<section class="card picker" aria-labelledby="product-heading">
<h2 id="product-heading">Choose a product</h2>
<form class="filters" method="get" action="${PATH}" role="search" aria-label="Find a product">
<div class="field field-wide"><label for="product-search">Search the catalogue</label>
<input id="product-search" name="q" type="search" value="${data.search}" placeholder="SKU, description or attribute value"></div>
<div class="field field-buttons"><button type="submit" class="button-quiet">Search</button></div>
</form>
<form class="filters" method="get" action="${PATH}">
<div class="field field-wide"><label for="new-order-sku">Product</label>
<select id="new-order-sku" name="sku" hx-get="${PATH}" hx-trigger="change" hx-target="#order-details" hx-select="#order-details" hx-swap="outerHTML" hx-push-url="true">
<option value="">${data.products.length === 0 ? 'No product matches the search' : 'Choose a product…'}</option>
${!listed && chosen !== '' ? html`<option value="${chosen}" selected>${chosen}</option>` : ''}
${data.products.map((product) => html`<option value="${product.sku}"${product.sku === chosen ? html` selected` : ''}>${product.sku} — ${product.description}</option>`)}
</select></div>
<div class="field field-buttons"><button type="submit">Choose product</button></div>
</form>
${data.moreProducts ? html`<p class="muted small">More products match than are listed: narrow the search.</p>` : ''}
</section>`
}

function attributeFields(product: Product, form: OrderForm, errors: FieldErrors): Html {
  const entries = Object.entries(product.attributes)
  if (entries.length === 0) return html``
  return html`<fieldset id="attributes" class="grid-fields" tabindex="-1"><legend>Options</legend>
${fieldMessages(errors, 'attributes')}
${entries.map(([name, values], index) => {
  const id = `attribute-${index}`
  const chosen = form.attributes[name] ?? ''
  return html`<div class="field"><label for="${id}">${name}${isChoice(values) ? html` <span class="muted">(required)</span>` : ''}</label>
<select id="${id}" name="attribute.${name}"${isChoice(values) ? html` required` : ''}${invalidAttributes(errors, id)}>
${isChoice(values) ? html`<option value="">Choose…</option>` : ''}
${values.map((value) => html`<option value="${value}"${value === chosen ? html` selected` : ''}>${value}</option>`)}
</select>${fieldMessages(errors, id)}</div>`
})}
</fieldset>`
}

function imageFields(
  product: Product,
  form: OrderForm,
  errors: FieldErrors,
  samples: string[],
  sampleUrl: (name: string) => string,
): Html {
  return html`<section id="images" tabindex="-1" aria-labelledby="images-heading"><h2 id="images-heading">Images</h2>
${fieldMessages(errors, 'images')}
${Object.entries(product.printAreas).map(([area, { required }], index) => {
  const id = `area-${index}`
  const image = form.images[area] ?? { choice: 'none', url: '', pageCount: '' }
  const option = (value: string, label: Html) => {
    const optionId = `${id}-choice-${value.replace(/[^a-z0-9-]/gi, '-')}`
    return html`<div class="image-choice"><input type="radio" id="${optionId}" name="image.${area}" value="${value}"${image.choice === value ? html` checked` : ''}${required ? html` required` : ''}>
<label for="${optionId}">${label}</label></div>`
  }
  return html`<fieldset id="${id}" class="print-area-choice" tabindex="-1"${invalidAttributes(errors, id)}>
<legend>Print area “${area}” ${required ? html`<span class="muted">(required)</span>` : html`<span class="muted">(optional)</span>`}</legend>
<p class="muted small">Recommended size: ${recommendedSize(product, area)}</p>
${fieldMessages(errors, id)}
<div class="image-choices">
${samples.map((name) => option(`sample:${name}`, html`<img src="${sampleUrl(name)}" alt="Sample image: a drawn sunset with corner marks (${name.replace(/\.jpg$/, '')})" width="96" loading="lazy"><span>${name}</span>`))}
${option('url', html`Image URL`)}
${required ? '' : option('none', html`No image`)}
</div>
<div class="grid-fields">
<div class="field"><label for="${id}-url">Image URL for “${area}” <span class="muted">(when “Image URL” is chosen)</span></label>
<input id="${id}-url" name="imageUrl.${area}" inputmode="url" autocomplete="off" value="${image.url}" placeholder="https://…"${invalidAttributes(errors, `${id}-url`)}>${fieldMessages(errors, `${id}-url`)}</div>
<div class="field"><label for="${id}-pages">Page count <span class="muted">(photo books only)</span></label>
<input id="${id}-pages" name="pageCount.${area}" type="number" min="1" step="1" inputmode="numeric" value="${image.pageCount}"${invalidAttributes(errors, `${id}-pages`)}>${fieldMessages(errors, `${id}-pages`)}</div>
</div>
</fieldset>`
})}
</section>`
}

function orderForm(
  product: Product,
  form: OrderForm,
  errors: FieldErrors,
  csrfToken: string,
  samples: string[],
  sampleUrl: (name: string) => string,
): Html {
  const countries = shipsToOf(product)
  return html`<form method="post" action="${PATH}" class="order-form">
${csrfField(csrfToken)}
<input type="hidden" name="sku" value="${product.sku}">
<input type="hidden" name="idempotencyKey" value="${form.idempotencyKey}">
<section aria-labelledby="item-heading"><h2 id="item-heading">${product.sku}</h2>
<p>${product.description}</p>
${attributeFields(product, form, errors)}
<div class="grid-fields">
<div class="field"><label for="copies">Copies</label>
<input id="copies" name="copies" type="number" min="1" max="10000" step="1" required value="${form.copies}"${invalidAttributes(errors, 'copies')}>${fieldMessages(errors, 'copies')}</div>
<div class="field"><label for="sizing">Sizing</label>
<select id="sizing" name="sizing"${invalidAttributes(errors, 'sizing')}>${SIZING_MODES.map((mode) => html`<option value="${mode}"${mode === form.sizing ? html` selected` : ''}>${SIZING_WORDS[mode]}</option>`)}</select>${fieldMessages(errors, 'sizing')}</div>
</div>
</section>
${imageFields(product, form, errors, samples, sampleUrl)}
<h2>Recipient and shipping</h2>
${recipientFields(
  Object.keys(form.recipient).length === 0
    ? null
    : (recipientFromForm(form.recipient, form.countryCode) as unknown as Recipient),
  html`<div class="field"><label for="recipient-country">Country</label>
<select id="recipient-country" name="countryCode"${invalidAttributes(errors, 'recipient-country')}>${countryOptions(countries, form.countryCode)}</select>${fieldMessages(errors, 'recipient-country')}</div>`,
  errors,
)}
${
  form.addressProblemsShown || form.acceptUnverifiedAddress
    ? html`<label class="option-line"><input type="checkbox" name="acceptUnverifiedAddress"${form.acceptUnverifiedAddress ? html` checked` : ''}> Place the order with the address as it is typed (<code>acceptUnverifiedAddress</code>)</label>`
    : ''
}
<fieldset class="grid-fields"><legend>Shipping</legend>
<div class="field"><label for="shipping-method">Shipping method</label>
<select id="shipping-method" name="shippingMethod"${invalidAttributes(errors, 'shipping-method')}>${SHIPPING_METHODS.map((method) => html`<option value="${method}"${method === form.shippingMethod ? html` selected` : ''}>${method}</option>`)}</select>${fieldMessages(errors, 'shipping-method')}</div>
<div class="field"><label for="merchant-reference">Merchant reference <span class="muted">(optional)</span></label>
<input id="merchant-reference" name="merchantReference" value="${form.merchantReference}"${invalidAttributes(errors, 'merchant-reference')}>${fieldMessages(errors, 'merchant-reference')}</div>
<div class="field"><label for="sandbox-scenario">Scenario <span class="muted">(the path the order takes: docs/sandbox.md)</span></label>
<select id="sandbox-scenario" name="sandboxScenario"><option value="">None (the account's default, if set)</option>${SANDBOX_SCENARIOS.map((scenario) => html`<option value="${scenario}"${scenario === form.scenario ? html` selected` : ''}>${scenario}</option>`)}</select></div>
</fieldset>
<div class="form-buttons"><button type="submit">Place test order</button>
<span class="muted small">Sandbox: simulated labs make it in seconds; nothing is printed or billed.</span></div>
</form>`
}

interface Rendered {
  data: PageData
  product: Product | null
  form: OrderForm | null
  errorBody: ApiBody | null
  errors: FieldErrors
  status: number
}

/** A bundled sample on this environment's own public address, where the order's download finds it. */
function sampleUrlOf(dashboard: Dashboard): (name: string) => string {
  return (name) => `${dashboard.publicUrl(dashboard.environment)}/samples/${name}`
}

function sendNewOrderPage(dashboard: Dashboard, request: FastifyRequest, reply: FastifyReply, page: Rendered) {
  const sampleUrl = sampleUrlOf(dashboard)
  const { product, form } = page
  // A key that may not place orders is not offered the form; a form sent anyway gets the API's refusal here.
  if (!mayUse(request.signedIn.caller.scopes, 'createOrders')) {
    return dashboard.sendPage(request, reply, {
      title: 'New test order',
      section: 'new-order',
      status: page.status,
      content: html`<h1>New test order</h1>
${errorSummary(page.errorBody, NO_ERRORS, 'The order was not placed')}
${scopeMissing('createOrders')}`,
    })
  }
  return dashboard.sendPage(request, reply, {
    title: 'New test order',
    section: 'new-order',
    status: page.status,
    content: html`<h1>New test order</h1>
<p class="muted">Place a Sandbox order as a client would (<code>POST /v4.0/orders</code>), then watch it move to Complete on its page.</p>
${errorSummary(page.errorBody, page.errors, 'The order was not placed')}
${productPicker(page.data, product?.sku ?? form?.sku ?? '')}
<div id="order-details">
${
  product && form
    ? orderForm(product, form, page.errors, request.signedIn.csrfToken, page.data.samples, sampleUrl)
    : html`<p class="muted">Choose a product to see its options, images and the recipient form.</p>`
}
</div>`,
  })
}

function sendLivePage(dashboard: Dashboard, request: FastifyRequest, reply: FastifyReply, status: number) {
  return dashboard.sendPage(request, reply, {
    title: 'New test order',
    section: 'new-order',
    status,
    content: html`<h1>Test orders are placed on Sandbox</h1>
<p>This is the Live dashboard: orders here are made, shipped and billed. Place test orders on the Sandbox dashboard, where simulated labs make them in seconds and nothing is billed.</p>
<p><a class="button" href="${dashboard.publicUrl('sandbox')}${PATH}">Go to the Sandbox dashboard</a></p>`,
  })
}

interface AddressCheck {
  valid: boolean
  problems: { field: string; code: string; message: string; severity: 'blocking' | 'advisory' }[]
  suggested: Record<string, string | null>
  /** No problem stops delivery (docs/addresses.md#blocking-problems-and-advisories). */
  deliverable: boolean
}

/**
 * The order's address problems (POST /v4.0/addresses/validate with its shipping method) as an error answer's
 * failures, each on its field with the suggestion, when one of them stops delivery; null when none does (advisories
 * alone do not hold the order back: the order's page shows them), or when the check cannot be made (the order's own
 * refusal then says what is wrong).
 */
async function addressProblems(api: ApiClient, order: { shippingMethod: string; recipient: Record<string, unknown> }) {
  const recipient = order.recipient as { phoneNumber: string | null; address: Record<string, unknown> }
  const answer = await api.post<AddressCheck>('/addresses/validate', {
    address: recipient.address,
    phoneNumber: recipient.phoneNumber,
    shippingMethod: order.shippingMethod,
  })
  if (!answer.ok || answer.body.valid || answer.body.deliverable) return null
  const { problems, suggested } = answer.body
  const failures: Record<string, ApiFailure[]> = {}
  for (const problem of problems) {
    const path = problem.field === 'phoneNumber' ? 'recipient.phoneNumber' : `recipient.address.${problem.field}`
    const normal = problem.field === 'phoneNumber' ? null : suggested[problem.field]
    const sent = problem.field === 'phoneNumber' ? null : (recipient.address[problem.field] ?? null)
    const suggestion = normal !== null && normal !== undefined && normal !== sent ? ` Suggested: ${normal}.` : ''
    failures[path] = [
      ...(failures[path] ?? []),
      { code: 'AddressProblem', providedValue: sent, comparisonValue: `${problem.message}.${suggestion}` },
    ]
  }
  return { outcome: 'AddressUnverified', failures }
}

async function loadProduct(api: ApiClient, sku: string) {
  return api.get<{ product: Product }>(`/products/${encodeURIComponent(sku)}`)
}

export function registerNewOrderPages(pages: FastifyInstance, dashboard: Dashboard): void {
  if (dashboard.environment === 'live') {
    pages.get('/new-order', (request, reply) => sendLivePage(dashboard, request, reply, 200))
    pages.post('/new-order', (request, reply) => sendLivePage(dashboard, request, reply, 403))
    return
  }

  pages.get<{ Querystring: { q?: string; sku?: string } }>('/new-order', async (request, reply) => {
    const { api, caller } = request.signedIn
    const search = (request.query.q ?? '').trim()
    const sku = (request.query.sku ?? '').trim()
    const [data, found] = await Promise.all([
      loadPageData(api, search, caller.scopes),
      sku === '' || !mayUse(caller.scopes, 'readCatalogue') ? null : loadProduct(api, sku),
    ])
    const product = found?.ok ? found.body.product : null
    return sendNewOrderPage(dashboard, request, reply, {
      data,
      product,
      form: product ? freshForm(product, data.samples) : null,
      errorBody: found && !found.ok ? found.body : null,
      errors: NO_ERRORS,
      status: found && !found.ok ? found.status : 200,
    })
  })

  pages.post<{ Body: FormValues }>('/new-order', async (request, reply) => {
    const { api, caller } = request.signedIn
    const body = request.body ?? {}
    const [data, found] = await Promise.all([
      loadPageData(api, '', caller.scopes),
      loadProduct(api, formValue(body, 'sku').trim()),
    ])
    if (!found.ok) {
      return sendNewOrderPage(dashboard, request, reply, {
        data,
        product: null,
        form: null,
        errorBody: found.body,
        errors: NO_ERRORS,
        status: 400,
      })
    }
    const product = found.body.product
    const form = formFromBody(body, product)
    // Only the listed samples become URLs: the form's value is the sample's name, never a URL of its own.
    for (const image of Object.values(form.images)) {
      if (image.choice.startsWith('sample:') && !data.samples.includes(image.choice.slice('sample:'.length)))
        image.choice = 'none'
    }
    const { body: order, assetAreas } = orderRequest(form, product, sampleUrlOf(dashboard))
    // The address is checked first, so a problem that stops delivery shows beside its field before anything is
    // placed; the merchant may then correct it or place the order with it as typed. Advisories alone do not stop it.
    // The check needs the quotes scope; without it the order's own refusal says what is wrong with the address.
    if (!form.acceptUnverifiedAddress && mayUse(caller.scopes, 'checkAddresses')) {
      const problems = await addressProblems(api, order)
      if (problems) {
        form.addressProblemsShown = true
        return sendNewOrderPage(dashboard, request, reply, {
          data,
          product,
          form,
          errorBody: {
            outcome: 'AddressUnverified',
            statusText:
              "The recipient's address breaks its country's rules: correct it, or place the order with the address as it is typed.",
          },
          errors: fieldErrors(problems, targetOf(product, assetAreas)),
          status: 400,
        })
      }
    }
    // The scenario goes as the header, so the order's metadata stays the client's own.
    const scenario: Record<string, string> = form.scenario === '' ? {} : { [SANDBOX_SCENARIO_HEADER]: form.scenario }
    const answer = await api.post<{ order: Pick<OrderDocument, 'id'> }>('/orders', order, scenario)
    if (answer.ok && answer.body.order?.id) {
      const id = answer.body.order.id
      switch (answer.body.outcome) {
        case 'OnHold':
          return dashboard.redirect(reply, '/orders', {
            kind: 'info',
            text: `Test order ${id} placed; it is on hold for the account's pause window and appears here when the window ends.`,
          })
        case 'AlreadyExists':
          return dashboard.redirect(reply, `/orders/${id}`, {
            kind: 'info',
            text: `Test order ${id} was already placed from this form; nothing new was created.`,
          })
        default:
          return dashboard.redirect(reply, `/orders/${id}`, {
            kind: 'success',
            text: `Test order ${id} placed; it will move to Complete in a few seconds.`,
          })
      }
    }
    return sendNewOrderPage(dashboard, request, reply, {
      data,
      product,
      form,
      errorBody: answer.body,
      errors: fieldErrors(answer.body, targetOf(product, assetAreas)),
      status: answer.ok ? 500 : answer.status,
    })
  })
}
