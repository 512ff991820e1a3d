// The operator console's sections, declared once: services/operator/console-sections.ts implements them over the
// operator's actions (services/operator/), the console's pages (web/operator/<section>.pages.ts) name them as
// what they need, and app/web.ts hands the one to the other. The views they carry live in domain/ too
// (admin-views.ts, accounts.ts, catalogue-versions.ts, lab-keys.ts, invoices.ts, audit.ts).
import type { Account, ApiKeyView } from './accounts.ts'
import type {
  AdminChannelRow,
  AdminLabRow,
  AdminOrderQuery,
  AdminOrderRow,
  ConsoleCatalogueRefusal,
  ConsoleLedgerEntry,
  FailingCallbackEndpoint,
  FailingLabEndpoint,
  FailingWebhookEndpoint,
  LabRefusal,
} from './admin-views.ts'
import type { AttentionReason, AttentionRow } from './attention.ts'
import type { AuditActor, AuditPage, AuditQuery } from './audit.ts'
import type { CatalogueDiff } from './catalogue-diff.ts'
import type { CatalogueImport, CatalogueVersionView } from './catalogue-versions.ts'
import type { ClaimDetail, ClaimResolutionResult, ClaimSummary } from './claim-resolution.ts'
import type { ClaimCategoryName, ClaimStatus } from './claims.ts'
import type { Environment } from './environment.ts'
import type { InvoiceSeller, InvoiceSummary } from './invoices.ts'
import type { LabKeyView } from './lab-keys.ts'
import type { LabStatementSummary } from './lab-statements.ts'
import type { OrderMarginView, RevenueQuery, RevenueReportView } from './revenue.ts'
import type { MovableShipment, ShipmentMoveResult } from './shipment-move.ts'

/** An account's (or an order's) card payments through the payment provider, as the console shows them: read-only. */
export interface ConsoleCardPayments {
  /** The card saved for off-session charges; null when none is saved (always null for an order). */
  cardOnFile: {
    brand: string | null
    last4: string | null
    /** `MM/YYYY`, null when the provider did not say. */
    expiry: string | null
    savedAt: string | null
  } | null
  /** Newest first (an order's: oldest first). Amounts as the API writes money (`12.50`). */
  payments: {
    purpose: string
    amount: string | null
    currency: string | null
    status: string
    refunded: string
    at: string
    orderId: string | null
    paymentId: string | null
  }[]
  refunds: {
    amount: string
    currency: string
    status: string
    at: string
    orderId: string | null
    reason: string | null
    failure: string | null
  }[]
  disputes: {
    disputeId: string
    amount: string
    currency: string
    reason: string
    status: string
    openedAt: string
    closedAt: string | null
    orderId: string | null
  }[]
}

/**
 * The accounts section. Refusals the operator can fix (a name, an unknown key) are thrown as ServiceError with a
 * message that says why; a top-up's refusals as OperatorRefusal (domain/operator-refusal.ts), which the page words.
 */
export interface ConsoleAccounts {
  /** Every account. */
  listAccounts(): Promise<Account[]>
  /** Undefined for an account that does not exist (or an ID that is not an account's). */
  getAccount(accountId: string): Promise<Account | undefined>
  /** Creates an account (no pause window, no callback URL) with one key per environment, shown this once. */
  createAccount(
    input: { name: string; billingCurrency: string; billingMode: 'invoice' | 'prepaid' },
    actor: AuditActor,
  ): Promise<{ account: Account; keys: Record<Environment, string> }>
  /** An account's keys, as listings show them. */
  listKeys(accountId: string): Promise<ApiKeyView[]>
  /** A new key of the account for one environment, shown this once. */
  createKey(accountId: string, environment: Environment, actor: AuditActor): Promise<{ key: string; prefix: string }>
  /** Revokes one of this account's active keys: another account's prefix is not found. */
  revokeKey(accountId: string, prefix: string, actor: AuditActor): Promise<void>
  /** Adds to a prepaid balance and releases the orders it now pays for. */
  topUp(
    accountId: string,
    amount: string,
    reference: string | null,
    actor: AuditActor,
  ): Promise<{ balance: string; currency: string; releasedOrderIds: string[] }>
  /** Suspends an account: its keys answer 403, its dashboard sessions end. */
  suspend(accountId: string, reason: string | null, actor: AuditActor): Promise<Account>
  /** Lifts an account's suspension. */
  reactivate(accountId: string, actor: AuditActor): Promise<Account>
  /** The active catalogue's price lists (docs/billing.md#price-lists), and its default list's name if it has one. */
  priceLists(): Promise<{ names: string[]; defaultList: string | null }>
  /** Sets the account's price list: a list of the active catalogue, or `default`. */
  setPriceList(accountId: string, list: string, actor: AuditActor): Promise<Account>
  /**
   * Edits the account's name, billing mode, currency, price list and credit limit, as `printroute accounts edit` does
   * (docs/admin.md#editing-an-account); a refusal is an OperatorRefusal, which the page words.
   */
  editAccount(
    accountId: string,
    edit: {
      name: string
      billingMode: string
      billingCurrency: string
      priceList: string
      creditLimit: string
      expectedVersion: string
    },
    actor: AuditActor,
  ): Promise<Account>
  /** What an invoice account owes on its Live invoices (its billing currency); null for a prepaid account. */
  openAmount(accountId: string): Promise<string | null>
  /** The account's latest money movements, newest first, at most `limit`. */
  recentLedger(accountId: string, limit: number): Promise<ConsoleLedgerEntry[]>
  /**
   * The account's card on file, latest card payments through the payment provider, refunds to the card and disputes
   * (docs/admin.md#payments); absent when the console has no such source.
   */
  cardPayments?(accountId: string): Promise<ConsoleCardPayments>
  /** Each environment's settings as `printroute accounts update` shows and changes them. */
  settings(accountId: string): Promise<Record<Environment, ConsoleAccountSettings>>
  /**
   * Changes the account's settings in each environment of `environments` (both when absent), as `printroute
   * accounts update` does; `problems` names each field refused (nothing changed then).
   */
  updateSettings(
    accountId: string,
    change: ConsoleAccountSettingsChange,
    environments: Environment[] | undefined,
    actor: AuditActor,
  ): Promise<{ problems: Record<string, string> } | { changed: true }>
}

