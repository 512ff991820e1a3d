// The payment gateway on Stripe (docs/billing.md#card-payments-through-stripe), through the official `stripe` library: Checkout Sessions
// for a hosted payment (mode payment) and for saving a card (mode setup, one Customer per account), PaymentIntents
// confirmed off-session for a saved card, Refunds, and webhooks verified with the library's own constructEvent.
// Every POST carries an idempotency key the caller chose, so a retry after a timeout or a restart finds the first
// attempt at Stripe instead of moving money twice. `apiUrl` points the library at a stand-in (tests).

import Stripe from 'stripe'
import type {
  CardSetupSession,
  ChargeSavedCardRequest,
  HostedPaymentSession,
  HostedSessionState,
  OffSessionChargeResult,
  PaymentEvent,
  PaymentGateway,
  PaymentPurpose,
  PaymentSessionMode,
  RefundRequest,
  RefundResult,
  RefundState,
  RefundStatus,
  SavedCard,
  StartCardSetupRequest,
  StartHostedPaymentRequest,
} from '../domain/payment-gateway.ts'
import { PaymentGatewayError } from '../domain/payment-gateway.ts'

export interface StripeGatewayOptions {
  /** `sk_live_...` / `sk_test_...` (or a restricted `rk_` key). Never logged. */
  readonly secretKey: string
  /** `whsec_...`: the signing secret of the webhook endpoint. Never logged. */
  readonly webhookSecret: string
  /** Stripe's API by default; `http://127.0.0.1:PORT` for a stand-in. Only protocol, host and port are used. */
  readonly apiUrl?: string
  /** One request's limit before it counts as failed (and is retried by the library with its key). */
  readonly timeoutMs?: number
  /** The library's own retries of a network failure, 409 or 5xx, with the same idempotency key. */
  readonly maxNetworkRetries?: number
  /** The clock webhook timestamps are checked against (the library's 300-second tolerance). */
  readonly now?: () => Date
}

export const STRIPE_DEFAULT_TIMEOUT_MS = 20_000
export const STRIPE_DEFAULT_MAX_NETWORK_RETRIES = 2
/** Stripe's own limit for one charge: eight digits of the currency's smallest unit. */
const STRIPE_MAX_AMOUNT = 99_999_999n

/** The metadata keys printroute puts on sessions and payments and reads back from webhooks. */
export const STRIPE_METADATA = {
  purpose: 'printroute_purpose',
  accountId: 'printroute_account_id',
  orderId: 'printroute_order_id',
} as const

// Stripe's amounts are in the currency's smallest unit; printroute's are hundredths (money.ts). Zero-decimal
// currencies take whole units, three-decimal ones thousandths (docs.stripe.com/currencies).
const ZERO_DECIMAL = new Set(
  'BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF'.split(' ').map((code) => code.toLowerCase()),
)
const THREE_DECIMAL = new Set('BHD JOD KWD OMR TND'.split(' ').map((code) => code.toLowerCase()))

export function toStripeAmount(amountMinor: bigint, currency: string): number {
  const code = currency.toLowerCase()
  if (!/^[a-z]{3}$/.test(code)) {
    throw new PaymentGatewayError(
      `currency must be a three-letter ISO 4217 code, got "${currency}"`,
      'invalidRequest',
      false,
    )
  }
  if (amountMinor <= 0n) {
    throw new PaymentGatewayError('amountMinor must be greater than zero', 'invalidRequest', false)
  }
  let amount = amountMinor
  if (ZERO_DECIMAL.has(code)) {
    if (amountMinor % 100n !== 0n) {
      throw new PaymentGatewayError(
        `${currency} has no minor unit at Stripe: the amount must be whole`,
        'invalidRequest',
        false,
      )
    }
    amount = amountMinor / 100n
  } else if (THREE_DECIMAL.has(code)) {
    amount = amountMinor * 10n
  }
  if (amount > STRIPE_MAX_AMOUNT) {
    throw new PaymentGatewayError(
      `amount exceeds Stripe's limit of ${STRIPE_MAX_AMOUNT} per payment`,
      'invalidRequest',
      false,
    )
  }
  return Number(amount)
}

