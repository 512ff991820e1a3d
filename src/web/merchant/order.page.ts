// One order: what it is, where it is, what was sent to whom, and what can still be done to it. Everything
// comes from the API: the order, its actions, its events, its callbacks and its print files.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ADDRESS_UNVERIFIED_ISSUE } from '../../domain/address-rules.ts'
import { parseId } from '../../domain/ids.ts'
import type { OrderDocument } from '../../domain/order.ts'
import { ADVANCE_TARGETS, type SandboxScenario } from '../../domain/sandbox-scenarios.ts'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import { type ApiAnswer, type ApiClient, describeApiError } from '../kit/api-client.ts'
import { type CallbackDelivery, callbacksTable } from '../kit/callbacks-table.ts'
import { formatTime, stateBadge } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, DASHBOARD_PATH, type Notice, orderPath } from '../kit/layout.ts'
import {
  type AssetPreflight,
  type OrderEvent,
  type OrderInvoice,
  orderMetadata,
  orderSections,
  orderSummary,
  type PrintFile,
  type QuoteRouting,
  type Routing,
} from '../kit/order-view.ts'
import { mayUse, type SessionScopes, scopeMissing, scopeMissingText } from '../kit/scopes.ts'
import type { Dashboard } from './page-context.ts'
import { recipientFields, recipientFromForm } from './recipient-form.ts'
import { refreshing } from './refreshing.ts'

/** The most events and callbacks the page lists (the API's largest page). */
const LIST_LIMIT = 100

type Availability = { isAvailable: 'Yes' | 'No' }
interface Actions {
  cancel: Availability
  changeRecipientDetails: Availability
  changeShippingMethod: Availability
  changeMetaData: Availability
  /** printroute's own: some asset may be replaced now (POST .../actions/replaceAsset). */
  replaceAsset?: Availability
  /** printroute's own: a draft may be confirmed, or a hold released (POST .../actions/confirm). */
  confirm?: Availability
}

/**
 * A draft's "confirm or cancel", or a held order's hold with its end (docs/api.md#drafts-and-holds), with the
 * Confirm button when the actions say so and the key may change orders.
 */
function draftSection(order: OrderDocument, confirmable: boolean, canChange: boolean, csrfToken: string): Html {
  // A held order's confirm is available exactly while its hold still holds.
  if (!order.draft && !(order.holdUntil && confirmable)) return html``
  const button =
    confirmable && canChange
      ? html`<form method="post" action="${orderPath(order.id, '/confirm')}">${csrfField(csrfToken)}<button type="submit" data-confirm-order>${order.draft ? 'Confirm' : 'Release the hold'}</button></form>`
      : ''
  const hold = order.holdUntil
    ? html`<p data-hold-until>Held before production until <strong>${formatTime(order.holdUntil)}</strong>.</p>`
    : ''
  const draft = order.draft
    ? html`<p><strong>Draft: confirm or cancel.</strong> It is not produced or charged until it is confirmed; unconfirmed, it is cancelled on ${order.expiresAt ? formatTime(order.expiresAt) : 'its expiry'}.</p>`
    : ''
  return html`<section aria-labelledby="draft-heading" class="card" data-draft-section><h2 id="draft-heading">${order.draft ? 'Draft' : 'On hold'}</h2>${draft}${hold}${button}</section>`
}

/**
 * The held items' assets a new file can be given (replaceAsset): each asset in Error of an item held as Invalid
 * (PreflightFailed, FailedToDownload), with a small form for the new file's URL. Nothing when the action is not
 * available, or the key may not change orders.
 */
