// Storefront channels (docs/channels.md): a merchant's stores (Shopify, WooCommerce) whose orders come in by their
// webhooks. A webhook is checked, kept and answered at once; a job maps it: an order's line items through the
// channel's links into a printroute order (created through the orders service, idempotent by the store order), a
// "not connected" order waiting for links, a cancellation, an uninstalled app. Each store has an adapter
// (domain/storefronts.ts); this service only sees that interface. The fulfilment outbox is in
// channel-fulfilments.service.ts.
import { createHash } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import {
  AUTOMATIC_APPROVAL,
  approvalCreateFields,
  type ChannelApproval,
  checkChannelApproval,
} from '../domain/approval.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import { matchOrderItems, ORDER_PATHS } from '../domain/catalogue-matching.ts'
import {
  CHANNEL_LIMITS,
  CHANNEL_SECRET_FIELDS,
  type ChannelLink,
  type ChannelSecretField,
  type ChannelStatus,
  channelKeyFingerprint,
  channelOrderIdempotencyKey,
  mapOrder,
  mappingOutcome,
  openSecret,
  SealedUnderAnotherKeyError,
  sealSecret,
  secretsUnreadableReason,
  shopDomainFailure,
} from '../domain/channels.ts'
import type { Environment } from '../domain/environment.ts'
import { addFailure, type Failures } from '../domain/failures.ts'
import { formatId, parseId, parseRequestId } from '../domain/ids.ts'
import { jobRequest } from '../domain/jobs.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import {
  canonicalSpelling,
  SHIPPING_METHODS,
  type ShippingMethod,
  SIZING_MODES,
  type SizingMode,
} from '../domain/shipping-methods.ts'
import type {
  StorefrontAdapter,
  StorefrontCredentials,
  StorefrontKind,
  StorefrontLineItem,
  StorefrontOrder,
} from '../domain/storefronts.ts'
import { checkWooCommerceStoreUrl } from '../domain/woocommerce.ts'
import { findAccount } from '../repositories/accounts.repository.ts'
import {
  type ChannelOrderRow,
  type ChannelRow,
  countChannels,
  countChannelsSealedUnderOtherKeys,
  countLinks,
  deleteLink,
  deleteOldWebhooks,
  findChannel,
  findChannelOrder,
  findWebhook,
  insertChannel,
  insertChannelOrder,
  insertWebhook,
  listCancelledOrders,
  listChannels,
  listLinks,
  listPendingOrders,
  markChannelDeleted,
  markChannelSecretsUnreadable,
  markWebhookProcessed,
  updateChannel,
  updateChannelOrder,
  upsertLink,
} from '../repositories/channels.repository.ts'
import type { Caller } from './accounts.service.ts'
import {
  type ChannelWebhooksView,
  channelWebhooksView,
  createChannelWebhooksService,
  queueWebhookSubscription,
} from './channel-webhooks.service.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'
import type { OrderActionsService } from './order-actions.service.ts'
import type { CreateOrderInput, OrdersService } from './orders.service.ts'

/** A channel as the API shows it: its secrets never, only whether it has them. */
export interface ChannelView {
  id: string
  type: StorefrontKind
  name: string | null
  /** Shopify: the shop's myshopify.com domain. */
  shopDomain?: string
  /** WooCommerce: the store's address. */
  storeUrl?: string
  status: ChannelStatus
  statusReason: string | null
  hasAdminAccessToken?: boolean
  hasConsumerKey?: boolean
  hasConsumerSecret?: boolean
  hasWebhookSecret: boolean
  /** How the channel's orders are approved before production (docs/channels.md#approval). */
  approval: ChannelApproval
  /** The shipping method the channel's orders are created with (docs/channels.md#shipping-method). */
  shippingMethod: ShippingMethod
  /** Where the store sends its webhooks (the environment's own address). */
  webhookUrl: string
  /** Shopify: the app's webhook subscriptions, which printroute makes (channel-webhooks.service.ts). */
  webhooks?: ChannelWebhooksView
  created: string
  lastUpdated: string
}

export interface ChannelLinkView {
  id: string
  externalVariantId: string | null
  externalSku: string | null
  sku: string | null
  attributes: Record<string, string>
  assets: { printArea: string; url: string }[]
  sizing: SizingMode | null
  ignore: boolean
  created: string
}

export interface PendingOrderView {
  externalOrderId: string
  name: string
  received: string
  /** The line items no link maps yet: link or ignore each, then release the order. */
  unlinkedItems: StorefrontLineItem[]
  /** Why the order could not be created when it was last tried (a release tries again); null when it was not tried. */
  problem: string | null
}

/** A store order the store cancelled, and what printroute made of it (docs/channels.md#store-cancellations). */
export interface StoreCancellationView {
  externalOrderId: string
  /** The store's name of the order (`#1001`); its id when the cancellation came before the order. */
  name: string
  /** The printroute order the store order had become; null when none was created. */
  orderId: string | null
  /** When the cancellation was recorded. */
  cancelled: string
  /**
   * What the cancel of the printroute order answered: `ord_12: Cancelled`; `ord_12: FailedToCancel (...)` or
   * `ord_12: ActionNotAvailable (...)` with the order's stage (too far along: it goes on); or `no printroute order
   * was created`.
   */
  answer: string | null
}

