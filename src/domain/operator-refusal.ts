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
  /** A top-up's or a refund's amount is not a positive amount with at most 10 whole digits and two decimals. */
  | { field: 'amount'; reason: 'not-a-positive-amount' }
  /** The active catalogue has no price list of this name (docs/billing.md#price-lists); `choices` are its lists. */
  | { field: 'list'; reason: 'unknown-price-list' }
  /** A refund's amount is more than what the charge (or the order) has charged and not yet refunded. */
  | { field: 'amount'; reason: 'more-than-refundable' }
  /** The text is not an order ID (ord_<number>). */
  | { field: 'order'; reason: 'not-an-id' }
  /** No order has this ID. */
  | { field: 'order'; reason: 'unknown' }
  /**
   * The order changed since the operator read it (another operator, the merchant or its pipeline acted first): the
   * action was not taken; read the order again.
   */
  | { field: 'order'; reason: 'changed' }
  /** The order can no longer be cancelled (cancelled already, complete, or every shipment is past its lab's start). */
  | { field: 'order'; reason: 'not-cancellable' }
  /** The order has been charged nothing that can be refunded. */
  | { field: 'order'; reason: 'nothing-charged' }
  /** The order is neither held for payment nor in its pause window. */
  | { field: 'order'; reason: 'not-held' }
  /** The order has no asset whose download failed (an asset that failed its preflight needs a new file instead). */
  | { field: 'order'; reason: 'no-failed-download' }
  /** The charge is not one of the order's charges that took money. */
  | { field: 'charge'; reason: 'unknown' }
  /** The asset is not one of the order's assets whose download failed. */
  | { field: 'asset'; reason: 'not-failed' }
  /** An order action's reason is required (for the audit trail), at most 500 characters. */
  | { field: 'reason'; reason: 'missing' }
  | { field: 'reason'; reason: 'too-long' }
  /** A note's text is required, at most 2000 characters (a claim's rejection: its reason). */
  | { field: 'note'; reason: 'missing' }
  | { field: 'note'; reason: 'too-long' }
  /**
   * The account changed since the operator read it (another operator's edit came first): nothing was changed; read
   * it again. `value` is the account's ID.
   */
  | { field: 'account'; reason: 'changed' }
  /** An account's name is required, at most ACCOUNT_NAME_MAX_LENGTH characters. */
  | { field: 'name'; reason: 'missing' }
  | { field: 'name'; reason: 'too-long' }
  /** A billing mode is `invoice` or `prepaid`. */
  | { field: 'billingMode'; reason: 'not-a-mode' }
  /** Prepaid to invoice with a balance left: refund or use it first (`limit`: the balance). */
  | { field: 'billingMode'; reason: 'balance-left' }
  /** Not a three-letter currency code. */
  | { field: 'currency'; reason: 'not-a-currency' }
  /** The catalogue has no exchange rate for the currency, so nothing can be billed in it. */
  | { field: 'currency'; reason: 'no-rate' }
  /** The currency cannot change while the prepaid balance is not zero (`limit`: the balance). */
  | { field: 'currency'; reason: 'balance-left' }
  /** ... nor while Live invoices are open in the current currency (`limit`: the open amount). */
  | { field: 'currency'; reason: 'open-amount' }
  /** ... nor while Live orders billed in the current currency are in progress (`limit`: how many). */
  | { field: 'currency'; reason: 'orders-in-progress' }
  /** A credit limit is an amount such as 500.00 (0 allowed), or none. */
  | { field: 'creditLimit'; reason: 'not-an-amount' }
  /** A prepaid account has no credit: a limit applies to invoice accounts only. */
  | { field: 'creditLimit'; reason: 'prepaid' }
  /** An edit's price list (domain/credit-limits.ts): the active catalogue has no list of this name; `choices` are its lists. */
  | { field: 'priceList'; reason: 'unknown-price-list' }
  /** The version given is not a whole number. */
  | { field: 'version'; reason: 'not-a-version' }
  /** The text is not a claim ID (clm_<number>). */
  | { field: 'claim'; reason: 'not-an-id' }
  /** No claim has this ID. */
  | { field: 'claim'; reason: 'unknown' }
  /** The claim changed since the operator read it (its version): nothing was done; read it again. */
  | { field: 'claim'; reason: 'changed' }
  /** The claim is no longer Pending (resolved, rejected or retracted): `limit` is its status. */
  | { field: 'claim'; reason: 'not-pending' }
  /** No lab can make the reprint now: `limit` says why. */
  | { field: 'claim'; reason: 'cannot-reprint' }
  /** A claim's resolution is none of Reprint, Refund, Credit, Reject. */
  | { field: 'resolution'; reason: 'unknown' }

export type OperatorRefusalField = OperatorRefusalKind['field']
export type OperatorRefusalReason = OperatorRefusalKind['reason']

