// A WooCommerce store on 127.0.0.1 for tests: it serves the two REST calls printroute makes when a shipment ships
// (`PUT /wp-json/wc/v3/orders/{id}`, `POST /wp-json/wc/v3/orders/{id}/notes`), records them, checks the REST key as
// WooCommerce does over plain http (OAuth 1.0a one-legged, HMAC-SHA1 or -SHA256; HTTP Basic is refused there), can
// be told to answer 500, 429 with a Retry-After or 401 instead, and sends signed webhooks and the ping as
// WooCommerce does (shapes and sources: test/fixtures/woocommerce/README.md).
import { createHmac, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'woocommerce')

/** A fixture's raw text, as the stand-in sends it (a webhook is signed over these exact bytes). */
export function wooCommerceFixture(name: 'order-created' | 'order-deleted' | 'order-cancelled-action'): string {
  return readFileSync(join(FIXTURES, `${name}.json`), 'utf8')
}

export interface WooCommerceStandInRequest {
  method: string
  /** The path, without the query that carries the OAuth parameters. */
  path: string
  /** How the request authenticated: OAuth 1.0a in the query, HTTP Basic, or not at all. */
  auth: 'oauth' | 'basic' | 'none'
  /** Whether the key and signature were right (a wrong one is answered 401). */
  authorised: boolean
  /** The OAuth parameters of the query, the signature left out; empty without OAuth. */
  oauth: Record<string, string>
  /** The JSON body as sent; null when there was none. */
  body: unknown
  /** The raw request target, for checking that no secret travels in it. */
  rawUrl: string
}

/** An answer given instead of the normal one. */
export type WooCommerceStandInAnswer =
  | { status: 500 | 502 | 503; retryAfter?: string }
  | { status: 429; retryAfter?: string }
  | { status: 401 | 403 | 404 }
  | { status: 'hang-up' }
  /** Answer this one normally (to let a call through before a forced one). */
  | { status: 'pass' }

export interface WooCommerceStandIn {
  /** The store's address, a channel's `storeUrl`. */
  storeUrl: string
  consumerKey: string
  consumerSecret: string
  webhookSecret: string
  credentials: { kind: 'woocommerce'; storeUrl: string; consumerKey: string; consumerSecret: string }
  requests: WooCommerceStandInRequest[]
  /** Answers the next requests with these, in order, then normally again. */
  answerNext(...answers: WooCommerceStandInAnswer[]): void
  /** An order's status and the notes added to it. */
  order(id: number): { status: string; notes: { id: number; note: string; customer_note: boolean }[] } | undefined
  /** POSTs a signed webhook to `url` as WooCommerce delivers one; the body is sent exactly as given. */
  sendWebhook(
    url: string,
    webhook: { topic: string; body: string; secret?: string; deliveryId?: string; signature?: string | null },
  ): Promise<{ status: number; body: string }>
  /** POSTs the ping WooCommerce sends when a webhook is saved: `webhook_id=N`, unsigned. */
  sendPing(url: string, webhookId?: number): Promise<{ status: number; body: string }>
  close(): Promise<void>
}

