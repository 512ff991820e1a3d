// Orders: the account's orders in this environment, newest first, with filters, search and paging; the table
// refreshes itself (htmx polling) while an order on it is in progress.
import type { FastifyInstance } from 'fastify'
import type { OrderDocument } from '../../domain/order.ts'
import { ORDER_LIST_STATUSES } from '../../domain/order-list.ts'
import { detailMarks, formatDate, formatDeliveryWindow, formatTime, orderTotal, stateBadge } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { DASHBOARD_PATH, errorNotice, pager, skipOf } from '../kit/layout.ts'
import { mayUse, scopeMissing } from '../kit/scopes.ts'
import type { Dashboard } from './page-context.ts'
import { REFRESH_SECONDS, refreshing } from './refreshing.ts'

/** Orders per page of the table. */
export const ORDERS_PAGE_SIZE = 20

const STATUS_LABELS: Record<(typeof ORDER_LIST_STATUSES)[number], string> = {
  draft: 'Drafts',
  awaitingPayment: 'Awaiting payment',
  inProgress: 'In progress',
  complete: 'Complete',
  cancelled: 'Cancelled',
}

interface OrdersQuery {
  q?: string
  status?: string
  from?: string
  to?: string
  skip?: string
}

const DATE = /^\d{4}-\d{2}-\d{2}$/

function pageUrl(query: OrdersQuery, skip: number): string {
  const params = new URLSearchParams()
  for (const name of ['q', 'status', 'from', 'to'] as const) {
    const value = query[name]
    if (typeof value === 'string' && value !== '') params.set(name, value)
  }
  if (skip > 0) params.set('skip', String(skip))
  const search = params.toString()
  return `${DASHBOARD_PATH}/orders${search ? `?${search}` : ''}`
}

/** Delivered (late or not), else the promise, else a dash: what a customer asking "when?" is told. */
function deliveryCell(order: OrderDocument): Html {
  if (order.deliveredAt) {
    return html`${stateBadge('Delivered')}${order.deliveredLate ? html` ${stateBadge('Late')}` : ''} ${formatTime(order.deliveredAt)}`
  }
  if (order.status.stage === 'Cancelled') return html`<span class="muted">—</span>`
  const by = order.deliverBy ? html`<div class="muted">by ${formatDate(order.deliverBy)}</div>` : ''
  return html`${formatDeliveryWindow(order.estimatedDelivery)}${by}`
}

function orderRow(order: OrderDocument): Html {
  const items = order.items.reduce((sum, item) => sum + item.copies, 0)
  return html`<tr>
<th scope="row"><a href="${DASHBOARD_PATH}/orders/${order.id}">${order.id}</a></th>
<td>${order.merchantReference ?? html`<span class="muted">—</span>`}</td>
<td>${formatTime(order.created)}</td>
<td>${stateBadge(order.status.stage)}${order.draft ? html` <span class="badge badge-pending" data-draft>Draft</span>` : ''}${order.status.issues.length > 0 ? html` <span class="badge badge-error">${order.status.issues.length} issue${order.status.issues.length > 1 ? 's' : ''}</span>` : ''}</td>
<td>${detailMarks(order.status.details)}</td>
<td>${deliveryCell(order)}</td>
<td class="number">${order.items.length}${items !== order.items.length ? html` <span class="muted">(${items} copies)</span>` : ''}</td>
<td class="number">${orderTotal(order)}</td>
</tr>`
}

