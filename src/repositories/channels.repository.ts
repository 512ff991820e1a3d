// SQL of storefront channels (migration 0043): channels with their sealed secrets, their links, the store orders
// received, the webhooks kept for dropping redeliveries, and the fulfilment outbox with its attempts.
import type { Queryable } from '../adapters/database.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import type { ChannelApproval, ChannelApprovalMode } from '../domain/approval.ts'
import type { ChannelWebhookSubscription } from '../domain/channel-webhooks.ts'
import type { ChannelLink, ChannelOrderState, ChannelStatus } from '../domain/channels.ts'
import type { Environment } from '../domain/environment.ts'
import type { ShippingMethod, SizingMode } from '../domain/shipping-methods.ts'
import type {
  StorefrontFulfilment,
  StorefrontKind,
  StorefrontLineItem,
  StorefrontOrder,
} from '../domain/storefronts.ts'
import { countRows } from './row-counts.ts'

export interface ChannelRow {
  id: number
  accountId: number
  environment: Environment
  type: StorefrontKind
  store: string
  name: string | null
  credentialsEncrypted: string
  webhookSecretEncrypted: string
  status: ChannelStatus
  statusReason: string | null
  /** How the channel's orders are approved (migration 0044); delay hours only when delayed. */
  approvalMode: ChannelApprovalMode
  approvalDelayHours: number | null
  /** The shipping method the channel's orders are created with (migration 0048). */
  shippingMethod: ShippingMethod
  /** What printroute last did about the store's webhook subscriptions (migration 0050); null: never asked. */
  webhookSubscription: ChannelWebhookSubscription | null
  createdAt: Date
  updatedAt: Date
}

const CHANNEL_COLUMNS = `id, account_id AS "accountId", environment, type, store, name,
  credentials_encrypted AS "credentialsEncrypted", webhook_secret_encrypted AS "webhookSecretEncrypted", status,
  status_reason AS "statusReason", approval_mode AS "approvalMode", approval_delay_hours AS "approvalDelayHours",
  shipping_method AS "shippingMethod", webhook_subscription AS "webhookSubscription", created_at AS "createdAt", updated_at AS "updatedAt"`

type Numbered<T, K extends keyof T> = Omit<T, K> & { [P in K]: number | string }

function toChannel(row: Numbered<ChannelRow, 'id' | 'accountId'>): ChannelRow {
  const approvalDelayHours = row.approvalDelayHours === null ? null : Number(row.approvalDelayHours)
  return { ...row, id: Number(row.id), accountId: Number(row.accountId), approvalDelayHours }
}

export interface NewChannel {
  scope: AccountScope
  type: StorefrontKind
  store: string
  name: string | null
  credentialsEncrypted: string
  webhookSecretEncrypted: string
  /** Absent: automatic. */
  approval?: ChannelApproval
  /** Absent: Standard. */
  shippingMethod?: ShippingMethod
  at: Date
}

/** The new channel; undefined when the environment already has a live channel of that store. */
export async function insertChannel(tx: Queryable, channel: NewChannel): Promise<ChannelRow | undefined> {
  const rows = await tx.query<Numbered<ChannelRow, 'id' | 'accountId'>>(
    `INSERT INTO channels (account_id, environment, type, store, name, credentials_encrypted,
                           webhook_secret_encrypted, status, created_at, updated_at, approval_mode,
                           approval_delay_hours, shipping_method)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'active', $8, $8, $9, $10, $11)
     ON CONFLICT (account_id, environment, type, lower(store)) WHERE deleted_at IS NULL DO NOTHING
     RETURNING ${CHANNEL_COLUMNS}`,
    [
      channel.scope.accountId,
      channel.scope.environment,
      channel.type,
      channel.store,
      channel.name,
      channel.credentialsEncrypted,
      channel.webhookSecretEncrypted,
      channel.at,
      channel.approval?.mode ?? 'automatic',
      channel.approval?.delayHours ?? null,
      channel.shippingMethod ?? 'Standard',
    ],
  )
  return rows[0] && toChannel(rows[0])
}

export async function countChannels(db: Queryable, scope: AccountScope): Promise<number> {
  return countRows(
    db,
    'SELECT count(*) AS count FROM channels WHERE account_id = $1 AND environment = $2 AND deleted_at IS NULL',
    [scope.accountId, scope.environment],
  )
}

