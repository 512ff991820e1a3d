// Shopify as a storefront (domain/storefronts.ts), for a custom app of the merchant's own store: webhooks checked by
// their X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the raw body under the app's webhook secret), orders read from
// the `orders/create` and `orders/cancelled` payloads, and a shipped shipment told to the store through the Admin
// GraphQL API with Shopify's own client: the order's fulfillment orders, then `fulfillmentCreate` with the tracking,
// notifying the customer; the app's webhook subscriptions listed (`webhookSubscriptions`) and created
// (`webhookSubscriptionCreate`, with `uri`, which replaced `callbackUrl` in 2025-10). `apiOrigin`
// (--shopify-api-url) replaces `https://{shopDomain}` for a stand-in.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createAdminApiClient } from '@shopify/admin-api-client'
import type { ChannelWebhookTopic, StoreWebhookSubscription } from '../domain/channel-webhooks.ts'
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

/** The Admin API version the queries are written against. */
export const SHOPIFY_API_VERSION = '2026-01'
/** How long one Admin API call may take. */
const SHOPIFY_TIMEOUT_MS = 15_000

const TOPICS: Record<string, StorefrontTopic> = {
  'orders/create': 'orderCreated',
  'orders/cancelled': 'orderCancelled',
  'app/uninstalled': 'uninstalled',
}

const FULFILLMENT_ORDERS_QUERY = `query FulfillmentOrders($id: ID!) {
  order(id: $id) {
    fulfillmentOrders(first: 20) {
      nodes { id status lineItems(first: 100) { nodes { id remainingQuantity lineItem { id } } } }
    }
  }
}`

const FULFILLMENT_CREATE_MUTATION = `mutation FulfillmentCreate($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id status }
    userErrors { field message }
  }
}`

// A channel's three topics: one page covers them (an app rarely has more than a few subscriptions per topic).
const WEBHOOK_SUBSCRIPTIONS_QUERY = `query WebhookSubscriptions($topics: [WebhookSubscriptionTopic!]) {
  webhookSubscriptions(first: 100, topics: $topics) { nodes { id topic uri } }
}`

const WEBHOOK_SUBSCRIPTION_CREATE_MUTATION = `mutation WebhookSubscriptionCreate(
  $topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!
) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id topic uri }
    userErrors { field message }
  }
}`

interface FulfillmentOrderNode {
  id: string
  status: string
  lineItems: { nodes: { id: string; remainingQuantity: number; lineItem: { id: string } }[] }
}

function header(headers: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()]
  return typeof value === 'string' ? value : undefined
}

function text(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim()
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return null
}

function readRecipient(order: Record<string, unknown>): Recipient | null {
  const address = order.shipping_address as Record<string, unknown> | null | undefined
  if (!address || typeof address !== 'object') return null
  const name =
    text(address.name) ?? ([text(address.first_name), text(address.last_name)].filter(Boolean).join(' ') || '')
  return {
    name,
    email: text(order.email) ?? text(order.contact_email),
    phoneNumber: text(address.phone) ?? text(order.phone),
    address: {
      line1: text(address.address1) ?? '',
      line2: text(address.address2),
      postalOrZipCode: text(address.zip) ?? '',
      countryCode: text(address.country_code) ?? '',
      townOrCity: text(address.city) ?? '',
      stateOrCounty: text(address.province_code) ?? text(address.province),
    },
  }
}

/**
 * A resource's numeric id, exactly: from its `admin_graphql_api_id` (`gid://shopify/Order/123`) when the payload has
 * one, since ids beyond 2^53 lose digits as JSON numbers; else the `id` field.
 */
function idOf(resource: Record<string, unknown>): string | null {
  const gid = text(resource.admin_graphql_api_id)
  const fromGid = gid?.match(/\/(\d+)$/)?.[1]
  return fromGid ?? text(resource.id)
}