/** What a create request carries (the schema lets through one shape for every type; the service checks per type). */
export interface CreateChannelInput {
  type: StorefrontKind
  name?: string | null
  shopDomain?: string
  adminAccessToken?: string
  storeUrl?: string
  consumerKey?: string
  consumerSecret?: string
  webhookSecret: string
  /** Absent: automatic. */
  approval?: { mode?: unknown; delayHours?: unknown } | null
  /** Absent: Standard. Any letter case; shown in the specification's spelling. */
  shippingMethod?: string | null
}

export type UpdateChannelInput = Partial<Omit<CreateChannelInput, 'type' | 'shopDomain' | 'storeUrl'>>

/** The approval a create or update names, checked; ValidationFailed naming `approval.*`; undefined when absent. */
function approvalOf(input: { approval?: CreateChannelInput['approval'] }): ChannelApproval | undefined {
  if (input.approval === undefined || input.approval === null) return undefined
  const failures: Failures = {}
  const approval = checkChannelApproval(input.approval, failures)
  if (!approval) throw validationFailed(failures)
  return approval
}

/** The shipping method a create or update names, checked; ValidationFailed naming it; undefined when absent. */
function shippingMethodOf(input: { shippingMethod?: string | null }): ShippingMethod | undefined {
  if (input.shippingMethod === undefined || input.shippingMethod === null) return undefined
  const method = canonicalSpelling(SHIPPING_METHODS, input.shippingMethod)
  if (!method) {
    throw validationFailed({
      shippingMethod: [
        { code: 'InvalidValue', providedValue: input.shippingMethod, validValues: [...SHIPPING_METHODS] },
      ],
    })
  }
  return method
}

export interface CreateLinkInput {
  externalVariantId?: string | null
  externalSku?: string | null
  sku?: string | null
  attributes?: Record<string, string> | null
  assets?: { printArea: string; url: string }[] | null
  sizing?: SizingMode | null
  ignore?: boolean | null
}

/** What a received webhook came to: kept (and queued), or a redelivery dropped. */
export type WebhookReceipt = 'accepted' | 'duplicate'

export interface ChannelsService {
  create(caller: Caller, input: CreateChannelInput): Promise<ChannelView>
  list(caller: Caller): Promise<ChannelView[]>
  get(caller: Caller, channelId: string): Promise<ChannelView>
  update(caller: Caller, channelId: string, input: UpdateChannelInput): Promise<ChannelView>
  /** Deletes the channel: its webhooks are refused from now on, its orders stay. */
  delete(caller: Caller, channelId: string): Promise<ChannelView>
  createLink(caller: Caller, channelId: string, input: CreateLinkInput): Promise<ChannelLinkView>
  listLinks(caller: Caller, channelId: string): Promise<ChannelLinkView[]>
  deleteLink(caller: Caller, channelId: string, linkId: number): Promise<void>
  listPending(caller: Caller, channelId: string): Promise<PendingOrderView[]>
  /** The store orders the store cancelled, the latest first, each with what the cancel of its order answered. */
  listCancellations(caller: Caller, channelId: string): Promise<StoreCancellationView[]>
  /** Creates a waiting order now that every item is linked or ignored; ValidationFailed naming those still unlinked. */
  release(caller: Caller, channelId: string, externalOrderId: string): Promise<{ orderId: string }>
  /**
   * A webhook as received: 404 for no such channel (or one of another store type), 401 for a wrong signature (nothing
   * stored), otherwise kept and its mapping queued, or dropped as a redelivery.
   */
  receiveWebhook(
    kind: StorefrontKind,
    environment: Environment,
    channelId: string,
    rawBody: Buffer,
    headers: Readonly<Record<string, string | undefined>>,
  ): Promise<WebhookReceipt>
  /** The job: maps one kept webhook (a re-run of one already mapped does nothing). */
  mapWebhook(webhookId: number): Promise<void>
  /**
   * The channels whose secrets were sealed under another channel secrets key, counted per that key's fingerprint,
   * with the current key's: what the start of a process tells the operator.
   */
  sealedUnderAnotherKey(): Promise<{ currentFingerprint: string; keys: { fingerprint: string; channels: number }[] }>
  /** Retention: deletes mapped webhooks received before `before`; how many. */
  expireWebhooks(before: Date): Promise<number>
  /** The job: one run (or automatic retry) of a Shopify channel's webhook subscriptions (channel-webhooks.service.ts). */
  subscribeWebhooks(channelId: number, attempt: number, retry?: number): Promise<void>
  /** "Subscribe again": a new run of the channel's webhook subscriptions queued; the channel, `pending`. */
  subscribeWebhooksAgain(caller: Caller, channelId: string): Promise<ChannelView>
}

export interface ChannelsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  catalogue: Catalogue
  orders: Pick<OrdersService, 'createOrder'>
  orderActions: Pick<OrderActionsService, 'cancel'>
  /** The adapter of each store type this instance takes. */
  adapters: Partial<Record<StorefrontKind, StorefrontAdapter>>
  /** The AES-256 key the stores' secrets are sealed under. */
  secretsKey: Buffer
  /** The webhook URL of a channel, on its environment's address. */
  webhookUrl: (environment: Environment, kind: StorefrontKind, channelId: string) => string
  log?: ServiceLogger
}

