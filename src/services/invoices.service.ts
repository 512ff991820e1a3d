// Invoices and credit notes (docs/billing.md#invoices): every charge gets its document in the charge's own
// transaction (the billing service calls `issueForCharge` under the order's lock), numbered gaplessly in its
// series, its content fixed at issue. Merchants list their order's documents with signed PDF links; the operator
// lists them across accounts, sets the seller printed on them, and takes an account's monthly statement.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { AuditActor } from '../domain/audit.ts'
import type { ChargeLineDraft } from '../domain/charges.ts'
import type { Environment } from '../domain/environment.ts'
import { formatId } from '../domain/ids.ts'
import {
  buildInvoiceContent,
  defaultSeller,
  formatInvoiceNumber,
  type InvoiceContent,
  type InvoiceKind,
  type InvoiceSeller,
  type InvoiceSummary,
  invoiceKindOf,
  invoiceSeriesOf,
  isInvoiceNumber,
  owedTotals,
  parseStatementMonth,
  type Statement,
  type StatementOwedLine,
  type StatementTotals,
  sellerProblems,
  statementTotals,
  type TaxRateOfLine,
} from '../domain/invoices.ts'
import { formatMinorAsAmount, parseAmountToMinor } from '../domain/money.ts'
import type { Charge } from '../domain/order.ts'
import { ServiceError } from '../domain/outcomes.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { findAccount, readAccountBilling } from '../repositories/accounts.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import {
  DISPUTE_ENTRIES,
  type LedgerEntryKind,
  listInvoiceEntries,
  OWED_ENTRIES,
} from '../repositories/billing.repository.ts'
import {
  drawInvoiceSequence,
  type InvoiceFilter,
  insertInvoice,
  listInvoices,
  listInvoicesOfOrder,
  openAmountOfAccount,
  owedOnInvoiceOfAccount,
  readInvoiceContent,
} from '../repositories/invoices.repository.ts'
import { readSetting, writeSetting } from '../repositories/settings.repository.ts'
import type { Caller } from './accounts.service.ts'
import { findCallersOrder } from './orders.service.ts'

/** The settings row holding the seller (JSON of InvoiceSeller). */
const SELLER_SETTING = 'invoice-seller'

/** Most documents one listing or statement holds (a month of one account: far more than any shop issues). */
export const INVOICE_LIST_LIMIT = 10_000

/** A document as the merchant API lists it (amounts as the charges write them). */
export interface InvoiceView {
  number: string
  kind: InvoiceKind
  chargeId: string
  issuedAt: string
  environment: Environment
  currency: string
  totalCost: { amount: string; currency: string }
  totalTax: { amount: string; currency: string }
  pdfUrl: string
}

/** An amount as the API writes money. */
interface MoneyView {
  amount: string
  currency: string
}

/**
 * The caller's account's billing as GET /v4.0/account/billing shows it (docs/billing.md#the-merchants-billing).
 * Money is the Live environment's only: a Sandbox caller gets null for both amounts (Sandbox never bills).
 */
export interface AccountBillingView {
  environment: Environment
  billingMode: 'invoice' | 'prepaid'
  currency: string
  /** Prepaid accounts, Live: the balance. Null otherwise. */
  balance: MoneyView | null
  /**
   * Invoice accounts, Live: what the account owes, the net of its Live invoices less credit notes in its billing
   * currency (printroute records no payment of an invoice account's statements, so none is taken off). Null otherwise.
   */
  openAmount: MoneyView | null
  /** The catalogue price list the account buys on; null: the catalogue's default list. */
  priceList: string | null
  /**
   * Invoice accounts, Live: the most the open amount may reach before Live orders wait for payment
   * (docs/billing.md#credit-limits). Null otherwise, and when the account has no limit.
   */
  creditLimit: MoneyView | null
}

/** A document as the account's listing shows it: with the order it was issued for. */
export interface AccountInvoiceView extends InvoiceView {
  orderId: string
}

/** A month's statement of the caller's account as the merchant API shows it: its totals per currency. */
export interface AccountStatementView {
  month: string
  environment: Environment
  documentCount: number
  totals: StatementTotals[]
}

/** A page of the caller's account's documents, newest first. */
export interface AccountInvoicesQuery {
  top: number
  skip: number
  /** `YYYY-MM` (UTC): only that month's documents. */
  month?: string
}

