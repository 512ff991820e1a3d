// The console's orders: every account's orders in both environments, newest first, searched by order ID, account ID
// or merchant reference and filtered by environment and status; an order's page is the merchant's order page
// (components/order-view.ts), read-only, with the account it belongs to.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  ADMIN_ORDER_STATUSES,
  type AdminOrderQuery,
  type AdminOrderRow,
  type AdminOrderStatus,
} from '../../domain/admin-views.ts'
import type {
  ConsoleCardPayments,
  ConsoleOrderActionForm,
  ConsoleOrderActions,
  ConsoleOrderNote,
  ConsoleOrders,
  ConsoleRevenue,
  ConsoleShipmentMoves,
} from '../../domain/console-sections.ts'
import { ENVIRONMENTS, type Environment, environmentName } from '../../domain/environment.ts'
import { parseId } from '../../domain/ids.ts'
import {
  OperatorRefusal,
  ORDER_ACTION_REASON_MAX_LENGTH,
  ORDER_NOTE_MAX_LENGTH,
} from '../../domain/operator-refusal.ts'
import type { OrderDocument } from '../../domain/order.ts'
import type { OrderMarginView } from '../../domain/revenue.ts'
import { callbacksTable } from '../kit/callbacks-table.ts'
import { formatTime, stateBadge } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, type Notice, pager } from '../kit/layout.ts'
import { type OrderView, orderSections, orderSummary } from '../kit/order-view.ts'
import { ADMIN_PATH, type AdminConsole, type Form, field, operatorOf } from './admin-context.ts'
import { orderDisputeBanner, orderPaymentsCard } from './card-payments.view.ts'
import { refusalInConsoleWords } from './refusal-words.ts'
import { shipmentMoveCard } from './shipment-move-form.ts'

/** Orders per page of the console's list. */
export const ADMIN_ORDERS_PAGE_SIZE = 50
/** The longest search text taken (an order ID, an account ID or part of a merchant reference). */
export const ADMIN_ORDER_SEARCH_MAX_LENGTH = 200
/** The deepest offset the list pages to: past it, search or filter instead. */
export const ADMIN_ORDERS_MAX_SKIP = 100_000

const STATUS_LABELS: Record<AdminOrderStatus, string> = {
  InProgress: 'In progress',
  Complete: 'Complete',
  Cancelled: 'Cancelled',
  AwaitingPayment: 'Awaiting payment',
  OnHold: 'On hold (pause window)',
}

interface ListQuery {
  q?: string
  environment?: string
  status?: string
  skip?: string
}

/** The list's query read from the URL, or each field that is wrong and why. */
function parseListQuery(query: ListQuery): { value: AdminOrderQuery } | { problems: string[] } {
  const problems: string[] = []
  const search = (query.q ?? '').trim()
  if (search.length > ADMIN_ORDER_SEARCH_MAX_LENGTH)
    problems.push(`q: longer than ${ADMIN_ORDER_SEARCH_MAX_LENGTH} characters`)
  const environment = query.environment ?? ''
  if (environment !== '' && !(ENVIRONMENTS as readonly string[]).includes(environment))
    problems.push(`environment: must be one of ${ENVIRONMENTS.join(', ')}`)
  const status = query.status ?? ''
  if (status !== '' && !(ADMIN_ORDER_STATUSES as readonly string[]).includes(status))
    problems.push(`status: must be one of ${ADMIN_ORDER_STATUSES.join(', ')}`)
  const skipText = query.skip ?? '0'
  const skip = /^\d{1,9}$/.test(skipText) ? Number(skipText) : Number.NaN
  if (!(skip >= 0 && skip <= ADMIN_ORDERS_MAX_SKIP))
    problems.push(`skip: must be a whole number from 0 to ${ADMIN_ORDERS_MAX_SKIP}`)
  if (problems.length > 0) return { problems }
  return {
    value: {
      search: search === '' ? null : search,
      environment: environment === '' ? null : (environment as Environment),
      status: status === '' ? null : (status as AdminOrderStatus),
      skip,
      top: ADMIN_ORDERS_PAGE_SIZE,
    },
  }
}