interface ChannelsContext extends ChannelsDeps {
  log: ServiceLogger
}

/** The shipping method of a channel that names none (docs/channels.md#shipping-method): what channels always used. */
export const CHANNEL_SHIPPING_METHOD: ShippingMethod = 'Standard'

export function createChannelsService(deps: ChannelsDeps): ChannelsService {
  const context: ChannelsContext = { ...deps, log: deps.log ?? silentLogger }
  const webhookSubscriptions = createChannelWebhooksService(context)
  return {
    create: (caller, input) => createChannel(context, caller, input),
    list: async (caller) => (await listChannels(deps.db, caller)).map((row) => toChannelView(context, row)),
    get: async (caller, channelId) => toChannelView(context, await callersChannel(context, caller, channelId)),
    update: async (caller, channelId, input) =>
      resubscribeOnNewSecrets(context, input, await updateChannelOf(context, caller, channelId, input)),
    async delete(caller, channelId) {
      const channel = await callersChannel(context, caller, channelId)
      await markChannelDeleted(deps.db, channel.id, deps.clock.now())
      return toChannelView(context, channel)
    },
    createLink: (caller, channelId, input) => createLink(context, caller, channelId, input),
    async listLinks(caller, channelId) {
      const channel = await callersChannel(context, caller, channelId)
      return (await listLinks(deps.db, channel.id)).map(toLinkView)
    },
    async deleteLink(caller, channelId, linkId) {
      const channel = await callersChannel(context, caller, channelId)
      if (!(await deleteLink(deps.db, channel.id, linkId))) {
        throw new ServiceError('EntityNotFound', `Link ${linkId} of channel ${channelId} was not found`)
      }
    },
    async listPending(caller, channelId) {
      const channel = await callersChannel(context, caller, channelId)
      const rows = await listPendingOrders(deps.db, channel.id, CHANNEL_LIMITS.pendingPage)
      return rows.map((row) => ({
        externalOrderId: row.externalOrderId,
        name: row.name,
        received: row.createdAt.toISOString(),
        unlinkedItems: row.unlinkedItems,
        problem: row.problem,
      }))
    },
    async listCancellations(caller, channelId) {
      const channel = await callersChannel(context, caller, channelId)
      const rows = await listCancelledOrders(deps.db, channel.id, CHANNEL_LIMITS.cancellationsPage)
      return rows.map((row) => ({
        externalOrderId: row.externalOrderId,
        name: row.name,
        orderId: row.orderNumber === null ? null : formatId('ord', row.orderNumber),
        cancelled: row.updatedAt.toISOString(),
        answer: row.cancellation,
      }))
    },
    release: (caller, channelId, externalOrderId) => releaseOrder(context, caller, channelId, externalOrderId),
    receiveWebhook: (kind, environment, channelId, rawBody, headers) =>
      receiveWebhook(context, { kind, environment, channelId }, rawBody, headers),
    mapWebhook: (webhookId) => mapWebhook(context, webhookId),
    expireWebhooks: (before) => deleteOldWebhooks(deps.db, before, 1000),
    async sealedUnderAnotherKey() {
      const currentFingerprint = channelKeyFingerprint(deps.secretsKey)
      return { currentFingerprint, keys: await countChannelsSealedUnderOtherKeys(deps.db, currentFingerprint) }
    },
    subscribeWebhooks: (channelId, attempt, retry = 0) => webhookSubscriptions.subscribe(channelId, attempt, retry),
    async subscribeWebhooksAgain(caller, channelId) {
      await webhookSubscriptions.subscribeAgain(caller, channelId)
      return toChannelView(context, await callersChannel(context, caller, channelId))
    },
  }
}

/**
 * New secrets of a Shopify channel (another token, or another app's secret) queue a new subscription run: the app
 * they belong to may lack the channel's subscriptions.
 */
async function resubscribeOnNewSecrets(
  context: ChannelsContext,
  input: UpdateChannelInput,
  view: ChannelView,
): Promise<ChannelView> {
  if (view.type !== 'shopify' || (!input.adminAccessToken?.trim() && !input.webhookSecret?.trim())) return view
  const channel = (await findChannel(context.db, parseId('chn', view.id) as number)) as ChannelRow
  return toChannelView(
    context,
    await context.db.transaction((tx) => queueWebhookSubscription(tx, context.jobs, channel)),
  )
}

// --- channels -----------------------------------------------------------------------------------------------------

function toChannelView(context: ChannelsContext, row: ChannelRow): ChannelView {
  const id = formatId('chn', row.id)
  const where = row.type === 'shopify' ? { shopDomain: row.store } : { storeUrl: row.store }
  const has = row.type === 'shopify' ? { hasAdminAccessToken: true } : { hasConsumerKey: true, hasConsumerSecret: true }
  return {
    id,
    type: row.type,
    name: row.name,
    ...where,
    status: row.status,
    statusReason: row.statusReason,
    ...has,
    hasWebhookSecret: true,
    approval:
      row.approvalMode === 'delayed'
        ? { mode: 'delayed', delayHours: row.approvalDelayHours ?? 1 }
        : { mode: row.approvalMode },
    shippingMethod: row.shippingMethod,
    webhookUrl: context.webhookUrl(row.environment, row.type, id),
    ...(row.webhookSubscription ? { webhooks: channelWebhooksView(row) } : {}),
    created: row.createdAt.toISOString(),
    lastUpdated: row.updatedAt.toISOString(),
  }
}