// WooCommerce's own way of signing (WC_REST_Authentication::check_oauth_signature), written apart from the
// adapter's so that the two must agree: keys sorted with strcmp; each key and value rawurlencoded, joined with `=`
// and the pair rawurlencoded again (join_with_equals_sign); the pairs joined with %26.
function rawUrlEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16)}`)
}

function oauthSignature(method: string, url: string, parameters: Record<string, string>, secret: string): string {
  const keys = Object.keys(parameters).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const joined = keys
    .map((key) => rawUrlEncode(`${rawUrlEncode(key)}=${rawUrlEncode(parameters[key] ?? '')}`))
    .join('%26')
  const toSign = `${method}&${rawUrlEncode(url)}&${joined}`
  const algorithm = parameters.oauth_signature_method === 'HMAC-SHA1' ? 'sha1' : 'sha256'
  return createHmac(algorithm, `${secret}&`).update(toSign).digest('base64')
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

function wooError(response: ServerResponse, status: number, code: string, message: string, extra = {}): void {
  response
    .writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...extra })
    .end(JSON.stringify({ code, message, data: { status } }))
}

export async function startWooCommerceStandIn(
  options: { consumerKey?: string; consumerSecret?: string; webhookSecret?: string; orderIds?: number[] } = {},
): Promise<WooCommerceStandIn> {
  const consumerKey = options.consumerKey ?? 'ck_3f1b6c0e2d9a4f5b8c7d6e5f4a3b2c1d0e9f8a7b'
  const consumerSecret = options.consumerSecret ?? 'cs_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b'
  const webhookSecret = options.webhookSecret ?? 'whsec-woo-stand-in'
  const fixtureOrder = JSON.parse(wooCommerceFixture('order-created')) as Record<string, unknown>
  const orders = new Map<number, { status: string; notes: { id: number; note: string; customer_note: boolean }[] }>()
  for (const id of options.orderIds ?? [fixtureOrder.id as number]) orders.set(id, { status: 'processing', notes: [] })
  const requests: WooCommerceStandInRequest[] = []
  const queued: WooCommerceStandInAnswer[] = []
  const nonces = new Set<string>()
  let nextNoteId = 7001
  let origin = ''

  function authenticate(
    request: IncomingMessage,
    url: URL,
  ): Pick<WooCommerceStandInRequest, 'auth' | 'oauth'> & {
    error: string | null
  } {
    const query = Object.fromEntries(url.searchParams)
    if (query.oauth_signature !== undefined) {
      const { oauth_signature: given, ...oauth } = query
      const now = Math.floor(Date.now() / 1000)
      const timestamp = Number(oauth.oauth_timestamp)
      let error: string | null = null
      if (oauth.oauth_consumer_key !== consumerKey) error = 'Consumer key is invalid.'
      else if (!['HMAC-SHA1', 'HMAC-SHA256'].includes(oauth.oauth_signature_method ?? '')) {
        error = 'Invalid signature method - must be HMAC-SHA1 or HMAC-SHA256.'
      } else if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > 15 * 60) error = 'Invalid timestamp.'
      else if (!oauth.oauth_nonce || nonces.has(oauth.oauth_nonce))
        error = 'Invalid nonce - nonce has already been used.'
      else if (
        !sameText(given, oauthSignature(request.method ?? '', `${origin}${url.pathname}`, oauth, consumerSecret))
      ) {
        error = 'Invalid signature - provided signature does not match.'
      }
      if (error === null) nonces.add(oauth.oauth_nonce as string)
      return { auth: 'oauth', oauth, error }
    }
    // WooCommerce takes HTTP Basic only over https; this store is http, as a store in development would be.
    const basic = request.headers.authorization?.startsWith('Basic ') === true
    return { auth: basic ? 'basic' : 'none', oauth: {}, error: 'Sorry, you are not allowed to edit this resource.' }
  }

  // Each refusal returns what wooError returns (nothing) to end the handler there.
  function serve(request: IncomingMessage, response: ServerResponse, rawBody: string) {
    const url = new URL(request.url ?? '/', origin)
    let body: unknown = null
    try {
      body = rawBody === '' ? null : JSON.parse(rawBody)
    } catch {
      return wooError(response, 400, 'rest_invalid_json', 'Invalid JSON body passed.')
    }
    const { error, ...auth } = authenticate(request, url)
    requests.push({
      method: request.method ?? '',
      path: url.pathname,
      ...auth,
      authorised: error === null,
      body,
      rawUrl: request.url ?? '',
    })
    const next = queued.shift()
    const forced = next?.status === 'pass' ? undefined : next
    if (forced?.status === 'hang-up') return void request.socket.destroy()
    if (forced !== undefined) {
      const retryAfter = 'retryAfter' in forced && forced.retryAfter ? { 'retry-after': forced.retryAfter } : {}
      const code =
        forced.status === 429
          ? 'too_many_requests'
          : forced.status >= 500
            ? 'internal_server_error'
            : 'woocommerce_rest_cannot_edit'
      return wooError(response, forced.status, code, 'Forced by the test.', retryAfter)
    }
    if (error !== null)
      return wooError(
        response,
        401,
        auth.auth === 'oauth' ? 'woocommerce_rest_authentication_error' : 'woocommerce_rest_cannot_edit',
        error,
      )
    const match = /^\/wp-json\/wc\/v3\/orders\/(\d+)(\/notes)?$/.exec(url.pathname)
    const order = match ? orders.get(Number(match[1])) : undefined
    if (!match || order === undefined) {
      return wooError(response, 404, 'woocommerce_rest_shop_order_invalid_id', 'Invalid ID.')
    }
    const fields = (body ?? {}) as Record<string, unknown>
    if (match[2] === undefined && request.method === 'PUT') {
      if (typeof fields.status === 'string') order.status = fields.status
      response
        .writeHead(200, { 'content-type': 'application/json; charset=UTF-8' })
        .end(JSON.stringify({ ...fixtureOrder, id: Number(match[1]), status: order.status }))
      return
    }
    if (match[2] !== undefined && request.method === 'POST') {
      if (typeof fields.note !== 'string' || fields.note === '') {
        return wooError(response, 400, 'rest_missing_callback_param', 'Missing parameter(s): note')
      }
      const note = { id: nextNoteId++, note: fields.note, customer_note: fields.customer_note === true }
      order.notes.push(note)
      const created = new Date().toISOString().slice(0, 19)
      response.writeHead(201, { 'content-type': 'application/json; charset=UTF-8' }).end(
        JSON.stringify({
          author: 'shopowner',
          date_created: created,
          date_created_gmt: created,
          ...note,
        }),
      )
      return
    }
    wooError(response, 404, 'rest_no_route', 'No route was found matching the URL and request method.')
  }

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => serve(request, response, Buffer.concat(chunks).toString('utf8')))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  let webhookDeliveries = 0

  async function post(url: string, body: string, headers: Record<string, string>) {
    const answer = await fetch(url, { method: 'POST', body, headers })
    return { status: answer.status, body: await answer.text() }
  }

  return {
    storeUrl: origin,
    consumerKey,
    consumerSecret,
    webhookSecret,
    credentials: { kind: 'woocommerce', storeUrl: origin, consumerKey, consumerSecret },
    requests,
    answerNext: (...answers) => void queued.push(...answers),
    order: (id) => orders.get(id),
    sendWebhook(url, webhook) {
      const [resource = '', event = ''] = webhook.topic.split('.')
      const signature =
        webhook.signature === undefined
          ? createHmac('sha256', webhook.secret ?? webhookSecret)
              .update(webhook.body)
              .digest('base64')
          : webhook.signature
      webhookDeliveries += 1
      return post(url, webhook.body, {
        'content-type': 'application/json',
        'user-agent': 'WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)',
        'x-wc-webhook-source': `${origin}/`,
        'x-wc-webhook-topic': webhook.topic,
        'x-wc-webhook-resource': resource,
        'x-wc-webhook-event': event,
        ...(signature === null ? {} : { 'x-wc-webhook-signature': signature }),
        'x-wc-webhook-id': '12',
        'x-wc-webhook-delivery-id': webhook.deliveryId ?? `stand-in-delivery-${webhookDeliveries}`,
      })
    },
    sendPing: (url, webhookId = 12) =>
      post(url, `webhook_id=${webhookId}`, {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)',
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
