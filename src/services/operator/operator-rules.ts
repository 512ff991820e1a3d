// The operator's rules that the command line and the console both apply, each in its own words around them.
import type { Environment } from '../../domain/environment.ts'
import { parseAmountToMinor } from '../../domain/money.ts'

/**
 * A top-up's amount in minor units: a positive decimal with at most 10 whole digits and two decimals (50, 50.5,
 * 50.00); undefined for anything else.
 */
export function topUpAmountMinor(amount: string): bigint | undefined {
  const amountMinor = /^\d{1,10}(\.\d{1,2})?$/.test(amount) ? parseAmountToMinor(amount) : undefined
  return amountMinor === undefined || amountMinor <= 0n ? undefined : amountMinor
}

/** Why an account billed by invoice takes no top-up: only prepaid accounts have a balance. */
export function onlyPrepaidAccountsHaveABalance(accountId: string): string {
  return `${accountId} is billed by invoice; only prepaid accounts have a balance`
}

/** A statement's file name: `statement-<account>-<YYYY-MM>[-sandbox].<csv|pdf>`. */
export function statementFileName(
  account: string,
  environment: Environment,
  month: string,
  format: 'csv' | 'pdf',
): string {
  return `statement-${account}-${month}${environment === 'sandbox' ? '-sandbox' : ''}.${format}`
}
