// The console's "needs attention" queue (docs/admin.md#needs-attention): Live orders and labs that need someone, the
// oldest first, each row saying why and linking to where it is acted on; filtered by reason, paged.
import type { FastifyInstance } from 'fastify'
import {
  ATTENTION_PAGE_SIZE,
  ATTENTION_REASONS,
  type AttentionReason,
  type AttentionRow,
} from '../../domain/attention.ts'
import type { ConsoleAttention } from '../../domain/console-sections.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { pager } from '../kit/layout.ts'
import { ADMIN_PATH, type AdminConsole } from './admin-context.ts'

/** The deepest offset the queue pages to. */
const ATTENTION_MAX_SKIP = 100_000

export const ATTENTION_REASON_LABELS: Record<AttentionReason, string> = {
  issue: 'Issue for over an hour',
  pastShipBy: 'Past its ship-by date',
  paymentPending: 'Payment pending',
  assetFailing: 'Asset failing',
  labNotAnswering: 'Lab not answering pushes',
  claimWaiting: 'Claim waiting',
}

/** Where a row is acted on, and the link's words. */
function actionOf(row: AttentionRow): { href: string; label: string } {
  const order = `${ADMIN_PATH}/orders/${row.subject}`
  switch (row.reason) {
    case 'pastShipBy':
      return { href: `${order}#move-${row.shipmentId ?? ''}`, label: 'Move to another lab' }
    case 'paymentPending':
      return { href: `${ADMIN_PATH}/accounts/${row.accountId ?? ''}`, label: 'Top up the account' }
    case 'labNotAnswering':
      return { href: `${ADMIN_PATH}/callbacks`, label: 'See the failing push endpoint' }
    case 'claimWaiting':
      return { href: `${ADMIN_PATH}/claims/${row.claimId ?? ''}`, label: 'Decide the claim' }
    case 'assetFailing':
    case 'issue':
      return { href: order, label: 'Open the order' }
  }
}

function subjectCell(row: AttentionRow): Html {
  if (row.reason === 'labNotAnswering') return html`<a href="${ADMIN_PATH}/labs/${row.subject}">${row.subject}</a>`
  return html`<a href="${ADMIN_PATH}/orders/${row.subject}">${row.subject}</a>`
}

function since(row: AttentionRow): Html {
  return row.since.length === 10 ? html`${row.since}` : formatTime(row.since)
}

function rowsTable(rows: AttentionRow[]): Html {
  if (rows.length === 0) return html`<div class="empty card"><p>Nothing needs attention.</p></div>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="What needs attention, oldest first"><table class="table admin-attention">
<caption class="visually-hidden">What needs attention, oldest first</caption>
<thead><tr><th scope="col">Reason</th><th scope="col">Order or lab</th><th scope="col">Account</th><th scope="col">Why</th><th scope="col">Since</th><th scope="col">Action</th></tr></thead>
<tbody>${rows.map((row) => {
    const action = actionOf(row)
    return html`<tr data-attention="${row.key}"><td><span class="badge badge-pending">${ATTENTION_REASON_LABELS[row.reason]}</span></td>
<th scope="row">${subjectCell(row)}</th>
<td>${row.accountId ? html`<a href="${ADMIN_PATH}/accounts/${row.accountId}">${row.accountId}</a>` : html`<span class="muted">—</span>`}</td>
<td>${row.why}</td>
<td>${since(row)}</td>
<td><a href="${action.href}">${action.label}</a></td></tr>`
  })}</tbody></table></div>`
}

function filters(reason: AttentionReason | null, counts: Record<AttentionReason, number>, total: number): Html {
  const link = (value: AttentionReason | null, label: string, count: number) =>
    html`<li><a href="${ADMIN_PATH}/attention${value ? `?reason=${value}` : ''}"${value === reason ? html` aria-current="page"` : ''}>${label} (${String(count)})</a></li>`
  return html`<nav aria-label="Reasons"><ul class="inline-list">${link(null, 'All', total)}${ATTENTION_REASONS.map(
    (value) => link(value, ATTENTION_REASON_LABELS[value], counts[value]),
  )}</ul></nav>`
}

export function registerAttentionPages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleAttention): void {
  pages.get<{ Querystring: { reason?: string; skip?: string } }>('/attention', async (request, reply) => {
    const query = request.query ?? {}
    const problems: string[] = []
    const reasonText = query.reason ?? ''
    if (reasonText !== '' && !(ATTENTION_REASONS as readonly string[]).includes(reasonText))
      problems.push(`reason: must be one of ${ATTENTION_REASONS.join(', ')}`)
    const skipText = query.skip ?? '0'
    const skip = /^\d{1,9}$/.test(skipText) ? Number(skipText) : Number.NaN
    if (!(skip >= 0 && skip <= ATTENTION_MAX_SKIP))
      problems.push(`skip: must be a whole number from 0 to ${ATTENTION_MAX_SKIP}`)
    if (problems.length > 0) {
      return console.sendPage(request, reply, {
        section: 'attention',
        title: 'Needs attention',
        status: 400,
        notice: { kind: 'error', text: `The address is not valid: ${problems.join('; ')}.` },
        content: html`<div class="page-head"><h1>Needs attention</h1></div><p><a href="${ADMIN_PATH}/attention">Everything that needs attention</a></p>`,
      })
    }
    const reason = reasonText === '' ? null : (reasonText as AttentionReason)
    const page = await deps.list({ skip, reason })
    const urlOf = (next: number) => {
      const params = new URLSearchParams()
      if (reason) params.set('reason', reason)
      if (next > 0) params.set('skip', String(next))
      const search = params.toString()
      return `${ADMIN_PATH}/attention${search ? `?${search}` : ''}`
    }
    return console.sendPage(request, reply, {
      section: 'attention',
      title: 'Needs attention',
      content: html`<div class="page-head"><h1>Needs attention</h1></div>
<p class="muted">Live orders in progress and labs that need someone, the oldest first: issues left for over an hour,
shipments past their ship-by date, payments pending, assets failing, labs not answering their pushes, claims waiting
for a decision.</p>
${page.capped ? html`<p class="notice warning">More orders are in progress than the queue reads at once: these are from the least recently changed.</p>` : ''}
${filters(reason, page.counts, page.total)}
${rowsTable(page.rows)}
${pager({
  noun: 'rows',
  skip: page.skip,
  shown: page.rows.length,
  pageSize: ATTENTION_PAGE_SIZE,
  hasMore: page.hasMore,
  urlOf,
  labels: ['Older', 'Newer'],
})}`,
    })
  })
}
