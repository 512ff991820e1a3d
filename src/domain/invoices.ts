// Invoices and credit notes (docs/billing.md#invoices), as pure functions: which series a charge's document is
// numbered in, its number, what it shows (fixed at issue, so its PDF never changes), and an account's monthly
// statement with its CSV.
//
// Every charge gets one document: a `Refund` charge (money given back overall) a credit note, any other an
// invoice. Live and Sandbox are numbered apart, so a Sandbox document can never take a Live number:
//   Live invoices INV-000001..., Live credit notes CN-000001..., Sandbox SBX-INV-000001..., SBX-CN-000001...

import { type ChargeLineDraft, creditedChargeOf, isDutiesLineKey } from './charges.ts'
import type { Environment } from './environment.ts'
import { DATE_TIME_RANGE, dateTimeBeyondRange } from './limits.ts'
import { formatMinorAsAmount } from './money.ts'
import type { Charge, OrderDocument } from './order.ts'

export type InvoiceKind = 'Invoice' | 'CreditNote'
export type InvoiceSeries = 'INV' | 'CN' | 'SBX-INV' | 'SBX-CN'
export const INVOICE_SERIES: readonly InvoiceSeries[] = ['INV', 'CN', 'SBX-INV', 'SBX-CN']

/** Digits of the counter in a number; a longer count simply grows (INV-1000000). */
const NUMBER_DIGITS = 6

export function invoiceKindOf(charge: Pick<Charge, 'chargeType'>): InvoiceKind {
  return charge.chargeType === 'Refund' ? 'CreditNote' : 'Invoice'
}

export function invoiceSeriesOf(kind: InvoiceKind, environment: Environment): InvoiceSeries {
  const base = kind === 'Invoice' ? 'INV' : 'CN'
  return environment === 'sandbox' ? `SBX-${base}` : base
}

export function formatInvoiceNumber(series: InvoiceSeries, sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) throw new RangeError(`invalid invoice sequence ${sequence}`)
  return `${series}-${String(sequence).padStart(NUMBER_DIGITS, '0')}`
}

const NUMBER_PATTERN = /^(SBX-)?(INV|CN)-\d{6,15}$/

/** Whether `text` is spelled like an invoice or credit note number (it may still not exist). */
export function isInvoiceNumber(text: string): boolean {
  return NUMBER_PATTERN.test(text)
}

/** The seller, from the operator's settings (`printroute invoices seller`). */
export interface InvoiceSeller {
  name: string
  /** Address lines, in the order printed. */
  address: string[]
  /** VAT or other tax registration number; null when none is set. */
  taxNumber: string | null
  email: string | null
}

/** Longest of each seller field, so a document's header always fits its page. */
export const SELLER_LIMITS = { name: 200, addressLines: 6, addressLine: 200, taxNumber: 64, email: 254 } as const

/** The seller a document shows when the operator has set none: printroute on this instance. */
export function defaultSeller(instance: string): InvoiceSeller {
  return { name: 'printroute', address: [instance], taxNumber: null, email: null }
}

/** Problems with a seller as given (field -> reason); empty when it can be stored. */
export function sellerProblems(seller: InvoiceSeller): Record<string, string> {
  const problems: Record<string, string> = {}
  if (seller.name.trim() === '') problems.name = 'must not be empty'
  else if (seller.name.length > SELLER_LIMITS.name) problems.name = `must be at most ${SELLER_LIMITS.name} characters`
  if (seller.address.length > SELLER_LIMITS.addressLines) {
    problems.address = `at most ${SELLER_LIMITS.addressLines} lines`
  } else if (seller.address.some((line) => line.length > SELLER_LIMITS.addressLine)) {
    problems.address = `each line must be at most ${SELLER_LIMITS.addressLine} characters`
  }
  if (seller.taxNumber !== null && seller.taxNumber.length > SELLER_LIMITS.taxNumber) {
    problems.taxNumber = `must be at most ${SELLER_LIMITS.taxNumber} characters`
  }
  if (seller.email !== null && (seller.email.length > SELLER_LIMITS.email || !/^[^\s@]+@[^\s@]+$/.test(seller.email))) {
    problems.email = 'must be an email address'
  }
  return problems
}

