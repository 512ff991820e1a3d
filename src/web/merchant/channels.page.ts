// The Channels page (docs/dashboard.md#channels-dashboardchannels): the account's storefront channels with their
// status and webhook URL, the forms that connect a Shopify or a WooCommerce store (with the steps in the store's
// admin, its approval and shipping method), and each channel's page: a Shopify channel's webhook subscriptions (made
// by printroute; Subscribe again when they failed), its orders waiting as not connected with a Release button, the
// orders the store cancelled with what cancelling them answered, the shipments told to the store (a failing one with
// Try again now), its links (several print areas
// each), its settings and secrets changed (PATCH), Delete.
// Everything goes through /v4.0/channels (docs/channels.md), so the page can do nothing a client of the API cannot.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CHANNEL_APPROVAL_MODES, MAX_APPROVAL_DELAY_HOURS } from '../../domain/approval.ts'
import { CHANNEL_LIMITS } from '../../domain/channels.ts'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import type { ApiBody } from '../kit/api-client.ts'
import { formatTime, stateBadge } from '../kit/format.ts'
import {
  errorSummary,
  type FieldErrors,
  type FieldTarget,
  type FormValues,
  fieldErrors,
  fieldMessages,
  formValue,
  invalidAttributes,
  NO_ERRORS,
} from '../kit/forms.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, DASHBOARD_PATH, errorNotice } from '../kit/layout.ts'
import { mayUse, scopeMissing } from '../kit/scopes.ts'
import type { Dashboard } from './page-context.ts'

export const CHANNELS_PATH = `${DASHBOARD_PATH}/channels`

interface Channel {
  id: string
  type: 'shopify' | 'woocommerce'
  name: string | null
  shopDomain?: string
  storeUrl?: string
  status: string
  statusReason: string | null
  approval: { mode: string; delayHours?: number }
  shippingMethod: string
  webhookUrl: string
  /** Shopify: the app's webhook subscriptions printroute makes; absent when it never made them. */
  webhooks?: {
    state: 'subscribed' | 'pending' | 'failed'
    topics: string[]
    reason?: string
    checkedAt: string | null
    nextAttemptAt?: string
  }
  created: string
}

interface Fulfilment {
  id: string
  orderId: string | null
  shipmentId: string
  externalOrderId: string
  state: 'pending' | 'delivered' | 'failed'
  attemptCount: number
  nextAttemptAt: string | null
  lastError: string | null
  created: string
  attempts: { attempt: number; attempted: string; httpStatus: number | null; error: string | null }[]
}

interface Link {
  id: string
  externalVariantId: string | null
  externalSku: string | null
  sku: string | null
  attributes: Record<string, string>
  assets: { printArea: string; url: string }[]
  ignore: boolean
}

interface PendingOrder {
  externalOrderId: string
  name: string
  received: string
  unlinkedItems: {
    externalLineItemId: string
    externalVariantId: string | null
    externalSku: string | null
    title: string
    quantity: number
  }[]
  problem: string | null
}

interface StoreCancellation {
  externalOrderId: string
  name: string
  orderId: string | null
  cancelled: string
  answer: string | null
}

/** The fields of each create form: the API's name and the label shown. */
const STORE_FIELDS = {
  shopify: [
    ['name', 'Name (yours, optional)'],
    ['shopDomain', 'Shop domain (name.myshopify.com)'],
    ['adminAccessToken', 'Admin API access token (shpat_...)'],
    ['webhookSecret', 'API secret key (signs the webhooks)'],
  ],
  woocommerce: [
    ['name', 'Name (yours, optional)'],
    ['storeUrl', 'Store address (https://...)'],
    ['consumerKey', 'Consumer key (ck_...)'],
    ['consumerSecret', 'Consumer secret (cs_...)'],
    ['webhookSecret', 'Webhook secret (the one you give WooCommerce)'],
  ],
} as const

type StoreType = keyof typeof STORE_FIELDS

const SECRET_FIELDS = new Set(['adminAccessToken', 'consumerKey', 'consumerSecret', 'webhookSecret'])

function storeOf(channel: Channel): string {
  return channel.shopDomain ?? channel.storeUrl ?? ''
}

function channelPath(id: string, rest = ''): string {
  return `${CHANNELS_PATH}/${encodeURIComponent(id)}${rest}`
}

/** Each channel status's badge: its words and colour (the words say it; the colour only repeats them). */
const STATUS_BADGES: Record<string, { words: string; badge: string }> = {
  active: { words: 'Active', badge: 'badge-ok' },
  failing: { words: 'Failing', badge: 'badge-error' },
  uninstalled: { words: 'Uninstalled', badge: 'badge-cancelled' },
}