/** One environment's settings of an account as the console shows them. */
export interface ConsoleAccountSettings {
  callbackUrl: string | null
  pauseWindowSeconds: number
  addressValidation: string
  callbackEvents: string
  /** Sandbox only. */
  sandboxScenario?: string | null
}

/** A change of an account's settings from the console's form: only the fields given change. */
export interface ConsoleAccountSettingsChange {
  callbackUrl?: string | null
  pauseWindowSeconds?: number
  addressValidation?: string
  callbackEvents?: string
  sandboxScenario?: string | null
}

/** The console's operators section: who may sign in to the console. */
export interface ConsoleOperators {
  /** Every operator, revoked ones included. */
  list(): Promise<ConsoleOperator[]>
  /** A new operator and its token, shown this once; a refused name is a ServiceError saying why. */
  create(name: string, actor: AuditActor): Promise<{ operator: ConsoleOperator; token: string }>
  /** Revokes an operator: its token stops working, its sessions end; an unknown one is a ServiceError. */
  revoke(operatorId: string, actor: AuditActor): Promise<ConsoleOperator>
}

/** An operator as the console lists it: never its token. */
export interface ConsoleOperator {
  id: string
  name: string
  prefix: string
  created: string
  revoked: string | null
}

/** The invoices list's filter. */
export interface InvoiceListFilter {
  accountId?: number
  environment?: Environment
  /** `YYYY-MM`, UTC. */
  month?: string
}

/** A file to download: its name, type and bytes. */
export interface DownloadFile {
  fileName: string
  contentType: 'text/csv' | 'application/pdf'
  body: Uint8Array | string
}

/** The invoices section. */
export interface ConsoleInvoices {
  /** The seller documents are issued with, and whether the operator has set one. */
  seller(): Promise<{ seller: InvoiceSeller; configured: boolean }>
  /** Sets the seller for documents issued from now on, as `printroute invoices seller` does; audited. */
  setSeller(
    seller: InvoiceSeller,
    actor: AuditActor,
  ): Promise<{ problems: Record<string, string> } | { seller: InvoiceSeller }>
  /** Documents matching the filter, newest first, at most `limit`. */
  list(filter: InvoiceListFilter, limit: number): Promise<InvoiceSummary[]>
  /** A document's PDF; undefined for an unknown number. */
  invoicePdf(number: string): Promise<Uint8Array | undefined>
  /** An account's statement of a month as a file; undefined when there is no such account. */
  statement(
    accountId: number,
    environment: Environment,
    month: string,
    format: 'csv' | 'pdf',
  ): Promise<DownloadFile | undefined>
}

