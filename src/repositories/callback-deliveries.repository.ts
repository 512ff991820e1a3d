// SQL of callback deliveries: each delivery of an order event to a callback URL (callback_deliveries) and its
// attempts (callback_attempts, rows that exist only for their delivery, written and deleted with it).
import type { Queryable } from '../adapters/database.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import type { DeliveryStatus } from '../domain/callback-deliveries.ts'
import type { Environment } from '../domain/environment.ts'
import { deleteInBatch } from './row-counts.ts'

export interface DeliveryRow {
  id: number
  eventId: number
  /** Null for a test callback. */
  orderNumber: number | null
  /** Null for a lab's delivery (a pushed job): it belongs to no merchant. */
  accountId: number | null
  /** The lab a pushed job goes to; null for a merchant's callback. */
  labCode: string | null
  environment: Environment
  url: string
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: Date | null
  redeliveryOf: number | null
  createdAt: Date
  updatedAt: Date
  /** The event's type, for listings. */
  type: string
  /** The webhook endpoint the delivery goes to; null for a callback URL or a lab. */
  webhookId: number | null
}

// Deliveries are read with their event's type (joined from order_events): what a listing shows of each.
const DELIVERY_COLUMNS = `d.id, d.event_id AS "eventId", d.order_id AS "orderNumber", d.account_id AS "accountId",
  d.environment, d.url, d.status, d.attempts, d.next_attempt_at AS "nextAttemptAt",
  d.redelivery_of AS "redeliveryOf", d.created_at AS "createdAt", d.updated_at AS "updatedAt", e.type,
  d.lab_code AS "labCode", d.webhook_id AS "webhookId"`

type StoredDeliveryRow = DeliveryRow

function toDelivery(row: StoredDeliveryRow): DeliveryRow {
  return {
    ...row,
    id: Number(row.id),
    eventId: Number(row.eventId),
    orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
    accountId: row.accountId === null ? null : Number(row.accountId),
    attempts: Number(row.attempts),
    redeliveryOf: row.redeliveryOf === null ? null : Number(row.redeliveryOf),
    webhookId: row.webhookId === null || row.webhookId === undefined ? null : Number(row.webhookId),
  }
}

export async function insertDelivery(
  tx: Queryable,
  delivery: {
    eventId: number
    orderNumber: number | null
    /** Null, with `labCode`, for a pushed job. */
    accountId: number | null
    labCode?: string | null
    environment: Environment
    url: string
    redeliveryOf: number | null
    /** The webhook endpoint it goes to; absent or null for a callback URL or a lab. */
    webhookId?: number | null
    at: Date
  },
): Promise<number> {
  const rows = await tx.query<{ id: number | string }>(
    `INSERT INTO callback_deliveries (event_id, order_id, account_id, environment, url, status, attempts,
                                      next_attempt_at, redelivery_of, created_at, updated_at, lab_code, webhook_id)
     VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $7, $6, $6, $8, $9) RETURNING id`,
    [
      delivery.eventId,
      delivery.orderNumber,
      delivery.accountId,
      delivery.environment,
      delivery.url,
      delivery.at,
      delivery.redeliveryOf,
      delivery.labCode ?? null,
      delivery.webhookId ?? null,
    ],
  )
  return Number(rows[0]?.id)
}

/** Records a delivery already made, with its one attempt (a test callback: sent once, at once, no retries). */
export async function insertFinishedDelivery(
  tx: Queryable,
  delivery: {
    eventId: number
    accountId: number
    environment: Environment
    url: string
    status: 'delivered' | 'failed'
    /** The webhook endpoint a test send went to; absent or null otherwise. */
    webhookId?: number | null
    at: Date
  },
  attempt: Omit<AttemptRow, 'deliveryId' | 'attempt'>,
): Promise<number> {
  const rows = await tx.query<{ id: number | string }>(
    `INSERT INTO callback_deliveries (event_id, order_id, account_id, environment, url, status, attempts,
                                      next_attempt_at, redelivery_of, created_at, updated_at, webhook_id)
     VALUES ($1, NULL, $2, $3, $4, $5, 1, NULL, NULL, $6, $6, $7) RETURNING id`,
    [
      delivery.eventId,
      delivery.accountId,
      delivery.environment,
      delivery.url,
      delivery.status,
      delivery.at,
      delivery.webhookId ?? null,
    ],
  )
  const deliveryId = Number(rows[0]?.id)
  await insertAttempt(tx, { ...attempt, deliveryId, attempt: 1 })
  return deliveryId
}

export async function findDelivery(db: Queryable, id: number, forUpdate = false): Promise<DeliveryRow | undefined> {
  const rows = await db.query<StoredDeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM callback_deliveries d JOIN order_events e ON e.id = d.event_id
      WHERE d.id = $1${forUpdate ? ' FOR UPDATE OF d' : ''}`,
    [id],
  )
  return rows[0] && toDelivery(rows[0])
}

/** The caller's delivery with this number; another account's (or environment's) is not found. */
export async function findDeliveryForCaller(
  db: Queryable,
  scope: AccountScope,
  id: number,
): Promise<DeliveryRow | undefined> {
  const rows = await db.query<StoredDeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM callback_deliveries d JOIN order_events e ON e.id = d.event_id
      WHERE d.id = $1 AND d.account_id = $2 AND d.environment = $3`,
    [id, scope.accountId, scope.environment],
  )
  return rows[0] && toDelivery(rows[0])
}