/** One line of a document; amounts are minor units as decimal strings (the content is JSON). */
export interface InvoiceLine {
  /** `Credit`: an operator's credit on a charge (docs/billing.md#operator-credits), or its reversal by a cancel. */
  kind: 'Item' | 'Shipping' | 'Duties' | 'Credit'
  /**
   * `Item 3 x GLOBAL-FAP-8x10`, `Shipping shp_4 (Budget)`, `Duties and import taxes shp_4 (DDP)`; a refund line
   * starts with `Refund:`.
   */
  description: string
  sku: string | null
  copies: number | null
  itemId: string | null
  shipmentId: string
  cost: string
  tax: string
  /** The tax rate of the line, as the catalogue writes it ("20"); "0" where none applies. */
  taxRatePercent: string
  taxName: string | null
}

export interface TaxByRate {
  ratePercent: string
  name: string | null
  /** The cost the rate applies to, and the tax it gives. */
  taxable: string
  tax: string
}

/** Everything a document shows, as stored at issue (invoices.content). */
export interface InvoiceContent {
  number: string
  kind: InvoiceKind
  environment: Environment
  issuedAt: string
  seller: InvoiceSeller
  buyer: { accountId: string; name: string }
  orderId: string
  merchantReference: string | null
  chargeId: string
  currency: string
  lines: InvoiceLine[]
  taxByRate: TaxByRate[]
  /** Sum of the line costs, the tax, and their total (the charge's totalCost). */
  subtotal: string
  totalTax: string
  total: string
  /** A credit note: the invoices of the order it credits (issued before it). Empty on an invoice. */
  credits: string[]
}

export interface TaxRateOfLine {
  name: string | null
  ratePercent: string
}

/**
 * What a charge's document shows. `drafts` are the charge's lines with their tax (one per charge item, same
 * order); `taxRate` is the rate of the order's destination, which every line of an order is taxed at.
 */
export function buildInvoiceContent(input: {
  number: string
  environment: Environment
  issuedAt: Date
  seller: InvoiceSeller
  buyer: { accountId: string; name: string }
  order: OrderDocument
  charge: Charge
  drafts: readonly ChargeLineDraft[]
  taxRate: TaxRateOfLine
  credits: readonly string[]
}): InvoiceContent {
  const { order, charge, drafts, taxRate } = input
  if (drafts.length !== charge.items.length) throw new RangeError('a charge line has no draft')
  const itemOf = new Map(order.items.map((item) => [item.id, item]))
  const methodOf = new Map(order.shipments.map((shipment) => [shipment.id, order.shippingMethod]))
  const lines = drafts.map((draft): InvoiceLine => {
    const item = draft.itemId ? itemOf.get(draft.itemId) : undefined
    const refund = draft.cost < 0n ? 'Refund: ' : ''
    if (isDutiesLineKey(draft.key)) {
      // Duties printroute prepays at the border are passed on as they are: no tax of its own on them.
      return {
        kind: 'Duties',
        description: `${refund}Duties and import taxes ${draft.shipmentId} (DDP)`,
        sku: null,
        copies: null,
        itemId: null,
        shipmentId: draft.shipmentId,
        cost: String(draft.cost),
        tax: String(draft.tax),
        taxRatePercent: '0',
        taxName: null,
      }
    }
    const credited = creditedChargeOf(draft.key)
    if (credited !== undefined) {
      return {
        kind: 'Credit',
        description: draft.cost < 0n ? `Refund: credit on ${credited}` : `Credit on ${credited} counted in this refund`,
        sku: null,
        copies: null,
        itemId: null,
        shipmentId: '',
        cost: String(draft.cost),
        tax: String(draft.tax),
        taxRatePercent: taxRate.ratePercent,
        taxName: taxRate.name,
      }
    }
    const description = item
      ? `${refund}${item.sku} x ${item.copies} (${item.id})`
      : `${refund}Shipping ${draft.shipmentId}${methodOf.has(draft.shipmentId) ? ` (${order.shippingMethod})` : ''}`
    return {
      kind: draft.itemId ? 'Item' : 'Shipping',
      description,
      sku: item?.sku ?? null,
      copies: item?.copies ?? null,
      itemId: draft.itemId,
      shipmentId: draft.shipmentId,
      cost: String(draft.cost),
      tax: String(draft.tax),
      taxRatePercent: taxRate.ratePercent,
      taxName: taxRate.name,
    }
  })
  let subtotal = 0n
  let totalTax = 0n
  const rates = new Map<string, TaxByRate>()
  for (const line of lines) {
    subtotal += BigInt(line.cost)
    totalTax += BigInt(line.tax)
    const key = `${line.taxRatePercent}\n${line.taxName ?? ''}`
    const entry = rates.get(key) ?? { ratePercent: line.taxRatePercent, name: line.taxName, taxable: '0', tax: '0' }
    entry.taxable = String(BigInt(entry.taxable) + BigInt(line.cost))
    entry.tax = String(BigInt(entry.tax) + BigInt(line.tax))
    rates.set(key, entry)
  }
  return {
    number: input.number,
    kind: invoiceKindOf(charge),
    environment: input.environment,
    issuedAt: input.issuedAt.toISOString(),
    seller: input.seller,
    buyer: input.buyer,
    orderId: order.id,
    merchantReference: order.merchantReference,
    chargeId: charge.id,
    currency: charge.totalCost.currency,
    lines,
    taxByRate: [...rates.values()].sort((a, b) => Number(b.ratePercent) - Number(a.ratePercent)),
    subtotal: String(subtotal),
    totalTax: String(totalTax),
    total: String(subtotal + totalTax),
    credits: [...input.credits],
  }
}

