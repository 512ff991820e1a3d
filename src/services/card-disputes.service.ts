// Disputes (chargebacks) of card payments (docs/billing.md#disputes). The provider's `charge.dispute.created` and
// `charge.dispute.closed`, read by the gateway into disputeOpened / disputeClosed:
//   - the dispute is stored (provider_disputes, upserted by its id) with the payment's account and order;
//   - the first report of it records what it took back as owed: a ledger `card-dispute` (negative: owed; the balance
//     does not move: the bank took the money from the operator, so the account owes it), audited
//     `payment.disputeOpened` naming the order;
//   - closed `won`: a `card-dispute-won` of the same amount (positive) cancels what was owed; `lost`: the owed
//     amount stays; any other status only updates the row. Closing is audited `payment.disputeClosed`.
// Each entry is set once on the dispute's row by a conditional UPDATE under its lock, so a redelivered event records
// nothing twice.

import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import { formatMinorAsAmount } from '../domain/money.ts'
import type { DisputeEvent } from '../domain/payment-gateway.ts'
import { readBalance } from '../repositories/accounts.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import { insertLedgerEntry } from '../repositories/billing.repository.ts'
import {
  findDispute,
  findPaymentByProviderId,
  lockPaymentByProviderId,
  setDisputeEntry,
  upsertDispute,
} from '../repositories/card-refunds.repository.ts'
import { underOrderLock } from './card-refunds.service.ts'
import { createOrderChanger, type OrderChangeDeps } from './order-change.ts'

/** Both dispute events, as the dispatcher (services/payment-events.service.ts) hands them over. */
export type { DisputeEvent } from '../domain/payment-gateway.ts'

/** Every change here goes through the one order-change function (its deps): the order's lock first. */
export interface CardDisputesDeps extends OrderChangeDeps {
  db: Database
  clock: Clock
  /** The gateway's name (`stripe`): provider_payments.provider of the payments it reports on. */
  provider: string
}

export interface CardDisputesService {
  /** A dispute opened or closed; answers what it did, in words (provider_events.outcome). */
  recordDispute(event: DisputeEvent): Promise<string>
}

export function createCardDisputesService(deps: CardDisputesDeps): CardDisputesService {
  const { db, clock, provider } = deps
  const orders = createOrderChanger(deps)
  return {
    async recordDispute(event) {
      const found = await findPaymentByProviderId(db, provider, event.paymentId)
      if (!found) return `no payment ${event.paymentId} known to printroute: dispute ${event.disputeId} not recorded`
      return underOrderLock(db, orders, found.orderNumber, async (tx) => {
        const payment = await lockPaymentByProviderId(tx, provider, event.paymentId)
        if (!payment) return `no payment ${event.paymentId} known to printroute: nothing changed`
        const now = clock.now()
        const closed = event.kind === 'disputeClosed'
        const before = await findDispute(tx, provider, event.disputeId)
        const dispute = await upsertDispute(tx, {
          provider,
          disputeId: event.disputeId,
          payment: payment.id,
          accountId: payment.accountId,
          orderNumber: payment.orderNumber,
          paymentId: event.paymentId,
          amountMinor: event.amountMinor,
          currency: event.currency,
          reason: event.reason,
          status: event.status,
          closed,
          at: now,
        })
        const target = payment.orderNumber === null ? `payment ${event.paymentId}` : `ord_${payment.orderNumber}`
        const amount = formatMinorAsAmount(dispute.amountMinor)
        const done: string[] = []
        const entry = async (kind: 'card-dispute' | 'card-dispute-won', amountMinor: bigint, reference: string) =>
          insertLedgerEntry(
            tx,
            {
              accountId: payment.accountId,
              orderNumber: payment.orderNumber,
              chargeId: null,
              entry: kind,
              amountMinor,
              currency: dispute.currency,
              reference,
            },
            await readBalance(tx, payment.accountId),
            now,
          )
        if (dispute.openedEntryId === null) {
          // The first report of the dispute, whichever event it is: a dispute first heard of closed is owed too
          // (and taken off again below if it was won).
          const id = await entry(
            'card-dispute',
            -dispute.amountMinor,
            `dispute ${event.disputeId} (${event.reason}) of payment ${event.paymentId}: owed`,
          )
          await setDisputeEntry(tx, provider, event.disputeId, 'opened', id)
          await appendAuditEvent(
            tx,
            {
              actor: { kind: 'system' },
              action: 'payment.disputeOpened',
              accountId: payment.accountId,
              environment: 'live',
              target,
              before: null,
              after: {
                disputeId: event.disputeId,
                paymentId: event.paymentId,
                amount,
                currency: dispute.currency,
                reason: event.reason,
                status: event.status,
                ledgerEntry: 'card-dispute',
              },
            },
            now,
          )
          done.push(`${amount} ${dispute.currency} recorded as owed`)
        }
        if (closed && event.status === 'won' && dispute.wonEntryId === null) {
          const id = await entry(
            'card-dispute-won',
            dispute.amountMinor,
            `dispute ${event.disputeId} of payment ${event.paymentId} won: no longer owed`,
          )
          await setDisputeEntry(tx, provider, event.disputeId, 'won', id)
          done.push(`won: ${amount} ${dispute.currency} no longer owed`)
        }
        if (closed && !before?.closedAt) {
          await appendAuditEvent(
            tx,
            {
              actor: { kind: 'system' },
              action: 'payment.disputeClosed',
              accountId: payment.accountId,
              environment: 'live',
              target,
              before: { status: before?.status ?? null },
              after: {
                disputeId: event.disputeId,
                status: event.status,
                amount,
                currency: dispute.currency,
                ledgerEntry: event.status === 'won' ? 'card-dispute-won' : null,
              },
            },
            now,
          )
          if (event.status !== 'won') done.push(`closed ${event.status}`)
        }
        return done.length > 0
          ? `dispute ${event.disputeId}: ${done.join('; ')}`
          : `dispute ${event.disputeId} is ${event.status}: nothing more to record`
      })
    },
  }
}
