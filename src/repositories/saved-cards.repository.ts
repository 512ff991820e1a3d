// An account's card on file (account_payment_methods) and the provider payments that save one (purpose cardSetup)
// or charge it for a held order (purpose orderCharge), migrations/0045_card_payments.sql. A payment's status moves
// once from 'open' (conditional UPDATE ... WHERE status = 'open'), in the transaction that counts its money.
import type { Queryable } from '../adapters/database.ts'

export interface PaymentMethodRow {
  accountId: number
  provider: string
  customerId: string
  /** Null until a card setup completes, and again once the card is removed. */
  paymentMethodId: string | null
  brand: string | null
  last4: string | null
  expiryMonth: number | null
  expiryYear: number | null
  savedAt: Date | null
}

const METHOD_COLUMNS = `account_id::int AS "accountId", provider, customer_id AS "customerId",
  payment_method_id AS "paymentMethodId", brand, last4, expiry_month AS "expiryMonth", expiry_year AS "expiryYear",
  saved_at AS "savedAt"`

export async function findPaymentMethod(db: Queryable, accountId: number): Promise<PaymentMethodRow | undefined> {
  const rows = await db.query<PaymentMethodRow>(
    `SELECT ${METHOD_COLUMNS} FROM account_payment_methods WHERE account_id = $1`,
    [accountId],
  )
  const row = rows[0]
  return row && { ...row, savedAt: row.savedAt === null ? null : new Date(row.savedAt) }
}

