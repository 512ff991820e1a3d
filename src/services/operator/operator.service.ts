// The operator's actions (docs/admin.md, docs/configuration.md): accounts, their keys, top-ups and suspension;
// lab keys, pauses and push settings; the invoices' seller and statements; catalogue versions; the audit trail;
// revenue and margin;
// the console's operators; one file per group, one function per action. The command line runs them through this
// face (cli/admin-operations.ts adds `migrate`), in its own process or in the serving process over the admin
// channel; the console's sections (console-sections.ts) call the same functions.

import type { Account, ApiKeyView } from '../../domain/accounts.ts'
import type { AuditPage } from '../../domain/audit.ts'
import type { CatalogueDiff } from '../../domain/catalogue-diff.ts'
import type { CatalogueImport, CatalogueVersionView } from '../../domain/catalogue-versions.ts'
import { ENVIRONMENTS, type Environment } from '../../domain/environment.ts'
import type { InvoiceSeller } from '../../domain/invoices.ts'
import type { LabKeyView } from '../../domain/lab-keys.ts'
import type { LabStatementTotal } from '../../domain/lab-statements.ts'
import { parseRevenueQuery, type RevenueReportView } from '../../domain/revenue.ts'
import type { AccountSettings, AccountSettingsChange } from '../accounts.service.ts'
import type { LabPushChange, LabPushSettingsView } from '../labs/lab-pushes.service.ts'
import type { OperatorView } from '../operators.service.ts'
import type { OrderNote } from '../order-operations.service.ts'
import type { AccountCreation, TopUpResult } from './accounts.ts'
import * as accounts from './accounts.ts'
import type { AuditListInput } from './audit.ts'
import * as audit from './audit.ts'
import * as catalogue from './catalogue.ts'
import * as claims from './claims.ts'
import { accountNumberOf, type OperatorContext, refused, translated } from './context.ts'
import * as invoices from './invoices.ts'
import * as keys from './keys.ts'
import * as labs from './labs.ts'
import * as operators from './operators.ts'
import type { OrderActionRequest } from './orders.ts'
import * as orders from './orders.ts'
import * as revenue from './revenue.ts'

export type { AccountCreation, TopUpResult } from './accounts.ts'
export type { AuditListInput } from './audit.ts'
export type { OperatorContext } from './context.ts'
export type { ShipmentMoveResult } from './orders.ts'

/** A statement as a file: CSV text, or a PDF in base64 (operation results are JSON). */
export interface StatementFile {
  fileName: string
  contentType: 'text/csv' | 'application/pdf'
  encoding: 'utf8' | 'base64'
  content: string
  documentCount: number
}

/** A lab statement as the command line gets it (operation results are JSON: the PDF travels in base64). */
export interface LabStatementResult {
  number: string
  lab: string
  month: string
  /** False when the month's statement had already been issued (this is that one). */
  issued: boolean
  issuedAt: string
  /** Jobs owed, and jobs handed over but cancelled or rejected. */
  owed: number
  notOwed: number
  totals: LabStatementTotal[]
  pdf?: string
  csv?: string
}

/**
 * Every operator action the command line takes (the console's sections call the same functions, console-sections.ts),
 * with plain JSON inputs and results: the same functions run in a command's own process and inside a running
 * `serve` reached through its admin channel. A refusal is an OperationError, or an OperatorRefusal that the
 * command line words (cli/admin-operations.ts).
 */