async function callersChannel(context: ChannelsContext, caller: AccountScope, channelId: string): Promise<ChannelRow> {
  const number = parseRequestId('chn', channelId, 'channelId')
  const channel = await findChannel(context.db, number, caller)
  if (!channel) throw new ServiceError('EntityNotFound', `Channel ${channelId} was not found`)
  return channel
}

/** The credentials a create request names for its type; ValidationFailed naming each missing or bad field. */
function credentialsOf(
  context: ChannelsContext,
  input: CreateChannelInput,
  environment: Environment,
): StorefrontCredentials {
  const failures: Failures = {}
  let statusText: string | undefined
  const kinds = Object.keys(context.adapters) as StorefrontKind[]
  if (!kinds.includes(input.type)) {
    addFailure(failures, 'type', { code: 'InvalidValue', providedValue: input.type, validValues: kinds })
    throw validationFailed(failures)
  }
  const required = (field: keyof CreateChannelInput): string => {
    const value = input[field]
    if (typeof value !== 'string' || value.trim() === '') {
      addFailure(failures, field, { code: 'Required', providedValue: value ?? null })
      return ''
    }
    return value.trim()
  }
  const refused = (field: keyof CreateChannelInput) => {
    if (input[field] !== undefined) addFailure(failures, field, { code: 'UnknownField', providedValue: input[field] })
  }
  let credentials: StorefrontCredentials
  if (input.type === 'shopify') {
    const shopDomain = required('shopDomain').toLowerCase()
    const failure = shopDomain === '' ? undefined : shopDomainFailure(shopDomain)
    if (failure) addFailure(failures, 'shopDomain', failure)
    credentials = { kind: 'shopify', shopDomain, adminAccessToken: required('adminAccessToken') }
    for (const field of ['storeUrl', 'consumerKey', 'consumerSecret'] as const) refused(field)
  } else {
    const storeUrl = required('storeUrl')
    const reason = storeUrl === '' ? null : checkWooCommerceStoreUrl(storeUrl, environment)
    if (reason !== null) {
      addFailure(failures, 'storeUrl', { code: 'InvalidFormat', providedValue: storeUrl, comparisonValue: reason })
      statusText = reason
    }
    credentials = {
      kind: 'woocommerce',
      storeUrl: storeUrl.replace(/\/+$/, ''),
      consumerKey: required('consumerKey'),
      consumerSecret: required('consumerSecret'),
    }
    for (const field of ['shopDomain', 'adminAccessToken'] as const) refused(field)
  }
  required('webhookSecret')
  if (Object.keys(failures).length > 0) throw validationFailed(failures, statusText)
  return credentials
}

async function createChannel(
  context: ChannelsContext,
  caller: Caller,
  input: CreateChannelInput,
): Promise<ChannelView> {
  const credentials = credentialsOf(context, input, caller.environment)
  const approval = approvalOf(input) ?? AUTOMATIC_APPROVAL
  const shippingMethod = shippingMethodOf(input) ?? CHANNEL_SHIPPING_METHOD
  const store = credentials.kind === 'shopify' ? credentials.shopDomain : credentials.storeUrl
  const key = context.secretsKey
  const row = await context.db.transaction(async (tx) => {
    if ((await countChannels(tx, caller)) >= CHANNEL_LIMITS.channels) {
      throw validationFailed({
        type: [
          { code: 'TooMany', providedValue: CHANNEL_LIMITS.channels + 1, comparisonValue: CHANNEL_LIMITS.channels },
        ],
      })
    }
    const inserted = await insertChannel(tx, {
      scope: caller,
      type: credentials.kind,
      store,
      name: input.name ?? null,
      credentialsEncrypted: sealSecret(key, JSON.stringify(credentials)),
      webhookSecretEncrypted: sealSecret(key, input.webhookSecret.trim()),
      approval,
      shippingMethod,
      at: context.clock.now(),
    })
    // The store's webhooks are subscribed by a job queued with the channel: its answer never holds up the create.
    return inserted && queueWebhookSubscription(tx, context.jobs, inserted)
  })
  if (!row) {
    const field = credentials.kind === 'shopify' ? 'shopDomain' : 'storeUrl'
    throw validationFailed(
      { [field]: [{ code: 'InvalidValue', providedValue: store }] },
      'This environment already has a channel of this store',
    )
  }
  return toChannelView(context, row)
}

