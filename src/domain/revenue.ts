// The operator's revenue and margin (docs/billing.md#revenue-and-margin), as pure functions: Live charges'
// documents (invoices and credit notes) and the lab costs of shipments' hand-offs (shipment_costs) summed per
// period (UTC day, ISO week, month), account, lab or product, one block per currency (different currencies are
// never added). Amounts are integer minor units; the margin rate is a ratio, formatted once.
//
// Per group:
//   revenue       the untaxed lines of invoices (duties lines left out: money collected for customs)
//   refunds       what credit notes give back, untaxed, as a positive amount (duties lines left out)
//   net revenue   revenue - refunds
//   lab cost      the lab cost of hand-offs, in the charge's currency, of those Open or Shipped (a Cancelled or
//                 Rejected hand-off owes the lab nothing)
//   margin        revenue - refunds - lab cost
//   margin rate   margin / net revenue, to 0.1 % half away from zero; none when net revenue is not above 0
//   orders        the distinct orders with a line or a hand-off in the group
// Every money figure of the whole is the sum of its groups' (a line or a hand-off falls in exactly one group); an
// order can fall in several groups, so the orders of the groups add up to at least the whole's.

import { DATE_TIME_RANGE, dateTimeBeyondRange } from './limits.ts'
import { formatMinorAsAmount } from './money.ts'

export const REVENUE_GROUPINGS = ['day', 'week', 'month', 'account', 'lab', 'product'] as const
export type RevenueGrouping = (typeof REVENUE_GROUPINGS)[number]

export function isRevenueGrouping(text: string): text is RevenueGrouping {
  return (REVENUE_GROUPINGS as readonly string[]).includes(text)
}

/** The longest range a report covers, in days: a year and a day (366 day groups at most). */
export const REVENUE_MAX_RANGE_DAYS = 366
/** The most documents, and the most hand-offs, a report reads; a range with more is refused, never summed short. */
export const REVENUE_MAX_ROWS = 50_000

/** The group a line of a shipment with items of several products (or none known) falls in, by product. */
export const SEVERAL_PRODUCTS = '(several products)'
/** The group a line of a shipment never handed to a lab falls in, by lab. */
export const NO_LAB = '(no lab)'

/** One line of a Live document, as its stored content has it (cost untaxed, negative for money given back). */
export interface RevenueChargeLine {
  kind: 'Item' | 'Shipping' | 'Duties'
  sku: string | null
  /** `shp_N` */
  shipmentId: string
  costMinor: bigint
}

/** A Live invoice or credit note. */
export interface RevenueCharge {
  kind: 'Invoice' | 'CreditNote'
  accountId: number
  orderNumber: number
  issuedAt: Date
  currency: string
  lines: RevenueChargeLine[]
}

export type HandoffOutcome = 'Open' | 'Shipped' | 'Cancelled' | 'Rejected'

/** One hand-off of a shipment to a lab (shipment_costs), Live. */
export interface RevenueCost {
  accountId: number
  orderNumber: number
  /** `shp_N` */
  shipmentId: string
  labCode: string
  kind: 'Original' | 'Moved' | 'Reprint'
  handedAt: Date
  outcome: HandoffOutcome
  /** The currency of the merchant's price, which the cost is converted to. */
  priceCurrency: string
  priceItemsMinor: bigint
  priceShippingMinor: bigint
  costInPriceCurrencyMinor: bigint
}

/**
 * What a line's shipment is, for the lab and product groupings: the lab of its latest hand-off, and the SKUs of
 * its item lines across every document of its order (not only those in the range).
 */
export interface ShipmentAttribution {
  labOf: ReadonlyMap<string, string>
  skusOf: ReadonlyMap<string, ReadonlySet<string>>
}

export interface RevenueQuery {
  /** Inclusive, midnight UTC. */
  from: Date
  /** Exclusive, midnight UTC. */
  to: Date
  by: RevenueGrouping
}

export interface RevenueFigures {
  orders: number
  revenueMinor: bigint
  refundsMinor: bigint
  netRevenueMinor: bigint
  labCostMinor: bigint
  marginMinor: bigint
}

export interface RevenueGroup {
  key: string
  figures: RevenueFigures
}

export interface RevenueCurrencyBlock {
  currency: string
  groups: RevenueGroup[]
  total: RevenueFigures
}

export interface RevenueReport {
  query: RevenueQuery
  currencies: RevenueCurrencyBlock[]
}

/** Whether a hand-off's cost is owed: not when the lab never did the work (cancelled, rejected). */
export function costCounts(cost: Pick<RevenueCost, 'outcome'>): boolean {
  return cost.outcome === 'Open' || cost.outcome === 'Shipped'
}

const DAY_MS = 86_400_000

function isoDate(at: Date): string {
  return at.toISOString().slice(0, 10)
}

