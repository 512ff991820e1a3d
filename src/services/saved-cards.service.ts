// A card on file (docs/billing.md#a-card-on-file): a Live prepaid account saves a card on the payment gateway's
// hosted page (Stripe Checkout in setup mode); printroute keeps the provider's customer and payment method and the
// card's display fields. When a charge leaves one of the account's orders owing more than its balance covers, the
// billing service records the intent (a provider payment 'orderCharge', 'open') and queues `charge-saved-card` in
// the hold's transaction; the job charges the card off-session (never inside a transaction, with a key made of the
// payment's row id, so a retry or a restart repeats the same call), then records the answer in a new order change
// conditional on the payment still being 'open': paid, the money is credited to the balance and the order paid from
// it; not paid, the order shows its RequiresPaymentAuthorisation issue saying why.

import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import { formatId } from '../domain/ids.ts'
import { type JobRequest, jobRequest } from '../domain/jobs.ts'
import { formatMinorAsAmount } from '../domain/money.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import {
  type CheckoutCompletedEvent,
  type OffSessionChargeResult,
  type PaymentGateway,
  PaymentGatewayError,
} from '../domain/payment-gateway.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { findAccount } from '../repositories/accounts.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import { listOrdersAwaitingPayment } from '../repositories/orders.repository.ts'
import {
  endProviderPayment,
  findPaymentBySession,
  findPaymentMethod,
  findProviderPayment,
  removeCard as forgetCard,
  insertProviderPayment,
  linkLedgerEntry,
  type PaymentMethodRow,
  type ProviderPaymentRow,
  type ProviderPaymentStatus,
  recordPendingPayment,
  recordSession,
  storeCard,
  storeCustomer,
} from '../repositories/saved-cards.repository.ts'
import { auditActorOf, type Caller } from './accounts.service.ts'
import type { BillingService } from './billing.service.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'
import { createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'
import { orderLogFields } from './pipeline/log-lines.ts'

/** A checkout completion as the dispatcher hands it over (services/payment-events.service.ts). */
export type { CheckoutCompletedEvent } from '../domain/payment-gateway.ts'

/** The card on file as the API and the dashboard show it: display fields only. */
export interface SavedCardView {
  brand: string | null
  last4: string | null
  expiryMonth: number | null
  expiryYear: number | null
  savedAt: string
}

export interface CardSetupPage {
  url: string
  expiresAt: string
}

/** What an ended charge of the card did, for the order's issue (`reason`, after "the card on file"). */
type ChargeEnd =
  | { status: 'succeeded'; paymentId: string }
  | { status: Exclude<ProviderPaymentStatus, 'open' | 'succeeded'>; reason: string; declineReason?: string | null }

export interface SavedCardsService {
  /** A hosted page where the caller (Live key, prepaid account) saves a card; refused otherwise, naming why. */
  startCardSetup(caller: Caller): Promise<CardSetupPage>
  /** The caller's card on file (Live; null on Sandbox and when none is saved). */
  savedCard(caller: Caller): Promise<SavedCardView | null>
  /** Forgets the caller's card on file (audited); the card removed, null when there was none. */
  removeCard(caller: Caller): Promise<SavedCardView | null>
  /** A setup-mode checkout completed (webhook): reads and stores the card; what it did, in words. */
  completeCardSetup(event: CheckoutCompletedEvent): Promise<string>
  /** The job `charge-saved-card`: charges the card for a held order and records the answer; throws to be retried. */
  chargeHeldOrder(providerPaymentId: number): Promise<void>
  /**
   * The sweeper's: reads back a charge the provider left pending and records how it ended (once, as the job would);
   * its status now (`pending` while the bank still settles it). A provider failure throws (the next sweep asks).
   */
  settlePendingCharge(providerPaymentId: number): Promise<ProviderPaymentStatus | 'pending'>
}

export interface SavedCardsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  events: OrderEventsService
  billing: BillingService
  gateway: PaymentGateway | null
  /** The Live dashboard's billing page (absolute): where the provider's setup page returns to. */
  billingPageUrl: () => string
  log?: ServiceLogger
}

function viewOf(row: PaymentMethodRow | undefined): SavedCardView | null {
  if (!row?.paymentMethodId || !row.savedAt) return null
  return {
    brand: row.brand,
    last4: row.last4,
    expiryMonth: row.expiryMonth,
    expiryYear: row.expiryYear,
    savedAt: row.savedAt.toISOString(),
  }
}

