// SQL for orders (and the shipment IDs drawn for them). An order is one row: its API document, its pipeline state
// and the columns that filters and the pipeline query. Every statement on the table is here, so the columns can
// never drift from the document. Reads for a caller carry the caller's account and environment in their WHERE
// clause: another account's order is simply not found.

import type { Queryable } from '../adapters/database.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import { openDraftExpiry } from '../domain/drafts.ts'
import type { Environment } from '../domain/environment.ts'
import type { NewOrderIds, OrderDocument } from '../domain/order.ts'
import { type PipelineOrder, pipelineOf } from '../domain/pipeline/pipeline-order.ts'
import { isAwaitingPayment } from '../domain/pipeline/submit-shipment.ts'
import { randomHex } from '../domain/random-hex.ts'
import { parseSandboxScenario } from '../domain/sandbox-scenarios.ts'

export type OrderScope = AccountScope

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
  /** A draft's expiry (the `draft_expires_at` column, migrations/0041_drafts.sql); null for any other order. */
  draftExpiresAt: Date | null
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
      'SELECT * FROM create_order($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)',
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
        order.draftExpiresAt,
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

/** The caller's order as stored and served (its JSON text), to answer a read of the order. */
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
  /** True for the `draft` status filter: only the drafts (docs/api.md#drafts-and-holds). */
  draftsOnly: boolean
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
  if (filter.draftsOnly) conditions.push('draft_expires_at IS NOT NULL')
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

/** Live orders of an account held for payment, oldest first (a top-up pays them in this order). */
export async function listOrdersAwaitingPayment(db: Queryable, accountId: number): Promise<number[]> {
  const rows = await db.query<{ id: string | number }>(
    `SELECT id FROM orders WHERE account_id = $1 AND environment = 'live' AND awaiting_payment ORDER BY id`,
    [accountId],
  )
  return rows.map((row) => Number(row.id))
}

/**
 * How many of the account's Live orders are in progress with their billing started in `currency`: they may still be
 * charged or refunded in it (an edit of the account's currency waits for them, docs/admin.md#editing-an-account).
 */
export async function countLiveOrdersBilledIn(db: Queryable, accountId: number, currency: string): Promise<number> {
  const rows = await db.query<{ count: string | number }>(
    `SELECT count(*) AS count FROM orders
      WHERE account_id = $1 AND environment = 'live' AND stage = 'InProgress'
        AND pipeline -> 'billing' ->> 'currency' = $2`,
    [accountId, currency],
  )
  return Number(rows[0]?.count ?? 0)
}

interface PipelineOrderRow {
  accountId: number | string
  environment: Environment
  onHoldUntil: Date | null
  sandboxScenario: string | null
  document: string
  pipeline: unknown
}

function toPipelineOrder(orderNumber: number, row: PipelineOrderRow): PipelineOrder {
  return {
    orderNumber,
    accountId: Number(row.accountId),
    environment: row.environment,
    onHoldUntil: row.onHoldUntil,
    sandboxScenario: parseSandboxScenario(row.sandboxScenario) ?? null,
    document: JSON.parse(row.document) as OrderDocument,
    pipeline: pipelineOf(row.pipeline),
  }
}

const PIPELINE_ORDER_COLUMNS = `account_id AS "accountId", environment, on_hold_until AS "onHoldUntil",
  sandbox_scenario AS "sandboxScenario", document, pipeline`

/** `WHERE id = $1`, and the scope's account and environment (`$2`, `$3`) when there is a scope. */
function orderNumberInScope(orderNumber: number, scope: OrderScope | undefined): { where: string; params: unknown[] } {
  if (!scope) return { where: 'id = $1', params: [orderNumber] }
  return {
    where: 'id = $1 AND account_id = $2 AND environment = $3',
    params: [orderNumber, scope.accountId, scope.environment],
  }
}

/**
 * Reads an order and locks its row until the transaction ends: pipeline steps on one order never interleave. With
 * a scope, only the scope's order is read (and locked): another account's order is not found.
 */
export async function lockOrder(
  tx: Queryable,
  orderNumber: number,
  scope?: OrderScope,
): Promise<PipelineOrder | undefined> {
  const { where, params } = orderNumberInScope(orderNumber, scope)
  const rows = await tx.query<PipelineOrderRow>(
    `SELECT ${PIPELINE_ORDER_COLUMNS} FROM orders WHERE ${where} FOR UPDATE`,
    params,
  )
  return rows[0] && toPipelineOrder(orderNumber, rows[0])
}

/**
 * Reads an order of any account without locking it, for the service's own work (the pipeline's jobs, labs'
 * reports, payment links): to prepare slow work outside a transaction.
 */
export async function readOrder(db: Queryable, orderNumber: number): Promise<PipelineOrder | undefined> {
  const rows = await db.query<PipelineOrderRow>(`SELECT ${PIPELINE_ORDER_COLUMNS} FROM orders WHERE id = $1`, [
    orderNumber,
  ])
  return rows[0] && toPipelineOrder(orderNumber, rows[0])
}

/** Several orders of any account without locking them (as readOrder), in one statement; missing ones are left out. */
export async function readOrders(db: Queryable, orderNumbers: readonly number[]): Promise<PipelineOrder[]> {
  if (orderNumbers.length === 0) return []
  const rows = await db.query<PipelineOrderRow & { orderNumber: number | string }>(
    `SELECT id AS "orderNumber", ${PIPELINE_ORDER_COLUMNS} FROM orders WHERE id = ANY($1::bigint[]) ORDER BY id`,
    [orderNumbers],
  )
  return rows.map((row) => toPipelineOrder(Number(row.orderNumber), row))
}

