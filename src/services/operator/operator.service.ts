// The operator's actions (docs/admin.md, docs/configuration.md): accounts, their keys, top-ups and suspension;
// lab keys, pauses and push settings; the invoices' seller and statements; catalogue versions; the audit trail;
// the console's operators. The command line runs them (cli/admin-operations.ts adds `migrate`), here or in the
// serving process over the admin channel; the console's sections (console-sections.ts) share their rules
// (operator-rules.ts).
import type { AuditActor } from '../../domain/audit.ts'
import { isAuditAction, isAuditActorKind } from '../../domain/audit.ts'
import type { CatalogueDiff } from '../../domain/catalogue-diff.ts'
import { ENVIRONMENTS, type Environment } from '../../domain/environment.ts'
import { parseId } from '../../domain/ids.ts'
import { type InvoiceSeller, statementCsv } from '../../domain/invoices.ts'
import { isKeyScope, KEY_SCOPES } from '../../domain/key-scopes.ts'
import { AUDIT_LIST_MAX_TOP, DATE_TIME_RANGE, dateTimeBeyondRange } from '../../domain/limits.ts'
import { formatMinorAsAmount } from '../../domain/money.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import {
  type Account,
  AccountError,
  type AccountSettings,
  type AccountSettingsChange,
  type AccountsService,
  type ApiKeyView,
  toApiKeyView,
} from '../accounts.service.ts'
import type { AuditPage, AuditQuery, AuditService } from '../audit.service.ts'
import {
  type CatalogueImport,
  CatalogueVersionError,
  type CatalogueVersionsService,
  type CatalogueVersionView,
} from '../catalogue-versions.service.ts'
import type { InvoicesService } from '../invoices.service.ts'
import type { LabPushChange, LabPushSettings, LabPushSettingsView } from '../lab-pushes.service.ts'
import { LabError, type LabKeyView, type LabsService } from '../labs.service.ts'
import { OperatorError, type OperatorsService, type OperatorView } from '../operators.service.ts'
import type { PaymentsService } from '../payments.service.ts'
import { OperationError } from './operation-error.ts'
import { onlyPrepaidAccountsHaveABalance, statementFileName, topUpAmountMinor } from './operator-rules.ts'

/** What the operator's actions run on; the payments service is built only when a top-up needs it. */
export interface OperatorContext {
  accounts: AccountsService
  operators: OperatorsService
  labs: Pick<LabsService, 'createLabKey' | 'listLabKeys' | 'rotateLabKey' | 'revokeLabKey' | 'setPaused'>
  labPushes: LabPushSettings
  payments(): Promise<Pick<PaymentsService, 'topUp'>>
  invoices: Pick<InvoicesService, 'statement' | 'statementPdf' | 'seller' | 'setSeller'>
  catalogueVersions: Pick<CatalogueVersionsService, 'import' | 'list' | 'diff' | 'activate' | 'export'>
  audit: Pick<AuditService, 'list'>
  /** Who the audit trail names for the changes these operations make: the command line, on this host. */
  actor: AuditActor
}

/** A statement as a file: CSV text, or a PDF in base64 (operation results are JSON). */
export interface StatementFile {
  fileName: string
  contentType: 'text/csv' | 'application/pdf'
  encoding: 'utf8' | 'base64'
  content: string
  documentCount: number
}

/** A catalogue version number from the command line: a whole number from 1. */
function catalogueVersionOf(value: unknown, what: string): number {
  const text = String(value)
  if (!/^[1-9]\d{0,8}$/.test(text))
    throw refused(`${what} must be a catalogue version number (1, 2, ...), got "${text}"`)
  return Number(text)
}

export interface AccountCreation {
  name: string
  billingCurrency: string
  billingMode: 'invoice' | 'prepaid'
  pauseWindowSeconds: number
  /** Both environments' callback URL, unless `callbackUrls` gives one's. */
  callbackUrl: string | null
  callbackUrls?: Partial<Record<Environment, string | null>>
}

export interface TopUpResult {
  account: string
  balance: string
  currency: string
  releasedOrderIds: string[]
}

/** What `audit list` asks for: every filter optional, as typed on the command line. */
export interface AuditListInput {
  account?: string
  actions?: string[]
  actor?: string
  from?: string
  to?: string
  before?: string
  top?: number
}

/** Refusals the user can fix by changing the request (the command line exits 2); others are failures (exit 1). */
function refused(message: string): OperationError {
  return new OperationError(message, 2)
}

function accountNumberOf(accountId: string): number {
  const number = parseId('acc', accountId)
  if (number === undefined) throw refused(`"${accountId}" is not an account ID (expected acc_<number>)`)
  return number
}