export function fromStripeAmount(amount: number, currency: string): bigint {
  const code = currency.toLowerCase()
  const whole = BigInt(Math.trunc(amount))
  if (ZERO_DECIMAL.has(code)) return whole * 100n
  if (THREE_DECIMAL.has(code)) return whole / 10n
  return whole
}

// Stripe masks keys in its own messages; a stand-in or a proxy might not. Nothing shaped like a key leaves here.
const SECRET_PATTERN = /\b(?:sk|rk|pk|whsec)_[A-Za-z0-9_]+/g

function redact(text: string): string {
  return text.replace(SECRET_PATTERN, '[redacted]')
}

/** A Stripe library error as printroute's error: the kind decides whether to retry, the message names no secret. */
export function gatewayErrorFrom(error: unknown, doing: string): PaymentGatewayError {
  if (error instanceof PaymentGatewayError) return error
  if (!(error instanceof Stripe.errors.StripeError)) {
    const detail = error instanceof Error ? error.message : String(error)
    return new PaymentGatewayError(redact(`Stripe ${doing} failed: ${detail}`), 'unavailable', true)
  }
  const status = error.statusCode ?? null
  const requestId = error.requestId ?? null
  const message = redact(`Stripe ${doing} failed (${status ?? 'no answer'}): ${error.message}`)
  if (error instanceof Stripe.errors.StripeConnectionError) {
    return new PaymentGatewayError(message, 'unavailable', true, status, requestId)
  }
  if (error instanceof Stripe.errors.StripeRateLimitError || status === 429) {
    return new PaymentGatewayError(message, 'rateLimited', true, status, requestId)
  }
  if (error instanceof Stripe.errors.StripeAuthenticationError || status === 401 || status === 403) {
    return new PaymentGatewayError(message, 'unauthorised', false, status, requestId)
  }
  if (error instanceof Stripe.errors.StripeIdempotencyError) {
    return new PaymentGatewayError(message, 'idempotencyConflict', false, status, requestId)
  }
  if (status === 404) return new PaymentGatewayError(message, 'notFound', false, status, requestId)
  if (status !== null && status >= 500) return new PaymentGatewayError(message, 'unavailable', true, status, requestId)
  if (status === 409) return new PaymentGatewayError(message, 'unavailable', true, status, requestId)
  return new PaymentGatewayError(message, 'invalidRequest', false, status, requestId)
}

/** The library's host/port/protocol settings from one URL; nothing for Stripe's own API. */
export function stripeConnectionSettings(
  apiUrl: string | undefined,
): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (apiUrl === undefined || apiUrl === '') return {}
  let url: URL
  try {
    url = new URL(apiUrl)
  } catch {
    throw new PaymentGatewayError(`Stripe API URL "${apiUrl}" is not a URL`, 'invalidRequest', false)
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname.replace(/\/$/, '') !== '') {
    throw new PaymentGatewayError(
      `Stripe API URL "${apiUrl}" must be http(s)://host[:port] with no path`,
      'invalidRequest',
      false,
    )
  }
  const protocol = url.protocol === 'http:' ? 'http' : 'https'
  return { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol }
}

function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (value !== null && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string') {
    return (value as { id: string }).id
  }
  return null
}

function purposeOf(metadata: Record<string, string> | null | undefined): PaymentPurpose | null {
  const purpose = metadata?.[STRIPE_METADATA.purpose]
  return purpose === 'orderPayment' || purpose === 'topUp' ? purpose : null
}

function metadataFor(request: { purpose?: PaymentPurpose; accountId: string; orderId?: string }) {
  const metadata: Record<string, string> = { [STRIPE_METADATA.accountId]: request.accountId }
  if (request.purpose !== undefined) metadata[STRIPE_METADATA.purpose] = request.purpose
  if (request.orderId !== undefined) metadata[STRIPE_METADATA.orderId] = request.orderId
  return metadata
}

