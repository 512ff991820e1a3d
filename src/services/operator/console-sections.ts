// The operator console's sections (dashboard/admin/*.pages.ts) over the services: the accounts section (keys,
// top-up, suspension), the invoices section (lists, PDFs, statements) and the catalogue section (versions,
// diff, activation, import). The rules the command line applies too come from operator-rules.ts; refusals come
// back as the console shows them (a ServiceError, or a catalogue refusal the page lists).
import type { Account, ApiKeyView } from '../../domain/accounts.ts'
import type { ConsoleCatalogueRefusal, ConsoleLedgerEntry } from '../../domain/admin-views.ts'
import type { AuditActor } from '../../domain/audit.ts'
import type { CatalogueDiff } from '../../domain/catalogue-diff.ts'
import type { CatalogueVersionView } from '../../domain/catalogue-versions.ts'
import type { Environment } from '../../domain/environment.ts'
import { formatId, parseId } from '../../domain/ids.ts'
import { type InvoiceSummary, parseStatementMonth, statementCsv } from '../../domain/invoices.ts'
import { formatMinorAsAmount } from '../../domain/money.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { AccountError, type AccountsService, toApiKeyView } from '../accounts.service.ts'
import {
  type CatalogueImport,
  CatalogueVersionError,
  type CatalogueVersionsService,
} from '../catalogue-versions.service.ts'
import type { InvoicesService } from '../invoices.service.ts'
import type { PaymentsService } from '../payments.service.ts'
import { onlyPrepaidAccountsHaveABalance, statementFileName, topUpAmountMinor } from './operator-rules.ts'

/** The console's accounts section. */
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
  /** The account's latest money movements, newest first, at most `limit`. */
  recentLedger(accountId: string, limit: number): Promise<ConsoleLedgerEntry[]>
}

/** The console's invoices section. */
export interface ConsoleInvoices {
  /** Documents matching the filter (`month`: YYYY-MM, UTC), newest first, at most `limit`. */
  list(
    filter: { accountId?: number; environment?: Environment; month?: string },
    limit: number,
  ): Promise<InvoiceSummary[]>
  /** A document's PDF; undefined for an unknown number. */
  invoicePdf(number: string): Promise<Uint8Array | undefined>
  /** An account's statement of a month as a file; undefined when there is no such account. */
  statement(
    accountId: number,
    environment: Environment,
    month: string,
    format: 'csv' | 'pdf',
  ): Promise<{ fileName: string; contentType: 'text/csv' | 'application/pdf'; body: string | Uint8Array } | undefined>
}

/** The console's catalogue section. */
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
  ): Promise<{ version: number; previous: number | null } | ConsoleCatalogueRefusal>
  /** Validates and stores a catalogue file's text as a version; `activate`: makes it active. */
  import(
    content: string,
    sourceName: string,
    actor: AuditActor,
    options: { activate: boolean },
  ): Promise<CatalogueImport | ConsoleCatalogueRefusal>
}

/** A refusal of the catalogue versions service as the console shows it; anything else is thrown on. */
async function orRefusal<T>(work: () => Promise<T>): Promise<T | ConsoleCatalogueRefusal> {
  try {
    return await work()
  } catch (error) {
    if (!(error instanceof CatalogueVersionError)) throw error
    return { refused: error.message.split('\n')[0] ?? error.message, problems: error.problems }
  }
}

/** The console's catalogue section (dashboard/admin/catalogue.pages.ts) from the versions service. */
export function consoleCatalogueOf(versions: CatalogueVersionsService): ConsoleCatalogue {
  return {
    list: () => versions.list(),
    servedVersion: () => versions.live().version,
    diff: (from, to) => orRefusal(() => versions.diff(from, to)),
    activate: (version, actor) => orRefusal(() => versions.activate(version, actor)),
    import: (content, sourceName, actor, options) =>
      orRefusal(() => versions.import(content, sourceName, actor, options)),
  }
}

/** A refusal of the accounts service (a name, a currency, an unknown account) as the console shows it. */
async function refusalsAsServiceErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof AccountError) throw new ServiceError('ValidationFailed', error.message)
    throw error
  }
}

