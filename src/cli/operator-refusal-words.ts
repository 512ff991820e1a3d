// The command line's words for an operator action's refusal (domain/operator-refusal.ts): the flag that was wrong
// and what it takes. The console words the same refusals its own way (web/operator/refusal-words.ts).
import { CLAIM_DECISIONS } from '../domain/claim-resolution.ts'
import {
  accountEditRefusalWords,
  claimRefusalWords,
  type OperatorRefusal,
  ORDER_ACTION_REASON_MAX_LENGTH,
  ORDER_NOTE_MAX_LENGTH,
  onlyPrepaidAccountsHaveABalance,
  orderRefusalWords,
  unknownPriceList,
} from '../domain/operator-refusal.ts'

export function refusalInCommandWords(refusal: OperatorRefusal): string {
  switch (refusal.field) {
    case 'account':
      if (refusal.reason === 'not-an-id') return `"${refusal.value}" is not an account ID (expected acc_<number>)`
      if (refusal.reason === 'not-prepaid') return onlyPrepaidAccountsHaveABalance(refusal.value)
      if (refusal.reason === 'changed') return accountEditRefusalWords(refusal)
      return `No account ${refusal.value}`
    case 'list':
      return `--list: ${unknownPriceList(refusal.value, refusal.choices)}`
    case 'priceList':
      return `--price-list: ${unknownPriceList(refusal.value, refusal.choices)}`
    case 'amount':
      return refusal.reason === 'more-than-refundable'
        ? `--amount: at most ${refusal.limit ?? '0.00'} can be refunded, got "${refusal.value}"`
        : `--amount must be a positive amount such as 50.00, got "${refusal.value}"`
    case 'order':
      return refusal.reason === 'not-an-id'
        ? `"${refusal.value}" is not an order ID (expected ord_<number>)`
        : orderRefusalWords(refusal)
    case 'charge':
      return `--charge: ${refusal.value} is not a charge of the order that took money`
    case 'asset':
      return `--asset: ${refusal.value} is not an asset of the order whose download failed`
    case 'reason':
      return refusal.reason === 'missing'
        ? '--reason is required (it is kept in the audit trail)'
        : `--reason must be at most ${ORDER_ACTION_REASON_MAX_LENGTH} characters`
    case 'note':
      return refusal.reason === 'missing'
        ? 'the note is required (--reason TEXT)'
        : `the note must be at most ${ORDER_NOTE_MAX_LENGTH} characters`
    case 'name':
    case 'billingMode':
    case 'currency':
    case 'creditLimit':
    case 'version':
      return `${EDIT_FLAGS[refusal.field]}: ${accountEditRefusalWords(refusal)}`
    case 'claim':
      return claimRefusalWords(refusal)
    case 'resolution':
      return `--resolution must be one of ${CLAIM_DECISIONS.join(', ')}, got "${refusal.value}"`
  }
}

/** The flag of each field of `accounts edit`. */
const EDIT_FLAGS = {
  name: '--name',
  billingMode: '--billing-mode',
  currency: '--currency',
  creditLimit: '--credit-limit',
  version: '--expect-version',
} as const
