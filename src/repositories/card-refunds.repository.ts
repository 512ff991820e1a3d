// SQL of refunds to a card and of disputes (migrations/0045_card_payments.sql, 0049_card_refunds_disputes.sql):
// provider_refunds, provider_disputes, and the provider_payments they belong to. Every "once" here is a conditional
// UPDATE or an INSERT ... ON CONFLICT: a retried job or a redelivered event finds the row already moved.
import type { Queryable } from '../adapters/database.ts'

export interface RefundablePayment {
  id: number
  paymentId: string
  currency: string
  amountMinor: bigint
  refundedMinor: bigint
}

export interface ProviderPaymentRow {
  id: number
  provider: string
  accountId: number
  orderNumber: number | null
  purpose: string
  amountMinor: bigint | null
  currency: string | null
  paymentId: string | null
  status: string
  refundedMinor: bigint
  createdAt: Date
  completedAt: Date | null
}

export interface ProviderRefundRow {
  id: number
  payment: number
  accountId: number
  orderNumber: number | null
  amountMinor: bigint
  currency: string
  idempotencyKey: string
  refundId: string | null
  status: string
  reason: string | null
  failureReason: string | null
  createdAt: Date
  completedAt: Date | null
}

export interface ProviderDisputeRow {
  provider: string
  disputeId: string
  payment: number | null
  accountId: number | null
  orderNumber: number | null
  paymentId: string
  amountMinor: bigint
  currency: string
  reason: string
  status: string
  openedAt: Date
  closedAt: Date | null
  openedEntryId: number | null
  wonEntryId: number | null
}

const PAYMENT_COLUMNS = `id::int AS id, provider, account_id::int AS "accountId", order_id::int AS "orderNumber", purpose,
  amount_minor::text AS "amountMinor", currency, payment_id AS "paymentId", status,
  refunded_minor::text AS "refundedMinor", created_at AS "createdAt", completed_at AS "completedAt"`

const REFUND_COLUMNS = `id::int AS id, payment::int AS payment, account_id::int AS "accountId",
  order_id::int AS "orderNumber", amount_minor::text AS "amountMinor", currency, idempotency_key AS "idempotencyKey",
  refund_id AS "refundId", status, reason, failure_reason AS "failureReason", created_at AS "createdAt",
  completed_at AS "completedAt"`

const DISPUTE_COLUMNS = `provider, dispute_id AS "disputeId", payment::int AS payment, account_id::int AS "accountId",
  order_id::int AS "orderNumber", payment_id AS "paymentId", amount_minor::text AS "amountMinor", currency, reason,
  status, opened_at AS "openedAt", closed_at AS "closedAt", opened_entry_id::int AS "openedEntryId",
  won_entry_id::int AS "wonEntryId"`

type Raw<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] extends bigint | null ? string | null : T[K] }

function paymentOf(row: Raw<ProviderPaymentRow>): ProviderPaymentRow {
  return {
    ...row,
    amountMinor: row.amountMinor === null ? null : BigInt(row.amountMinor),
    refundedMinor: BigInt(row.refundedMinor),
  }
}

function refundOf(row: Raw<ProviderRefundRow>): ProviderRefundRow {
  return { ...row, amountMinor: BigInt(row.amountMinor) }
}

function disputeOf(row: Raw<ProviderDisputeRow>): ProviderDisputeRow {
  return { ...row, amountMinor: BigInt(row.amountMinor) }
}

/**
 * The order's succeeded card payments (an order payment or an off-session charge) in `currency` with something
 * left unrefunded, oldest first, their rows locked: what a refund of the order may go back to.
 */