export async function listChannels(db: Queryable, scope: AccountScope): Promise<ChannelRow[]> {
  const rows = await db.query<Numbered<ChannelRow, 'id' | 'accountId'>>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE account_id = $1 AND environment = $2 AND deleted_at IS NULL
      ORDER BY id`,
    [scope.accountId, scope.environment],
  )
  return rows.map(toChannel)
}

/** The channel with this number: the caller's only when `scope` is given; deleted ones are not found. */
export async function findChannel(
  db: Queryable,
  id: number,
  scope?: AccountScope,
  forUpdate = false,
): Promise<ChannelRow | undefined> {
  const rows = await db.query<Numbered<ChannelRow, 'id' | 'accountId'>>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE id = $1 AND deleted_at IS NULL
       AND ($2::bigint IS NULL OR (account_id = $2 AND environment = $3))${forUpdate ? ' FOR UPDATE' : ''}`,
    [id, scope?.accountId ?? null, scope?.environment ?? null],
  )
  return rows[0] && toChannel(rows[0])
}

export interface ChannelChange {
  name?: string | null
  credentialsEncrypted?: string
  webhookSecretEncrypted?: string
  status?: ChannelStatus
  statusReason?: string | null
  approval?: ChannelApproval
  shippingMethod?: ShippingMethod
  at: Date
}

export async function updateChannel(tx: Queryable, id: number, change: ChannelChange): Promise<void> {
  const sets: string[] = []
  const params: unknown[] = [id, change.at]
  const set = (column: string, value: unknown) => {
    params.push(value)
    sets.push(`${column} = $${params.length}`)
  }
  if (change.name !== undefined) set('name', change.name)
  if (change.credentialsEncrypted !== undefined) set('credentials_encrypted', change.credentialsEncrypted)
  if (change.webhookSecretEncrypted !== undefined) set('webhook_secret_encrypted', change.webhookSecretEncrypted)
  if (change.status !== undefined) set('status', change.status)
  if (change.statusReason !== undefined) set('status_reason', change.statusReason)
  if (change.approval !== undefined) {
    set('approval_mode', change.approval.mode)
    set('approval_delay_hours', change.approval.delayHours ?? null)
  }
  if (change.shippingMethod !== undefined) set('shipping_method', change.shippingMethod)
  await tx.query(`UPDATE channels SET updated_at = $2${sets.map((s) => `, ${s}`).join('')} WHERE id = $1`, params)
}

/**
 * The channel shown failing because its secrets were sealed under another key than `currentFingerprint`'s, once: a
 * channel already failing for this reason, uninstalled or deleted is left as it is, and so is one whose secrets are
 * all sealed under the current key by now (a PATCH that gave them again while the caller was looking). Whether it
 * changed the channel.
 */
export async function markChannelSecretsUnreadable(
  tx: Queryable,
  id: number,
  change: { reason: string; currentFingerprint: string; at: Date },
): Promise<boolean> {
  const current = `v1.${change.currentFingerprint}.%`
  const rows = await tx.query<{ id: number | string }>(
    `UPDATE channels SET status = 'failing', status_reason = $2, updated_at = $3
      WHERE id = $1 AND deleted_at IS NULL AND status <> 'uninstalled'
        AND NOT (status = 'failing' AND status_reason IS NOT DISTINCT FROM $2)
        AND (credentials_encrypted NOT LIKE $4 OR webhook_secret_encrypted NOT LIKE $4)
      RETURNING id`,
    [id, change.reason, change.at, current],
  )
  return rows.length > 0
}

/**
 * How many channels (deleted ones aside) keep a secret sealed under another key than `currentFingerprint`'s, per
 * fingerprint named (the credentials', else the webhook secret's).
 */
export async function countChannelsSealedUnderOtherKeys(
  db: Queryable,
  currentFingerprint: string,
): Promise<{ fingerprint: string; channels: number }[]> {
  const rows = await db.query<{ fingerprint: string; channels: number | string }>(
    `SELECT CASE WHEN credentials_encrypted NOT LIKE $1 THEN split_part(credentials_encrypted, '.', 2)
                 ELSE split_part(webhook_secret_encrypted, '.', 2) END AS fingerprint,
            count(*) AS channels
       FROM channels
      WHERE deleted_at IS NULL AND (credentials_encrypted NOT LIKE $1 OR webhook_secret_encrypted NOT LIKE $1)
      GROUP BY 1 ORDER BY 1`,
    [`v1.${currentFingerprint}.%`],
  )
  return rows.map((row) => ({ fingerprint: row.fingerprint, channels: Number(row.channels) }))
}