/** A Shopify channel's webhook subscriptions: subscribed, being subscribed, or failed with why and a button. */
function webhooksFact(channel: Channel, csrfToken: string, mayManage: boolean): Html {
  if (channel.type !== 'shopify') return html``
  const webhooks = channel.webhooks
  const button = mayManage
    ? html`<form method="post" action="${channelPath(channel.id, '/webhooks/subscribe')}" class="inline-form">${csrfField(csrfToken)}<button type="submit" class="button-small">Subscribe again</button></form>`
    : ''
  let line: Html
  if (webhooks?.state === 'subscribed') {
    line = html`<span class="badge badge-ok">Subscribed</span> <span class="muted">${webhooks.topics.join(', ')}${webhooks.checkedAt ? html`, checked ${formatTime(webhooks.checkedAt)}` : ''}</span>${webhooks.reason ? html`<div class="small muted">${webhooks.reason}</div>` : ''}`
  } else if (webhooks?.state === 'pending') {
    line = html`${stateBadge('pending')} <span class="muted">printroute is subscribing them: reload the page in a moment.</span>`
  } else if (webhooks?.state === 'failed') {
    line = html`${stateBadge('failed')} <span class="webhooks-reason">${webhooks.reason ?? ''}</span>${webhooks.nextAttemptAt ? html` <span class="muted webhooks-retry">(printroute tries again at ${formatTime(webhooks.nextAttemptAt)})</span>` : ''} ${button}`
  } else {
    line = html`<span class="muted">Not subscribed by printroute.</span> ${button}`
  }
  return html`<div class="facts-wide channel-webhooks"><dt>Webhooks</dt><dd>${line}</dd></div>`
}

/** The status, and when failing why: the store's last answer, or the secrets to enter again. */
function statusCell(channel: Channel): Html {
  const known = STATUS_BADGES[channel.status]
  const badge = known ? html`<span class="badge ${known.badge}">${known.words}</span>` : stateBadge(channel.status)
  return html`${badge}${channel.statusReason ? html` <span class="${channel.status === 'failing' ? 'failing' : 'muted'}" data-status-reason>${channel.statusReason}</span>` : ''}`
}

function channelsTable(channels: Channel[]): Html {
  if (channels.length === 0) return html`<p class="muted">No channel yet: connect a store below.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="channels-caption"><table class="phone-cards">
<caption id="channels-caption" class="visually-hidden">Channels</caption>
<thead><tr><th scope="col">Channel</th><th scope="col">Type</th><th scope="col">Store</th><th scope="col">Status</th><th scope="col">Webhook URL</th></tr></thead>
<tbody>${channels.map(
    (channel) => html`<tr>
<th scope="row" data-label="Channel"><a href="${channelPath(channel.id)}">${channel.name ?? channel.id}</a></th>
<td data-label="Type">${channel.type === 'shopify' ? 'Shopify' : 'WooCommerce'}</td>
<td data-label="Store" class="break">${storeOf(channel)}</td>
<td data-label="Status">${statusCell(channel)}</td>
<td data-label="Webhook URL" class="break"><code>${channel.webhookUrl}</code></td>
</tr>`,
  )}</tbody></table></div>`
}

function storeFieldId(type: StoreType, field: string): string {
  return `${type}-${field}`
}

const APPROVAL_WORDS: Record<string, string> = {
  automatic: 'Automatic (start at once)',
  delayed: 'Delayed (hold some hours)',
  manual: 'Manual (drafts I confirm)',
}

/** The approval as the page says it. */
function approvalText(approval: Channel['approval']): string {
  if (approval.mode === 'delayed') return `Delayed ${approval.delayHours ?? 1} h before production`
  return approval.mode === 'manual' ? 'Manual (drafts to confirm)' : 'Automatic'
}

/** The approval and shipping method fields of a create or edit form; `prefix` keeps their ids apart. */
function settingsFields(prefix: string, values: FormValues, errors: FieldErrors): Html {
  const mode = formValue(values, 'approvalMode') || 'automatic'
  const method = formValue(values, 'shippingMethod') || 'Standard'
  const select = (
    name: string,
    label: string,
    options: readonly string[],
    chosen: string,
    words = (o: string) => o,
  ) => {
    const id = `${prefix}-${name}`
    return html`<div class="field"><label for="${id}">${label}</label>
<select id="${id}" name="${name}"${invalidAttributes(errors, id)}>${options.map(
      (option) => html`<option value="${option}"${option === chosen ? ' selected' : ''}>${words(option)}</option>`,
    )}</select>${fieldMessages(errors, id)}</div>`
  }
  const delayId = `${prefix}-delayHours`
  return html`${select('approvalMode', 'Approval of its orders', CHANNEL_APPROVAL_MODES, mode, (o) => APPROVAL_WORDS[o] ?? o)}
<div class="field"><label for="${delayId}">Delay in hours</label> <span class="muted small">(delayed only, 1 to ${MAX_APPROVAL_DELAY_HOURS})</span>
<input id="${delayId}" name="delayHours" type="text" inputmode="numeric" value="${formValue(values, 'delayHours')}"${invalidAttributes(errors, delayId)}>${fieldMessages(errors, delayId)}</div>
${select('shippingMethod', 'Shipping method of its orders', SHIPPING_METHODS, method)}`
}

/** The approval and shipping method a form names, as the API takes them: the API says what is wrong. */
function settingsRequest(form: FormValues): Record<string, unknown> {
  const mode = formValue(form, 'approvalMode') || 'automatic'
  const hours = formValue(form, 'delayHours').trim()
  const delay = mode === 'delayed' ? { delayHours: /^\d{1,6}$/.test(hours) ? Number(hours) : hours || undefined } : {}
  return {
    approval: { mode, ...delay },
    ...(formValue(form, 'shippingMethod') ? { shippingMethod: formValue(form, 'shippingMethod') } : {}),
  }
}

