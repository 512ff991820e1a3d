// The operator's actions on one order (docs/admin.md#acting-on-an-order): cancel, credit part of a charge, retry a
// failed download, release a held order, and notes. Each runs through the machinery the merchant's actions and the
// pipeline use - the one order-change function (order-change.ts: the row lock, events, jobs), the merchant's cancel
// (order-actions.service.ts), the billing service's charges and their credit notes, the download step's job - and
// appends its audit entry (who, what, why, before and after) in the change's own transaction.
//
// Two operators acting on one order at once: the row lock takes them one after the other, and each action may carry
// the order's `version` as the operator read it (the console's forms do): the second finds the order changed and is
// refused (OperatorRefusal order/changed), so nothing is done twice.
import { createHash } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AuditAction, AuditActor } from '../domain/audit.ts'
import { netCharged, refundableOfCharge, withCredit } from '../domain/charges.ts'
import { formatId, parseId } from '../domain/ids.ts'
import type { JobRequest } from '../domain/jobs.ts'
import { formatMinorAsAmount, parseAmountToMinor } from '../domain/money.ts'
import { OperatorRefusal } from '../domain/operator-refusal.ts'
import type { CancelOutcome } from '../domain/order-actions.ts'
import { failedDownloads, retryFailedDownload } from '../domain/pipeline/download-file.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { startOrderJob } from '../domain/pipeline/start-order.ts'
import { isAwaitingPayment } from '../domain/pipeline/submit-shipment.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import { insertOrderNote, listOrderNotes } from '../repositories/order-notes.repository.ts'
import { readOrder } from '../repositories/orders.repository.ts'
import type { BillingService } from './billing.service.ts'
import type { OrderActionsService } from './order-actions.service.ts'
import { createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'

export interface OrderOperationsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  events: OrderEventsService
  billing: BillingService
  orderActions: Pick<OrderActionsService, 'cancelForOperator'>
}

/** Who acts: an operator of the console, or the command line. */
export type OrderOperator = Extract<AuditActor, { kind: 'operator' | 'cli' }>

/** What every action takes: the order, why (kept in the audit trail), and the version the operator read, if any. */
export interface OrderActionInput {
  orderId: string
  reason: string
  /** The order's `version` when the operator read it; absent: no check (the row lock still orders the actions). */
  version?: string
}

/** How a release settled what the order owed (null: it owed nothing), and how much, in the order's currency. */
export interface ReleaseResult {
  payment: 'paidFromBalance' | 'owedOnInvoice' | 'onCredit' | 'waived' | null
  amount: string | null
  currency: string | null
  pauseWindow: boolean
}

/** A note on an order, as the console's order page shows it. */
export interface OrderNote {
  id: string
  at: string
  author: string
  text: string
}

export interface OrderOperationsService {
  /** The order's version now (it changes with every change of the order); undefined when there is no such order. */
  version(orderId: string): Promise<string | undefined>
  cancel(input: OrderActionInput, actor: OrderOperator): Promise<{ outcome: CancelOutcome; stage: string }>
  /** Credits `amountMinor` (tax included) on one of the order's charges (its first charge by default). */
  refund(
    input: OrderActionInput & { amountMinor: bigint; chargeId?: string },
    actor: OrderOperator,
  ): Promise<{ chargeId: string; refundChargeId: string; creditNote: string | null; amount: string; currency: string }>
  /** Queues one more download of the asset (every asset whose download failed when none is named). */
  retryDownload(input: OrderActionInput & { assetId?: string }, actor: OrderOperator): Promise<{ assetIds: string[] }>
  /**
   * Releases an order held for payment or by its pause window. A Live prepaid order is paid from the balance if it
   * now covers what is due, else what is due is recorded as owed on the account's next invoice (`owedOnInvoice`);
   * an invoice account's order held by its credit limit goes on on credit (`onCredit`: its charge is on the account's
   * invoices already, and stays owed); a Sandbox order held by its scenario is authorised (`waived`: no money).
   */
  release(input: OrderActionInput, actor: OrderOperator): Promise<ReleaseResult>
  addNote(input: { orderId: string; text: string }, actor: OrderOperator): Promise<OrderNote>
  /** The order's notes, oldest first. */
  notes(orderId: string): Promise<OrderNote[]>
}

/** The version of an order as it stands: a digest of everything an action reads. */
export function orderVersion(order: PipelineOrder): string {
  return createHash('sha256')
    .update(JSON.stringify([order.document, order.pipeline, order.onHoldUntil?.toISOString() ?? null]))
    .digest('hex')
    .slice(0, 16)
}

function orderNumberOf(orderId: string): number {
  const number = parseId('ord', orderId)
  if (number === undefined) throw new OperatorRefusal({ field: 'order', reason: 'not-an-id' }, orderId)
  return number
}