function replaceAssetSection(order: OrderDocument, csrfToken: string): Html {
  const held = order.items.flatMap((item) =>
    item.status === 'Invalid'
      ? item.assets.filter((asset) => asset.status === 'Error').map((asset) => ({ item, asset }))
      : [],
  )
  if (held.length === 0) return html``
  const forms = held.map(
    ({
      item,
      asset,
    }) => html`<form method="post" action="${orderPath(order.id, '/replace-asset')}" class="stack" data-replace-asset="${asset.id}">${csrfField(csrfToken)}
<input type="hidden" name="itemId" value="${item.id}"><input type="hidden" name="printArea" value="${asset.printArea}">
<label for="replace-${asset.id}">New file for ${item.sku}, print area ${asset.printArea} (${asset.id})</label>
<input id="replace-${asset.id}" name="url" type="url" required placeholder="https://..." value="">
<div class="form-buttons"><button type="submit">Replace file</button></div></form>`,
  )
  return html`<section aria-labelledby="replace-asset-heading" class="card"><h2 id="replace-asset-heading">Replace a held file</h2>
<p class="muted small">These files stopped the order (their preflight found an error, or they never downloaded). A new file is downloaded and checked again, and the order goes on.</p>${forms}</section>`
}

function actionButton(available: boolean, label: string, path: string, explanation: string): Html {
  return available
    ? html`<a class="button${label === 'Cancel order' ? ' button-danger' : ''}" href="${path}">${label}</a>`
    : html`<button type="button" disabled title="${explanation}" aria-describedby="actions-note">${label}</button>`
}

/** What GET /v4.0/sandbox/orders/{id} tells of an order (docs/sandbox.md). */
interface SandboxOrder {
  scenario: SandboxScenario | null
  cannotAdvance: string | null
}

/** What the order's page reads, each part only when the session's key may read it. */
async function loadOrder(api: ApiClient, orderId: string, sandbox: boolean, scopes: SessionScopes) {
  const callbacksReadable = mayUse(scopes, 'readCallbacks')
  const [order, actions, events, callbacks, printFiles, preflight, routing, invoices, sandboxOrder] = await Promise.all(
    [
      api.get<{ order: OrderDocument }>(`/orders/${orderId}`),
      api.get<Actions>(`/orders/${orderId}/actions`),
      api.get<{ events: OrderEvent[] }>('/events', { orderId, top: LIST_LIMIT }),
      callbacksReadable
        ? api.get<{ callbacks: CallbackDelivery[] }>('/callbacks', { orderId, top: LIST_LIMIT })
        : undefined,
      api.get<{ printFiles: PrintFile[] }>(`/orders/${orderId}/print-files`),
      api.get<{ preflight: AssetPreflight[] }>(`/orders/${orderId}/preflight`),
      api.get<{ routing: Routing }>(`/orders/${orderId}/routing`),
      api.get<{ invoices: OrderInvoice[] }>(`/orders/${orderId}/invoices`),
      // The Sandbox's own endpoint: Live has none.
      sandbox ? api.get<{ sandboxOrder: SandboxOrder }>(`/sandbox/orders/${orderId}`) : undefined,
    ],
  )
  // Only the order tells whether it was created with a quote: its routing is fetched once the order is read.
  const quoteId = order.ok ? order.body.order.quoteId : undefined
  const quoteReadable = mayUse(scopes, 'quote')
  const quoteAnswer =
    quoteId && quoteReadable
      ? await api.get<{ routing: Routing }>(`/quotes/${encodeURIComponent(quoteId)}/routing`)
      : undefined
  const quoteRouting: QuoteRouting | null = !quoteId
    ? null
    : !quoteAnswer
      ? { quoteId, routing: null, error: scopeMissingText('quotes') }
      : {
          quoteId,
          routing: quoteAnswer.ok ? quoteAnswer.body.routing : null,
          error: quoteAnswer.ok ? null : describeApiError(quoteAnswer.body),
        }
  return {
    order,
    actions,
    events,
    callbacks,
    printFiles,
    preflight: preflight.ok ? preflight.body.preflight : [],
    routing,
    quoteRouting,
    invoices: invoices.ok ? invoices.body.invoices : [],
    sandbox: sandboxOrder?.ok ? sandboxOrder.body.sandboxOrder : null,
  }
}