export async function lockRefundablePayments(
  tx: Queryable,
  orderNumber: number,
  provider: string,
  currency: string,
): Promise<RefundablePayment[]> {
  const rows = await tx.query<{
    id: number
    paymentId: string
    currency: string
    amountMinor: string
    refundedMinor: string
  }>(
    `SELECT id::int AS id, payment_id AS "paymentId", currency, amount_minor::text AS "amountMinor",
            refunded_minor::text AS "refundedMinor"
       FROM provider_payments
      WHERE order_id = $1 AND provider = $2 AND currency = $3 AND status = 'succeeded'
        AND purpose IN ('orderPayment', 'orderCharge') AND payment_id IS NOT NULL
        AND amount_minor > refunded_minor
      ORDER BY id FOR UPDATE`,
    [orderNumber, provider, currency],
  )
  return rows.map((row) => ({
    ...row,
    amountMinor: BigInt(row.amountMinor),
    refundedMinor: BigInt(row.refundedMinor),
  }))
}

/** Raises (or, negative, lowers) what is counted as refunded of a payment. */
export async function addRefunded(tx: Queryable, paymentRow: number, amountMinor: bigint): Promise<void> {
  await tx.query(`UPDATE provider_payments SET refunded_minor = refunded_minor + $2::bigint WHERE id = $1`, [
    paymentRow,
    String(amountMinor),
  ])
}

/** The payment the provider knows by `paymentId`, its row locked; undefined when printroute never asked for it. */
export async function lockPaymentByProviderId(
  tx: Queryable,
  provider: string,
  paymentId: string,
): Promise<ProviderPaymentRow | undefined> {
  const rows = await tx.query<Raw<ProviderPaymentRow>>(
    `SELECT ${PAYMENT_COLUMNS} FROM provider_payments WHERE provider = $1 AND payment_id = $2 ORDER BY id LIMIT 1
        FOR UPDATE`,
    [provider, paymentId],
  )
  return rows[0] ? paymentOf(rows[0]) : undefined
}

/** The same, unlocked: which order (if any) to lock first. */
export async function findPaymentByProviderId(
  db: Queryable,
  provider: string,
  paymentId: string,
): Promise<ProviderPaymentRow | undefined> {
  const rows = await db.query<Raw<ProviderPaymentRow>>(
    `SELECT ${PAYMENT_COLUMNS} FROM provider_payments WHERE provider = $1 AND payment_id = $2 ORDER BY id LIMIT 1`,
    [provider, paymentId],
  )
  return rows[0] ? paymentOf(rows[0]) : undefined
}

export async function findPayment(db: Queryable, id: number): Promise<ProviderPaymentRow | undefined> {
  const rows = await db.query<Raw<ProviderPaymentRow>>(
    `SELECT ${PAYMENT_COLUMNS} FROM provider_payments WHERE id = $1`,
    [id],
  )
  return rows[0] ? paymentOf(rows[0]) : undefined
}

export interface NewRefund {
  payment: number
  accountId: number
  orderNumber: number | null
  amountMinor: bigint
  currency: string
  idempotencyKey: string
  status: 'requested' | 'external'
  reason: string
  ledgerEntryId: number | null
  at: Date
}

/** Inserts a refund row; its id, or undefined when one with the same key exists (nothing was inserted). */
export async function insertRefund(tx: Queryable, refund: NewRefund): Promise<number | undefined> {
  const rows = await tx.query<{ id: number }>(
    `INSERT INTO provider_refunds (payment, account_id, order_id, amount_minor, currency, idempotency_key, status,
                                   reason, created_at, completed_at, ledger_entry_id)
     VALUES ($1, $2, $3, $4::bigint, $5, $6, $7, $8, $9, CASE WHEN $7 = 'external' THEN $9::timestamptz END, $10)
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING id::int AS id`,
    [
      refund.payment,
      refund.accountId,
      refund.orderNumber,
      String(refund.amountMinor),
      refund.currency,
      refund.idempotencyKey,
      refund.status,
      refund.reason,
      refund.at,
      refund.ledgerEntryId,
    ],
  )
  return rows[0]?.id
}

