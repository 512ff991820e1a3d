// Payments on the card provider's hosted page (Stripe Checkout; docs/billing.md#card-payments-through-stripe): an
// order held by RequiresPaymentAuthorisation paid through its unchanged payment link, and a prepaid account's top-ups
// (POST /v4.0/account/top-ups). Each payment is a provider_payments row recorded 'open' before the provider is
// called (never inside a transaction), with an idempotency key made of printroute's ids, so a retry after a failure
// or a crash asks for the same session. A completed session is counted by the one function completeHostedPayment,
// whether the webhook's job or the sweeper finds it first: the row's conditional move from 'open' is what makes it
// count once. Without a gateway (the simulated provider), a top-up's link shows the payment page's card form.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { JobQueue } from '../adapters/job-queue.ts'
import type { CardDetails, PaymentProvider } from '../adapters/payment-provider.ts'
import type { AuditActor } from '../domain/audit.ts'
import { formatId, parseId } from '../domain/ids.ts'
import { jobRequest } from '../domain/jobs.ts'
import { formatMinorAsAmount, parseAmountToMinor } from '../domain/money.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import type { PaymentEvent, PaymentGateway } from '../domain/payment-gateway.ts'
import { PaymentGatewayError } from '../domain/payment-gateway.ts'
import { findAccount } from '../repositories/accounts.repository.ts'
import { listStaleRefunds } from '../repositories/card-refunds.repository.ts'
import { readOrder } from '../repositories/orders.repository.ts'
import {
  claimSucceeded,
  drawProviderPaymentId,
  endOpenPayment,
  findProviderPayment,
  findProviderPaymentBySession,
  insertProviderPayment,
  linkLedgerEntry,
  listOrderHostedPayments,
  listStaleOpenPayments,
  listUnprocessedEvents,
  type ProviderPaymentRow,
  recordSession,
} from '../repositories/provider-payments.repository.ts'
import { listStaleOpenOrderCharges } from '../repositories/saved-cards.repository.ts'
import type { Caller } from './accounts.service.ts'
import type { BillingService } from './billing.service.ts'
import type { CardRefundsService } from './card-refunds.service.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'
import { createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'
import { creditCardPayment, creditTopUp, type PaymentPageFacts, type PaymentsService } from './payments.service.ts'
import type { SavedCardsService } from './saved-cards.service.ts'

/** A top-up is at most what the provider takes in one payment: 99,999,999 hundredths (999,999.99). */
export const TOP_UP_MAX_MINOR = 99_999_999n
/** How long a top-up's link takes a payment. */
export const TOP_UP_LINK_SECONDS = 24 * 3600
/** A hosted payment still open this long after it was made is asked about by the sweeper. */
export const SWEEP_AFTER_SECONDS = 10 * 60
/** A session that ends within this margin is not reused: a payer sent to it might not finish in time. */
const SESSION_REUSE_MARGIN_SECONDS = 30 * 60
/** An order's payment row whose session could never be made is closed after this long (the next visit makes one). */
const SESSIONLESS_PAYMENT_SECONDS = 24 * 3600
const SWEEP_PAGE = 100

export type CheckoutAnswer =
  /** Send the payer to the provider's page (303). */
  | { kind: 'redirect'; url: string }
  /** Show printroute's own page: what is due, paid or cancelled (the payment page). */
  | { kind: 'facts'; facts: PaymentPageFacts }

export type TopUpStatus = 'open' | 'succeeded' | 'expired' | 'failed'

export interface TopUpView {
  id: string
  amount: string
  currency: string
  status: TopUpStatus
  created: string
  expiresAt: string
  completedAt: string | null
}

export type TopUpPage =
  | { kind: 'redirect'; url: string }
  /** The simulated provider's card form for the top-up's amount. */
  | { kind: 'form'; topUp: TopUpView }
  /** Paid, expired or failed: nothing to pay. */
  | { kind: 'closed'; topUp: TopUpView }

export type TopUpAttempt =
  | { status: 'paid'; amount: string; currency: string; reference: string }
  | { status: 'declined'; reason: string }
  | { status: 'closed'; topUp: TopUpView }

export interface HostedPaymentsService {
  /** Whether payments go to a hosted provider (a gateway is configured). */
  readonly hosted: boolean
  /** The payment link of a held order: with a gateway and something due, the provider's page; else the facts. */
  orderCheckout(orderId: string, token: string): Promise<CheckoutAnswer>
  /** Asks for a top-up of a Live prepaid account: its view and the link to pay it at (given once). */
  createTopUp(caller: Caller, amount: string, actor: AuditActor): Promise<TopUpView & { url: string }>
  getTopUp(caller: Caller, id: string): Promise<TopUpView>
  /** A top-up's link: the provider's page (gateway), the card form (simulated), or its end. */
  topUpCheckout(id: string, token: string): Promise<TopUpPage>
  /** The simulated provider's card payment of a top-up (no gateway only). */
  payTopUp(id: string, token: string, amountShown: string, card: CardDetails): Promise<TopUpAttempt>
  /** What a checkout.session.completed of mode payment does: counts it once; says what it did. */
  applyCheckoutCompleted(event: Extract<PaymentEvent, { kind: 'checkoutCompleted' }>): Promise<string>
  /**
   * The sweeper (every 5 minutes), for every row still open 10 minutes after it was made: asks the provider about
   * hosted payments and counts, expires or leaves each; puts back the job of a charge of a card on file not answered
   * yet, reads back one the provider left pending; puts back the job of a refund to a card still requested, reads
   * back one the provider left pending (settled when it failed or succeeded since); puts back events left
   * unprocessed. A job is put back only when the queue gave up on it (failed for good, cancelled
   * or gone): one still waiting or running is left alone. Each job repeats its own idempotency key.
   */
  sweep(): Promise<SweepTotals>
}

/**
 * What a sweep did: payments counted (or ended), expired, jobs and events put back, pending refunds to a card settled
 * (succeeded, or failed and back on the balance), provider errors.
 */
export type SweepTotals = {
  counted: number
  expired: number
  requeued: number
  refundsSettled: number
  failed: number
}

export interface HostedPaymentsDeps {
  db: Database
  clock: Clock
  jobs: Pick<JobQueue, 'enqueue' | 'insertStatement' | 'requeueAbandoned'>
  events: OrderEventsService
  billing: BillingService
  payments: Pick<PaymentsService, 'describe' | 'releaseWaitingOrders'>
  /** The hosted provider; null: the simulated provider's page (payment page, top-up card form). */
  gateway: PaymentGateway | null
  /** The simulated provider that takes a top-up's card when there is no gateway. */
  provider: PaymentProvider
  /** The Live server's base URL: the payer returns there, and top-up links point there. */
  liveUrl: () => string
  /** Reads back the charges of a card on file the provider left pending (the sweeper's; absent: not swept). */
  savedCards?: Pick<SavedCardsService, 'settlePendingCharge'>
  /** Reads back the refunds to a card the provider left pending (the sweeper's; absent: not swept). */
  cardRefunds?: Pick<CardRefundsService, 'settlePendingRefund'>
  log?: ServiceLogger
}

const NOT_FOUND = 'This payment link is not valid'

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

function tokenMatches(hash: string | null, token: string): boolean {
  if (!hash) return false
  return timingSafeEqual(Buffer.from(hashToken(token), 'hex'), Buffer.from(hash, 'hex'))
}

export function topUpView(row: ProviderPaymentRow): TopUpView {
  const expires = row.linkExpiresAt ?? new Date(row.createdAt.getTime() + TOP_UP_LINK_SECONDS * 1000)
  return {
    id: formatId('top', row.id),
    amount: formatMinorAsAmount(row.amountMinor ?? 0n),
    currency: row.currency ?? '',
    status: row.status === 'succeeded' || row.status === 'expired' || row.status === 'open' ? row.status : 'failed',
    created: row.createdAt.toISOString(),
    expiresAt: expires.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  }
}

export function createHostedPaymentsService(deps: HostedPaymentsDeps): HostedPaymentsService {
  const { db, clock, gateway } = deps
  const log = deps.log ?? silentLogger
  const orders = createOrderChanger(deps)
  const providerName = gateway?.name ?? deps.provider.name
  const now = () => clock.now()

  /** Asks the provider for the row's session (its own idempotency key: a repeat answers the same session). */
  async function startSession(row: ProviderPaymentRow, urls: { success: string; cancel: string }): Promise<string> {
    if (!gateway) throw new Error('no payment gateway')
    const orderId = row.orderNumber === null ? undefined : formatId('ord', row.orderNumber)
    try {
      const session = await gateway.startHostedPayment({
        purpose: row.purpose === 'topUp' ? 'topUp' : 'orderPayment',
        accountId: formatId('acc', row.accountId),
        ...(orderId ? { orderId } : {}),
        currency: row.currency ?? '',
        amountMinor: row.amountMinor ?? 0n,
        description: orderId ? `printroute order ${orderId}` : `printroute top-up ${formatId('top', row.id)}`,
        successUrl: urls.success,
        cancelUrl: urls.cancel,
        idempotencyKey: row.idempotencyKey,
      })
      await recordSession(db, row.id, session)
      return session.url
    } catch (error) {
      if (!(error instanceof PaymentGatewayError)) throw error
      // The row stays open without a session: the next visit asks again with the same key.
      log.warn(
        { step: 'hosted-payment', paymentRow: row.id, code: error.code, status: error.status },
        `the card provider's page for ${orderId ?? formatId('top', row.id)} could not be opened: ${error.message}`,
      )
      throw new ServiceError(
        'ServiceUnavailable',
        'The card payment page cannot be opened right now: please try again in a few minutes',
      )
    }
  }

  function usable(row: ProviderPaymentRow, amountMinor: bigint): boolean {
    if (row.status !== 'open' || row.amountMinor !== amountMinor) return false
    if (row.sessionExpiresAt === null) return true
    return row.sessionExpiresAt.getTime() > now().getTime() + SESSION_REUSE_MARGIN_SECONDS * 1000
  }

  async function orderCheckout(orderId: string, token: string): Promise<CheckoutAnswer> {
    const facts = await deps.payments.describe(orderId, token)
    if (!gateway || facts.status !== 'due') return { kind: 'facts', facts }
    const orderNumber = parseId('ord', orderId) as number
    const order = await readOrder(db, orderNumber)
    const billing = order?.pipeline.billing
    if (!order || !billing) return { kind: 'facts', facts }
    const due = BigInt(billing.unpaid)
    let rows = await listOrderHostedPayments(db, orderNumber)
    let row = rows.find((candidate) => usable(candidate, due))
    if (!row) {
      // A new amount (the order changed) or an old session ending: a new key, so a new session.
      const lastCharge = order.document.charges.at(-1)?.id ?? 'none'
      row = await insertProviderPayment(db, {
        provider: gateway.name,
        accountId: order.accountId,
        orderNumber,
        purpose: 'orderPayment',
        amountMinor: due,
        currency: billing.currency,
        idempotencyKey: `printroute-order-payment-${order.document.id}-${lastCharge}-${due}-${rows.length + 1}`,
        createdAt: now(),
      })
      if (!row) {
        // Another visit made it at the same moment: use that one.
        rows = await listOrderHostedPayments(db, orderNumber)
        row = rows.find((candidate) => usable(candidate, due))
        if (!row) throw new ServiceError('ServiceUnavailable', 'The payment is being prepared: reload the page')
      }
    }
    if (row.sessionUrl) return { kind: 'redirect', url: row.sessionUrl }
    const back = `${deps.liveUrl()}/payments/${order.document.id}/return?token=${encodeURIComponent(token)}`
    const url = await startSession(row, { success: `${back}&result=paid`, cancel: `${back}&result=cancelled` })
    return { kind: 'redirect', url }
  }

  async function topUpOfLink(id: string, token: string): Promise<ProviderPaymentRow> {
    const number = parseId('top', id)
    const row = number === undefined ? undefined : await findProviderPayment(db, number)
    if (row?.purpose !== 'topUp' || !tokenMatches(row.tokenHash, token)) {
      throw new ServiceError('EntityNotFound', NOT_FOUND)
    }
    return row
  }

  /** The row as it is now; an open top-up past its link's end (no session to pay) is expired first. */
  async function current(row: ProviderPaymentRow): Promise<ProviderPaymentRow> {
    const expired = row.linkExpiresAt !== null && row.linkExpiresAt.getTime() <= now().getTime()
    if (row.status === 'open' && expired && row.sessionId === null) {
      await endOpenPayment(db, row.id, 'expired', now())
      return (await findProviderPayment(db, row.id)) ?? row
    }
    return row
  }

  /** Counts a paid hosted payment once: the row's move from open, the ledger entry and what it releases. */
  async function completeHostedPayment(
    row: ProviderPaymentRow,
    paid: { paymentId: string | null; amountMinor: bigint | null },
  ): Promise<string> {
    const amountMinor = paid.amountMinor ?? row.amountMinor ?? 0n
    const currency = row.currency ?? ''
    const reference = `${row.provider}:${paid.paymentId ?? row.sessionId ?? row.id}`
    const amount = `${formatMinorAsAmount(amountMinor)} ${currency}`
    if (amountMinor <= 0n) return `nothing paid on ${row.sessionId}: nothing counted`
    if (row.purpose === 'orderPayment' && row.orderNumber !== null) {
      const changed = await orders.change(row.orderNumber, async (order, tx) => {
        if (!(await claimSucceeded(tx, row.id, paid.paymentId, now()))) {
          return { changed: false, counted: false, released: false }
        }
        const settled = await creditCardPayment(deps.billing, tx, order, amountMinor, { currency, reference })
        await linkLedgerEntry(tx, row.id, order.accountId, 'card-payment')
        return { changed: settled.paid, jobs: settled.jobs, counted: true, released: settled.paid }
      })
      const orderId = formatId('ord', row.orderNumber)
      if (!changed?.result.counted) return `already counted: ${orderId}'s payment ${reference} changes nothing`
      const released = changed.result.released
      log.info(
        { step: 'payment', orderId, result: 'paid', provider: row.provider, released },
        `card payment of ${amount} for ${orderId} counted${released ? '; the order goes to production' : ''}`,
      )
      return released
        ? `card payment of ${amount} counted for ${orderId}; the order was released`
        : `card payment of ${amount} credited to the balance of ${formatId('acc', row.accountId)}; ${orderId} owed nothing more or more than it covers`
    }
    if (row.purpose !== 'topUp') return `not a hosted payment (${row.purpose}): nothing counted`
    const counted = await db.transaction(async (tx) => {
      if (!(await claimSucceeded(tx, row.id, paid.paymentId, now()))) return false
      await creditTopUp(deps, tx, {
        accountId: row.accountId,
        amountMinor,
        currency,
        reference,
        actor: row.requestedBy ?? { kind: 'system' },
      })
      await linkLedgerEntry(tx, row.id, row.accountId, 'top-up')
      return true
    })
    const topUpId = formatId('top', row.id)
    if (!counted) return `already counted: top-up ${topUpId} changes nothing`
    const released = await deps.payments.releaseWaitingOrders(row.accountId)
    log.info(
      { step: 'payment', topUpId, result: 'topped up', provider: row.provider, released: released.length },
      `top-up ${topUpId} of ${amount} counted`,
    )
    return `top-up ${topUpId} of ${amount} counted${released.length > 0 ? `; released ${released.join(', ')}` : ''}`
  }

  /** Charges of a card on file still open: the job put back (not answered yet), or a pending one read back. */
  async function sweepOrderCharges(provider: string, before: Date, totals: SweepTotals): Promise<void> {
    for (const charge of await listStaleOpenOrderCharges(db, provider, before, SWEEP_PAGE)) {
      if (charge.paymentId === null) {
        const job = jobRequest('charge-saved-card', { providerPaymentId: charge.id })
        if (await deps.jobs.requeueAbandoned(job)) totals.requeued += 1
        continue
      }
      if (!deps.savedCards) continue
      try {
        const status = await deps.savedCards.settlePendingCharge(charge.id)
        if (status !== 'pending' && status !== 'open') totals.counted += 1
      } catch (error) {
        if (!(error instanceof PaymentGatewayError)) throw error
        totals.failed += 1
        log.warn(
          { step: 'payment-sweep', paymentRow: charge.id, code: error.code, status: error.status },
          `could not read payment ${charge.paymentId} from the card provider (the next sweep asks again): ${error.message}`,
        )
      }
    }
  }

  /** Refunds to a card still open: the job put back (not answered yet), or a pending one read back and settled. */
  async function sweepRefunds(provider: string, before: Date, totals: SweepTotals): Promise<void> {
    for (const refundId of await listStaleRefunds(db, { provider, status: 'requested', before, limit: SWEEP_PAGE })) {
      if (await deps.jobs.requeueAbandoned(jobRequest('refund-card-payment', { refundId }))) totals.requeued += 1
    }
    if (!deps.cardRefunds) return
    for (const refundRow of await listStaleRefunds(db, { provider, status: 'pending', before, limit: SWEEP_PAGE })) {
      try {
        if (await deps.cardRefunds.settlePendingRefund(refundRow)) totals.refundsSettled += 1
      } catch (error) {
        if (!(error instanceof PaymentGatewayError)) throw error
        totals.failed += 1
        log.warn(
          { step: 'payment-sweep', refundRow, code: error.code, status: error.status },
          `could not read refund row ${refundRow} from the card provider (the next sweep asks again): ${error.message}`,
        )
      }
    }
  }

  async function refuseTopUpOf(caller: Caller): Promise<void> {
    if (caller.environment !== 'live') {
      throw validationFailed(
        { apiKey: [{ code: 'InvalidValue', providedValue: 'sandbox', validValues: ['live'] }] },
        'Top-ups are Live money: ask for one with a Live key (the Sandbox never bills)',
      )
    }
    const account = await findAccount(db, caller.accountId)
    if (account?.billingMode !== 'prepaid') {
      throw validationFailed(
        {
          billingMode: [
            { code: 'InvalidValue', providedValue: account?.billingMode ?? null, validValues: ['prepaid'] },
          ],
        },
        'Only a prepaid account is topped up: this account is billed by invoice',
      )
    }
  }

  function parseTopUpAmount(amount: string): bigint {
    const minor = parseAmountToMinor(amount)
    if (minor === undefined) {
      throw validationFailed({ amount: [{ code: 'InvalidFormat', providedValue: amount, comparisonValue: '12.50' }] })
    }
    if (minor <= 0n) {
      throw validationFailed({
        amount: [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: amount, comparisonValue: '0.01' }],
      })
    }
    if (minor > TOP_UP_MAX_MINOR) {
      throw validationFailed({
        amount: [
          {
            code: 'MustBeLessThanOrEqualTo',
            providedValue: amount,
            comparisonValue: formatMinorAsAmount(TOP_UP_MAX_MINOR),
          },
        ],
      })
    }
    return minor
  }

  return {
    hosted: gateway !== null,
    orderCheckout,

    async createTopUp(caller, amount, actor) {
      await refuseTopUpOf(caller)
      const amountMinor = parseTopUpAmount(amount)
      const account = await findAccount(db, caller.accountId)
      const token = randomBytes(24).toString('base64url')
      const at = now()
      const id = await drawProviderPaymentId(db)
      const row = await insertProviderPayment(db, {
        provider: providerName,
        accountId: caller.accountId,
        orderNumber: null,
        purpose: 'topUp',
        amountMinor,
        currency: account?.billingCurrency ?? caller.billingCurrency,
        idempotencyKey: `printroute-top-up-${formatId('top', id)}`,
        createdAt: at,
        tokenHash: hashToken(token),
        requestedBy: actor,
        linkExpiresAt: new Date(at.getTime() + TOP_UP_LINK_SECONDS * 1000),
        id,
      })
      if (!row) throw new Error('a new top-up clashed with an existing one')
      const view = topUpView(row)
      return { ...view, url: `${deps.liveUrl()}/payments/top-ups/${view.id}?token=${encodeURIComponent(token)}` }
    },

    async getTopUp(caller, id) {
      const number = parseId('top', id)
      const row = number === undefined ? undefined : await findProviderPayment(db, number)
      if (caller.environment !== 'live' || row?.purpose !== 'topUp' || row.accountId !== caller.accountId) {
        throw new ServiceError('EntityNotFound', `Top-up ${id} was not found`)
      }
      return topUpView(await current(row))
    },

    async topUpCheckout(id, token) {
      const row = await current(await topUpOfLink(id, token))
      if (row.status !== 'open') return { kind: 'closed', topUp: topUpView(row) }
      if (!gateway) return { kind: 'form', topUp: topUpView(row) }
      if (row.sessionUrl && row.sessionExpiresAt && row.sessionExpiresAt.getTime() > now().getTime()) {
        return { kind: 'redirect', url: row.sessionUrl }
      }
      if (row.sessionUrl) return { kind: 'closed', topUp: topUpView(row) }
      const back = `${deps.liveUrl()}/payments/top-ups/${formatId('top', row.id)}/return?token=${encodeURIComponent(token)}`
      const url = await startSession(row, { success: `${back}&result=paid`, cancel: `${back}&result=cancelled` })
      return { kind: 'redirect', url }
    },

    async payTopUp(id, token, amountShown, card) {
      if (gateway) throw new ServiceError('EntityNotFound', NOT_FOUND)
      const row = await current(await topUpOfLink(id, token))
      const view = topUpView(row)
      if (row.status !== 'open' || view.amount !== amountShown) return { status: 'closed', topUp: view }
      const result = await deps.provider.charge({
        amountMinor: row.amountMinor ?? 0n,
        currency: view.currency,
        description: `printroute top-up ${view.id}`,
        card,
      })
      if (!result.approved) return { status: 'declined', reason: result.reason }
      await completeHostedPayment(row, { paymentId: result.reference, amountMinor: row.amountMinor })
      return { status: 'paid', amount: view.amount, currency: view.currency, reference: result.reference }
    },

    async applyCheckoutCompleted(event) {
      if (!gateway) return 'not handled: no payment gateway'
      const row = await findProviderPaymentBySession(db, gateway.name, event.sessionId)
      if (!row) return `unknown payment: session ${event.sessionId} was not made by printroute; nothing counted`
      if (!event.paid) return `session ${event.sessionId} completed but not paid yet; counted once paid`
      if (row.status !== 'open') return `already ${row.status}: session ${event.sessionId} changes nothing`
      return completeHostedPayment(row, { paymentId: event.paymentId, amountMinor: event.amountMinor })
    },

    async sweep() {
      const totals: SweepTotals = { counted: 0, expired: 0, requeued: 0, refundsSettled: 0, failed: 0 }
      const at = now()
      const before = new Date(at.getTime() - SWEEP_AFTER_SECONDS * 1000)
      for (const row of await listStaleOpenPayments(db, providerName, before, SWEEP_PAGE)) {
        if (row.sessionId === null) {
          const ended =
            row.purpose === 'topUp'
              ? row.linkExpiresAt !== null && row.linkExpiresAt <= at
              : row.createdAt.getTime() < at.getTime() - SESSIONLESS_PAYMENT_SECONDS * 1000
          if (ended && (await endOpenPayment(db, row.id, 'expired', at))) totals.expired += 1
          continue
        }
        if (!gateway) continue
        try {
          const state = await gateway.readSession(row.sessionId)
          if (state.status === 'complete' && state.paid) {
            const outcome = await completeHostedPayment(row, {
              paymentId: state.paymentId,
              amountMinor: state.amountMinor,
            })
            if (!outcome.startsWith('already')) totals.counted += 1
          } else if (state.status === 'expired') {
            if (await endOpenPayment(db, row.id, 'expired', at)) totals.expired += 1
          }
        } catch (error) {
          if (!(error instanceof PaymentGatewayError)) throw error
          totals.failed += 1
          log.warn(
            { step: 'payment-sweep', paymentRow: row.id, code: error.code, status: error.status },
            `could not read session ${row.sessionId} from the card provider (the next sweep asks again): ${error.message}`,
          )
        }
      }
      if (gateway) {
        await sweepOrderCharges(gateway.name, before, totals)
        await sweepRefunds(gateway.name, before, totals)
        for (const eventId of await listUnprocessedEvents(db, gateway.name, before, SWEEP_PAGE)) {
          const put = await deps.jobs.requeueAbandoned(
            jobRequest('process-payment-event', { provider: gateway.name, eventId }),
          )
          if (put) totals.requeued += 1
        }
      }
      return totals
    },
  }
}