function listUrl(query: AdminOrderQuery, skip: number): string {
  const params = new URLSearchParams()
  if (query.search) params.set('q', query.search)
  if (query.environment) params.set('environment', query.environment)
  if (query.status) params.set('status', query.status)
  if (skip > 0) params.set('skip', String(skip))
  const search = params.toString()
  return `${ADMIN_PATH}/orders${search ? `?${search}` : ''}`
}

export function adminOrderPath(orderId: string): string {
  return `${ADMIN_PATH}/orders/${orderId}`
}

export function adminAccountPath(accountId: string): string {
  return `${ADMIN_PATH}/accounts/${accountId}`
}

function environmentBadge(environment: Environment): Html {
  return html`<span class="badge">${environmentName(environment)}</span>`
}

function filtersForm(query: ListQuery): Html {
  const environment = query.environment ?? ''
  const status = query.status ?? ''
  return html`<form class="filters" method="get" action="${ADMIN_PATH}/orders" role="search" aria-label="Search orders">
<div class="field field-wide"><label for="orders-q">Search</label>
<input id="orders-q" name="q" type="search" value="${query.q ?? ''}" maxlength="${String(ADMIN_ORDER_SEARCH_MAX_LENGTH)}" placeholder="Order ID, account ID or merchant reference"></div>
<div class="field"><label for="orders-environment">Environment</label>
<select id="orders-environment" name="environment"><option value="">Both</option>${ENVIRONMENTS.map(
    (name) =>
      html`<option value="${name}"${name === environment ? html` selected` : ''}>${environmentName(name)}</option>`,
  )}</select></div>
<div class="field"><label for="orders-status">Status</label>
<select id="orders-status" name="status"><option value="">Any status</option>${ADMIN_ORDER_STATUSES.map(
    (name) => html`<option value="${name}"${name === status ? html` selected` : ''}>${STATUS_LABELS[name]}</option>`,
  )}</select></div>
<div class="field field-buttons"><button type="submit">Search</button> <a href="${ADMIN_PATH}/orders">Clear</a></div>
</form>`
}

function ordersTable(orders: AdminOrderRow[]): Html {
  if (orders.length === 0) return html`<div class="empty card"><p>No orders match.</p></div>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Orders of every account, newest first"><table class="table admin-orders">
<caption class="visually-hidden">Orders of every account, newest first</caption>
<thead><tr><th scope="col">Order</th><th scope="col">Account</th><th scope="col">Environment</th><th scope="col">Status</th><th scope="col">Merchant reference</th><th scope="col">Created</th></tr></thead>
<tbody>${orders.map(
    (order) => html`<tr><th scope="row"><a href="${adminOrderPath(order.orderId)}">${order.orderId}</a></th>
<td><a href="${adminAccountPath(order.accountId)}">${order.accountId}</a> <span class="muted">${order.accountName}</span></td>
<td>${environmentBadge(order.environment)}</td>
<td>${stateBadge(order.stage)}${order.awaitingPayment ? html` <span class="badge badge-pending">Awaiting payment</span>` : ''}${order.onHoldUntil ? html` <span class="badge badge-pending">On hold</span>` : ''}</td>
<td>${order.merchantReference ?? html`<span class="muted">—</span>`}</td>
<td>${formatTime(order.created)}</td></tr>`,
  )}</tbody></table></div>`
}

function orderNotFound(console: AdminConsole, request: FastifyRequest, reply: FastifyReply, orderId: string) {
  return console.sendPage(request, reply, {
    section: 'orders',
    title: 'Order not found',
    status: 404,
    content: html`<h1>Order ${orderId}</h1><p>${parseId('ord', orderId) === undefined ? `"${orderId}" is not an order ID (ord_ and a number).` : `No account has an order ${orderId}.`}</p>
<p><a href="${ADMIN_PATH}/orders">Back to the orders</a></p>`,
  })
}