/** Where a settings failure shows: its field of the form with ids `prefix-...`. */
function settingsTarget(prefix: string, path: string): FieldTarget | null {
  if (path === 'approval.mode' || path === 'approval') return { id: `${prefix}-approvalMode`, label: 'Approval' }
  if (path === 'approval.delayHours') return { id: `${prefix}-delayHours`, label: 'Delay in hours' }
  if (path === 'shippingMethod') return { id: `${prefix}-shippingMethod`, label: 'Shipping method' }
  return null
}

function createForm(type: StoreType, csrfToken: string, values: FormValues, errors: FieldErrors): Html {
  return html`<form class="card" method="post" action="${CHANNELS_PATH}" aria-label="Connect a ${type === 'shopify' ? 'Shopify' : 'WooCommerce'} store">
${csrfField(csrfToken)}<input type="hidden" name="type" value="${type}">
${STORE_FIELDS[type].map(([field, label]) => {
  const id = storeFieldId(type, field)
  const secret = SECRET_FIELDS.has(field)
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${field}" type="${secret ? 'password' : 'text'}" autocomplete="off" value="${secret ? '' : formValue(values, field)}"${invalidAttributes(errors, id)}>
${fieldMessages(errors, id)}</div>`
})}
${settingsFields(type, values, errors)}
<div class="form-buttons"><button type="submit">Connect the store</button></div>
</form>`
}

function shopifySteps(): Html {
  return html`<ol class="store-steps">
<li>In the Shopify admin: <strong>Settings → Apps and sales channels → Develop apps → Create an app</strong>, named for example “printroute”.</li>
<li><strong>Configure Admin API scopes</strong>: <code>read_orders</code> and <code>write_merchant_managed_fulfillment_orders</code>. Save.</li>
<li><strong>Install app</strong>, reveal the <strong>Admin API access token</strong> (shown once) and copy the app's <strong>API secret key</strong>.</li>
<li>Fill in the form below with the shop's <code>*.myshopify.com</code> domain, the token and the secret.</li>
<li>That is all: printroute subscribes the app to new orders, cancellations and its own removal with the token, and the channel's page says when they are subscribed. If it says they failed, check the token and the <code>read_orders</code> scope, then press <strong>Subscribe again</strong>.</li>
</ol>`
}

function wooCommerceSteps(): Html {
  return html`<ol class="store-steps">
<li>In WordPress: <strong>WooCommerce → Settings → Advanced → REST API → Add key</strong>, permissions <strong>Read/Write</strong>; copy the consumer key and secret.</li>
<li>Fill in the form below with the store's address, the key, the secret and a long random webhook secret of your choosing.</li>
<li><strong>WooCommerce → Settings → Advanced → Webhooks → Add webhook</strong>: topic <em>Order created</em>, delivery URL the channel's webhook URL, secret the webhook secret, API version v3.</li>
</ol>`
}

/** Where a create failure shows: the field of the form that was sent. */
function storeTarget(type: StoreType): (path: string) => FieldTarget | null {
  return (path) => {
    const field = STORE_FIELDS[type].find(([name]) => name === path)
    return field ? { id: storeFieldId(type, field[0]), label: field[1] } : settingsTarget(type, path)
  }
}

interface ListForm {
  type: StoreType
  values: FormValues
  refused: ApiBody
}

async function listContent(request: FastifyRequest, form?: ListForm): Promise<Html> {
  const { api, csrfToken, caller } = request.signedIn
  const listed = await api.get<{ channels: Channel[] }>('/channels')
  const channels = listed.ok ? listed.body.channels : []
  const errorsOf = (type: StoreType) => (form?.type === type ? fieldErrors(form.refused, storeTarget(type)) : NO_ERRORS)
  const valuesOf = (type: StoreType) => (form?.type === type ? form.values : {})
  const mayCreate = mayUse(caller.scopes, 'manageChannels')
  return html`<h1>Channels</h1>