export interface InvoicesService {
  /** Issues the document of `charge`, just made on `order` from `drafts`, in the charge's transaction; its number. */
  issueForCharge(
    tx: Queryable,
    order: PipelineOrder,
    charge: Charge,
    drafts: readonly ChargeLineDraft[],
  ): Promise<string>
  /** The documents of the caller's order, oldest first, each with a fresh signed PDF link. */
  listForOrder(caller: Caller, orderId: string): Promise<InvoiceView[]>
  /** The caller's account's billing: mode, currency, balance or what it owes, price list. */
  accountBilling(caller: Caller): Promise<AccountBillingView>
  /**
   * The caller's environment's documents of its account, newest first, each with a fresh signed PDF link; one more
   * than `top` is read to tell whether another page follows.
   */
  listForAccount(
    caller: Caller,
    query: AccountInvoicesQuery,
  ): Promise<{ invoices: AccountInvoiceView[]; hasMore: boolean }>
  /** The caller's environment's statement of one month (`YYYY-MM`, UTC): what the operator's statement totals. */
  accountStatement(caller: Caller, month: string): Promise<AccountStatementView>
  /** A document's PDF, drawn from what was fixed at issue; undefined for an unknown number. */
  pdfOf(number: string): Promise<{ content: InvoiceContent; pdf: Uint8Array } | undefined>
  /** Documents across accounts, newest first (the console). */
  list(filter: Omit<InvoiceFilter, 'limit' | 'oldestFirst'> & { limit?: number }): Promise<InvoiceSummary[]>
  /** An account's documents of one month (`YYYY-MM`, UTC) in one environment, with totals per currency. */
  statement(accountId: number, environment: Environment, month: string): Promise<Statement>
  /** The statement as a PDF. */
  statementPdf(statement: Statement): Promise<Uint8Array>
  /** The seller documents are issued with, and whether the operator has set one. */
  seller(): Promise<{ seller: InvoiceSeller; configured: boolean }>
  /**
   * Whether the operator has set the seller, for the console's banner on every page, read from this process's
   * memory where it can be (docs/billing.md#the-seller): once set it stays set (a seller is replaced, never
   * removed), so `true` is kept for good; `false` is read again at most every SELLER_UNSET_RECHECK_MS. A seller set
   * through this service (the console, or a command over the admin channel) is known at once.
   */
  sellerConfigured(): Promise<boolean>
  /** Sets the seller for documents issued from now on (issued ones keep theirs); refuses a bad one. */
  setSeller(
    seller: InvoiceSeller,
    actor: AuditActor,
  ): Promise<{ problems: Record<string, string> } | { seller: InvoiceSeller }>
}

export interface InvoicesDeps {
  db: Database
  clock: Clock
  /** The tax rate of a destination country, as the active catalogue lists it. */
  taxRateOf: (countryCode: string) => TaxRateOfLine
  /** What names this instance when no seller is set (its Live address). */
  instanceName: () => string
  /** A signed, expiring absolute link to a document's PDF, valid on its environment's address. */
  pdfLink: (environment: Environment, number: string) => string
  renderInvoicePdf: (content: InvoiceContent) => Promise<Uint8Array>
  renderStatementPdf: (statement: Statement) => Promise<Uint8Array>
}

/**
 * How long the console trusts "no seller set" before reading the setting again: what a seller set by another
 * process (a command run against PostgreSQL while `serve` runs) may take to take the banner away.
 */
export const SELLER_UNSET_RECHECK_MS = 5_000

export function createInvoicesService(deps: InvoicesDeps): InvoicesService {
  // The seller's "set" fact in this process: true for good once seen; false with when it was read.
  let sellerKnownSet = false
  let sellerUnsetReadAt: number | null = null
  return {
    issueForCharge: (tx, order, charge, drafts) => issueForCharge(deps, tx, order, charge, drafts),
    async listForOrder(caller, orderId) {
      const order = await findCallersOrder(deps.db, caller, orderId)
      const documents = await listInvoicesOfOrder(deps.db, order.orderNumber)
      return documents.map((document) => toView(deps, document))
    },
    accountBilling: (caller) => accountBilling(deps, caller),
    async listForAccount(caller, query) {
      const range = query.month === undefined ? undefined : parseStatementMonth(query.month)
      if (query.month !== undefined && !range) {
        throw new ServiceError('ValidationFailed', `month must be YYYY-MM, got "${query.month}"`)
      }
      const documents = await listInvoices(deps.db, {
        accountId: caller.accountId,
        environment: caller.environment,
        ...(range ? { from: range.from, to: range.to } : {}),
        limit: query.top + 1,
        offset: query.skip,
      })
      return {
        invoices: documents
          .slice(0, query.top)
          .map((document) => ({ ...toView(deps, document), orderId: formatId('ord', document.orderNumber) })),
        hasMore: documents.length > query.top,
      }
    },
    async accountStatement(caller, month) {
      const made = await statement(deps, caller.accountId, caller.environment, month)
      return { month, environment: caller.environment, documentCount: made.documents.length, totals: made.totals }
    },
    async pdfOf(number) {
      if (!isInvoiceNumber(number)) return undefined
      const content = await readInvoiceContent(deps.db, number)
      return content ? { content, pdf: await deps.renderInvoicePdf(content) } : undefined
    },
    list: (filter) => listInvoices(deps.db, { ...filter, limit: Math.min(filter.limit ?? 200, INVOICE_LIST_LIMIT) }),
    statement: (accountId, environment, month) => statement(deps, accountId, environment, month),
    statementPdf: (made) => deps.renderStatementPdf(made),
    seller: () => readSeller(deps, deps.db),
    async sellerConfigured() {
      if (sellerKnownSet) return true
      const now = deps.clock.now().getTime()
      if (sellerUnsetReadAt !== null && now - sellerUnsetReadAt < SELLER_UNSET_RECHECK_MS) return false
      const { configured } = await readSeller(deps, deps.db)
      if (configured) sellerKnownSet = true
      else sellerUnsetReadAt = now
      return configured
    },
    async setSeller(seller, actor) {
      const result = await setSeller(deps, seller, actor)
      if ('seller' in result) sellerKnownSet = true
      return result
    },
  }
}