function sessionUrl(session: Stripe.Checkout.Session): string {
  if (!session.url)
    throw new PaymentGatewayError('Stripe answered a Checkout Session without a url', 'unavailable', true)
  return session.url
}

function sessionState(session: Stripe.Checkout.Session): HostedSessionState {
  const mode: PaymentSessionMode = session.mode === 'setup' ? 'setup' : 'payment'
  const currency = session.currency ?? null
  return {
    sessionId: session.id,
    mode,
    status: session.status === 'complete' ? 'complete' : session.status === 'expired' ? 'expired' : 'open',
    paid: mode === 'setup' ? session.status === 'complete' : session.payment_status === 'paid',
    purpose: purposeOf(session.metadata),
    accountId: session.metadata?.[STRIPE_METADATA.accountId] ?? null,
    orderId: session.metadata?.[STRIPE_METADATA.orderId] ?? null,
    amountMinor:
      mode === 'payment' && session.amount_total != null && currency
        ? fromStripeAmount(session.amount_total, currency)
        : null,
    currency: currency ? currency.toUpperCase() : null,
    paymentId: idOf(session.payment_intent),
    customerId: idOf(session.customer),
    setupId: idOf(session.setup_intent),
  }
}

const REFUND_STATUSES: Record<string, RefundStatus> = {
  succeeded: 'succeeded',
  pending: 'pending',
  requires_action: 'requiresAction',
  failed: 'failed',
  canceled: 'canceled',
}

function refundStatusOf(refund: Stripe.Refund): RefundStatus {
  return REFUND_STATUSES[refund.status ?? 'pending'] ?? 'pending'
}

function refundStateOf(refund: Stripe.Refund): RefundState {
  const status = refundStatusOf(refund)
  const ended = status === 'failed' || status === 'canceled'
  return {
    refundId: refund.id,
    status,
    // Stripe sets failure_reason on a failed refund; a canceled one may carry none.
    failureReason: ended ? (refund.failure_reason ?? status) : null,
  }
}

function chargeOutcome(intent: Stripe.PaymentIntent): OffSessionChargeResult {
  switch (intent.status) {
    case 'succeeded':
      return { status: 'succeeded', paymentId: intent.id }
    case 'requires_action':
    case 'requires_confirmation':
      return { status: 'requiresAction', paymentId: intent.id }
    case 'requires_payment_method':
    case 'canceled':
      return {
        status: 'declined',
        paymentId: intent.id,
        declineReason: intent.last_payment_error?.decline_code ?? intent.last_payment_error?.code ?? 'declined',
      }
    default:
      return { status: 'pending', paymentId: intent.id }
  }
}

/** A card error is an answer, not a failure: authentication wanted, or a decline with Stripe's reason. */
function cardErrorOutcome(error: Stripe.errors.StripeCardError): OffSessionChargeResult {
  const paymentId = error.payment_intent?.id ?? null
  if (error.code === 'authentication_required') return { status: 'requiresAction', paymentId }
  return { status: 'declined', paymentId, declineReason: error.decline_code ?? error.code ?? 'card_declined' }
}

