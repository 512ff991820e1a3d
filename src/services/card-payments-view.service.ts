// What the operator console shows of card payments through the payment provider (docs/admin.md#payments): an
// account's card on file, its latest payments, refunds to the card and disputes; an order's payments, refunds and
// disputes. Reads only.
import type { Queryable } from '../adapters/database.ts'
import type { ConsoleCardPayments } from '../domain/console-sections.ts'
import { formatMinorAsAmount } from '../domain/money.ts'
import {
  findCardOnFile,
  listDisputesOfAccount,
  listDisputesOfOrder,
  listPaymentsOfAccount,
  listPaymentsOfOrder,
  listRefundsOfAccount,
  listRefundsOfOrder,
  type ProviderDisputeRow,
  type ProviderPaymentRow,
  type ProviderRefundRow,
  type SavedCardRow,
} from '../repositories/card-refunds.repository.ts'

/** How many of each an account's page lists, newest first. */
export const RECENT_CARD_PAYMENTS = 20

export interface CardPaymentsView {
  ofAccount(accountNumber: number): Promise<ConsoleCardPayments>
  ofOrder(orderNumber: number): Promise<ConsoleCardPayments>
}

const orderIdOf = (orderNumber: number | null) => (orderNumber === null ? null : `ord_${orderNumber}`)
const iso = (at: Date | string | null) => (at === null ? null : new Date(at).toISOString())

function view(
  card: SavedCardRow | undefined,
  payments: ProviderPaymentRow[],
  refunds: ProviderRefundRow[],
  disputes: ProviderDisputeRow[],
): ConsoleCardPayments {
  return {
    cardOnFile: card
      ? {
          brand: card.brand,
          last4: card.last4,
          expiry:
            card.expiryMonth !== null && card.expiryYear !== null
              ? `${String(card.expiryMonth).padStart(2, '0')}/${card.expiryYear}`
              : null,
          savedAt: iso(card.savedAt),
        }
      : null,
    payments: payments.map((payment) => ({
      purpose: payment.purpose,
      amount: payment.amountMinor === null ? null : formatMinorAsAmount(payment.amountMinor),
      currency: payment.currency,
      status: payment.status,
      refunded: formatMinorAsAmount(payment.refundedMinor),
      at: iso(payment.completedAt ?? payment.createdAt) as string,
      orderId: orderIdOf(payment.orderNumber),
      paymentId: payment.paymentId,
    })),
    refunds: refunds.map((refund) => ({
      amount: formatMinorAsAmount(refund.amountMinor),
      currency: refund.currency,
      status: refund.status,
      at: iso(refund.createdAt) as string,
      orderId: orderIdOf(refund.orderNumber),
      reason: refund.reason,
      failure: refund.failureReason,
    })),
    disputes: disputes.map((dispute) => ({
      disputeId: dispute.disputeId,
      amount: formatMinorAsAmount(dispute.amountMinor),
      currency: dispute.currency,
      reason: dispute.reason,
      status: dispute.status,
      openedAt: iso(dispute.openedAt) as string,
      closedAt: iso(dispute.closedAt),
      orderId: orderIdOf(dispute.orderNumber),
    })),
  }
}

export function createCardPaymentsView(deps: { db: Queryable }): CardPaymentsView {
  const { db } = deps
  return {
    async ofAccount(accountNumber) {
      const [card, payments, refunds, disputes] = await Promise.all([
        findCardOnFile(db, accountNumber),
        listPaymentsOfAccount(db, accountNumber, RECENT_CARD_PAYMENTS),
        listRefundsOfAccount(db, accountNumber, RECENT_CARD_PAYMENTS),
        listDisputesOfAccount(db, accountNumber, RECENT_CARD_PAYMENTS),
      ])
      return view(card, payments, refunds, disputes)
    },
    async ofOrder(orderNumber) {
      const [payments, refunds, disputes] = await Promise.all([
        listPaymentsOfOrder(db, orderNumber),
        listRefundsOfOrder(db, orderNumber),
        listDisputesOfOrder(db, orderNumber),
      ])
      return view(undefined, payments, refunds, disputes)
    },
  }
}
