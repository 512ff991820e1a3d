// SQL of invoices and credit notes (migrations/0020_invoices.sql): the gapless counter of each series, the
// issued documents, and the listings of them. A document is written once and never changed.
import type { Queryable } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'
import type { InvoiceContent, InvoiceKind, InvoiceSeries, InvoiceSummary } from '../domain/invoices.ts'

/**
 * The next number of `series`, counted in the caller's transaction: the row stays locked until it ends, so
 * concurrent charges (in any process) take numbers one after another, and a rollback gives the number back.
 */
export async function drawInvoiceSequence(tx: Queryable, series: InvoiceSeries): Promise<number> {
  const rows = await tx.query<{ last: string | number }>(
    'UPDATE invoice_counters SET last = last + 1 WHERE series = $1 RETURNING last',
    [series],
  )
  const row = rows[0]
  if (!row) throw new Error(`no invoice counter for series ${series}`)
  return Number(row.last)
}

export interface NewInvoice {
  series: InvoiceSeries
  sequence: number
  accountId: number
  orderNumber: number
  totalCostMinor: bigint
  totalTaxMinor: bigint
  content: InvoiceContent
}

export async function insertInvoice(tx: Queryable, invoice: NewInvoice): Promise<void> {
  const { content } = invoice
  await tx.query(
    `INSERT INTO invoices (number, series, sequence, kind, environment, account_id, order_id, charge_id, issued_at,
                           currency, total_cost_minor, total_tax_minor, content)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::bigint, $12::bigint, $13)`,
    [
      content.number,
      invoice.series,
      invoice.sequence,
      content.kind,
      content.environment,
      invoice.accountId,
      invoice.orderNumber,
      content.chargeId,
      new Date(content.issuedAt),
      content.currency,
      String(invoice.totalCostMinor),
      String(invoice.totalTaxMinor),
      JSON.stringify(content),
    ],
  )
}

interface StoredSummary {
  number: string
  kind: InvoiceKind
  environment: Environment
  accountId: string | number
  orderNumber: string | number
  chargeId: string
  issuedAt: Date
  currency: string
  totalCostMinor: string
  totalTaxMinor: string
}

const SUMMARY_COLUMNS = `number, kind, environment, account_id AS "accountId", order_id AS "orderNumber",
  charge_id AS "chargeId", issued_at AS "issuedAt", currency, total_cost_minor::text AS "totalCostMinor",
  total_tax_minor::text AS "totalTaxMinor"`

function toSummary(row: StoredSummary): InvoiceSummary {
  return {
    number: row.number,
    kind: row.kind,
    environment: row.environment,
    accountId: Number(row.accountId),
    orderNumber: Number(row.orderNumber),
    chargeId: row.chargeId,
    issuedAt: new Date(row.issuedAt),
    currency: row.currency,
    totalCostMinor: BigInt(row.totalCostMinor),
    totalTaxMinor: BigInt(row.totalTaxMinor),
  }
}

/** The documents of an order, in issue order. */
export async function listInvoicesOfOrder(db: Queryable, orderNumber: number): Promise<InvoiceSummary[]> {
  const rows = await db.query<StoredSummary>(
    `SELECT ${SUMMARY_COLUMNS} FROM invoices WHERE order_id = $1 ORDER BY issued_at, issue_order`,
    [orderNumber],
  )
  return rows.map(toSummary)
}

/** What a document shows, as fixed at issue; undefined for an unknown number. */
export async function readInvoiceContent(db: Queryable, number: string): Promise<InvoiceContent | undefined> {
  const rows = await db.query<{ content: string }>('SELECT content FROM invoices WHERE number = $1', [number])
  return rows[0] ? (JSON.parse(rows[0].content) as InvoiceContent) : undefined
}

/** Which documents to list: every filter optional; newest first. */
export interface InvoiceFilter {
  accountId?: number
  environment?: Environment
  from?: Date
  to?: Date
  /** Oldest first instead (a statement reads like a ledger). */
  oldestFirst?: boolean
  limit: number
  /** Documents to pass over first (a page after the first). */
  offset?: number
}

