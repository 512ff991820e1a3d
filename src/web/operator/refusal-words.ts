// The console's words for an operator action's refusal (domain/operator-refusal.ts): the form's field by its
// label, what it needs. The command line words the same refusals its own way (cli/operator-refusal-words.ts).
import {
  type OperatorRefusal,
  onlyPrepaidAccountsHaveABalance,
  unknownPriceList,
} from '../../domain/operator-refusal.ts'

export function refusalInConsoleWords(refusal: OperatorRefusal): string {
  switch (refusal.reason) {
    // The account comes from the page's address: one that is no account's ID is no account.
    case 'not-an-id':
    case 'unknown':
      return `No account ${refusal.value}`
    case 'not-prepaid':
      return onlyPrepaidAccountsHaveABalance(refusal.value)
    case 'not-a-positive-amount':
      return `Amount: a positive amount such as 50.00 is needed, not "${refusal.value}"`
    case 'unknown-price-list':
      return `Price list: ${unknownPriceList(refusal.value, refusal.choices)}`
  }
}