/**
 * The Sandbox part of the order page: the order's scenario, and the Advance form while the order can move. The
 * page refreshes itself every few seconds while the order is in progress (a manual order waiting with its lab
 * is); `hx-preserve` keeps the target the user chose across those refreshes instead of resetting it.
 */
function sandboxSection(orderId: string, facts: SandboxOrder, csrfToken: string, scopes: SessionScopes): Html {
  const scenario = facts.scenario
    ? html`<p>Scenario: <strong data-scenario>${facts.scenario}</strong></p>`
    : html`<p>Scenario: <span data-scenario>none</span>.</p>`
  // A key that may not advance is offered nothing here: the order's actions above already say why.
  const advance = !mayUse(scopes, 'advanceSandboxOrders')
    ? ''
    : facts.cannotAdvance === null
      ? html`<form method="post" action="${orderPath(orderId, '/advance')}" >${csrfField(csrfToken)}
<label for="advance-to">Advance</label>
<select id="advance-to" name="to" hx-preserve><option value="">one lab step</option>${ADVANCE_TARGETS.map((target) => html`<option value="${target}">to ${target}</option>`)}</select>
<button type="submit">Advance</button></form>
<p class="muted small">Runs the simulated labs' next steps now, with their callbacks; authorises a payment the scenario holds.</p>`
      : html`<p class="muted small" id="cannot-advance">Advance: ${facts.cannotAdvance}.</p>`
  return html`<section aria-labelledby="sandbox-heading" class="card"><h2 id="sandbox-heading">Sandbox</h2>${scenario}${advance}</section>`
}

function notFound(
  dashboard: Dashboard,
  request: FastifyRequest,
  reply: FastifyReply,
  orderId: string,
  answer?: ApiAnswer<unknown>,
) {
  return dashboard.sendPage(request, reply, {
    title: 'Order not found',
    section: 'orders',
    status: 404,
    content: html`<h1>Order ${orderId}</h1><p>${answer ? describeApiError(answer.body) : `"${orderId}" is not an order ID (ord_ and a number).`}</p>
<p><a href="${DASHBOARD_PATH}/orders">Back to the orders</a></p>`,
  })
}

/** The outcome of an order action in words, as a notice. */
function actionNotice(answer: ApiAnswer<unknown>, done: string): Notice {
  if (!answer.ok) return { kind: 'error', text: describeApiError(answer.body) }
  const outcome = answer.body.outcome
  const results = (answer.body as { shipmentUpdateResults?: { shipmentId: string; successful: boolean }[] })
    .shipmentUpdateResults
  const failed = (results ?? []).filter((result) => !result.successful).map((result) => result.shipmentId)
  switch (outcome) {
    case 'Ok':
    case 'Updated':
    case 'Cancelled':
      return { kind: 'success', text: done }
    case 'PartiallyUpdated':
      return { kind: 'info', text: `${done}, except shipments already in production: ${failed.join(', ')}.` }
    case 'FailedToCancel':
      return {
        kind: 'error',
        text:
          'The order could not be cancelled (yet): some shipments are already in production, or their lab has not ' +
          'answered the request to cancel them. A lab that agrees later still cancels and refunds them.',
      }
    case 'FailedToUpdate':
      return {
        kind: 'error',
        text: `Nothing changed: the shipments are already in production${failed.length ? ` (${failed.join(', ')})` : ''}.`,
      }
    case 'ActionNotAvailable':
      return { kind: 'error', text: 'That action is not available for this order any more.' }
    default:
      return { kind: 'info', text: `${done} (${outcome}).` }
  }
}

type OrderParams = { Params: { orderId: string } }

export function registerOrderPages(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.register(async (orderPages) => registerOrderScopedPages(orderPages, dashboard))
  registerRedeliver(pages, dashboard)
}

/**
 * The pages under /orders/:orderId. A path ID that is not an order ID (domain/ids.ts) gets the not-found page
 * before any API call, checked once here for all of them.
 */