export function createOrderOperationsService(deps: OrderOperationsDeps): OrderOperationsService {
  const { db, clock } = deps
  const changes = createOrderChanger(deps)

  function checkVersion(order: PipelineOrder, input: OrderActionInput): void {
    if (input.version !== undefined && input.version !== orderVersion(order)) {
      throw new OperatorRefusal({ field: 'order', reason: 'changed' }, input.orderId)
    }
  }

  async function audit(
    tx: Queryable,
    actor: OrderOperator,
    action: AuditAction,
    order: PipelineOrder,
    before: unknown,
    after: unknown,
  ): Promise<void> {
    await appendAuditEvent(
      tx,
      {
        actor,
        action,
        accountId: order.accountId,
        environment: order.environment,
        target: order.document.id,
        before,
        after,
      },
      clock.now(),
    )
  }

  /**
   * Settles what an order held for payment owes, for a release. A Live prepaid order is paid from the balance first,
   * as a top-up would; what the balance cannot cover is recorded as owed on the account's next invoice (never
   * silently written off). An invoice account's order held by its credit limit goes on on credit: its charge is on
   * the account's invoices already. A Sandbox order held by its scenario is authorised, as the Sandbox's own control
   * does (no money).
   */
  async function settleHeldPayment(
    tx: Queryable,
    order: PipelineOrder,
  ): Promise<{ payment: NonNullable<ReleaseResult['payment']>; jobs: JobRequest[] }> {
    const settlement = order.pipeline.billing?.settlement
    if (settlement === 'sandboxHold')
      return { payment: 'waived', jobs: deps.billing.authoriseSandboxPayment(order).jobs }
    if (settlement === 'prepaid') {
      const paid = await deps.billing.settleFromBalance(tx, order)
      if (paid.paid) return { payment: 'paidFromBalance', jobs: paid.jobs }
      return { payment: 'owedOnInvoice', jobs: (await deps.billing.oweOnInvoice(tx, order)).jobs }
    }
    // An invoice account's order held by its credit limit: the charge was invoiced when it was made, so going on
    // without a payment leaves it owed on the account's invoices; nothing is written off.
    const payment = settlement === 'invoice' ? 'onCredit' : 'waived'
    return { payment, jobs: deps.billing.waivePayment(order).jobs }
  }

  /** Applies an operator's change to the locked order (version checked first); refuses an order that is none. */
  async function change<R extends { changed: boolean; jobs?: readonly JobRequest[] }>(
    input: OrderActionInput,
    work: (order: PipelineOrder, tx: Queryable, now: Date) => Promise<R>,
  ): Promise<R> {
    const applied = await changes.change(orderNumberOf(input.orderId), async (order, tx) => {
      checkVersion(order, input)
      return work(order, tx, clock.now())
    })
    if (!applied) throw new OperatorRefusal({ field: 'order', reason: 'unknown' }, input.orderId)
    return applied.result
  }

  return {
    async version(orderId) {
      const number = parseId('ord', orderId)
      const order = number === undefined ? undefined : await readOrder(db, number)
      return order && orderVersion(order)
    },

    async cancel(input, actor) {
      orderNumberOf(input.orderId)
      let stageBefore = ''
      const result = await deps.orderActions.cancelForOperator(input.orderId, {
        check(order) {
          checkVersion(order, input)
          stageBefore = order.document.status.stage
        },
        async record(tx, order, { changed, outcome }) {
          if (!changed) throw new OperatorRefusal({ field: 'order', reason: 'not-cancellable' }, input.orderId)
          await audit(
            tx,
            actor,
            'order.cancelled',
            order,
            { stage: stageBefore },
            { stage: order.document.status.stage, outcome, reason: input.reason },
          )
        },
      })
      if (!result) throw new OperatorRefusal({ field: 'order', reason: 'unknown' }, input.orderId)
      const order = JSON.parse(result.orderJson) as { status: { stage: string } }
      return { outcome: result.outcome, stage: order.status.stage }
    },

    async refund(input, actor) {
      return change(input, async (order, tx, now) => {
        const billing = order.pipeline.billing
        const charged = billing ? netCharged(billing.lines).total : 0n
        if (!billing || charged <= 0n) {
          throw new OperatorRefusal({ field: 'order', reason: 'nothing-charged' }, input.orderId)
        }
        const charges = order.document.charges.filter(
          (charge) => (parseAmountToMinor(charge.totalCost.amount) ?? 0n) > 0n,
        )
        const charge = input.chargeId ? charges.find((candidate) => candidate.id === input.chargeId) : charges[0]
        if (!charge) throw new OperatorRefusal({ field: 'charge', reason: 'unknown' }, input.chargeId ?? '')
        const refundable = refundableOfCharge(billing, charge.id, parseAmountToMinor(charge.totalCost.amount) ?? 0n)
        const amount = formatMinorAsAmount(input.amountMinor)
        if (input.amountMinor > refundable) {
          throw new OperatorRefusal({ field: 'amount', reason: 'more-than-refundable' }, amount, {
            limit: `${formatMinorAsAmount(refundable)} ${billing.currency}`,
          })
        }
        const jobs = await deps.billing.chargeDifference(
          tx,
          order,
          withCredit(billing.lines, charge.id, input.amountMinor),
        )
        order.document.lastUpdated = now.toISOString()
        const refundCharge = order.document.charges.at(-1)
        const creditNote = refundCharge?.prodigiInvoiceNumber ?? null
        await audit(
          tx,
          actor,
          'order.refunded',
          order,
          { charged: formatMinorAsAmount(charged), refundable: formatMinorAsAmount(refundable) },
          {
            charged: formatMinorAsAmount(netCharged(billing.lines).total),
            credited: amount,
            currency: billing.currency,
            chargeId: charge.id,
            refundChargeId: refundCharge?.id ?? null,
            creditNote,
            reason: input.reason,
          },
        )
        return {
          changed: true,
          jobs,
          chargeId: charge.id,
          refundChargeId: refundCharge?.id ?? '',
          creditNote,
          amount,
          currency: billing.currency,
        }
      })
    },

    async retryDownload(input, actor) {
      const { assetIds } = await change(input, async (order, tx, now) => {
        const failed = failedDownloads(order.pipeline)
        if (failed.length === 0) {
          throw new OperatorRefusal({ field: 'order', reason: 'no-failed-download' }, input.orderId)
        }
        if (input.assetId !== undefined && !failed.includes(input.assetId)) {
          throw new OperatorRefusal({ field: 'asset', reason: 'not-failed' }, input.assetId)
        }
        const phase = order.pipeline.phase
        const retried = input.assetId !== undefined ? [input.assetId] : failed
        const jobs: JobRequest[] = []
        for (const assetId of retried) {
          const transition = retryFailedDownload(order.document, order.pipeline, assetId, now)
          if (!transition) throw new OperatorRefusal({ field: 'asset', reason: 'not-failed' }, assetId)
          jobs.push(...transition.jobs)
        }
        await audit(
          tx,
          actor,
          'order.downloadRetried',
          order,
          { phase, failedAssets: failed },
          { phase: order.pipeline.phase, retriedAssets: retried, reason: input.reason },
        )
        return { changed: true, jobs, assetIds: retried }
      })
      return { assetIds }
    },

    async release(input, actor) {
      return change(input, async (order, tx, now) => {
        const heldForPayment = isAwaitingPayment(order.pipeline)
        const inPauseWindow = order.onHoldUntil !== null && order.onHoldUntil > now
        if (!heldForPayment && !inPauseWindow) {
          throw new OperatorRefusal({ field: 'order', reason: 'not-held' }, input.orderId)
        }
        const before = {
          unpaid: heldForPayment ? formatMinorAsAmount(BigInt(order.pipeline.billing?.unpaid ?? '0')) : null,
          onHoldUntil: inPauseWindow ? (order.onHoldUntil?.toISOString() ?? null) : null,
        }
        const jobs: JobRequest[] = []
        let payment: ReleaseResult['payment'] = null
        let amount: string | null = null
        if (heldForPayment) {
          amount = before.unpaid
          const settled = await settleHeldPayment(tx, order)
          payment = settled.payment
          jobs.push(...settled.jobs)
        }
        if (inPauseWindow) {
          order.onHoldUntil = now
          // The start queued for the window's end stays queued; it finds the order started and changes nothing.
          const start = startOrderJob(order.document.id, null)
          jobs.push({ ...start, key: `${start.key}:released` })
        }
        order.document.lastUpdated = now.toISOString()
        const currency = order.pipeline.billing?.currency ?? null
        await audit(tx, actor, 'order.released', order, before, {
          payment,
          amount,
          currency,
          // Where the amount went: the balance's `balance-charge`, or the next invoice's `invoice-charge`.
          ledgerEntry:
            payment === 'paidFromBalance' ? 'balance-charge' : payment === 'owedOnInvoice' ? 'invoice-charge' : null,
          pauseWindowEnded: inPauseWindow,
          reason: input.reason,
        })
        return {
          changed: true,
          jobs,
          payment,
          amount,
          currency: heldForPayment ? currency : null,
          pauseWindow: inPauseWindow,
        }
      })
    },

    async addNote(input, actor) {
      const orderNumber = orderNumberOf(input.orderId)
      return db.transaction(async (tx) => {
        const order = await readOrder(tx, orderNumber)
        if (!order) throw new OperatorRefusal({ field: 'order', reason: 'unknown' }, input.orderId)
        const at = clock.now()
        const note = await insertOrderNote(tx, { orderNumber, at, author: actor, text: input.text })
        await audit(tx, actor, 'order.noteAdded', order, null, { noteId: formatId('ont', note.id), text: input.text })
        return toNote(note)
      })
    },

    async notes(orderId) {
      const orderNumber = parseId('ord', orderId)
      if (orderNumber === undefined) return []
      return (await listOrderNotes(db, orderNumber)).map(toNote)
    },
  }
}

function toNote(row: { id: number; at: Date; authorDescription: string; text: string }): OrderNote {
  return { id: formatId('ont', row.id), at: row.at.toISOString(), author: row.authorDescription, text: row.text }
}