/** The lab's delivery with this number; another lab's, or a merchant's, is not found. */
export async function findLabDelivery(db: Queryable, labCode: string, id: number): Promise<DeliveryRow | undefined> {
  const rows = await db.query<StoredDeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM callback_deliveries d JOIN order_events e ON e.id = d.event_id
      WHERE d.id = $1 AND d.lab_code = $2`,
    [id, labCode],
  )
  return rows[0] && toDelivery(rows[0])
}

/** The lab's deliveries (its pushed jobs), newest first. */
export async function listLabDeliveries(
  db: Queryable,
  filter: { labCode: string; limit: number; offset: number },
): Promise<DeliveryRow[]> {
  const rows = await db.query<StoredDeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM callback_deliveries d JOIN order_events e ON e.id = d.event_id
      WHERE d.lab_code = $1 ORDER BY d.id DESC LIMIT $2 OFFSET $3`,
    [filter.labCode, filter.limit, filter.offset],
  )
  return rows.map(toDelivery)
}

export async function updateDelivery(
  tx: Queryable,
  id: number,
  change: { status: DeliveryStatus; attempts: number; nextAttemptAt: Date | null; at: Date },
): Promise<void> {
  await tx.query(
    `UPDATE callback_deliveries SET status = $2, attempts = $3, next_attempt_at = $4, updated_at = $5 WHERE id = $1`,
    [id, change.status, change.attempts, change.nextAttemptAt, change.at],
  )
}

export interface AttemptRow {
  deliveryId: number
  attempt: number
  attemptedAt: Date
  httpStatus: number | null
  latencyMs: number
  responseSnippet: string | null
  error: string | null
}

export async function insertAttempt(tx: Queryable, attempt: AttemptRow): Promise<void> {
  await tx.query(
    `INSERT INTO callback_attempts (delivery_id, attempt, attempted_at, http_status, latency_ms, response_snippet, error)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      attempt.deliveryId,
      attempt.attempt,
      attempt.attemptedAt,
      attempt.httpStatus,
      attempt.latencyMs,
      attempt.responseSnippet,
      attempt.error,
    ],
  )
}

/** The account's deliveries, newest first, optionally of one order, in one status, to one webhook endpoint. */
export async function listDeliveries(
  db: Queryable,
  filter: {
    accountId: number
    environment: Environment
    orderNumber: number | null
    status: DeliveryStatus | null
    webhookId?: number | null
    limit: number
    offset: number
  },
): Promise<DeliveryRow[]> {
  const rows = await db.query<StoredDeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM callback_deliveries d JOIN order_events e ON e.id = d.event_id
      WHERE d.account_id = $1 AND d.environment = $2
        AND ($3::bigint IS NULL OR d.order_id = $3) AND ($4::text IS NULL OR d.status = $4)
        AND ($7::bigint IS NULL OR d.webhook_id = $7)
      ORDER BY d.id DESC LIMIT $5 OFFSET $6`,
    [
      filter.accountId,
      filter.environment,
      filter.orderNumber,
      filter.status,
      filter.limit,
      filter.offset,
      filter.webhookId ?? null,
    ],
  )
  return rows.map(toDelivery)
}