/**
 * The order's view with its invoices linked to the console's own PDF route: the merchant's links are on each
 * environment's public address, which the console's port may not reach.
 */
function consoleView(view: OrderView): OrderView {
  return {
    ...view,
    invoices: view.invoices.map((invoice) => ({
      ...invoice,
      pdfUrl: `${ADMIN_PATH}/invoices/${encodeURIComponent(invoice.number)}.pdf`,
    })),
  }
}

const OUTCOME_WORDS: Record<OrderMarginView['rows'][number]['outcome'], string> = {
  Open: 'At the lab',
  Shipped: 'Shipped',
  Cancelled: 'Cancelled (not owed)',
  Rejected: 'Rejected (not owed)',
}

/**
 * The order's margin (docs/billing.md#revenue-and-margin): each hand-off of a shipment to a lab with the price it
 * carries, its lab cost and the margin, and the totals of those that count (a cancelled or rejected hand-off owes
 * nothing and its price moved on or was refunded).
 */
export function marginSection(margin: OrderMarginView): Html {
  const heading = html`<h2 id="order-margin">Margin</h2>`
  if (margin.rows.length === 0) {
    return html`<section class="card" aria-labelledby="order-margin">${heading}<p class="muted">No shipment of this order has been handed to a lab: no lab cost yet.</p></section>`
  }
  return html`<section class="card" aria-labelledby="order-margin">${heading}
<div class="table-wrap" tabindex="0" role="region" aria-label="Price, lab cost and margin per hand-off"><table class="table admin-margin">
<thead><tr><th scope="col">Shipment</th><th scope="col">Lab</th><th scope="col">Handed over</th><th scope="col">Outcome</th><th scope="col" class="number">Price</th><th scope="col" class="number">Lab cost</th><th scope="col" class="number">Margin</th></tr></thead>
<tbody>${margin.rows.map(
    (row) =>
      html`<tr data-shipment="${row.shipmentId}" data-lab="${row.labCode}"><th scope="row">${row.shipmentId}${row.kind === 'Original' ? '' : html` <span class="badge">${row.kind}</span>`}</th><td>${row.labCode}</td><td>${formatTime(row.handedAt)}</td><td>${OUTCOME_WORDS[row.outcome]}</td><td class="number">${row.price} ${row.currency}</td><td class="number">${row.labCost} ${row.currency}</td><td class="number">${row.margin === null ? html`<span class="muted">—</span>` : `${row.margin} ${row.currency}`}</td></tr>`,
  )}</tbody>
<tfoot>${margin.totals.map(
    (total) =>
      html`<tr data-total="${total.currency}"><th scope="row" colspan="4">Total${total.marginRate ? ` (margin rate ${total.marginRate})` : ''}</th><td class="number">${total.price} ${total.currency}</td><td class="number">${total.labCost} ${total.currency}</td><td class="number">${total.margin} ${total.currency}</td></tr>`,
  )}</tfoot></table></div>
<p class="muted small">Prices are untaxed; lab costs are converted to the price's currency at hand-off.</p></section>`
}

/** What an order's page offers beyond the order itself, each present when the console has it. */
export interface OrderPageActions {
  /** The order's margin per hand-off to a lab. */
  margins?: Pick<ConsoleRevenue, 'orderMargin'>
  /** Moving a shipment to another lab. */
  moves?: ConsoleShipmentMoves
  /** The operator's actions on the order: cancel, refund, retry a download, release, notes. */
  actions?: ConsoleOrderActions
  /** The order's card payments through the payment provider, refunds to the card and disputes (read-only). */
  cardPayments?: (orderId: string) => Promise<ConsoleCardPayments>
}

/** A reason field: required, kept in the audit trail. */
function reasonField(id: string): Html {
  return html`<label for="${id}">Reason (kept in the audit trail)</label>
<input id="${id}" name="reason" required maxlength="${String(ORDER_ACTION_REASON_MAX_LENGTH)}">`
}

