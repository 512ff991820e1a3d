// Refunds to the card (docs/billing.md#refunds-to-the-card). A refund of a Live prepaid order that a card paid
// through the payment provider goes back to that card, up to what is left unrefunded of the order's card payments:
//
//   1. in the refund's own transaction (billing.service's settlement, under the order's lock): the refund is credited
//      to the balance as before (`balance-refund`), then the part going to the card is taken off again (`card-refund`,
//      so the account is never paid twice), a provider_refunds row `requested` is written with an idempotency key made
//      of the refund's charge id and the payment's row, and the job `refund-card-payment` is queued; nothing is asked
//      of the provider inside the transaction;
//   2. the job asks the provider (gateway.refund, same key on every attempt) and records its answer in a new
//      transaction with a conditional UPDATE: succeeded/pending -> the row says so; failed/canceled or a request the
//      provider will not take -> the money goes back on the balance (`balance-refund`, reference "card refund
//      failed"), audited `payment.cardRefundFailed`; a 429, 5xx or timeout -> the job throws and is retried with the
//      same key (a refund that happened but whose answer was lost is answered again, counted once).
//
// A refund the provider answered `pending` may still end `failed` or `canceled` (the card account closed, days
// later): `recordRefundUpdate` reads the provider's `charge.refund.updated` / `refund.updated` / `refund.failed`, and
// the sweeper reads back a refund left pending with no such event (`settlePendingRefund`); both settle it through the
// same conditional UPDATEs as the job's answer, so the money goes back on the balance once, whichever comes first.
//
// `recordRefunded` reads the provider's `charge.refunded` (the payment's total refunded so far): refunds printroute
// asked for are marked succeeded; more than printroute knows is a refund made outside printroute (the provider's
// dashboard), recorded once as a provider_refunds row `external` and a `card-refund` entry that leaves the balance
// as it is, audited `payment.refundedOutside`.

import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AuditRecord } from '../domain/audit.ts'
import { jobRequest } from '../domain/jobs.ts'
import { formatMinorAsAmount } from '../domain/money.ts'
import {
  type PaymentGateway,
  PaymentGatewayError,
  type RefundedEvent,
  type RefundState,
  type RefundUpdatedEvent,
} from '../domain/payment-gateway.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { creditBalance, debitBalance, readBalance } from '../repositories/accounts.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import { insertLedgerEntry } from '../repositories/billing.repository.ts'
import {
  addRefunded,
  findPayment,
  findPaymentByProviderId,
  findRefund,
  findRefundByProviderId,
  insertRefund,
  lockPaymentByProviderId,
  lockRefundablePayments,
  markAnsweredRefundsSucceeded,
  markRefundRefused,
  markRefundSucceeded,
  type ProviderRefundRow,
  recordRefundAnswer,
  setRefundLedgerEntry,
  setRefundReversal,
  sumRefusedRefundsSince,
} from '../repositories/card-refunds.repository.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'
import { createOrderChanger, type OrderChangeDeps, type OrderChanger } from './order-change.ts'

/** The dispatcher's name for a `charge.refunded` (the dispatcher, services/payment-events.service.ts, hands it over). */
export type { RefundedEvent, RefundUpdatedEvent } from '../domain/payment-gateway.ts'

const SYSTEM = { kind: 'system' } as const

/** The in-transaction half: called by billing's settlement with what a refund just credited to the balance. */
export interface CardRefundRequester {
  /**
   * Sends what `creditedMinor` (just credited to the prepaid balance for the refund charge `chargeId`) may of it back
   * to the order's card payments, oldest first, never more than is left unrefunded of each; in `tx`, which holds the
   * order's lock. How much goes to the card (0 when the order has no card payment through the provider).
   */
  refundToCard(tx: Queryable, order: PipelineOrder, chargeId: string, creditedMinor: bigint): Promise<bigint>
}

export interface CardRefundRequesterDeps {
  clock: Clock
  jobs: JobEnqueuer
  /** The gateway's name (`stripe`): provider_payments.provider of the payments it refunds. */
  provider: string
}

