// SQL for orders. An order is one row: its API document plus the columns that filters and the pipeline
// query. Only this module writes the row, so the columns can never drift from the document.

import type { Queryable } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'
import type { NewOrderIds, OrderDocument } from '../domain/order.ts'
import { randomHex } from '../domain/random-hex.ts'

export interface OrderScope {
  accountId: number
  environment: Environment
}

export interface StoredOrder {
  orderNumber: number
  /** The order's JSON text exactly as stored and served (see migrations/0001_init.sql). */
  documentJson: string
  onHoldUntil: Date | null
}

/**
 * Placeholders for the IDs of a new order, to build its document before the database draws the IDs; the
 * random token makes them impossible to forge in merchant text (see create_order in the migrations).
 */
export interface NewOrderIdPlaceholders {
  token: string
  ids: NewOrderIds
}

export function newOrderIdPlaceholders(itemCount: number, assetCount: number): NewOrderIdPlaceholders {
  const token = `@${randomHex(12)}`
  return {
    token,
    ids: {
      order: `ord_${token}:order`,
      items: Array.from({ length: itemCount }, (_, index) => `ori_${token}:item:${index + 1}`),
      assets: Array.from({ length: assetCount }, (_, index) => `ast_${token}:asset:${index + 1}`),
    },
  }
}

export interface NewOrderRow {
  idempotencyKey: string | null
  merchantReference: string | null
  stage: string
  createdAt: Date
  onHoldUntil: Date | null
  placeholders: NewOrderIdPlaceholders
  /** The document's JSON text with the placeholders in place of its IDs. */
  documentTemplate: string
  /** The quote the order uses (claimed by the same statement); null for none. */
  quoteNumber: number | null
  /**
   * The Sandbox scenario the request named (null: named none); undefined when it named nothing, in which case a
   * Sandbox order gets the account's default.
   */
  sandboxScenario: string | null | undefined
  /**
   * The job queue's statement that enqueues the order's start job, run by the same statement as the insert; its
   * parameter may hold the order placeholder (`placeholders.ids.order`), which is replaced by the order's ID.
   */
  startJob: { text: string; parameter: string }
}

/** The order a quote is already used by, when a new order names a quote another order has claimed. */
export class QuoteAlreadyClaimed extends Error {
  readonly holderOrderNumber: number | null
  constructor(holderOrderNumber: number | null) {
    super(`quote already used by order ${holderOrderNumber}`)
    this.holderOrderNumber = holderOrderNumber
  }
}

/** SQLSTATE raised by create_order when the quote is taken (migrations/0012_create_order_statement.sql). */
const QUOTE_ALREADY_CLAIMED = 'PRQ01'

/**
 * Creates an order in one statement, drawing its IDs: the insert, the quote claim, the Sandbox scenario and the
 * start job commit together or not at all (create_order in the migrations). When the idempotency key is already
 * taken in the scope (also by a concurrent request), nothing is written and the existing order comes back
 * instead (`inserted: false`). Throws QuoteAlreadyClaimed when another order holds the quote.
 */
export async function createOrderRow(
  db: Queryable,
  scope: OrderScope,
  order: NewOrderRow,
): Promise<StoredOrder & { inserted: boolean; sandboxScenario: string | null }> {
  let rows: {
    result_order_number: number | string
    result_document: string
    result_on_hold_until: Date | null
    result_inserted: boolean
    result_sandbox_scenario: string | null
  }[]
  try {
    rows = await db.query(
      'SELECT * FROM create_order($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)',
      [
        scope.accountId,
        scope.environment,
        order.idempotencyKey,
        order.merchantReference,
        order.stage,
        order.createdAt,
        order.onHoldUntil,
        order.placeholders.token,
        order.placeholders.ids.items.length,
        order.placeholders.ids.assets.length,
        order.documentTemplate,
        order.quoteNumber,
        order.sandboxScenario !== undefined,
        order.sandboxScenario ?? null,
        order.startJob.text,
        order.startJob.parameter,
      ],
    )
  } catch (error) {
    const { code, detail } = error as { code?: string; detail?: string }
    if (code === QUOTE_ALREADY_CLAIMED) throw new QuoteAlreadyClaimed(detail ? Number(detail) : null)
    throw error
  }
  const row = rows[0]
  if (!row) throw new Error('create_order returned no row')
  return {
    orderNumber: Number(row.result_order_number),
    documentJson: row.result_document,
    onHoldUntil: row.result_on_hold_until,
    inserted: row.result_inserted,
    sandboxScenario: row.result_sandbox_scenario,
  }
}

export function findOrder(db: Queryable, scope: OrderScope, orderNumber: number): Promise<StoredOrder | undefined> {
  return findOrderWhere(db, scope, 'id', orderNumber)
}

export function findOrderByIdempotencyKey(
  db: Queryable,
  scope: OrderScope,
  idempotencyKey: string,
): Promise<StoredOrder | undefined> {
  return findOrderWhere(db, scope, 'idempotency_key', idempotencyKey)
}

/** The scope's order whose `column` (one of the two unique keys above, never caller text) equals `value`. */
async function findOrderWhere(
  db: Queryable,
  scope: OrderScope,
  column: 'id' | 'idempotency_key',
  value: number | string,
): Promise<StoredOrder | undefined> {
  const rows = await db.query<StoredOrder>(
    `SELECT id AS "orderNumber", document AS "documentJson", on_hold_until AS "onHoldUntil" FROM orders
      WHERE account_id = $1 AND environment = $2 AND ${column} = $3`,
    [scope.accountId, scope.environment, value],
  )
  return rows[0] && { ...rows[0], orderNumber: Number(rows[0].orderNumber) }
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
  /** The order with this number, or any whose merchant reference contains the text (any letter case). */
  search: { orderNumber: number | null; referenceContains: string } | null
  skip: number
  /** Rows wanted; one more is read to know whether there are more. */
  top: number
}

/** The text as a LIKE pattern matching only itself (`\`, `%` and `_` escaped with `\`). */
function escapeLikePattern(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&')
}

export async function listOrders(
  db: Queryable,
  scope: OrderScope,
  filter: OrderListFilter,
): Promise<{ ordersJson: string[]; hasMore: boolean }> {
  if (filter.matchNothing) return { ordersJson: [], hasMore: false }
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
  if (filter.search) {
    // No index serves a substring: this walks the account's orders newest first (orders_listing_idx) and stops
    // once the page is full.
    params.push(`%${escapeLikePattern(filter.search.referenceContains)}%`)
    const reference = `merchant_reference ILIKE $${params.length} ESCAPE '\\'`
    if (filter.search.orderNumber === null) conditions.push(reference)
    else {
      params.push(filter.search.orderNumber)
      conditions.push(`(id = $${params.length} OR ${reference})`)
    }
  }
  params.push(filter.top + 1, filter.skip)
  const rows = await db.query<{ documentJson: string }>(
    `SELECT document AS "documentJson" FROM orders WHERE ${conditions.join(' AND ')}
      ORDER BY id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  )
  const hasMore = rows.length > filter.top
  const page = hasMore ? rows.slice(0, filter.top) : rows
  return { ordersJson: page.map((row) => row.documentJson), hasMore }
}
