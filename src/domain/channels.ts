// Storefront channels (docs/channels.md): a store's secrets sealed at rest, the checks a new channel and a link are
// held to, and the mapping of a store order's line items through the channel's links, which decides whether the
// order is created, waits as "not connected", or is none of printroute's.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import type { Failure } from './failures.ts'
import type { SizingMode } from './shipping-methods.ts'
import type { StorefrontKind, StorefrontLineItem, StorefrontOrder } from './storefronts.ts'

export const CHANNEL_STATUSES = ['active', 'failing', 'uninstalled'] as const
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number]

export const CHANNEL_ORDER_STATES = ['created', 'notConnected', 'ignored', 'cancelled'] as const
export type ChannelOrderState = (typeof CHANNEL_ORDER_STATES)[number]

/** Limits of channels and their links (docs/channels.md#limits). */
export const CHANNEL_LIMITS = {
  /** Channels per account and environment. */
  channels: 20,
  /** Links per channel. */
  links: 5000,
  /** Assets per link. */
  assets: 10,
  /** A webhook body's bytes: larger ones are refused 413 without being stored. */
  webhookBodyBytes: 1_048_576,
  /** Secrets' and external ids' characters. */
  secretLength: 500,
  externalIdLength: 255,
  /** Pending orders one GET answers (the oldest first). */
  pendingPage: 100,
  /** Store cancellations one GET answers (the latest first). */
  cancellationsPage: 100,
} as const

/** Received webhooks are kept this long after they were mapped, for dropping redeliveries (30 days). */
export const CHANNEL_WEBHOOK_RETENTION_SECONDS = 30 * 86_400

/** A Shopify shop's own domain: `name.myshopify.com`, the only host a custom app's token works on. */
export const SHOPIFY_SHOP_DOMAIN_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/

/** The failure of a shop domain that is not `*.myshopify.com` (undefined when it is one). */
export function shopDomainFailure(shopDomain: string): Failure | undefined {
  if (SHOPIFY_SHOP_DOMAIN_PATTERN.test(shopDomain.toLowerCase())) return undefined
  return { code: 'InvalidFormat', providedValue: shopDomain, comparisonValue: 'shop-name.myshopify.com' }
}

/** The idempotency key of a store order's printroute order: the same store order never makes two. */
export function channelOrderIdempotencyKey(kind: StorefrontKind, store: string, externalOrderId: string): string {
  return `${kind}:${store.toLowerCase()}:${externalOrderId}`
}

// --- secrets at rest ---------------------------------------------------------------------------------------------

/** The 32-byte AES key of a configured key text (64 hex digits or base64 of 32 bytes); undefined when it is neither. */
export function parseChannelSecretsKey(text: string): Buffer | undefined {
  const trimmed = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex')
  const decoded = Buffer.from(trimmed, 'base64')
  return decoded.length === 32 && /^[A-Za-z0-9+/=]+$/.test(trimmed) ? decoded : undefined
}

/** A new random key, as the text the setting takes (64 hex digits). */
export function newChannelSecretsKey(): string {
  return randomBytes(32).toString('hex')
}

/** A short fingerprint of the key, stored beside the ciphertexts so a changed key is recognised, not misread. */
export function channelKeyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8)
}

/** Seals `plaintext` with AES-256-GCM: `v1.<fingerprint>.<base64 of 12-byte IV | 16-byte tag | ciphertext>`. */
export function sealSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `v1.${channelKeyFingerprint(key)}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`
}

/**
 * A sealed secret names another key's fingerprint: the channel secrets key changed since it was sealed. Not a fault
 * of the value: the merchant gives the channel's secrets again (PATCH) and they are sealed under the current key.
 */
export class SealedUnderAnotherKeyError extends Error {
  /** The fingerprint the value names (the key it was sealed under). */
  readonly sealedFingerprint: string
  /** The fingerprint of the key this process has. */
  readonly currentFingerprint: string

  constructor(sealedFingerprint: string, currentFingerprint: string) {
    super(
      `sealed under another channel secrets key (fingerprint ${sealedFingerprint}, the current key's ${currentFingerprint})`,
    )
    this.name = 'SealedUnderAnotherKeyError'
    this.sealedFingerprint = sealedFingerprint
    this.currentFingerprint = currentFingerprint
  }
}

/** A sealed secret that is no sealed value, or was altered: its key's fingerprint matches, yet it does not open. */
export class CorruptSealedSecretError extends Error {
  constructor(reason: string) {
    super(`not a readable sealed channel secret: ${reason}`)
    this.name = 'CorruptSealedSecretError'
  }
}

