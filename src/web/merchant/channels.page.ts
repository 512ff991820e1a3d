// The Channels page (docs/dashboard.md#channels-dashboardchannels): the account's storefront channels with their
// status and webhook URL, the forms that connect a Shopify or a WooCommerce store (with the steps in the store's
// admin), and each channel's page: its links, its orders waiting as not connected with a Release button, Delete.
// Everything goes through /v4.0/channels (docs/channels.md), so the page can do nothing a client of the API cannot.
import type { FastifyInstance, FastifyRequest } from 'fastify'
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
  webhookUrl: string
  created: string
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

/** The status, and when failing the store's last answer. */
function statusCell(channel: Channel): Html {
  return html`${stateBadge(channel.status)}${channel.statusReason ? html` <span class="muted">${channel.statusReason}</span>` : ''}`
}

function channelsTable(channels: Channel[]): Html {
  if (channels.length === 0) return html`<p class="muted">No channel yet: connect a store below.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="channels-caption"><table class="phone-cards">
<caption id="channels-caption">Channels</caption>
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
<div class="form-buttons"><button type="submit">Connect the store</button></div>
</form>`
}

function shopifySteps(): Html {
  return html`<ol>
<li>In the Shopify admin: <strong>Settings → Apps and sales channels → Develop apps → Create an app</strong>, named for example “printroute”.</li>
<li><strong>Configure Admin API scopes</strong>: <code>read_orders</code> and <code>write_merchant_managed_fulfillment_orders</code>. Save.</li>
<li><strong>Install app</strong>, reveal the <strong>Admin API access token</strong> (shown once) and copy the app's <strong>API secret key</strong>.</li>
<li>Fill in the form below with the shop's <code>*.myshopify.com</code> domain, the token and the secret.</li>
<li>In the Shopify admin, <strong>Settings → Notifications → Webhooks → Create webhook</strong> for <em>Order creation</em>, <em>Order cancellation</em> and <code>app/uninstalled</code>, format JSON, URL the channel's webhook URL (shown in the list once the channel is made).</li>
</ol>`
}

function wooCommerceSteps(): Html {
  return html`<ol>
<li>In WordPress: <strong>WooCommerce → Settings → Advanced → REST API → Add key</strong>, permissions <strong>Read/Write</strong>; copy the consumer key and secret.</li>
<li>Fill in the form below with the store's address, the key, the secret and a long random webhook secret of your choosing.</li>
<li><strong>WooCommerce → Settings → Advanced → Webhooks → Add webhook</strong>: topic <em>Order created</em>, delivery URL the channel's webhook URL, secret the webhook secret, API version v3.</li>
</ol>`
}