function readLineItem(value: unknown, index: number): StorefrontLineItem {
  const line = value as Record<string, unknown>
  const id = line && typeof line === 'object' ? idOf(line) : null
  if (!id) throw new Error(`line_items[${index}].id is missing`)
  const quantity = Number(line.quantity)
  if (!Number.isInteger(quantity) || quantity < 1) throw new Error(`line_items[${index}].quantity is not a count`)
  return {
    externalLineItemId: id,
    externalVariantId: text(line.variant_id),
    externalSku: text(line.sku),
    title: text(line.title) ?? text(line.name) ?? '',
    quantity,
  }
}

/** Reads an `orders/create` or `orders/cancelled` payload (Shopify's REST order resource, as webhooks send it). */
export function parseShopifyOrder(body: unknown): StorefrontOrder {
  if (!body || typeof body !== 'object') throw new Error('the body is not a JSON object')
  const order = body as Record<string, unknown>
  const id = idOf(order)
  if (!id) throw new Error('id is missing')
  const lineItems = Array.isArray(order.line_items) ? order.line_items : []
  return {
    externalOrderId: id,
    name: text(order.name) ?? `#${text(order.order_number) ?? id}`,
    lineItems: lineItems.map(readLineItem),
    recipient: readRecipient(order),
  }
}

function retryAfterOf(response: Response): number | null {
  const value = response.headers.get('retry-after')
  if (value === null) return null
  const seconds = Number(value)
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : null
}

export interface ShopifyStorefrontOptions {
  /** Replaces `https://{shopDomain}` as the Admin API's origin (a stand-in); absent: the shop itself. */
  apiOrigin?: string
  /** The fetch the client uses; the global one when absent. */
  fetch?: typeof fetch
}

