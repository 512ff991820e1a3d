// The payments asked of a hosted card provider (provider_payments, migrations 0045 and 0046) and the provider's
// webhook events (provider_events). A payment's status moves once from 'open' to an end with a conditional UPDATE,
// in the transaction that writes its ledger entry: whoever wins that UPDATE (the webhook's job or the sweeper) counts
// the money, the other finds nothing to do (docs/billing.md#card-payments-through-stripe).
import type { Queryable } from '../adapters/database.ts'
import type { AuditActor } from '../domain/audit.ts'
import type { PaymentEvent } from '../domain/payment-gateway.ts'

export type ProviderPaymentPurpose = 'orderPayment' | 'topUp' | 'cardSetup' | 'orderCharge'
export type ProviderPaymentStatus = 'open' | 'succeeded' | 'requiresAction' | 'declined' | 'expired' | 'failed'

export interface ProviderPaymentRow {
  id: number
  provider: string
  accountId: number
  orderNumber: number | null
  purpose: ProviderPaymentPurpose
  amountMinor: bigint | null
  currency: string | null
  idempotencyKey: string
  sessionId: string | null
  sessionUrl: string | null
  sessionExpiresAt: Date | null
  paymentId: string | null
  status: ProviderPaymentStatus
  createdAt: Date
  completedAt: Date | null
  ledgerEntryId: number | null
  tokenHash: string | null
  requestedBy: AuditActor | null
  linkExpiresAt: Date | null
}

const COLUMNS = `id::text AS id, provider, account_id::text AS "accountId", order_id::text AS "orderNumber", purpose,
  amount_minor::text AS "amountMinor", currency, idempotency_key AS "idempotencyKey", session_id AS "sessionId",
  session_url AS "sessionUrl", session_expires_at AS "sessionExpiresAt", payment_id AS "paymentId", status,
  created_at AS "createdAt", completed_at AS "completedAt", ledger_entry_id::text AS "ledgerEntryId",
  token_hash AS "tokenHash", requested_by AS "requestedBy", link_expires_at AS "linkExpiresAt"`

interface StoredRow {
  id: string
  provider: string
  accountId: string
  orderNumber: string | null
  purpose: ProviderPaymentPurpose
  amountMinor: string | null
  currency: string | null
  idempotencyKey: string
  sessionId: string | null
  sessionUrl: string | null
  sessionExpiresAt: Date | string | null
  paymentId: string | null
  status: ProviderPaymentStatus
  createdAt: Date | string
  completedAt: Date | string | null
  ledgerEntryId: string | null
  tokenHash: string | null
  requestedBy: AuditActor | string | null
  linkExpiresAt: Date | string | null
}

const dateOf = (value: Date | string | null): Date | null => (value === null ? null : new Date(value))

function toRow(row: StoredRow): ProviderPaymentRow {
  return {
    id: Number(row.id),
    provider: row.provider,
    accountId: Number(row.accountId),
    orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
    purpose: row.purpose,
    amountMinor: row.amountMinor === null ? null : BigInt(row.amountMinor),
    currency: row.currency,
    idempotencyKey: row.idempotencyKey,
    sessionId: row.sessionId,
    sessionUrl: row.sessionUrl,
    sessionExpiresAt: dateOf(row.sessionExpiresAt),
    paymentId: row.paymentId,
    status: row.status,
    createdAt: new Date(row.createdAt),
    completedAt: dateOf(row.completedAt),
    ledgerEntryId: row.ledgerEntryId === null ? null : Number(row.ledgerEntryId),
    tokenHash: row.tokenHash,
    requestedBy: typeof row.requestedBy === 'string' ? JSON.parse(row.requestedBy) : row.requestedBy,
    linkExpiresAt: dateOf(row.linkExpiresAt),
  }
}

export interface NewProviderPayment {
  /** The row's id when drawn beforehand (a top-up's key names it); the sequence's next otherwise. */
  id?: number
  provider: string
  accountId: number
  orderNumber: number | null
  purpose: ProviderPaymentPurpose
  amountMinor: bigint
  currency: string
  idempotencyKey: string
  createdAt: Date
  tokenHash?: string | null
  requestedBy?: AuditActor | null
  linkExpiresAt?: Date | null
}

