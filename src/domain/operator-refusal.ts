// A refusal of an operator action that the command line and the console word differently: the action's one
// function (services/operator/) says which field was wrong, why, and the value given; each front end renders it
// in its own words (cli/operator-refusal-words.ts, web/operator/refusal-words.ts), so neither's output changes
// when the rule moves, and the rule's check order is one.

/** What was wrong: the field the operator gave, and the reason it is refused. */
export type OperatorRefusalKind =
  /** The text is not an account ID (acc_<number>). */
  | { field: 'account'; reason: 'not-an-id' }
  /** No account has this ID. */
  | { field: 'account'; reason: 'unknown' }
  /** The account is billed by invoice: only prepaid accounts have a balance to top up. */
  | { field: 'account'; reason: 'not-prepaid' }
  /** A top-up's amount is not a positive amount with at most 10 whole digits and two decimals. */
  | { field: 'amount'; reason: 'not-a-positive-amount' }
  /** The active catalogue has no price list of this name (docs/billing.md#price-lists); `choices` are its lists. */
  | { field: 'list'; reason: 'unknown-price-list' }

export type OperatorRefusalField = OperatorRefusalKind['field']
export type OperatorRefusalReason = OperatorRefusalKind['reason']

export class OperatorRefusal extends Error {
  readonly field: OperatorRefusalField
  readonly reason: OperatorRefusalReason
  /** The value as the operator gave it. */
  readonly value: string
  /** What the field takes, where the refusal lists it (a price list's name: the catalogue's lists). */
  readonly choices: readonly string[]
  constructor(kind: OperatorRefusalKind, value: string, choices: readonly string[] = []) {
    // Neither front end shows this message: each renders field, reason and value in its own words.
    super(`${kind.field}: ${kind.reason} ("${value}")`)
    this.name = 'OperatorRefusal'
    this.field = kind.field
    this.reason = kind.reason
    this.value = value
    this.choices = choices
  }
}

/** Why an account billed by invoice takes no top-up: only prepaid accounts have a balance (both front ends' words). */
export function onlyPrepaidAccountsHaveABalance(accountId: string): string {
  return `${accountId} is billed by invoice; only prepaid accounts have a balance`
}

/** Why a price list's name is refused (both front ends' words): the lists the active catalogue has. */
export function unknownPriceList(name: string, choices: readonly string[]): string {
  const lists = choices.length === 0 ? 'it has none' : `its lists: ${choices.join(', ')}`
  return `The active catalogue has no price list "${name}" (${lists}), or give "default" for its default list`
}