async function readSeller(deps: InvoicesDeps, db: Queryable): Promise<{ seller: InvoiceSeller; configured: boolean }> {
  const stored = await readSetting(db, SELLER_SETTING)
  if (stored === undefined) return { seller: defaultSeller(deps.instanceName()), configured: false }
  return { seller: JSON.parse(stored) as InvoiceSeller, configured: true }
}

async function accountBilling(deps: InvoicesDeps, caller: Caller): Promise<AccountBillingView> {
  const billing = await readAccountBilling(deps.db, caller.accountId)
  if (!billing) throw new ServiceError('EntityNotFound', `No account acc_${caller.accountId}`)
  const money = (minor: bigint): MoneyView => ({
    amount: formatMinorAsAmount(minor),
    currency: billing.billingCurrency,
  })
  const live = caller.environment === 'live'
  // Every Live charge is in the account's currency (an order locked by a quote takes the quote's, which was the
  // account's), and the currency changes only when nothing is open in the old one (docs/admin.md#editing-an-account):
  // that currency's documents are the whole.
  const invoiced = live && billing.billingMode === 'invoice'
  // A prepaid account owes on its invoice only what an operator released unpaid.
  const owed = !live
    ? undefined
    : invoiced
      ? await openAmountOfAccount(deps.db, caller.accountId, billing.billingCurrency)
      : await owedOnInvoiceOfAccount(deps.db, caller.accountId, billing.billingCurrency)
  return {
    environment: caller.environment,
    billingMode: billing.billingMode,
    currency: billing.billingCurrency,
    balance: live && billing.billingMode === 'prepaid' ? money(billing.balanceMinor) : null,
    openAmount: owed === undefined ? null : money(owed),
    priceList: billing.priceList,
    creditLimit: invoiced && billing.creditLimitMinor !== null ? money(billing.creditLimitMinor) : null,
  }
}

async function issueForCharge(
  deps: InvoicesDeps,
  tx: Queryable,
  order: PipelineOrder,
  charge: Charge,
  drafts: readonly ChargeLineDraft[],
): Promise<string> {
  const kind = invoiceKindOf(charge)
  const series = invoiceSeriesOf(kind, order.environment)
  // Everything is read before the counter is taken: its row lock is held until commit, so the time between
  // the number and the end of the transaction is what concurrent charges wait for.
  const account = await findAccount(tx, order.accountId)
  if (!account) throw new Error(`order ${order.document.id} has no account`)
  const { seller } = await readSeller(deps, tx)
  const credits =
    kind === 'CreditNote'
      ? (await listInvoicesOfOrder(tx, order.orderNumber))
          .filter((document) => document.kind === 'Invoice')
          .map((document) => document.number)
      : []
  const issuedAt = deps.clock.now()
  const sequence = await drawInvoiceSequence(tx, series)
  const number = formatInvoiceNumber(series, sequence)
  const content = buildInvoiceContent({
    number,
    environment: order.environment,
    issuedAt,
    seller,
    buyer: { accountId: `acc_${account.id}`, name: account.name },
    order: order.document,
    charge,
    drafts,
    taxRate: deps.taxRateOf(order.document.recipient.address.countryCode),
    credits,
  })
  const totalCostMinor = parseAmountToMinor(charge.totalCost.amount) ?? 0n
  const totalTaxMinor = parseAmountToMinor(charge.totalTax.amount) ?? 0n
  await insertInvoice(tx, {
    series,
    sequence,
    accountId: order.accountId,
    orderNumber: order.orderNumber,
    totalCostMinor,
    totalTaxMinor,
    content,
  })
  await appendAuditEvent(
    tx,
    {
      actor: { kind: 'system' },
      action: kind === 'Invoice' ? 'invoice.issued' : 'creditNote.issued',
      accountId: order.accountId,
      environment: order.environment,
      target: number,
      after: {
        orderId: order.document.id,
        chargeId: charge.id,
        totalCost: charge.totalCost,
        totalTax: charge.totalTax,
        ...(credits.length > 0 ? { credits } : {}),
      },
    },
    issuedAt,
  )
  return number
}