/** A form of an order action: posted to the order's path, with the CSRF token and the order's version as shown. */
function actionForm(orderId: string, action: string, csrfToken: string, version: string, content: Html): Html {
  return html`<form method="post" action="${adminOrderPath(orderId)}/${action}" class="stack">${csrfField(csrfToken)}<input type="hidden" name="version" value="${version}">
${content}</form>`
}

/** The assets whose download failed for good, as the order shows them (an asset held by its preflight downloaded). */
function failedAssets(order: OrderDocument): string[] {
  const preflightHeld = new Set(
    order.status.issues
      .filter((issue) => issue.errorCode === 'order.items.assets.PreflightFailed')
      .map((issue) => /^Asset (\S+)/.exec(issue.description)?.[1]),
  )
  return order.items.flatMap((item) =>
    item.assets.filter((asset) => asset.status === 'Error' && !preflightHeld.has(asset.id)).map((asset) => asset.id),
  )
}

/** The operator's actions on the order, each a form with its reason; only those the order's state allows. */
function actionsCard(
  order: OrderDocument,
  held: { payment: boolean; pauseWindow: boolean },
  csrfToken: string,
  version: string,
): Html {
  const id = order.id
  const open = order.status.stage !== 'Cancelled' && order.status.stage !== 'Complete'
  const charges = order.charges.filter(
    (charge) => !charge.totalCost.amount.startsWith('-') && charge.totalCost.amount !== '0.00',
  )
  const failed = failedAssets(order)
  const forms: Html[] = []
  if (open) {
    forms.push(html`<section aria-labelledby="cancel-heading"><h3 id="cancel-heading">Cancel</h3>
<p class="muted small">As the merchant's cancel: what is not yet with a lab is cancelled and refunded; a lab holding a shipment it has not started is asked to cancel it.</p>
${actionForm(id, 'cancel', csrfToken, version, html`${reasonField('cancel-reason')}<button type="submit">Cancel the order</button>`)}</section>`)
  }
  if (charges.length > 0) {
    forms.push(html`<section aria-labelledby="refund-heading"><h3 id="refund-heading">Refund part of a charge</h3>
<p class="muted small">A credit note for the amount (tax included), up to what the charge took and has not had back.</p>
${actionForm(
  id,
  'refund',
  csrfToken,
  version,
  html`<label for="refund-charge">Charge</label>
<select id="refund-charge" name="charge">${charges.map((charge) => html`<option value="${charge.id}">${charge.id}: ${charge.totalCost.amount} ${charge.totalCost.currency}</option>`)}</select>
<label for="refund-amount">Amount in ${charges[0]?.totalCost.currency ?? ''}</label>
<input id="refund-amount" name="amount" required inputmode="decimal" pattern="[0-9]{1,10}([.][0-9]{1,2})?" placeholder="5.00">
${reasonField('refund-reason')}<button type="submit">Refund</button>`,
)}</section>`)
  }
  if (failed.length > 0) {
    forms.push(html`<section aria-labelledby="retry-heading"><h3 id="retry-heading">Retry a failed download</h3>
${actionForm(
  id,
  'retry-download',
  csrfToken,
  version,
  html`<label for="retry-asset">Asset</label>
<select id="retry-asset" name="asset"><option value="">Every failed asset</option>${failed.map((asset) => html`<option value="${asset}">${asset}</option>`)}</select>
${reasonField('retry-reason')}<button type="submit">Download again</button>`,
)}</section>`)
  }
  if (held.payment || held.pauseWindow) {
    const what = [held.payment ? 'waiting for a payment' : '', held.pauseWindow ? 'in its pause window' : '']
      .filter(Boolean)
      .join(' and ')
    forms.push(html`<section aria-labelledby="release-heading"><h3 id="release-heading">Release</h3>
<p class="muted small">The order is ${what}. Releasing starts its fulfilment now${held.payment ? ": what it owes is paid from the prepaid balance if that covers it, else recorded as owed on the account's next invoice (the balance unchanged); a Sandbox order's payment is authorised" : ''}.</p>
${actionForm(id, 'release', csrfToken, version, html`${reasonField('release-reason')}<button type="submit">Release the order</button>`)}</section>`)
  }
  return html`<section class="card" aria-labelledby="order-actions-heading"><h2 id="order-actions-heading">Act on this order</h2>
${forms.length > 0 ? forms : html`<p class="muted">Nothing to do: the order is ${order.status.stage.toLowerCase()}.</p>`}
</section>`
}