export function createStripeGateway(options: StripeGatewayOptions): PaymentGateway {
  const stripe = new Stripe(options.secretKey, {
    ...stripeConnectionSettings(options.apiUrl),
    timeout: options.timeoutMs ?? STRIPE_DEFAULT_TIMEOUT_MS,
    maxNetworkRetries: options.maxNetworkRetries ?? STRIPE_DEFAULT_MAX_NETWORK_RETRIES,
    telemetry: false,
    appInfo: { name: 'printroute' },
  })
  const now = options.now ?? (() => new Date())

  async function call<T>(doing: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      throw gatewayErrorFrom(error, doing)
    }
  }

  return {
    name: 'stripe',

    async startHostedPayment(request: StartHostedPaymentRequest): Promise<HostedPaymentSession> {
      const amount = toStripeAmount(request.amountMinor, request.currency)
      const metadata = metadataFor(request)
      const session = await call('creating a Checkout Session', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: request.currency.toLowerCase(),
                  unit_amount: amount,
                  product_data: { name: request.description },
                },
              },
            ],
            ...(request.customerId ? { customer: request.customerId } : {}),
            client_reference_id: request.accountId,
            metadata,
            payment_intent_data: { metadata, description: request.description },
            success_url: request.successUrl,
            cancel_url: request.cancelUrl,
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      )
      return { sessionId: session.id, url: sessionUrl(session), expiresAt: new Date(session.expires_at * 1000) }
    },

    async startCardSetup(request: StartCardSetupRequest): Promise<CardSetupSession> {
      const customerId =
        request.customerId ??
        (
          await call('creating a Customer', () =>
            stripe.customers.create(
              {
                ...(request.email ? { email: request.email } : {}),
                metadata: { [STRIPE_METADATA.accountId]: request.accountId },
              },
              // One customer per account even when two setups start at once (Stripe keeps a key 24 hours).
              { idempotencyKey: `printroute-customer-${request.accountId}` },
            ),
          )
        ).id
      const metadata = metadataFor({ accountId: request.accountId })
      const session = await call('creating a setup Checkout Session', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'setup',
            customer: customerId,
            // Cards only: they are what an off-session PaymentIntent charges later.
            allowed_payment_method_types: ['card'],
            client_reference_id: request.accountId,
            metadata,
            setup_intent_data: { metadata },
            success_url: request.successUrl,
            cancel_url: request.cancelUrl,
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      )
      return {
        sessionId: session.id,
        url: sessionUrl(session),
        expiresAt: new Date(session.expires_at * 1000),
        customerId,
      }
    },

    async readSavedCard(setupId: string): Promise<SavedCard> {
      const intent = await call('reading a SetupIntent', () =>
        stripe.setupIntents.retrieve(setupId, { expand: ['payment_method'] }),
      )
      const customerId = idOf(intent.customer)
      const paymentMethodId = idOf(intent.payment_method)
      if (intent.status !== 'succeeded' || customerId === null || paymentMethodId === null) {
        throw new PaymentGatewayError(
          `SetupIntent ${setupId} has saved no card (status ${intent.status})`,
          'invalidRequest',
          false,
        )
      }
      const card = typeof intent.payment_method === 'object' ? intent.payment_method?.card : undefined
      return {
        customerId,
        paymentMethodId,
        brand: card?.brand ?? null,
        last4: card?.last4 ?? null,
        expiryMonth: card?.exp_month ?? null,
        expiryYear: card?.exp_year ?? null,
      }
    },

    async chargeSavedCard(request: ChargeSavedCardRequest): Promise<OffSessionChargeResult> {
      const amount = toStripeAmount(request.amountMinor, request.currency)
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount,
            currency: request.currency.toLowerCase(),
            customer: request.customerId,
            payment_method: request.paymentMethodId,
            off_session: true,
            confirm: true,
            description: request.description,
            metadata: metadataFor({ purpose: 'orderPayment', accountId: request.accountId, orderId: request.orderId }),
          },
          { idempotencyKey: request.idempotencyKey },
        )
        return chargeOutcome(intent)
      } catch (error) {
        if (error instanceof Stripe.errors.StripeCardError) return cardErrorOutcome(error)
        throw gatewayErrorFrom(error, 'charging a saved card')
      }
    },

    async refund(request: RefundRequest): Promise<RefundResult> {
      const amount = toStripeAmount(request.amountMinor, request.currency)
      const refund = await call('creating a Refund', () =>
        stripe.refunds.create(
          { payment_intent: request.paymentId, amount },
          { idempotencyKey: request.idempotencyKey },
        ),
      )
      return {
        refundId: refund.id,
        status: refundStatusOf(refund),
        amountMinor: fromStripeAmount(refund.amount, refund.currency),
      }
    },

    async readSession(sessionId: string): Promise<HostedSessionState> {
      const session = await call('reading a Checkout Session', () => stripe.checkout.sessions.retrieve(sessionId))
      return sessionState(session)
    },

    async readPayment(paymentId: string): Promise<OffSessionChargeResult> {
      const intent = await call('reading a PaymentIntent', () => stripe.paymentIntents.retrieve(paymentId))
      return chargeOutcome(intent)
    },

    async readRefund(refundId: string): Promise<RefundState> {
      const refund = await call('reading a Refund', () => stripe.refunds.retrieve(refundId))
      return refundStateOf(refund)
    },

    verifyWebhook(rawBody: Buffer | string, signatureHeader: string | undefined): PaymentEvent {
      if (!signatureHeader)
        throw new PaymentGatewayError('the Stripe-Signature header is missing', 'badSignature', false)
      let event: Stripe.Event
      try {
        event = stripe.webhooks.constructEvent(
          rawBody,
          signatureHeader,
          options.webhookSecret,
          undefined,
          undefined,
          // Milliseconds: the library divides by 1000 itself.
          now().getTime(),
        )
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error)
        throw new PaymentGatewayError(redact(`Stripe webhook refused: ${detail}`), 'badSignature', false)
      }
      return paymentEventFrom(event)
    },
  }
}

