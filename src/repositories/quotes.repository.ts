// SQL for stored quotes (migrations/0010_quotes.sql): written by POST /quotes, read by order creation (the price
// lock), the pipeline (the first charge) and the routing endpoint.
import type { Queryable } from '../adapters/database.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import { formatId } from '../domain/ids.ts'
import type { QuoteLock, StoredQuote } from '../domain/quote-lock.ts'
import { deletedRows } from './row-counts.ts'

export type QuoteScope = AccountScope

interface QuoteRow {
  id: number | string
  shipping_method: QuoteLock['shippingMethod']
  destination_country_code: string
  currency: string
  items: QuoteLock['items']
  shipments: QuoteLock['shipments']
  routing: QuoteLock['routing']
  created_at: Date
  expires_at: Date
  order_id: number | string | null
}

const COLUMNS =
  'id, shipping_method, destination_country_code, currency, items, shipments, routing, created_at, expires_at, order_id'

function toStoredQuote(row: QuoteRow): StoredQuote {
  return {
    id: formatId('quo', Number(row.id)),
    shippingMethod: row.shipping_method,
    destinationCountryCode: row.destination_country_code,
    currency: row.currency,
    items: row.items,
    shipments: row.shipments,
    routing: row.routing,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedByOrderId: row.order_id === null ? null : formatId('ord', Number(row.order_id)),
  }
}

/** Stores the quotes of one answer; their ids (`quo_12`), in the order given. */
export async function insertQuotes(
  db: Queryable,
  scope: QuoteScope,
  quotes: readonly QuoteLock[],
  times: { createdAt: Date; expiresAt: Date },
  /** The catalogue version the quotes were priced with; null for a catalogue not stored as a version. */
  catalogueVersion: number | null = null,
): Promise<string[]> {
  if (quotes.length === 0) return []
  const drawn = await db.query<{ id: number | string }>(
    "SELECT nextval('quote_id_seq') AS id FROM generate_series(1, $1::int)",
    [quotes.length],
  )
  const ids = drawn.map((row) => Number(row.id))
  const params: unknown[] = [scope.accountId, scope.environment, times.createdAt, times.expiresAt, catalogueVersion]
  const values = quotes.map((quote, index) => {
    const at = params.length
    params.push(
      ids[index],
      quote.shippingMethod,
      quote.destinationCountryCode,
      quote.currency,
      JSON.stringify(quote.items),
      JSON.stringify(quote.shipments),
      JSON.stringify(quote.routing),
    )
    return `($${at + 1}, $1, $2, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}::jsonb, $${at + 6}::jsonb, $${at + 7}::jsonb, $3, $4, $5::int)`
  })
  await db.query(
    `INSERT INTO quotes (id, account_id, environment, shipping_method, destination_country_code, currency, items,
       shipments, routing, created_at, expires_at, catalogue_version) VALUES ${values.join(', ')}`,
    params,
  )
  return ids.map((id) => formatId('quo', id))
}

/** The scope's quote with this number. */
export async function findQuote(
  db: Queryable,
  scope: QuoteScope,
  quoteNumber: number,
): Promise<StoredQuote | undefined> {
  const rows = await db.query<QuoteRow>(
    `SELECT ${COLUMNS} FROM quotes WHERE id = $1 AND account_id = $2 AND environment = $3`,
    [quoteNumber, scope.accountId, scope.environment],
  )
  return rows[0] && toStoredQuote(rows[0])
}

/** A quote by number alone, for an order that already holds it (the order's scope was checked at creation). */
export async function findQuoteOfOrder(db: Queryable, quoteNumber: number): Promise<StoredQuote | undefined> {
  const rows = await db.query<QuoteRow>(`SELECT ${COLUMNS} FROM quotes WHERE id = $1`, [quoteNumber])
  return rows[0] && toStoredQuote(rows[0])
}

/**
 * Deletes the quotes no order used that expired before `expiredBefore` (all accounts); returns how many. A quote an
 * order holds is kept with the order.
 */
export async function deleteExpiredUnusedQuotes(db: Queryable, expiredBefore: Date): Promise<number> {
  return deletedRows(db, 'DELETE FROM quotes WHERE order_id IS NULL AND expires_at < $1 RETURNING id', [expiredBefore])
}
