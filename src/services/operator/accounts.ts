// The operator's actions on accounts: create, list, update settings, top up, suspend and reactivate, the ledger.
// One function per action, called by the command line (operator.service.ts) and the console
// (console-sections.ts) alike; each front end turns the services' refusals into its own errors around them.

import type { Account } from '../../domain/accounts.ts'
import type { ConsoleLedgerEntry } from '../../domain/admin-views.ts'
import { type AccountEdit, creditLimitMinorOf } from '../../domain/credit-limits.ts'
import { ENVIRONMENTS, type Environment } from '../../domain/environment.ts'
import { formatId, parseId } from '../../domain/ids.ts'
import { formatMinorAsAmount } from '../../domain/money.ts'
import { OperatorRefusal } from '../../domain/operator-refusal.ts'
import { DEFAULT_PRICE_LIST } from '../../domain/price-lists.ts'
import type { AccountSettings, AccountSettingsChange } from '../accounts.service.ts'
import { AccountError } from '../accounts.service.ts'
import { accountNumberOf, type OperatorContext, translated } from './context.ts'
import { topUpAmountMinor } from './operator-rules.ts'

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

/** What the accounts actions run on: the command line's context, or the console's with its operator as actor. */
export type AccountsDeps = Pick<OperatorContext, 'accounts' | 'actor'>

/** Creates an account with one key per environment (shown this once). */
export async function createAccount(
  deps: AccountsDeps,
  input: AccountCreation,
): Promise<{ account: Account; keys: Record<Environment, string> }> {
  const created = await deps.accounts.createAccount(input, deps.actor)
  return { account: created.account, keys: { sandbox: created.keys.sandbox.key, live: created.keys.live.key } }
}

/** Every account. */
export async function listAccounts(deps: Pick<OperatorContext, 'accounts'>): Promise<Account[]> {
  return deps.accounts.listAccounts()
}

/**
 * Applies the change to each environment given (both when none is), in turn; the same change validates the
 * same way in each, so a refusal comes from the first, before anything changed. Returns every
 * environment's settings.
 */
export async function updateAccount(
  context: AccountsDeps,
  input: {
    account: string
    change: AccountSettingsChange
    environments?: Environment[]
  },
): Promise<{ settings: Record<Environment, AccountSettings> } | { problems: Record<string, string> }> {
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
}

/**
 * Adds to a prepaid account's balance and releases the orders it now pays for. The checks, in this order for both
 * front ends: the account ID's form, the amount, the account's existence, its billing mode; each refusal an
 * OperatorRefusal that the command line and the console word in their own way.
 */
export async function topUp(
  deps: AccountsDeps & Pick<OperatorContext, 'payments'>,
  input: { account: string; amount: string; reference: string | null },
): Promise<TopUpResult> {
  const accountNumber = parseId('acc', input.account)
  if (accountNumber === undefined) throw new OperatorRefusal({ field: 'account', reason: 'not-an-id' }, input.account)
  const amountMinor = topUpAmountMinor(input.amount)
  if (amountMinor === undefined) {
    throw new OperatorRefusal({ field: 'amount', reason: 'not-a-positive-amount' }, input.amount)
  }
  const account = await deps.accounts.getAccount(input.account).catch((error: unknown) => {
    if (error instanceof AccountError) return undefined
    throw error
  })
  if (!account) throw new OperatorRefusal({ field: 'account', reason: 'unknown' }, input.account)
  if (account.billingMode !== 'prepaid') {
    throw new OperatorRefusal({ field: 'account', reason: 'not-prepaid' }, input.account)
  }
  const payments = await deps.payments()
  const result = await payments.topUp(accountNumber, amountMinor, input.reference, deps.actor)
  return {
    account: input.account,
    balance: formatMinorAsAmount(result.balanceMinor),
    currency: result.currency,
    releasedOrderIds: result.releasedOrderIds,
  }
}

/** Suspends an account: its keys answer 403, its dashboard sessions end (an ID not an account's is refused). */
export async function suspendAccount(
  deps: AccountsDeps,
  input: { account: string; reason: string | null },
): Promise<Account> {
  const reason = typeof input.reason === 'string' ? input.reason : null
  return deps.accounts.suspendAccount(input.account, reason, deps.actor)
}

/** Lifts an account's suspension. */
export async function reactivateAccount(deps: AccountsDeps, input: { account: string }): Promise<Account> {
  return deps.accounts.reactivateAccount(input.account, deps.actor)
}

/** Each environment's settings of the account, as `accounts update` prints them. */
export async function accountSettings(
  deps: Pick<OperatorContext, 'accounts'>,
  input: { account: string },
): Promise<Record<Environment, AccountSettings>> {
  const accountNumber = accountNumberOf(input.account)
  const read = (environment: Environment) => translated(() => deps.accounts.getSettings(accountNumber, environment), 2)
  return { sandbox: await read('sandbox'), live: await read('live') }
}

/**
 * Sets the price list an account's orders and quotes are priced on (docs/billing.md#price-lists): a list of the
 * active catalogue, or `default` (the catalogue's default list; the labs' costs when it has none). The checks, in
 * this order for both front ends: the account ID's form, the list's name, the account's existence.
 */