<p class="muted">A channel is a store you sell on whose orders come in by themselves: link each store product to a printroute product and its print files, and each new store order becomes an order here; when it ships, the store is told and mails the customer the tracking.</p>
${form ? errorSummary(form.refused, errorsOf(form.type), 'The store could not be connected') : ''}
${channelsTable(channels)}
${
  mayCreate
    ? html`<section class="card" aria-labelledby="shopify-heading"><h2 id="shopify-heading">Connect a Shopify store</h2>${shopifySteps()}
${createForm('shopify', csrfToken, valuesOf('shopify'), errorsOf('shopify'))}</section>
<section class="card" aria-labelledby="woocommerce-heading"><h2 id="woocommerce-heading">Connect a WooCommerce store</h2>${wooCommerceSteps()}
${createForm('woocommerce', csrfToken, valuesOf('woocommerce'), errorsOf('woocommerce'))}</section>`
    : scopeMissing('manageChannels')
}`
}

const LINK_FIELDS: Record<string, FieldTarget> = {
  external: { id: 'link-external', label: 'Store variant id or SKU' },
  sku: { id: 'link-sku', label: 'Product SKU' },
  attributes: { id: 'link-attributes', label: 'Attributes' },
}

/** The id and label of the print area (or its file URL) of row `index` of the Add a link form. */
function assetField(kind: 'printArea' | 'url', index: number): FieldTarget {
  const number = index === 0 ? '' : ` ${index + 1}`
  return kind === 'printArea'
    ? { id: `link-print-area-${index}`, label: `Print area${number}` }
    : { id: `link-url-${index}`, label: `File URL${number}` }
}

function linkTarget(path: string): FieldTarget | null {
  if (path === 'externalVariantId' || path === 'externalSku') return LINK_FIELDS.external ?? null
  if (path.startsWith('attributes')) return LINK_FIELDS.attributes ?? null
  const asset = /^assets\[(\d+)\](?:\.(printArea|url))?/.exec(path)
  if (asset) return assetField(asset[2] === 'printArea' ? 'printArea' : 'url', Number(asset[1]))
  if (path.startsWith('assets')) return assetField('url', 0)
  if (path === 'sku') return LINK_FIELDS.sku ?? null
  return null
}

/** `wrap=Black, color=White` -> `{ wrap: 'Black', color: 'White' }`; a part without `=` is kept for the API to refuse. */
function attributesOf(text: string): Record<string, string> {
  const attributes: Record<string, string> = {}
  for (const part of text.split(',')) {
    const [name, ...value] = part.split('=')
    if (name?.trim()) attributes[name.trim()] = value.join('=').trim()
  }
  return attributes
}

/** How many print area rows the form has: those sent (at least one), and one more when asked for. */
function assetRowCount(form: FormValues): number {
  let rows = 1
  while (rows < CHANNEL_LIMITS.assets && form[`printArea.${rows}`] !== undefined) rows += 1
  return Math.min(rows + (formValue(form, 'more') ? 1 : 0), CHANNEL_LIMITS.assets)
}

/** The link request of the Add a link form, as typed: the API names what is wrong. */
export function linkRequest(form: FormValues): Record<string, unknown> {
  const external = formValue(form, 'external').trim()
  const match = formValue(form, 'match') === 'sku' ? { externalSku: external } : { externalVariantId: external }
  if (formValue(form, 'ignore') !== '') return { ...match, ignore: true }
  const attributes = attributesOf(formValue(form, 'attributes'))
  const assets: { printArea: string; url: string }[] = []
  for (let index = 0; index < assetRowCount({ ...form, more: '' }); index += 1) {
    // The first row is the form's original pair of fields (printArea, url); later rows are numbered.
    const suffix = index === 0 ? '' : `.${index}`
    const printArea = formValue(form, `printArea${suffix}`).trim()
    const url = formValue(form, `url${suffix}`).trim()
    // A later row left empty is no print area; the first is always sent (the API says what it lacks).
    if (index > 0 && printArea === '' && url === '') continue
    assets.push({ printArea: printArea || 'default', url })
  }
  return {
    ...match,
    sku: formValue(form, 'sku').trim(),
    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
    assets,
  }
}

function linkField(id: string, name: string, label: string, values: FormValues, errors: FieldErrors, hint = ''): Html {
  return html`<div class="field"><label for="${id}">${label}</label>${hint ? html` <span class="muted small">(${hint})</span>` : ''}
<input id="${id}" name="${name}" type="text" value="${formValue(values, name)}"${invalidAttributes(errors, id)}>${fieldMessages(errors, id)}</div>`
}

function linkForm(channelId: string, csrfToken: string, values: FormValues, errors: FieldErrors): Html {
  const bySku = formValue(values, 'match') === 'sku'
  const rows = assetRowCount(values)
  const assetRows = Array.from({ length: rows }, (_, index) => {
    const suffix = index === 0 ? '' : `.${index}`
    const area = assetField('printArea', index)
    const url = assetField('url', index)
    const areaValues = index === 0 ? { printArea: 'default', ...values } : values
    return html`<div class="asset-row">${linkField(area.id, `printArea${suffix}`, area.label, areaValues, errors)}
${linkField(url.id, `url${suffix}`, url.label, values, errors, index === 0 ? 'the print file for that area' : '')}</div>`
  })
  return html`<form class="card" method="post" action="${channelPath(channelId, '/links')}" aria-labelledby="link-heading">
<h2 id="link-heading">Add a link</h2>${csrfField(csrfToken)}
<div class="field"><label for="link-match">Match the store's</label><select id="link-match" name="match">
<option value="variant"${bySku ? '' : ' selected'}>variant id</option><option value="sku"${bySku ? ' selected' : ''}>SKU</option></select></div>
${linkField('link-external', 'external', 'Store variant id or SKU', values, errors)}
<div class="field"><label class="option-line" for="link-ignore"><input type="checkbox" id="link-ignore" name="ignore" value="1"${formValue(values, 'ignore') ? ' checked' : ''}> Ignore it: fulfilled elsewhere (the fields below are not needed)</label></div>
${linkField('link-sku', 'sku', 'Product SKU', values, errors)}
${linkField('link-attributes', 'attributes', 'Attributes', values, errors, 'name=value, separated by commas, e.g. wrap=Black')}
<fieldset class="asset-rows"><legend>Print files, one per print area</legend>${assetRows}</fieldset>
<div class="form-buttons"><button type="submit">Add the link</button>${
    // After Add the link, so that Enter in a field adds the link (the first submit button is the default).
    rows < CHANNEL_LIMITS.assets
      ? html` <button type="submit" name="more" value="1" class="button-quiet">Another print area</button>`
      : ''
  }</div></form>`
}

function linksTable(channelId: string, links: Link[], csrfToken: string, mayChange: boolean): Html {
  if (links.length === 0) return html`<p class="muted">No link yet.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Table of links"><table class="phone-cards" aria-labelledby="links-heading">
