// What each shipment costs at its lab, and what labs are owed (docs/billing.md#margin,
// docs/billing.md#lab-payables-statements), as pure functions: the `shipment_costs` row a hand-off records, the
// outcome a shipment's change settles it with, and the lab's monthly self-billing statement (its number, its
// fixed content, its CSV).

import type { Environment } from './environment.ts'
import { parseId } from './ids.ts'
import type { InvoiceSeller } from './invoices.ts'
import { formatMinorAsAmount } from './money.ts'
import type { PipelineOrder, ShipmentState } from './pipeline/pipeline-order.ts'

export type ShipmentCostKind = 'Original' | 'Moved' | 'Reprint'
export type ShipmentCostOutcome = 'Open' | 'Shipped' | 'Cancelled' | 'Rejected'

/** One hand-off of a shipment to a lab, as `shipment_costs` records it (migrations/0032_shipment_costs.sql). */
export interface NewShipmentCost {
  /** `<shipment id>:<kind>:<lab>`: the same hand-off recorded twice (a retried job) stays one row. */
  handoffKey: string
  shipmentNumber: number
  orderNumber: number
  accountId: number
  environment: Environment
  labCode: string
  kind: ShipmentCostKind
  handedAt: Date
  catalogueVersion: number | null
  labCurrency: string
  productionCostMinor: bigint
  shippingCostMinor: bigint
  priceCurrency: string
  priceItemsMinor: bigint
  priceShippingMinor: bigint
  costInPriceCurrencyMinor: bigint
}

/** The key of a hand-off: one row per shipment, kind and lab. */
export function handoffKeyOf(shipmentId: string, kind: ShipmentCostKind, labCode: string): string {
  return `${shipmentId}:${kind}:${labCode}`
}

/**
 * The row the hand-off of `shipmentId` to its lab records: the lab's agreed cost fixed at allocation, and the
 * merchant's untaxed price of the shipment from the order's charged lines (its items' lines and its shipping
 * line; prepaid duties are not the lab's work). Undefined for a shipment allocated before its cost was kept.
 */
export function shipmentCostOf(order: PipelineOrder, shipmentId: string, handedAt: Date): NewShipmentCost | undefined {
  const shipment = order.pipeline.shipments[shipmentId]
  const cost = shipment?.labCost
  if (!shipment || !cost) return undefined
  let items = 0n
  let shipping = 0n
  for (const [key, line] of Object.entries(order.pipeline.billing?.lines ?? {})) {
    if (line.shipmentId !== shipmentId) continue
    if (key.startsWith('item:')) items += BigInt(line.cost)
    else if (key.startsWith('shipping:')) shipping += BigInt(line.cost)
  }
  return {
    handoffKey: handoffKeyOf(shipmentId, cost.kind, shipment.labCode),
    shipmentNumber: parseId('shp', shipmentId) ?? 0,
    orderNumber: order.orderNumber,
    accountId: order.accountId,
    environment: order.environment,
    labCode: shipment.labCode,
    kind: cost.kind,
    handedAt,
    catalogueVersion: cost.catalogueVersion,
    labCurrency: cost.currency,
    productionCostMinor: BigInt(cost.production),
    shippingCostMinor: BigInt(cost.shipping),
    priceCurrency: order.pipeline.billing?.currency ?? cost.priceCurrency,
    priceItemsMinor: items,
    priceShippingMinor: shipping,
    costInPriceCurrencyMinor: BigInt(cost.costInPriceCurrency),
  }
}

const OUTCOME_OF_STATE: Partial<Record<ShipmentState, ShipmentCostOutcome>> = {
  shipped: 'Shipped',
  cancelled: 'Cancelled',
  rejected: 'Rejected',
}

/** Each shipment's pipeline state, as a change found it (compared after the change by `costOutcomesOf`). */
export function shipmentStatesOf(order: PipelineOrder): Record<string, ShipmentState> {
  return Object.fromEntries(Object.entries(order.pipeline.shipments).map(([id, shipment]) => [id, shipment.state]))
}