/** Where a create failure shows: the field of the form that was sent. */
function storeTarget(type: StoreType): (path: string) => FieldTarget | null {
  return (path) => {
    const field = STORE_FIELDS[type].find(([name]) => name === path)
    return field ? { id: storeFieldId(type, field[0]), label: field[1] } : null
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
  printArea: { id: 'link-print-area', label: 'Print area' },
  url: { id: 'link-url', label: 'File URL' },
}

function linkTarget(path: string): FieldTarget | null {
  if (path === 'externalVariantId' || path === 'externalSku') return LINK_FIELDS.external ?? null
  if (path.startsWith('attributes')) return LINK_FIELDS.attributes ?? null
  if (/^assets\[\d+\]\.printArea/.test(path)) return LINK_FIELDS.printArea ?? null
  if (path.startsWith('assets')) return LINK_FIELDS.url ?? null
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

/** The link request of the Add a link form, as typed: the API names what is wrong. */
export function linkRequest(form: FormValues): Record<string, unknown> {
  const external = formValue(form, 'external').trim()
  const match = formValue(form, 'match') === 'sku' ? { externalSku: external } : { externalVariantId: external }
  if (formValue(form, 'ignore') !== '') return { ...match, ignore: true }
  const attributes = attributesOf(formValue(form, 'attributes'))
  return {
    ...match,
    sku: formValue(form, 'sku').trim(),
    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
    assets: [{ printArea: formValue(form, 'printArea').trim() || 'default', url: formValue(form, 'url').trim() }],
  }
}

function linkField(id: string, name: string, label: string, values: FormValues, errors: FieldErrors, hint = ''): Html {
  return html`<div class="field"><label for="${id}">${label}</label>${hint ? html` <span class="muted small">(${hint})</span>` : ''}
<input id="${id}" name="${name}" type="text" value="${formValue(values, name)}"${invalidAttributes(errors, id)}>${fieldMessages(errors, id)}</div>`
}

function linkForm(channelId: string, csrfToken: string, values: FormValues, errors: FieldErrors): Html {
  const bySku = formValue(values, 'match') === 'sku'
  return html`<form class="card" method="post" action="${channelPath(channelId, '/links')}" aria-labelledby="link-heading">
<h2 id="link-heading">Add a link</h2>${csrfField(csrfToken)}
<div class="field"><label for="link-match">Match the store's</label><select id="link-match" name="match">
<option value="variant"${bySku ? '' : ' selected'}>variant id</option><option value="sku"${bySku ? ' selected' : ''}>SKU</option></select></div>
${linkField('link-external', 'external', 'Store variant id or SKU', values, errors)}
<div class="field"><label class="option-line" for="link-ignore"><input type="checkbox" id="link-ignore" name="ignore" value="1"${formValue(values, 'ignore') ? ' checked' : ''}> Ignore it: fulfilled elsewhere (the fields below are not needed)</label></div>
${linkField('link-sku', 'sku', 'Product SKU', values, errors)}
${linkField('link-attributes', 'attributes', 'Attributes', values, errors, 'name=value, separated by commas, e.g. wrap=Black')}
${linkField('link-print-area', 'printArea', 'Print area', { printArea: 'default', ...values }, errors)}
${linkField('link-url', 'url', 'File URL', values, errors, 'the print file for that area')}
<div class="form-buttons"><button type="submit">Add the link</button></div></form>`
}

function linksTable(channelId: string, links: Link[], csrfToken: string, mayChange: boolean): Html {
  if (links.length === 0) return html`<p class="muted">No link yet.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="links-caption"><table class="phone-cards">
<caption id="links-caption">Links</caption>
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

interface LinkFormState {
  values: FormValues
  refused: ApiBody
}

async function channelContent(request: FastifyRequest, channel: Channel, form?: LinkFormState): Promise<Html> {
  const { api, csrfToken, caller } = request.signedIn
  const id = encodeURIComponent(channel.id)
  const mayRead = mayUse(caller.scopes, 'readChannelOrders')
  const mayChange = mayUse(caller.scopes, 'changeChannelOrders')
  const [links, pending] = mayRead
    ? await Promise.all([
        api.get<{ links: Link[] }>(`/channels/${id}/links`),
        api.get<{ orders: PendingOrder[] }>(`/channels/${id}/pending`),
      ])
    : [undefined, undefined]
  const errors = form ? fieldErrors(form.refused, linkTarget) : NO_ERRORS
  return html`<p class="breadcrumb"><a href="${CHANNELS_PATH}">Channels</a> /</p>
<h1>${channel.name ?? channel.id}</h1>
<dl class="facts card"><div><dt>Type</dt><dd>${channel.type === 'shopify' ? 'Shopify' : 'WooCommerce'}</dd></div>
<div><dt>Store</dt><dd>${storeOf(channel)}</dd></div>
<div><dt>Status</dt><dd>${statusCell(channel)}</dd></div>
<div class="facts-wide"><dt>Webhook URL (paste it into the store)</dt><dd><code>${channel.webhookUrl}</code></dd></div></dl>
${form ? errorSummary(form.refused, errors, 'The link could not be added') : ''}
<section aria-labelledby="pending-heading"><h2 id="pending-heading">Not connected orders</h2>
<p class="muted">Store orders with an item no link maps yet. Link or ignore each item below, then release the order.</p>
${pending?.ok ? pendingList(channel.id, pending.body.orders, csrfToken, mayChange) : scopeMissing('readChannelOrders')}</section>
<section aria-labelledby="links-heading"><h2 id="links-heading">Links</h2>
${links?.ok ? linksTable(channel.id, links.body.links, csrfToken, mayChange) : ''}
${mayChange ? linkForm(channel.id, csrfToken, form?.values ?? {}, errors) : scopeMissing('changeChannelOrders')}</section>
${
  mayUse(caller.scopes, 'manageChannels')
    ? html`<form method="post" action="${channelPath(channel.id, '/delete')}" class="card">${csrfField(csrfToken)}
<p>Deleting the channel refuses its webhooks from then on; the orders it created stay.</p>
<button type="submit" class="button-quiet">Delete this channel</button></form>`
    : ''
}`
}

export function registerChannelPages(pages: FastifyInstance, dashboard: Dashboard): void {
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
    const body: Record<string, string> = { type }
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
      text: `Channel ${channel.id} made: paste its webhook URL ${channel.webhookUrl} into the store.`,
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

  pages.post<{ Params: { channelId: string }; Body: FormValues }>(
    '/channels/:channelId/links',
    async (request, reply) => {
      const form = request.body ?? {}
      const id = encodeURIComponent(request.params.channelId)
      const answer = await request.signedIn.api.post(`/channels/${id}/links`, linkRequest(form))
      if (!answer.ok) {
        const read = await readChannel(request)
        if (!read.ok) return dashboard.redirect(reply, '/channels', errorNotice(read))
        const content = await channelContent(request, read.body.channel, { values: form, refused: answer.body })
        return dashboard.sendPage(
          request,
          reply,
          page(read.body.channel.name ?? read.body.channel.id, content, answer.status),
        )
      }
      return dashboard.redirect(reply, `/channels/${id}`, { kind: 'success', text: 'Link added.' })
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
