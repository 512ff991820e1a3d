// What printroute needs from a hosted-checkout card provider: a page to pay an amount at, a page to save a card
// at, a charge of a saved card while the merchant is away, refunds, and the provider's signed webhooks read into
// one event shape. Modelled on Stripe (adapters/stripe-gateway.ts), written in printroute's words so the services
// that use it never name a provider's field. Types only: domain/ stays pure.
//
// Money is what money.ts holds: `amountMinor` in hundredths of the currency's unit (pence, cents; for JPY too),
// `currency` an upper-case ISO 4217 code. An adapter converts to its provider's own unit.

/** What a hosted payment pays for; carried through the provider and back in its webhook. */
export type PaymentPurpose = 'orderPayment' | 'topUp'

/** Whether a hosted session takes a payment or only saves a card. */
export type PaymentSessionMode = 'payment' | 'setup'

export interface StartHostedPaymentRequest {
  readonly purpose: PaymentPurpose
  readonly accountId: string
  /** The order paid for; only with purpose `orderPayment`. */
  readonly orderId?: string
  readonly currency: string
  /** Hundredths of the currency's unit; positive. */
  readonly amountMinor: bigint
  /** Shown to the payer on the provider's page and statement line. */
  readonly description: string
  /** The provider's customer of the account, when it has one (the page then offers its saved card). */
  readonly customerId?: string
  /** Where the provider sends the payer after paying / after giving up. */
  readonly successUrl: string
  readonly cancelUrl: string
  /** The same key always answers the same session, however often the call is repeated. */
  readonly idempotencyKey: string
}

export interface HostedPaymentSession {
  readonly sessionId: string
  /** The provider's page to send the payer to (303). */
  readonly url: string
  /** After this the page no longer takes a payment. */
  readonly expiresAt: Date
}

export interface StartCardSetupRequest {
  readonly accountId: string
  /** The account's customer at the provider, when one was stored; otherwise one is created and returned. */
  readonly customerId?: string
  /** For the provider's customer record and receipts; optional. */
  readonly email?: string
  readonly successUrl: string
  readonly cancelUrl: string
  readonly idempotencyKey: string
}

export interface CardSetupSession {
  readonly sessionId: string
  readonly url: string
  readonly expiresAt: Date
  /** The provider's customer of the account (new or the one passed in): store it on the account. */
  readonly customerId: string
}

/** A card saved by a completed setup session: what to charge later and what to show. */
export interface SavedCard {
  readonly customerId: string
  readonly paymentMethodId: string
  /** Display only; null when the provider did not say. */
  readonly brand: string | null
  readonly last4: string | null
  readonly expiryMonth: number | null
  readonly expiryYear: number | null
}

export interface ChargeSavedCardRequest {
  readonly accountId: string
  readonly orderId?: string
  readonly customerId: string
  readonly paymentMethodId: string
  readonly currency: string
  readonly amountMinor: bigint
  readonly description: string
  /** The order's charge id: a retry after a timeout or a restart finds the first attempt instead of paying twice. */
  readonly idempotencyKey: string
}

/**
 * - `succeeded`: the money is taken.
 * - `requiresAction`: the card's bank wants the cardholder (3-D Secure): send them to a hosted payment.
 * - `declined`: the card was refused; `declineReason` is the provider's code (`insufficient_funds`, ...).
 * - `pending`: accepted but not settled yet (rare for cards): the sweeper reads it again later (readPayment).
 */
export type OffSessionChargeStatus = 'succeeded' | 'requiresAction' | 'declined' | 'pending'

export interface OffSessionChargeResult {
  readonly status: OffSessionChargeStatus
  /** The provider's payment (Stripe: PaymentIntent id); null only when a decline left none. */
  readonly paymentId: string | null
  readonly declineReason?: string
}

export interface RefundRequest {
  readonly paymentId: string
  /** Hundredths of the payment's currency; at most what is left unrefunded. */
  readonly amountMinor: bigint
  readonly currency: string
  /** The credit note's or refund's own id: repeating it never refunds twice. */
  readonly idempotencyKey: string
}

export type RefundStatus = 'succeeded' | 'pending' | 'requiresAction' | 'failed' | 'canceled'

export interface RefundResult {
  readonly refundId: string
  readonly status: RefundStatus
  readonly amountMinor: bigint
}

/** A refund read back (the sweeper's question about a refund left `pending`): where it is now. */
export interface RefundState {
  readonly refundId: string
  readonly status: RefundStatus
  /** The provider's reason for a failed or canceled refund (`expired_or_canceled_card`, ...); null otherwise. */
  readonly failureReason: string | null
}

/** A hosted session read back (the sweeper's question when a webhook is late or missing). */
export interface HostedSessionState {
  readonly sessionId: string
  readonly mode: PaymentSessionMode
  readonly status: 'open' | 'complete' | 'expired'
  /** True once the money is taken (payment mode) or the card saved (setup mode). */
  readonly paid: boolean
  readonly purpose: PaymentPurpose | null
  readonly accountId: string | null
  readonly orderId: string | null
  readonly amountMinor: bigint | null
  readonly currency: string | null
  readonly paymentId: string | null
  readonly customerId: string | null
  /** Setup mode: read the saved card with readSavedCard(setupId). */
  readonly setupId: string | null
}