/** Keeps the account's customer at the provider (made by its first card setup); the card, if any, is kept. */
export async function storeCustomer(
  tx: Queryable,
  accountId: number,
  provider: string,
  customerId: string,
  at: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO account_payment_methods (account_id, provider, customer_id, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) DO UPDATE SET provider = $2, customer_id = $3, updated_at = $4`,
    [accountId, provider, customerId, at],
  )
}

export interface SavedCardFields {
  provider: string
  customerId: string
  paymentMethodId: string
  brand: string | null
  last4: string | null
  expiryMonth: number | null
  expiryYear: number | null
}

/** Stores the account's card on file (replacing any earlier one). */
export async function storeCard(tx: Queryable, accountId: number, card: SavedCardFields, at: Date): Promise<void> {
  await tx.query(
    `INSERT INTO account_payment_methods (account_id, provider, customer_id, payment_method_id, brand, last4,
                                          expiry_month, expiry_year, saved_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     ON CONFLICT (account_id) DO UPDATE SET provider = $2, customer_id = $3, payment_method_id = $4, brand = $5,
       last4 = $6, expiry_month = $7, expiry_year = $8, saved_at = $9, updated_at = $9`,
    [
      accountId,
      card.provider,
      card.customerId,
      card.paymentMethodId,
      card.brand,
      card.last4,
      card.expiryMonth,
      card.expiryYear,
      at,
    ],
  )
}

/** Forgets the account's card (its customer stays, for the next setup); the card as it was, if there was one. */
export async function removeCard(tx: Queryable, accountId: number, at: Date): Promise<PaymentMethodRow | undefined> {
  const before = await tx.query<PaymentMethodRow>(
    `SELECT ${METHOD_COLUMNS} FROM account_payment_methods WHERE account_id = $1 AND payment_method_id IS NOT NULL
     FOR UPDATE`,
    [accountId],
  )
  if (!before[0]) return undefined
  await tx.query(
    `UPDATE account_payment_methods SET payment_method_id = NULL, brand = NULL, last4 = NULL, expiry_month = NULL,
       expiry_year = NULL, saved_at = NULL, updated_at = $2 WHERE account_id = $1`,
    [accountId, at],
  )
  return before[0]
}

export type ProviderPaymentStatus = 'open' | 'succeeded' | 'requiresAction' | 'declined' | 'expired' | 'failed'

export interface ProviderPaymentRow {
  id: number
  provider: string
  accountId: number
  orderNumber: number | null
  purpose: 'orderPayment' | 'topUp' | 'cardSetup' | 'orderCharge'
  amountMinor: bigint | null
  currency: string | null
  idempotencyKey: string
  sessionId: string | null
  paymentId: string | null
  status: ProviderPaymentStatus
  declineReason: string | null
}

const PAYMENT_COLUMNS = `id::int AS id, provider, account_id::int AS "accountId", order_id::int AS "orderNumber",
  purpose, amount_minor::text AS "amountMinor", currency, idempotency_key AS "idempotencyKey",
  session_id AS "sessionId", payment_id AS "paymentId", status, decline_reason AS "declineReason"`

type PaymentRowText = Omit<ProviderPaymentRow, 'amountMinor'> & { amountMinor: string | null }

function paymentOf(row: PaymentRowText | undefined): ProviderPaymentRow | undefined {
  return row && { ...row, amountMinor: row.amountMinor === null ? null : BigInt(row.amountMinor) }
}

export async function findProviderPayment(db: Queryable, id: number): Promise<ProviderPaymentRow | undefined> {
  const rows = await db.query<PaymentRowText>(`SELECT ${PAYMENT_COLUMNS} FROM provider_payments WHERE id = $1`, [id])
  return paymentOf(rows[0])
}

export async function findPaymentBySession(
  db: Queryable,
  provider: string,
  sessionId: string,
): Promise<ProviderPaymentRow | undefined> {
  const rows = await db.query<PaymentRowText>(
    `SELECT ${PAYMENT_COLUMNS} FROM provider_payments WHERE provider = $1 AND session_id = $2`,
    [provider, sessionId],
  )
  return paymentOf(rows[0])
}

/** The order's charges of the card on file still waiting for the provider's answer. */
export async function openOrderCharges(db: Queryable, orderNumber: number): Promise<ProviderPaymentRow[]> {
  const rows = await db.query<PaymentRowText>(
    `SELECT ${PAYMENT_COLUMNS} FROM provider_payments
     WHERE order_id = $1 AND purpose = 'orderCharge' AND status = 'open' ORDER BY id`,
    [orderNumber],
  )
  return rows.map((row) => paymentOf(row) as ProviderPaymentRow)
}

export interface NewProviderPayment {
  provider: string
  accountId: number
  orderNumber: number | null
  purpose: 'cardSetup' | 'orderCharge'
  amountMinor: bigint | null
  currency: string | null
  /** Built from the row's own id: `(id) => key`. */
  idempotencyKey: (id: number) => string
  at: Date
}

/** Records a payment asked of the provider ('open'), before the provider is called; its id and key. */
export async function insertProviderPayment(
  tx: Queryable,
  payment: NewProviderPayment,
): Promise<{ id: number; idempotencyKey: string }> {
  const drawn = await tx.query<{ id: string | number }>(
    `SELECT nextval(pg_get_serial_sequence('provider_payments', 'id')) AS id`,
  )
  const id = Number(drawn[0]?.id)
  const idempotencyKey = payment.idempotencyKey(id)
  await tx.query(
    `INSERT INTO provider_payments (id, provider, account_id, order_id, purpose, amount_minor, currency,
                                    idempotency_key, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::bigint, $7, $8, $9)`,
    [
      id,
      payment.provider,
      payment.accountId,
      payment.orderNumber,
      payment.purpose,
      payment.amountMinor === null ? null : String(payment.amountMinor),
      payment.currency,
      idempotencyKey,
      payment.at,
    ],
  )
  return { id, idempotencyKey }
}

/** The provider's hosted session of a payment, once it answered. */
export async function recordSession(
  db: Queryable,
  id: number,
  session: { sessionId: string; url: string; expiresAt: Date },
): Promise<void> {
  await db.query(
    `UPDATE provider_payments SET session_id = $2, session_url = $3, session_expires_at = $4 WHERE id = $1`,
    [id, session.sessionId, session.url, session.expiresAt],
  )
}

/**
 * Ends an open payment: true when this call ended it (the row was still 'open'), false when something else did
 * first, which then counted whatever there was to count.
 */
export async function endProviderPayment(
  tx: Queryable,
  id: number,
  end: {
    status: Exclude<ProviderPaymentStatus, 'open'>
    paymentId?: string | null
    declineReason?: string | null
    at: Date
  },
): Promise<boolean> {
  const rows = await tx.query<{ id: number }>(
    `UPDATE provider_payments SET status = $2, payment_id = COALESCE($3, payment_id), decline_reason = $4,
       completed_at = $5
     WHERE id = $1 AND status = 'open' RETURNING id::int AS id`,
    [id, end.status, end.paymentId ?? null, end.declineReason ?? null, end.at],
  )
  return rows.length === 1
}

/** The provider's payment of a charge it left pending: kept on the still-open row, for the sweeper to read back. */
export async function recordPendingPayment(db: Queryable, id: number, paymentId: string): Promise<void> {
  await db.query(`UPDATE provider_payments SET payment_id = $2 WHERE id = $1 AND status = 'open'`, [id, paymentId])
}

/**
 * Charges of the card on file still open and made before `before`, oldest first: `paymentId` null when the provider
 * has not answered yet (the job's to run), set when it answered pending (to read back).
 */
export async function listStaleOpenOrderCharges(
  db: Queryable,
  provider: string,
  before: Date,
  limit: number,
): Promise<{ id: number; paymentId: string | null }[]> {
  return db.query<{ id: number; paymentId: string | null }>(
    `SELECT id::int AS id, payment_id AS "paymentId" FROM provider_payments
      WHERE status = 'open' AND purpose = 'orderCharge' AND provider = $1 AND created_at < $2
      ORDER BY created_at, id LIMIT $3`,
    [provider, before, limit],
  )
}

/** Points an ended payment at the ledger entry that counted its money (the newest of the account's matching). */
export async function linkLedgerEntry(tx: Queryable, id: number, accountId: number, reference: string): Promise<void> {
  await tx.query(
    `UPDATE provider_payments SET ledger_entry_id = (
       SELECT max(id) FROM account_ledger WHERE account_id = $2 AND entry = 'card-payment' AND reference = $3)
     WHERE id = $1`,
    [id, accountId, reference],
  )
}
