// The console's audit trail (docs/audit.md#the-console): every entry across accounts, labs and the catalogue,
// newest first, filtered by account, action, kind of actor and date, a page at a time. Read-only: the trail has no
// way to change an entry, and neither has this page.
import type { FastifyInstance } from 'fastify'
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_KINDS,
  type AuditActorKind,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  isAuditAction,
  isAuditActorKind,
} from '../../domain/audit.ts'
import type { ConsoleAudit } from '../../domain/console-sections.ts'
import { parseIdOrNumber } from '../../domain/ids.ts'
import { DATE_TIME_RANGE, dateTimeBeyondRange } from '../../domain/limits.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { auditChangeCell } from '../kit/audit-change.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import type { Notice } from '../kit/layout.ts'
import { ADMIN_PATH, type AdminConsole } from './admin-context.ts'

/** Entries per page. */
export const AUDIT_PAGE_SIZE = 50

const ACTOR_KIND_LABELS: Record<AuditActorKind, string> = {
  operator: 'Operator',
  key: 'API key',
  session: 'Dashboard session',
  lab: 'Lab',
  cli: 'Command line',
  system: 'printroute',
}

interface AuditPageQuery {
  account?: string
  action?: string
  actor?: string
  from?: string
  to?: string
  before?: string
}

const DATE = /^\d{4}-\d{2}-\d{2}$/
const DAY_MS = 86_400_000

/** The console's address of the trail with these filters (and cursor). */
function pageUrl(query: AuditPageQuery, before?: string): string {
  const params = new URLSearchParams()
  for (const name of ['account', 'action', 'actor', 'from', 'to'] as const) {
    const value = query[name]
    if (typeof value === 'string' && value.trim() !== '') params.set(name, value.trim())
  }
  if (before) params.set('before', before)
  const search = params.toString()
  return `${ADMIN_PATH}/audit${search ? `?${search}` : ''}`
}

/** The filters as the audit service takes them, or what is wrong with them (shown, and nothing is listed). */
function parseFilters(query: AuditPageQuery): { filter: AuditQuery } | { problem: string } {
  const filter: AuditQuery = { top: AUDIT_PAGE_SIZE }
  const account = query.account?.trim() ?? ''
  if (account !== '') {
    const number = parseIdOrNumber('acc', account)
    if (number === undefined || number === 0) return { problem: `"${account}" is not an account ID (acc_<number>)` }
    filter.accountId = number
  }
  if (query.action) {
    if (!isAuditAction(query.action)) return { problem: `"${query.action}" is not an action of the trail` }
    filter.actions = [query.action]
  }
  if (query.actor) {
    if (!isAuditActorKind(query.actor)) return { problem: `"${query.actor}" is not a kind of actor` }
    filter.actorKind = query.actor
  }
  // Dates are whole days in UTC, both ends included (the trail's times are shown in UTC too).
  for (const [name, value] of [
    ['from', query.from],
    ['to', query.to],
  ] as const) {
    if (!value) continue
    const start = DATE.test(value) ? Date.parse(`${value}T00:00:00.000Z`) : Number.NaN
    if (Number.isNaN(start)) return { problem: `"${value}" is not a date (YYYY-MM-DD)` }
    // The API's one rule for dates (years 0001 to 9999): the embedded database reads no other.
    if (dateTimeBeyondRange(start) !== undefined) {
      return {
        problem: `"${value}" is not a date from ${DATE_TIME_RANGE.earliestDate} to ${DATE_TIME_RANGE.latestDate}`,
      }
    }
    if (name === 'from') filter.from = new Date(start)
    // The end of 9999-12-31 is the last instant of the range, not the first of year 10000.
    else filter.to = new Date(Math.min(start + DAY_MS, Date.parse(DATE_TIME_RANGE.latest)))
  }
  if (filter.from && filter.to && filter.from >= filter.to) return { problem: 'The "from" date is after the "to" date' }
  if (query.before) filter.before = query.before
  return { filter }
}