export interface OperatorService {
  /** Creates an account with one key per environment; its id and the keys (shown this once). */
  createAccount(input: AccountCreation): Promise<{ id: string; keys: Record<Environment, string> }>
  /** Every account. */
  listAccounts(): Promise<Account[]>
  /** Changes an account's settings in the given environments (both by default); every environment's settings. */
  updateAccount(input: {
    account: string
    change: AccountSettingsChange
    environments?: Environment[]
  }): Promise<{ settings: Record<Environment, AccountSettings> } | { problems: Record<string, string> }>
  /** Adds to a prepaid account's balance and releases the orders it now pays for. */
  topUp(input: { account: string; amount: string; reference: string | null }): Promise<TopUpResult>
  /** A new key of an account for one environment; the only time it is shown. */
  /** `scopes` absent: every scope; `expiresAt` (ISO 8601) absent: never expires. */
  createKey(input: {
    account: string
    environment: Environment
    scopes?: string[]
    expiresAt?: string
  }): Promise<{ key: string }>
  /** An account's keys, as listings show them. */
  listKeys(input: { account: string }): Promise<ApiKeyView[]>
  /** Revokes the active key with this prefix. */
  revokeKey(input: { prefix: string }): Promise<{ revoked: string }>
  /** A new key for a catalogue lab; the only time it is shown. */
  createLabKey(input: { lab: string }): Promise<{ key: string }>
  /** A lab's keys, newest first: ids, prefixes and states, never a key. */
  listLabKeys(input: { lab: string }): Promise<LabKeyView[]>
  /**
   * A new key for a lab (shown this once); its other working keys work on for `overlapSeconds` (default 24 hours,
   * at most 30 days, 0: not at all).
   */
  rotateLabKey(input: {
    lab: string
    overlapSeconds?: number
  }): Promise<{ key: string; created: LabKeyView; replaced: LabKeyView[] }>
  /** Revokes a lab's key by id (`lbk_N`) or prefix: its next lab API call is 401, its portal sessions end now. */
  revokeLabKey(input: {
    lab: string
    keyId: string
  }): Promise<{ key: LabKeyView; wasRevoked: boolean; sessionsEnded: number }>
  /** Pauses a catalogue lab (no new work goes to it) or resumes it; whether it was paused before. */
  setLabPaused(input: { lab: string; paused: boolean }): Promise<{ lab: string; wasPaused: boolean }>
  /** Sets, rotates or removes a lab's push endpoint; `secret` only when a new one was made (shown this once). */
  configureLabPush(input: { lab: string } & LabPushChange): Promise<LabPushSettingsView & { secret?: string }>
  /** A lab's push settings (never the secret, only its start) and delivery health. */
  showLabPush(input: { lab: string }): Promise<LabPushSettingsView>
  /**
   * A lab's payables statement of an ended month (YYYY-MM, UTC): issued now, or the one already issued; its PDF
   * (base64) and CSV when asked for.
   */
  labStatement(input: { lab: string; month: string; pdf?: boolean; csv?: boolean }): Promise<LabStatementResult>
  /** Sets the seller printed on invoices issued from now on; `problems` names each field refused. */
  setInvoiceSeller(input: InvoiceSeller): Promise<{ seller: InvoiceSeller } | { problems: Record<string, string> }>
  /** The seller invoices are issued with, and whether one was set (else printroute and the instance). */
  showInvoiceSeller(): Promise<{ seller: InvoiceSeller; configured: boolean }>
  /** An account's statement of one month (UTC) and environment (Live by default), as CSV or PDF. */
  accountStatement(input: {
    account: string
    month: string
    format: 'csv' | 'pdf'
    environment?: Environment
  }): Promise<StatementFile>
  /** Validates and stores a catalogue file's text as a version (every problem listed on refusal); `activate`: makes it active. */
  importCatalogue(input: { content: string; sourceName: string; activate?: boolean }): Promise<CatalogueImport>
  /** Every catalogue version, oldest first, the active one marked. */
  listCatalogues(): Promise<CatalogueVersionView[]>
  /** What changed from one catalogue version to another. */
  diffCatalogues(input: { from: number; to: number }): Promise<CatalogueDiff>
  /** Makes a stored catalogue version the active one; the version active before. */
  activateCatalogue(input: {
    version: number
  }): Promise<{ version: number; previous: number | null; warnings?: string[] }>
  /** A catalogue version's stored text. */
  exportCatalogue(input: { version: number }): Promise<{ version: number; content: string }>
  /** The audit trail, every account's and the instance's own, newest first, one page. */
  listAudit(input: AuditListInput): Promise<AuditPage>
  /**
   * Live revenue, lab cost and margin of the days [from, to) (YYYY-MM-DD, UTC), grouped by day, week, month,
   * account, lab or product, one block per currency.
   */
  revenueReport(input: { from?: string; to?: string; by?: string }): Promise<RevenueReportView>
  /** Suspends an account: its keys answer 403 and its dashboard sessions end; its orders in flight go on. */
  suspendAccount(input: { account: string; reason: string | null }): Promise<Account>
  /** Reactivates a suspended account. */
  reactivateAccount(input: { account: string }): Promise<Account>
  /** Sets the price list of an account's orders and quotes: a list of the active catalogue, or `default`. */
  setPriceList(input: { account: string; list: string }): Promise<Account>
  /** Edits an account's name, billing mode, currency, price list and credit limit; the account as it is then. */
  editAccount(input: accounts.AccountEditInput): Promise<Account & { openAmount: string | null }>
  /** Creates a console operator; the token is returned this once. */
  createOperator(input: { name: string }): Promise<{ operator: OperatorView; token: string }>
  /** Every operator (never a token). */
  listOperators(): Promise<OperatorView[]>
  /** Revokes an operator (`opr_N`): its console sessions end at their next request. */
  revokeOperator(input: { operator: string }): Promise<OperatorView>
  /** Moves a shipment to another lab with the operator's reason; the merchant's charges do not change. */
  moveShipment(input: { shipment: string; lab: string; reason: string }): Promise<orders.ShipmentMoveResult>
  /** Cancels an order as its merchant's cancel would (docs/admin.md#acting-on-an-order), for the reason given. */
  cancelOrder(input: OrderActionRequest): Promise<{ outcome: string; stage: string }>
  /** Credits part of one of an order's charges (`charge`, else its first): a credit note. */
  refundOrder(input: OrderActionRequest & { amount: string; charge?: string }): Promise<{
    chargeId: string
    refundChargeId: string
    creditNote: string | null
    amount: string
    currency: string
  }>
  /** Queues one more download of an asset whose download failed (`asset`, else every such asset). */
  retryDownload(input: OrderActionRequest & { asset?: string }): Promise<{ assetIds: string[] }>
  /** Releases an order held for payment or in its pause window. */
  releaseOrder(input: OrderActionRequest): Promise<{
    payment: 'paidFromBalance' | 'owedOnInvoice' | 'onCredit' | 'waived' | null
    amount: string | null
    currency: string | null
    pauseWindow: boolean
  }>
  /** Adds a note to an order. */
  addOrderNote(input: { order: string; text: string }): Promise<OrderNote>
  /** Claims, Pending first then oldest first, filtered by status, account and lab. */
  listClaims(input: claims.ClaimQueueRequest): Promise<claims.ClaimSummary[]>
  /** One claim with its items, photos and the lab's answer. */
  showClaim(input: { claim: string }): Promise<claims.ClaimDetail>
  /** Decides a Pending claim: Reprint, Refund, Credit or Reject (docs/claims.md#resolutions). */
  resolveClaim(input: claims.ClaimDecisionRequest): Promise<claims.ClaimResolutionResult>
}