/** An issued document as listings show it (the API, the console, statements). */
export interface InvoiceSummary {
  number: string
  kind: InvoiceKind
  environment: Environment
  accountId: number
  orderNumber: number
  chargeId: string
  issuedAt: Date
  currency: string
  totalCostMinor: bigint
  totalTaxMinor: bigint
}

/**
 * `2026-03` -> its first instant and the next month's (UTC); undefined for anything else, year 0000 included (the
 * dates' range, `DATE_TIME_RANGE`). Years are set as written (`Date.UTC` would read 0050 as 1950), and the end of
 * 9999-12 is the range's last instant, not year 10000, which the embedded database cannot read.
 */
export function parseStatementMonth(month: string): { from: Date; to: Date } | undefined {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month)
  if (!match) return undefined
  const year = Number(match[1])
  if (year < 1) return undefined
  const monthIndex = Number(match[2]) - 1
  const from = new Date(0)
  from.setUTCFullYear(year, monthIndex, 1)
  const to = new Date(0)
  to.setUTCFullYear(year, monthIndex + 1, 1)
  return { from, to: dateTimeBeyondRange(to.getTime()) === undefined ? to : new Date(DATE_TIME_RANGE.latest) }
}

export interface StatementTotals {
  currency: string
  invoiced: string
  credited: string
  tax: string
  /** invoiced + credited (credit notes are negative). */
  net: string
}

/**
 * On a prepaid account's Live statement: one amount recorded in the month as owed on the invoice rather than taken
 * from the balance (an operator released an order the balance could not cover), or a refund taken off it.
 */
export interface StatementOwedLine {
  orderId: string
  /** The refund's charge for a refund; null for a release (it owes the order's unpaid charges together). */
  chargeId: string | null
  recordedAt: Date
  currency: string
  /** Owed by the account: positive for a release, negative for a refund taken off it. */
  amountMinor: bigint
}