export class OperatorRefusal extends Error {
  readonly field: OperatorRefusalField
  readonly reason: OperatorRefusalReason
  /** The value as the operator gave it. */
  readonly value: string
  /** What the field takes, where the refusal lists it (a price list's name: the catalogue's lists). */
  readonly choices: readonly string[]
  /** What the refusal compares the value with, where it does (the refundable amount, with its currency). */
  readonly limit: string | undefined
  constructor(kind: OperatorRefusalKind, value: string, detail: { choices?: readonly string[]; limit?: string } = {}) {
    // Neither front end shows this message: each renders field, reason and value in its own words.
    super(`${kind.field}: ${kind.reason} ("${value}")`)
    this.name = 'OperatorRefusal'
    this.field = kind.field
    this.reason = kind.reason
    this.value = value
    this.choices = detail.choices ?? []
    this.limit = detail.limit
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

/**
 * Why an edit of an account refuses, for the refusals both front ends word alike (the field's name aside, which each
 * front end puts first: the flag, or the form's label).
 */
export function accountEditRefusalWords(refusal: OperatorRefusal): string {
  const open = refusal.limit ?? ''
  switch (`${refusal.field}:${refusal.reason}`) {
    case 'account:changed':
      return (
        `${refusal.value} changed since it was read (another operator edited it first): nothing was changed; ` +
        'read the account again and decide'
      )
    case 'name:missing':
      return 'the account name must not be empty'
    case 'name:too-long':
      return 'the account name must be at most 200 characters'
    case 'billingMode:not-a-mode':
      return `"${refusal.value}" is not a billing mode (invoice or prepaid)`
    case 'billingMode:balance-left':
      return (
        `${refusal.value} still has a prepaid balance of ${open}: it cannot be billed by invoice until the ` +
        'balance is used or refunded'
      )
    case 'currency:not-a-currency':
      return `"${refusal.value}" is not a currency code (expected e.g. GBP)`
    case 'currency:no-rate':
      return `the catalogue has no exchange rate for ${refusal.value}, so it cannot bill in it`
    case 'currency:balance-left':
      return `the currency of ${refusal.value} cannot change while it has a prepaid balance (${open})`
    case 'currency:open-amount':
      return `the currency of ${refusal.value} cannot change while it owes ${open} on Live invoices`
    case 'currency:orders-in-progress':
      return (
        `the currency of ${refusal.value} cannot change while ${open} Live order${open === '1' ? '' : 's'} billed ` +
        'in the current currency are in progress'
      )
    case 'creditLimit:not-an-amount':
      return `"${refusal.value}" is not a credit limit (an amount such as 500.00, 0, or none)`
    case 'creditLimit:prepaid':
      return `${refusal.value} is prepaid: a credit limit applies to accounts billed by invoice only`
    case 'version:not-a-version':
      return `"${refusal.value}" is not an account version (a whole number)`
    default:
      return `No account ${refusal.value}`
  }
}

/** Longest reason an order action takes (it is kept in the audit trail). */
export const ORDER_ACTION_REASON_MAX_LENGTH = 500
/** Longest note on an order. */
export const ORDER_NOTE_MAX_LENGTH = 2000

/** Why an order action refuses: the order changed since it was read (both front ends' words). */
export function orderChangedSinceRead(orderId: string): string {
  return (
    `${orderId} changed since it was read (another operator, the merchant or its fulfilment acted first): ` +
    'nothing was done; read the order again and decide'
  )
}

/**
 * Why an order action refuses, for a refusal about the order's state (both front ends' words); an order that is
 * unknown, or whose ID is no order ID, is "No order".
 */
export function orderRefusalWords(refusal: OperatorRefusal): string {
  switch (refusal.reason) {
    case 'changed':
      return orderChangedSinceRead(refusal.value)
    case 'not-cancellable':
      return `${refusal.value} can no longer be cancelled (already cancelled or complete, or its labs have started)`
    case 'nothing-charged':
      return `${refusal.value} has been charged nothing that can be refunded`
    case 'not-held':
      return `${refusal.value} is neither waiting for a payment nor in its pause window: nothing to release`
    case 'no-failed-download':
      return `${refusal.value} has no asset whose download failed`
    default:
      return `No order ${refusal.value}`
  }
}

/** Why a claim's resolution refuses, for a refusal about the claim (both front ends' words). */
export function claimRefusalWords(refusal: OperatorRefusal): string {
  switch (refusal.reason) {
    case 'not-an-id':
      return `"${refusal.value}" is not a claim ID (expected clm_<number>)`
    case 'changed':
      return (
        `${refusal.value} changed since it was read (another operator or the lab acted first): ` +
        'nothing was done; read the claim again and decide'
      )
    case 'not-pending':
      return `${refusal.value} is ${refusal.limit ?? 'no longer Pending'}: it was already decided, nothing was done`
    case 'cannot-reprint':
      return `${refusal.value} cannot be reprinted: ${refusal.limit ?? 'no lab can make it'}`
    default:
      return `No claim ${refusal.value}`
  }
}
