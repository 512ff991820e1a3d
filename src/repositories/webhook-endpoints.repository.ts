// SQL of webhook endpoints (webhook_endpoints, migration 0026): an environment's extra receivers with their filters,
// signing secrets and failure state. Deleted endpoints stay as rows (deliveries name them) but no query here that
// serves a merchant or the fan-out returns them.
import type { Queryable } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'
import type { MetadataFilterValue, WebhookDisabledReason, WebhookEndpoint } from '../domain/webhook-endpoints.ts'
import type { SigningSecrets } from './accounts.repository.ts'
import { countRows } from './row-counts.ts'

/** An endpoint with its signing secrets, as stored. */
export type WebhookEndpointRow = WebhookEndpoint &
  SigningSecrets & {
    current: string
    deletedAt: Date | null
    /** Where its missed events begin: set when it is disabled, kept when it is enabled again (migration 0027). */
    missedSince: Date | null
  }

const COLUMNS = `id, account_id AS "accountId", environment, url, description, event_types AS "eventTypes",
  metadata_filter AS "metadataFilter", enabled, disabled_reason AS "disabledReason", disabled_at AS "disabledAt",
  failing_since AS "failingSince", last_attempt_at AS "lastAttemptAt", last_success_at AS "lastSuccessAt",
  signing_secret AS current, previous_signing_secret AS previous,
  previous_signing_secret_expires_at AS "previousExpiresAt", created_at AS "createdAt", updated_at AS "updatedAt",
  deleted_at AS "deletedAt", missed_since AS "missedSince"`

type StoredRow = Omit<WebhookEndpointRow, 'id' | 'accountId' | 'metadataFilter'> & {
  id: number | string
  accountId: number | string
  // PGlite and pg both parse jsonb; kept as unknown until checked here.
  metadataFilter: unknown
}

function toRow(row: StoredRow): WebhookEndpointRow {
  return {
    ...row,
    id: Number(row.id),
    accountId: Number(row.accountId),
    metadataFilter: (row.metadataFilter ?? {}) as Record<string, MetadataFilterValue>,
  }
}

/** What a new endpoint is made of. */
export interface NewWebhookEndpoint {
  accountId: number
  environment: Environment
  url: string
  description: string | null
  eventTypes: readonly string[]
  metadataFilter: Readonly<Record<string, MetadataFilterValue>>
  enabled: boolean
  signingSecret: string
  at: Date
}

export async function insertWebhookEndpoint(tx: Queryable, endpoint: NewWebhookEndpoint): Promise<WebhookEndpointRow> {
  const rows = await tx.query<StoredRow>(
    `INSERT INTO webhook_endpoints (account_id, environment, url, description, event_types, metadata_filter, enabled,
                                    disabled_reason, disabled_at, signing_secret, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, CASE WHEN $7 THEN NULL ELSE 'manual' END,
             CASE WHEN $7 THEN NULL ELSE $9::timestamptz END, $8, $9, $9)
     RETURNING ${COLUMNS}`,
    [
      endpoint.accountId,
      endpoint.environment,
      endpoint.url,
      endpoint.description,
      [...endpoint.eventTypes],
      JSON.stringify(endpoint.metadataFilter),
      endpoint.enabled,
      endpoint.signingSecret,
      endpoint.at,
    ],
  )
  return toRow(rows[0] as StoredRow)
}

/** One endpoint of the account's environment, not deleted; `lock` holds its row until the transaction ends. */
export async function findWebhookEndpoint(
  db: Queryable,
  scope: { accountId: number; environment: Environment },
  id: number,
  lock = false,
): Promise<WebhookEndpointRow | undefined> {
  const rows = await db.query<StoredRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints
      WHERE id = $1 AND account_id = $2 AND environment = $3 AND deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
    [id, scope.accountId, scope.environment],
  )
  return rows[0] ? toRow(rows[0]) : undefined
}

/** An endpoint by id alone, deleted or not: what a delivery of it is signed and judged by. */
export async function findWebhookEndpointById(
  db: Queryable,
  id: number,
  lock = false,
): Promise<WebhookEndpointRow | undefined> {
  const rows = await db.query<StoredRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  )
  return rows[0] ? toRow(rows[0]) : undefined
}