/** The caller's order with its pipeline state, without locking it; another account's order is not found. */
export async function findOrderForCaller(
  db: Queryable,
  scope: OrderScope,
  orderNumber: number,
): Promise<PipelineOrder | undefined> {
  const { where, params } = orderNumberInScope(orderNumber, scope)
  const rows = await db.query<PipelineOrderRow>(`SELECT ${PIPELINE_ORDER_COLUMNS} FROM orders WHERE ${where}`, params)
  return rows[0] && toPipelineOrder(orderNumber, rows[0])
}

/** The trace id of the request that created the order (kept in its pipeline state), for log lines. */
export async function readOrderTraceId(db: Queryable, orderNumber: number): Promise<string | null> {
  const rows = await db.query<{ traceId: string | null }>(
    `SELECT pipeline->>'traceId' AS "traceId" FROM orders WHERE id = $1`,
    [orderNumber],
  )
  return rows[0]?.traceId ?? null
}

/** Writes the document and pipeline state back, with the columns derived from them (and the hold's end). */
export async function saveOrder(tx: Queryable, order: PipelineOrder): Promise<void> {
  await tx.query(
    `UPDATE orders SET document = $2, pipeline = $3, stage = $4, last_updated = $5, on_hold_until = $6,
                       awaiting_payment = $7, catalogue_version = $8, draft_expires_at = $9
            WHERE id = $1`,
    [
      order.orderNumber,
      JSON.stringify(order.document),
      JSON.stringify(order.pipeline),
      order.document.status.stage,
      order.document.lastUpdated,
      order.onHoldUntil,
      isAwaitingPayment(order.pipeline),
      order.pipeline.catalogueVersion ?? null,
      openDraftExpiry(order.document),
    ],
  )
}

/** IDs for `count` new shipments of an order (`shp_12`), from their sequence. */
export async function drawShipmentIds(tx: Queryable, count: number): Promise<string[]> {
  if (count === 0) return []
  const rows = await tx.query<{ id: number | string }>(
    "SELECT nextval('shipment_id_seq') AS id FROM generate_series(1, $1::int)",
    [count],
  )
  return rows.map((row) => `shp_${Number(row.id)}`)
}

/** The operator console's search over every account's orders (docs/admin.md#orders). */
export interface AllAccountsOrderFilter {
  orderNumber: number | null
  accountNumber: number | null
  /** Merchant references containing this text (any letter case). */
  referenceContains: string | null
  environment: Environment | null
  stage: OrderDocument['status']['stage'] | null
  awaitingPayment: boolean
  /** Only orders still inside their account's pause window at this instant. */
  onHoldAt: Date | null
  skip: number
  /** Rows wanted; one more is read to know whether there are more. */
  top: number
}

export interface AllAccountsOrderRow {
  orderNumber: number
  accountNumber: number
  /** Joined from accounts: what the console's list shows beside each order. */
  accountName: string
  environment: Environment
  stage: OrderDocument['status']['stage']
  merchantReference: string | null
  createdAt: Date
  onHoldUntil: Date | null
  awaitingPayment: boolean
}

/**
 * Orders of every account and environment, newest first, with their account's name (the console's list; orders in
 * a pause window included). Joins accounts for the name only: the question is about orders.
 */
export async function listOrdersOfAllAccounts(
  db: Queryable,
  filter: AllAccountsOrderFilter,
): Promise<{ rows: AllAccountsOrderRow[]; hasMore: boolean }> {
  const conditions: string[] = ['true']
  const params: unknown[] = []
  const add = (condition: string, value: unknown) => {
    params.push(value)
    conditions.push(condition.replaceAll('?', `$${params.length}`))
  }
  if (filter.orderNumber !== null) add('o.id = ?', filter.orderNumber)
  if (filter.accountNumber !== null) add('o.account_id = ?', filter.accountNumber)
  if (filter.referenceContains !== null)
    add(`o.merchant_reference ILIKE ? ESCAPE '\\'`, `%${escapeLikePattern(filter.referenceContains)}%`)
  if (filter.environment) add('o.environment = ?', filter.environment)
  if (filter.stage) add('o.stage = ?', filter.stage)
  if (filter.awaitingPayment) conditions.push('o.awaiting_payment')
  if (filter.onHoldAt) add('o.on_hold_until > ?', filter.onHoldAt)
  params.push(filter.top + 1, filter.skip)
  const rows = await db.query<AllAccountsOrderRow>(
    `SELECT o.id AS "orderNumber", o.account_id AS "accountNumber", a.name AS "accountName", o.environment,
            o.stage, o.merchant_reference AS "merchantReference", o.created_at AS "createdAt",
            o.on_hold_until AS "onHoldUntil", o.awaiting_payment AS "awaitingPayment"
       FROM orders o JOIN accounts a ON a.id = o.account_id
      WHERE ${conditions.join(' AND ')}
      ORDER BY o.id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  )
  const hasMore = rows.length > filter.top
  return {
    rows: (hasMore ? rows.slice(0, filter.top) : rows).map((row) => ({
      ...row,
      orderNumber: Number(row.orderNumber),
      accountNumber: Number(row.accountNumber),
    })),
    hasMore,
  }
}
