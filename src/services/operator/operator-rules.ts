// The operator's rules that the command line and the console both apply through the actions beside this file.
import type { Environment } from '../../domain/environment.ts'
import { parseAmountToMinor } from '../../domain/money.ts'

/**
 * A top-up's amount in minor units: a positive decimal with at most 10 whole digits and two decimals (50, 50.5,
 * 50.00); undefined for anything else.
 */
export function topUpAmountMinor(amount: string): bigint | undefined {
  return positiveAmountMinor(amount)
}

/** An operator's amount (a top-up's, a refund's) in minor units, by the rule topUpAmountMinor describes. */
export function positiveAmountMinor(amount: string): bigint | undefined {
  const amountMinor = /^\d{1,10}(\.\d{1,2})?$/.test(amount) ? parseAmountToMinor(amount) : undefined
  return amountMinor === undefined || amountMinor <= 0n ? undefined : amountMinor
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
