// The operator's actions on accounts: create, list, update settings, top up, suspend and reactivate.

import type { Account } from '../../domain/accounts.ts'
import { ENVIRONMENTS, type Environment } from '../../domain/environment.ts'
import { formatMinorAsAmount } from '../../domain/money.ts'
import type { AccountSettings, AccountSettingsChange } from '../accounts.service.ts'
import { accountNumberOf, type OperatorContext, refused, translated } from './context.ts'
import { onlyPrepaidAccountsHaveABalance, topUpAmountMinor } from './operator-rules.ts'

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

export async function createAccount(
  context: OperatorContext,
  input: AccountCreation,
): Promise<{ id: string; keys: Record<Environment, string> }> {
  const created = await translated(() => context.accounts.createAccount(input, context.actor))
  return { id: created.account.id, keys: { sandbox: created.keys.sandbox.key, live: created.keys.live.key } }
}

export async function listAccounts(context: OperatorContext): Promise<Account[]> {
  return context.accounts.listAccounts()
}

/**
 * Applies the change to each environment given (both when none is), in turn; the same change validates the
 * same way in each, so a refusal comes from the first, before anything changed. Returns every
 * environment's settings.
 */
export async function updateAccount(
  context: OperatorContext,
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

export async function topUp(
  context: OperatorContext,
  input: { account: string; amount: string; reference: string | null },
): Promise<TopUpResult> {
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
}

export async function suspendAccount(
  context: OperatorContext,
  input: { account: string; reason: string | null },
): Promise<Account> {
  accountNumberOf(input.account)
  const reason = typeof input.reason === 'string' ? input.reason : null
  return translated(() => context.accounts.suspendAccount(input.account, reason, context.actor), 2)
}

export async function reactivateAccount(context: OperatorContext, input: { account: string }): Promise<Account> {
  accountNumberOf(input.account)
  return translated(() => context.accounts.reactivateAccount(input.account, context.actor), 2)
}