/**
 * The outcomes a change settles: every shipment that became shipped, cancelled (by the merchant, or by its lab
 * accepting a cancellation) or rejected (the lab gave the whole shipment back). A shipment whose items a lab gave
 * back one by one stays Open until the rest ships.
 */
export function costOutcomesOf(
  before: Readonly<Record<string, ShipmentState>>,
  order: PipelineOrder,
): { shipmentNumber: number; outcome: Exclude<ShipmentCostOutcome, 'Open'> }[] {
  const outcomes: { shipmentNumber: number; outcome: Exclude<ShipmentCostOutcome, 'Open'> }[] = []
  for (const [shipmentId, shipment] of Object.entries(order.pipeline.shipments)) {
    if (before[shipmentId] === shipment.state) continue
    const outcome = OUTCOME_OF_STATE[shipment.state]
    if (outcome && outcome !== 'Open') outcomes.push({ shipmentNumber: parseId('shp', shipmentId) ?? 0, outcome })
  }
  return outcomes
}

// --- Lab payables statements ---

/** SB-<LAB>-000001: gapless per lab (the lab's code in capitals). */
export function formatLabStatementNumber(labCode: string, sequence: number): string {
  return `SB-${labCode.toUpperCase()}-${String(sequence).padStart(6, '0')}`
}

export function isLabStatementNumber(text: string): boolean {
  return /^SB-[A-Z0-9_-]{1,64}-\d{6,}$/.test(text)
}

/** A stored `shipment_costs` row as a statement reads it. */
export interface ShipmentCostRow {
  shipmentNumber: number
  orderNumber: number
  kind: ShipmentCostKind
  handedAt: Date
  labCurrency: string
  productionCostMinor: bigint
  shippingCostMinor: bigint
  outcome: ShipmentCostOutcome
  outcomeAt: Date | null
}

/** One job of a statement; amounts are decimal strings in `currency`, the lab's. */
export interface LabStatementLine {
  shipmentId: string
  orderId: string
  kind: ShipmentCostKind
  handedAt: string
  /** When it shipped (owed lines), or when it was cancelled or rejected (lines not owed). */
  outcomeAt: string
  outcome: Exclude<ShipmentCostOutcome, 'Open'>
  currency: string
  production: string
  shipping: string
  total: string
}

export interface LabStatementTotal {
  currency: string
  production: string
  shipping: string
  /** What the operator owes the lab in this currency. */
  total: string
  jobs: number
}

/** Everything a lab statement shows, fixed at issue: the PDF and CSV are drawn from it alone. */
export interface LabStatementContent {
  number: string
  labCode: string
  month: string
  issuedAt: string
  /** Self-billing: the lab sells, the operator buys and issues the document on the lab's behalf. */
  seller: { name: string; labCode: string; countryCode: string }
  buyer: InvoiceSeller
  /** Live work shipped in the month, at the costs agreed at hand-off: what is owed. */
  owed: LabStatementLine[]
  /** Work handed over but cancelled or rejected in the month: listed, not owed. */
  notOwed: LabStatementLine[]
  totals: LabStatementTotal[]
}

/** The wording every lab statement carries. */
export const SELF_BILLING_NOTE =
  'Self-billing statement: issued by the buyer on behalf of the seller (the lab) under their self-billing agreement.'

function lineOf(row: ShipmentCostRow): LabStatementLine {
  return {
    shipmentId: `shp_${row.shipmentNumber}`,
    orderId: `ord_${row.orderNumber}`,
    kind: row.kind,
    handedAt: row.handedAt.toISOString(),
    outcomeAt: (row.outcomeAt ?? row.handedAt).toISOString(),
    outcome: row.outcome === 'Open' ? 'Shipped' : row.outcome,
    currency: row.labCurrency,
    production: formatMinorAsAmount(row.productionCostMinor),
    shipping: formatMinorAsAmount(row.shippingCostMinor),
    total: formatMinorAsAmount(row.productionCostMinor + row.shippingCostMinor),
  }
}