/** The next payment id, drawn before its row is written (a top-up's idempotency key names it). */
export async function drawProviderPaymentId(db: Queryable): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `SELECT nextval(pg_get_serial_sequence('provider_payments', 'id'))::text AS id`,
  )
  return Number(rows[0]?.id)
}

/** Records a payment asked of the provider ('open', no session yet); undefined when its key is recorded already. */
export async function insertProviderPayment(
  tx: Queryable,
  payment: NewProviderPayment,
): Promise<ProviderPaymentRow | undefined> {
  const rows = await tx.query<StoredRow>(
    `INSERT INTO provider_payments (id, provider, account_id, order_id, purpose, amount_minor, currency,
                                    idempotency_key, created_at, token_hash, requested_by, link_expires_at)
     VALUES (COALESCE($12::bigint, nextval(pg_get_serial_sequence('provider_payments', 'id'))), $1, $2, $3, $4,
             $5::bigint, $6, $7, $8, $9, $10::jsonb, $11)
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING ${COLUMNS}`,
    [
      payment.provider,
      payment.accountId,
      payment.orderNumber,
      payment.purpose,
      String(payment.amountMinor),
      payment.currency,
      payment.idempotencyKey,
      payment.createdAt,
      payment.tokenHash ?? null,
      payment.requestedBy ? JSON.stringify(payment.requestedBy) : null,
      payment.linkExpiresAt ?? null,
      payment.id ?? null,
    ],
  )
  return rows[0] && toRow(rows[0])
}

export async function findProviderPayment(db: Queryable, id: number): Promise<ProviderPaymentRow | undefined> {
  const rows = await db.query<StoredRow>(`SELECT ${COLUMNS} FROM provider_payments WHERE id = $1`, [id])
  return rows[0] && toRow(rows[0])
}

export async function findProviderPaymentBySession(
  db: Queryable,
  provider: string,
  sessionId: string,
): Promise<ProviderPaymentRow | undefined> {
  const rows = await db.query<StoredRow>(
    `SELECT ${COLUMNS} FROM provider_payments WHERE provider = $1 AND session_id = $2`,
    [provider, sessionId],
  )
  return rows[0] && toRow(rows[0])
}

/** The hosted payments of an order (purpose orderPayment), newest first. */
export async function listOrderHostedPayments(db: Queryable, orderNumber: number): Promise<ProviderPaymentRow[]> {
  const rows = await db.query<StoredRow>(
    `SELECT ${COLUMNS} FROM provider_payments WHERE order_id = $1 AND purpose = 'orderPayment' ORDER BY id DESC`,
    [orderNumber],
  )
  return rows.map(toRow)
}

/** Stores the session the provider answered for an open payment (the same session again is harmless). */
export async function recordSession(
  db: Queryable,
  id: number,
  session: { sessionId: string; url: string; expiresAt: Date },
): Promise<void> {
  await db.query(
    `UPDATE provider_payments SET session_id = $2, session_url = $3, session_expires_at = $4
      WHERE id = $1 AND status = 'open'`,
    [id, session.sessionId, session.url, session.expiresAt],
  )
}

/**
 * Moves an open payment to succeeded: the one conditional UPDATE that makes a payment count once. True when this
 * call moved it (the caller then writes the ledger entry in the same transaction), false when it had moved already.
 */
