// The console's Revenue section (docs/admin.md#revenue, docs/billing.md#revenue-and-margin): Live revenue, refunds,
// lab cost and margin of a range of days, grouped by day, week, month, account, lab or product, one table and one
// bar chart per currency, and the same figures as CSV. Read-only. The chart is SVG drawn here (no script), a row
// per group with its label above its bars, so it reads at a phone's width as at a desk's.
import type { FastifyInstance } from 'fastify'
import type { ConsoleRevenue } from '../../domain/console-sections.ts'
import {
  parseRevenueQuery,
  REVENUE_GROUPINGS,
  REVENUE_MAX_RANGE_DAYS,
  type RevenueFiguresView,
  type RevenueGrouping,
  type RevenueReportView,
  revenueCsv,
  revenueCsvFileName,
} from '../../domain/revenue.ts'
import { type Html, html } from '../kit/html.ts'
import { ADMIN_PATH, type AdminConsole } from './admin-context.ts'

interface RevenueQueryText {
  from?: string
  to?: string
  by?: string
}

const GROUPING_LABELS: Record<RevenueGrouping, string> = {
  day: 'Day (UTC)',
  week: 'Week (ISO, UTC)',
  month: 'Month (UTC)',
  account: 'Account',
  lab: 'Lab',
  product: 'Product (SKU)',
}

/** The most groups a chart draws; the table lists them all. */
export const REVENUE_CHART_MAX_GROUPS = 60

/** The current UTC month by day: what the page shows before the operator chooses. */
function defaultQuery(now: Date): Required<RevenueQueryText> {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
  return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10), by: 'day' }
}

function queryString(query: RevenueQueryText): string {
  return new URLSearchParams({ from: query.from ?? '', to: query.to ?? '', by: query.by ?? '' }).toString()
}

function filterForm(query: RevenueQueryText): Html {
  return html`<form class="filters" method="get" action="${ADMIN_PATH}/revenue" role="search" aria-label="Choose the revenue report">
<div class="field"><label for="revenue-from">From (UTC)</label>
<input id="revenue-from" name="from" type="date" required value="${query.from ?? ''}"></div>
<div class="field"><label for="revenue-to">To, not included</label>
<input id="revenue-to" name="to" type="date" required value="${query.to ?? ''}"></div>
<div class="field"><label for="revenue-by">By</label>
<select id="revenue-by" name="by">${REVENUE_GROUPINGS.map(
    (by) => html`<option value="${by}"${by === query.by ? html` selected` : ''}>${GROUPING_LABELS[by]}</option>`,
  )}</select></div>
<div class="field field-buttons"><button class="button" type="submit">Show</button></div>
</form>`
}

function figureCells(figures: RevenueFiguresView): Html {
  return html`<td class="number">${String(figures.orders)}</td><td class="number">${figures.revenue}</td><td class="number">${figures.refunds}</td><td class="number">${figures.netRevenue}</td><td class="number">${figures.labCost}</td><td class="number">${figures.margin}</td><td class="number">${figures.marginRate ?? '—'}</td>`
}