<thead><tr><th scope="col">Store</th><th scope="col">Becomes</th><th scope="col">Files</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${links.map(
    (link) => html`<tr>
<td data-label="Store">${link.externalVariantId ? html`variant <code>${link.externalVariantId}</code>` : html`SKU <code>${link.externalSku ?? ''}</code>`}</td>
<td data-label="Becomes">${
      link.ignore
        ? html`<span class="muted">ignored</span>`
        : html`<code>${link.sku ?? ''}</code> ${Object.entries(link.attributes)
            .map(([name, value]) => `${name}=${value}`)
            .join(', ')}`
    }</td>
<td data-label="Files" class="break">${link.assets.map((asset) => html`<div>${asset.printArea}: ${asset.url}</div>`)}</td>
<td>${mayChange ? html`<form method="post" action="${channelPath(channelId, `/links/${encodeURIComponent(link.id)}/delete`)}">${csrfField(csrfToken)}<button type="submit" class="button-quiet button-small">Delete<span class="visually-hidden"> link ${link.id}</span></button></form>` : ''}</td>
</tr>`,
  )}</tbody></table></div>`
}

/** A fulfilment the store has not taken and that is not simply waiting for its first try. */
function isFailing(fulfilment: Fulfilment): boolean {
  return fulfilment.state === 'failed' || (fulfilment.state === 'pending' && fulfilment.lastError !== null)
}

function fulfilmentsTable(channelId: string, fulfilments: Fulfilment[], csrfToken: string, mayChange: boolean): Html {
  if (fulfilments.length === 0) return html`<p class="muted">No shipment has shipped yet.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Table of shipments told to the store"><table class="phone-cards" aria-labelledby="fulfilments-heading">
<thead><tr><th scope="col">Shipment</th><th scope="col">Store order</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Next attempt</th><th scope="col">Last error</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${fulfilments.map((fulfilment) => {
    const failing = isFailing(fulfilment)
    const state = failing ? 'failing' : fulfilment.state
    return html`<tr class="${failing ? 'fulfilment-failing' : 'fulfilment'}">
<th scope="row" data-label="Shipment"><code>${fulfilment.shipmentId}</code>${fulfilment.orderId ? html`<div class="small"><a href="${DASHBOARD_PATH}/orders/${encodeURIComponent(fulfilment.orderId)}">${fulfilment.orderId}</a></div>` : ''}</th>
<td data-label="Store order">${fulfilment.externalOrderId}</td>
<td data-label="State"><span class="badge badge-${failing ? 'failed' : fulfilment.state}">${state === 'failing' ? 'Failing' : fulfilment.state === 'delivered' ? 'Told' : fulfilment.state === 'failed' ? 'Failed' : 'Pending'}</span></td>
<td data-label="Attempts">${String(fulfilment.attemptCount)}</td>
<td data-label="Next attempt">${fulfilment.nextAttemptAt ? formatTime(fulfilment.nextAttemptAt) : html`<span class="muted">none</span>`}</td>
<td data-label="Last error" class="break">${fulfilment.lastError ?? ''}</td>
<td>${failing && mayChange ? html`<form method="post" action="${channelPath(channelId, `/fulfilments/${encodeURIComponent(fulfilment.id)}/retry`)}">${csrfField(csrfToken)}<button type="submit" class="button-small">Try again now<span class="visually-hidden"> shipment ${fulfilment.shipmentId}</span></button></form>` : ''}</td>
</tr>`
  })}</tbody></table></div>`
}

/** The fields of the edit form: its name and settings, and the secrets to give again (blank: kept). */
const EDIT_SECRETS = {
  shopify: [
    ['adminAccessToken', 'New Admin API access token'],
    ['webhookSecret', 'New API secret key (signs the webhooks)'],
  ],
  woocommerce: [
    ['consumerKey', 'New consumer key'],
    ['consumerSecret', 'New consumer secret'],
    ['webhookSecret', 'New webhook secret'],
  ],
} as const

function editTarget(type: StoreType): (path: string) => FieldTarget | null {
  return (path) => {
    if (path === 'name') return { id: 'edit-name', label: 'Name' }
    const secret = EDIT_SECRETS[type].find(([name]) => name === path)
    return secret ? { id: `edit-${secret[0]}`, label: secret[1] } : settingsTarget('edit', path)
  }
}

/** The PATCH of the edit form: name, approval, shipping method, and each secret typed (a blank one is kept). */
function editRequest(type: StoreType, form: FormValues): Record<string, unknown> {
  const name = formValue(form, 'name').trim()
  const body: Record<string, unknown> = { name: name === '' ? null : name, ...settingsRequest(form) }
  for (const [field] of EDIT_SECRETS[type]) {
    const value = formValue(form, field).trim()
    if (value !== '') body[field] = value
  }
  return body
}

function editValuesOf(channel: Channel): FormValues {
  return {
    name: channel.name ?? '',
    approvalMode: channel.approval.mode,
    delayHours: channel.approval.delayHours === undefined ? '' : String(channel.approval.delayHours),
    shippingMethod: channel.shippingMethod,
  }
}

function editForm(channel: Channel, csrfToken: string, values: FormValues, errors: FieldErrors): Html {
  return html`<form class="card" method="post" action="${channelPath(channel.id, '/edit')}" aria-labelledby="edit-heading">