async function updateChannelOf(
  context: ChannelsContext,
  caller: Caller,
  channelId: string,
  input: UpdateChannelInput,
): Promise<ChannelView> {
  const channel = await callersChannel(context, caller, channelId)
  const approval = approvalOf(input)
  const shippingMethod = shippingMethodOf(input)
  const failures: Failures = {}
  const given = (field: ChannelSecretField) => {
    const value = input[field]
    if (value === undefined || value === null) return undefined
    if (value.trim() === '') addFailure(failures, field, { code: 'MustNotBeEmptyOrWhitespace', providedValue: value })
    return value.trim()
  }
  const secrets: Partial<Record<ChannelSecretField, string>> = {}
  for (const field of CHANNEL_SECRET_FIELDS[channel.type]) {
    const value = given(field)
    if (value) secrets[field] = value
  }
  if (Object.keys(failures).length > 0) throw validationFailed(failures)
  const sealed = sealedSecretsOf(context, channel, secrets)
  const secretsChanged = sealed.credentialsEncrypted !== undefined || sealed.webhookSecretEncrypted !== undefined
  await updateChannel(context.db, channel.id, {
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(approval === undefined ? {} : { approval }),
    ...(shippingMethod === undefined ? {} : { shippingMethod }),
    ...sealed,
    // New secrets are a new start: the store is tried again as if it had never failed.
    ...(secretsChanged ? { status: 'active' as const, statusReason: null } : {}),
    at: context.clock.now(),
  })
  return toChannelView(context, (await findChannel(context.db, channel.id)) as ChannelRow)
}

/**
 * The sealed values a PATCH's secrets make, sealed under the current key: the credentials when any of theirs is
 * given, the webhook secret when it is. The stored values are opened only for what the PATCH leaves out, so a PATCH
 * that gives every secret of the channel's type works whatever key the old ones were sealed under (the way out after
 * a change of the channel secrets key). One that leaves out a secret stored under another key is ValidationFailed
 * naming each secret it must give as well; nothing is changed. The store's address is the channel's own (its row).
 */
function sealedSecretsOf(
  context: ChannelsContext,
  channel: ChannelRow,
  secrets: Partial<Record<ChannelSecretField, string>>,
): { credentialsEncrypted?: string; webhookSecretEncrypted?: string } {
  const key = context.secretsKey
  const credentialFields = CHANNEL_SECRET_FIELDS[channel.type].filter((field) => field !== 'webhookSecret')
  /** The stored value opened; null when it was sealed under another key. */
  const opened = (sealed: string): string | null => {
    try {
      return openSecret(key, sealed)
    } catch (error) {
      if (error instanceof SealedUnderAnotherKeyError) return null
      throw error
    }
  }
  // What the PATCH leaves out is read from the stored values: it must be readable under the current key.
  const credentialsNeeded = credentialFields.some((field) => secrets[field] === undefined)
  const credentialsChanged = credentialFields.some((field) => secrets[field] !== undefined)
  const storedCredentials = credentialsNeeded ? opened(channel.credentialsEncrypted) : null
  const missing: ChannelSecretField[] = []
  if (credentialsNeeded && storedCredentials === null) {
    missing.push(...credentialFields.filter((field) => secrets[field] === undefined))
  }
  if (secrets.webhookSecret === undefined && opened(channel.webhookSecretEncrypted) === null) {
    missing.push('webhookSecret')
  }
  if (missing.length > 0) {
    const failures: Failures = {}
    for (const field of missing) {
      addFailure(failures, field, {
        code: 'Required',
        providedValue: null,
        comparisonValue:
          'the stored value was sealed under another channel secrets key and cannot be read: give it again',
      })
    }
    throw validationFailed(
      failures,
      `The channel secrets key changed, so channel ${formatId('chn', channel.id)}'s stored secrets cannot be read; ` +
        `give all of them again (${CHANNEL_SECRET_FIELDS[channel.type].join(', ')})`,
    )
  }
  const sealed: { credentialsEncrypted?: string; webhookSecretEncrypted?: string } = {}
  if (credentialsChanged) {
    const old = storedCredentials === null ? undefined : (JSON.parse(storedCredentials) as StorefrontCredentials)
    const credentials: StorefrontCredentials =
      channel.type === 'shopify'
        ? {
            kind: 'shopify',
            shopDomain: channel.store,
            adminAccessToken: secrets.adminAccessToken ?? (old?.kind === 'shopify' ? old.adminAccessToken : ''),
          }
        : {
            kind: 'woocommerce',
            storeUrl: channel.store,
            consumerKey: secrets.consumerKey ?? (old?.kind === 'woocommerce' ? old.consumerKey : ''),
            consumerSecret: secrets.consumerSecret ?? (old?.kind === 'woocommerce' ? old.consumerSecret : ''),
          }
    sealed.credentialsEncrypted = sealSecret(key, JSON.stringify(credentials))
  }
  if (secrets.webhookSecret !== undefined) sealed.webhookSecretEncrypted = sealSecret(key, secrets.webhookSecret)
  return sealed
}

// --- links ----------------------------------------------------------------------------------------------------

function toLinkView(link: ChannelLink): ChannelLinkView {
  return {
    id: String(link.id),
    externalVariantId: link.externalVariantId,
    externalSku: link.externalSku,
    sku: link.sku,
    attributes: link.attributes,
    assets: link.assets,
    sizing: link.sizing,
    ignore: link.ignore,
    created: link.createdAt.toISOString(),
  }
}

/**
 * A link's product checked as create-order checks an item: the SKU known, its attributes and print areas its own.
 * The destination is not known yet, so availability is left to the order.
 */
