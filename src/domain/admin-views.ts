// What the operator console's orders, labs and callbacks pages show (docs/admin.md), read across every account:
// services/admin-views.service.ts builds these views and dashboard/admin/<section>.pages.ts shows them.
import type { Environment } from './environment.ts'
import type { LabQuality } from './lab-quality.ts'

// ---- accounts -----------------------------------------------------------------------------------------------------

/** One movement of the account's money (a charge, a refund, a top-up, a card payment), newest first. */
export interface ConsoleLedgerEntry {
  at: string
  /** `balance-charge`, `invoice-charge`, `top-up`, ... */
  entry: string
  orderId: string | null
  chargeId: string | null
  /** Signed decimal amount: money in positive, out negative. */
  amount: string
  currency: string
  reference: string | null
}

// ---- catalogue ----------------------------------------------------------------------------------------------------

/**
 * A refusal of the catalogue versions service as the console shows it: the reason (its first line), and for a file
 * every problem found in it.
 */
export interface ConsoleCatalogueRefusal {
  refused: string
  problems: readonly string[]
}

// ---- orders -----------------------------------------------------------------------------------------------------

/**
 * The status filter: an order's stage, or one of two holds that cut across stages (awaiting payment, still in the
 * account's pause window, which the merchant's own list hides).
 */
export const ADMIN_ORDER_STATUSES = ['InProgress', 'Complete', 'Cancelled', 'AwaitingPayment', 'OnHold'] as const
export type AdminOrderStatus = (typeof ADMIN_ORDER_STATUSES)[number]

export interface AdminOrderQuery {
  /** `ord_N` finds that order, `acc_N` that account's orders; any other text, merchant references containing it. */
  search: string | null
  environment: Environment | null
  status: AdminOrderStatus | null
  skip: number
  /** Rows wanted (the service reads one more to know whether there are more). */
  top: number
}

export interface AdminOrderRow {
  orderId: string
  accountId: string
  accountName: string
  environment: Environment
  stage: string
  merchantReference: string | null
  /** ISO instant. */
  created: string
  /** ISO instant while the order waits in its account's pause window; null otherwise. */
  onHoldUntil: string | null
  awaitingPayment: boolean
}

// ---- labs -------------------------------------------------------------------------------------------------------

/** The health of a lab's push endpoint (docs/pipeline.md#jobs-pushed-to-labs), from its deliveries. */
export interface AdminLabPushHealth {
  url: string
  /** ISO instant of the last delivered push; null when none was. */
  lastDeliveredAt: string | null
  /** ISO instant of the first failed attempt since the last delivered one; null while it is not failing. */
  failingSince: string | null
  /** The newest failed attempt's error while failing; null otherwise. */
  lastError: string | null
}

export interface AdminLabRow {
  code: string
  name: string
  countryCode: string
  paused: boolean
  /** null: the lab has no push endpoint (it polls the lab API). */
  push: AdminLabPushHealth | null
  /** ISO instant of the lab's last report on a Live job (acknowledged, in production, shipped, rejected); null if none. */
  lastReportAt: string | null
  /** Live jobs given to the lab and not yet shipped, rejected or cancelled. */
  jobsInFlight: number
  /** Jobs in flight past their ship-by date (in the lab's calendar); those without a ship-by date are not counted. */
  overdueJobs: number
  /** Live jobs submitted in the last 30 days (LAB_REJECTION_WINDOW_DAYS), and how many of them the lab rejected. */
  rejections: { submitted: number; rejected: number }
  /** Median seconds from submission to dispatch of the jobs dispatched in the last 7 and 30 days; null without any. */
  medianDispatchSeconds: { last7Days: number | null; last30Days: number | null }
  /** Upheld claims per 1,000 items shipped over 90 days, with its threshold (docs/allocation.md#lab-quality). */
  quality?: LabQuality
}

/** A lab key change the labs service refused (an unknown lab or key, an overlap out of bounds): the reason, in words. */
export interface LabRefusal {
  refused: string
}

// ---- callbacks --------------------------------------------------------------------------------------------------

/** What the console shows of a failing endpoint, a merchant's callback URL or a lab's push URL alike. */
export interface FailingEndpointFacts {
  /** The URL the newest failed attempt was sent to. */
  url: string
  /** ISO instant of the first failed attempt since the last successful one (or since the oldest kept attempt). */
  failingSince: string
  /** Deliveries with a failed attempt since the last success (each retried delivery counts once). */
  failedDeliveries: number
  /** The newest failed attempt's error (`HTTP 500`, a connection error), with the start of its answer if any. */
  lastError: string
  lastAttemptAt: string
  /** ISO instant of the last successful attempt; null when none is kept. */
  lastSuccessAt: string | null
}

export interface FailingCallbackEndpoint extends FailingEndpointFacts {
  accountId: string
  accountName: string
  environment: Environment
}

export interface FailingLabEndpoint extends FailingEndpointFacts {
  labCode: string
}

/** A merchant's webhook endpoint that is failing or was disabled for failing (docs/callbacks.md#webhook-endpoints). */
export interface FailingWebhookEndpoint {
  accountId: string
  accountName: string
  environment: Environment
  webhookId: string
  url: string
  /** ISO instant; null when it is disabled and no longer failing-since (never, as printroute disables it). */
  failingSince: string | null
  /** When printroute disabled it for failing; null while it is enabled (and failing). */
  disabledAt: string | null
  /** The newest failed attempt's error with the start of its answer; null when none is kept. */
  lastError: string | null
  lastAttemptAt: string | null
}

/** A storefront channel of any account as the console's channels page lists it (docs/admin.md#channels). */
export interface AdminChannelRow {
  channelId: string
  accountId: string
  accountName: string
  environment: Environment
  type: 'shopify' | 'woocommerce'
  /** The shop domain (Shopify) or store address (WooCommerce). */
  store: string
  name: string | null
  status: 'active' | 'failing' | 'uninstalled'
  statusReason: string | null
  /** Store orders waiting as "not connected" (an item with no link). */
  notConnected: number
  /** Shipments the store has not taken yet after a failed attempt (failing, or refused for good). */
  failingFulfilments: number
  /** When the channel last received a store order; null when it has received none. */
  lastOrderAt: string | null
}