/**
 * The billing service's hook (BillingDeps.startSavedCardCharge), wired only with a gateway: when the order's account
 * has a card on file, records the charge asked of the provider ('open', its key from the row's id) in the hold's
 * transaction and answers the job that makes it.
 */
export function savedCardChargeStarter(deps: { gateway: PaymentGateway; clock: Clock }) {
  return async (
    tx: Queryable,
    order: PipelineOrder,
    dueMinor: bigint,
    chargeId: string,
  ): Promise<JobRequest | undefined> => {
    const method = await findPaymentMethod(tx, order.accountId)
    if (!method?.paymentMethodId) return undefined
    const currency = order.pipeline.billing?.currency ?? ''
    const payment = await insertProviderPayment(tx, {
      provider: deps.gateway.name,
      accountId: order.accountId,
      orderNumber: order.orderNumber,
      purpose: 'orderCharge',
      amountMinor: dueMinor,
      currency,
      // The order, the charge that left it owing and this payment's own row: a retry repeats exactly this call.
      idempotencyKey: (id) => `printroute-order-charge-${order.document.id}-${chargeId}-${id}`,
      at: deps.clock.now(),
    })
    return jobRequest('charge-saved-card', { providerPaymentId: payment.id })
  }
}

export function createSavedCardsService(deps: SavedCardsDeps): SavedCardsService {
  const { db, clock, gateway } = deps
  const log = deps.log ?? silentLogger
  const orders = createOrderChanger(deps)

  /** The gateway, for a Live prepaid caller; a ValidationFailed naming what is not so otherwise. */
  async function gatewayFor(caller: Caller): Promise<PaymentGateway> {
    if (caller.environment !== 'live') {
      throw validationFailed(
        { environment: [{ code: 'InvalidValue', providedValue: caller.environment, comparisonValue: 'live' }] },
        'A card is saved with a Live key: the Sandbox never bills',
      )
    }
    const account = await findAccount(db, caller.accountId)
    if (account?.billingMode !== 'prepaid') {
      throw validationFailed(
        {
          billingMode: [
            { code: 'InvalidValue', providedValue: account?.billingMode ?? null, comparisonValue: 'prepaid' },
          ],
        },
        'Only a prepaid account saves a card: an invoice account is billed afterwards',
      )
    }
    if (!gateway) {
      throw validationFailed(
        { paymentProvider: [{ code: 'InvalidValue', providedValue: 'simulated', comparisonValue: 'stripe' }] },
        'This printroute takes no saved cards: no card payment provider is configured',
      )
    }
    return gateway
  }

  /** Records a charge's answer on the order, if the payment is still open; the order's jobs go with it. */
  async function recordCharge(payment: ProviderPaymentRow, end: ChargeEnd): Promise<void> {
    const orderNumber = payment.orderNumber as number
    const amountMinor = payment.amountMinor as bigint
    const currency = payment.currency as string
    const changed = await orders.change(orderNumber, async (order, tx) => {
      const ended = await endProviderPayment(tx, payment.id, {
        status: end.status,
        paymentId: end.status === 'succeeded' ? end.paymentId : null,
        declineReason: end.status === 'succeeded' ? null : (end.declineReason ?? null),
        at: clock.now(),
      })
      if (!ended) return { changed: false }
      if (end.status !== 'succeeded') {
        return { changed: true, jobs: await deps.billing.finishSavedCardCharge(tx, order, end.reason) }
      }
      // The money is the account's from here on: credited, then the order is paid from the balance. An order
      // cancelled (or paid otherwise) meanwhile leaves it on the balance.
      const reference = `${payment.provider}:${end.paymentId}`
      await deps.billing.credit(tx, payment.accountId, amountMinor, 'card-payment', { currency, reference, order })
      await linkLedgerEntry(tx, payment.id, payment.accountId, reference)
      return { changed: true, jobs: await deps.billing.finishSavedCardCharge(tx, order, null) }
    })
    if (!changed?.result.changed) return
    const amount = `${formatMinorAsAmount(amountMinor)} ${currency}`
    log.info(
      { ...orderLogFields(changed.order), step: 'card charge', result: end.status, amount },
      end.status === 'succeeded'
        ? `the card on file paid ${amount} for ${changed.order.document.id}`
        : `the card on file did not pay ${amount} for ${changed.order.document.id}: it ${end.reason}`,
    )
  }

  /**
   * The account's Live orders already waiting for a payment when its card is saved, oldest first: each gets the
   * charge of the card a new hold would get (a provider payment 'open' and its job), in its own order change.
   */
  async function chargeWaitingOrders(accountId: number): Promise<string[]> {
    const started: string[] = []
    for (const orderNumber of await listOrdersAwaitingPayment(db, accountId)) {
      const changed = await orders.change(orderNumber, async (order, tx) => {
        const jobs = await deps.billing.startCardChargeOfHeldOrder(tx, order)
        return { changed: jobs.length > 0, jobs }
      })
      if (changed?.result.changed) started.push(changed.order.document.id)
    }
    return started
  }

  /** Starts the charges of the account's waiting orders; what it started, for the event's outcome. */
  async function chargingNote(accountId: number): Promise<string> {
    const charging = await chargeWaitingOrders(accountId)
    return charging.length > 0 ? `; charging it for ${charging.join(', ')}` : ''
  }

  /** What the provider answered, as the end of the payment. */
  function endOf(result: OffSessionChargeResult): ChargeEnd | undefined {
    switch (result.status) {
      case 'succeeded':
        return { status: 'succeeded', paymentId: result.paymentId as string }
      case 'requiresAction':
        return {
          status: 'requiresAction',
          reason: "needs the cardholder's authentication (3-D Secure): pay on the payment page",
        }
      case 'declined':
        return {
          status: 'declined',
          reason: `was declined: ${result.declineReason ?? 'no reason given'}`,
          declineReason: result.declineReason ?? null,
        }
      case 'pending':
        return undefined
    }
  }

  return {
    async startCardSetup(caller: Caller): Promise<CardSetupPage> {
      const provider = await gatewayFor(caller)
      const accountId = formatId('acc', caller.accountId)
      const payment = await db.transaction((tx) =>
        insertProviderPayment(tx, {
          provider: provider.name,
          accountId: caller.accountId,
          orderNumber: null,
          purpose: 'cardSetup',
          amountMinor: null,
          currency: null,
          idempotencyKey: (id) => `printroute-card-setup-${accountId}-${id}`,
          at: clock.now(),
        }),
      )
      const stored = await findPaymentMethod(db, caller.accountId)
      const returnTo = deps.billingPageUrl()
      let session: Awaited<ReturnType<PaymentGateway['startCardSetup']>>
      try {
        session = await provider.startCardSetup({
          accountId,
          ...(stored ? { customerId: stored.customerId } : {}),
          successUrl: `${returnTo}?card=saved`,
          cancelUrl: `${returnTo}?card=cancelled`,
          idempotencyKey: payment.idempotencyKey,
        })
      } catch (error) {
        await endProviderPayment(db, payment.id, { status: 'failed', at: clock.now() })
        if (error instanceof PaymentGatewayError) {
          log.warn(
            { accountId, step: 'card setup', result: error.code },
            `starting a card setup failed: ${error.message}`,
          )
          throw new ServiceError(
            'ServiceUnavailable',
            error.retryable
              ? 'The card payment provider is not answering: try again in a minute'
              : 'The card payment provider refused to start a card setup: the operator is told in the log',
          )
        }
        throw error
      }
      await db.transaction(async (tx) => {
        await recordSession(tx, payment.id, session)
        if (stored?.customerId !== session.customerId) {
          await storeCustomer(tx, caller.accountId, provider.name, session.customerId, clock.now())
        }
      })
      return { url: session.url, expiresAt: session.expiresAt.toISOString() }
    },

    async savedCard(caller: Caller): Promise<SavedCardView | null> {
      if (caller.environment !== 'live') return null
      return viewOf(await findPaymentMethod(db, caller.accountId))
    },

    async removeCard(caller: Caller): Promise<SavedCardView | null> {
      if (caller.environment !== 'live') return null
      return db.transaction(async (tx) => {
        const now = clock.now()
        const removed = viewOf(await forgetCard(tx, caller.accountId, now))
        if (removed) {
          await appendAuditEvent(
            tx,
            {
              actor: auditActorOf(caller),
              action: 'account.cardRemoved',
              accountId: caller.accountId,
              environment: 'live',
              target: formatId('acc', caller.accountId),
              before: removed,
              after: null,
            },
            now,
          )
        }
        return removed
      })
    },

    async completeCardSetup(event: CheckoutCompletedEvent): Promise<string> {
      if (event.mode !== 'setup') return 'not a card setup'
      if (!gateway) return 'not handled: no payment gateway is configured'
      const setup = await findPaymentBySession(db, gateway.name, event.sessionId)
      if (setup?.purpose !== 'cardSetup') return `ignored: no card setup of printroute has session ${event.sessionId}`
      // Stored by an earlier run of this event's job: one that died after storing the card but before starting the
      // charges of the orders waiting left them waiting, so start them now (an order whose charge is already in
      // flight is left alone, so a second run starts nothing twice).
      if (setup.status === 'succeeded') return `already recorded${await chargingNote(setup.accountId)}`
      if (setup.status !== 'open') return 'already recorded'
      if (!event.setupId) return 'ignored: the completed setup names no SetupIntent'
      // Read outside any transaction; a provider failure throws, and the job retries.
      const card = await gateway.readSavedCard(event.setupId)
      const accountId = formatId('acc', setup.accountId)
      const saved = await db.transaction(async (tx) => {
        const now = clock.now()
        if (!(await endProviderPayment(tx, setup.id, { status: 'succeeded', at: now }))) return false
        const before = viewOf(await findPaymentMethod(tx, setup.accountId))
        await storeCard(tx, setup.accountId, { provider: gateway.name, ...card }, now)
        await appendAuditEvent(
          tx,
          {
            actor: { kind: 'system' },
            action: 'account.cardSaved',
            accountId: setup.accountId,
            environment: 'live',
            target: accountId,
            before,
            after: { brand: card.brand, last4: card.last4, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear },
          },
          now,
        )
        return true
      })
      if (!saved) return `already recorded${await chargingNote(setup.accountId)}`
      const started = await chargingNote(setup.accountId)
      return `card saved for ${accountId}: ${card.brand ?? 'card'} ending ${card.last4 ?? '????'}${started}`
    },

    async chargeHeldOrder(providerPaymentId: number): Promise<void> {
      const payment = await findProviderPayment(db, providerPaymentId)
      if (payment?.purpose !== 'orderCharge' || payment.status !== 'open' || payment.orderNumber === null) return
      const method = await findPaymentMethod(db, payment.accountId)
      if (!gateway || !method?.paymentMethodId) {
        const reason = gateway ? 'was removed before it was charged' : 'could not be charged: no payment provider'
        return recordCharge(payment, { status: 'failed', reason })
      }
      let result: OffSessionChargeResult
      try {
        result = await gateway.chargeSavedCard({
          accountId: formatId('acc', payment.accountId),
          orderId: formatId('ord', payment.orderNumber),
          customerId: method.customerId,
          paymentMethodId: method.paymentMethodId,
          currency: payment.currency as string,
          amountMinor: payment.amountMinor as bigint,
          description: `printroute order ${formatId('ord', payment.orderNumber)}`,
          idempotencyKey: payment.idempotencyKey,
        })
      } catch (error) {
        // 429, 5xx, a timeout: the job is retried with the same key, which finds the first attempt at the provider.
        if (!(error instanceof PaymentGatewayError) || error.retryable) throw error
        return recordCharge(payment, { status: 'failed', reason: `could not be charged (${error.code})` })
      }
      const end = endOf(result)
      if (end) return recordCharge(payment, end)
      // Pending (rare for cards): the provider settles it later, the sweeper reads it back (the row stays open with
      // the provider's payment); the order shows its issue meanwhile.
      if (result.paymentId) await recordPendingPayment(db, payment.id, result.paymentId)
      await orders.change(payment.orderNumber, async (order, tx) => ({
        changed: true,
        jobs: await deps.billing.finishSavedCardCharge(tx, order, 'has a payment pending at its bank'),
      }))
    },

    async settlePendingCharge(providerPaymentId: number): Promise<ProviderPaymentStatus | 'pending'> {
      const payment = await findProviderPayment(db, providerPaymentId)
      if (payment?.purpose !== 'orderCharge' || payment.orderNumber === null) return 'failed'
      if (payment.status !== 'open') return payment.status
      if (!gateway || !payment.paymentId) return 'pending'
      const end = endOf(await gateway.readPayment(payment.paymentId))
      if (!end) return 'pending'
      await recordCharge(payment, end)
      return (await findProviderPayment(db, providerPaymentId))?.status ?? end.status
    },
  }
}