export async function findRefund(db: Queryable, id: number): Promise<ProviderRefundRow | undefined> {
  const rows = await db.query<Raw<ProviderRefundRow>>(`SELECT ${REFUND_COLUMNS} FROM provider_refunds WHERE id = $1`, [
    id,
  ])
  return rows[0] ? refundOf(rows[0]) : undefined
}

/** The refund printroute asked of `provider` that it answered with `refundId`; undefined when none. */
export async function findRefundByProviderId(
  db: Queryable,
  provider: string,
  refundId: string,
): Promise<ProviderRefundRow | undefined> {
  const rows = await db.query<Raw<ProviderRefundRow>>(
    `SELECT ${REFUND_COLUMNS} FROM provider_refunds
      WHERE refund_id = $2 AND payment IN (SELECT id FROM provider_payments WHERE provider = $1)
      ORDER BY id LIMIT 1`,
    [provider, refundId],
  )
  return rows[0] ? refundOf(rows[0]) : undefined
}

/**
 * Records the provider's answer to a refund still `requested` (or `pending`): its id and status. False when the
 * row had already moved on (a retried job after the answer was recorded).
 */
export async function recordRefundAnswer(
  tx: Queryable,
  id: number,
  answer: { refundId: string; status: 'succeeded' | 'pending' | 'requiresAction' },
  at: Date,
): Promise<boolean> {
  const rows = await tx.query<{ id: number }>(
    `UPDATE provider_refunds SET refund_id = $2, status = $3,
            completed_at = CASE WHEN $3 = 'succeeded' THEN $4::timestamptz ELSE completed_at END
      WHERE id = $1 AND status IN ('requested', 'pending', 'requiresAction') RETURNING id::int AS id`,
    [id, answer.refundId, answer.status, at],
  )
  return rows.length > 0
}

/**
 * Marks a refund refused by the provider (failed, canceled, or a request it would not take) once: the row moves
 * from requested/pending to `status`; false when it had already moved (nothing to put back again).
 */
export async function markRefundRefused(
  tx: Queryable,
  id: number,
  refused: { status: 'failed' | 'canceled'; refundId: string | null; reason: string },
  at: Date,
): Promise<boolean> {
  const rows = await tx.query<{ id: number }>(
    `UPDATE provider_refunds SET status = $2, refund_id = COALESCE($3, refund_id), failure_reason = $4,
            completed_at = $5
      WHERE id = $1 AND status IN ('requested', 'pending', 'requiresAction') RETURNING id::int AS id`,
    [id, refused.status, refused.refundId, refused.reason, at],
  )
  return rows.length > 0
}

/**
 * A refund the provider had answered `pending` (or waiting for action) is now reported succeeded: moved once; false
 * when it had already moved (succeeded before, or failed: a failed refund never turns succeeded).
 */
export async function markRefundSucceeded(tx: Queryable, id: number, at: Date): Promise<boolean> {
  const rows = await tx.query<{ id: number }>(
    `UPDATE provider_refunds SET status = 'succeeded', completed_at = $2
      WHERE id = $1 AND status IN ('pending', 'requiresAction') RETURNING id::int AS id`,
    [id, at],
  )
  return rows.length > 0
}

export async function setRefundLedgerEntry(tx: Queryable, id: number, ledgerEntryId: number): Promise<void> {
  await tx.query(`UPDATE provider_refunds SET ledger_entry_id = $2 WHERE id = $1 AND ledger_entry_id IS NULL`, [
    id,
    ledgerEntryId,
  ])
}

/**
 * What of `payment` went back on the balance because the provider failed or canceled refunds after `since`: a report
 * of the payment made before then may still count those refunds (the provider does not promise its events' order).
 */
export async function sumRefusedRefundsSince(tx: Queryable, payment: number, since: Date): Promise<bigint> {
  const rows = await tx.query<{ total: string }>(
    `SELECT COALESCE(SUM(amount_minor), 0)::text AS total FROM provider_refunds
      WHERE payment = $1 AND status IN ('failed', 'canceled') AND reversal_entry_id IS NOT NULL AND completed_at > $2`,
    [payment, since],
  )
  return BigInt(rows[0]?.total ?? '0')
}