export async function claimSucceeded(tx: Queryable, id: number, paymentId: string | null, at: Date): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE provider_payments SET status = 'succeeded', payment_id = COALESCE($2, payment_id), completed_at = $3
      WHERE id = $1 AND status = 'open' RETURNING id`,
    [id, paymentId, at],
  )
  return rows.length === 1
}

/**
 * Links a succeeded payment to the ledger entry that counted it: the account's newest entry of that kind, read in
 * the transaction that wrote it while it holds the account's row (the balance's UPDATE locked it), so no other
 * entry of the account can come between.
 */
export async function linkLedgerEntry(
  tx: Queryable,
  id: number,
  accountId: number,
  entry: 'card-payment' | 'top-up',
): Promise<void> {
  await tx.query(
    `UPDATE provider_payments SET ledger_entry_id =
       (SELECT max(id) FROM account_ledger WHERE account_id = $2 AND entry = $3)
      WHERE id = $1`,
    [id, accountId, entry],
  )
}

/** Ends an open payment without money ('expired', 'failed'); false when it was not open any more. */
export async function endOpenPayment(
  db: Queryable,
  id: number,
  status: 'expired' | 'failed',
  at: Date,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE provider_payments SET status = $2, completed_at = $3 WHERE id = $1 AND status = 'open' RETURNING id`,
    [id, status, at],
  )
  return rows.length === 1
}

/** Open hosted payments (orderPayment, topUp) of this provider created before `before`, oldest first. */
export async function listStaleOpenPayments(
  db: Queryable,
  provider: string,
  before: Date,
  limit: number,
): Promise<ProviderPaymentRow[]> {
  const rows = await db.query<StoredRow>(
    `SELECT ${COLUMNS} FROM provider_payments
      WHERE status = 'open' AND created_at < $2 AND provider = $1 AND purpose IN ('orderPayment', 'topUp')
      ORDER BY created_at LIMIT $3`,
    [provider, before, limit],
  )
  return rows.map(toRow)
}

// --- webhook events ---------------------------------------------------------------------------------------------

export interface ProviderEventRow {
  provider: string
  eventId: string
  kind: PaymentEvent['kind']
  livemode: boolean
  payload: Record<string, unknown>
  receivedAt: Date
  processedAt: Date | null
  outcome: string | null
}

/** A verified event as stored: amounts (bigint) as strings, times as ISO text. */
export function eventPayload(event: PaymentEvent): Record<string, unknown> {
  return JSON.parse(JSON.stringify(event, (_key, value) => (typeof value === 'bigint' ? String(value) : value)))
}

/** Stores a verified event once by its id; false when it was stored already (a redelivery). */
export async function insertProviderEvent(
  tx: Queryable,
  provider: string,
  event: PaymentEvent,
  at: Date,
): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO provider_events (provider, event_id, kind, livemode, payload, received_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6) ON CONFLICT (provider, event_id) DO NOTHING RETURNING event_id`,
    [provider, event.eventId, event.kind, event.livemode, JSON.stringify(eventPayload(event)), at],
  )
  return rows.length === 1
}

export async function findProviderEvent(
  db: Queryable,
  provider: string,
  eventId: string,
): Promise<ProviderEventRow | undefined> {
  const rows = await db.query<ProviderEventRow & { payload: Record<string, unknown> | string }>(
    `SELECT provider, event_id AS "eventId", kind, livemode, payload, received_at AS "receivedAt",
            processed_at AS "processedAt", outcome
       FROM provider_events WHERE provider = $1 AND event_id = $2`,
    [provider, eventId],
  )
  const row = rows[0]
  if (!row) return undefined
  return {
    ...row,
    payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
    receivedAt: new Date(row.receivedAt),
    processedAt: dateOf(row.processedAt),
  }
}

/** Marks an event processed with what processing did; false when it was processed already. */
export async function markEventProcessed(
  db: Queryable,
  provider: string,
  eventId: string,
  outcome: string,
  at: Date,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE provider_events SET processed_at = $3, outcome = $4
      WHERE provider = $1 AND event_id = $2 AND processed_at IS NULL RETURNING event_id`,
    [provider, eventId, at, outcome],
  )
  return rows.length === 1
}

/** Events of this provider received before `before` and still not processed, oldest first. */
export async function listUnprocessedEvents(
  db: Queryable,
  provider: string,
  before: Date,
  limit: number,
): Promise<string[]> {
  const rows = await db.query<{ eventId: string }>(
    `SELECT event_id AS "eventId" FROM provider_events
      WHERE processed_at IS NULL AND provider = $1 AND received_at < $2 ORDER BY received_at LIMIT $3`,
    [provider, before, limit],
  )
  return rows.map((row) => row.eventId)
}