function toView(deps: InvoicesDeps, document: InvoiceSummary): InvoiceView {
  const money = (minor: bigint) => ({ amount: formatMinorAsAmount(minor), currency: document.currency })
  return {
    number: document.number,
    kind: document.kind,
    chargeId: document.chargeId,
    issuedAt: document.issuedAt.toISOString(),
    environment: document.environment,
    currency: document.currency,
    totalCost: money(document.totalCostMinor),
    totalTax: money(document.totalTaxMinor),
    pdfUrl: deps.pdfLink(document.environment, document.number),
  }
}

async function statement(
  deps: InvoicesDeps,
  accountId: number,
  environment: Environment,
  month: string,
): Promise<Statement> {
  const range = parseStatementMonth(month)
  if (!range) throw new ServiceError('ValidationFailed', `month must be YYYY-MM, got "${month}"`)
  const account = await findAccount(deps.db, accountId)
  if (!account) throw new ServiceError('EntityNotFound', `No account acc_${accountId}`)
  const documents = await listInvoices(deps.db, {
    accountId,
    environment,
    from: range.from,
    to: range.to,
    oldestFirst: true,
    limit: INVOICE_LIST_LIMIT + 1,
  })
  // A statement cut short would show wrong totals: refused instead.
  if (documents.length > INVOICE_LIST_LIMIT) {
    throw new ServiceError(
      'ValidationFailed',
      `month: more than ${INVOICE_LIST_LIMIT} documents, too many for one statement`,
    )
  }
  // A prepaid account pays from its balance; what an operator's release left owed instead, and a disputed card
  // payment, is collected here. An invoice account's statement lists its disputed card payments (its documents
  // already say what it owes for its orders).
  const owed =
    environment === 'live'
      ? await owedOnStatement(
          deps.db,
          account.id,
          range,
          account.billingMode === 'prepaid' ? OWED_ENTRIES : DISPUTE_ENTRIES,
        )
      : undefined
  return {
    accountId: `acc_${account.id}`,
    accountName: account.name,
    environment,
    month,
    seller: (await readSeller(deps, deps.db)).seller,
    documents,
    totals: statementTotals(documents),
    ...(owed && owed.lines.length > 0 ? { owed } : {}),
  }
}

async function owedOnStatement(
  db: Queryable,
  accountId: number,
  range: { from: Date; to: Date },
  kinds: readonly LedgerEntryKind[],
): Promise<NonNullable<Statement['owed']>> {
  const entries = await listInvoiceEntries(db, accountId, range, INVOICE_LIST_LIMIT + 1, kinds)
  if (entries.length > INVOICE_LIST_LIMIT) {
    throw new ServiceError(
      'ValidationFailed',
      `month: more than ${INVOICE_LIST_LIMIT} amounts owed on the invoice, too many for one statement`,
    )
  }
  const lines: StatementOwedLine[] = entries.map((entry) => ({
    orderId: entry.orderNumber === null ? '' : `ord_${entry.orderNumber}`,
    chargeId: entry.chargeId,
    recordedAt: entry.createdAt,
    currency: entry.currency,
    // The ledger signs as the account sees its money (a charge negative); owed is the other way round.
    amountMinor: -entry.amountMinor,
  }))
  return { lines, totals: owedTotals(lines) }
}

async function setSeller(
  deps: InvoicesDeps,
  given: InvoiceSeller,
  actor: AuditActor,
): Promise<{ problems: Record<string, string> } | { seller: InvoiceSeller }> {
  const seller: InvoiceSeller = {
    name: given.name.trim(),
    address: given.address.map((line) => line.trim()).filter((line) => line !== ''),
    taxNumber: given.taxNumber?.trim() || null,
    email: given.email?.trim() || null,
  }
  const problems = sellerProblems(seller)
  if (Object.keys(problems).length > 0) return { problems }
  await deps.db.transaction(async (tx) => {
    const before = await writeSetting(tx, SELLER_SETTING, JSON.stringify(seller))
    await appendAuditEvent(
      tx,
      {
        actor,
        action: 'invoice.sellerChanged',
        accountId: null,
        environment: null,
        target: 'invoice seller',
        before: before === undefined ? null : JSON.parse(before),
        after: seller,
      },
      deps.clock.now(),
    )
  })
  return { seller }
}