/** Service refusals keep their message; only the exit code is decided here. */
async function translated<T>(work: () => Promise<T>, exitCode = 1): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (
      error instanceof AccountError ||
      error instanceof LabError ||
      error instanceof OperatorError ||
      error instanceof ServiceError ||
      error instanceof CatalogueVersionError
    ) {
      throw new OperationError(error.message, exitCode)
    }
    throw error
  }
}

/**
 * Every operator action the command line takes (and the console's sections share its rules, console-sections.ts),
 * with plain JSON inputs and results: the same functions run in a command's own process and inside a running
 * `serve` reached through its admin channel. A refusal is an OperationError.
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
  activateCatalogue(input: { version: number }): Promise<{ version: number; previous: number | null }>
  /** A catalogue version's stored text. */
  exportCatalogue(input: { version: number }): Promise<{ version: number; content: string }>
  /** The audit trail, every account's and the instance's own, newest first, one page. */
  listAudit(input: AuditListInput): Promise<AuditPage>
  /** Suspends an account: its keys answer 403 and its dashboard sessions end; its orders in flight go on. */
  suspendAccount(input: { account: string; reason: string | null }): Promise<Account>
  /** Reactivates a suspended account. */
  reactivateAccount(input: { account: string }): Promise<Account>
  /** Creates a console operator; the token is returned this once. */
  createOperator(input: { name: string }): Promise<{ operator: OperatorView; token: string }>
  /** Every operator (never a token). */
  listOperators(): Promise<OperatorView[]>
  /** Revokes an operator (`opr_N`): its console sessions end at their next request. */
  revokeOperator(input: { operator: string }): Promise<OperatorView>
}