/** The ISO week of an instant (UTC) as `YYYY-Www`: weeks start on Monday; week 1 holds the year's first Thursday. */
export function isoWeekOf(at: Date): string {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()))
  const weekday = (day.getUTCDay() + 6) % 7
  const thursday = new Date(day.getTime() + (3 - weekday) * DAY_MS)
  const year = thursday.getUTCFullYear()
  const firstThursday = new Date(Date.UTC(year, 0, 4))
  const firstMonday = firstThursday.getTime() - ((firstThursday.getUTCDay() + 6) % 7) * DAY_MS
  const week = Math.floor((thursday.getTime() - firstMonday) / (7 * DAY_MS)) + 1
  return `${String(year).padStart(4, '0')}-W${String(week).padStart(2, '0')}`
}

export function periodKeyOf(by: 'day' | 'week' | 'month', at: Date): string {
  if (by === 'day') return isoDate(at)
  if (by === 'month') return isoDate(at).slice(0, 7)
  return isoWeekOf(at)
}

function productOfShipment(attribution: ShipmentAttribution, shipmentId: string): string {
  const skus = attribution.skusOf.get(shipmentId)
  if (skus?.size === 1) return [...skus][0] as string
  return SEVERAL_PRODUCTS
}

/** The group a document's line falls in. */
export function chargeLineGroup(
  by: RevenueGrouping,
  charge: RevenueCharge,
  line: RevenueChargeLine,
  attribution: ShipmentAttribution,
): string {
  switch (by) {
    case 'day':
    case 'week':
    case 'month':
      return periodKeyOf(by, charge.issuedAt)
    case 'account':
      return `acc_${charge.accountId}`
    case 'lab':
      return attribution.labOf.get(line.shipmentId) ?? NO_LAB
    case 'product':
      if (line.kind === 'Item' && line.sku !== null) return line.sku
      return productOfShipment(attribution, line.shipmentId)
  }
}

/** The group a hand-off falls in. */
export function costGroup(by: RevenueGrouping, cost: RevenueCost, attribution: ShipmentAttribution): string {
  switch (by) {
    case 'day':
    case 'week':
    case 'month':
      return periodKeyOf(by, cost.handedAt)
    case 'account':
      return `acc_${cost.accountId}`
    case 'lab':
      return cost.labCode
    case 'product':
      return productOfShipment(attribution, cost.shipmentId)
  }
}

interface Accumulator {
  orders: Set<number>
  revenueMinor: bigint
  refundsMinor: bigint
  labCostMinor: bigint
}

function emptyAccumulator(): Accumulator {
  return { orders: new Set(), revenueMinor: 0n, refundsMinor: 0n, labCostMinor: 0n }
}

function figuresOf(accumulator: Accumulator): RevenueFigures {
  const netRevenueMinor = accumulator.revenueMinor - accumulator.refundsMinor
  return {
    orders: accumulator.orders.size,
    revenueMinor: accumulator.revenueMinor,
    refundsMinor: accumulator.refundsMinor,
    netRevenueMinor,
    labCostMinor: accumulator.labCostMinor,
    marginMinor: netRevenueMinor - accumulator.labCostMinor,
  }
}

/** Account groups by their number, the rest by their key (periods sort by date that way). */
function compareKeys(by: RevenueGrouping, a: string, b: string): number {
  if (by === 'account') return Number(a.slice(4)) - Number(b.slice(4))
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * The report of `query` from the Live documents and hand-offs in its range (the caller selects them: documents by
 * issue, hand-offs by hand-off, in [from, to)). Anything else given is left out too, so the figures never depend
 * on what the caller's selection let through.
 */
export function buildRevenueReport(input: {
  query: RevenueQuery
  charges: readonly RevenueCharge[]
  costs: readonly RevenueCost[]
  attribution: ShipmentAttribution
}): RevenueReport {
  const { query, attribution } = input
  const within = (at: Date) => at >= query.from && at < query.to
  const blocks = new Map<string, { groups: Map<string, Accumulator>; total: Accumulator }>()
  const place = (currency: string, key: string, orderNumber: number, add: (accumulator: Accumulator) => void) => {
    let block = blocks.get(currency)
    if (!block) {
      block = { groups: new Map(), total: emptyAccumulator() }
      blocks.set(currency, block)
    }
    let group = block.groups.get(key)
    if (!group) {
      group = emptyAccumulator()
      block.groups.set(key, group)
    }
    for (const accumulator of [group, block.total]) {
      accumulator.orders.add(orderNumber)
      add(accumulator)
    }
  }
  for (const charge of input.charges) {
    if (!within(charge.issuedAt)) continue
    for (const line of charge.lines) {
      if (line.kind === 'Duties') continue
      const key = chargeLineGroup(query.by, charge, line, attribution)
      place(charge.currency, key, charge.orderNumber, (accumulator) => {
        if (charge.kind === 'Invoice') accumulator.revenueMinor += line.costMinor
        else accumulator.refundsMinor -= line.costMinor
      })
    }
  }
  for (const cost of input.costs) {
    if (!within(cost.handedAt)) continue
    const key = costGroup(query.by, cost, attribution)
    place(cost.priceCurrency, key, cost.orderNumber, (accumulator) => {
      if (costCounts(cost)) accumulator.labCostMinor += cost.costInPriceCurrencyMinor
    })
  }
  const currencies = [...blocks.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, block]) => ({
      currency,
      groups: [...block.groups.entries()]
        .sort(([a], [b]) => compareKeys(query.by, a, b))
        .map(([key, accumulator]) => ({ key, figures: figuresOf(accumulator) })),
      total: figuresOf(block.total),
    }))
  return { query, currencies }
}