/** The catalogue section. */
export interface ConsoleCatalogue {
  /** Every version, oldest first. */
  list(): Promise<CatalogueVersionView[]>
  /** The version this process serves now (it follows the active one within a poll). */
  servedVersion(): number
  /** What changed from one version to another. */
  diff(from: number, to: number): Promise<CatalogueDiff | ConsoleCatalogueRefusal>
  /** Makes a stored version the active one; the version active before. */
  activate(
    version: number,
    actor: AuditActor,
  ): Promise<{ version: number; previous: number | null; warnings?: string[] } | ConsoleCatalogueRefusal>
  /** What activating the version would warn about (accounts whose own price list it does not have). */
  activationWarnings(version: number): Promise<string[] | ConsoleCatalogueRefusal>
  /** Validates and stores a catalogue file's text as a version; `activate`: makes it active. */
  import(
    content: string,
    sourceName: string,
    actor: AuditActor,
    options: { activate: boolean },
  ): Promise<CatalogueImport | ConsoleCatalogueRefusal>
}

/** The labs section. */
export interface ConsoleLabs {
  listLabs(): Promise<AdminLabRow[]>
  /** Pauses or resumes a catalogue lab; whether it was paused before; null for a lab the catalogue does not have. */
  setPaused(labCode: string, paused: boolean, actor: AuditActor): Promise<{ wasPaused: boolean } | null>
  /** A lab's keys, newest first; null for a lab the catalogue does not have. */
  listKeys(labCode: string): Promise<LabKeyView[] | null>
  /** A new key for the lab, shown this once. */
  createKey(labCode: string, actor: AuditActor): Promise<{ key: string; created: LabKeyView } | LabRefusal>
  /** A new key; the lab's other working keys work on for `overlapSeconds` (0: they stop now). */
  rotateKeys(
    labCode: string,
    overlapSeconds: number,
    actor: AuditActor,
  ): Promise<{ key: string; created: LabKeyView; replaced: LabKeyView[] } | LabRefusal>
  /** Revokes a lab's key (`lbk_N`): refused from its next lab API call, its portal sessions end now. */
  revokeKey(
    labCode: string,
    keyId: string,
    actor: AuditActor,
  ): Promise<{ key: LabKeyView; wasRevoked: boolean; sessionsEnded: number } | LabRefusal>
  /** The lab's payables statements, newest month first (docs/billing.md#lab-payables-statements). */
  listStatements(labCode: string): Promise<LabStatementSummary[]>
  /** Issues the lab's statement of an ended month (audited as `actor`'s), or finds the one issued; a refusal in words. */
  issueStatement(
    labCode: string,
    month: string,
    actor: AuditActor,
  ): Promise<{ number: string; issued: boolean } | LabRefusal>
  /** One of the lab's statements as a file; undefined for a number the lab has none of. */
  statementFile(
    labCode: string,
    number: string,
    format: 'pdf' | 'csv',
  ): Promise<{ fileName: string; contentType: string; body: Uint8Array | string } | undefined>
}

/** The audit section: one page of the trail, filtered. */
export interface ConsoleAudit {
  list(query: AuditQuery): Promise<AuditPage>
}

/** The revenue section (docs/admin.md#revenue), and each order's margin on its page. */
export interface ConsoleRevenue {
  /** The report of a query; refused (its reason) when the range holds more rows than a report reads. */
  report(query: RevenueQuery): Promise<RevenueReportView | { refused: string }>
  /** An order's hand-offs with their price, lab cost and margin; null for a text that is no order ID. */
  orderMargin(orderId: string): Promise<OrderMarginView | null>
}

/** The callbacks health section. */
export interface ConsoleCallbacks {
  /** Each list the longest failing first, at most the page's limit. */
  listFailingEndpoints(): Promise<{
    callbacks: FailingCallbackEndpoint[]
    labs: FailingLabEndpoint[]
    webhooks: FailingWebhookEndpoint[]
  }>
}

/** The channels section (docs/admin.md#channels): every account's storefront channels, read-only. */
export interface ConsoleChannels {
  /** The channels of every account (or of one: `accountId`), failing first, then oldest first; at most `limit`. */
  listChannels(query: { accountId: string | null; limit: number }): Promise<AdminChannelRow[]>
}

/**
 * An order of any account as the console's order page shows it. `View` is the merchant's order page's view: the
 * page names its own (web/kit/order-view.ts, over the wire contract's types), the service the services' views
 * that have the same shape; the rest is declared here once.
 */
export interface ConsoleOrderDetail<View> {
  account: { id: string; name: string }
  environment: Environment
  /** ISO instant while the order waits in its account's pause window (the merchant cannot read it yet). */
  onHoldUntil: string | null
  view: View
}

/** The orders section. */
export interface ConsoleOrders<View> {
  listOrders(query: AdminOrderQuery): Promise<{ orders: AdminOrderRow[]; hasMore: boolean }>
  /** The order of any account with everything its page shows; null when there is no such order. */
  readOrder(orderId: string): Promise<ConsoleOrderDetail<View> | null>
  /** A page thumbnail (PNG) of an order asset's PDF, as its merchant's API serves it; null when there is none. */
  readAssetThumbnail(orderId: string, assetId: string, page: number): Promise<Buffer | null>
}