function notesCard(orderId: string, notes: ConsoleOrderNote[], csrfToken: string): Html {
  return html`<section class="card" aria-labelledby="notes-heading"><h2 id="notes-heading">Notes</h2>
${
  notes.length === 0
    ? html`<p class="muted">No notes yet.</p>`
    : html`<ol class="notes">${notes.map(
        (note) =>
          html`<li id="${note.id}"><p class="small"><strong>${note.author}</strong> <span class="muted">${formatTime(note.at)}</span></p><p>${note.text}</p></li>`,
      )}</ol>`
}
<form method="post" action="${adminOrderPath(orderId)}/notes" class="stack">${csrfField(csrfToken)}
<label for="note-text">Add a note</label>
<textarea id="note-text" name="text" required maxlength="${String(ORDER_NOTE_MAX_LENGTH)}" rows="3"></textarea>
<button type="submit">Add the note</button></form>
</section>`
}

/** What an action's success says. */
const SUCCESS_WORDS = {
  cancel: (result: { outcome: string; stage: string }) =>
    result.stage === 'Cancelled'
      ? 'Cancelled the order; what it was charged has been refunded.'
      : `Cancel: ${result.outcome}. Shipments with a lab have been asked to cancel; the order is ${result.stage}.`,
  refund: (result: { amount: string; currency: string; chargeId: string; creditNote: string | null }) =>
    `Refunded ${result.amount} ${result.currency} of ${result.chargeId}${result.creditNote ? ` (credit note ${result.creditNote})` : ''}.`,
  retry: (result: { assetIds: string[] }) => `Queued another download of ${result.assetIds.join(', ')}.`,
  release: (result: {
    payment: 'paidFromBalance' | 'owedOnInvoice' | 'onCredit' | 'waived' | null
    amount: string | null
    currency: string | null
    pauseWindow: boolean
  }) =>
    [
      result.payment === 'paidFromBalance'
        ? `Paid ${result.amount} ${result.currency} from the balance.`
        : result.payment === 'owedOnInvoice'
          ? `The balance did not cover it: ${result.amount} ${result.currency} recorded as owed on the account's next invoice (ledger: invoice-charge; the balance is unchanged).`
          : result.payment === 'onCredit'
            ? `Let go on credit: its ${result.amount} ${result.currency} stays owed on the account's invoices (above its credit limit).`
            : result.payment === 'waived'
              ? 'Sandbox payment authorised (no money moves).'
              : '',
      result.pauseWindow ? 'Ended its pause window.' : '',
      'Its fulfilment goes on now.',
    ]
      .filter(Boolean)
      .join(' '),
}