<h2 id="edit-heading">Settings and secrets</h2>${csrfField(csrfToken)}
<div class="field"><label for="edit-name">Name</label> <span class="muted small">(yours, optional)</span>
<input id="edit-name" name="name" type="text" value="${formValue(values, 'name')}"${invalidAttributes(errors, 'edit-name')}>${fieldMessages(errors, 'edit-name')}</div>
${settingsFields('edit', values, errors)}
<fieldset><legend>New secrets</legend>
<p class="muted small">To rotate a secret, type the new one and leave the others blank to keep what is stored. After the channel secrets key changed (the status says so), what is stored cannot be read: type every secret again. New secrets make a failing channel active again.</p>
${EDIT_SECRETS[channel.type].map(
  ([field, label]) => html`<div class="field"><label for="edit-${field}">${label}</label>
<input id="edit-${field}" name="${field}" type="password" autocomplete="off" value=""${invalidAttributes(errors, `edit-${field}`)}>${fieldMessages(errors, `edit-${field}`)}</div>`,
)}</fieldset>
<div class="form-buttons"><button type="submit">Save the channel</button></div></form>`
}

function pendingList(channelId: string, orders: PendingOrder[], csrfToken: string, mayChange: boolean): Html {
  if (orders.length === 0) return html`<p class="muted">No order is waiting.</p>`
  return html`${orders.map(
    (
      order,
    ) => html`<div class="card pending-order"><h3>Store order ${order.name} <span class="muted">received ${formatTime(order.received)}</span></h3>
${order.problem ? html`<p class="notice notice-error">${order.problem}</p>` : ''}
<ul>${order.unlinkedItems.map(
      (item) =>
        html`<li>${item.quantity} × ${item.title} <span class="muted">(${item.externalVariantId ? `variant ${item.externalVariantId}` : 'no variant'}${item.externalSku ? `, SKU ${item.externalSku}` : ''})</span></li>`,
    )}</ul>
${mayChange ? html`<form method="post" action="${channelPath(channelId, `/pending/${encodeURIComponent(order.externalOrderId)}/release`)}">${csrfField(csrfToken)}<button type="submit">Release<span class="visually-hidden"> store order ${order.name}</span></button></form>` : ''}</div>`,
  )}`
}

/** The store's cancellations, each with what cancelling its printroute order answered (a refusal stands out). */
function cancellationsTable(cancellations: StoreCancellation[]): Html {
  if (cancellations.length === 0) return html`<p class="muted">The store has cancelled no order.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="cancellations-caption"><table class="phone-cards">
<caption id="cancellations-caption" class="visually-hidden">Store cancellations</caption>
<thead><tr><th scope="col">Store order</th><th scope="col">Order</th><th scope="col">Cancelled</th><th scope="col">What printroute answered</th></tr></thead>
<tbody>${cancellations.map((cancellation) => {
    const refused = cancellation.answer !== null && /: (?!Cancelled$)/.test(cancellation.answer)
    return html`<tr data-cancellation="${cancellation.externalOrderId}">
<th scope="row" data-label="Store order">${cancellation.name}</th>
<td data-label="Order">${cancellation.orderId ? html`<a href="${DASHBOARD_PATH}/orders/${encodeURIComponent(cancellation.orderId)}">${cancellation.orderId}</a>` : html`<span class="muted">none</span>`}</td>
<td data-label="Cancelled">${formatTime(cancellation.cancelled)}</td>
<td data-label="What printroute answered"${refused ? html` class="failing"` : ''}>${cancellation.answer ?? ''}</td>
</tr>`
  })}</tbody></table></div>`
}

interface ChannelFormState {
  /** Which form was sent: the link form or the edit form. */
  form: 'link' | 'edit'
  values: FormValues
  /** The API's refusal; none when the form is only shown again (Another print area). */
  refused?: ApiBody
}

async function channelContent(request: FastifyRequest, channel: Channel, form?: ChannelFormState): Promise<Html> {
  const { api, csrfToken, caller } = request.signedIn
  const id = encodeURIComponent(channel.id)
  const mayRead = mayUse(caller.scopes, 'readChannelOrders')
  const mayChange = mayUse(caller.scopes, 'changeChannelOrders')
  const mayManage = mayUse(caller.scopes, 'manageChannels')
  const [links, pending, fulfilments, cancellations] = mayRead
    ? await Promise.all([
        api.get<{ links: Link[] }>(`/channels/${id}/links`),
        api.get<{ orders: PendingOrder[] }>(`/channels/${id}/pending`),
        api.get<{ fulfilments: Fulfilment[] }>(`/channels/${id}/fulfilments?top=20`),
        api.get<{ cancellations: StoreCancellation[] }>(`/channels/${id}/cancellations`),
      ])
    : [undefined, undefined, undefined, undefined]
  const linkErrors = form?.form === 'link' && form.refused ? fieldErrors(form.refused, linkTarget) : NO_ERRORS
  const editErrors =
    form?.form === 'edit' && form.refused ? fieldErrors(form.refused, editTarget(channel.type)) : NO_ERRORS
  return html`<p class="breadcrumb"><a href="${CHANNELS_PATH}">Channels</a> /</p>