/** An account's documents of one month and one environment, with totals per currency. */
export interface Statement {
  accountId: string
  accountName: string
  environment: Environment
  month: string
  seller: InvoiceSeller
  documents: InvoiceSummary[]
  totals: StatementTotals[]
  /**
   * A prepaid account's Live statement: what the month recorded as owed on the invoice (docs/billing.md#releasing-
   * an-order-held-for-payment), to collect with this statement, and its total per currency. Absent elsewhere.
   */
  owed?: { lines: StatementOwedLine[]; totals: { currency: string; amount: string }[] }
}

/** The owed lines' totals per currency, in currency order. */
export function owedTotals(lines: readonly StatementOwedLine[]): { currency: string; amount: string }[] {
  const byCurrency = new Map<string, bigint>()
  for (const line of lines) byCurrency.set(line.currency, (byCurrency.get(line.currency) ?? 0n) + line.amountMinor)
  return [...byCurrency.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, amount]) => ({ currency, amount: formatMinorAsAmount(amount) }))
}

export function statementTotals(documents: readonly InvoiceSummary[]): StatementTotals[] {
  const byCurrency = new Map<string, { invoiced: bigint; credited: bigint; tax: bigint }>()
  for (const document of documents) {
    const totals = byCurrency.get(document.currency) ?? { invoiced: 0n, credited: 0n, tax: 0n }
    if (document.kind === 'Invoice') totals.invoiced += document.totalCostMinor
    else totals.credited += document.totalCostMinor
    totals.tax += document.totalTaxMinor
    byCurrency.set(document.currency, totals)
  }
  return [...byCurrency.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, totals]) => ({
      currency,
      invoiced: formatMinorAsAmount(totals.invoiced),
      credited: formatMinorAsAmount(totals.credited),
      tax: formatMinorAsAmount(totals.tax),
      net: formatMinorAsAmount(totals.invoiced + totals.credited),
    }))
}

function csvField(value: string): string {
  // A cell starting with =, + or @ would run as a formula in a spreadsheet (merchant-chosen text never reaches
  // a statement, but a seller name might one day): such a cell is prefixed with a quote. Negative amounts stay.
  const guarded = /^[=+@]/.test(value) ? `'${value}` : value
  return /[",\n\r]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded
}

/**
 * The statement as CSV (RFC 4180, CRLF): one row per document, then one `Total` row per currency. Amounts are
 * decimal strings, credit notes negative. A prepaid account's statement with amounts owed on the invoice then has one
 * `Owed` row per amount (its order, the refund's charge if any, the amount owed) and one `Owed total` per currency.
 */
export function statementCsv(statement: Statement): string {
  const rows: string[][] = [
    ['number', 'kind', 'issuedAt', 'orderId', 'chargeId', 'currency', 'totalCost', 'totalTax'],
    ...statement.documents.map((document) => [
      document.number,
      document.kind,
      document.issuedAt.toISOString(),
      `ord_${document.orderNumber}`,
      document.chargeId,
      document.currency,
      formatMinorAsAmount(document.totalCostMinor),
      formatMinorAsAmount(document.totalTaxMinor),
    ]),
    ...statement.totals.map((totals) => ['Total', '', '', '', '', totals.currency, totals.net, totals.tax]),
    ...(statement.owed?.lines ?? []).map((line) => [
      '',
      'Owed',
      line.recordedAt.toISOString(),
      line.orderId,
      line.chargeId ?? '',
      line.currency,
      formatMinorAsAmount(line.amountMinor),
      '',
    ]),
    ...(statement.owed?.totals ?? []).map((total) => ['Owed total', '', '', '', '', total.currency, total.amount, '']),
  ]
  return `${rows.map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`
}

/** The words every Sandbox document carries on every page. */
export const SANDBOX_MARK = 'Sandbox - not a bill'

/**
 * The file key a document's PDF link signs (domain/signed-urls.ts): `/files/invoices/<number>.pdf` is answered
 * by the invoices' own route, which draws the PDF; no stored file has a key under `invoices/`.
 */
export const INVOICE_PDF_KEY_PREFIX = 'invoices/'

export function invoicePdfKey(number: string): string {
  return `${INVOICE_PDF_KEY_PREFIX}${number}.pdf`
}