/** Deletes the channel: its row stays (its orders name it) but nothing finds it or reaches it again. */
export async function markChannelDeleted(tx: Queryable, id: number, at: Date): Promise<void> {
  await tx.query('UPDATE channels SET deleted_at = $2, updated_at = $2 WHERE id = $1', [id, at])
}

// --- links --------------------------------------------------------------------------------------------------------

const LINK_COLUMNS = `id, external_variant_id AS "externalVariantId", external_sku AS "externalSku", sku, attributes,
  assets, sizing, ignore, created_at AS "createdAt"`

type StoredLink = Omit<ChannelLink, 'id' | 'attributes' | 'assets' | 'sizing'> & {
  id: number | string
  attributes: unknown
  assets: unknown
  sizing: string | null
}

function toLink(row: StoredLink): ChannelLink {
  return {
    ...row,
    id: Number(row.id),
    attributes: (row.attributes ?? {}) as Record<string, string>,
    assets: (row.assets ?? []) as ChannelLink['assets'],
    sizing: row.sizing as SizingMode | null,
  }
}

/** The new link, or the one it replaces (a link of the same variant or SKU is replaced whole). */
export async function upsertLink(
  tx: Queryable,
  channelId: number,
  link: Omit<ChannelLink, 'id' | 'createdAt'>,
  at: Date,
): Promise<ChannelLink> {
  await tx.query(
    `DELETE FROM channel_links WHERE channel_id = $1
       AND (external_variant_id = $2::text OR external_sku = $3::text)`,
    [channelId, link.externalVariantId, link.externalSku],
  )
  const rows = await tx.query<StoredLink>(
    `INSERT INTO channel_links (channel_id, external_variant_id, external_sku, sku, attributes, assets, sizing,
                                ignore, created_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9) RETURNING ${LINK_COLUMNS}`,
    [
      channelId,
      link.externalVariantId,
      link.externalSku,
      link.sku,
      JSON.stringify(link.attributes),
      JSON.stringify(link.assets),
      link.sizing,
      link.ignore,
      at,
    ],
  )
  return toLink(rows[0] as StoredLink)
}

export async function listLinks(db: Queryable, channelId: number): Promise<ChannelLink[]> {
  const rows = await db.query<StoredLink>(
    `SELECT ${LINK_COLUMNS} FROM channel_links WHERE channel_id = $1 ORDER BY id`,
    [channelId],
  )
  return rows.map(toLink)
}

export async function countLinks(db: Queryable, channelId: number): Promise<number> {
  return countRows(db, 'SELECT count(*) AS count FROM channel_links WHERE channel_id = $1', [channelId])
}

/** Whether a link was deleted. */
export async function deleteLink(tx: Queryable, channelId: number, linkId: number): Promise<boolean> {
  const rows = await tx.query('DELETE FROM channel_links WHERE channel_id = $1 AND id = $2 RETURNING id', [
    channelId,
    linkId,
  ])
  return rows.length > 0
}

// --- webhooks -----------------------------------------------------------------------------------------------------

export interface ChannelWebhookRow {
  id: number
  channelId: number
  webhookId: string
  topic: string
  body: string
  receivedAt: Date
  processedAt: Date | null
  result: string | null
}

/** Keeps a received webhook; undefined when one with the same delivery id was received before (a redelivery). */
export async function insertWebhook(
  tx: Queryable,
  webhook: { channelId: number; webhookId: string; topic: string; body: string; at: Date },
): Promise<number | undefined> {
  const rows = await tx.query<{ id: number | string }>(
    `INSERT INTO channel_webhooks (channel_id, webhook_id, topic, body, received_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (channel_id, webhook_id) DO NOTHING RETURNING id`,
    [webhook.channelId, webhook.webhookId, webhook.topic, webhook.body, webhook.at],
  )
  return rows[0] === undefined ? undefined : Number(rows[0].id)
}