<h1>${channel.name ?? channel.id}</h1>
<dl class="facts card channel-facts"><div><dt>Type</dt><dd>${channel.type === 'shopify' ? 'Shopify' : 'WooCommerce'}</dd></div>
<div><dt>Store</dt><dd class="break">${storeOf(channel)}</dd></div>
<div><dt>Status</dt><dd>${statusCell(channel)}</dd></div>
<div><dt>Approval</dt><dd>${approvalText(channel.approval)}</dd></div>
<div><dt>Shipping method</dt><dd>${channel.shippingMethod}</dd></div>
${webhooksFact(channel, csrfToken, mayManage)}
<div class="facts-wide"><dt>Webhook URL${channel.type === 'shopify' ? '' : ' (paste it into the store)'}</dt><dd><code>${channel.webhookUrl}</code></dd></div></dl>
${form?.form === 'link' && form.refused ? errorSummary(form.refused, linkErrors, 'The link could not be added') : ''}
${form?.form === 'edit' && form.refused ? errorSummary(form.refused, editErrors, 'The channel could not be changed') : ''}
<section aria-labelledby="pending-heading"><h2 id="pending-heading">Not connected orders</h2>
<p class="muted">Store orders with an item no link maps yet. Link or ignore each item below, then release the order.</p>
${pending?.ok ? pendingList(channel.id, pending.body.orders, csrfToken, mayChange) : scopeMissing('readChannelOrders')}</section>
<section aria-labelledby="cancellations-heading"><h2 id="cancellations-heading">Store cancellations</h2>
<p class="muted">Orders the store cancelled, the latest first. An order too far along to cancel goes on, and says so here.</p>
${cancellations?.ok ? cancellationsTable(cancellations.body.cancellations) : scopeMissing('readChannelOrders')}</section>
<section aria-labelledby="fulfilments-heading"><h2 id="fulfilments-heading">Shipments told to the store</h2>
<p class="muted">The latest 20, newest first. A store that refuses or cannot be reached is tried again by itself; a failing one can be tried again now.</p>
${fulfilments?.ok ? fulfilmentsTable(channel.id, fulfilments.body.fulfilments, csrfToken, mayChange) : scopeMissing('readChannelOrders')}</section>
<section aria-labelledby="links-heading"><h2 id="links-heading">Links</h2>
${links?.ok ? linksTable(channel.id, links.body.links, csrfToken, mayChange) : ''}
${mayChange ? linkForm(channel.id, csrfToken, form?.form === 'link' ? form.values : {}, linkErrors) : scopeMissing('changeChannelOrders')}</section>
${
  mayManage
    ? html`${editForm(channel, csrfToken, form?.form === 'edit' ? form.values : editValuesOf(channel), editErrors)}
<form method="post" action="${channelPath(channel.id, '/delete')}" class="card">${csrfField(csrfToken)}
<p>Deleting the channel refuses its webhooks from then on; the orders it created stay.</p>
<button type="submit" class="button-quiet">Delete this channel</button></form>`
    : ''
}`
}

export function registerChannelPages(pages: FastifyInstance, dashboard: Dashboard): void {
  registerChannelActions(pages, dashboard)
  const page = (title: string, content: Html, status?: number) => ({
    title,
    section: 'channels' as const,
    content,
    ...(status ? { status } : {}),
  })

  pages.get('/channels', async (request, reply) => {
    if (!mayUse(request.signedIn.caller.scopes, 'readChannels')) {
      return dashboard.sendPage(
        request,
        reply,
        page('Channels', html`<h1>Channels</h1>${scopeMissing('readChannels')}`),
      )
    }
    return dashboard.sendPage(request, reply, page('Channels', await listContent(request)))
  })

  pages.post<{ Body: FormValues }>('/channels', async (request, reply) => {
    const form = request.body ?? {}
    const type: StoreType = formValue(form, 'type') === 'woocommerce' ? 'woocommerce' : 'shopify'
    const body: Record<string, unknown> = { type, ...settingsRequest(form) }
    for (const [field] of STORE_FIELDS[type]) {
      const value = formValue(form, field).trim()
      if (value !== '') body[field] = value
    }
    const answer = await request.signedIn.api.post<{ channel: Channel }>('/channels', body)
    if (!answer.ok) {
      const content = await listContent(request, { type, values: form, refused: answer.body })
      return dashboard.sendPage(request, reply, page('Channels', content, answer.status))
    }
    const channel = answer.body.channel
    return dashboard.redirect(reply, `/channels/${encodeURIComponent(channel.id)}`, {
      kind: 'success',
      text:
        channel.type === 'shopify'
          ? `Channel ${channel.id} made: printroute is subscribing the store's webhooks.`
          : `Channel ${channel.id} made: paste its webhook URL ${channel.webhookUrl} into the store.`,
    })
  })

  const readChannel = (request: FastifyRequest<{ Params: { channelId: string } }>) =>
    request.signedIn.api.get<{ channel: Channel }>(`/channels/${encodeURIComponent(request.params.channelId)}`)

  pages.get<{ Params: { channelId: string } }>('/channels/:channelId', async (request, reply) => {
    const read = await readChannel(request)
    if (!read.ok) {
      const content = html`<h1>Channel not found</h1><p><a href="${CHANNELS_PATH}">Channels</a></p>`
      return dashboard.sendPage(request, reply, page('Channel not found', content, read.status))
    }
    const channel = read.body.channel
    return dashboard.sendPage(request, reply, page(channel.name ?? channel.id, await channelContent(request, channel)))
  })

  /** The channel's page with a form shown again (as typed, with the API's refusal when there is one). */
  const showChannel = async (
    request: FastifyRequest<{ Params: { channelId: string } }>,
    reply: FastifyReply,
    form: ChannelFormState,
    status?: number,
  ) => {
    const read = await readChannel(request)
    if (!read.ok) return dashboard.redirect(reply, '/channels', errorNotice(read))
    const content = await channelContent(request, read.body.channel, form)
    return dashboard.sendPage(request, reply, page(read.body.channel.name ?? read.body.channel.id, content, status))
  }

  pages.post<{ Params: { channelId: string }; Body: FormValues }>(
    '/channels/:channelId/edit',
    async (request, reply) => {
      const form = request.body ?? {}
      const id = encodeURIComponent(request.params.channelId)
      const read = await readChannel(request)
      if (!read.ok) return dashboard.redirect(reply, '/channels', errorNotice(read))
      const answer = await request.signedIn.api.patch(`/channels/${id}`, editRequest(read.body.channel.type, form))
      if (!answer.ok)
        return showChannel(request, reply, { form: 'edit', values: form, refused: answer.body }, answer.status)
      return dashboard.redirect(reply, `/channels/${id}`, { kind: 'success', text: 'Channel saved.' })
    },
  )

  pages.post<{ Params: { channelId: string }; Body: FormValues }>(
    '/channels/:channelId/links',
    async (request, reply) => {
      const form = request.body ?? {}
      const id = encodeURIComponent(request.params.channelId)
      if (formValue(form, 'more') !== '') {
        // Another print area: the form again, as typed, with one more row; nothing is sent.
        return showChannel(request, reply, { form: 'link', values: form })
      }
      const answer = await request.signedIn.api.post(`/channels/${id}/links`, linkRequest(form))
      if (!answer.ok)
        return showChannel(request, reply, { form: 'link', values: form, refused: answer.body }, answer.status)
      return dashboard.redirect(reply, `/channels/${id}`, { kind: 'success', text: 'Link added.' })
    },
  )
}