/** The environment's endpoints (not deleted), oldest first; `enabledOnly` for the fan-out. */
export async function listWebhookEndpoints(
  db: Queryable,
  scope: { accountId: number; environment: Environment },
  options: { enabledOnly?: boolean } = {},
): Promise<WebhookEndpointRow[]> {
  const rows = await db.query<StoredRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints
      WHERE account_id = $1 AND environment = $2 AND deleted_at IS NULL${options.enabledOnly ? ' AND enabled' : ''}
      ORDER BY id`,
    [scope.accountId, scope.environment],
  )
  return rows.map(toRow)
}

/** How many endpoints the environment has (not deleted): what the limit counts. */
export async function countWebhookEndpoints(
  db: Queryable,
  scope: { accountId: number; environment: Environment },
): Promise<number> {
  return countRows(
    db,
    `SELECT count(*) AS count FROM webhook_endpoints
      WHERE account_id = $1 AND environment = $2 AND deleted_at IS NULL`,
    [scope.accountId, scope.environment],
  )
}

/** The fields a change may set; absent fields stay as they are. */
export interface WebhookEndpointChange {
  url?: string
  description?: string | null
  eventTypes?: readonly string[]
  metadataFilter?: Readonly<Record<string, MetadataFilterValue>>
  /** Enabled again (reason, time and failure run cleared) or disabled with a reason. */
  enabled?: { enabled: true } | { enabled: false; reason: WebhookDisabledReason }
  /** A new secret; the current one keeps signing until `previousExpiresAt`. */
  rotation?: { secret: string; previousExpiresAt: Date }
  at: Date
}

export async function updateWebhookEndpoint(
  tx: Queryable,
  id: number,
  change: WebhookEndpointChange,
): Promise<WebhookEndpointRow> {
  const sets: string[] = []
  const values: unknown[] = [id]
  const set = (column: string, value: unknown, cast = '') => {
    values.push(value)
    sets.push(`${column} = $${values.length}${cast}`)
  }
  if (change.url !== undefined) set('url', change.url)
  if (change.description !== undefined) set('description', change.description)
  if (change.eventTypes !== undefined) set('event_types', [...change.eventTypes])
  if (change.metadataFilter !== undefined) set('metadata_filter', JSON.stringify(change.metadataFilter), '::jsonb')
  if (change.enabled !== undefined) {
    set('enabled', change.enabled.enabled)
    if (change.enabled.enabled) {
      sets.push('disabled_reason = NULL', 'disabled_at = NULL', 'failing_since = NULL')
    } else {
      set('disabled_reason', change.enabled.reason)
      set('disabled_at', change.at)
      // What it misses from now on starts here, or where its failures began (redeliver-missed's default).
      sets.push(`missed_since = COALESCE(failing_since, $${values.length})`)
    }
  }
  if (change.rotation !== undefined) {
    sets.push('previous_signing_secret = signing_secret')
    set('previous_signing_secret_expires_at', change.rotation.previousExpiresAt)
    set('signing_secret', change.rotation.secret)
  }
  set('updated_at', change.at)
  const rows = await tx.query<StoredRow>(
    `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = $1 RETURNING ${COLUMNS}`,
    values,
  )
  return toRow(rows[0] as StoredRow)
}

/** Marks an endpoint deleted: it receives nothing more and leaves every listing. */
export async function deleteWebhookEndpoint(tx: Queryable, id: number, at: Date): Promise<void> {
  await tx.query('UPDATE webhook_endpoints SET deleted_at = $2, updated_at = $2 WHERE id = $1', [id, at])
}

/**
 * Records how an attempt to the endpoint went: a success ends its run of failures; a failure starts one unless one
 * is running. Returns the row as it is after (the caller decides whether the run is long enough to disable it).
 */
export async function recordWebhookAttempt(
  tx: Queryable,
  id: number,
  attempt: { succeeded: boolean; at: Date },
): Promise<WebhookEndpointRow | undefined> {
  const rows = await tx.query<StoredRow>(
    attempt.succeeded
      ? `UPDATE webhook_endpoints SET last_attempt_at = $2, last_success_at = $2, failing_since = NULL
          WHERE id = $1 RETURNING ${COLUMNS}`
      : `UPDATE webhook_endpoints SET last_attempt_at = $2, failing_since = COALESCE(failing_since, $2)
          WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, attempt.at],
  )
  return rows[0] ? toRow(rows[0]) : undefined
}

/** An endpoint the console's callbacks health lists: failing now, or disabled for failing. */
export interface FailingWebhookEndpointRow {
  id: number
  accountId: number
  accountName: string
  environment: Environment
  url: string
  enabled: boolean
  disabledReason: WebhookDisabledReason | null
  disabledAt: Date | null
  failingSince: Date | null
  lastAttemptAt: Date | null
  /** The newest failed attempt's error (`HTTP 500`, a connection error); null when none is kept. */
  lastError: string | null
  lastResponseSnippet: string | null
}

/**
 * Every account's endpoints (not deleted) that are failing (their last attempt failed) or disabled for failing,
 * the longest failing first (those disabled for failing by when they began to fail), at most `limit`.
 */
export async function listFailingWebhookEndpoints(db: Queryable, limit: number): Promise<FailingWebhookEndpointRow[]> {
  const rows = await db.query<
    Omit<FailingWebhookEndpointRow, 'id' | 'accountId'> & { id: number | string; accountId: number | string }
  >(
    `SELECT w.id, w.account_id AS "accountId", acc.name AS "accountName", w.environment, w.url, w.enabled,
            w.disabled_reason AS "disabledReason", w.disabled_at AS "disabledAt", w.failing_since AS "failingSince",
            w.last_attempt_at AS "lastAttemptAt", last_failure.error AS "lastError",
            last_failure.response_snippet AS "lastResponseSnippet"
       FROM webhook_endpoints w
       JOIN accounts acc ON acc.id = w.account_id
       LEFT JOIN LATERAL (
         SELECT coalesce(a.error, 'HTTP ' || a.http_status) AS error, a.response_snippet
           FROM callback_attempts a JOIN callback_deliveries d ON d.id = a.delivery_id
          WHERE d.webhook_id = w.id AND NOT coalesce(a.http_status BETWEEN 200 AND 299, false)
          ORDER BY a.attempted_at DESC, a.delivery_id DESC
          LIMIT 1
       ) last_failure ON true
      WHERE w.deleted_at IS NULL
        AND (w.disabled_reason = 'failing' OR (w.enabled AND w.failing_since IS NOT NULL))
      ORDER BY coalesce(w.failing_since, w.disabled_at), w.id
      LIMIT $1`,
    [limit],
  )
  return rows.map((row) => ({ ...row, id: Number(row.id), accountId: Number(row.accountId) }))
}