function checkLinkProduct(context: ChannelsContext, input: CreateLinkInput, failures: Failures): void {
  const matched = matchOrderItems(
    context.catalogue,
    {
      destinationCountryCode: '',
      shippingMethod: null,
      items: [
        {
          sku: input.sku as string,
          copies: 1,
          attributes: input.attributes ?? {},
          assets: (input.assets ?? []).map((asset) => ({ printArea: asset.printArea, pageCount: null })),
        },
      ],
    },
    { ...ORDER_PATHS, countryCode: '\u0000destination' },
  )
  for (const [path, list] of Object.entries(matched.failures)) {
    if (!path.startsWith('items[0].')) continue
    for (const failure of list) {
      if (failure.code !== 'NotAvailableForDestination') addFailure(failures, path.slice('items[0].'.length), failure)
    }
  }
}

async function createLink(
  context: ChannelsContext,
  caller: Caller,
  channelId: string,
  input: CreateLinkInput,
): Promise<ChannelLinkView> {
  const channel = await callersChannel(context, caller, channelId)
  const failures: Failures = {}
  const variant = input.externalVariantId ?? null
  const externalSku = input.externalSku ?? null
  if ((variant === null) === (externalSku === null)) {
    addFailure(failures, variant === null ? 'externalVariantId' : 'externalSku', {
      code: variant === null ? 'Required' : 'InvalidValue',
      providedValue: variant ?? externalSku,
      comparisonValue: 'exactly one of externalVariantId and externalSku',
    })
  }
  const ignore = input.ignore === true
  if (!ignore) {
    if (!input.sku) addFailure(failures, 'sku', { code: 'Required', providedValue: input.sku ?? null })
    else checkLinkProduct(context, input, failures)
    if (input.sizing && !SIZING_MODES.includes(input.sizing)) {
      addFailure(failures, 'sizing', {
        code: 'InvalidValue',
        providedValue: input.sizing,
        validValues: [...SIZING_MODES],
      })
    }
  }
  if (Object.keys(failures).length > 0) throw validationFailed(failures, 'The link could not be made')
  if ((await countLinks(context.db, channel.id)) >= CHANNEL_LIMITS.links) {
    throw validationFailed({
      externalVariantId: [
        { code: 'TooMany', providedValue: CHANNEL_LIMITS.links + 1, comparisonValue: CHANNEL_LIMITS.links },
      ],
    })
  }
  const link = await upsertLink(
    context.db,
    channel.id,
    {
      externalVariantId: variant,
      externalSku,
      sku: ignore ? null : (input.sku as string),
      attributes: ignore ? {} : (input.attributes ?? {}),
      assets: ignore ? [] : (input.assets ?? []),
      sizing: ignore ? null : (input.sizing ?? null),
      ignore,
    },
    context.clock.now(),
  )
  return toLinkView(link)
}

// --- webhooks -----------------------------------------------------------------------------------------------------

async function receiveWebhook(
  context: ChannelsContext,
  { kind, environment, channelId }: { kind: StorefrontKind; environment: Environment; channelId: string },
  rawBody: Buffer,
  headers: Readonly<Record<string, string | undefined>>,
): Promise<WebhookReceipt> {
  const number = parseId('chn', channelId)
  const channel = number === undefined ? undefined : await findChannel(context.db, number)
  const adapter = context.adapters[kind]
  if (!channel || channel.type !== kind || channel.environment !== environment || !adapter) {
    throw new ServiceError('EntityNotFound', `Channel ${channelId} of type ${kind} was not found`)
  }
  const secret = await openWebhookSecret(context, channel)
  if (!adapter.verifyWebhook(rawBody, headers, secret)) {
    context.log.warn(
      { step: 'channel-webhook', channelId: formatId('chn', channel.id) },
      `webhook for channel ${formatId('chn', channel.id)} refused: its signature does not match the webhook secret`,
    )
    throw new ServiceError('Unauthorized', 'The webhook signature does not match the channel webhook secret')
  }
  // A store that sends no delivery id: the body's hash stands in, so an identical redelivery is still dropped.
  const webhookId = adapter.webhookId(headers) ?? `sha256:${createHash('sha256').update(rawBody).digest('hex')}`
  const topic = adapter.topic(headers)
  return context.db.transaction(async (tx) => {
    const id = await insertWebhook(tx, {
      channelId: channel.id,
      webhookId: webhookId.slice(0, CHANNEL_LIMITS.externalIdLength),
      topic,
      body: rawBody.toString('utf8'),
      at: context.clock.now(),
    })
    if (id === undefined) return 'duplicate'
    await context.jobs.enqueue(tx, [jobRequest('map-channel-webhook', { webhookId: id })])
    return 'accepted'
  })
}

/**
 * The channel's webhook secret. Sealed under another key (the channel secrets key changed): the signature cannot be
 * checked, so nothing is read or stored; the answer is 503, which the store retries later, while the channel shows
 * failing until the merchant gives its secrets again (PATCH). Whether the request was signed cannot be told either,
 * so an unsigned one gets the same answer.
 */