function blockTable(by: RevenueGrouping, block: RevenueReportView['currencies'][number]): Html {
  const caption = `Revenue and margin in ${block.currency}, by ${by}`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table class="table admin-revenue" data-currency="${block.currency}"><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">${GROUPING_LABELS[by]}</th><th scope="col" class="number">Orders</th><th scope="col" class="number">Revenue</th><th scope="col" class="number">Refunds</th><th scope="col" class="number">Net revenue</th><th scope="col" class="number">Lab cost</th><th scope="col" class="number">Margin</th><th scope="col" class="number">Margin rate</th></tr></thead>
<tbody>${block.groups.map(
    (group) => html`<tr data-group="${group.key}"><th scope="row">${group.key}</th>${figureCells(group.figures)}</tr>`,
  )}</tbody>
<tfoot><tr data-group="Total"><th scope="row">Total</th>${figureCells(block.total)}</tr></tfoot></table></div>`
}

// The chart's geometry, in the SVG's own units: 360 wide, so that at a phone's width a unit is about a pixel and
// its 12-unit text reads at 12 px; wider screens scale it up to the stylesheet's limit.
const CHART_WIDTH = 360
const ROW_HEIGHT = 40
const LEGEND_HEIGHT = 24
const LABEL_CHARACTERS = 30

function truncated(text: string): string {
  return text.length > LABEL_CHARACTERS ? `${text.slice(0, LABEL_CHARACTERS - 1)}…` : text
}

/** Net revenue (light) and margin (dark; red when negative) per group, on one zero line. */
export function revenueChart(by: RevenueGrouping, block: RevenueReportView['currencies'][number]): Html {
  const groups = block.groups
  if (groups.length === 0) return html``
  if (groups.length > REVENUE_CHART_MAX_GROUPS) {
    return html`<p class="muted">${String(groups.length)} groups: too many to chart; the table lists them all.</p>`
  }
  const values = groups.flatMap((group) => [Number(group.figures.netRevenueMinor), Number(group.figures.marginMinor)])
  const highest = Math.max(0, ...values)
  const lowest = Math.min(0, ...values)
  const span = highest - lowest || 1
  const x = (value: number) => ((value - lowest) / span) * CHART_WIDTH
  const zero = x(0)
  const bar = (value: number, y: number, height: number, fill: string) => {
    const left = Math.min(x(value), zero)
    const width = Math.max(Math.abs(x(value) - zero), value === 0 ? 0 : 1)
    return html`<rect x="${left.toFixed(1)}" y="${String(y)}" width="${width.toFixed(1)}" height="${String(height)}" fill="${fill}"/>`
  }
  const height = LEGEND_HEIGHT + groups.length * ROW_HEIGHT
  const titleId = `revenue-chart-${block.currency}`
  return html`<figure class="revenue-figure"><svg class="revenue-chart" viewBox="0 0 ${String(CHART_WIDTH)} ${String(height)}" role="img" aria-labelledby="${titleId}" font-size="12" font-family="system-ui, sans-serif">
<title id="${titleId}">Net revenue and margin in ${block.currency} by ${by}</title>
<rect x="0" y="4" width="12" height="12" fill="#c8d1dc"/><text x="16" y="14" fill="#24292f">Net revenue</text>
<rect x="110" y="4" width="12" height="12" fill="#1f6feb"/><text x="126" y="14" fill="#24292f">Margin</text>
<text x="${String(CHART_WIDTH)}" y="14" text-anchor="end" fill="#57606a">${block.currency}</text>
${groups.map((group, index) => {
  const top = LEGEND_HEIGHT + index * ROW_HEIGHT
  const net = Number(group.figures.netRevenueMinor)
  const margin = Number(group.figures.marginMinor)
  const rate = group.figures.marginRate ? ` (${group.figures.marginRate})` : ''
  return html`<g data-group="${group.key}"><text x="0" y="${String(top + 12)}" fill="#24292f">${truncated(group.key)}</text>
<text x="${String(CHART_WIDTH)}" y="${String(top + 12)}" text-anchor="end" fill="#57606a">${group.figures.margin}${rate}</text>
${bar(net, top + 16, 16, '#c8d1dc')}${bar(margin, top + 20, 8, margin < 0 ? '#cf222e' : '#1f6feb')}</g>`
})}
<line x1="${zero.toFixed(1)}" y1="${String(LEGEND_HEIGHT)}" x2="${zero.toFixed(1)}" y2="${String(height)}" stroke="#57606a" stroke-width="1"/>
</svg></figure>`
}

function reportContent(query: RevenueQueryText, report: RevenueReportView): Html {
  const csvLink = `${ADMIN_PATH}/revenue.csv?${queryString(query)}`
  return html`<p>Live, ${report.from} to ${report.to} (not included), by ${report.by}:
<a class="button button-quiet" href="${csvLink}" download>CSV</a></p>
${
  report.currencies.length === 0
    ? html`<div class="empty card"><p>No Live invoices, credit notes or hand-offs to labs in this range.</p></div>`
    : report.currencies.map(
        (block) => html`<section class="revenue-block" aria-label="${block.currency}"><h2>${block.currency}</h2>
${revenueChart(report.by, block)}
${blockTable(report.by, block)}</section>`,
      )
}
<p class="muted small">Revenue and refunds are untaxed and leave duties out; lab cost is the cost of hand-offs not cancelled or rejected, converted at hand-off; margin = revenue - refunds - lab cost. Currencies are never added together (docs/billing.md#revenue-and-margin).</p>`
}

function problemsText(problems: Record<string, string>): string {
  return Object.entries(problems)
    .map(([field, reason]) => `${field}: ${reason}`)
    .join('; ')
}

export function registerRevenuePages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleRevenue): void {
  pages.get<{ Querystring: RevenueQueryText }>('/revenue', async (request, reply) => {
    const given = request.query ?? {}
    const query =
      given.from === undefined && given.to === undefined && given.by === undefined ? defaultQuery(new Date()) : given
    const parsed = parseRevenueQuery(query)
    const head = html`<div class="page-head"><h1>Revenue</h1></div>
<p class="muted">Live revenue, refunds, lab cost and margin of a range of days (at most ${String(REVENUE_MAX_RANGE_DAYS)}), grouped as chosen.</p>
${filterForm(query)}`
    if ('problems' in parsed) {
      return console.sendPage(request, reply, {
        section: 'revenue',
        title: 'Revenue',
        status: 400,
        notice: { kind: 'error', text: problemsText(parsed.problems) },
        content: head,
      })
    }
    const report = await deps.report(parsed.query)
    if ('refused' in report) {
      return console.sendPage(request, reply, {
        section: 'revenue',
        title: 'Revenue',
        status: 400,
        notice: { kind: 'error', text: report.refused },
        content: head,
      })
    }
    return console.sendPage(request, reply, {
      section: 'revenue',
      title: 'Revenue',
      content: html`${head}${reportContent(query, report)}`,
    })
  })

  pages.get<{ Querystring: RevenueQueryText }>('/revenue.csv', async (request, reply) => {
    const parsed = parseRevenueQuery(request.query ?? {})
    const report = 'problems' in parsed ? undefined : await deps.report(parsed.query)
    if (report === undefined || 'refused' in report) {
      const text = 'problems' in parsed ? problemsText(parsed.problems) : (report as { refused: string }).refused
      return console.sendPage(request, reply, {
        section: 'revenue',
        title: 'Revenue',
        status: 400,
        notice: { kind: 'error', text },
        content: html`<div class="page-head"><h1>Revenue</h1></div>${filterForm(request.query ?? {})}`,
      })
    }
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${revenueCsvFileName(report)}"`)
      .header('cache-control', 'no-store')
      .send(revenueCsv(report))
  })
}