export async function findWebhook(
  db: Queryable,
  id: number,
  forUpdate = false,
): Promise<ChannelWebhookRow | undefined> {
  const rows = await db.query<Numbered<ChannelWebhookRow, 'id' | 'channelId'>>(
    `SELECT id, channel_id AS "channelId", webhook_id AS "webhookId", topic, body, received_at AS "receivedAt",
            processed_at AS "processedAt", result
       FROM channel_webhooks WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  )
  const row = rows[0]
  return row && { ...row, id: Number(row.id), channelId: Number(row.channelId) }
}

export async function markWebhookProcessed(tx: Queryable, id: number, result: string, at: Date): Promise<void> {
  await tx.query('UPDATE channel_webhooks SET processed_at = $2, result = $3 WHERE id = $1', [id, at, result])
}

/** Deletes mapped webhooks received before `before`, a batch at a time; how many. */
export async function deleteOldWebhooks(db: Queryable, before: Date, batch: number): Promise<number> {
  const rows = await db.query(
    `DELETE FROM channel_webhooks WHERE id IN (
       SELECT id FROM channel_webhooks WHERE received_at < $1 AND processed_at IS NOT NULL LIMIT $2)
     RETURNING id`,
    [before, batch],
  )
  return rows.length
}

// --- store orders -------------------------------------------------------------------------------------------------

export interface ChannelOrderRow {
  id: number
  channelId: number
  externalOrderId: string
  name: string
  state: ChannelOrderState
  /** The printroute order's number, once created. */
  orderNumber: number | null
  unlinkedItems: StorefrontLineItem[]
  rawOrder: StorefrontOrder
  problem: string | null
  cancellation: string | null
  createdAt: Date
  updatedAt: Date
}

const ORDER_COLUMNS = `id, channel_id AS "channelId", external_order_id AS "externalOrderId", name, state,
  order_id AS "orderNumber", unlinked_items AS "unlinkedItems", raw_order AS "rawOrder", problem, cancellation,
  created_at AS "createdAt", updated_at AS "updatedAt"`

type StoredOrder = Omit<ChannelOrderRow, 'id' | 'channelId' | 'orderNumber'> & {
  id: number | string
  channelId: number | string
  orderNumber: number | string | null
}

function toChannelOrder(row: StoredOrder): ChannelOrderRow {
  return {
    ...row,
    id: Number(row.id),
    channelId: Number(row.channelId),
    orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
  }
}

export async function findChannelOrder(
  db: Queryable,
  channelId: number,
  externalOrderId: string,
  forUpdate = false,
): Promise<ChannelOrderRow | undefined> {
  const rows = await db.query<StoredOrder>(
    `SELECT ${ORDER_COLUMNS} FROM channel_orders WHERE channel_id = $1 AND external_order_id = $2${
      forUpdate ? ' FOR UPDATE' : ''
    }`,
    [channelId, externalOrderId],
  )
  return rows[0] && toChannelOrder(rows[0])
}

/** The store order a printroute order was created for; undefined for an order of no channel. */
export async function findChannelOrderOfOrder(
  db: Queryable,
  orderNumber: number,
): Promise<ChannelOrderRow | undefined> {
  const rows = await db.query<StoredOrder>(`SELECT ${ORDER_COLUMNS} FROM channel_orders WHERE order_id = $1`, [
    orderNumber,
  ])
  return rows[0] && toChannelOrder(rows[0])
}

/** The store order, inserted; undefined when the channel already has it (kept as it was). */
export async function insertChannelOrder(
  tx: Queryable,
  order: { channelId: number; rawOrder: StorefrontOrder; state: ChannelOrderState; at: Date },
): Promise<ChannelOrderRow | undefined> {
  const rows = await tx.query<StoredOrder>(
    `INSERT INTO channel_orders (channel_id, external_order_id, name, state, raw_order, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $6)
     ON CONFLICT (channel_id, external_order_id) DO NOTHING RETURNING ${ORDER_COLUMNS}`,
    [
      order.channelId,
      order.rawOrder.externalOrderId,
      order.rawOrder.name,
      order.state,
      JSON.stringify(order.rawOrder),
      order.at,
    ],
  )
  return rows[0] && toChannelOrder(rows[0])
}

export interface ChannelOrderChange {
  state?: ChannelOrderState
  orderNumber?: number | null
  unlinkedItems?: readonly StorefrontLineItem[]
  problem?: string | null
  cancellation?: string | null
  at: Date
}

export async function updateChannelOrder(tx: Queryable, id: number, change: ChannelOrderChange): Promise<void> {
  const sets: string[] = []
  const params: unknown[] = [id, change.at]
  const set = (column: string, value: unknown, cast = '') => {
    params.push(value)
    sets.push(`${column} = $${params.length}${cast}`)
  }
  if (change.state !== undefined) set('state', change.state)
  if (change.orderNumber !== undefined) set('order_id', change.orderNumber)
  if (change.unlinkedItems !== undefined) set('unlinked_items', JSON.stringify(change.unlinkedItems), '::jsonb')
  if (change.problem !== undefined) set('problem', change.problem)
  if (change.cancellation !== undefined) set('cancellation', change.cancellation)
  await tx.query(`UPDATE channel_orders SET updated_at = $2${sets.map((s) => `, ${s}`).join('')} WHERE id = $1`, params)
}

/** The channel's store orders the store cancelled, the latest cancellation first (by when it was recorded). */
export async function listCancelledOrders(db: Queryable, channelId: number, limit: number): Promise<ChannelOrderRow[]> {
  const rows = await db.query<StoredOrder>(
    `SELECT ${ORDER_COLUMNS} FROM channel_orders WHERE channel_id = $1 AND state = 'cancelled'
      ORDER BY updated_at DESC, id DESC LIMIT $2`,
    [channelId, limit],
  )
  return rows.map(toChannelOrder)
}

/** The channel's orders waiting as not connected, oldest first. */
export async function listPendingOrders(db: Queryable, channelId: number, limit: number): Promise<ChannelOrderRow[]> {
  const rows = await db.query<StoredOrder>(
    `SELECT ${ORDER_COLUMNS} FROM channel_orders WHERE channel_id = $1 AND state = 'notConnected' ORDER BY id LIMIT $2`,
    [channelId, limit],
  )
  return rows.map(toChannelOrder)
}

// --- the fulfilment outbox ----------------------------------------------------------------------------------------

export type FulfilmentStatus = 'pending' | 'delivered' | 'failed'

export interface ChannelFulfilmentRow {
  id: number
  channelId: number
  channelOrderId: number
  shipmentId: string
  fulfilment: StorefrontFulfilment
  status: FulfilmentStatus
  attempts: number
  nextAttemptAt: Date | null
  externalFulfilmentId: string | null
  createdAt: Date
  updatedAt: Date
}

export interface FulfilmentAttemptRow {
  attempt: number
  attemptedAt: Date
  httpStatus: number | null
  latencyMs: number
  error: string | null
}

const FULFILMENT_COLUMNS = `id, channel_id AS "channelId", channel_order_id AS "channelOrderId",
  shipment_id AS "shipmentId", fulfilment, status, attempts, next_attempt_at AS "nextAttemptAt",
  external_fulfilment_id AS "externalFulfilmentId", created_at AS "createdAt", updated_at AS "updatedAt"`

type StoredFulfilment = Numbered<ChannelFulfilmentRow, 'id' | 'channelId' | 'channelOrderId'>

function toFulfilment(row: StoredFulfilment): ChannelFulfilmentRow {
  return { ...row, id: Number(row.id), channelId: Number(row.channelId), channelOrderId: Number(row.channelOrderId) }
}

/** The outbox row of a shipped shipment; undefined when the shipment has one already. */
export async function insertFulfilment(
  tx: Queryable,
  fulfilment: {
    channelId: number
    channelOrderId: number
    shipmentId: string
    fulfilment: StorefrontFulfilment
    at: Date
  },
): Promise<number | undefined> {
  const rows = await tx.query<{ id: number | string }>(
    `INSERT INTO channel_fulfilments (channel_id, channel_order_id, shipment_id, fulfilment, status, next_attempt_at,
                                      created_at, updated_at)
     VALUES ($1, $2, $3, $4::jsonb, 'pending', $5, $5, $5)
     ON CONFLICT (channel_id, shipment_id) DO NOTHING RETURNING id`,
    [
      fulfilment.channelId,
      fulfilment.channelOrderId,
      fulfilment.shipmentId,
      JSON.stringify(fulfilment.fulfilment),
      fulfilment.at,
    ],
  )
  return rows[0] === undefined ? undefined : Number(rows[0].id)
}

export async function findFulfilment(
  db: Queryable,
  id: number,
  forUpdate = false,
): Promise<ChannelFulfilmentRow | undefined> {
  const rows = await db.query<StoredFulfilment>(
    `SELECT ${FULFILMENT_COLUMNS} FROM channel_fulfilments WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  )
  return rows[0] && toFulfilment(rows[0])
}