async function openWebhookSecret(context: ChannelsContext, channel: ChannelRow): Promise<string> {
  try {
    return openSecret(context.secretsKey, channel.webhookSecretEncrypted)
  } catch (error) {
    if (!(error instanceof SealedUnderAnotherKeyError)) throw error
    const channelId = formatId('chn', channel.id)
    context.log.warn(
      {
        step: 'channel-webhook',
        channelId,
        sealedKeyFingerprint: error.sealedFingerprint,
        currentKeyFingerprint: error.currentFingerprint,
      },
      `webhook for channel ${channelId} answered 503: its secrets were sealed under the channel secrets key ` +
        `${error.sealedFingerprint}, not the current ${error.currentFingerprint}; the merchant must enter them again`,
    )
    await markChannelSecretsUnreadable(context.db, channel.id, {
      reason: secretsUnreadableReason(channel.type),
      currentFingerprint: error.currentFingerprint,
      at: context.clock.now(),
    })
    throw new ServiceError(
      'ServiceUnavailable',
      `Channel ${channelId} cannot check this webhook: the channel secrets key changed, so its stored secrets must ` +
        'be entered again; send the webhook again later',
      { channelId, reason: 'ChannelSecretsUnreadable' },
    )
  }
}

async function mapWebhook(context: ChannelsContext, webhookId: number): Promise<void> {
  const webhook = await findWebhook(context.db, webhookId)
  if (!webhook || webhook.processedAt !== null) return
  const channel = await findChannel(context.db, webhook.channelId)
  const adapter = channel && context.adapters[channel.type]
  let result: string
  if (!channel || !adapter) result = 'the channel was deleted'
  else if (webhook.topic === 'uninstalled') {
    await updateChannel(context.db, channel.id, {
      status: 'uninstalled',
      statusReason: 'the store uninstalled the app',
      at: context.clock.now(),
    })
    result = 'channel uninstalled'
  } else if (webhook.topic === 'orderCreated' || webhook.topic === 'orderCancelled') {
    let order: StorefrontOrder | undefined
    try {
      order = readStoreOrder(adapter, webhook.topic, JSON.parse(webhook.body))
    } catch (error) {
      result = `not an order: ${(error as Error).message}`
    }
    if (order) {
      result =
        webhook.topic === 'orderCreated'
          ? await receiveOrder(context, channel, order)
          : await cancelStoreOrder(context, channel, order)
    } else result ??= 'not an order'
  } else result = `topic ${webhook.topic} ignored`
  await markWebhookProcessed(context.db, webhook.id, result, context.clock.now())
  context.log.info(
    { step: 'channel-webhook', channelId: formatId('chn', webhook.channelId), webhookId: webhook.webhookId },
    `channel ${formatId('chn', webhook.channelId)} webhook ${webhook.topic}: ${result}`,
  )
}

/**
 * The order a created or cancelled webhook is about. A store whose cancellation carries only the order's id
 * (WooCommerce) reads it with parseCancellation: the order stands for its id alone, which is all cancelling needs.
 */
function readStoreOrder(adapter: StorefrontAdapter, topic: string, body: unknown): StorefrontOrder {
  if (topic === 'orderCancelled' && adapter.parseCancellation) {
    const { externalOrderId } = adapter.parseCancellation(body)
    return { externalOrderId, name: externalOrderId, lineItems: [], recipient: null }
  }
  return adapter.parseOrder(body)
}

// --- store orders -------------------------------------------------------------------------------------------------

/** The caller a channel's orders are created and cancelled as: its account's, in its environment. */
async function channelCaller(context: ChannelsContext, channel: ChannelRow): Promise<Caller> {
  const account = await findAccount(context.db, channel.accountId)
  if (!account) throw new Error(`account ${channel.accountId} of channel ${channel.id} not found`)
  return {
    accountId: channel.accountId,
    environment: channel.environment,
    keyPrefix: formatId('chn', channel.id),
    via: 'key',
    pauseWindowSeconds: account.pauseWindowSeconds,
    billingCurrency: account.billingCurrency,
    priceList: account.priceList,
  }
}

async function receiveOrder(context: ChannelsContext, channel: ChannelRow, order: StorefrontOrder): Promise<string> {
  const inserted = await insertChannelOrder(context.db, {
    channelId: channel.id,
    rawOrder: order,
    state: 'notConnected',
    at: context.clock.now(),
  })
  const row = inserted ?? (await findChannelOrder(context.db, channel.id, order.externalOrderId))
  if (!row) throw new Error(`channel order ${order.externalOrderId} vanished`)
  // A redelivered order that is already created, ignored or cancelled stays so; one still waiting is tried again
  // (the job may have stopped between keeping it and creating its order: the idempotency key makes that safe).
  if (row.state !== 'notConnected') return `order ${order.name} already ${row.state}`
  const connected = await connectOrder(context, channel, row, false)
  return `order ${order.name}: ${connected.state}${connected.orderId ? ` ${connected.orderId}` : ''}`
}

/**
 * Maps a waiting store order through the channel's links as they are now and creates its printroute order when
 * every item is linked or ignored. `release`: the merchant asked, so what stands in the way is an error.
 */