/**
 * The command line's face of the operator's actions: each calls the action's one function (shared with the
 * console's sections), reads its JSON input the command line's way and makes the services' refusals
 * OperationErrors with the command's exit code. A top-up's refusals stay OperatorRefusals, which the command line
 * words (cli/operator-refusal-words.ts).
 */
export function createOperatorService(context: OperatorContext): OperatorService {
  return {
    ...accountCommands(context),
    ...labCommands(context),
    ...invoiceCommands(context),
    ...catalogueCommands(context),
    listAudit: (input) => translated(() => audit.listAudit(context, audit.auditQueryOf(input)), 2),
    revenueReport: async (input) => {
      const parsed = parseRevenueQuery({
        ...(typeof input.from === 'string' ? { from: input.from } : {}),
        ...(typeof input.to === 'string' ? { to: input.to } : {}),
        ...(typeof input.by === 'string' ? { by: input.by } : {}),
      })
      if ('problems' in parsed) {
        throw refused(
          Object.entries(parsed.problems)
            .map(([field, reason]) => `--${field} ${reason}`)
            .join('; '),
        )
      }
      return revenue.revenueReport(context, parsed.query)
    },
    createOperator: (input) => operators.createOperator(context, input),
    listOperators: () => operators.listOperators(context),
    revokeOperator: (input) => operators.revokeOperator(context, input),
    // A refusal (the shipment, the lab or the reason) is the operator's to fix: exit 2.
    moveShipment: (input) => translated(() => orders.moveShipment(context, input), 2),
    // An order action's refusals are OperatorRefusals (worded by the command line, exit 2).
    cancelOrder: (input) => orders.cancelOrder(context, input),
    refundOrder: (input) => orders.refundOrder(context, input),
    retryDownload: (input) => orders.retryDownload(context, input),
    releaseOrder: (input) => orders.releaseOrder(context, input),
    addOrderNote: (input) => orders.addOrderNote(context, input),
    // A claim's refusals are OperatorRefusals too (worded by the command line, exit 2).
    listClaims: (input) => claims.listClaims(context, input),
    showClaim: (input) => claims.showClaim(context, input),
    resolveClaim: (input) => claims.resolveClaim(context, input),
  }
}