/** The saved card's id when the event carries the SetupIntent expanded (it usually carries only its id). */
function setupPaymentMethod(session: Stripe.Checkout.Session): string | null {
  const setup = session.setup_intent
  return setup !== null && typeof setup === 'object' ? idOf(setup.payment_method) : null
}

/** A verified Stripe event in printroute's words; any type printroute does not act on is `other`. */
export function paymentEventFrom(event: Stripe.Event): PaymentEvent {
  const base = { eventId: event.id, livemode: event.livemode, createdAt: new Date(event.created * 1000) }
  switch (event.type) {
    case 'checkout.session.completed': {
      const state = sessionState(event.data.object)
      return {
        ...base,
        kind: 'checkoutCompleted',
        sessionId: state.sessionId,
        mode: state.mode,
        purpose: state.purpose,
        accountId: state.accountId,
        orderId: state.orderId,
        paid: state.paid,
        amountMinor: state.amountMinor,
        currency: state.currency,
        paymentId: state.paymentId,
        customerId: state.customerId,
        setupId: state.setupId,
        paymentMethodId: setupPaymentMethod(event.data.object),
      }
    }
    case 'charge.refunded': {
      const charge = event.data.object
      return {
        ...base,
        kind: 'refunded',
        paymentId: idOf(charge.payment_intent) ?? charge.id,
        amountRefundedMinor: fromStripeAmount(charge.amount_refunded, charge.currency),
        currency: charge.currency.toUpperCase(),
      }
    }
    case 'charge.refund.updated':
    case 'refund.updated':
    case 'refund.failed': {
      const refund = event.data.object
      return {
        ...base,
        kind: 'refundUpdated',
        ...refundStateOf(refund),
        paymentId: idOf(refund.payment_intent),
        amountMinor: fromStripeAmount(refund.amount, refund.currency),
        currency: refund.currency.toUpperCase(),
      }
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const dispute = event.data.object
      return {
        ...base,
        kind: event.type === 'charge.dispute.created' ? 'disputeOpened' : 'disputeClosed',
        paymentId: idOf(dispute.payment_intent) ?? idOf(dispute.charge) ?? '',
        disputeId: dispute.id,
        amountMinor: fromStripeAmount(dispute.amount, dispute.currency),
        currency: dispute.currency.toUpperCase(),
        reason: dispute.reason,
        status: dispute.status,
      }
    }
    default:
      return { ...base, kind: 'other', type: event.type }
  }
}