function entryRow(entry: AuditEntry): Html {
  return html`<tr>
<td data-label="When">${formatTime(entry.at)}</td>
<td data-label="Who"><span class="badge">${ACTOR_KIND_LABELS[entry.actor.kind]}</span> ${entry.actor.description}</td>
<td data-label="Action"><code>${entry.action}</code></td>
<td data-label="Account">${entry.accountId ?? html`<span class="muted">—</span>`}${entry.environment ? html` <span class="muted">${entry.environment}</span>` : ''}</td>
<td data-label="Target">${entry.target ?? html`<span class="muted">—</span>`}</td>
<td data-label="Change">${auditChangeCell(entry)}</td>
</tr>`
}

function option(value: string, label: string, selected: string | undefined): Html {
  return html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`
}

export function registerAuditPages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleAudit): void {
  pages.get<{ Querystring: AuditPageQuery }>('/audit', async (request, reply) => {
    const query = request.query
    const parsed = parseFilters(query)
    let notice: Notice | null = null
    let page: AuditPage = { entries: [], hasMore: false, nextBefore: null }
    if ('problem' in parsed) notice = { kind: 'error', text: parsed.problem }
    else {
      try {
        page = await deps.list(parsed.filter)
      } catch (error) {
        // A cursor that is not an entry id, say: the filters are refused, not the page.
        if (!(error instanceof ServiceError)) throw error
        notice = { kind: 'error', text: error.message }
      }
    }
    const filtered = ['account', 'action', 'actor', 'from', 'to'].some(
      (name) => (query[name as keyof AuditPageQuery] ?? '') !== '',
    )
    const table = notice
      ? ''
      : page.entries.length === 0
        ? html`<div class="empty card"><p>${filtered ? 'No entries match these filters.' : 'No entries yet.'}</p></div>`
        : // Focusable, so that a keyboard can scroll the wide table on a phone.
          html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="audit-caption"><table class="audit-trail phone-cards">
<caption id="audit-caption" class="visually-hidden">Audit trail, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Account</th><th scope="col">Target</th><th scope="col">Change</th></tr></thead>
<tbody>${page.entries.map(entryRow)}</tbody>
</table></div>`
    const pager =
      query.before || page.hasMore
        ? html`<nav class="pager" aria-label="Pages of the audit trail">
${query.before ? html`<a href="${pageUrl(query)}">Newest</a>` : ''}
${page.nextBefore ? html`<a href="${pageUrl(query, page.nextBefore)}" rel="next">Older</a>` : ''}
</nav>`
        : ''
    return console.sendPage(request, reply, {
      section: 'audit',
      title: 'Audit trail',
      notice,
      status: notice ? 400 : 200,
      content: html`<div class="page-head"><h1>Audit trail</h1></div>
<p class="muted">Every change, newest first: who made it, when, and what it changed. Entries are never changed or removed. Times are UTC.</p>
<form class="filters" method="get" action="${ADMIN_PATH}/audit" role="search" aria-label="Filter the audit trail">
<div class="field"><label for="audit-account">Account</label>
<input id="audit-account" name="account" value="${query.account ?? ''}" placeholder="acc_12"></div>
<div class="field"><label for="audit-action">Action</label>
<select id="audit-action" name="action">${option('', 'Any action', query.action)}${AUDIT_ACTIONS.map((action) => option(action, action, query.action))}</select></div>
<div class="field"><label for="audit-actor">Who</label>
<select id="audit-actor" name="actor">${option('', 'Anyone', query.actor)}${AUDIT_ACTOR_KINDS.map((kind) => option(kind, ACTOR_KIND_LABELS[kind], query.actor))}</select></div>
<div class="field"><label for="audit-from">From</label><input id="audit-from" name="from" type="date" value="${query.from ?? ''}"></div>
<div class="field"><label for="audit-to">To</label><input id="audit-to" name="to" type="date" value="${query.to ?? ''}"></div>
<div class="field field-buttons"><button type="submit">Filter</button>${filtered ? html` <a href="${ADMIN_PATH}/audit">Clear</a>` : ''}</div>
</form>
${table}
${pager}`,
    })
  })
}