/** The console's invoices section (dashboard/admin/invoices.pages.ts) from the invoices service. */
export function consoleInvoicesOf(invoices: InvoicesService): ConsoleInvoices {
  return {
    list: (filter, limit) => {
      const range = filter.month ? parseStatementMonth(filter.month) : undefined
      return invoices.list({
        ...(filter.accountId !== undefined ? { accountId: filter.accountId } : {}),
        ...(filter.environment ? { environment: filter.environment } : {}),
        ...(range ? { from: range.from, to: range.to } : {}),
        limit,
      })
    },
    invoicePdf: async (number) => (await invoices.pdfOf(number))?.pdf,
    async statement(accountId, environment, month, format) {
      const made = await invoices.statement(accountId, environment, month).catch((error: unknown) => {
        if (error instanceof ServiceError && error.outcome === 'EntityNotFound') return undefined
        throw error
      })
      if (!made) return undefined
      const fileName = statementFileName(`acc_${accountId}`, environment, month, format)
      return format === 'csv'
        ? { fileName, contentType: 'text/csv', body: statementCsv(made) }
        : { fileName, contentType: 'application/pdf', body: await invoices.statementPdf(made) }
    },
  }
}

/** The console's accounts section, from the accounts and payments services. */
export function consoleAccountsOf(accounts: AccountsService, payments: PaymentsService): ConsoleAccounts {
  const find = async (accountId: string): Promise<Account | undefined> => {
    if (parseId('acc', accountId) === undefined) return undefined
    try {
      return await accounts.getAccount(accountId)
    } catch (error) {
      if (error instanceof AccountError) return undefined
      throw error
    }
  }
  return {
    listAccounts: () => accounts.listAccounts(),
    getAccount: find,
    createAccount: (input, actor) =>
      refusalsAsServiceErrors(async () => {
        const created = await accounts.createAccount({ ...input, pauseWindowSeconds: 0, callbackUrl: null }, actor)
        return { account: created.account, keys: { sandbox: created.keys.sandbox.key, live: created.keys.live.key } }
      }),
    listKeys: (accountId) =>
      refusalsAsServiceErrors(async () => (await accounts.listApiKeys(accountId)).map(toApiKeyView)),
    createKey: (accountId, environment, actor) =>
      refusalsAsServiceErrors(async () => {
        const issued = await accounts.createApiKey(accountId, environment, actor)
        return { key: issued.key, prefix: issued.prefix }
      }),
    revokeKey: (accountId, prefix, actor) =>
      refusalsAsServiceErrors(async () => {
        // The console revokes a key from its account's page: a prefix of another account's key is not found there.
        const keys = await accounts.listApiKeys(accountId)
        if (!keys.some((key) => key.prefix === prefix && key.revokedAt === null)) {
          throw new ServiceError('EntityNotFound', `${accountId} has no active key with prefix ${prefix}`)
        }
        await accounts.revokeApiKey(prefix, actor)
      }),
    topUp: (accountId, amount, reference, actor) =>
      refusalsAsServiceErrors(async () => {
        const account = await find(accountId)
        if (!account) throw new ServiceError('EntityNotFound', `No account ${accountId}`)
        if (account.billingMode !== 'prepaid') {
          throw new ServiceError('ValidationFailed', onlyPrepaidAccountsHaveABalance(accountId))
        }
        const amountMinor = topUpAmountMinor(amount)
        if (amountMinor === undefined) {
          throw new ServiceError(
            'ValidationFailed',
            `Amount: a positive amount such as 50.00 is needed, not "${amount}"`,
          )
        }
        const result = await payments.topUp(parseId('acc', accountId) as number, amountMinor, reference, actor)
        return {
          balance: formatMinorAsAmount(result.balanceMinor),
          currency: result.currency,
          releasedOrderIds: result.releasedOrderIds,
        }
      }),
    suspend: (accountId, reason, actor) =>
      refusalsAsServiceErrors(() => accounts.suspendAccount(accountId, reason, actor)),
    reactivate: (accountId, actor) => refusalsAsServiceErrors(() => accounts.reactivateAccount(accountId, actor)),
    recentLedger: (accountId, limit) =>
      refusalsAsServiceErrors(async () =>
        (await accounts.listRecentLedger(accountId, limit)).map((row) => ({
          at: row.createdAt.toISOString(),
          entry: row.entry,
          orderId: row.orderNumber === null ? null : formatId('ord', row.orderNumber),
          chargeId: row.chargeId,
          amount: formatMinorAsAmount(row.amountMinor),
          currency: row.currency,
          reference: row.reference,
        })),
      ),
  }
}