export function registerOrdersPage(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.get<{ Querystring: OrdersQuery }>('/orders', async (request, reply) => {
    const scopes = request.signedIn.caller.scopes
    const newOrder =
      dashboard.environment === 'sandbox' && mayUse(scopes, 'createOrders')
        ? html`<a class="button" href="${DASHBOARD_PATH}/new-order">New test order</a>`
        : ''
    const importOrders = mayUse(scopes, 'createOrders')
      ? html` <a class="button" href="${DASHBOARD_PATH}/imports">Import orders (CSV)</a>`
      : ''
    if (!mayUse(scopes, 'readOrders')) {
      return dashboard.sendPage(request, reply, {
        title: 'Orders',
        section: 'orders',
        content: html`<div class="page-head"><h1>Orders</h1>${newOrder}</div>${scopeMissing('readOrders')}`,
      })
    }
    const query = request.query
    const skip = skipOf(query.skip)
    const search = (query.q ?? '').trim()
    const status = ORDER_LIST_STATUSES.find((candidate) => candidate === query.status)
    const answer = await request.signedIn.api.get<{ orders: OrderDocument[]; hasMore: boolean }>('/orders', {
      top: ORDERS_PAGE_SIZE,
      skip,
      status,
      search,
      createdFrom: query.from && DATE.test(query.from) ? `${query.from}T00:00:00.000Z` : undefined,
      createdTo: query.to && DATE.test(query.to) ? `${query.to}T23:59:59.999Z` : undefined,
    })
    const orders = answer.ok ? answer.body.orders : []
    const inProgress = orders.some((order) => order.status.stage === 'InProgress')
    const filtered = search !== '' || status !== undefined || Boolean(query.from) || Boolean(query.to)
    const here = pageUrl(query, skip)
    const table =
      orders.length === 0
        ? html`<div class="empty card"><p>${filtered ? 'No orders match these filters.' : 'No orders yet.'}</p>
${newOrder && !filtered ? html`<p><a class="button" href="${DASHBOARD_PATH}/new-order">Place a test order</a> or send one to <code>POST /v4.0/orders</code>.</p>` : ''}</div>`
        : html`<div class="table-wrap"><table class="orders">
<caption class="visually-hidden">Orders, newest first</caption>
<thead><tr><th scope="col">Order</th><th scope="col">Merchant reference</th><th scope="col">Created</th><th scope="col">Stage</th><th scope="col">Progress</th><th scope="col">Delivery</th><th scope="col" class="number">Items</th><th scope="col" class="number">Total charge</th></tr></thead>
<tbody>${orders.map(orderRow)}</tbody>
</table></div>`
    const pages = pager({
      noun: 'orders',
      skip,
      shown: orders.length,
      pageSize: ORDERS_PAGE_SIZE,
      hasMore: answer.ok && answer.body.hasMore,
      urlOf: (offset) => pageUrl(query, offset),
      labels: ['Newer', 'Older'],
    })
    return dashboard.sendPage(request, reply, {
      title: 'Orders',
      section: 'orders',
      notice: errorNotice(answer),
      content: html`<div class="page-head"><h1>Orders</h1>
<div>${newOrder}${importOrders}</div></div>
<form class="filters" method="get" action="${DASHBOARD_PATH}/orders" role="search" aria-label="Filter orders">
<div class="field field-wide"><label for="filter-q">Search</label>
<input id="filter-q" name="q" type="search" value="${search}" placeholder="Order ID or merchant reference"></div>
<div class="field"><label for="filter-status">Status</label>
<select id="filter-status" name="status"><option value="">Any status</option>${ORDER_LIST_STATUSES.map(
        (name) =>
          html`<option value="${name}"${name === status ? html` selected` : ''}>${STATUS_LABELS[name]}</option>`,
      )}</select></div>
<div class="field"><label for="filter-from">Created from</label><input id="filter-from" name="from" type="date" value="${query.from ?? ''}"></div>
<div class="field"><label for="filter-to">Created to</label><input id="filter-to" name="to" type="date" value="${query.to ?? ''}"></div>
<div class="field field-buttons"><button type="submit">Filter</button>${filtered ? html` <a href="${DASHBOARD_PATH}/orders">Clear</a>` : ''}</div>
</form>
<section${refreshing('orders-table', here, inProgress)}>
${inProgress ? html`<p class="muted refresh-note">Orders in progress: this table updates every ${REFRESH_SECONDS} seconds.</p>` : ''}
${table}
${pages}
</section>`,
    })
  })
}