export async function setPriceList(
  deps: AccountsDeps & { catalogueVersions: Pick<OperatorContext['catalogueVersions'], 'activeCatalogue'> },
  input: { account: string; list: string },
): Promise<Account> {
  if (parseId('acc', input.account) === undefined) {
    throw new OperatorRefusal({ field: 'account', reason: 'not-an-id' }, input.account)
  }
  const name = input.list.trim()
  let priceList: string | null = null
  if (name.toLowerCase() !== DEFAULT_PRICE_LIST) {
    const lists = (await deps.catalogueVersions.activeCatalogue()).priceLists
    if (lists.find(name) === undefined) {
      throw new OperatorRefusal({ field: 'list', reason: 'unknown-price-list' }, input.list, { choices: lists.names })
    }
    priceList = name
  }
  return deps.accounts.setPriceList(input.account, priceList, deps.actor).catch((error: unknown) => {
    if (error instanceof AccountError) throw new OperatorRefusal({ field: 'account', reason: 'unknown' }, input.account)
    throw error
  })
}

/** The account's latest money movements, newest first, at most `limit`. */
export async function recentLedger(
  deps: Pick<OperatorContext, 'accounts'>,
  input: { account: string; limit: number },
): Promise<ConsoleLedgerEntry[]> {
  return (await deps.accounts.listRecentLedger(input.account, input.limit)).map((row) => ({
    at: row.createdAt.toISOString(),
    entry: row.entry,
    orderId: row.orderNumber === null ? null : formatId('ord', row.orderNumber),
    chargeId: row.chargeId,
    amount: formatMinorAsAmount(row.amountMinor),
    currency: row.currency,
    reference: row.reference,
  }))
}

/** An edit of an account as both front ends take it: text as the operator typed it, only the fields given change. */
export interface AccountEditInput {
  account: string
  name?: string
  /** `invoice` or `prepaid`. */
  billingMode?: string
  /** A three-letter currency code the catalogue has a rate for. */
  billingCurrency?: string
  /** A price list of the active catalogue, or `default`. */
  priceList?: string
  /** An amount such as 500.00 (0 allowed), or `none` for no limit. */
  creditLimit?: string
  /** The version the operator read (the console's form carries it); none: whatever the account has now. */
  expectedVersion?: number | string
}

/**
 * Edits an account's name, billing mode, currency, price list and credit limit (docs/admin.md#editing-an-account).
 * The checks, in this order for both front ends: the account ID's form, the version's, the billing mode's, the credit
 * limit's, the price list's name; then, under the account's lock, the version, the name, the currency and the money
 * rules (domain/credit-limits.ts). Every refusal is an OperatorRefusal, which each front end words.
 */
export async function editAccount(
  deps: AccountsDeps & { catalogueVersions: Pick<OperatorContext['catalogueVersions'], 'activeCatalogue'> },
  input: AccountEditInput,
): Promise<Account> {
  if (parseId('acc', input.account) === undefined) {
    throw new OperatorRefusal({ field: 'account', reason: 'not-an-id' }, input.account)
  }
  const givenVersion = input.expectedVersion
  const version = givenVersion === undefined || givenVersion === '' ? undefined : Number(givenVersion)
  if (version !== undefined && !Number.isSafeInteger(version)) {
    throw new OperatorRefusal({ field: 'version', reason: 'not-a-version' }, String(input.expectedVersion))
  }
  const edit: AccountEdit = {}
  if (input.name !== undefined) edit.name = input.name
  if (input.billingCurrency !== undefined) edit.billingCurrency = input.billingCurrency
  if (input.billingMode !== undefined) {
    const mode = input.billingMode.trim().toLowerCase()
    if (mode !== 'invoice' && mode !== 'prepaid') {
      throw new OperatorRefusal({ field: 'billingMode', reason: 'not-a-mode' }, input.billingMode)
    }
    edit.billingMode = mode
  }
  if (input.creditLimit !== undefined) {
    const limit = creditLimitMinorOf(input.creditLimit)
    if (limit === undefined)
      throw new OperatorRefusal({ field: 'creditLimit', reason: 'not-an-amount' }, input.creditLimit)
    edit.creditLimitMinor = limit
  }
  if (input.priceList !== undefined) {
    // The list the account has stays valid for it even when the active catalogue no longer has it (a form shows it).
    const current = (await deps.accounts.getAccount(input.account).catch(() => undefined))?.priceList ?? null
    const given = input.priceList.trim()
    if (given !== (current ?? DEFAULT_PRICE_LIST)) edit.priceList = await priceListOf(deps, input.priceList)
  }
  return deps.accounts.editAccount(input.account, edit, version, deps.actor)
}

/** A price list's name checked against the active catalogue: null for `default`. */
async function priceListOf(
  deps: { catalogueVersions: Pick<OperatorContext['catalogueVersions'], 'activeCatalogue'> },
  given: string,
): Promise<string | null> {
  const name = given.trim()
  if (name.toLowerCase() === DEFAULT_PRICE_LIST) return null
  const lists = (await deps.catalogueVersions.activeCatalogue()).priceLists
  if (lists.find(name) === undefined) {
    throw new OperatorRefusal({ field: 'priceList', reason: 'unknown-price-list' }, given, { choices: lists.names })
  }
  return name
}
