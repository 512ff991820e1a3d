// An account and its keys as listings show them (the console, the command line): services/accounts.service.ts builds
// them, dashboard/admin/accounts.pages.ts shows them.
import type { Environment } from './environment.ts'
import type { KeyScope } from './key-scopes.ts'

/** An account as the console and the command line show it. */
export interface Account {
  id: string
  name: string
  billingCurrency: string
  billingMode: 'invoice' | 'prepaid'
  /** Prepaid balance as a decimal amount in the billing currency ("0.00" for invoice accounts). */
  balance: string
  pauseWindowSeconds: number
  /** Each environment's callback URL. */
  callbackUrls: Record<Environment, string | null>
  created: string
  /** When the operator suspended the account (its keys answer 403); null when it is not suspended. */
  suspended: string | null
  /** The operator's reason for the suspension, when one was given. */
  suspendedReason: string | null
  /** The price list its orders and quotes are priced on (docs/billing.md#price-lists); null: the default list. */
  priceList?: string | null
  /**
   * Invoice accounts: the most the account may owe before its Live orders wait for payment, a decimal amount in the
   * billing currency (docs/billing.md#credit-limits); null: no limit.
   */
  creditLimit?: string | null
  /** Raised by every edit of the account (docs/admin.md#editing-an-account): an edit names the version it read. */
  version?: number
}

/** A key as listings show it: never the key or its hash. */
export interface ApiKeyView {
  prefix: string
  environment: Environment
  created: string
  revoked: string | null
  scopes: KeyScope[] | null
  expiresAt: string | null
}
