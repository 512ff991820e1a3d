// SQL for orders. An order is one row: its API document plus the columns that filters and the pipeline
// query. Only this module writes the row, so the columns can never drift from the document.
import type { Queryable } from '../adapters/database.ts'
import type { NewOrderIds, OrderDocument } from '../domain/order.ts'
import type { Environment } from './accounts.repository.ts'

export interface OrderScope {
  accountId: number
  environment: Environment
}

export interface StoredOrder {
  document: OrderDocument
  onHoldUntil: Date | null
}

/** Draws the order, item and asset IDs of a new order from their sequences in one round trip. */
export async function allocateOrderIds(db: Queryable, itemCount: number, assetCount: number): Promise<NewOrderIds> {
  const rows = await db.query<{ ord: number | string; ori: (number | string)[]; ast: (number | string)[] }>(
    `SELECT nextval('order_id_seq') AS ord,
            ARRAY(SELECT nextval('order_item_id_seq') FROM generate_series(1, $1::int)) AS ori,
            ARRAY(SELECT nextval('asset_id_seq') FROM generate_series(1, $2::int)) AS ast`,
    [itemCount, assetCount],
  )
  const row = rows[0] as { ord: number | string; ori: (number | string)[]; ast: (number | string)[] }
  return { order: Number(row.ord), items: row.ori.map(Number), assets: row.ast.map(Number) }
}

/**
 * Inserts the order unless one with the same idempotency key exists in the scope; returns false then.
 * On PostgreSQL a concurrent insert with the same key waits for the first to commit and then does nothing,
 * which is what makes idempotency exact under concurrent identical requests.
 */
export async function insertOrder(
  db: Queryable,
  scope: OrderScope,
  orderNumber: number,
  document: OrderDocument,
  onHoldUntil: Date | null,
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO orders (id, account_id, environment, idempotency_key, merchant_reference, stage, created_at,
                         last_updated, on_hold_until, document)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (account_id, environment, idempotency_key) DO NOTHING
     RETURNING id`,
    [
      orderNumber,
      scope.accountId,
      scope.environment,
      document.idempotencyKey,
      document.merchantReference,
      document.status.stage,
      document.created,
      document.lastUpdated,
      onHoldUntil,
      JSON.stringify(document),
    ],
  )
  return rows.length > 0
}

function toStoredOrder(row: { document: OrderDocument | string; onHoldUntil: Date | null }): StoredOrder {
  const document = typeof row.document === 'string' ? (JSON.parse(row.document) as OrderDocument) : row.document
  return { document, onHoldUntil: row.onHoldUntil }
}

export async function findOrder(db: Queryable, scope: OrderScope, orderNumber: number): Promise<StoredOrder | undefined> {
  const rows = await db.query<{ document: OrderDocument; onHoldUntil: Date | null }>(
    `SELECT document, on_hold_until AS "onHoldUntil" FROM orders
      WHERE id = $1 AND account_id = $2 AND environment = $3`,
    [orderNumber, scope.accountId, scope.environment],
  )
  return rows[0] && toStoredOrder(rows[0])
}

export async function findOrderByIdempotencyKey(
  db: Queryable,
  scope: OrderScope,
  idempotencyKey: string,
): Promise<StoredOrder | undefined> {
  const rows = await db.query<{ document: OrderDocument; onHoldUntil: Date | null }>(
    `SELECT document, on_hold_until AS "onHoldUntil" FROM orders
      WHERE account_id = $1 AND environment = $2 AND idempotency_key = $3`,
    [scope.accountId, scope.environment, idempotencyKey],
  )
  return rows[0] && toStoredOrder(rows[0])
}

export interface OrderListFilter {
  /** Orders still inside their pause window are hidden from listings until it expires. */
  visibleAt: Date
  createdFrom: Date | null
  createdTo: Date | null
  stage: OrderDocument['status']['stage'] | null
  awaitingPayment: boolean
  /** True for the `draft` status filter: v4 has no drafts, so nothing matches. */
  matchNothing: boolean
  orderNumbers: number[] | null
  merchantReferences: string[] | null
  skip: number
  /** Rows wanted; one more is read to know whether there are more. */
  top: number
}

export async function listOrders(
  db: Queryable,
  scope: OrderScope,
  filter: OrderListFilter,
): Promise<{ orders: OrderDocument[]; hasMore: boolean }> {
  if (filter.matchNothing) return { orders: [], hasMore: false }
  const conditions = ['account_id = $1', 'environment = $2', '(on_hold_until IS NULL OR on_hold_until <= $3)']
  const params: unknown[] = [scope.accountId, scope.environment, filter.visibleAt]
  const add = (condition: string, value: unknown) => {
    params.push(value)
    conditions.push(condition.replace('?', `$${params.length}`))
  }
  if (filter.createdFrom) add('created_at >= ?', filter.createdFrom)
  if (filter.createdTo) add('created_at <= ?', filter.createdTo)
  if (filter.stage) add('stage = ?', filter.stage)
  if (filter.awaitingPayment) conditions.push('awaiting_payment')
  if (filter.orderNumbers) add('id = ANY(?::bigint[])', filter.orderNumbers)
  if (filter.merchantReferences) add('merchant_reference = ANY(?::text[])', filter.merchantReferences)
  params.push(filter.top + 1, filter.skip)
  const rows = await db.query<{ document: OrderDocument | string }>(
    `SELECT document FROM orders WHERE ${conditions.join(' AND ')}
      ORDER BY id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  )
  const documents = rows.map((row) => toStoredOrder({ document: row.document, onHoldUntil: null }).document)
  const hasMore = documents.length > filter.top
  return { orders: hasMore ? documents.slice(0, filter.top) : documents, hasMore }
}