export function registerOrdersPages(
  pages: FastifyInstance,
  console: AdminConsole,
  deps: ConsoleOrders<OrderView>,
  { margins, moves, actions, cardPayments }: OrderPageActions = {},
): void {
  pages.get<{ Querystring: ListQuery }>('/orders', async (request, reply) => {
    const query = request.query ?? {}
    const parsed = parseListQuery(query)
    if ('problems' in parsed) {
      return console.sendPage(request, reply, {
        section: 'orders',
        title: 'Orders',
        status: 400,
        notice: { kind: 'error', text: `The search is not valid: ${parsed.problems.join('; ')}.` },
        content: html`<div class="page-head"><h1>Orders</h1></div>${filtersForm(query)}`,
      })
    }
    const { orders, hasMore } = await deps.listOrders(parsed.value)
    return console.sendPage(request, reply, {
      section: 'orders',
      title: 'Orders',
      content: html`<div class="page-head"><h1>Orders</h1></div>
<p class="muted">Every account's orders in Live and Sandbox, newest first, including those still in their account's pause window.</p>
${filtersForm(query)}
${ordersTable(orders)}
${pager({
  noun: 'orders',
  skip: parsed.value.skip,
  shown: orders.length,
  pageSize: ADMIN_ORDERS_PAGE_SIZE,
  hasMore,
  urlOf: (skip) => listUrl(parsed.value, skip),
  labels: ['Newer', 'Older'],
})}`,
    })
  })

  pages.get<{ Params: { orderId: string } }>('/orders/:orderId', async (request, reply) => {
    const { orderId } = request.params
    if (parseId('ord', orderId) === undefined) return orderNotFound(console, request, reply, orderId)
    // The version first: should the order change while the page is read, its forms are refused, never acted on
    // an order the page did not show.
    const version = actions ? await actions.version(orderId) : undefined
    const detail = await deps.readOrder(orderId)
    if (!detail) return orderNotFound(console, request, reply, orderId)
    const { order } = detail.view
    const margin = margins ? await margins.orderMargin(orderId) : null
    const movable = moves ? ((await moves.choices(orderId)) ?? []) : []
    const { csrfToken } = request.signedInOperator
    const notes = actions ? await actions.notes(orderId) : []
    const payments = cardPayments ? await cardPayments(orderId) : undefined
    const held = {
      payment: order.status.issues.some((issue) => issue.errorCode === 'RequiresPaymentAuthorisation'),
      pauseWindow: detail.onHoldUntil !== null,
    }
    return console.sendPage(request, reply, {
      section: 'orders',
      title: `Order ${order.id}`,
      content: html`<p class="breadcrumb"><a href="${ADMIN_PATH}/orders">Orders</a> /</p>
<div class="page-head"><h1>Order ${order.id}</h1>${stateBadge(order.status.stage)} ${environmentBadge(detail.environment)}</div>
${payments ? orderDisputeBanner(payments) : ''}
<dl class="facts account-facts">
<div><dt>Account</dt><dd><a href="${adminAccountPath(detail.account.id)}">${detail.account.id}</a> ${detail.account.name}</dd></div>
<div><dt>Environment</dt><dd>${environmentName(detail.environment)}</dd></div>
${detail.onHoldUntil ? html`<div><dt>On hold until</dt><dd>${formatTime(detail.onHoldUntil)} <span class="muted">(the account's pause window: the merchant cannot read it yet)</span></dd></div>` : ''}
</dl>
${
  actions && version
    ? html`<p class="muted small">The order as its merchant sees it. Each action below is recorded in the audit trail with its reason.</p>
${actionsCard(order, held, csrfToken, version)}
${notesCard(order.id, notes, csrfToken)}`
    : html`<p class="muted small">Read-only: the order as its merchant sees it. Changes to an order are the merchant's, through the API or the dashboard.</p>`
}
${orderSummary(order)}
${payments ? orderPaymentsCard(payments) : ''}
${margin ? marginSection(margin) : ''}
${shipmentMoveCard(order.id, movable, request.signedInOperator.csrfToken)}
${orderSections(consoleView(detail.view), {
  callbacks: callbacksTable(detail.view.callbacks, '', '', false, false),
  readOnly: true,
  thumbnailUrl: (assetId, page) => assetThumbnailPath(order.id, assetId, page),
})}`,
    })
  })

  pages.post<{ Params: { orderId: string; shipmentId: string }; Body: Form }>(
    '/orders/:orderId/shipments/:shipmentId/move',
    async (request, reply) => {
      const { orderId, shipmentId } = request.params
      const back = `${adminOrderPath(orderId)}#move-${shipmentId}`
      if (!moves) return reply.callNotFound()
      // The shipment must be this order's: the address names both.
      const shipments = parseId('ord', orderId) === undefined ? undefined : await moves.choices(orderId)
      if (!shipments?.some((shipment) => shipment.shipmentId === shipmentId)) {
        return console.redirect(reply, adminOrderPath(orderId), {
          kind: 'error',
          text: `shipment: order ${orderId} has no shipment ${shipmentId}.`,
        })
      }
      const result = await moves.move(
        { shipmentId, labCode: field(request.body, 'lab'), reason: field(request.body, 'reason') },
        operatorOf(request),
      )
      if ('refused' in result) {
        return console.redirect(reply, back, { kind: 'error', text: `${result.field}: ${result.refused}.` })
      }
      const text = `Shipment ${result.fromShipmentId} moved from lab ${result.fromLabCode} to lab ${result.toLabCode} as ${result.toShipmentId}${result.oldJobCancelled ? `; lab ${result.fromLabCode}'s job is cancelled` : ''}.`
      return console.redirect(reply, adminOrderPath(result.orderId), { kind: 'success', text })
    },
  )

  // An asset's page thumbnail, read as its merchant's API serves it (the console's session is not an API key).
  pages.get<{ Params: { orderId: string; assetId: string; file: string } }>(
    '/orders/:orderId/assets/:assetId/pages/:file',
    async (request, reply) => {
      const { orderId, assetId, file } = request.params
      const match = /^([1-9][0-9]{0,5})\.png$/.exec(file)
      const png = match ? await deps.readAssetThumbnail(orderId, assetId, Number(match[1])) : null
      if (!png) return orderNotFound(console, request, reply, orderId)
      return reply.type('image/png').header('cache-control', 'private, max-age=60').send(png)
    },
  )
  if (actions) registerOrderActions(pages, console, actions)
}

/** The console's route of an asset's page thumbnail. */
function assetThumbnailPath(orderId: string, assetId: string, page: number): string {
  return `${ADMIN_PATH}/orders/${encodeURIComponent(orderId)}/assets/${encodeURIComponent(assetId)}/pages/${page}.png`
}

/** The POSTs of the order's actions: each redirects to the order's page with what it did, or why it did not. */
function registerOrderActions(pages: FastifyInstance, console: AdminConsole, actions: ConsoleOrderActions): void {
  const act = async (reply: FastifyReply, orderId: string, work: () => Promise<string>): Promise<FastifyReply> => {
    let notice: Notice
    try {
      notice = { kind: 'success', text: await work() }
    } catch (error) {
      if (!(error instanceof OperatorRefusal)) throw error
      notice = { kind: 'error', text: refusalInConsoleWords(error) }
    }
    return console.redirect(reply, adminOrderPath(orderId), notice)
  }
  const formOf = (body: Form): ConsoleOrderActionForm => ({
    reason: field(body, 'reason'),
    version: field(body, 'version'),
  })
  type Post = { Params: { orderId: string }; Body: Form }

  pages.post<Post>('/orders/:orderId/cancel', (request, reply) =>
    act(reply, request.params.orderId, async () =>
      SUCCESS_WORDS.cancel(await actions.cancel(request.params.orderId, formOf(request.body), operatorOf(request))),
    ),
  )
  pages.post<Post>('/orders/:orderId/refund', (request, reply) =>
    act(reply, request.params.orderId, async () =>
      SUCCESS_WORDS.refund(
        await actions.refund(
          request.params.orderId,
          { ...formOf(request.body), amount: field(request.body, 'amount'), charge: field(request.body, 'charge') },
          operatorOf(request),
        ),
      ),
    ),
  )
  pages.post<Post>('/orders/:orderId/retry-download', (request, reply) =>
    act(reply, request.params.orderId, async () =>
      SUCCESS_WORDS.retry(
        await actions.retryDownload(
          request.params.orderId,
          { ...formOf(request.body), asset: field(request.body, 'asset') },
          operatorOf(request),
        ),
      ),
    ),
  )
  pages.post<Post>('/orders/:orderId/release', (request, reply) =>
    act(reply, request.params.orderId, async () =>
      SUCCESS_WORDS.release(await actions.release(request.params.orderId, formOf(request.body), operatorOf(request))),
    ),
  )
  pages.post<Post>('/orders/:orderId/notes', (request, reply) =>
    act(reply, request.params.orderId, async () => {
      await actions.addNote(request.params.orderId, field(request.body, 'text'), operatorOf(request))
      return 'Added the note.'
    }),
  )
}
