// A WooCommerce store as a StorefrontAdapter (domain/storefronts.ts): its webhooks checked and read, and a shipment
// told to it through the REST API v3 (docs/channels.md#woocommerce).
//
// The REST calls go through the safe fetcher rather than the official `@woocommerce/woocommerce-rest-api` client:
// a store URL is the merchant's to choose, so each connection must pass the same address rules as asset downloads
// and callbacks (no private addresses unless allowed, checked at connect time, no redirects followed), which the
// client's axios transport does not do; and the client's errors carry its request configuration, the consumer key
// and secret included, which would have to be scrubbed before anything reached a log. The authentication is the
// client's: HTTP Basic over https, OAuth 1.0a (HMAC-SHA256, in the query string) over http, where WooCommerce takes
// nothing else.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Recipient } from '../domain/order.ts'
import {
  type StorefrontAdapter,
  type StorefrontCredentials,
  StorefrontError,
  type StorefrontFulfilment,
  type StorefrontLineItem,
  type StorefrontOrder,
  type StorefrontTopic,
} from '../domain/storefronts.ts'
import { checkWooCommerceStoreUrl, wooCommerceApiUrl } from '../domain/woocommerce.ts'
import { createSafeFetcher, DownloadError, type PostResult } from './safe-fetcher.ts'

export { checkWooCommerceStoreUrl } from '../domain/woocommerce.ts'

type Headers = Readonly<Record<string, string | undefined>>

/** The time allowed for each REST call, connection and answer included. */
export const WOOCOMMERCE_REQUEST_TIMEOUT_MS = 30_000
/** The most line items read from one order webhook (a bigger order is refused by name, not half read). */
export const WOOCOMMERCE_MAX_LINE_ITEMS = 500

export interface WooCommerceStorefrontOptions {
  /** Lets the store URL be a private or loopback address (`--allow-private-urls`; tests' stand-in on 127.0.0.1). */
  allowPrivateAddresses: boolean
  timeoutMs?: number
  /** Seconds since the epoch, for OAuth's timestamp; default the clock. */
  nowSeconds?: () => number
}

export type WooCommerceStorefront = StorefrontAdapter & { close(): Promise<void> }

/** A header's value, whatever the case of its name (Fastify gives lower case; a test may not). */
function header(headers: Headers, name: string): string | undefined {
  const wanted = name.toLowerCase()
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value
  return undefined
}

/**
 * WooCommerce's ping when a webhook is saved: a form body `webhook_id=N` with neither topic nor signature. It must be
 * answered 200 or WooCommerce reports the delivery URL as failing; it carries nothing, so nothing is done with it.
 */
export function isWooCommercePing(rawBody: Buffer, headers: Headers): boolean {
  return (
    header(headers, 'x-wc-webhook-topic') === undefined &&
    header(headers, 'x-wc-webhook-signature') === undefined &&
    /^webhook_id=\d{1,20}$/.test(rawBody.toString('latin1'))
  )
}

/** The base64 HMAC-SHA256 of `rawBody` with `secret`: what WooCommerce puts in X-WC-Webhook-Signature. */
export function wooCommerceWebhookSignature(rawBody: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('base64')
}

function verifyWebhook(rawBody: Buffer, headers: Headers, secret: string): boolean {
  if (isWooCommercePing(rawBody, headers)) return true
  const given = header(headers, 'x-wc-webhook-signature')?.trim()
  // 32 bytes in base64: anything else cannot match, and Buffer.from would read it leniently.
  if (secret === '' || given === undefined || !/^[A-Za-z0-9+/]{43}=$/.test(given)) return false
  const expected = createHmac('sha256', secret).update(rawBody).digest()
  return timingSafeEqual(Buffer.from(given, 'base64'), expected)
}

function webhookId(headers: Headers): string | null {
  const id = header(headers, 'x-wc-webhook-delivery-id')?.trim()
  return id && id.length <= 200 ? id : null
}

/**
 * `order.created` is a new order. A cancellation arrives as `order.deleted` (the order trashed) or as the action
 * topic `action.woocommerce_order_status_cancelled` (a webhook on that action); their bodies carry only the order's
 * id (read with parseWooCommerceCancellation). Every other topic, and the ping, is 'other'.
 */