/**
 * The margin rate, margin / net revenue, as a percentage to one decimal rounded half away from zero ("23.5%",
 * "-4.0%"); null when net revenue is not above zero (no rate says anything then).
 */
export function formatMarginRate(marginMinor: bigint, netRevenueMinor: bigint): string | null {
  if (netRevenueMinor <= 0n) return null
  // Tenths of a percent: margin * 1000 / net, rounded half away from zero with integers alone.
  const scaled = marginMinor * 1000n
  const negative = scaled < 0n
  const magnitude = negative ? -scaled : scaled
  const tenths = (magnitude * 2n + netRevenueMinor) / (netRevenueMinor * 2n)
  const whole = tenths / 10n
  const fraction = tenths % 10n
  return `${negative && tenths > 0n ? '-' : ''}${whole}.${fraction}%`
}

// ---------------------------------------------------------------------------------------------------------
// The query, as the console's form and the command line give it.

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/

/** A `YYYY-MM-DD` date as midnight UTC; undefined when it is no such date (2026-02-30 included). */
export function parseRevenueDate(text: string): Date | undefined {
  const match = DATE_PATTERN.exec(text)
  if (!match) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const at = new Date(0)
  at.setUTCFullYear(year, month - 1, day)
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) return undefined
  if (year < 1 || dateTimeBeyondRange(at.getTime()) !== undefined) return undefined
  return at
}

/** The query from its three texts, or each field that is wrong (field -> reason). */
export function parseRevenueQuery(input: {
  from?: string
  to?: string
  by?: string
}): { query: RevenueQuery } | { problems: Record<string, string> } {
  const problems: Record<string, string> = {}
  const dateOf = (field: 'from' | 'to') => {
    const text = input[field]?.trim() ?? ''
    if (text === '') {
      problems[field] = 'is required (a date as YYYY-MM-DD, UTC)'
      return undefined
    }
    const at = parseRevenueDate(text)
    if (!at)
      problems[field] =
        `must be a date as YYYY-MM-DD from ${DATE_TIME_RANGE.earliestDate} to ${DATE_TIME_RANGE.latestDate}, got "${text}"`
    return at
  }
  const from = dateOf('from')
  const to = dateOf('to')
  const by = input.by?.trim() ?? ''
  if (!isRevenueGrouping(by)) problems.by = `must be one of ${REVENUE_GROUPINGS.join(', ')}, got "${by}"`
  if (from && to) {
    if (to <= from) problems.to = 'must be after from (to is exclusive)'
    else if (to.getTime() - from.getTime() > REVENUE_MAX_RANGE_DAYS * DAY_MS)
      problems.to = `must be at most ${REVENUE_MAX_RANGE_DAYS} days after from`
  }
  if (Object.keys(problems).length > 0 || !from || !to || !isRevenueGrouping(by)) return { problems }
  return { query: { from, to, by } }
}

// ---------------------------------------------------------------------------------------------------------
// The report as every face shows it: amounts formatted once, JSON all through (the command line's result
// crosses the admin channel as JSON).

export interface RevenueFiguresView {
  orders: number
  revenue: string
  refunds: string
  netRevenue: string
  labCost: string
  margin: string
  /** `23.5%`; null when net revenue is not above zero. */
  marginRate: string | null
  /** The margin in minor units, for the chart's bars. */
  marginMinor: string
  netRevenueMinor: string
}

export interface RevenueReportView {
  from: string
  to: string
  by: RevenueGrouping
  currencies: { currency: string; groups: { key: string; figures: RevenueFiguresView }[]; total: RevenueFiguresView }[]
}