export function createCardRefundRequester(deps: CardRefundRequesterDeps): CardRefundRequester {
  return {
    async refundToCard(tx, order, chargeId, creditedMinor) {
      const billing = order.pipeline.billing
      if (order.environment !== 'live' || !billing || creditedMinor <= 0n) return 0n
      const payments = await lockRefundablePayments(tx, order.orderNumber, deps.provider, billing.currency)
      let left = creditedMinor
      let sent = 0n
      const now = deps.clock.now()
      for (const payment of payments) {
        if (left === 0n) break
        const unrefunded = payment.amountMinor - payment.refundedMinor
        const amount = left < unrefunded ? left : unrefunded
        if (amount <= 0n) continue
        const after = await debitBalance(tx, order.accountId, amount)
        // The balance was just credited with at least this much in the same transaction, under the account's lock.
        if (after === undefined) break
        const entryId = await insertLedgerEntry(
          tx,
          {
            accountId: order.accountId,
            orderNumber: order.orderNumber,
            chargeId,
            entry: 'card-refund',
            amountMinor: -amount,
            currency: billing.currency,
            reference: `refund ${chargeId} back to the card of payment ${payment.paymentId}`,
          },
          after,
          now,
        )
        const refundRow = await insertRefund(tx, {
          payment: payment.id,
          accountId: order.accountId,
          orderNumber: order.orderNumber,
          amountMinor: amount,
          currency: billing.currency,
          // The refund charge's id and the payment's row: a retried job, a restart, asks the same refund again.
          idempotencyKey: `printroute-refund-${chargeId}-${payment.id}`,
          status: 'requested',
          reason: `refund ${chargeId} of ${order.document.id}`,
          ledgerEntryId: entryId,
          at: now,
        })
        if (refundRow === undefined) throw new Error(`refund ${chargeId} of payment ${payment.id} was already asked`)
        await addRefunded(tx, payment.id, amount)
        await deps.jobs.enqueue(tx, [jobRequest('refund-card-payment', { refundId: refundRow })])
        left -= amount
        sent += amount
      }
      return sent
    },
  }
}

/** Every change here goes through the one order-change function (its deps): the order's lock first, then the account. */
export interface CardRefundsDeps extends OrderChangeDeps {
  db: Database
  clock: Clock
  /** null: no provider configured (a refund queued before it was removed waits, retried, until one is). */
  gateway: PaymentGateway | null
  log?: ServiceLogger
}

export interface CardRefundsService {
  /** The job `refund-card-payment`: asks the provider for one requested refund and records its answer. */
  runRefund(refundId: number): Promise<void>
  /** A `charge.refunded` event; answers what it did, in words (provider_events.outcome). */
  recordRefunded(event: RefundedEvent): Promise<string>
  /**
   * A `charge.refund.updated` (or `refund.updated` / `refund.failed`) event: a refund still open that the provider
   * reports failed or canceled goes back on the balance, once; one it reports succeeded is marked so. Answers what
   * it did, in words (provider_events.outcome).
   */
  recordRefundUpdate(event: RefundUpdatedEvent): Promise<string>
  /**
   * The sweeper's: reads a refund left `pending` back from the provider and settles it as recordRefundUpdate does.
   * True when the row moved (succeeded, or failed/canceled and back on the balance). A provider error is thrown.
   */
  settlePendingRefund(refundRow: number): Promise<boolean>
}

/** Rows the provider may still move: a refund that ended (succeeded, failed, canceled, external) stays as it is. */
const OPEN_REFUND_STATUSES = new Set(['requested', 'pending', 'requiresAction'])

/**
 * Runs `work` in a transaction holding the order's lock (through the one order-change function, changing nothing on
 * the order itself), or in a plain transaction when the money belongs to no order.
 */
export async function underOrderLock<T>(
  db: Database,
  orders: Pick<OrderChanger, 'change'>,
  orderNumber: number | null,
  work: (tx: Queryable) => Promise<T>,
): Promise<T> {
  if (orderNumber !== null) {
    const changed = await orders.change(orderNumber, async (_order, tx) => ({
      changed: false,
      value: await work(tx),
    }))
    if (changed) return changed.result.value
  }
  return db.transaction(work)
}