async function connectOrder(
  context: ChannelsContext,
  channel: ChannelRow,
  row: ChannelOrderRow,
  release: boolean,
): Promise<{ state: string; orderId?: string }> {
  const links = await listLinks(context.db, channel.id)
  const mapping = mapOrder(row.rawOrder, links)
  const outcome = mappingOutcome(mapping)
  const at = context.clock.now()
  if (outcome !== 'create') {
    if (release) {
      const failures: Failures = {}
      for (const item of mapping.unlinked) {
        addFailure(failures, `lineItems.${item.externalLineItemId}`, {
          code: 'Required',
          providedValue: item.externalVariantId ?? item.externalSku,
          comparisonValue: 'a link (or a link with ignore: true) for this variant or SKU',
        })
      }
      if (mapping.linked.length === 0) {
        addFailure(failures, 'externalOrderId', { code: 'InvalidValue', providedValue: row.externalOrderId })
      }
      throw validationFailed(failures, 'The order cannot be released until every item is linked or ignored')
    }
    const state = outcome === 'ignored' ? 'ignored' : 'notConnected'
    await updateChannelOrder(context.db, row.id, { state, unlinkedItems: mapping.unlinked, at })
    return { state }
  }
  try {
    const orderId = await createConnectedOrder(context, channel, row.rawOrder, mapping.linked)
    await updateChannelOrder(context.db, row.id, {
      state: 'created',
      orderNumber: parseId('ord', orderId) ?? null,
      unlinkedItems: [],
      problem: null,
      at,
    })
    return { state: 'created', orderId }
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error
    await updateChannelOrder(context.db, row.id, { unlinkedItems: [], problem: error.message, at })
    if (release) throw error
    return { state: `notConnected (${error.message})` }
  }
}

/**
 * The one place a store order becomes a printroute order, from its linked items, under the channel's approval as it
 * is when the order is created (a released "not connected" order too): automatic creates it plainly, delayed held
 * before production until now + delayHours (its own holdUntil), manual as a draft the merchant confirms.
 */
async function createConnectedOrder(
  context: ChannelsContext,
  channel: ChannelRow,
  order: StorefrontOrder,
  linked: ReturnType<typeof mapOrder>['linked'],
): Promise<string> {
  if (!order.recipient) {
    throw validationFailed(
      { recipient: [{ code: 'Required', providedValue: null }] },
      'The store order has no shipping address',
    )
  }
  const { recipient } = order
  const input: CreateOrderInput = {
    merchantReference: order.name,
    // The channel's setting, whatever the store order's own shipping line says (docs/channels.md#shipping-method).
    shippingMethod: channel.shippingMethod,
    idempotencyKey: channelOrderIdempotencyKey(channel.type, channel.store, order.externalOrderId),
    recipient: {
      name: recipient.name,
      email: recipient.email,
      phoneNumber: recipient.phoneNumber,
      address: recipient.address,
    },
    items: linked.map(({ lineItem, link }) => ({
      // The store's line item id: the fulfilment outbox tells the store which of its lines shipped.
      merchantReference: lineItem.externalLineItemId,
      sku: link.sku as string,
      copies: lineItem.quantity,
      sizing: link.sizing ?? 'fillPrintArea',
      attributes: link.attributes,
      assets: link.assets.map((asset) => ({ printArea: asset.printArea, url: asset.url })),
    })),
    metadata: {
      channelId: formatId('chn', channel.id),
      channelType: channel.type,
      externalOrderId: order.externalOrderId,
    },
    ...approvalCreateFields(
      { mode: channel.approvalMode, ...(channel.approvalDelayHours ? { delayHours: channel.approvalDelayHours } : {}) },
      context.clock.now(),
    ),
  }
  const created = await context.orders.createOrder(await channelCaller(context, channel), input)
  if ('orderJson' in created) return (JSON.parse(created.orderJson) as { id: string }).id
  return created.onHold.id
}

async function releaseOrder(
  context: ChannelsContext,
  caller: Caller,
  channelId: string,
  externalOrderId: string,
): Promise<{ orderId: string }> {
  const channel = await callersChannel(context, caller, channelId)
  const row = await findChannelOrder(context.db, channel.id, externalOrderId)
  if (row?.state !== 'notConnected') {
    throw new ServiceError('EntityNotFound', `No order ${externalOrderId} of channel ${channelId} is waiting`)
  }
  const connected = await connectOrder(context, channel, row, true)
  return { orderId: connected.orderId as string }
}

async function cancelStoreOrder(
  context: ChannelsContext,
  channel: ChannelRow,
  order: StorefrontOrder,
): Promise<string> {
  const at = context.clock.now()
  // A cancellation that arrives before its order is kept as cancelled, so the late order is never created.
  await insertChannelOrder(context.db, { channelId: channel.id, rawOrder: order, state: 'cancelled', at })
  const row = await findChannelOrder(context.db, channel.id, order.externalOrderId)
  if (!row) throw new Error(`channel order ${order.externalOrderId} vanished`)
  if (row.state === 'cancelled' && row.cancellation !== null) return `order ${order.name} already cancelled`
  let answer = 'no printroute order was created'
  if (row.orderNumber !== null) {
    const orderId = formatId('ord', row.orderNumber)
    try {
      const result = await context.orderActions.cancel(await channelCaller(context, channel), orderId)
      // A refusal says how far the order had gone, so the merchant sees why it goes on.
      const stage = (JSON.parse(result.orderJson) as { status?: { stage?: string } }).status?.stage
      answer =
        result.outcome === 'Cancelled'
          ? `${orderId}: Cancelled`
          : `${orderId}: ${result.outcome} (stage ${stage ?? 'unknown'}: too far along to cancel; it goes on)`
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error
      answer = `${orderId}: ${error.outcome}: ${error.message}`
    }
  }
  await updateChannelOrder(context.db, row.id, { state: 'cancelled', cancellation: answer, at })
  return `order ${order.name} cancelled (${answer})`
}