/**
 * The channel page's buttons that only call the API and go back to the page with its answer: Subscribe again (the
 * store's webhooks), Try again now (a shipment), Delete (a link), Release (a waiting order), Delete this channel.
 */
function registerChannelActions(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.post<{ Params: { channelId: string } }>('/channels/:channelId/webhooks/subscribe', async (request, reply) => {
    const id = encodeURIComponent(request.params.channelId)
    const answer = await request.signedIn.api.post(`/channels/${id}/webhooks/subscribe`)
    return dashboard.redirect(
      reply,
      `/channels/${id}`,
      answer.ok ? { kind: 'success', text: "Subscribing the store's webhooks again." } : errorNotice(answer),
    )
  })

  pages.post<{ Params: { channelId: string; fulfilmentId: string } }>(
    '/channels/:channelId/fulfilments/:fulfilmentId/retry',
    async (request, reply) => {
      const id = encodeURIComponent(request.params.channelId)
      const answer = await request.signedIn.api.post<{ fulfilment: Fulfilment }>(
        `/channels/${id}/fulfilments/${encodeURIComponent(request.params.fulfilmentId)}/retry`,
      )
      return dashboard.redirect(
        reply,
        `/channels/${id}`,
        answer.ok
          ? { kind: 'success', text: `Shipment ${answer.body.fulfilment.shipmentId}: trying the store again now.` }
          : errorNotice(answer),
      )
    },
  )

  pages.post<{ Params: { channelId: string; linkId: string } }>(
    '/channels/:channelId/links/:linkId/delete',
    async (request, reply) => {
      const id = encodeURIComponent(request.params.channelId)
      const answer = await request.signedIn.api.delete(
        `/channels/${id}/links/${encodeURIComponent(request.params.linkId)}`,
      )
      return dashboard.redirect(
        reply,
        `/channels/${id}`,
        answer.ok ? { kind: 'success', text: 'Link deleted.' } : errorNotice(answer),
      )
    },
  )

  pages.post<{ Params: { channelId: string; externalOrderId: string } }>(
    '/channels/:channelId/pending/:externalOrderId/release',
    async (request, reply) => {
      const id = encodeURIComponent(request.params.channelId)
      const answer = await request.signedIn.api.post<{ orderId: string }>(
        `/channels/${id}/pending/${encodeURIComponent(request.params.externalOrderId)}/release`,
      )
      return dashboard.redirect(
        reply,
        `/channels/${id}`,
        answer.ok
          ? { kind: 'success', text: `Store order released: order ${answer.body.orderId} created.` }
          : errorNotice(answer),
      )
    },
  )

  pages.post<{ Params: { channelId: string } }>('/channels/:channelId/delete', async (request, reply) => {
    const answer = await request.signedIn.api.delete(`/channels/${encodeURIComponent(request.params.channelId)}`)
    if (!answer.ok)
      return dashboard.redirect(reply, `/channels/${encodeURIComponent(request.params.channelId)}`, errorNotice(answer))
    return dashboard.redirect(reply, '/channels', {
      kind: 'success',
      text: `Channel ${request.params.channelId} deleted.`,
    })
  })
}