/**
 * Opens what sealSecret sealed. SealedUnderAnotherKeyError when it names another key's fingerprint (checked before
 * anything is decrypted); CorruptSealedSecretError when it is not a sealed value or fails its authentication tag.
 */
export function openSecret(key: Buffer, sealed: string): string {
  const [version, fingerprint, payload] = sealed.split('.')
  if (version !== 'v1' || fingerprint === undefined || payload === undefined) {
    throw new CorruptSealedSecretError('not in the v1.<fingerprint>.<payload> form')
  }
  const current = channelKeyFingerprint(key)
  if (fingerprint !== current) throw new SealedUnderAnotherKeyError(fingerprint, current)
  const bytes = Buffer.from(payload, 'base64')
  if (bytes.length < 28) throw new CorruptSealedSecretError('too short')
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
    decipher.setAuthTag(bytes.subarray(12, 28))
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
  } catch {
    throw new CorruptSealedSecretError('its authentication tag does not match')
  }
}

/** The secrets a channel of each type keeps sealed, as the create and PATCH requests name them. */
export const CHANNEL_SECRET_FIELDS = {
  shopify: ['adminAccessToken', 'webhookSecret'],
  woocommerce: ['consumerKey', 'consumerSecret', 'webhookSecret'],
} as const satisfies Record<StorefrontKind, readonly string[]>

export type ChannelSecretField = (typeof CHANNEL_SECRET_FIELDS)[StorefrontKind][number]

/**
 * The status reason of a channel whose secrets were sealed under another key, whoever noticed (a webhook or a
 * fulfilment): what the merchant must do. No fingerprint: those are for the operator's log.
 */
export function secretsUnreadableReason(kind: StorefrontKind): string {
  return (
    'the channel secrets key changed, so the stored secrets cannot be read: enter them again ' +
    `(${CHANNEL_SECRET_FIELDS[kind].join(', ')})`
  )
}

// --- links and mapping -------------------------------------------------------------------------------------------

/** A store variant or SKU and what it is in printroute: a product with its files, or ignored. */
export interface ChannelLink {
  id: number
  externalVariantId: string | null
  externalSku: string | null
  /** Null when ignored. */
  sku: string | null
  attributes: Record<string, string>
  assets: { printArea: string; url: string }[]
  sizing: SizingMode | null
  ignore: boolean
  createdAt: Date
}

/** A line item and the link that maps it. */
export interface LinkedLineItem {
  lineItem: StorefrontLineItem
  link: ChannelLink
}

/** What the channel's links make of a store order's line items. */
export interface OrderMapping {
  /** Line items mapped to a product. */
  linked: LinkedLineItem[]
  /** Line items no link names. */
  unlinked: StorefrontLineItem[]
  /** Line items linked as ignored (the store fulfils them otherwise). */
  ignored: StorefrontLineItem[]
}

/** The link of a line item: by its variant first, then by its SKU; undefined when none names it. */
export function linkOf(links: readonly ChannelLink[], lineItem: StorefrontLineItem): ChannelLink | undefined {
  const byVariant =
    lineItem.externalVariantId === null
      ? undefined
      : links.find((link) => link.externalVariantId === lineItem.externalVariantId)
  if (byVariant) return byVariant
  return lineItem.externalSku === null ? undefined : links.find((link) => link.externalSku === lineItem.externalSku)
}

export function mapOrder(order: StorefrontOrder, links: readonly ChannelLink[]): OrderMapping {
  const mapping: OrderMapping = { linked: [], unlinked: [], ignored: [] }
  for (const lineItem of order.lineItems) {
    const link = linkOf(links, lineItem)
    if (!link) mapping.unlinked.push(lineItem)
    else if (link.ignore) mapping.ignored.push(lineItem)
    else mapping.linked.push({ lineItem, link })
  }
  return mapping
}

/**
 * What becomes of a store order: created when every item is linked or ignored and one is linked; notConnected
 * when linked items sit beside unlinked ones (the merchant links or ignores them, then releases it); ignored when
 * nothing of it is linked (none of printroute's: the store fulfils it otherwise).
 */
export function mappingOutcome(mapping: OrderMapping): 'create' | 'notConnected' | 'ignored' {
  if (mapping.linked.length === 0) return 'ignored'
  return mapping.unlinked.length === 0 ? 'create' : 'notConnected'
}
