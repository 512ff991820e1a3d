// SQL of order events: the outbox (order_events), the deliveries of each event to a callback URL and their
// attempts.
import type { Queryable } from '../adapters/database.ts'
import type { DeliveryStatus } from '../domain/callback-deliveries.ts'
import type { Environment } from '../domain/environment.ts'

/**
 * Locks the account's row until the transaction ends and returns the callback URL of the environment. Every
 * transaction that writes events takes this lock before drawing event ids, so one account's event ids grow in
 * commit order (the feed's cursor relies on it). Called under the order's lock: order before account, as every
 * path does.
 */
export async function lockAccountForEvents(
  tx: Queryable,
  accountId: number,
  environment: Environment,
): Promise<{ callbackUrl: string | null }> {
  const rows = await tx.query<{ callbackUrl: string | null }>(
    `SELECT e.callback_url AS "callbackUrl"
       FROM accounts a LEFT JOIN account_environments e ON e.account_id = a.id AND e.environment = $2
      WHERE a.id = $1 FOR UPDATE OF a`,
    [accountId, environment],
  )
  return { callbackUrl: rows[0]?.callbackUrl ?? null }
}

/** The last sequence number of the order's events (0 for none); call under the order's row lock. */
export async function lastOrderSequence(tx: Queryable, orderNumber: number): Promise<number> {
  const rows = await tx.query<{ last: number | string | null }>(
    'SELECT max(sequence) AS last FROM order_events WHERE order_id = $1',
    [orderNumber],
  )
  return Number(rows[0]?.last ?? 0)
}

export async function drawEventIds(tx: Queryable, count: number): Promise<number[]> {
  const rows = await tx.query<{ id: number | string }>(
    "SELECT nextval('event_id_seq') AS id FROM generate_series(1, $1::int)",
    [count],
  )
  return rows.map((row) => Number(row.id))
}

export interface EventRow {
  id: number
  /** Null for a test callback's event (no order; `sequence` 0). */
  orderNumber: number | null
  accountId: number
  environment: Environment
  sequence: number
  type: string
  createdAt: Date
  body: string
}