/** The statement's content from the month's settled rows (shipped ones owed, the others listed as not owed). */
export function buildLabStatementContent(input: {
  number: string
  labCode: string
  month: string
  issuedAt: Date
  seller: LabStatementContent['seller']
  buyer: InvoiceSeller
  rows: readonly ShipmentCostRow[]
}): LabStatementContent {
  const shipped = input.rows.filter((row) => row.outcome === 'Shipped')
  const byCurrency = new Map<string, { production: bigint; shipping: bigint; jobs: number }>()
  for (const row of shipped) {
    const sum = byCurrency.get(row.labCurrency) ?? { production: 0n, shipping: 0n, jobs: 0 }
    sum.production += row.productionCostMinor
    sum.shipping += row.shippingCostMinor
    sum.jobs += 1
    byCurrency.set(row.labCurrency, sum)
  }
  return {
    number: input.number,
    labCode: input.labCode,
    month: input.month,
    issuedAt: input.issuedAt.toISOString(),
    seller: input.seller,
    buyer: input.buyer,
    owed: shipped.map(lineOf),
    notOwed: input.rows.filter((row) => row.outcome === 'Cancelled' || row.outcome === 'Rejected').map(lineOf),
    totals: [...byCurrency.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, sum]) => ({
        currency,
        production: formatMinorAsAmount(sum.production),
        shipping: formatMinorAsAmount(sum.shipping),
        total: formatMinorAsAmount(sum.production + sum.shipping),
        jobs: sum.jobs,
      })),
  }
}

function csvField(value: string): string {
  const guarded = /^[=+@]/.test(value) ? `'${value}` : value
  return /[",\n\r]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded
}

/**
 * The statement as CSV (RFC 4180, CRLF): one row per job (owed `yes`, or `no` for cancelled and rejected work),
 * then one `Total` row per currency of what is owed.
 */
export function labStatementCsv(content: LabStatementContent): string {
  const row = (line: LabStatementLine, owed: string) => [
    content.number,
    line.shipmentId,
    line.orderId,
    line.kind,
    line.handedAt,
    line.outcome,
    line.outcomeAt,
    owed,
    line.currency,
    line.production,
    line.shipping,
    line.total,
  ]
  const rows: string[][] = [
    [
      'statement',
      'shipmentId',
      'orderId',
      'kind',
      'handedAt',
      'outcome',
      'outcomeAt',
      'owed',
      'currency',
      'production',
      'shipping',
      'total',
    ],
    ...content.owed.map((line) => row(line, 'yes')),
    ...content.notOwed.map((line) => row(line, 'no')),
    ...content.totals.map((total) => [
      content.number,
      'Total',
      '',
      '',
      '',
      '',
      '',
      'yes',
      total.currency,
      total.production,
      total.shipping,
      total.total,
    ]),
  ]
  return `${rows.map((cells) => cells.map(csvField).join(',')).join('\r\n')}\r\n`
}

/** A statement as listings show it. */
export interface LabStatementSummary {
  number: string
  labCode: string
  month: string
  issuedAt: Date
  shipmentCount: number
  totals: LabStatementTotal[]
}

/** The month before the one `now` falls in (UTC), `YYYY-MM`. */
export function previousMonthOf(now: Date): string {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
  return `${String(first.getUTCFullYear()).padStart(4, '0')}-${String(first.getUTCMonth() + 1).padStart(2, '0')}`
}

/** What the lab portal needs of a lab's statements (the lab statements service implements it). */
export interface LabStatementsWork {
  list(labCode: string): Promise<LabStatementSummary[]>
  /** Only that lab's: another lab's number is undefined. */
  read(number: string, labCode: string): Promise<LabStatementContent | undefined>
  pdf(statement: LabStatementContent): Promise<Uint8Array>
  csv(statement: LabStatementContent): string
}