function topic(headers: Headers): StorefrontTopic {
  switch (header(headers, 'x-wc-webhook-topic')?.trim()) {
    case 'order.created':
      return 'orderCreated'
    case 'order.deleted':
    case 'action.woocommerce_order_status_cancelled':
      return 'orderCancelled'
    default:
      return 'other'
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A WooCommerce id: a positive whole number, sent as a number (a numeric string is taken too). */
function positiveId(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value)
  if (typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value)) return value
  return null
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : ''
}

function orNull(value: string): string | null {
  return value === '' ? null : value
}

function badOrder(field: string, reason: string): Error {
  return new Error(`WooCommerce order: ${field} ${reason}`)
}

function parseLineItem(value: unknown, index: number): StorefrontLineItem {
  const field = `line_items[${index}]`
  if (!isRecord(value)) throw badOrder(field, 'is not an object')
  const id = positiveId(value.id)
  if (id === null) throw badOrder(`${field}.id`, 'is missing or not a positive whole number')
  const quantity = value.quantity
  if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity <= 0) {
    throw badOrder(`${field}.quantity`, 'is missing or not a positive whole number')
  }
  // A simple product's line has variation_id 0: the product itself is the variant. A line whose product was
  // deleted has product_id 0 too, and only its SKU (if any) can link it.
  const variant = positiveId(value.variation_id) ?? positiveId(value.product_id)
  return {
    externalLineItemId: id,
    externalVariantId: variant,
    externalSku: orNull(text(value.sku)),
    title: text(value.name),
    quantity,
  }
}

function parseRecipient(shipping: unknown, billing: unknown): Recipient | null {
  const to = isRecord(shipping) ? shipping : {}
  const from = isRecord(billing) ? billing : {}
  // An order of virtual products only has an empty shipping address: nothing to send.
  if (text(to.address_1) === '' && text(to.city) === '' && text(to.country) === '') return null
  const name = [text(to.first_name), text(to.last_name)].filter((part) => part !== '').join(' ')
  return {
    name: name === '' ? text(to.company) : name,
    email: orNull(text(from.email)),
    phoneNumber: orNull(text(to.phone)) ?? orNull(text(from.phone)),
    address: {
      line1: text(to.address_1),
      line2: orNull(text(to.address_2)),
      postalOrZipCode: text(to.postcode),
      countryCode: text(to.country).toUpperCase(),
      townOrCity: text(to.city),
      stateOrCounty: orNull(text(to.state)),
    },
  }
}

/** A WooCommerce REST v3 order (an `order.created` webhook's body) in the channels service's words. */
export function parseWooCommerceOrder(body: unknown): StorefrontOrder {
  if (!isRecord(body)) throw badOrder('body', 'is not a JSON object')
  const id = positiveId(body.id)
  if (id === null) throw badOrder('id', 'is missing or not a positive whole number')
  if (!Array.isArray(body.line_items)) throw badOrder('line_items', 'is missing or not an array')
  if (body.line_items.length > WOOCOMMERCE_MAX_LINE_ITEMS) {
    throw badOrder('line_items', `has ${body.line_items.length} items, more than ${WOOCOMMERCE_MAX_LINE_ITEMS}`)
  }
  if (body.shipping !== undefined && body.shipping !== null && !isRecord(body.shipping)) {
    throw badOrder('shipping', 'is not an object')
  }
  const number = typeof body.number === 'number' ? String(body.number) : text(body.number)
  return {
    externalOrderId: id,
    name: number === '' ? id : number,
    lineItems: body.line_items.map(parseLineItem),
    recipient: parseRecipient(body.shipping, body.billing),
  }
}

/** The order id of a cancellation's body: `{id}` for `order.deleted`, `{action, arg}` for the action topic. */
export function parseWooCommerceCancellation(body: unknown): { externalOrderId: string } {
  if (!isRecord(body)) throw badOrder('body', 'is not a JSON object')
  const id = positiveId(body.id) ?? positiveId(body.arg)
  if (id === null) throw badOrder('id', 'is missing or not a positive whole number (nor is arg)')
  return { externalOrderId: id }
}

