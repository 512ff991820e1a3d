// The payment page behind RequiresPaymentAuthorisation (docs/billing.md#orders-waiting-for-payment): a prepaid order
// the balance cannot cover shows a URL; whoever holds it sees what is due and pays it by card. The payment is credited
// to the account and the order paid from it in one transaction, which releases the order to its labs.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { CardDetails, PaymentProvider } from '../adapters/payment-provider.ts'
import type { AuditActor } from '../domain/audit.ts'
import { formatId, parseId } from '../domain/ids.ts'
import type { JobRequest } from '../domain/jobs.ts'
import { formatMinorAsAmount } from '../domain/money.ts'
import { ServiceError } from '../domain/outcomes.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { findAccount, readBalance } from '../repositories/accounts.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import { listOrdersAwaitingPayment, readOrder } from '../repositories/orders.repository.ts'
import { type BillingService, paymentTokenMatches } from './billing.service.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'
import { createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'
import { orderLogFields } from './pipeline/log-lines.ts'

export interface PaymentPageFacts {
  orderId: string
  merchantReference: string | null
  /** What is due now; "0.00" once paid. */
  amount: string
  currency: string
  status: 'due' | 'paid' | 'cancelled'
}

export type PaymentAttempt =
  | { status: 'paid'; amount: string; currency: string; reference: string }
  | { status: 'declined'; reason: string }
  | { status: 'nothingDue' }
  /** The amount due changed since the page was shown (the order changed): show the new amount. */
  | { status: 'amountChanged'; amount: string; currency: string }

const NOT_FOUND = 'This payment link is not valid'

/** Paying what prepaid orders owe: the payment page and balance top-ups. */
export interface PaymentsService {
  /** What the payment page of a Live order shows; EntityNotFound unless the token is the order's. */
  describe(orderId: string, token: string): Promise<PaymentPageFacts>
  /** Charges the card for what the order owes, if it is still `amountShown`; what came of it. */
  pay(orderId: string, token: string, amountShown: string, card: CardDetails): Promise<PaymentAttempt>
  /** Adds to a prepaid balance and pays the waiting orders it now covers: the new balance, the released orders. */
  topUp(
    accountId: number,
    amountMinor: bigint,
    reference: string | null,
    actor: AuditActor,
  ): Promise<{ balanceMinor: bigint; currency: string; releasedOrderIds: string[] }>
  /** Pays, oldest first, every order of the account waiting for a payment that its balance now covers; their ids. */
  releaseWaitingOrders(accountId: number): Promise<string[]>
}

/**
 * A card payment for an order counted, under the order's lock: the money is the account's from here on, credited
 * first (`card-payment`), then what the order owes is paid from the balance. If the order changed since the amount
 * was asked for (a cancel, a cheaper method), what is not needed stays on the balance; if it owes more now, it is
 * paid when the balance covers it. The payment page's payments and the hosted provider's (Stripe Checkout) both
 * come through here.
 */
export async function creditCardPayment(
  billing: Pick<BillingService, 'credit' | 'settleFromBalance'>,
  tx: Queryable,
  order: PipelineOrder,
  amountMinor: bigint,
  details: { currency: string; reference: string },
): Promise<{ paid: boolean; jobs: JobRequest[] }> {
  await billing.credit(tx, order.accountId, amountMinor, 'card-payment', { ...details, order })
  return billing.settleFromBalance(tx, order)
}

/**
 * A top-up counted, in the caller's transaction: the balance credited (`top-up`) and the audit entry
 * `account.toppedUp`; the new balance. The caller then releases the orders it covers (releaseWaitingOrders), each in
 * its own transaction under the order's lock.
 */
export async function creditTopUp(
  deps: { billing: Pick<BillingService, 'credit'>; clock: Clock },
  tx: Queryable,
  topUp: { accountId: number; amountMinor: bigint; currency: string; reference: string | null; actor: AuditActor },
): Promise<bigint> {
  const { accountId, amountMinor, currency, reference } = topUp
  const after = await deps.billing.credit(tx, accountId, amountMinor, 'top-up', { currency, reference })
  // Balances are Live money (Sandbox never bills).
  await appendAuditEvent(
    tx,
    {
      actor: topUp.actor,
      action: 'account.toppedUp',
      accountId,
      environment: 'live',
      target: formatId('acc', accountId),
      before: { balance: formatMinorAsAmount(after - amountMinor), currency },
      after: { amount: formatMinorAsAmount(amountMinor), currency, reference, balance: formatMinorAsAmount(after) },
    },
    deps.clock.now(),
  )
  return after
}

export function createPaymentsService(deps: {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  billing: BillingService
  provider: PaymentProvider
  /** Writes the callbacks a payment causes (payment authorised), in its transaction. */
  events: OrderEventsService
  /** One line per payment taken, declined, or releasing an order; silent when absent. */
  log?: ServiceLogger
}): PaymentsService {
  const { db } = deps
  const log = deps.log ?? silentLogger
  const orders = createOrderChanger(deps)

  /** The order behind a payment link, or EntityNotFound for any link that is not one (no hint which part is wrong). */
  async function orderOfLink(orderId: string, token: string): Promise<PipelineOrder> {
    const orderNumber = parseId('ord', orderId)
    const order = orderNumber === undefined ? undefined : await readOrder(db, orderNumber)
    if (order?.environment !== 'live' || !paymentTokenMatches(order.pipeline.billing, token)) {
      throw new ServiceError('EntityNotFound', NOT_FOUND)
    }
    return order
  }

  /** What the order still owes, minor units of its billing currency. */
  function dueOf(order: PipelineOrder): bigint {
    return BigInt(order.pipeline.billing?.unpaid ?? '0')
  }

  function factsOf(order: PipelineOrder): PaymentPageFacts {
    const billing = order.pipeline.billing
    const due = dueOf(order)
    return {
      orderId: order.document.id,
      merchantReference: order.document.merchantReference,
      amount: formatMinorAsAmount(due),
      currency: billing?.currency ?? '',
      status: order.document.status.stage === 'Cancelled' && due === 0n ? 'cancelled' : due > 0n ? 'due' : 'paid',
    }
  }

  /** Pays, oldest first, every order of the account waiting for a payment that its balance now covers. */
  async function releaseWaitingOrders(accountId: number): Promise<string[]> {
    const releasedOrderIds: string[] = []
    // One transaction per order, each locking the order before the account (the order every path takes).
    for (const orderNumber of await listOrdersAwaitingPayment(db, accountId)) {
      const settled = await orders.change(orderNumber, async (order, tx) => {
        const { paid, jobs } = await deps.billing.settleFromBalance(tx, order)
        return { changed: paid, jobs }
      })
      const paid = settled?.result.changed ? settled.order : null
      if (paid) {
        releasedOrderIds.push(paid.document.id)
        log.info(
          { ...orderLogFields(paid), step: 'payment', result: 'paid from balance', released: true },
          `${paid.document.id} paid from the topped-up balance; the order goes to production`,
        )
      }
    }
    return releasedOrderIds
  }

  return {
    releaseWaitingOrders,

    async describe(orderId: string, token: string): Promise<PaymentPageFacts> {
      return factsOf(await orderOfLink(orderId, token))
    },

    /** Charges the card for what is due, if it is still `amountShown`. */
    async pay(orderId: string, token: string, amountShown: string, card: CardDetails): Promise<PaymentAttempt> {
      const order = await orderOfLink(orderId, token)
      const facts = factsOf(order)
      if (facts.status !== 'due') return { status: 'nothingDue' }
      if (facts.amount !== amountShown)
        return { status: 'amountChanged', amount: facts.amount, currency: facts.currency }
      const due = dueOf(order)
      const result = await deps.provider.charge({
        amountMinor: due,
        currency: facts.currency,
        description: `printroute order ${facts.orderId}`,
        card,
      })
      if (!result.approved) {
        log.info(
          {
            ...orderLogFields(order),
            step: 'payment',
            result: 'declined',
            amount: facts.amount,
            currency: facts.currency,
          },
          `payment of ${facts.amount} ${facts.currency} for ${facts.orderId} declined: ${result.reason}`,
        )
        return { status: 'declined', reason: result.reason }
      }
      const paid = await orders.change(parseId('ord', orderId) as number, async (order, tx) => {
        const settled = await creditCardPayment(deps.billing, tx, order, due, {
          currency: facts.currency,
          reference: `${deps.provider.name}:${result.reference}`,
        })
        return { changed: settled.paid, jobs: settled.jobs }
      })
      if (!paid) throw new ServiceError('EntityNotFound', NOT_FOUND)
      const released = paid.result.changed
      log.info(
        {
          ...orderLogFields(order),
          step: 'payment',
          result: 'paid',
          amount: facts.amount,
          currency: facts.currency,
          released,
        },
        `payment of ${facts.amount} ${facts.currency} for ${facts.orderId} taken${released ? '; the order goes to production' : ''}`,
      )
      return { status: 'paid', amount: facts.amount, currency: facts.currency, reference: result.reference }
    },

    /**
     * Adds to a prepaid balance (`printroute accounts top-up`), then pays, oldest first, every order of the
     * account waiting for a payment that the balance now covers. Returns the new balance and the released orders.
     */
    async topUp(
      accountId: number,
      amountMinor: bigint,
      reference: string | null,
      actor: AuditActor,
    ): Promise<{ balanceMinor: bigint; currency: string; releasedOrderIds: string[] }> {
      const account = await findAccount(db, accountId)
      if (!account) throw new ServiceError('EntityNotFound', `No account ${formatId('acc', accountId)}`)
      const currency = account.billingCurrency
      await db.transaction((tx) => creditTopUp(deps, tx, { accountId, amountMinor, currency, reference, actor }))
      const releasedOrderIds = await releaseWaitingOrders(accountId)
      const balanceMinor = await readBalance(db, accountId)
      return { balanceMinor, currency: account.billingCurrency, releasedOrderIds }
    },
  }
}
