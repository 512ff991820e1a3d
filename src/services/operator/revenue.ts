// The operator's revenue and margin (docs/billing.md#revenue-and-margin): the report of a range grouped by period,
// account, lab or product, and one order's margin per hand-off. One function per view, called by the command line
// (operator.service.ts: `printroute revenue`) and the console's Revenue section and order page
// (console-sections.ts) alike. Reads only: the figures come from the Live documents and hand-offs as stored.
import type { Queryable } from '../../adapters/database.ts'
import { parseId } from '../../domain/ids.ts'
import {
  buildRevenueReport,
  type OrderMarginView,
  orderMarginView,
  REVENUE_MAX_ROWS,
  type RevenueQuery,
  type RevenueReportView,
  revenueReportView,
  type ShipmentAttribution,
} from '../../domain/revenue.ts'
import {
  listLiveDocumentsIssued,
  listLiveHandoffs,
  listOrderHandoffs,
  shipmentAttribution,
} from '../../repositories/revenue.repository.ts'
import { type OperatorContext, type RevenueSource, refused } from './context.ts'

/** The revenue views' source over a database. */
export function revenueSourceOf(db: Queryable): RevenueSource {
  return {
    documents: (range, limit) => listLiveDocumentsIssued(db, range, limit),
    handoffs: (range, limit) => listLiveHandoffs(db, range, limit),
    attribution: (range, limit) => shipmentAttribution(db, range, limit),
    orderHandoffs: (orderNumber) => listOrderHandoffs(db, orderNumber),
  }
}

export type RevenueDeps = Pick<OperatorContext, 'revenue'>

const EMPTY_ATTRIBUTION: ShipmentAttribution = { labOf: new Map(), skusOf: new Map() }

function tooMany(what: string): never {
  throw refused(
    `the range holds more than ${REVENUE_MAX_ROWS.toLocaleString('en')} ${what}: choose a shorter range ` +
      '(a report is never summed short)',
  )
}

/**
 * The report of a parsed query (domain/revenue.ts parses it, each face reads its own input). Refused (exit 2) when
 * the range holds more documents or hand-offs than a report reads.
 */
export async function revenueReport(deps: RevenueDeps, query: RevenueQuery): Promise<RevenueReportView> {
  const range = { from: query.from, to: query.to }
  const [charges, costs] = await Promise.all([
    deps.revenue.documents(range, REVENUE_MAX_ROWS + 1),
    deps.revenue.handoffs(range, REVENUE_MAX_ROWS + 1),
  ])
  if (charges.length > REVENUE_MAX_ROWS) tooMany('invoices and credit notes')
  if (costs.length > REVENUE_MAX_ROWS) tooMany('hand-offs to labs')
  let attribution = EMPTY_ATTRIBUTION
  if (query.by === 'lab' || query.by === 'product') {
    const found = await deps.revenue.attribution(range, REVENUE_MAX_ROWS)
    if (!found.complete) tooMany("documents or hand-offs of the range's orders")
    attribution = found.attribution
  }
  return revenueReportView(buildRevenueReport({ query, charges, costs, attribution }))
}

/** One order's hand-offs with each one's price, lab cost and margin; null for a text that is no order ID. */
export async function orderMargin(deps: RevenueDeps, input: { order: string }): Promise<OrderMarginView | null> {
  const orderNumber = parseId('ord', input.order)
  if (orderNumber === undefined) return null
  return orderMarginView(await deps.revenue.orderHandoffs(orderNumber))
}