/** RFC 3986 percent-encoding, as OAuth 1.0a signs with. */
function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16)}`)
}

/**
 * `url` with OAuth 1.0a one-legged parameters in its query (WooCommerce's authentication over http): the signature
 * is HMAC-SHA256 of METHOD&URL&PARAMETERS keyed with the consumer secret and `&`. The body is not signed.
 */
export function oauthSignedUrl(
  method: string,
  url: string,
  credentials: { consumerKey: string; consumerSecret: string },
  timestampSeconds: number,
  nonce: string,
): string {
  const parameters: [string, string][] = [
    ['oauth_consumer_key', credentials.consumerKey],
    ['oauth_nonce', nonce],
    ['oauth_signature_method', 'HMAC-SHA256'],
    ['oauth_timestamp', String(timestampSeconds)],
  ]
  const normalised = parameters
    .map(([key, value]) => [percentEncode(key), percentEncode(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&')
  const base = `${method.toUpperCase()}&${percentEncode(url)}&${percentEncode(normalised)}`
  // WooCommerce keys with the secret as it is (its secrets are `cs_` and hex digits, which encoding leaves alone).
  const signature = createHmac('sha256', `${credentials.consumerSecret}&`).update(base).digest('base64')
  return `${url}?${normalised}&oauth_signature=${percentEncode(signature)}`
}

/**
 * The URL and headers of a REST call carrying the key as WooCommerce takes it: HTTP Basic over https (the key and
 * secret in the Authorization header), OAuth 1.0a over http (a signature in the query; the secret never sent).
 */
export function authorisedRequest(
  method: string,
  url: string,
  credentials: { consumerKey: string; consumerSecret: string },
  timestampSeconds: number,
  nonce: string,
): { url: string; headers: Record<string, string> } {
  if (url.startsWith('https:')) {
    const basic = Buffer.from(`${credentials.consumerKey}:${credentials.consumerSecret}`).toString('base64')
    return { url, headers: { authorization: `Basic ${basic}` } }
  }
  return { url: oauthSignedUrl(method, url, credentials, timestampSeconds, nonce), headers: {} }
}

/** Seconds to wait from a Retry-After (seconds or an HTTP date); null when there is none or it is unreadable. */
export function retryAfterSeconds(value: string | string[] | undefined, nowMs: number): number | null {
  const given = (Array.isArray(value) ? value[0] : value)?.trim()
  if (!given) return null
  if (/^\d{1,9}$/.test(given)) return Number(given)
  const at = Date.parse(given)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000))
}

/** The `code` of WooCommerce's error body (e.g. `woocommerce_rest_cannot_edit`), when it has a plain one. */
function errorCodeOf(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body)
    if (isRecord(parsed) && typeof parsed.code === 'string' && /^[\w.-]{1,80}$/.test(parsed.code)) return parsed.code
  } catch {
    // an HTML error page, or the answer's cut-off start: no code to name
  }
  return null
}

/** Why a call failed, for the channel's failure log: the store's host, the status and WooCommerce's code only. */
function answerError(what: string, host: string, answer: PostResult, nowMs: number): StorefrontError {
  const code = errorCodeOf(answer.body)
  const said = `${what}: the WooCommerce store at ${host} answered ${answer.status}${code ? ` (${code})` : ''}`
  if (answer.status === 429 || answer.status >= 500) {
    return new StorefrontError(said, true, answer.status, retryAfterSeconds(answer.headers['retry-after'], nowMs))
  }
  if (answer.status === 401 || answer.status === 403) {
    return new StorefrontError(
      `${said}: check the channel's REST API key (consumer key and secret, with Read/Write permissions)`,
      false,
      answer.status,
    )
  }
  if (answer.status >= 300 && answer.status < 400) {
    return new StorefrontError(
      `${said}, a redirect (not followed): set the channel's storeUrl to the address the store answers on`,
      false,
      answer.status,
    )
  }
  return new StorefrontError(said, false, answer.status)
}