type AccountCommands =
  | 'createAccount'
  | 'listAccounts'
  | 'updateAccount'
  | 'topUp'
  | 'createKey'
  | 'listKeys'
  | 'revokeKey'
  | 'suspendAccount'
  | 'reactivateAccount'
  | 'setPriceList'
  | 'editAccount'

function accountCommands(context: OperatorContext): Pick<OperatorService, AccountCommands> {
  return {
    createAccount: async (input) => {
      const created = await translated(() => accounts.createAccount(context, input))
      return { id: created.account.id, keys: created.keys }
    },
    listAccounts: () => accounts.listAccounts(context),
    updateAccount: (input) => accounts.updateAccount(context, input),
    topUp: (input) => translated(() => accounts.topUp(context, input)),
    createKey: async (input) => {
      const limits = keys.keyLimitsOf(input)
      const issued = await translated(() => keys.createKey(context, { ...input, limits }))
      return { key: issued.key }
    },
    listKeys: (input) => translated(() => keys.listKeys(context, { account: input.account })),
    revokeKey: async (input) => {
      await translated(() => keys.revokeKey(context, { prefix: input.prefix }))
      return { revoked: input.prefix }
    },
    // The account's ID is checked first, as every command taking --account does (exit 2).
    // Async, so that a refusal of the input is a rejection, as every operation's is.
    suspendAccount: async (input) => {
      accountNumberOf(input.account)
      return translated(() => accounts.suspendAccount(context, input), 2)
    },
    reactivateAccount: async (input) => {
      accountNumberOf(input.account)
      return translated(() => accounts.reactivateAccount(context, input), 2)
    },
    // Refusals stay OperatorRefusals, worded by the command line (exit 2).
    setPriceList: (input) => accounts.setPriceList(context, input),
    editAccount: async (input) => {
      const account = await accounts.editAccount(context, input)
      return { ...account, openAmount: await context.accounts.openAmount(account.id) }
    },
  }
}

type LabCommands =
  | 'createLabKey'
  | 'listLabKeys'
  | 'rotateLabKey'
  | 'revokeLabKey'
  | 'setLabPaused'
  | 'configureLabPush'
  | 'showLabPush'
  | 'labStatement'