export async function listInvoices(db: Queryable, filter: InvoiceFilter): Promise<InvoiceSummary[]> {
  const conditions: string[] = []
  const params: unknown[] = []
  const add = (condition: string, value: unknown) => {
    params.push(value)
    conditions.push(condition.replace('?', `$${params.length}`))
  }
  if (filter.accountId !== undefined) add('account_id = ?', filter.accountId)
  if (filter.environment !== undefined) add('environment = ?', filter.environment)
  if (filter.from !== undefined) add('issued_at >= ?', filter.from)
  if (filter.to !== undefined) add('issued_at < ?', filter.to)
  params.push(filter.limit)
  const limitParam = params.length
  params.push(filter.offset ?? 0)
  const direction = filter.oldestFirst ? 'ASC' : 'DESC'
  const rows = await db.query<StoredSummary>(
    `SELECT ${SUMMARY_COLUMNS} FROM invoices ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
      ORDER BY issued_at ${direction}, issue_order ${direction} LIMIT $${limitParam} OFFSET $${params.length}`,
    params,
  )
  return rows.map(toSummary)
}

/**
 * What the account owes on its Live invoices in `currency` (docs/billing.md#the-merchants-billing): the net of its
 * invoices less credit notes, less what was paid for them through the balance (the ledger's balance charges net of
 * balance refunds: prepaid orders' charges, and a card payment of an invoice account's order held by its credit
 * limit). An account billed by invoice from the start and never held has no such entries: its open amount is the
 * net of its documents. A disputed card payment is owed again (`card-dispute`, negative) until a dispute won takes it
 * off (`card-dispute-won`), docs/billing.md#disputes. A refund to a card the provider refused is put back on the
 * balance by a `balance-refund` that pays nothing of an invoice (the refund's own `balance-refund` already counted):
 * left out. Reads the account's ledger too (a join: it answers about invoices, so it lives here).
 */
export async function openAmountOfAccount(db: Queryable, accountId: number, currency: string): Promise<bigint> {
  const rows = await db.query<{ total: string | null }>(
    `SELECT ((SELECT COALESCE(SUM(total_cost_minor), 0) FROM invoices
               WHERE account_id = $1 AND environment = 'live' AND currency = $2)
           + (SELECT COALESCE(SUM(amount_minor), 0) FROM account_ledger
               WHERE account_id = $1 AND currency = $2 AND entry IN ('balance-charge', 'balance-refund')
                 AND id NOT IN (SELECT reversal_entry_id FROM provider_refunds
                                 WHERE account_id = $1 AND reversal_entry_id IS NOT NULL))
           - (SELECT COALESCE(SUM(amount_minor), 0) FROM account_ledger
               WHERE account_id = $1 AND currency = $2 AND entry IN ('card-dispute', 'card-dispute-won')))::text AS total`,
    [accountId, currency],
  )
  return BigInt(rows[0]?.total ?? '0')
}

/**
 * What a prepaid account owes on its next invoice in `currency` (docs/billing.md#releasing-an-order-held-for-payment):
 * the orders an operator released unpaid (`invoice-charge`) less the refunds that reduced them (`invoice-refund`),
 * and the card payments disputed (`card-dispute`) less disputes won (`card-dispute-won`), as a positive amount; 0
 * when nothing was released unpaid or disputed.
 */
export async function owedOnInvoiceOfAccount(db: Queryable, accountId: number, currency: string): Promise<bigint> {
  const rows = await db.query<{ total: string | null }>(
    `SELECT (-COALESCE(SUM(amount_minor), 0))::text AS total FROM account_ledger
      WHERE account_id = $1 AND currency = $2
        AND entry IN ('invoice-charge', 'invoice-refund', 'card-dispute', 'card-dispute-won')`,
    [accountId, currency],
  )
  return BigInt(rows[0]?.total ?? '0')
}

/**
 * The net of an account's documents in one environment and currency: invoices less credit notes (a credit note's
 * total is negative), in minor units; 0 when there are none.
 */
export async function sumInvoicesOfAccount(
  db: Queryable,
  accountId: number,
  environment: Environment,
  currency: string,
): Promise<bigint> {
  const rows = await db.query<{ total: string | null }>(
    `SELECT COALESCE(SUM(total_cost_minor), 0)::text AS total FROM invoices
      WHERE account_id = $1 AND environment = $2 AND currency = $3`,
    [accountId, environment, currency],
  )
  return BigInt(rows[0]?.total ?? '0')
}