/** The note the customer is sent: `Shipped: CARRIER NUMBER URL`, leaving out what the shipment does not have. */
export function shippedNote(tracking: StorefrontFulfilment['tracking']): string {
  const parts = [tracking.carrier, tracking.number, tracking.url].filter(
    (part): part is string => part !== null && part.trim() !== '',
  )
  return parts.length === 0 ? 'Shipped.' : `Shipped: ${parts.join(' ')}`
}

export function createWooCommerceStorefront(options: WooCommerceStorefrontOptions): WooCommerceStorefront {
  const timeoutMs = options.timeoutMs ?? WOOCOMMERCE_REQUEST_TIMEOUT_MS
  const nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000))
  const fetcher = createSafeFetcher({
    allowPrivateAddresses: options.allowPrivateAddresses,
    userAgent: 'printroute (WooCommerce channel)',
  })

  async function call(
    what: string,
    method: 'POST' | 'PUT',
    url: string,
    body: unknown,
    credentials: { consumerKey: string; consumerSecret: string },
  ): Promise<PostResult> {
    const target = new URL(url)
    const signed = authorisedRequest(method, url, credentials, nowSeconds(), randomBytes(16).toString('hex'))
    let answer: PostResult
    try {
      answer = await fetcher.post(signed.url, JSON.stringify(body), {
        method,
        headers: { accept: 'application/json', 'content-type': 'application/json', ...signed.headers },
        timeoutMs,
        maxResponseBytes: 16 * 1024,
      })
    } catch (error) {
      if (!(error instanceof DownloadError)) throw error
      // The fetcher's words name the host, never the URL (whose query holds the OAuth parameters over http).
      const permanent = error.code === 'ForbiddenAddress' || error.code === 'InvalidUrl'
      throw new StorefrontError(`${what}: ${error.message}`, !permanent)
    }
    if (answer.status < 200 || answer.status > 299) throw answerError(what, target.host, answer, nowSeconds() * 1000)
    return answer
  }

  async function fulfil(
    credentials: StorefrontCredentials,
    fulfilment: StorefrontFulfilment,
  ): Promise<{ externalFulfilmentId: string | null }> {
    if (credentials.kind !== 'woocommerce') {
      throw new StorefrontError(`a ${credentials.kind} channel's credentials were given to WooCommerce`, false)
    }
    const orderId = positiveId(fulfilment.externalOrderId)
    if (orderId === null) {
      throw new StorefrontError(`"${fulfilment.externalOrderId}" is not a WooCommerce order id`, false)
    }
    // The channel's storeUrl was checked for its environment when it was saved; this is the check every environment
    // shares (an http(s) URL without a query, which would break the OAuth signature's base URL).
    const badUrl = checkWooCommerceStoreUrl(credentials.storeUrl, 'sandbox')
    if (badUrl !== null) throw new StorefrontError(`the channel's ${badUrl}`, false)
    // Completed first, then the note: a retry after a failed note repeats a change that changes nothing (the order
    // is already completed, so WooCommerce sends no second email) rather than a note the customer was sent.
    await call(
      `marking order ${orderId} completed`,
      'PUT',
      wooCommerceApiUrl(credentials.storeUrl, `/orders/${orderId}`),
      { status: 'completed' },
      credentials,
    )
    const noted = await call(
      `adding the tracking note to order ${orderId}`,
      'POST',
      wooCommerceApiUrl(credentials.storeUrl, `/orders/${orderId}/notes`),
      { note: shippedNote(fulfilment.tracking), customer_note: true },
      credentials,
    )
    let noteId: string | null = null
    try {
      const parsed: unknown = JSON.parse(noted.body)
      noteId = isRecord(parsed) ? positiveId(parsed.id) : null
    } catch {
      // the note was made (2xx); an unreadable answer only loses its id
    }
    return { externalFulfilmentId: noteId === null ? null : `note:${noteId}` }
  }

  return {
    kind: 'woocommerce',
    verifyWebhook,
    webhookId,
    topic,
    parseOrder: parseWooCommerceOrder,
    parseCancellation: parseWooCommerceCancellation,
    fulfil,
    close: () => fetcher.close(),
  }
}