export function createCardRefundsService(deps: CardRefundsDeps): CardRefundsService {
  const { db, clock } = deps
  const log = deps.log ?? silentLogger
  const provider = deps.gateway?.name ?? 'stripe'
  const orders = createOrderChanger(deps)

  /** The provider would not refund: the money goes back on the balance, once, and the operator sees why. */
  async function refused(
    refund: ProviderRefundRow,
    answer: { status: 'failed' | 'canceled'; refundId: string | null; reason: string },
  ): Promise<boolean> {
    const moved = await underOrderLock(db, orders, refund.orderNumber, async (tx) => {
      const now = clock.now()
      if (!(await markRefundRefused(tx, refund.id, answer, now))) return false
      const after = await creditBalance(tx, refund.accountId, refund.amountMinor)
      if (after === undefined) throw new Error(`no account ${refund.accountId}`)
      const entryId = await insertLedgerEntry(
        tx,
        {
          accountId: refund.accountId,
          orderNumber: refund.orderNumber,
          chargeId: null,
          entry: 'balance-refund',
          amountMinor: refund.amountMinor,
          currency: refund.currency,
          reference: `card refund failed (${answer.reason}): ${refund.reason ?? 'the refund'} stays on the balance`,
        },
        after,
        now,
      )
      await setRefundReversal(tx, refund.id, entryId)
      await addRefunded(tx, refund.payment, -refund.amountMinor)
      await audit(tx, {
        actor: SYSTEM,
        action: 'payment.cardRefundFailed',
        accountId: refund.accountId,
        environment: 'live',
        target: refund.orderNumber === null ? `payment ${refund.payment}` : `ord_${refund.orderNumber}`,
        before: { status: refund.status },
        after: {
          status: answer.status,
          amount: formatMinorAsAmount(refund.amountMinor),
          currency: refund.currency,
          reason: answer.reason,
          refundId: answer.refundId,
          ledgerEntry: 'balance-refund',
        },
      })
      return true
    })
    if (moved) {
      log.warn(
        { refundRow: refund.id, status: answer.status },
        'a refund to a card was refused by the payment provider: the money stays on the balance',
      )
    }
    return moved
  }

  /**
   * The provider's word on a refund it had answered (an event or the sweeper's read): failed/canceled on a row still
   * open puts the money back on the balance (refused, once); succeeded marks a pending row succeeded; anything else
   * (still pending, or a row that already ended) changes nothing. Answers what it did.
   */
  async function settle(refund: ProviderRefundRow, state: RefundState): Promise<{ moved: boolean; outcome: string }> {
    const named = `refund ${state.refundId}`
    if (!OPEN_REFUND_STATUSES.has(refund.status)) {
      if (refund.status === 'succeeded' && (state.status === 'failed' || state.status === 'canceled')) {
        // Not settled here: the merchant's refund was recorded as on the card; the operator checks with the provider.
        log.warn(
          { refundRow: refund.id, status: state.status },
          'the payment provider reports failed or canceled a refund to a card it had reported succeeded: nothing changed',
        )
      }
      return { moved: false, outcome: `${named} is ${state.status}, already ${refund.status} here: nothing changed` }
    }
    if (state.status === 'failed' || state.status === 'canceled') {
      const reason = state.failureReason ?? state.status
      const moved = await refused(refund, { status: state.status, refundId: state.refundId, reason })
      const amount = `${formatMinorAsAmount(refund.amountMinor)} ${refund.currency}`
      return moved
        ? { moved, outcome: `${named} ${state.status} (${reason}): ${amount} back on the balance` }
        : { moved, outcome: `${named} ${state.status}, already settled: nothing changed` }
    }
    if (state.status === 'succeeded') {
      const moved = await db.transaction((tx) => markRefundSucceeded(tx, refund.id, clock.now()))
      return moved
        ? { moved, outcome: `${named} succeeded` }
        : { moved, outcome: `${named} succeeded, already ${refund.status} here: nothing changed` }
    }
    return { moved: false, outcome: `${named} is ${state.status}: nothing changed` }
  }

  async function audit(tx: Queryable, record: AuditRecord): Promise<void> {
    await appendAuditEvent(tx, record, clock.now())
  }

  return {
    async runRefund(refundId) {
      const refund = await findRefund(db, refundId)
      if (refund?.status !== 'requested') return
      const payment = await findPayment(db, refund.payment)
      if (!payment?.paymentId) throw new Error(`refund ${refundId}: its payment has no provider payment id`)
      if (!deps.gateway) throw new Error(`refund ${refundId}: no payment provider is configured to send it`)
      let result: Awaited<ReturnType<PaymentGateway['refund']>>
      try {
        result = await deps.gateway.refund({
          paymentId: payment.paymentId,
          amountMinor: refund.amountMinor,
          currency: refund.currency,
          idempotencyKey: refund.idempotencyKey,
        })
      } catch (error) {
        if (error instanceof PaymentGatewayError && !error.retryable) {
          await refused(refund, { status: 'failed', refundId: null, reason: `${error.code}: ${error.message}` })
          return
        }
        // 429, 5xx, a timeout: the job is retried, with the same key, so a refund made whose answer was lost is
        // answered again rather than made twice.
        throw error
      }
      const { status, refundId: providerRefundId } = result
      if (status === 'failed' || status === 'canceled') {
        await refused(refund, { status, refundId: providerRefundId, reason: `the provider answered ${status}` })
        return
      }
      await db.transaction((tx) =>
        recordRefundAnswer(tx, refund.id, { refundId: providerRefundId, status }, clock.now()),
      )
    },

    async recordRefundUpdate(event) {
      const refund = await findRefundByProviderId(db, provider, event.refundId)
      if (!refund) return `no refund ${event.refundId} asked by printroute: nothing changed`
      return (await settle(refund, event)).outcome
    },

    async settlePendingRefund(refundRow) {
      const refund = await findRefund(db, refundRow)
      if (refund?.status !== 'pending' || refund.refundId === null) return false
      if (!deps.gateway) return false
      return (await settle(refund, await deps.gateway.readRefund(refund.refundId))).moved
    },

    async recordRefunded(event) {
      const found = await findPaymentByProviderId(db, provider, event.paymentId)
      if (!found) return `no payment ${event.paymentId} known to printroute: nothing changed`
      return underOrderLock(db, orders, found.orderNumber, async (tx) => {
        const payment = await lockPaymentByProviderId(tx, provider, event.paymentId)
        if (!payment) return `no payment ${event.paymentId} known to printroute: nothing changed`
        const now = clock.now()
        const total = event.amountRefundedMinor
        const known = payment.refundedMinor
        if (total <= known) {
          const marked = await markAnsweredRefundsSucceeded(tx, payment.id, now)
          return marked > 0
            ? `${marked} refund(s) printroute asked for marked succeeded`
            : `refunded ${formatMinorAsAmount(total)} ${event.currency} as printroute knows: nothing changed`
        }
        // A report made before a refund of this payment failed may still count it (the provider does not promise
        // its events' order): what the failures explain is stale, not a refund made outside printroute, and a later
        // report gives the payment as it is.
        if (total - known <= (await sumRefusedRefundsSince(tx, payment.id, event.createdAt))) {
          return `refunded ${formatMinorAsAmount(total)} ${event.currency} as reported before a refund failed: nothing changed`
        }
        const difference = total - known
        const refundRow = await insertRefund(tx, {
          payment: payment.id,
          accountId: payment.accountId,
          orderNumber: payment.orderNumber,
          amountMinor: difference,
          currency: event.currency,
          // The payment's total refunded: the same event again finds this row.
          idempotencyKey: `external-${provider}-${event.paymentId}-${total}`,
          status: 'external',
          reason: `refunded outside printroute (event ${event.eventId})`,
          ledgerEntryId: null,
          at: now,
        })
        if (refundRow === undefined) return `the refund outside printroute was already recorded: nothing changed`
        // Money the operator already gave back at the provider: recorded, the balance left as it is (nothing was
        // credited to it for this refund, so nothing is taken off).
        const entryId = await insertLedgerEntry(
          tx,
          {
            accountId: payment.accountId,
            orderNumber: payment.orderNumber,
            chargeId: null,
            entry: 'card-refund',
            amountMinor: -difference,
            currency: event.currency,
            reference: `refunded outside printroute on payment ${event.paymentId}: the balance is unchanged`,
          },
          await readBalance(tx, payment.accountId),
          now,
        )
        await setRefundLedgerEntry(tx, refundRow, entryId)
        await addRefunded(tx, payment.id, difference)
        await markAnsweredRefundsSucceeded(tx, payment.id, now)
        await audit(tx, {
          actor: SYSTEM,
          action: 'payment.refundedOutside',
          accountId: payment.accountId,
          environment: 'live',
          target: payment.orderNumber === null ? `payment ${event.paymentId}` : `ord_${payment.orderNumber}`,
          before: { refunded: formatMinorAsAmount(known) },
          after: {
            refunded: formatMinorAsAmount(total),
            amount: formatMinorAsAmount(difference),
            currency: event.currency,
            paymentId: event.paymentId,
            purpose: payment.purpose,
            ledgerEntry: 'card-refund',
          },
        })
        return `refunded outside printroute: ${formatMinorAsAmount(difference)} ${event.currency} recorded (balance unchanged)`
      })
    },
  }
}