export async function updateFulfilment(
  tx: Queryable,
  id: number,
  change: {
    status: FulfilmentStatus
    attempts: number
    nextAttemptAt: Date | null
    externalFulfilmentId?: string | null
    at: Date
  },
): Promise<void> {
  await tx.query(
    `UPDATE channel_fulfilments SET status = $2, attempts = $3, next_attempt_at = $4,
            external_fulfilment_id = COALESCE($5, external_fulfilment_id), updated_at = $6 WHERE id = $1`,
    [id, change.status, change.attempts, change.nextAttemptAt, change.externalFulfilmentId ?? null, change.at],
  )
}

export async function insertFulfilmentAttempt(
  tx: Queryable,
  fulfilmentId: number,
  attempt: FulfilmentAttemptRow,
): Promise<void> {
  await tx.query(
    `INSERT INTO channel_fulfilment_attempts (fulfilment_id, attempt, attempted_at, http_status, latency_ms, error)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [fulfilmentId, attempt.attempt, attempt.attemptedAt, attempt.httpStatus, attempt.latencyMs, attempt.error],
  )
}

/** A fulfilment as the channel's list shows it: the outbox row, its store order and printroute order, its attempts. */
export type ListedFulfilment = ChannelFulfilmentRow & {
  externalOrderId: string
  orderNumber: number | null
  attemptLog: FulfilmentAttemptRow[]
}

/**
 * The channel's fulfilments, newest first, each with its store order and attempts; `beforeId`: only those older
 * than that one (the list's cursor).
 */
export async function listFulfilments(
  db: Queryable,
  channelId: number,
  limit: number,
  beforeId: number | null = null,
): Promise<ListedFulfilment[]> {
  const rows = (
    await db.query<StoredFulfilment & { externalOrderId: string; orderNumber: number | string | null }>(
      `SELECT f.id, f.channel_id AS "channelId", f.channel_order_id AS "channelOrderId", f.shipment_id AS "shipmentId",
              f.fulfilment, f.status, f.attempts, f.next_attempt_at AS "nextAttemptAt",
              f.external_fulfilment_id AS "externalFulfilmentId", f.created_at AS "createdAt",
              f.updated_at AS "updatedAt", o.external_order_id AS "externalOrderId", o.order_id AS "orderNumber"
         FROM channel_fulfilments f JOIN channel_orders o ON o.id = f.channel_order_id
        WHERE f.channel_id = $1 AND ($3::bigint IS NULL OR f.id < $3)
        ORDER BY f.id DESC LIMIT $2`,
      [channelId, limit, beforeId],
    )
  ).map((row) => ({
    ...toFulfilment(row),
    externalOrderId: row.externalOrderId,
    orderNumber: row.orderNumber === null ? null : Number(row.orderNumber),
  }))
  if (rows.length === 0) return []
  const attempts = await db.query<FulfilmentAttemptRow & { fulfilmentId: number | string }>(
    `SELECT fulfilment_id AS "fulfilmentId", attempt, attempted_at AS "attemptedAt", http_status AS "httpStatus",
            latency_ms AS "latencyMs", error
       FROM channel_fulfilment_attempts WHERE fulfilment_id = ANY($1::bigint[]) ORDER BY fulfilment_id, attempt`,
    [rows.map((row) => row.id)],
  )
  return rows.map((row) => ({
    ...row,
    attemptLog: attempts
      .filter((attempt) => Number(attempt.fulfilmentId) === row.id)
      .map(({ fulfilmentId: _, ...attempt }) => attempt),
  }))
}

/**
 * Pending fulfilments whose next attempt was due before `dueBefore` (the sweeper's), by id after `afterId`: the
 * ones whose attempt job may have been given up on by the queue.
 */
export async function listOverdueFulfilments(
  db: Queryable,
  query: { dueBefore: Date; afterId: number; limit: number },
): Promise<{ id: number; attempts: number }[]> {
  const rows = await db.query<{ id: number | string; attempts: number }>(
    `SELECT id, attempts FROM channel_fulfilments
      WHERE status = 'pending' AND next_attempt_at < $1 AND id > $2
      ORDER BY id LIMIT $3`,
    [query.dueBefore, query.afterId, query.limit],
  )
  return rows.map((row) => ({ id: Number(row.id), attempts: Number(row.attempts) }))
}

// --- the console ---------------------------------------------------------------------------------------------------

export interface ChannelAcrossAccountsRow {
  id: number
  accountId: number
  accountName: string
  environment: Environment
  type: StorefrontKind
  store: string
  name: string | null
  status: ChannelStatus
  statusReason: string | null
  notConnected: number
  failingFulfilments: number
  lastOrderAt: Date | null
}

/**
 * The live channels of every account (or of one), failing first, then by id, with their waiting orders, the
 * fulfilments the store has not taken after a failed attempt, and their last store order received.
 */
export async function listChannelsAcrossAccounts(
  db: Queryable,
  query: { accountId: number | null; limit: number },
): Promise<ChannelAcrossAccountsRow[]> {
  const rows = await db.query<
    Omit<ChannelAcrossAccountsRow, 'id' | 'accountId' | 'notConnected' | 'failingFulfilments'> & {
      id: number | string
      accountId: number | string
      notConnected: number | string
      failingFulfilments: number | string
    }
  >(
    `SELECT c.id, c.account_id AS "accountId", a.name AS "accountName", c.environment, c.type, c.store, c.name,
            c.status, c.status_reason AS "statusReason",
            (SELECT count(*) FROM channel_orders o WHERE o.channel_id = c.id AND o.state = 'notConnected')
              AS "notConnected",
            (SELECT count(*) FROM channel_fulfilments f
              WHERE f.channel_id = c.id AND (f.status = 'failed' OR (f.status = 'pending' AND f.attempts > 0)))
              AS "failingFulfilments",
            (SELECT max(o.created_at) FROM channel_orders o WHERE o.channel_id = c.id) AS "lastOrderAt"
       FROM channels c JOIN accounts a ON a.id = c.account_id
      WHERE c.deleted_at IS NULL AND ($1::bigint IS NULL OR c.account_id = $1)
      ORDER BY (c.status = 'failing') DESC, c.id
      LIMIT $2`,
    [query.accountId, query.limit],
  )
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    accountId: Number(row.accountId),
    notConnected: Number(row.notConnected),
    failingFulfilments: Number(row.failingFulfilments),
    lastOrderAt: row.lastOrderAt === null ? null : new Date(row.lastOrderAt),
  }))
}

// --- webhook subscriptions (migration 0050) ------------------------------------------------------------------------

/**
 * Starts a new subscription run of the channel: `pending`, its attempt one more than the last, what was known of its
 * topics kept. The subscription as it now is (its attempt names the run's job); undefined for a deleted channel.
 */
export async function startWebhookSubscriptionRun(
  tx: Queryable,
  channelId: number,
): Promise<ChannelWebhookSubscription | undefined> {
  const rows = await tx.query<{ subscription: ChannelWebhookSubscription }>(
    `UPDATE channels SET webhook_subscription = jsonb_build_object(
        'state', 'pending',
        'topics', COALESCE(webhook_subscription->'topics', '[]'::jsonb),
        'reason', NULL,
        'checkedAt', webhook_subscription->'checkedAt',
        'attempt', COALESCE((webhook_subscription->>'attempt')::int, 0) + 1,
        'elsewhere', '[]'::jsonb)
      WHERE id = $1 AND deleted_at IS NULL
      RETURNING webhook_subscription AS subscription`,
    [channelId],
  )
  return rows[0]?.subscription
}

/**
 * Records the outcome of run `outcome.attempt`'s try number `retry` (0: the run itself), unless a newer run was
 * started meanwhile (its own outcome is the one to show) or that try was already recorded (its retry is queued).
 */
export async function recordWebhookSubscriptionRun(
  db: Queryable,
  channelId: number,
  outcome: ChannelWebhookSubscription,
  retry = 0,
): Promise<boolean> {
  const rows = await db.query<{ id: number | string }>(
    `UPDATE channels SET webhook_subscription = $2::jsonb
      WHERE id = $1 AND (webhook_subscription->>'attempt')::int = $3
        AND COALESCE((webhook_subscription->>'retries')::int, 0) = $4 RETURNING id`,
    [channelId, JSON.stringify(outcome), outcome.attempt, retry],
  )
  return rows.length > 0
}