export function createShopifyStorefront(options: ShopifyStorefrontOptions = {}): StorefrontAdapter {
  const baseFetch = options.fetch ?? fetch
  const customFetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const target = new URL(String(url))
    const rewritten = options.apiOrigin ? new URL(`${target.pathname}${target.search}`, options.apiOrigin) : target
    return baseFetch(rewritten, { ...init, signal: AbortSignal.timeout(SHOPIFY_TIMEOUT_MS) })
  }

  async function call<T>(credentials: StorefrontCredentials, query: string, variables: Record<string, unknown>) {
    if (credentials.kind !== 'shopify') throw new StorefrontError('not a Shopify channel', false)
    const client = createAdminApiClient({
      storeDomain: credentials.shopDomain,
      apiVersion: SHOPIFY_API_VERSION,
      accessToken: credentials.adminAccessToken,
      retries: 0,
      customFetchApi: customFetch as never,
    })
    let response: Response
    try {
      response = (await client.fetch(query, { variables })) as unknown as Response
    } catch (error) {
      throw new StorefrontError(`Shopify could not be reached: ${(error as Error).message}`, true)
    }
    const status = response.status
    if (status === 429 || status >= 500) {
      throw new StorefrontError(`Shopify answered HTTP ${status}`, true, status, retryAfterOf(response))
    }
    if (status < 200 || status >= 300) {
      throw new StorefrontError(`Shopify answered HTTP ${status}`, false, status)
    }
    const body = (await response.json()) as { data?: T; errors?: { message: string; extensions?: { code?: string } }[] }
    if (body.errors && body.errors.length > 0) {
      const throttled = body.errors.some((error) => error.extensions?.code === 'THROTTLED')
      throw new StorefrontError(`Shopify: ${body.errors.map((error) => error.message).join('; ')}`, throttled, status)
    }
    if (!body.data) throw new StorefrontError('Shopify answered without data', true, status)
    return body.data
  }

  return {
    kind: 'shopify',
    verifyWebhook(rawBody, headers, secret) {
      const given = header(headers, 'x-shopify-hmac-sha256')
      if (!given) return false
      const expected = createHmac('sha256', secret).update(rawBody).digest()
      const received = Buffer.from(given, 'base64')
      return received.length === expected.length && timingSafeEqual(received, expected)
    },
    webhookId: (headers) => header(headers, 'x-shopify-webhook-id') ?? null,
    topic: (headers) => TOPICS[header(headers, 'x-shopify-topic') ?? ''] ?? 'other',
    parseOrder: parseShopifyOrder,
    async fulfil(credentials, fulfilment: StorefrontFulfilment) {
      const data = await call<{ order: { fulfillmentOrders: { nodes: FulfillmentOrderNode[] } } | null }>(
        credentials,
        FULFILLMENT_ORDERS_QUERY,
        { id: `gid://shopify/Order/${fulfilment.externalOrderId}` },
      )
      if (!data.order) throw new StorefrontError(`Shopify has no order ${fulfilment.externalOrderId}`, false, 200)
      const byFulfillmentOrder = new Map<string, { id: string; quantity: number }[]>()
      for (const wanted of fulfilment.lineItems) {
        let quantity = wanted.quantity
        for (const node of data.order.fulfillmentOrders.nodes) {
          if (node.status === 'CLOSED' || node.status === 'CANCELLED' || quantity === 0) continue
          for (const line of node.lineItems.nodes) {
            if (line.lineItem.id !== `gid://shopify/LineItem/${wanted.externalLineItemId}`) continue
            const take = Math.min(quantity, line.remainingQuantity)
            if (take <= 0) continue
            quantity -= take
            const list = byFulfillmentOrder.get(node.id) ?? []
            list.push({ id: line.id, quantity: take })
            byFulfillmentOrder.set(node.id, list)
          }
        }
      }
      // Nothing left to fulfil: an earlier attempt whose answer was lost did it (or the merchant did): not twice.
      if (byFulfillmentOrder.size === 0) return { externalFulfilmentId: null }
      const { tracking } = fulfilment
      const created = await call<{
        fulfillmentCreate: { fulfillment: { id: string } | null; userErrors: { field: string[]; message: string }[] }
      }>(credentials, FULFILLMENT_CREATE_MUTATION, {
        fulfillment: {
          lineItemsByFulfillmentOrder: [...byFulfillmentOrder].map(([fulfillmentOrderId, lines]) => ({
            fulfillmentOrderId,
            fulfillmentOrderLineItems: lines,
          })),
          notifyCustomer: true,
          trackingInfo: {
            ...(tracking.carrier ? { company: tracking.carrier } : {}),
            ...(tracking.number ? { number: tracking.number } : {}),
            ...(tracking.url ? { url: tracking.url } : {}),
          },
        },
      })
      const errors = created.fulfillmentCreate.userErrors
      if (errors.length > 0) {
        throw new StorefrontError(
          `Shopify refused the fulfilment: ${errors.map((e) => e.message).join('; ')}`,
          false,
          200,
        )
      }
      return { externalFulfilmentId: created.fulfillmentCreate.fulfillment?.id ?? null }
    },
    async listWebhookSubscriptions(credentials, topics: readonly ChannelWebhookTopic[]) {
      const data = await call<{ webhookSubscriptions: { nodes: { topic: string; uri: string | null }[] } }>(
        credentials,
        WEBHOOK_SUBSCRIPTIONS_QUERY,
        { topics },
      )
      return data.webhookSubscriptions.nodes.map(
        (node): StoreWebhookSubscription => ({ topic: node.topic, uri: node.uri ?? '' }),
      )
    },
    async createWebhookSubscription(credentials, topic, uri) {
      const created = await call<{
        webhookSubscriptionCreate: { webhookSubscription: { id: string } | null; userErrors: { message: string }[] }
      }>(credentials, WEBHOOK_SUBSCRIPTION_CREATE_MUTATION, {
        topic,
        webhookSubscription: { uri, format: 'JSON' },
      })
      const errors = created.webhookSubscriptionCreate.userErrors
      if (errors.length > 0 || !created.webhookSubscriptionCreate.webhookSubscription) {
        const reason = errors.map((error) => error.message).join('; ') || 'no subscription was made'
        throw new StorefrontError(`Shopify refused the ${topic} subscription: ${reason}`, false, 200)
      }
    },
  }
}