function labCommands(context: OperatorContext): Pick<OperatorService, LabCommands> {
  return {
    createLabKey: async (input) => ({ key: (await translated(() => labs.createLabKey(context, input), 2)).key }),
    listLabKeys: (input) => translated(() => labs.listLabKeys(context, input), 2),
    rotateLabKey: async (input) => {
      if (input.overlapSeconds !== undefined && typeof input.overlapSeconds !== 'number') {
        throw refused('--overlap must be a duration')
      }
      return translated(() => labs.rotateLabKey(context, input), 2)
    },
    revokeLabKey: (input) => translated(() => labs.revokeLabKey(context, input), 2),
    setLabPaused: async (input) => {
      const result = await translated(() => labs.setLabPaused(context, input), 2)
      return { lab: input.lab, wasPaused: result.wasPaused }
    },
    configureLabPush: (input) => translated(() => labs.configureLabPush(context, input), 2),
    showLabPush: (input) => translated(() => labs.showLabPush(context, input), 2),
    labStatement: async (input) => {
      if (typeof input.lab !== 'string' || input.lab === '') throw refused('--lab is required')
      if (typeof input.month !== 'string') throw refused('--month is required (YYYY-MM)')
      const made = await translated(() => labs.labStatement(context, { lab: input.lab, month: input.month }), 2)
      const { statement } = made
      return {
        number: statement.number,
        lab: statement.labCode,
        month: statement.month,
        issued: made.issued,
        issuedAt: statement.issuedAt,
        owed: statement.owed.length,
        notOwed: statement.notOwed.length,
        totals: statement.totals,
        ...(input.pdf === true ? { pdf: Buffer.from(made.pdf).toString('base64') } : {}),
        ...(input.csv === true ? { csv: made.csv } : {}),
      }
    },
  }
}

function invoiceCommands(
  context: OperatorContext,
): Pick<OperatorService, 'setInvoiceSeller' | 'showInvoiceSeller' | 'accountStatement'> {
  return {
    setInvoiceSeller: (input) => invoices.setInvoiceSeller(context, input),
    showInvoiceSeller: () => invoices.showInvoiceSeller(context),
    accountStatement: async (input) => {
      const accountNumber = accountNumberOf(input.account)
      if (input.format !== 'csv' && input.format !== 'pdf') {
        throw refused(`--format must be csv or pdf, got "${String(input.format)}"`)
      }
      const environment = input.environment ?? 'live'
      if (!ENVIRONMENTS.includes(environment)) throw refused(`--env must be sandbox or live, got "${environment}"`)
      const file = await translated(
        () =>
          invoices.statementFile(context, {
            account: input.account,
            accountNumber,
            environment,
            month: input.month,
            format: input.format,
          }),
        2,
      )
      // Operation results are JSON: a PDF travels in base64.
      return {
        fileName: file.fileName,
        contentType: file.contentType,
        encoding: typeof file.body === 'string' ? 'utf8' : 'base64',
        content: typeof file.body === 'string' ? file.body : Buffer.from(file.body).toString('base64'),
        documentCount: file.documentCount,
      }
    },
  }
}

type CatalogueCommands =
  | 'importCatalogue'
  | 'listCatalogues'
  | 'diffCatalogues'
  | 'activateCatalogue'
  | 'exportCatalogue'

function catalogueCommands(context: OperatorContext): Pick<OperatorService, CatalogueCommands> {
  return {
    importCatalogue: async (input) => {
      if (typeof input.content !== 'string') throw refused('the catalogue file is missing')
      const sourceName =
        typeof input.sourceName === 'string' && input.sourceName !== '' ? input.sourceName : 'catalogue'
      return translated(
        () =>
          catalogue.importCatalogue(context, { content: input.content, sourceName, activate: input.activate === true }),
        2,
      )
    },
    listCatalogues: () => catalogue.listCatalogues(context),
    diffCatalogues: async (input) => {
      const range = { from: catalogueVersionOf(input.from, 'A'), to: catalogueVersionOf(input.to, 'B') }
      return translated(() => catalogue.diffCatalogues(context, range), 2)
    },
    activateCatalogue: async (input) => {
      const version = catalogueVersionOf(input.version, 'N')
      return translated(() => catalogue.activateCatalogue(context, { version }), 2)
    },
    exportCatalogue: async (input) => {
      const version = catalogueVersionOf(input.version, 'N')
      return translated(() => catalogue.exportCatalogue(context, { version }), 2)
    },
  }
}

/** A catalogue version number from the command line: a whole number from 1. */
function catalogueVersionOf(value: unknown, what: string): number {
  const text = String(value)
  if (!/^[1-9]\d{0,8}$/.test(text))
    throw refused(`${what} must be a catalogue version number (1, 2, ...), got "${text}"`)
  return Number(text)
}
