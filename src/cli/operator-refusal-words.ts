// The command line's words for an operator action's refusal (domain/operator-refusal.ts): the flag that was wrong
// and what it takes. The console words the same refusals its own way (web/operator/refusal-words.ts).
import { type OperatorRefusal, onlyPrepaidAccountsHaveABalance, unknownPriceList } from '../domain/operator-refusal.ts'

export function refusalInCommandWords(refusal: OperatorRefusal): string {
  switch (refusal.reason) {
    case 'not-an-id':
      return `"${refusal.value}" is not an account ID (expected acc_<number>)`
    case 'unknown':
      return `No account ${refusal.value}`
    case 'not-prepaid':
      return onlyPrepaidAccountsHaveABalance(refusal.value)
    case 'not-a-positive-amount':
      return `--amount must be a positive amount such as 50.00, got "${refusal.value}"`
    case 'unknown-price-list':
      return `--list: ${unknownPriceList(refusal.value, refusal.choices)}`
  }
}