export async function setRefundReversal(tx: Queryable, id: number, ledgerEntryId: number): Promise<void> {
  await tx.query(`UPDATE provider_refunds SET reversal_entry_id = $2 WHERE id = $1 AND reversal_entry_id IS NULL`, [
    id,
    ledgerEntryId,
  ])
}

/**
 * The provider reports the payment refunded as far as printroute asked: the payment's refunds it has an answer for
 * (a refund id) and still counts as pending become succeeded. How many.
 */
export async function markAnsweredRefundsSucceeded(tx: Queryable, paymentRow: number, at: Date): Promise<number> {
  const rows = await tx.query<{ id: number }>(
    `UPDATE provider_refunds SET status = 'succeeded', completed_at = $2
      WHERE payment = $1 AND refund_id IS NOT NULL AND status IN ('pending', 'requiresAction')
      RETURNING id::int AS id`,
    [paymentRow, at],
  )
  return rows.length
}

export async function findDispute(
  db: Queryable,
  provider: string,
  disputeId: string,
): Promise<ProviderDisputeRow | undefined> {
  const rows = await db.query<Raw<ProviderDisputeRow>>(
    `SELECT ${DISPUTE_COLUMNS} FROM provider_disputes WHERE provider = $1 AND dispute_id = $2`,
    [provider, disputeId],
  )
  return rows[0] ? disputeOf(rows[0]) : undefined
}

export interface DisputeUpsert {
  provider: string
  disputeId: string
  payment: number
  accountId: number
  orderNumber: number | null
  paymentId: string
  amountMinor: bigint
  currency: string
  reason: string
  status: string
  closed: boolean
  at: Date
}

/**
 * Stores the dispute as the provider reports it now (inserted, or its amount, reason and status updated), its row
 * locked for the caller's transaction; `closed_at` is set once, by the first closing report.
 */
export async function upsertDispute(tx: Queryable, dispute: DisputeUpsert): Promise<ProviderDisputeRow> {
  const rows = await tx.query<Raw<ProviderDisputeRow>>(
    `INSERT INTO provider_disputes (provider, dispute_id, payment, account_id, order_id, payment_id, amount_minor,
                                    currency, reason, status, opened_at, closed_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::bigint, $8, $9, $10, $11, CASE WHEN $12 THEN $11::timestamptz END, $11)
     ON CONFLICT (provider, dispute_id) DO UPDATE
       SET amount_minor = EXCLUDED.amount_minor, reason = EXCLUDED.reason, status = EXCLUDED.status,
           closed_at = COALESCE(provider_disputes.closed_at, EXCLUDED.closed_at), updated_at = EXCLUDED.updated_at
     RETURNING ${DISPUTE_COLUMNS}`,
    [
      dispute.provider,
      dispute.disputeId,
      dispute.payment,
      dispute.accountId,
      dispute.orderNumber,
      dispute.paymentId,
      String(dispute.amountMinor),
      dispute.currency,
      dispute.reason,
      dispute.status,
      dispute.at,
      dispute.closed,
    ],
  )
  return disputeOf(rows[0] as Raw<ProviderDisputeRow>)
}

/** Sets the dispute's opening (`opened`) or won (`won`) ledger entry once; false when it was already set. */
export async function setDisputeEntry(
  tx: Queryable,
  provider: string,
  disputeId: string,
  which: 'opened' | 'won',
  ledgerEntryId: number,
): Promise<boolean> {
  const column = which === 'opened' ? 'opened_entry_id' : 'won_entry_id'
  const rows = await tx.query<{ id: string }>(
    `UPDATE provider_disputes SET ${column} = $3 WHERE provider = $1 AND dispute_id = $2 AND ${column} IS NULL
      RETURNING dispute_id AS id`,
    [provider, disputeId, ledgerEntryId],
  )
  return rows.length > 0
}