export function createOperatorService(context: OperatorContext): OperatorService {
  return {
    async createAccount(input: AccountCreation): Promise<{ id: string; keys: Record<Environment, string> }> {
      const created = await translated(() => context.accounts.createAccount(input, context.actor))
      return { id: created.account.id, keys: { sandbox: created.keys.sandbox.key, live: created.keys.live.key } }
    },

    async listAccounts(): Promise<Account[]> {
      return context.accounts.listAccounts()
    },

    /**
     * Applies the change to each environment given (both when none is), in turn; the same change validates the
     * same way in each, so a refusal comes from the first, before anything changed. Returns every
     * environment's settings.
     */
    async updateAccount(input: {
      account: string
      change: AccountSettingsChange
      environments?: Environment[]
    }): Promise<{ settings: Record<Environment, AccountSettings> } | { problems: Record<string, string> }> {
      const accountNumber = accountNumberOf(input.account)
      for (const environment of input.environments ?? ENVIRONMENTS) {
        // The default scenario is a Sandbox setting: Live gets the rest of the change.
        const change = environment === 'sandbox' ? input.change : { ...input.change, sandboxScenario: undefined }
        const result = await translated(
          () => context.accounts.updateSettings(accountNumber, environment, change, context.actor),
          2,
        )
        if ('problems' in result) return result
      }
      const read = (environment: Environment) =>
        translated(() => context.accounts.getSettings(accountNumber, environment), 2)
      return { settings: { sandbox: await read('sandbox'), live: await read('live') } }
    },

    async topUp(input: { account: string; amount: string; reference: string | null }): Promise<TopUpResult> {
      const accountNumber = accountNumberOf(input.account)
      const amountMinor = topUpAmountMinor(input.amount)
      if (amountMinor === undefined) {
        throw refused(`--amount must be a positive amount such as 50.00, got "${input.amount}"`)
      }
      const account = (await context.accounts.listAccounts()).find((candidate) => candidate.id === input.account)
      if (!account) throw refused(`No account ${input.account}`)
      if (account.billingMode !== 'prepaid') {
        throw refused(onlyPrepaidAccountsHaveABalance(input.account))
      }
      const payments = await context.payments()
      const result = await translated(() => payments.topUp(accountNumber, amountMinor, input.reference, context.actor))
      return {
        account: input.account,
        balance: formatMinorAsAmount(result.balanceMinor),
        currency: result.currency,
        releasedOrderIds: result.releasedOrderIds,
      }
    },

    async createKey(input: {
      account: string
      environment: Environment
      scopes?: string[]
      expiresAt?: string
    }): Promise<{ key: string }> {
      const unknown = (input.scopes ?? []).filter((scope) => !isKeyScope(scope))
      if (unknown.length > 0) {
        throw new OperationError(`Unknown scope ${unknown.join(', ')}: the scopes are ${KEY_SCOPES.join(', ')}`, 1)
      }
      if (input.scopes !== undefined && input.scopes.length === 0) {
        throw new OperationError(`--scopes names no scope: the scopes are ${KEY_SCOPES.join(', ')}`, 1)
      }
      const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt)
      if (expiresAt && (Number.isNaN(expiresAt.getTime()) || dateTimeBeyondRange(expiresAt.getTime()) !== undefined)) {
        throw new OperationError(
          `"${input.expiresAt}" is not a time (expected ISO 8601, e.g. 2027-01-31T00:00:00Z, in years ${DATE_TIME_RANGE.earliestDate.slice(0, 4)} to ${DATE_TIME_RANGE.latestDate.slice(0, 4)})`,
          1,
        )
      }
      const scopes = input.scopes?.filter(isKeyScope) ?? null
      const issued = await translated(() =>
        context.accounts.createApiKey(input.account, input.environment, context.actor, { scopes, expiresAt }),
      )
      return { key: issued.key }
    },

    async listKeys(input: { account: string }): Promise<ApiKeyView[]> {
      const keys = await translated(() => context.accounts.listApiKeys(input.account))
      return keys.map(toApiKeyView)
    },

    async revokeKey(input: { prefix: string }): Promise<{ revoked: string }> {
      await translated(() => context.accounts.revokeApiKey(input.prefix, context.actor))
      return { revoked: input.prefix }
    },

    async createLabKey(input: { lab: string }): Promise<{ key: string }> {
      const issued = await translated(() => context.labs.createLabKey(input.lab, context.actor), 2)
      return { key: issued.key }
    },

    async listLabKeys(input: { lab: string }): Promise<LabKeyView[]> {
      return translated(() => context.labs.listLabKeys(input.lab), 2)
    },

    async rotateLabKey(input: { lab: string; overlapSeconds?: number }) {
      const overlap = input.overlapSeconds
      if (overlap !== undefined && typeof overlap !== 'number') throw refused('--overlap must be a duration')
      const rotated = await translated(() => context.labs.rotateLabKey(input.lab, overlap, context.actor), 2)
      return { key: rotated.key, created: rotated.view, replaced: rotated.replaced }
    },

    async revokeLabKey(input: { lab: string; keyId: string }) {
      return translated(() => context.labs.revokeLabKey(input.lab, input.keyId, context.actor), 2)
    },

    async setLabPaused(input: { lab: string; paused: boolean }): Promise<{ lab: string; wasPaused: boolean }> {
      const result = await translated(() => context.labs.setPaused(input.lab, input.paused === true, context.actor), 2)
      return { lab: input.lab, wasPaused: result.wasPaused }
    },

    async configureLabPush(input: { lab: string } & LabPushChange): Promise<LabPushSettingsView & { secret?: string }> {
      const change: LabPushChange = {
        ...(typeof input.pushUrl === 'string' ? { pushUrl: input.pushUrl } : {}),
        ...(input.rotateSecret === true ? { rotateSecret: true } : {}),
        ...(input.removePush === true ? { removePush: true } : {}),
      }
      return translated(() => context.labPushes.configure(input.lab, change, context.actor), 2)
    },

    async showLabPush(input: { lab: string }): Promise<LabPushSettingsView> {
      return translated(() => context.labPushes.show(input.lab), 2)
    },

    async setInvoiceSeller(input: InvoiceSeller) {
      const text = (value: unknown) => (typeof value === 'string' ? value : null)
      const address = Array.isArray(input.address) ? input.address.filter((line) => typeof line === 'string') : []
      return context.invoices.setSeller(
        { name: text(input.name) ?? '', address, taxNumber: text(input.taxNumber), email: text(input.email) },
        context.actor,
      )
    },

    async showInvoiceSeller() {
      return context.invoices.seller()
    },

    async accountStatement(input): Promise<StatementFile> {
      const accountNumber = accountNumberOf(input.account)
      if (input.format !== 'csv' && input.format !== 'pdf') {
        throw refused(`--format must be csv or pdf, got "${String(input.format)}"`)
      }
      const environment = input.environment ?? 'live'
      if (!ENVIRONMENTS.includes(environment)) throw refused(`--env must be sandbox or live, got "${environment}"`)
      const statement = await translated(() => context.invoices.statement(accountNumber, environment, input.month), 2)
      const fileName = statementFileName(input.account, environment, input.month, input.format)
      if (input.format === 'csv') {
        return {
          fileName,
          contentType: 'text/csv',
          encoding: 'utf8',
          content: statementCsv(statement),
          documentCount: statement.documents.length,
        }
      }
      const pdf = await context.invoices.statementPdf(statement)
      return {
        fileName,
        contentType: 'application/pdf',
        encoding: 'base64',
        content: Buffer.from(pdf).toString('base64'),
        documentCount: statement.documents.length,
      }
    },

    async importCatalogue(input: {
      content: string
      sourceName: string
      activate?: boolean
    }): Promise<CatalogueImport> {
      if (typeof input.content !== 'string') throw refused('the catalogue file is missing')
      const sourceName =
        typeof input.sourceName === 'string' && input.sourceName !== '' ? input.sourceName : 'catalogue'
      return translated(
        () =>
          context.catalogueVersions.import(input.content, sourceName, context.actor, {
            activate: input.activate === true,
          }),
        2,
      )
    },

    async listCatalogues(): Promise<CatalogueVersionView[]> {
      return context.catalogueVersions.list()
    },

    async diffCatalogues(input: { from: number; to: number }): Promise<CatalogueDiff> {
      const from = catalogueVersionOf(input.from, 'A')
      const to = catalogueVersionOf(input.to, 'B')
      return translated(() => context.catalogueVersions.diff(from, to), 2)
    },

    async activateCatalogue(input: { version: number }): Promise<{ version: number; previous: number | null }> {
      const version = catalogueVersionOf(input.version, 'N')
      return translated(() => context.catalogueVersions.activate(version, context.actor), 2)
    },

    async exportCatalogue(input: { version: number }): Promise<{ version: number; content: string }> {
      const version = catalogueVersionOf(input.version, 'N')
      return { version, content: await translated(() => context.catalogueVersions.export(version), 2) }
    },

    async listAudit(input: AuditListInput): Promise<AuditPage> {
      return translated(() => context.audit.list(auditQueryOf(input)), 2)
    },

    async suspendAccount(input: { account: string; reason: string | null }): Promise<Account> {
      accountNumberOf(input.account)
      const reason = typeof input.reason === 'string' ? input.reason : null
      return translated(() => context.accounts.suspendAccount(input.account, reason, context.actor), 2)
    },

    async reactivateAccount(input: { account: string }): Promise<Account> {
      accountNumberOf(input.account)
      return translated(() => context.accounts.reactivateAccount(input.account, context.actor), 2)
    },

    async createOperator(input: { name: string }): Promise<{ operator: OperatorView; token: string }> {
      return translated(() => context.operators.createOperator(String(input.name ?? ''), context.actor), 2)
    },

    async listOperators(): Promise<OperatorView[]> {
      return context.operators.listOperators()
    },

    async revokeOperator(input: { operator: string }): Promise<OperatorView> {
      return translated(() => context.operators.revokeOperator(String(input.operator ?? ''), context.actor), 2)
    },
  }
}
/** The audit service's query from the command's flags; a refusal (exit 2) naming the flag that is wrong. */
function auditQueryOf(input: AuditListInput): AuditQuery {
  const query: AuditQuery = {}
  if (input.account !== undefined) query.accountId = accountNumberOf(input.account)
  if (input.actions !== undefined) {
    const unknown = input.actions.filter((action) => !isAuditAction(action))
    if (unknown.length > 0)
      throw refused(`--action: "${unknown.join('", "')}" is not an action of the trail (docs/audit.md)`)
    query.actions = input.actions.filter(isAuditAction)
  }
  if (input.actor !== undefined) {
    if (!isAuditActorKind(input.actor)) {
      throw refused(`--actor must be operator, key, session, lab, cli or system, got "${input.actor}"`)
    }
    query.actorKind = input.actor
  }
  for (const flag of ['from', 'to'] as const) {
    const text = input[flag]
    if (text === undefined) continue
    const at = new Date(text)
    if (Number.isNaN(at.getTime()) || dateTimeBeyondRange(at.getTime()) !== undefined)
      throw refused(
        `--${flag} must be a date or date-time (2026-11-01, 2026-11-01T09:00Z) from ${DATE_TIME_RANGE.earliestDate} to ${DATE_TIME_RANGE.latestDate}, got "${text}"`,
      )
    query[flag] = at
  }
  if (query.from && query.to && query.from > query.to) throw refused('--from is after --to')
  if (input.top !== undefined) {
    if (!Number.isInteger(input.top) || input.top < 1 || input.top > AUDIT_LIST_MAX_TOP) {
      throw refused(`--top must be a whole number from 1 to ${AUDIT_LIST_MAX_TOP}`)
    }
    query.top = input.top
  }
  if (input.before !== undefined) {
    if (parseId('aud', input.before) === undefined)
      throw refused(`--before must be an entry ID (aud_<number>), got "${input.before}"`)
    query.before = input.before
  }
  return query
}