export function revenueFiguresView(figures: RevenueFigures): RevenueFiguresView {
  return {
    orders: figures.orders,
    revenue: formatMinorAsAmount(figures.revenueMinor),
    refunds: formatMinorAsAmount(figures.refundsMinor),
    netRevenue: formatMinorAsAmount(figures.netRevenueMinor),
    labCost: formatMinorAsAmount(figures.labCostMinor),
    margin: formatMinorAsAmount(figures.marginMinor),
    marginRate: formatMarginRate(figures.marginMinor, figures.netRevenueMinor),
    marginMinor: String(figures.marginMinor),
    netRevenueMinor: String(figures.netRevenueMinor),
  }
}

export function revenueReportView(report: RevenueReport): RevenueReportView {
  return {
    from: isoDate(report.query.from),
    to: isoDate(report.query.to),
    by: report.query.by,
    currencies: report.currencies.map((block) => ({
      currency: block.currency,
      groups: block.groups.map((group) => ({ key: group.key, figures: revenueFiguresView(group.figures) })),
      total: revenueFiguresView(block.total),
    })),
  }
}

const CSV_COLUMNS = [
  'currency',
  'group',
  'orders',
  'revenue',
  'refunds',
  'netRevenue',
  'labCost',
  'margin',
  'marginRate',
]

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

/**
 * The report as CSV (RFC 4180, CRLF): one row per group of each currency, then that currency's `Total` row. The
 * first column is the grouping's name (`day`, `account`...), so the file says what it is grouped by.
 */
export function revenueCsv(view: RevenueReportView): string {
  const header = CSV_COLUMNS.map((column) => (column === 'group' ? view.by : column))
  const row = (currency: string, key: string, figures: RevenueFiguresView) => [
    currency,
    key,
    String(figures.orders),
    figures.revenue,
    figures.refunds,
    figures.netRevenue,
    figures.labCost,
    figures.margin,
    figures.marginRate ?? '',
  ]
  const rows = [
    header,
    ...view.currencies.flatMap((block) => [
      ...block.groups.map((group) => row(block.currency, group.key, group.figures)),
      row(block.currency, 'Total', block.total),
    ]),
  ]
  return `${rows.map((fields) => fields.map(csvField).join(',')).join('\r\n')}\r\n`
}

/** The file name of a report's CSV: `revenue-day-2026-11-01-2026-12-01.csv`. */
export function revenueCsvFileName(view: Pick<RevenueReportView, 'by' | 'from' | 'to'>): string {
  return `revenue-${view.by}-${view.from}-${view.to}.csv`
}

// ---------------------------------------------------------------------------------------------------------
// One order's margin, as its console page shows it.

export interface OrderMarginRow {
  shipmentId: string
  labCode: string
  kind: RevenueCost['kind']
  handedAt: string
  outcome: HandoffOutcome
  currency: string
  price: string
  labCost: string
  /** The hand-off's price - its cost; null for a hand-off cancelled or rejected (it counts for neither). */
  margin: string | null
  costCounts: boolean
}

export interface OrderMarginView {
  rows: OrderMarginRow[]
  /**
   * Per currency, over the hand-offs that count (Open or Shipped): their price, lab cost and margin. A cancelled or
   * rejected hand-off is left out of both: its work was not done, and its price moved to the shipment that
   * replaced it (or was refunded).
   */
  totals: { currency: string; price: string; labCost: string; margin: string; marginRate: string | null }[]
}

/** An order's hand-offs, oldest first, with each one's price, lab cost and margin, and totals per currency. */
export function orderMarginView(costs: readonly RevenueCost[]): OrderMarginView {
  const sorted = [...costs].sort((a, b) => a.handedAt.getTime() - b.handedAt.getTime())
  const totals = new Map<string, { price: bigint; cost: bigint }>()
  const rows = sorted.map((cost) => {
    const price = cost.priceItemsMinor + cost.priceShippingMinor
    const counts = costCounts(cost)
    const total = totals.get(cost.priceCurrency) ?? { price: 0n, cost: 0n }
    if (counts) {
      total.price += price
      total.cost += cost.costInPriceCurrencyMinor
    }
    totals.set(cost.priceCurrency, total)
    return {
      shipmentId: cost.shipmentId,
      labCode: cost.labCode,
      kind: cost.kind,
      handedAt: cost.handedAt.toISOString(),
      outcome: cost.outcome,
      currency: cost.priceCurrency,
      price: formatMinorAsAmount(price),
      labCost: formatMinorAsAmount(cost.costInPriceCurrencyMinor),
      margin: counts ? formatMinorAsAmount(price - cost.costInPriceCurrencyMinor) : null,
      costCounts: counts,
    }
  })
  return {
    rows,
    totals: [...totals.entries()].map(([currency, total]) => ({
      currency,
      price: formatMinorAsAmount(total.price),
      labCost: formatMinorAsAmount(total.cost),
      margin: formatMinorAsAmount(total.price - total.cost),
      marginRate: formatMarginRate(total.price - total.cost, total.price),
    })),
  }
}