export async function insertEvent(tx: Queryable, event: EventRow): Promise<void> {
  await tx.query(
    `INSERT INTO order_events (id, order_id, account_id, environment, sequence, type, created_at, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      event.id,
      event.orderNumber,
      event.accountId,
      event.environment,
      event.sequence,
      event.type,
      event.createdAt,
      event.body,
    ],
  )
}

/**
 * The account's order events after event number `afterId`, oldest first (test callbacks' events are not part
 * of the feed); only one order's when `orderNumber` is set.
 * Two statements rather than `$n IS NULL OR ...`, so that a generic plan of the order's query uses the order's
 * own index (order_id, sequence) instead of walking the account's whole feed.
 */
export async function listEvents(
  db: Queryable,
  filter: { accountId: number; environment: Environment; afterId: number; orderNumber: number | null; limit: number },
): Promise<{ id: number; body: string }[]> {
  const params: unknown[] = [filter.accountId, filter.environment, filter.afterId, filter.limit]
  const ofOrder = filter.orderNumber === null ? ' AND order_id IS NOT NULL' : ' AND order_id = $5'
  if (filter.orderNumber !== null) params.push(filter.orderNumber)
  const rows = await db.query<{ id: number | string; body: string }>(
    `SELECT id, body FROM order_events
      WHERE account_id = $1 AND environment = $2 AND id > $3${ofOrder}
      ORDER BY id LIMIT $4`,
    params,
  )
  return rows.map((row) => ({ id: Number(row.id), body: row.body }))
}

export async function findEvent(db: Queryable, id: number): Promise<EventRow | undefined> {
  const rows = await db.query<EventRow>(
    `SELECT id, order_id AS "orderNumber", account_id AS "accountId", environment, sequence, type,
            created_at AS "createdAt", body
       FROM order_events WHERE id = $1`,
    [id],
  )
  const row = rows[0]
  return (
    row && {
      ...row,
      id: Number(row.id),
      orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
      accountId: Number(row.accountId),
    }
  )
}

export interface DeliveryRow {
  id: number
  eventId: number
  /** Null for a test callback. */
  orderNumber: number | null
  accountId: number
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
}

const DELIVERY_COLUMNS = `d.id, d.event_id AS "eventId", d.order_id AS "orderNumber", d.account_id AS "accountId",
  d.environment, d.url, d.status, d.attempts, d.next_attempt_at AS "nextAttemptAt",
  d.redelivery_of AS "redeliveryOf", d.created_at AS "createdAt", d.updated_at AS "updatedAt", e.type`

type StoredDeliveryRow = DeliveryRow

function toDelivery(row: StoredDeliveryRow): DeliveryRow {
  return {
    ...row,
    id: Number(row.id),
    eventId: Number(row.eventId),
    orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
    accountId: Number(row.accountId),
    attempts: Number(row.attempts),
    redeliveryOf: row.redeliveryOf === null ? null : Number(row.redeliveryOf),
  }
}

export async function insertDelivery(
  tx: Queryable,
  delivery: {
    eventId: number
    orderNumber: number | null
    accountId: number
    environment: Environment
    url: string
    redeliveryOf: number | null
    at: Date
  },
): Promise<number> {
  const rows = await tx.query<{ id: number | string }>(
    `INSERT INTO callback_deliveries (event_id, order_id, account_id, environment, url, status, attempts,
                                      next_attempt_at, redelivery_of, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $7, $6, $6) RETURNING id`,
    [
      delivery.eventId,
      delivery.orderNumber,
      delivery.accountId,
      delivery.environment,
      delivery.url,
      delivery.at,
      delivery.redeliveryOf,
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
    at: Date
  },
  attempt: Omit<AttemptRow, 'deliveryId' | 'attempt'>,
): Promise<number> {
  const rows = await tx.query<{ id: number | string }>(
    `INSERT INTO callback_deliveries (event_id, order_id, account_id, environment, url, status, attempts,
                                      next_attempt_at, redelivery_of, created_at, updated_at)
     VALUES ($1, NULL, $2, $3, $4, $5, 1, NULL, NULL, $6, $6) RETURNING id`,
    [delivery.eventId, delivery.accountId, delivery.environment, delivery.url, delivery.status, delivery.at],
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

/** The account's deliveries, newest first, optionally of one order and in one status. */
export async function listDeliveries(
  db: Queryable,
  filter: {
    accountId: number
    environment: Environment
    orderNumber: number | null
    status: DeliveryStatus | null
    limit: number
    offset: number
  },
): Promise<DeliveryRow[]> {
  const rows = await db.query<StoredDeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM callback_deliveries d JOIN order_events e ON e.id = d.event_id
      WHERE d.account_id = $1 AND d.environment = $2
        AND ($3::bigint IS NULL OR d.order_id = $3) AND ($4::text IS NULL OR d.status = $4)
      ORDER BY d.id DESC LIMIT $5 OFFSET $6`,
    [filter.accountId, filter.environment, filter.orderNumber, filter.status, filter.limit, filter.offset],
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
  const rows = await db.query<{ count: number | string }>(
    `WITH doomed AS (
       SELECT d.id FROM callback_deliveries d
        WHERE d.status IN ('delivered', 'failed') AND d.updated_at < $1
          AND NOT EXISTS (
            SELECT 1 FROM callback_deliveries r
             WHERE r.redelivery_of = d.id AND NOT (r.status IN ('delivered', 'failed') AND r.updated_at < $1))
        ORDER BY d.id DESC LIMIT $2
     ), attempts AS (
       DELETE FROM callback_attempts WHERE delivery_id IN (SELECT id FROM doomed)
     ), deliveries AS (
       DELETE FROM callback_deliveries WHERE id IN (SELECT id FROM doomed) RETURNING 1
     )
     SELECT count(*) AS count FROM deliveries`,
    [filter.before, filter.limit],
  )
  return Number(rows[0]?.count ?? 0)
}

/**
 * Deletes up to `limit` events written before `before` that no delivery refers to any more, except each
 * order's latest event: the next event's `sequence` continues from it (`lastOrderSequence`). Test callbacks'
 * events (no order) have no such successor to keep. Returns how many went.
 */
export async function deleteUnneededEvents(db: Queryable, filter: { before: Date; limit: number }): Promise<number> {
  const rows = await db.query<{ count: number | string }>(
    `WITH doomed AS (
       SELECT e.id FROM order_events e
        WHERE e.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM callback_deliveries d WHERE d.event_id = e.id)
          AND (e.order_id IS NULL
               OR EXISTS (SELECT 1 FROM order_events later
                           WHERE later.order_id = e.order_id AND later.sequence > e.sequence))
        ORDER BY e.id LIMIT $2
     ), events AS (
       DELETE FROM order_events WHERE id IN (SELECT id FROM doomed) RETURNING 1
     )
     SELECT count(*) AS count FROM events`,
    [filter.before, filter.limit],
  )
  return Number(rows[0]?.count ?? 0)
}
