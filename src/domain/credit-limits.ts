// Credit limits of invoice accounts (docs/billing.md#credit-limits) and the rules of an operator's edit of an account
// (docs/admin.md#editing-an-account): pure, so that the billing service, the operator's action and their tests share
// one arithmetic and one order of checks.
import { formatMinorAsAmount, parseAmountToMinor } from './money.ts'
import { OperatorRefusal } from './operator-refusal.ts'

export type BillingMode = 'invoice' | 'prepaid'

/** Longest account name an edit takes. */
export const ACCOUNT_NAME_MAX_LENGTH = 200

/**
 * Whether a Live charge that takes the account's open amount to `openAfterMinor` is held for payment: only when
 * the account has a limit and the open amount would then be above it (reaching the limit exactly is allowed).
 * The open amount counts the charges of orders already held, so once one order waits, every later one waits too:
 * what goes on to the labs on credit never takes the open amount above the limit.
 */
export function exceedsCreditLimit(openAfterMinor: bigint, limitMinor: bigint | null): boolean {
  return limitMinor !== null && openAfterMinor > limitMinor
}

/**
 * A credit limit as the operator types it, in minor units: a decimal with at most 10 whole digits and two decimals
 * (0 allowed: nothing on credit), or `none` / empty for no limit (null); undefined for anything else.
 */
export function creditLimitMinorOf(text: string): bigint | null | undefined {
  const trimmed = text.trim()
  if (trimmed === '' || trimmed.toLowerCase() === 'none') return null
  return /^\d{1,10}(\.\d{1,2})?$/.test(trimmed) ? parseAmountToMinor(trimmed) : undefined
}

/** An account's fields an edit may change, as they are. */
export interface EditableAccount {
  name: string
  billingMode: BillingMode
  billingCurrency: string
  priceList: string | null
  creditLimitMinor: bigint | null
}

/** What the rules of an edit look at besides the account's fields, read under the account's row lock. */
export interface AccountMoneyFacts {
  /** The prepaid balance (minor units of the current currency). */
  balanceMinor: bigint
  /** What the account owes on its Live invoices (docs/billing.md#the-merchants-billing), in the current currency. */
  openAmountMinor: bigint
  /** Live orders still in progress that are being billed in the current currency. */
  liveOrdersInProgress: number
}

/** An edit: only the fields given change. */
export type AccountEdit = Partial<EditableAccount>

/**
 * The account as the edit leaves it, or the first refusal, in this order: the name, the currency's form, a
 * currency change while money is open in the current one (the balance first, then the open amount, then orders in
 * progress), a switch to invoice billing with a balance left, a limit on an account left prepaid. A switch to prepaid
 * without a limit given removes the limit (a prepaid account has no credit).
 */
export function applyAccountEdit(
  accountId: string,
  current: EditableAccount,
  facts: AccountMoneyFacts,
  edit: AccountEdit,
): EditableAccount {
  const next: EditableAccount = { ...current, ...definedOf(edit) }
  if (edit.name !== undefined) {
    const name = edit.name.trim()
    if (name === '') throw new OperatorRefusal({ field: 'name', reason: 'missing' }, edit.name)
    if (name.length > ACCOUNT_NAME_MAX_LENGTH) throw new OperatorRefusal({ field: 'name', reason: 'too-long' }, name)
    next.name = name
  }
  if (edit.billingCurrency !== undefined) {
    next.billingCurrency = edit.billingCurrency.trim().toUpperCase()
    if (!/^[A-Z]{3}$/.test(next.billingCurrency)) {
      throw new OperatorRefusal({ field: 'currency', reason: 'not-a-currency' }, edit.billingCurrency)
    }
  }
  const money = (minor: bigint) => `${formatMinorAsAmount(minor)} ${current.billingCurrency}`
  if (next.billingCurrency !== current.billingCurrency) {
    if (facts.balanceMinor !== 0n) {
      throw new OperatorRefusal({ field: 'currency', reason: 'balance-left' }, accountId, {
        limit: money(facts.balanceMinor),
      })
    }
    if (facts.openAmountMinor !== 0n) {
      throw new OperatorRefusal({ field: 'currency', reason: 'open-amount' }, accountId, {
        limit: money(facts.openAmountMinor),
      })
    }
    if (facts.liveOrdersInProgress > 0) {
      throw new OperatorRefusal({ field: 'currency', reason: 'orders-in-progress' }, accountId, {
        limit: String(facts.liveOrdersInProgress),
      })
    }
  }
  if (current.billingMode === 'prepaid' && next.billingMode === 'invoice' && facts.balanceMinor !== 0n) {
    throw new OperatorRefusal({ field: 'billingMode', reason: 'balance-left' }, accountId, {
      limit: money(facts.balanceMinor),
    })
  }
  if (next.billingMode === 'prepaid' && next.creditLimitMinor !== null) {
    if (edit.creditLimitMinor !== undefined && edit.creditLimitMinor !== null) {
      throw new OperatorRefusal({ field: 'creditLimit', reason: 'prepaid' }, accountId)
    }
    next.creditLimitMinor = null
  }
  return next
}

/** The edit's fields that are given (an explicit null, "no limit" or "the default list", counts as given). */
function definedOf(edit: AccountEdit): AccountEdit {
  return Object.fromEntries(Object.entries(edit).filter(([, value]) => value !== undefined)) as AccountEdit
}

/** The fields that differ between two states of an account, each as the audit trail records it. */
export function accountEditDifference(
  before: EditableAccount,
  after: EditableAccount,
): { before: Record<string, string | null>; after: Record<string, string | null> } {
  const shown = (account: EditableAccount): Record<string, string | null> => ({
    name: account.name,
    billingMode: account.billingMode,
    billingCurrency: account.billingCurrency,
    priceList: account.priceList,
    creditLimit: account.creditLimitMinor === null ? null : formatMinorAsAmount(account.creditLimitMinor),
  })
  const was = shown(before)
  const is = shown(after)
  const changed = Object.keys(is).filter((key) => was[key] !== is[key])
  return {
    before: Object.fromEntries(changed.map((key) => [key, was[key] ?? null])),
    after: Object.fromEntries(changed.map((key) => [key, is[key] ?? null])),
  }
}