// The console's reads (docs/admin.md): an account's and an order's card payments, refunds and disputes.

export async function listPaymentsOfAccount(db: Queryable, accountId: number, limit: number) {
  const rows = await db.query<Raw<ProviderPaymentRow>>(
    `SELECT ${PAYMENT_COLUMNS} FROM provider_payments WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
    [accountId, limit],
  )
  return rows.map(paymentOf)
}

export async function listPaymentsOfOrder(db: Queryable, orderNumber: number) {
  const rows = await db.query<Raw<ProviderPaymentRow>>(
    `SELECT ${PAYMENT_COLUMNS} FROM provider_payments WHERE order_id = $1 ORDER BY id`,
    [orderNumber],
  )
  return rows.map(paymentOf)
}

export async function listRefundsOfAccount(db: Queryable, accountId: number, limit: number) {
  const rows = await db.query<Raw<ProviderRefundRow>>(
    `SELECT ${REFUND_COLUMNS} FROM provider_refunds WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
    [accountId, limit],
  )
  return rows.map(refundOf)
}

export async function listRefundsOfOrder(db: Queryable, orderNumber: number) {
  const rows = await db.query<Raw<ProviderRefundRow>>(
    `SELECT ${REFUND_COLUMNS} FROM provider_refunds WHERE order_id = $1 ORDER BY id`,
    [orderNumber],
  )
  return rows.map(refundOf)
}

export async function listDisputesOfAccount(db: Queryable, accountId: number, limit: number) {
  const rows = await db.query<Raw<ProviderDisputeRow>>(
    `SELECT ${DISPUTE_COLUMNS} FROM provider_disputes WHERE account_id = $1 ORDER BY opened_at DESC, dispute_id LIMIT $2`,
    [accountId, limit],
  )
  return rows.map(disputeOf)
}

export async function listDisputesOfOrder(db: Queryable, orderNumber: number) {
  const rows = await db.query<Raw<ProviderDisputeRow>>(
    `SELECT ${DISPUTE_COLUMNS} FROM provider_disputes WHERE order_id = $1 ORDER BY opened_at, dispute_id`,
    [orderNumber],
  )
  return rows.map(disputeOf)
}

export interface SavedCardRow {
  provider: string
  brand: string | null
  last4: string | null
  expiryMonth: number | null
  expiryYear: number | null
  savedAt: Date | null
}

/** The account's card on file (display fields); undefined when none is saved. */
export async function findCardOnFile(db: Queryable, accountId: number): Promise<SavedCardRow | undefined> {
  const rows = await db.query<SavedCardRow>(
    `SELECT provider, brand, last4, expiry_month AS "expiryMonth", expiry_year AS "expiryYear", saved_at AS "savedAt"
       FROM account_payment_methods WHERE account_id = $1 AND payment_method_id IS NOT NULL`,
    [accountId],
  )
  return rows[0]
}

/**
 * Refunds to a card left open since before `before`, for the sweeper: `requested` ones (the provider not asked, or
 * its answer not recorded: their job is put back), or `pending` ones the provider answered and has not settled
 * since (each is read back; only those with the provider's refund id can be). The row keeps no answer time; the job
 * answers within moments of the request unless the provider was down, so the request's time stands for it.
 */
export async function listStaleRefunds(
  db: Queryable,
  query: { provider: string; status: 'requested' | 'pending'; before: Date; limit: number },
): Promise<number[]> {
  const rows = await db.query<{ id: number }>(
    `SELECT r.id::int AS id FROM provider_refunds r JOIN provider_payments p ON p.id = r.payment
      WHERE r.status = $2 AND ($2 = 'requested' OR r.refund_id IS NOT NULL) AND r.created_at < $3
        AND p.provider = $1
      ORDER BY r.created_at, r.id LIMIT $4`,
    [query.provider, query.status, query.before, query.limit],
  )
  return rows.map((row) => row.id)
}
