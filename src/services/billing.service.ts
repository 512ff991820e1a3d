// Charging orders and settling the charges (docs/billing.md). Every function here runs inside the
// transaction that holds the order's row lock, so the order's charges, its payment hold and the account's
// balance and ledger change together or not at all.
//
// Settlement per environment and account billing mode:
//   - Sandbox: charges are shown on the order and never billed: no balance, no ledger, no hold.
//   - Live, invoice: every charge and refund is written to the ledger for the next invoice; no hold, unless the
//     account has a credit limit (docs/billing.md#credit-limits) and the charge takes its open amount above it: then
//     the order is held on RequiresPaymentAuthorisation exactly as a prepaid order its balance cannot cover.
//   - Live, prepaid: a charge is taken from the balance when the balance covers it; otherwise the order gets the
//     issue RequiresPaymentAuthorisation (with the payment page's URL and the amount due) and is not handed to
//     any lab until it is paid, by a card payment on that page or by a top-up, or an operator releases it (what
//     it owes is then recorded as owed on the next invoice, an `invoice-charge`). Refunds reduce what is still
//     due first, then what a release left owed on the invoice, and credit the rest to the balance.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Queryable } from '../adapters/database.ts'
import {
  applyLines,
  type BillingState,
  buildCharge,
  chargeTotal,
  diffLines,
  newBillingState,
  type PriceLine,
} from '../domain/charges.ts'
import { exceedsCreditLimit } from '../domain/credit-limits.ts'
import type { JobRequest } from '../domain/jobs.ts'
import { formatMinorAsAmount } from '../domain/money.ts'
import type { Issue, OrderCredit } from '../domain/order.ts'
import { addCredit, type CreditRequest, creditDraft, creditIssuedEvent, creditOf } from '../domain/order-credits.ts'
import type { OrderEventKind } from '../domain/order-events.ts'
import { ISSUE_CODES, type PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { isAwaitingPayment, submissionJobs } from '../domain/pipeline/submit-shipment.ts'
import {
  creditBalance,
  debitBalance,
  findAccount,
  lockAccount,
  readBalance,
} from '../repositories/accounts.repository.ts'
import {
  drawChargeIds,
  drawCreditId,
  insertLedgerEntry,
  type LedgerEntryKind,
} from '../repositories/billing.repository.ts'
import { openAmountOfAccount } from '../repositories/invoices.repository.ts'
import type { CardRefundRequester } from './card-refunds.service.ts'
import type { InvoicesService } from './invoices.service.ts'

const PAYMENT_ISSUE_CODE = ISSUE_CODES.paymentAuthorisation

export interface BillingDeps {
  clock: Clock
  /** The absolute URL of the payment page of an order (served by the Live API). */
  paymentPageUrl: (orderId: string, token: string) => string
  /** Where a Sandbox order held by the scenario paymentRequired is authorised: its page on the Sandbox dashboard. */
  sandboxAuthorisationUrl: (orderId: string) => string
  /** Issues each new charge's invoice or credit note in the charge's transaction (docs/billing.md#invoices). */
  invoices: Pick<InvoicesService, 'issueForCharge'>
  /**
   * With a payment gateway (docs/billing.md#a-card-on-file): a charge leaves a Live prepaid order owing `dueMinor`;
   * if its account has a card on file, records the intent to charge the card for it (a provider payment 'open') in
   * this transaction and answers the job that charges it; undefined without a card (the order waits as before).
   */
  startSavedCardCharge?: (
    tx: Queryable,
    order: PipelineOrder,
    dueMinor: bigint,
    chargeId: string,
  ) => Promise<JobRequest | undefined>
  /**
   * With a payment provider: sends what a refund credits to a prepaid balance back to the card that paid the order
   * (docs/billing.md#refunds-to-the-card), in the refund's transaction. Absent: refunds stay on the balance.
   */
  cardRefunds?: CardRefundRequester
}

function billingOf(order: PipelineOrder): BillingState {
  const billing = order.pipeline.billing
  if (!billing) throw new Error(`order ${order.document.id} has not been charged yet`)
  return billing
}

/** Constant-time comparison of a payment token with the order's. */
export function paymentTokenMatches(billing: BillingState | undefined, token: string): boolean {
  if (!billing?.paymentTokenHash) return false
  const given = createHash('sha256').update(token).digest()
  return timingSafeEqual(given, Buffer.from(billing.paymentTokenHash, 'hex'))
}

/**
 * Charging orders and settling the charges; every member runs inside the transaction holding the order's row
 * lock, and changes the order it is given in place (the caller saves it).
 */
export interface BillingService {
  /** Starts billing an order entering fulfilment, in `currency` or else its account's billing currency. */
  startBilling(tx: Queryable, order: PipelineOrder, currency?: string): Promise<BillingState>
  /** Charges the difference between `target` and the lines charged so far, settles it; the jobs it releases. */
  chargeDifference(
    tx: Queryable,
    order: PipelineOrder,
    target: Record<string, PriceLine>,
    first?: boolean,
  ): Promise<JobRequest[]>
  /**
   * Issues a credit on the order (docs/billing.md#late-delivery-credits): capped at what its charge may still give
   * back, charged as a credit line (a Refund charge and its credit note), settled like any refund, added to the
   * order's `credits[]`. Undefined when nothing is left to credit; else the credit, its event and the jobs released.
   */
  issueCredit(
    tx: Queryable,
    order: PipelineOrder,
    request: CreditRequest,
  ): Promise<{ credit: OrderCredit; event: OrderEventKind; jobs: JobRequest[] } | undefined>
  /** Pays what a prepaid order still owes from the balance, if the balance now covers it. */
  settleFromBalance(tx: Queryable, order: PipelineOrder): Promise<{ paid: boolean; jobs: JobRequest[] }>
  /** Authorises what a Sandbox order held by the scenario paymentRequired owes; no money moves. */
  authoriseSandboxPayment(order: PipelineOrder): { paid: boolean; jobs: JobRequest[] }
  /**
   * Lets an order held for payment go on without the payment (an operator's release of a hold that is neither prepaid
   * nor the Sandbox's; none is made today): what it owed is
   * written off, no money moves; how much, and the jobs that hand it to its labs. Nothing when nothing is due.
   */
  waivePayment(order: PipelineOrder): { waivedMinor: bigint; jobs: JobRequest[] }
  /**
   * Lets a Live prepaid order held for payment go on with what it owes recorded as owed on the account's next
   * invoice (an operator's release, docs/billing.md#releasing-an-order-held-for-payment): a ledger `invoice-charge`
   * of the amount, the balance unchanged; how much, and the jobs that hand it to its labs. Nothing when nothing is
   * due.
   */
  oweOnInvoice(tx: Queryable, order: PipelineOrder): Promise<{ owedMinor: bigint; jobs: JobRequest[] }>
  /**
   * Ends the charge of the card on file started for a held order (docs/billing.md#a-card-on-file). Paid (`failure`
   * null; the payment already credited to the balance): the order is paid from the balance, which releases it, and
   * what it no longer needs stays on the balance. Not paid: the order shows its payment issue, saying why
   * (`failure`, in words). The jobs that hand the order to its labs when it is released.
   */
  finishSavedCardCharge(tx: Queryable, order: PipelineOrder, failure: string | null): Promise<JobRequest[]>
  /**
   * A card was saved while the order already waited for a payment (docs/billing.md#a-card-on-file): starts the
   * charge of the card for what it owes, as a new hold does (one provider payment 'open' and its job, in `tx`);
   * the order then waits without its issue. No job when nothing is due, a charge is in flight, or no card is on file.
   */
  startCardChargeOfHeldOrder(tx: Queryable, order: PipelineOrder): Promise<JobRequest[]>
  /** Adds money to an account's balance (a top-up or a card payment) with its ledger entry; the new balance. */
  credit(
    tx: Queryable,
    accountId: number,
    amountMinor: bigint,
    entry: 'top-up' | 'card-payment',
    details: { currency: string; reference: string | null; order?: PipelineOrder },
  ): Promise<bigint>
}

export function createBillingService(deps: BillingDeps): BillingService {
  const { clock } = deps

  const service: BillingService = {
    /**
     * Starts billing an order that enters fulfilment, with the settlement its account and environment call for,
     * in `currency` (an order created with a quote: the quote's) or else the account's billing currency. Reads the
     * account: call under the order's lock.
     */
    async startBilling(tx: Queryable, order: PipelineOrder, currency?: string): Promise<BillingState> {
      if (order.pipeline.billing) return order.pipeline.billing
      const account = await findAccount(tx, order.accountId)
      if (!account) throw new Error(`order ${order.document.id} has no account`)
      const settlement =
        order.environment === 'live'
          ? account.billingMode
          : order.sandboxScenario === 'paymentRequired'
            ? 'sandboxHold'
            : 'none'
      const billing = newBillingState(currency ?? account.billingCurrency, settlement)
      if (account.priceList !== null) billing.priceList = account.priceList
      order.pipeline.billing = billing
      return billing
    },

    /**
     * Charges what `target` adds to or takes from the lines charged so far, as one charge on the order (the
     * first charge when `first`), settles it, and updates the payment hold. Returns jobs the change releases.
     */
    async chargeDifference(
      tx: Queryable,
      order: PipelineOrder,
      target: Record<string, PriceLine>,
      first = false,
    ): Promise<JobRequest[]> {
      const billing = billingOf(order)
      const drafts = diffLines(billing.lines, target)
      applyLines(billing, target)
      if (drafts.length === 0) return []
      const ids = await drawChargeIds(tx, drafts.length)
      const charge = buildCharge(drafts, billing.currency, ids, first)
      // The document's number is drawn here, in the charge's transaction: a charge rolled back gives it back.
      charge.prodigiInvoiceNumber = await deps.invoices.issueForCharge(tx, order, charge, drafts)
      order.document.charges.push(charge)
      const total = chargeTotal(drafts).total
      await settle(deps, tx, order, ids.chargeId, total)
      // Started before the hold is synced: while the card is charged, the order waits without its issue.
      const cardJobs = await startSavedCardCharge(deps, tx, order, ids.chargeId, total)
      return [...syncPaymentHold(deps, order), ...cardJobs]
    },

    async finishSavedCardCharge(tx: Queryable, order: PipelineOrder, failure: string | null): Promise<JobRequest[]> {
      const billing = order.pipeline.billing
      if (!billing) return []
      if (failure === null) {
        const settled = await service.settleFromBalance(tx, order)
        if (settled.paid) return settled.jobs
        // The order changed while the card was charged (it costs more now): the payment stays on the balance and
        // the order shows its issue for what it still owes.
        delete billing.cardCharge
      } else {
        billing.cardCharge = { status: 'failed', reason: failure }
      }
      order.document.lastUpdated = clock.now().toISOString()
      return syncPaymentHold(deps, order)
    },

    async startCardChargeOfHeldOrder(tx: Queryable, order: PipelineOrder): Promise<JobRequest[]> {
      const billing = order.pipeline.billing
      if (!billing || !isAwaitingPayment(order.pipeline)) return []
      const due = BigInt(billing.unpaid)
      // The charge that left the order owing names the attempt, as a new hold's does.
      const chargeId = order.document.charges.at(-1)?.id ?? 'none'
      const cardJobs = await startSavedCardCharge(deps, tx, order, chargeId, due)
      if (cardJobs.length === 0) return []
      order.document.lastUpdated = clock.now().toISOString()
      return [...syncPaymentHold(deps, order), ...cardJobs]
    },

    async issueCredit(tx, order, request) {
      const billing = order.pipeline.billing
      const draft = billing && creditDraft(order.document, billing, request)
      if (!billing || !draft) return undefined
      const jobs = await service.chargeDifference(tx, order, draft.lines)
      const creditNote = order.document.charges.at(-1)?.prodigiInvoiceNumber ?? null
      const now = clock.now()
      const credit = creditOf(draft, { creditId: await drawCreditId(tx), creditNote }, billing.currency, now)
      addCredit(order.document, credit)
      order.document.lastUpdated = now.toISOString()
      return { credit, event: creditIssuedEvent(credit), jobs }
    },

    /** Pays what a prepaid order still owes from the balance, if the balance now covers it. */
    async settleFromBalance(tx: Queryable, order: PipelineOrder): Promise<{ paid: boolean; jobs: JobRequest[] }> {
      const billing = order.pipeline.billing
      const due = billing ? BigInt(billing.unpaid) : 0n
      if (!billing || due === 0n) return { paid: false, jobs: [] }
      const after = await debitBalance(tx, order.accountId, due)
      if (after === undefined) return { paid: false, jobs: [] }
      await ledger(clock, tx, order, order.accountId, 'balance-charge', -due, billing.currency, after, {
        reference: `payment due on ${order.document.id}`,
      })
      billing.unpaid = '0'
      order.document.lastUpdated = clock.now().toISOString()
      return { paid: true, jobs: syncPaymentHold(deps, order) }
    },

    /**
     * Authorises what a Sandbox order held by the scenario paymentRequired owes (no money moves): the hold goes,
     * and the jobs that hand the order to its labs are returned. `paid` is false when nothing was held.
     */
    authoriseSandboxPayment(order: PipelineOrder): { paid: boolean; jobs: JobRequest[] } {
      const billing = order.pipeline.billing
      if (billing?.settlement !== 'sandboxHold' || BigInt(billing.unpaid) === 0n) return { paid: false, jobs: [] }
      billing.unpaid = '0'
      order.document.lastUpdated = clock.now().toISOString()
      return { paid: true, jobs: syncPaymentHold(deps, order) }
    },

    waivePayment(order: PipelineOrder): { waivedMinor: bigint; jobs: JobRequest[] } {
      const billing = order.pipeline.billing
      const due = billing ? BigInt(billing.unpaid) : 0n
      if (!billing || due === 0n) return { waivedMinor: 0n, jobs: [] }
      billing.unpaid = '0'
      order.document.lastUpdated = clock.now().toISOString()
      return { waivedMinor: due, jobs: syncPaymentHold(deps, order) }
    },

    async oweOnInvoice(tx: Queryable, order: PipelineOrder): Promise<{ owedMinor: bigint; jobs: JobRequest[] }> {
      const billing = order.pipeline.billing
      const due = billing ? BigInt(billing.unpaid) : 0n
      if (!billing || due === 0n) return { owedMinor: 0n, jobs: [] }
      const balance = await readBalance(tx, order.accountId)
      await ledger(clock, tx, order, order.accountId, 'invoice-charge', -due, billing.currency, balance, {
        reference: `released unpaid by an operator: ${order.document.id} owes it on the next invoice`,
      })
      billing.owedOnInvoice = String(BigInt(billing.owedOnInvoice ?? '0') + due)
      billing.unpaid = '0'
      order.document.lastUpdated = clock.now().toISOString()
      return { owedMinor: due, jobs: syncPaymentHold(deps, order) }
    },

    /** Adds money to an account's balance (a top-up, or a card payment for an order); the new balance. */
    async credit(
      tx: Queryable,
      accountId: number,
      amountMinor: bigint,
      entry: 'top-up' | 'card-payment',
      details: { currency: string; reference: string | null; order?: PipelineOrder },
    ): Promise<bigint> {
      if (amountMinor <= 0n) throw new RangeError('a credit must be positive')
      const after = await creditBalance(tx, accountId, amountMinor)
      if (after === undefined) throw new Error(`no account ${accountId}`)
      await ledger(clock, tx, details.order ?? null, accountId, entry, amountMinor, details.currency, after, {
        reference: details.reference,
      })
      return after
    },
  }
  return service
}

/** Writes one ledger entry of the account (and of the order, if any), with the balance after it. */
async function ledger(
  clock: Clock,
  tx: Queryable,
  order: PipelineOrder | null,
  accountId: number,
  entry: LedgerEntryKind,
  amountMinor: bigint,
  currency: string,
  balanceAfter: bigint,
  details: { chargeId?: string | null; reference?: string | null } = {},
): Promise<void> {
  await insertLedgerEntry(
    tx,
    {
      accountId,
      orderNumber: order?.orderNumber ?? null,
      chargeId: details.chargeId ?? null,
      entry,
      amountMinor,
      currency,
      reference: details.reference ?? null,
    },
    balanceAfter,
    clock.now(),
  )
}

/** Settles one new charge of `total` (negative: a refund) according to the order's settlement. */
async function settle(
  deps: BillingDeps,
  tx: Queryable,
  order: PipelineOrder,
  chargeId: string,
  total: bigint,
): Promise<void> {
  const { clock } = deps
  const billing = billingOf(order)
  if (billing.settlement === 'none' || total === 0n) return
  if (billing.settlement === 'sandboxHold') {
    // Owed until authorised, like a prepaid order its balance cannot cover; no money moves.
    const unpaid = BigInt(billing.unpaid) + total
    billing.unpaid = String(unpaid > 0n ? unpaid : 0n)
    return
  }
  const unpaid = BigInt(billing.unpaid)
  if (billing.settlement === 'invoice') {
    const balance = await readBalance(tx, order.accountId)
    const entry = total > 0n ? 'invoice-charge' : 'invoice-refund'
    await ledger(clock, tx, order, order.accountId, entry, -total, billing.currency, balance, { chargeId })
    if (total < 0n) {
      // A refund takes from what the order still owes first, as a prepaid order's does.
      billing.unpaid = String(-total < unpaid ? unpaid + total : 0n)
    } else if (unpaid > 0n || (await overCreditLimit(tx, order, billing.currency))) {
      // Held: the charge is invoiced (it counts in the open amount) but waits for a payment or the operator.
      billing.unpaid = String(unpaid + total)
    }
    return
  }
  if (total > 0n) {
    // Charges are paid in order: while an earlier one is due, a new one joins it rather than jumping the queue.
    const after = unpaid === 0n ? await debitBalance(tx, order.accountId, total) : undefined
    if (after !== undefined) {
      await ledger(clock, tx, order, order.accountId, 'balance-charge', -total, billing.currency, after, { chargeId })
    } else {
      billing.unpaid = String(unpaid + total)
    }
    return
  }
  const credit = -total
  const fromUnpaid = credit < unpaid ? credit : unpaid
  billing.unpaid = String(unpaid - fromUnpaid)
  // What an operator's release left owed on the next invoice is taken off there, never paid into the balance: the
  // account gets back only money it paid.
  const owed = BigInt(billing.owedOnInvoice ?? '0')
  const afterUnpaid = credit - fromUnpaid
  const fromOwed = afterUnpaid < owed ? afterUnpaid : owed
  if (fromOwed > 0n) {
    billing.owedOnInvoice = String(owed - fromOwed)
    const balance = await readBalance(tx, order.accountId)
    await ledger(clock, tx, order, order.accountId, 'invoice-refund', fromOwed, billing.currency, balance, { chargeId })
  }
  const rest = afterUnpaid - fromOwed
  if (rest > 0n) {
    const after = (await creditBalance(tx, order.accountId, rest)) ?? 0n
    await ledger(clock, tx, order, order.accountId, 'balance-refund', rest, billing.currency, after, { chargeId })
    // What a card paid for the order goes back to the card: taken off the balance again (`card-refund`) and asked of
    // the provider by a job queued in this transaction.
    await deps.cardRefunds?.refundToCard(tx, order, chargeId, rest)
  }
}

/**
 * Whether the account's open amount, with the charge just invoiced on `order`, is above its credit limit. The
 * account's row is locked first, so two orders charged at once are checked one after the other (the second sees the
 * first's invoice). An order billed in another currency than the account's (a quote from before a change of
 * currency) cannot be compared with the limit: it is held while the account has one.
 */
async function overCreditLimit(tx: Queryable, order: PipelineOrder, currency: string): Promise<boolean> {
  const unlocked = await findAccount(tx, order.accountId)
  if (unlocked?.creditLimitMinor === null || unlocked === undefined) return false
  const account = await lockAccount(tx, order.accountId)
  if (!account || account.creditLimitMinor === null) return false
  if (account.billingCurrency !== currency) return true
  return exceedsCreditLimit(await openAmountOfAccount(tx, order.accountId, currency), account.creditLimitMinor)
}

/**
 * A charge (not a refund) left a Live prepaid order owing and no charge of its card is in flight: asks for one
 * (deps.startSavedCardCharge, wired only with a payment gateway); its job, if the account has a card on file.
 */
async function startSavedCardCharge(
  deps: BillingDeps,
  tx: Queryable,
  order: PipelineOrder,
  chargeId: string,
  total: bigint,
): Promise<JobRequest[]> {
  const billing = billingOf(order)
  const due = BigInt(billing.unpaid)
  const start = deps.startSavedCardCharge
  if (!start || order.environment !== 'live' || billing.settlement !== 'prepaid') return []
  if (total <= 0n || due === 0n || billing.cardCharge?.status === 'inFlight') return []
  const job = await start(tx, order, due, chargeId)
  if (!job) return []
  billing.cardCharge = { status: 'inFlight' }
  return [job]
}

/** Why the order waits, in the issue's words. */
function holdReason(billing: BillingState): string {
  if (billing.settlement === 'invoice') return 'it would take what the account owes above its credit limit'
  const balance = "the account's prepaid balance does not cover it"
  return billing.cardCharge?.status === 'failed'
    ? `${balance}, and the card on file ${billing.cardCharge.reason}`
    : balance
}

/**
 * Makes the order's payment issue match what is due: the issue (with the current amount) while something is
 * due, none otherwise. Returns the submission jobs released when nothing is due any more.
 */
function syncPaymentHold(deps: BillingDeps, order: PipelineOrder): JobRequest[] {
  const billing = billingOf(order)
  const { document } = order
  const wasHeld =
    document.status.issues.some((issue) => issue.errorCode === PAYMENT_ISSUE_CODE) ||
    billing.cardCharge?.status === 'inFlight'
  document.status.issues = document.status.issues.filter((issue) => issue.errorCode !== PAYMENT_ISSUE_CODE)
  if (!isAwaitingPayment(order.pipeline)) {
    // Paid (by the card, a top-up, the payment page) or nothing due any more: a charge still in flight is counted
    // on the balance when it answers.
    delete billing.cardCharge
    return wasHeld ? submissionJobs(document, order.pipeline) : []
  }
  // While the card on file is charged the order waits (not handed to a lab) without the issue: it appears only
  // if the charge does not pay.
  if (billing.cardCharge?.status === 'inFlight') return []
  const sandbox = billing.settlement === 'sandboxHold'
  if (sandbox) billing.paymentUrl = deps.sandboxAuthorisationUrl(document.id)
  if (!billing.paymentUrl) {
    // One URL per order for its whole life: a link already sent on keeps working when the amount changes.
    const token = randomBytes(24).toString('base64url')
    billing.paymentTokenHash = createHash('sha256').update(token).digest('hex')
    billing.paymentUrl = deps.paymentPageUrl(document.id, token)
  }
  const amount = formatMinorAsAmount(BigInt(billing.unpaid))
  const issue: Issue = {
    objectId: document.id,
    errorCode: PAYMENT_ISSUE_CODE,
    description: sandbox
      ? `A payment of ${amount} ${billing.currency} is needed before the order goes to production (Sandbox scenario paymentRequired: authorise it with POST /v4.0/sandbox/orders/${document.id}/advance or on the dashboard)`
      : `A payment of ${amount} ${billing.currency} is needed before the order goes to production: ${holdReason(billing)}`,
    authorisationDetails: {
      authorisationUrl: billing.paymentUrl,
      paymentDetails: { amount, currency: billing.currency },
    },
  }
  document.status.issues.push(issue)
  return []
}