/** What every verified webhook event carries. */
interface PaymentEventBase {
  /** The provider's event id: store each once, a redelivery changes nothing. */
  readonly eventId: string
  /** False for the provider's test mode: a Live environment must not count test money. */
  readonly livemode: boolean
  readonly createdAt: Date
}

export type PaymentEvent =
  | (PaymentEventBase & {
      readonly kind: 'checkoutCompleted'
      readonly sessionId: string
      readonly mode: PaymentSessionMode
      readonly purpose: PaymentPurpose | null
      readonly accountId: string | null
      readonly orderId: string | null
      /** Payment mode: what was paid, and whether it is (`paid`: false for a delayed method still settling). */
      readonly paid: boolean
      readonly amountMinor: bigint | null
      readonly currency: string | null
      readonly paymentId: string | null
      readonly customerId: string | null
      /** Setup mode: the saved card is read with readSavedCard(setupId) by the queued work. */
      readonly setupId: string | null
      /** Present only when the provider put it in the event itself. */
      readonly paymentMethodId: string | null
    })
  | (PaymentEventBase & {
      readonly kind: 'refunded'
      readonly paymentId: string
      /** The payment's total refunded so far (not this refund's amount). */
      readonly amountRefundedMinor: bigint
      readonly currency: string
    })
  | (PaymentEventBase & {
      /**
       * A refund's status changed at the provider after it answered (Stripe: `charge.refund.updated`,
       * `refund.updated`, `refund.failed`): a refund answered `pending` may end `failed` or `canceled` days later.
       */
      readonly kind: 'refundUpdated'
      readonly refundId: string
      readonly status: RefundStatus
      /** The provider's reason when `failed` or `canceled`; null otherwise. */
      readonly failureReason: string | null
      readonly paymentId: string | null
      readonly amountMinor: bigint
      readonly currency: string
    })
  | (PaymentEventBase & {
      readonly kind: 'disputeOpened' | 'disputeClosed'
      readonly paymentId: string
      readonly disputeId: string
      readonly amountMinor: bigint
      readonly currency: string
      /** The provider's reason (`fraudulent`, `product_not_received`, ...). */
      readonly reason: string
      /** The provider's status (`needs_response`, `won`, `lost`, ...). */
      readonly status: string
    })
  | (PaymentEventBase & { readonly kind: 'other'; readonly type: string })

/** The events the dispatcher hands to the services that handle them (services/payment-events.service.ts). */
export type CheckoutCompletedEvent = Extract<PaymentEvent, { kind: 'checkoutCompleted' }>
export type RefundedEvent = Extract<PaymentEvent, { kind: 'refunded' }>
export type RefundUpdatedEvent = Extract<PaymentEvent, { kind: 'refundUpdated' }>
export type DisputeEvent = Extract<PaymentEvent, { kind: 'disputeOpened' | 'disputeClosed' }>

export type PaymentGatewayErrorCode =
  /** A webhook's signature is missing, wrong or too old: answer 400 and store nothing. */
  | 'badSignature'
  /** The provider asked to slow down (429). */
  | 'rateLimited'
  /** The provider failed (5xx), timed out or could not be reached. */
  | 'unavailable'
  /** The secret key was refused (401/403): a setting to fix, not to retry. */
  | 'unauthorised'
  /** The same idempotency key was used for a different request. */
  | 'idempotencyConflict'
  /** The provider refused the request's content (4xx), or an amount/currency it cannot take. */
  | 'invalidRequest'
  | 'notFound'

/** A provider call that failed. The message never carries a secret key or a webhook secret. */
export class PaymentGatewayError extends Error {
  readonly code: PaymentGatewayErrorCode
  /** Worth trying again later with the same idempotency key (429, 5xx, timeouts, network). */
  readonly retryable: boolean
  /** The provider's HTTP status; null when no answer came. */
  readonly status: number | null
  /** The provider's request id, for its support; null when none. */
  readonly requestId: string | null

  constructor(
    message: string,
    code: PaymentGatewayErrorCode,
    retryable: boolean,
    status: number | null = null,
    requestId: string | null = null,
  ) {
    super(message)
    this.name = 'PaymentGatewayError'
    this.code = code
    this.retryable = retryable
    this.status = status
    this.requestId = requestId
  }
}

export interface PaymentGateway {
  /** `stripe`, for logs and the ledger's provider column. */
  readonly name: string
  startHostedPayment(request: StartHostedPaymentRequest): Promise<HostedPaymentSession>
  startCardSetup(request: StartCardSetupRequest): Promise<CardSetupSession>
  readSavedCard(setupId: string): Promise<SavedCard>
  chargeSavedCard(request: ChargeSavedCardRequest): Promise<OffSessionChargeResult>
  refund(request: RefundRequest): Promise<RefundResult>
  readSession(sessionId: string): Promise<HostedSessionState>
  /**
   * A card payment read back (the sweeper's question about a charge of a saved card left `pending`): where it is
   * now, in the same words as chargeSavedCard's answer.
   */
  readPayment(paymentId: string): Promise<OffSessionChargeResult>
  /** A refund read back (the sweeper's question about a refund left `pending`): its status and failure reason. */
  readRefund(refundId: string): Promise<RefundState>
  /** Verifies the signature header over the raw body (no network); throws PaymentGatewayError `badSignature`. */
  verifyWebhook(rawBody: Buffer | string, signatureHeader: string | undefined): PaymentEvent
}