export async function listAttempts(db: Queryable, deliveryIds: readonly number[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return []
  const rows = await db.query<AttemptRow>(
    `SELECT delivery_id AS "deliveryId", attempt, attempted_at AS "attemptedAt", http_status AS "httpStatus",
            latency_ms AS "latencyMs", response_snippet AS "responseSnippet", error
       FROM callback_attempts WHERE delivery_id = ANY($1::bigint[]) ORDER BY delivery_id, attempt`,
    [deliveryIds],
  )
  return rows.map((row) => ({
    ...row,
    deliveryId: Number(row.deliveryId),
    attempt: Number(row.attempt),
    latencyMs: Number(row.latencyMs),
    httpStatus: row.httpStatus === null ? null : Number(row.httpStatus),
  }))
}

/**
 * Pending deliveries whose next attempt was due before `dueBefore`, by id after `afterId`: the sweeper's page
 * (`afterId` lets it walk them all once, whatever it decides about each).
 */
export async function listOverdueDeliveries(
  db: Queryable,
  filter: { dueBefore: Date; afterId: number; limit: number },
): Promise<{ id: number; attempts: number }[]> {
  const rows = await db.query<{ id: number | string; attempts: number | string }>(
    `SELECT id, attempts FROM callback_deliveries
      WHERE status = 'pending' AND next_attempt_at < $1 AND id > $2
      ORDER BY id LIMIT $3`,
    [filter.dueBefore, filter.afterId, filter.limit],
  )
  return rows.map((row) => ({ id: Number(row.id), attempts: Number(row.attempts) }))
}

/**
 * Deletes up to `limit` finished deliveries (delivered or failed) last changed before `before`, with their
 * attempts, in one statement; returns how many deliveries went. A delivery that a kept delivery redelivers
 * stays until that one goes too: newest first, so a redelivery always goes before (or with) the delivery it
 * repeats, and the reference between them is checked at the end of the statement.
 */
export async function deleteFinishedDeliveries(
  db: Queryable,
  filter: { before: Date; limit: number },
): Promise<number> {
  return deleteInBatch(db, {
    table: 'callback_deliveries',
    doomed: `SELECT d.id FROM callback_deliveries d
              WHERE d.status IN ('delivered', 'failed') AND d.updated_at < $1
                AND NOT EXISTS (
                  SELECT 1 FROM callback_deliveries r
                   WHERE r.redelivery_of = d.id AND NOT (r.status IN ('delivered', 'failed') AND r.updated_at < $1))
              ORDER BY d.id DESC LIMIT $2`,
    dependents: [{ table: 'callback_attempts', column: 'delivery_id' }],
    params: [filter.before, filter.limit],
  })
}

/** An endpoint (an account's environment, or a lab) whose newest attempt failed, for the operator console. */
export interface FailingEndpointRow {
  accountId: number | null
  /** Joined from accounts for the console's list; null for a lab. */
  accountName: string | null
  labCode: string | null
  environment: Environment
  /** The URL of the newest failed attempt's delivery. */
  url: string
  /** The first failed attempt after the last successful one (or the oldest kept, without a success). */
  failingSince: Date
  /** Deliveries with a failed attempt since the last success. */
  failedDeliveries: number
  lastAttemptAt: Date
  /** The newest failed attempt's error (`HTTP 500`, a connection error). */
  lastError: string
  /** The start of the newest failed attempt's answer, when there was one. */
  lastResponseSnippet: string | null
  lastSuccessAt: Date | null
}

/**
 * Endpoints whose newest attempt failed (no 2xx answer), the longest failing first: merchants' callback endpoints
 * per account and environment (`labs` false; deliveries to webhook endpoints not counted), or labs' push endpoints
 * (`labs` true). Counted over the deliveries and attempts still kept (the retention job deletes old ones).
 */
export async function listFailingEndpoints(
  db: Queryable,
  filter: { labs: boolean; limit: number },
): Promise<FailingEndpointRow[]> {
  const rows = await db.query<FailingEndpointRow>(
    `WITH attempts AS (
       SELECT d.account_id, d.lab_code, d.environment, d.url, d.id AS delivery_id, a.attempted_at, a.http_status,
              a.error, a.response_snippet, coalesce(a.http_status BETWEEN 200 AND 299, false) AS ok
         FROM callback_attempts a JOIN callback_deliveries d ON d.id = a.delivery_id
        WHERE (d.lab_code IS NOT NULL) = $1
          -- Webhook endpoints are listed on their own, from their failure state (listFailingWebhookEndpoints).
          AND d.webhook_id IS NULL
     ),
     endpoints AS (
       SELECT account_id, lab_code, environment, max(attempted_at) FILTER (WHERE ok) AS last_success
         FROM attempts GROUP BY account_id, lab_code, environment
     ),
     failures AS (
       SELECT x.*, e.last_success FROM attempts x JOIN endpoints e
           ON e.account_id IS NOT DISTINCT FROM x.account_id AND e.lab_code IS NOT DISTINCT FROM x.lab_code
          AND e.environment = x.environment
        WHERE NOT x.ok AND (e.last_success IS NULL OR x.attempted_at > e.last_success)
     )
     SELECT f.account_id AS "accountId", acc.name AS "accountName", f.lab_code AS "labCode", f.environment,
            (array_agg(f.url ORDER BY f.attempted_at DESC, f.delivery_id DESC))[1] AS url,
            min(f.attempted_at) AS "failingSince", count(DISTINCT f.delivery_id) AS "failedDeliveries",
            max(f.attempted_at) AS "lastAttemptAt",
            (array_agg(coalesce(f.error, 'HTTP ' || f.http_status) ORDER BY f.attempted_at DESC, f.delivery_id DESC))[1]
              AS "lastError",
            (array_agg(f.response_snippet ORDER BY f.attempted_at DESC, f.delivery_id DESC))[1] AS "lastResponseSnippet",
            max(f.last_success) AS "lastSuccessAt"
       FROM failures f LEFT JOIN accounts acc ON acc.id = f.account_id
      GROUP BY f.account_id, acc.name, f.lab_code, f.environment
      ORDER BY "failingSince", f.account_id, f.lab_code, f.environment LIMIT $2`,
    [filter.labs, filter.limit],
  )
  return rows.map((row) => ({
    ...row,
    accountId: row.accountId === null ? null : Number(row.accountId),
    failedDeliveries: Number(row.failedDeliveries),
  }))
}
