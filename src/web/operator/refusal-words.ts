// The console's words for an operator action's refusal (domain/operator-refusal.ts): the form's field by its
// label, what it needs. The command line words the same refusals its own way (cli/operator-refusal-words.ts).
import { CLAIM_DECISIONS } from '../../domain/claim-resolution.ts'
import {
  accountEditRefusalWords,
  claimRefusalWords,
  type OperatorRefusal,
  ORDER_ACTION_REASON_MAX_LENGTH,
  ORDER_NOTE_MAX_LENGTH,
  onlyPrepaidAccountsHaveABalance,
  orderRefusalWords,
  unknownPriceList,
} from '../../domain/operator-refusal.ts'

export function refusalInConsoleWords(refusal: OperatorRefusal): string {
  switch (refusal.field) {
    case 'account':
      return accountRefusal(refusal)
    case 'list':
    case 'priceList':
      return `Price list: ${unknownPriceList(refusal.value, refusal.choices)}`
    case 'amount':
      return refusal.reason === 'more-than-refundable'
        ? `Amount: at most ${refusal.limit ?? '0.00'} can be refunded, not "${refusal.value}"`
        : `Amount: a positive amount such as 50.00 is needed, not "${refusal.value}"`
    case 'order':
      return orderRefusalWords(refusal)
    case 'charge':
      return `Charge: ${refusal.value} is not a charge of this order that took money`
    case 'asset':
      return `Asset: ${refusal.value} is not an asset of this order whose download failed`
    case 'reason':
      return refusal.reason === 'missing'
        ? 'Reason: say why (it is kept in the audit trail)'
        : `Reason: at most ${ORDER_ACTION_REASON_MAX_LENGTH} characters`
    case 'note':
      return refusal.reason === 'missing'
        ? 'Note: write something'
        : `Note: at most ${ORDER_NOTE_MAX_LENGTH} characters`
    case 'name':
    case 'billingMode':
    case 'currency':
    case 'creditLimit':
    case 'version':
      return `${EDIT_LABELS[refusal.field]}: ${accountEditRefusalWords(refusal)}`
    case 'claim':
      return claimRefusalWords(refusal)
    case 'resolution':
      return `Decision: one of ${CLAIM_DECISIONS.join(', ')}, not "${refusal.value}"`
  }
}

function accountRefusal(refusal: OperatorRefusal): string {
  switch (refusal.reason) {
    case 'not-prepaid':
      return onlyPrepaidAccountsHaveABalance(refusal.value)
    case 'changed':
      return accountEditRefusalWords(refusal)
    default:
      // The account comes from the page's address: one that is no account's ID is no account.
      return `No account ${refusal.value}`
  }
}

/** The label of each field of the account's edit form. */
const EDIT_LABELS = {
  name: 'Name',
  billingMode: 'Billing mode',
  currency: 'Billing currency',
  creditLimit: 'Credit limit',
  version: 'Version',
} as const
