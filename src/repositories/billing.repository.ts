// SQL of billing: charge ids and the ledger of every money movement (migrations/0003). The prepaid balance is a
// column of the account (repositories/accounts.repository.ts).
import type { Queryable } from '../adapters/database.ts'
import { formatId, ID_PREFIXES } from '../domain/ids.ts'

export type LedgerEntryKind =
  | 'top-up'
  | 'card-payment'
  | 'balance-charge'
  | 'balance-refund'
  | 'invoice-charge'
  | 'invoice-refund'
  | 'card-refund'
  | 'card-dispute'
  | 'card-dispute-won'

export interface LedgerEntry {
  accountId: number
  orderNumber: number | null
  chargeId: string | null
  entry: LedgerEntryKind
  /** Money in positive, money out negative. */
  amountMinor: bigint
  currency: string
  reference: string | null
}

/** A credit's id (`crd_<n>`, docs/billing.md#late-delivery-credits), from its sequence (migrations/0038). */
export async function drawCreditId(tx: Queryable): Promise<string> {
  const rows = await tx.query<{ id: string | number }>(`SELECT nextval('order_credit_id_seq') AS id`)
  const row = rows[0]
  if (!row) throw new Error('drawing a credit id returned nothing')
  return formatId(ID_PREFIXES.orderCredit, Number(row.id))
}

/** A charge id and `lineCount` charge item ids, from their sequences. */
export async function drawChargeIds(
  tx: Queryable,
  lineCount: number,
): Promise<{ chargeId: string; lineIds: string[] }> {
  const rows = await tx.query<{ chargeId: string | number; lineIds: (string | number)[] }>(
    `SELECT nextval('charge_id_seq') AS "chargeId",
            ARRAY(SELECT nextval('charge_item_id_seq') FROM generate_series(1, $1::int)) AS "lineIds"`,
    [lineCount],
  )
  const row = rows[0]
  if (!row) throw new Error('drawing charge ids returned nothing')
  return { chargeId: `chg_${Number(row.chargeId)}`, lineIds: row.lineIds.map((id) => `chi_${Number(id)}`) }
}

export async function insertLedgerEntry(
  tx: Queryable,
  entry: LedgerEntry,
  balanceAfterMinor: bigint,
  at: Date,
): Promise<number> {
  const rows = await tx.query<{ id: number }>(
    `INSERT INTO account_ledger (account_id, order_id, charge_id, entry, amount_minor, currency,
                                 balance_after_minor, reference, created_at)
     VALUES ($1, $2, $3, $4, $5::bigint, $6, $7::bigint, $8, $9) RETURNING id::int AS id`,
    [
      entry.accountId,
      entry.orderNumber,
      entry.chargeId,
      entry.entry,
      String(entry.amountMinor),
      entry.currency,
      String(balanceAfterMinor),
      entry.reference,
      at,
    ],
  )
  return (rows[0] as { id: number }).id
}

export interface LedgerRow extends LedgerEntry {
  balanceAfterMinor: bigint
  createdAt: Date
}

/** The entries that record money a prepaid account owes on its statement (docs/billing.md#statements). */
export const OWED_ENTRIES: readonly LedgerEntryKind[] = [
  'invoice-charge',
  'invoice-refund',
  'card-dispute',
  'card-dispute-won',
]
/** Of those, the ones an invoice account's statement lists too: disputes of card payments (docs/billing.md#disputes). */
export const DISPUTE_ENTRIES: readonly LedgerEntryKind[] = ['card-dispute', 'card-dispute-won']

/**
 * The account's `entries` (by default OWED_ENTRIES) made in [from, to), oldest first, at most `limit`: on a prepaid
 * account, what operators' releases left owed on the next invoice (and refunds taken off it) and disputed card
 * payments (and disputes won).
 */
export async function listInvoiceEntries(
  db: Queryable,
  accountId: number,
  range: { from: Date; to: Date },
  limit: number,
  entries: readonly LedgerEntryKind[] = OWED_ENTRIES,
): Promise<LedgerRow[]> {
  const rows = await db.query<{
    orderNumber: string | number | null
    chargeId: string | null
    entry: LedgerEntryKind
    amountMinor: string
    currency: string
    reference: string | null
    balanceAfterMinor: string
    createdAt: Date | string
  }>(
    `SELECT order_id AS "orderNumber", charge_id AS "chargeId", entry, amount_minor::text AS "amountMinor", currency,
            reference, balance_after_minor::text AS "balanceAfterMinor", created_at AS "createdAt"
       FROM account_ledger
      WHERE account_id = $1 AND entry = ANY($5::text[]) AND created_at >= $2 AND created_at < $3
      ORDER BY id LIMIT $4`,
    [accountId, range.from, range.to, limit, [...entries]],
  )
  return rows.map((row) => ({
    ...row,
    accountId,
    orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
    amountMinor: BigInt(row.amountMinor),
    balanceAfterMinor: BigInt(row.balanceAfterMinor),
    createdAt: new Date(row.createdAt),
  }))
}

export async function listLedger(db: Queryable, accountId: number): Promise<LedgerRow[]> {
  return readLedger(db, accountId, 'ORDER BY id', null)
}

/** The account's latest `limit` entries, newest first (the console's recent charges). */
export async function listRecentLedger(db: Queryable, accountId: number, limit: number): Promise<LedgerRow[]> {
  return readLedger(db, accountId, 'ORDER BY id DESC', limit)
}

async function readLedger(
  db: Queryable,
  accountId: number,
  order: 'ORDER BY id' | 'ORDER BY id DESC',
  limit: number | null,
): Promise<LedgerRow[]> {
  const rows = await db.query<{
    accountId: string | number
    orderNumber: string | number | null
    chargeId: string | null
    entry: LedgerEntryKind
    amountMinor: string
    currency: string
    reference: string | null
    balanceAfterMinor: string
    createdAt: Date
  }>(
    `SELECT account_id AS "accountId", order_id AS "orderNumber", charge_id AS "chargeId", entry,
            amount_minor::text AS "amountMinor", currency, reference,
            balance_after_minor::text AS "balanceAfterMinor", created_at AS "createdAt"
       FROM account_ledger WHERE account_id = $1 ${order} LIMIT $2`,
    [accountId, limit],
  )
  return rows.map((row) => ({
    ...row,
    accountId: Number(row.accountId),
    orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
    amountMinor: BigInt(row.amountMinor),
    balanceAfterMinor: BigInt(row.balanceAfterMinor),
  }))
}