function registerOrderScopedPages(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.addHook('preHandler', async (request: FastifyRequest, reply) => {
    const { orderId } = request.params as { orderId?: string }
    if (orderId !== undefined && parseId('ord', orderId) === undefined) {
      return notFound(dashboard, request, reply, orderId)
    }
  })

  pages.get<OrderParams>('/orders/:orderId', async (request, reply) => {
    const { orderId } = request.params
    const { csrfToken, api, caller } = request.signedIn
    const scopes = caller.scopes
    if (!mayUse(scopes, 'readOrders')) {
      return dashboard.sendPage(request, reply, {
        title: `Order ${orderId}`,
        section: 'orders',
        content: html`<h1>Order ${orderId}</h1>${scopeMissing('readOrders')}`,
      })
    }
    const loaded = await loadOrder(api, orderId, dashboard.environment === 'sandbox', scopes)
    if (!loaded.order.ok) return notFound(dashboard, request, reply, orderId, loaded.order)
    const order = loaded.order.body.order
    const available = (name: keyof Actions) => loaded.actions.ok && loaded.actions.body[name]?.isAvailable === 'Yes'
    const view = {
      order,
      events: loaded.events.ok ? loaded.events.body.events : [],
      callbacks: loaded.callbacks?.ok ? loaded.callbacks.body.callbacks : [],
      printFiles: loaded.printFiles.ok ? loaded.printFiles.body.printFiles : [],
      preflight: loaded.preflight,
      routing: loaded.routing.ok ? loaded.routing.body.routing : null,
      quoteRouting: loaded.quoteRouting,
      invoices: loaded.invoices,
    }
    const inProgress = order.status.stage === 'InProgress'
    const here = orderPath(order.id)
    return dashboard.sendPage(request, reply, {
      title: `Order ${order.id}`,
      section: 'orders',
      content: html`<p class="breadcrumb"><a href="${DASHBOARD_PATH}/orders">Orders</a> /</p>
<div${refreshing('order-live', here, inProgress)}>
<div class="page-head"><h1>Order ${order.id}</h1>${stateBadge(order.status.stage)}</div>
${orderSummary(order)}
${inProgress ? html`<p class="muted refresh-note">In progress: this page updates every few seconds.</p>` : ''}
<section aria-labelledby="actions-heading" class="actions"><h2 id="actions-heading" class="visually-hidden">Actions</h2>
${
  mayUse(scopes, 'changeOrders')
    ? html`${actionButton(available('cancel'), 'Cancel order', orderPath(order.id, '/cancel'), 'Only shipments not yet in production can be cancelled')}
${actionButton(available('changeShippingMethod'), 'Change shipping method', orderPath(order.id, '/shipping-method'), 'Not available once production has started')}
${actionButton(available('changeRecipientDetails'), 'Change recipient', orderPath(order.id, '/recipient'), 'Not available once production has started')}
${actionButton(available('changeMetaData'), 'Edit metadata', orderPath(order.id, '/metadata'), 'Metadata cannot be changed now')}
<p id="actions-note" class="muted small">Buttons are enabled when the order's actions endpoint says the action is available.</p>`
    : scopeMissing('changeOrders')
}
${reportProblemLink(order, mayUse(scopes, 'createOrders'))}
</section>
${draftSection(order, available('confirm'), mayUse(scopes, 'changeOrders'), csrfToken)}
${available('replaceAsset') && mayUse(scopes, 'changeOrders') ? replaceAssetSection(order, csrfToken) : ''}
${loaded.sandbox ? sandboxSection(order.id, loaded.sandbox, csrfToken, scopes) : ''}
${orderSections(view, {
  callbacks: loaded.callbacks
    ? callbacksTable(view.callbacks, csrfToken, here, false, mayUse(scopes, 'redeliverCallbacks'))
    : scopeMissing('readCallbacks'),
  readOnly: false,
  // The API's own route: the session cookie reads it as it reads the order (same server, same account).
  thumbnailUrl: (assetId, page) =>
    `/v4.0/orders/${encodeURIComponent(order.id)}/assets/${encodeURIComponent(assetId)}/pages/${page}.png`,
})}
</div>`,
    })
  })

  registerActionPages(pages, dashboard)
  registerReplaceAssetPost(pages, dashboard)
  registerConfirmPost(pages, dashboard)
}

/** The post of the order page's Confirm button (draftSection): the action, then the order. */
function registerConfirmPost(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.post<OrderParams>('/orders/:orderId/confirm', async (request, reply) => {
    const { orderId } = request.params
    const answer = await request.signedIn.api.post(`/orders/${orderId}/actions/confirm`)
    const notice: Notice =
      answer.ok && answer.body.outcome === 'Confirmed'
        ? { kind: 'success', text: 'Confirmed: the order starts now.' }
        : answer.ok && answer.body.outcome === 'OnHold'
          ? { kind: 'success', text: "Confirmed: the order starts when the account's pause window ends." }
          : actionNotice(answer, 'Confirmed')
    // In the pause window the order cannot be read: back to the orders.
    return dashboard.redirect(
      reply,
      answer.ok && answer.body.outcome === 'OnHold' ? '/orders' : `/orders/${orderId}`,
      notice,
    )
  })
}

/** The post of the order page's replace-a-held-file form (replaceAssetSection): the action, then the order. */
function registerReplaceAssetPost(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.post<OrderParams & { Body: { itemId?: string; printArea?: string; url?: string } }>(
    '/orders/:orderId/replace-asset',
    async (request, reply) => {
      const { orderId } = request.params
      const { itemId, printArea, url } = request.body ?? {}
      const answer = await request.signedIn.api.post(`/orders/${orderId}/actions/replaceAsset`, {
        itemId,
        printArea,
        url,
      })
      return dashboard.redirect(
        reply,
        `/orders/${orderId}`,
        actionNotice(answer, 'The file is replaced: it is downloaded and checked again.'),
      )
    },
  )
}

function registerRedeliver(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.post<{ Params: { callbackId: string }; Body: { back?: string } }>(
    '/callbacks/:callbackId/redeliver',
    async (request, reply) => {
      const answer = await request.signedIn.api.post<{ callback: CallbackDelivery }>(
        `/callbacks/${encodeURIComponent(request.params.callbackId)}/redeliver`,
      )
      const back =
        typeof request.body?.back === 'string' && request.body.back.startsWith(`${DASHBOARD_PATH}/`)
          ? request.body.back
          : `${DASHBOARD_PATH}/developers`
      const notice: Notice = answer.ok
        ? {
            kind: 'success',
            text: `Callback ${request.params.callbackId} is being sent again as ${answer.body.callback.id}.`,
          }
        : { kind: 'error', text: describeApiError(answer.body) }
      return dashboard.redirect(reply, back.slice(DASHBOARD_PATH.length), notice)
    },
  )
}

/** Confirmation pages and their posts: each says what it will do, then shows the outcome on the order. */
function registerActionPages(pages: FastifyInstance, dashboard: Dashboard): void {
  const withOrder = async (
    request: FastifyRequest<OrderParams>,
    reply: FastifyReply,
    render: (order: OrderDocument) => { title: string; content: Html },
  ) => {
    const { orderId } = request.params
    // A confirmation page offers its change only to a key that may make it.
    if (!mayUse(request.signedIn.caller.scopes, 'changeOrders')) {
      return dashboard.sendPage(request, reply, {
        title: `Order ${orderId}`,
        section: 'orders',
        content: html`<p class="breadcrumb"><a href="${DASHBOARD_PATH}/orders">Orders</a> / <a href="${orderPath(orderId)}">${orderId}</a> /</p>
<h1>Order ${orderId}</h1>${scopeMissing('changeOrders')}<p><a href="${orderPath(orderId)}">Back to the order</a></p>`,
      })
    }
    const answer = await request.signedIn.api.get<{ order: OrderDocument }>(`/orders/${orderId}`)
    if (!answer.ok) return notFound(dashboard, request, reply, orderId, answer)
    const page = render(answer.body.order)
    return dashboard.sendPage(request, reply, {
      title: page.title,
      section: 'orders',
      content: html`<p class="breadcrumb"><a href="${DASHBOARD_PATH}/orders">Orders</a> / <a href="${orderPath(orderId)}">${orderId}</a> /</p>${page.content}`,
    })
  }
  const form = (orderId: string, action: string, csrfToken: string, body: Html, submit: string, danger = false) =>
    html`<form method="post" action="${orderPath(orderId, action)}" class="card stack">${csrfField(csrfToken)}${body}
<div class="form-buttons"><button type="submit"${danger ? html` class="button-danger"` : ''}>${submit}</button> <a href="${orderPath(orderId)}">Back to the order</a></div></form>`

  pages.get<OrderParams>('/orders/:orderId/cancel', (request, reply) =>
    withOrder(request, reply, (order) => ({
      title: `Cancel ${order.id}`,
      content: html`<h1>Cancel order ${order.id}?</h1>
${form(order.id, '/cancel', request.signedIn.csrfToken, html`<p>This cancels every shipment of the order that is not yet in production. Shipments already in production are still made and shipped. ${dashboard.environment === 'live' ? 'A shipment already with its lab is cancelled if the lab agrees: printroute asks it and waits a few seconds for its answer (a later yes still cancels it). Charges for cancelled shipments are refunded.' : 'This is Sandbox: nothing is billed, and shipments already with a simulated lab are not cancelled.'} A callback is sent if the order has a callback URL. This cannot be undone.</p>`, 'Cancel order', true)}`,
    })),
  )
  pages.post<OrderParams>('/orders/:orderId/cancel', async (request, reply) => {
    const { orderId } = request.params
    const answer = await request.signedIn.api.post(`/orders/${orderId}/actions/cancel`)
    return dashboard.redirect(reply, `/orders/${orderId}`, actionNotice(answer, `Order ${orderId} is cancelled.`))
  })

  pages.post<OrderParams & { Body: { to?: string } }>('/orders/:orderId/advance', async (request, reply) => {
    const { orderId } = request.params
    const to = request.body?.to
    const answer = await request.signedIn.api.post<{ order: OrderDocument }>(
      `/sandbox/orders/${orderId}/advance`,
      to ? { to } : {},
    )
    const done =
      answer.body.outcome === 'Ok'
        ? `Order ${orderId} is already there: nothing changed.`
        : `Order ${orderId} is advanced${to ? ` to ${to}` : ' one step'}.`
    return dashboard.redirect(reply, `/orders/${orderId}`, actionNotice(answer, done))
  })

  pages.get<OrderParams>('/orders/:orderId/shipping-method', (request, reply) =>
    withOrder(request, reply, (order) => ({
      title: `Shipping method of ${order.id}`,
      content: html`<h1>Change the shipping method of ${order.id}</h1>
${form(
  order.id,
  '/shipping-method',
  request.signedIn.csrfToken,
  html`<p>Shipments not yet in production get the new method; labs and prices are chosen again for it, and the charge changes by the difference.</p>
<label for="shipping-method">Shipping method</label>
<select id="shipping-method" name="shippingMethod">${SHIPPING_METHODS.map((method) => html`<option value="${method}"${method === order.shippingMethod ? html` selected` : ''}>${method}</option>`)}</select>`,
  'Change shipping method',
)}`,
    })),
  )
  pages.post<OrderParams & { Body: { shippingMethod?: string } }>(
    '/orders/:orderId/shipping-method',
    async (request, reply) => {
      const { orderId } = request.params
      const method = request.body?.shippingMethod
      const answer = await request.signedIn.api.post(`/orders/${orderId}/actions/updateShippingMethod`, {
        shippingMethod: method,
      })
      return dashboard.redirect(
        reply,
        `/orders/${orderId}`,
        actionNotice(answer, `The shipping method is now ${method}.`),
      )
    },
  )

  pages.get<OrderParams>('/orders/:orderId/recipient', (request, reply) =>
    withOrder(request, reply, (order) => ({
      title: `Recipient of ${order.id}`,
      content: html`<h1>Change the recipient of ${order.id}</h1>
${form(order.id, '/recipient', request.signedIn.csrfToken, recipientFields(order.recipient), 'Change recipient')}`,
    })),
  )
  pages.post<OrderParams & { Body: Record<string, string> }>('/orders/:orderId/recipient', async (request, reply) => {
    const { orderId } = request.params
    const answer = await request.signedIn.api.post(
      `/orders/${orderId}/actions/updateRecipient`,
      recipientFromForm(request.body ?? {}, request.body?.countryCode ?? ''),
    )
    const notice = actionNotice(answer, 'The recipient is changed.')
    // In the warn mode a changed address with problems is kept, with an issue per problem: say so at once.
    const issues = answer.ok
      ? ((answer.body as { order?: OrderDocument }).order?.status.issues ?? []).filter(
          (issue) => issue.errorCode === ADDRESS_UNVERIFIED_ISSUE,
        )
      : []
    if (notice.kind === 'success' && issues.length > 0) {
      notice.kind = 'info'
      notice.text = `The recipient is changed, but its address breaks its country's rules: ${issues.map((issue) => issue.description).join('; ')}.`
    }
    return dashboard.redirect(reply, `/orders/${orderId}`, notice)
  })

  pages.get<OrderParams>('/orders/:orderId/metadata', (request, reply) =>
    withOrder(request, reply, (order) => ({
      title: `Metadata of ${order.id}`,
      content: html`<h1>Edit the metadata of ${order.id}</h1>
${form(
  order.id,
  '/metadata',
  request.signedIn.csrfToken,
  html`<p>Metadata is yours: a JSON object stored with the order and returned as it is. It replaces the current metadata.</p>
<label for="metadata">Metadata (JSON object)</label>
<textarea id="metadata" name="metadata" rows="10" spellcheck="false" class="code">${JSON.stringify(orderMetadata(order) ?? {}, null, 2)}</textarea>`,
  'Save metadata',
)}`,
    })),
  )
  pages.post<OrderParams & { Body: { metadata?: string } }>('/orders/:orderId/metadata', async (request, reply) => {
    const { orderId } = request.params
    let metadata: unknown
    try {
      metadata = JSON.parse(request.body?.metadata ?? '')
    } catch (error) {
      return dashboard.redirect(reply, `/orders/${orderId}/metadata`, {
        kind: 'error',
        text: `The metadata is not JSON: ${(error as Error).message}`,
      })
    }
    const answer = await request.signedIn.api.post(`/orders/${orderId}/actions/updateMetadata`, { metadata })
    // A refused metadata goes back to its form, with what was wrong; a refused scope to the order.
    if (!answer.ok && answer.status !== 403) {
      return dashboard.redirect(reply, `/orders/${orderId}/metadata`, actionNotice(answer, ''))
    }
    return dashboard.redirect(reply, `/orders/${orderId}`, actionNotice(answer, 'The metadata is saved.'))
  })
}

/** Once something shipped: the way to a claim about it (claims.page.ts, docs/claims.md). */
function reportProblemLink(order: OrderDocument, mayClaim: boolean) {
  const shipped = order.shipments.some((shipment) => shipment.status === 'Shipped' && !shipment.cancelled)
  return shipped && mayClaim
    ? html`<a class="button" href="${orderPath(order.id, '/report-problem')}">Report a problem</a>`
    : ''
}