/**
 * The order page's move of a shipment to another lab (docs/admin.md#moving-a-shipment-to-another-lab): the labs
 * each shipment could go to, and the move. A refusal comes back as the field at fault and a sentence.
 */
export interface ConsoleShipmentMoves {
  /** The order's shipments with the labs each could move to; undefined when there is no such order. */
  choices(orderId: string): Promise<MovableShipment[] | undefined>
  move(
    input: { shipmentId: string; labCode: string; reason: string },
    actor: AuditActor,
  ): Promise<ShipmentMoveResult | { refused: string; field: 'shipment' | 'lab' | 'reason' }>
}

/** The "needs attention" queue (docs/admin.md#needs-attention). */
export interface ConsoleAttention {
  list(query: { skip: number; reason: AttentionReason | null }): Promise<{
    rows: AttentionRow[]
    skip: number
    hasMore: boolean
    counts: Record<AttentionReason, number>
    total: number
    capped: boolean
  }>
  /** How many rows the queue has (the navigation's badge; may be up to a minute old). */
  count(): Promise<number>
}

/** An operator's note on an order, as the order's page shows it. */
export interface ConsoleOrderNote {
  id: string
  at: string
  /** The author as the audit trail names actors: `operator opr_2 (Dana)`, `command line (ops@host)`. */
  author: string
  text: string
}

/** What an order action is given by its form: why, and the order's version as the page showed it. */
export interface ConsoleOrderActionForm {
  reason: string
  version: string
}

/**
 * The operator's actions on one order (docs/admin.md#acting-on-an-order), on the order's page. A refusal is an
 * OperatorRefusal (domain/operator-refusal.ts), which the page words; among them `order/changed`, when another
 * action reached the order after the page was read.
 */
export interface ConsoleOrderActions {
  /** The order's version now, for the forms; undefined for no order. */
  version(orderId: string): Promise<string | undefined>
  notes(orderId: string): Promise<ConsoleOrderNote[]>
  cancel(orderId: string, form: ConsoleOrderActionForm, actor: AuditActor): Promise<{ outcome: string; stage: string }>
  refund(
    orderId: string,
    form: ConsoleOrderActionForm & { amount: string; charge: string },
    actor: AuditActor,
  ): Promise<{ amount: string; currency: string; chargeId: string; creditNote: string | null }>
  retryDownload(
    orderId: string,
    form: ConsoleOrderActionForm & { asset: string },
    actor: AuditActor,
  ): Promise<{ assetIds: string[] }>
  release(
    orderId: string,
    form: ConsoleOrderActionForm,
    actor: AuditActor,
  ): Promise<{
    payment: 'paidFromBalance' | 'owedOnInvoice' | 'onCredit' | 'waived' | null
    amount: string | null
    currency: string | null
    pauseWindow: boolean
  }>
  addNote(orderId: string, text: string, actor: AuditActor): Promise<ConsoleOrderNote>
}

/** What a claim's decision is given by its form: the decision, the note, an amount, the claim's version as shown. */
export interface ConsoleClaimDecisionForm {
  resolution: string
  note: string
  amount: string
  version: string
}

/** The console's claims queue's filters and cursor (null: not filtered, the first page). */
export interface ConsoleClaimsQuery {
  status: ClaimStatus | null
  category: ClaimCategoryName | null
  labCode: string | null
  /** The last claim of the page before, and whether it was Pending when that page was read. */
  after: { claimId: string; pending: boolean } | null
}

/**
 * The claims section (docs/admin.md#claims): the queue, one claim with its photos, and the four decisions. A
 * refusal is an OperatorRefusal (domain/operator-refusal.ts), which the page words; among them `claim/changed` and
 * `claim/not-pending`, when another decision reached the claim after the page was read.
 */
export interface ConsoleClaims {
  /** A page of claims, Pending first then oldest first, after the cursor when given; the filters given only. */
  list(query: ConsoleClaimsQuery, pageSize: number): Promise<{ claims: ClaimSummary[]; hasMore: boolean }>
  /** One claim; null for a text that is no claim's ID. */
  read(claimId: string): Promise<ClaimDetail | null>
  /** A photo of a claim (the merchant's or the lab's); null for one that is no claim's. */
  photo(evidenceId: string): Promise<{ contentType: string; bytes: Buffer } | null>
  decide(claimId: string, form: ConsoleClaimDecisionForm, actor: AuditActor): Promise<ClaimResolutionResult>
}
