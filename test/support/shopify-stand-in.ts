// A local stand-in for a Shopify shop's Admin GraphQL API (127.0.0.1 only), serving the operations printroute uses:
// an order's `fulfillmentOrders` and `fulfillmentCreate`, the app's `webhookSubscriptions` (filtered by `topics`) and
// `webhookSubscriptionCreate` (shapes: test/fixtures/shopify/README.md). It signs
// webhooks as Shopify does (base64 HMAC-SHA256 of the raw body) and can be told to answer the next calls with an
// HTTP error (500, 429 with Retry-After) to exercise the outbox's retries.
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface StandInFulfilment {
  fulfillmentOrderId: string
  lineItems: { id: string; quantity: number }[]
  notifyCustomer: boolean
  trackingInfo: { company?: string; number?: string; url?: string }
  accessToken: string | undefined
}

/** A webhook subscription of the app, as the stand-in keeps it. */
export interface StandInWebhookSubscription {
  id: string
  topic: string
  uri: string
}

/** A failing answer with the Retry-After header it carries. */
export interface StandInFailure {
  status: number
  retryAfter: string
}

export interface ShopifyStandIn {
  /** `http://127.0.0.1:<port>`: the --shopify-api-url. */
  origin: string
  /** Line items (numeric ids) and quantities of an order (numeric id), made into one open fulfillment order. */
  addOrder(orderId: string, lineItems: { id: string; quantity: number }[]): void
  /** The next order and fulfilment calls' HTTP answers, in order, before any succeeds (e.g. [500, 429]). */
  failNext(...statuses: number[]): void
  /**
   * The same for the next webhook subscription calls (webhookSubscriptions, webhookSubscriptionCreate); a
   * `{status, retryAfter}` answers that status with that Retry-After header (a 429 otherwise says 1 second).
   */
  failNextSubscriptions(...statuses: (number | StandInFailure)[]): void
  /** Every fulfillmentCreate it accepted. */
  fulfilments: StandInFulfilment[]
  /** Every GraphQL request's HTTP status as answered. */
  answered: number[]
  /** The app's webhook subscriptions (add one to stand for a subscription made before). */
  webhookSubscriptions: StandInWebhookSubscription[]
  /** Every webhookSubscriptionCreate it accepted, with the path it came on and the token it carried. */
  subscriptionCreates: (StandInWebhookSubscription & { path: string; accessToken: string | undefined })[]
  close(): Promise<void>
}

const ORDER_FIXTURE = readFileSync(new URL('../fixtures/shopify/orders-create.json', import.meta.url), 'utf8')

/**
 * The body of an `orders/create` webhook: the fixture order with its id and name changed, and cancelled when asked
 * (as text: its line items' ids beyond 2^53 stay exact).
 */
export function shopifyOrderBody(id: string, name: string, cancelled = false): string {
  const order = JSON.parse(ORDER_FIXTURE)
  order.id = Number(id)
  order.admin_graphql_api_id = `gid://shopify/Order/${id}`
  order.name = name
  if (cancelled) order.cancelled_at = '2026-03-01T10:00:00-05:00'
  return JSON.stringify(order)
}

/** The headers Shopify sends a webhook with, its HMAC made with `secret`. */
export function shopifyWebhookHeaders(
  body: string,
  secret: string,
  topic: string,
  webhookId: string,
  shopDomain: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-shopify-topic': topic,
    'x-shopify-hmac-sha256': createHmac('sha256', secret).update(body, 'utf8').digest('base64'),
    'x-shopify-webhook-id': webhookId,
    'x-shopify-shop-domain': shopDomain,
    'x-shopify-api-version': '2026-01',
  }
}

interface OpenLine {
  id: string
  lineItemId: string
  remaining: number
}

export async function startShopifyStandIn(): Promise<ShopifyStandIn> {
  const orders = new Map<string, OpenLine[]>()
  const failures: (number | StandInFailure)[] = []
  const subscriptionFailures: (number | StandInFailure)[] = []
  const fulfilments: StandInFulfilment[] = []
  const answered: number[] = []
  const webhookSubscriptions: StandInWebhookSubscription[] = []
  const subscriptionCreates: ShopifyStandIn['subscriptionCreates'] = []
  let nextId = 1
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        answered.push(status)
        response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
      }
      if (!/^\/admin\/api\/[^/]+\/graphql\.json$/.test(request.url ?? '')) return send(404, { errors: 'Not Found' })
      const { query, variables } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        query: string
        variables: Record<string, any>
      }
      // The subscriptions' failures apart from the orders': a channel's subscription run (a job of its own) never
      // takes the failure a test meant for a fulfilment, nor the reverse.
      const failure = (/webhookSubscription/i.test(query) ? subscriptionFailures : failures).shift()
      if (typeof failure === 'object') {
        return send(failure.status, { errors: 'stand-in failure' }, { 'retry-after': failure.retryAfter })
      }
      if (failure !== undefined) {
        return send(failure, { errors: 'stand-in failure' }, failure === 429 ? { 'retry-after': '1' } : {})
      }
      if (query.includes('webhookSubscriptionCreate(')) {
        const made = {
          id: `gid://shopify/WebhookSubscription/${nextId++}`,
          topic: String(variables.topic),
          uri: String(variables.webhookSubscription?.uri),
        }
        webhookSubscriptions.push(made)
        subscriptionCreates.push({
          ...made,
          path: request.url ?? '',
          accessToken: request.headers['x-shopify-access-token'] as string | undefined,
        })
        return send(200, { data: { webhookSubscriptionCreate: { webhookSubscription: made, userErrors: [] } } })
      }
      if (query.includes('webhookSubscriptions(')) {
        const topics = variables.topics as string[] | undefined
        const nodes = webhookSubscriptions.filter((subscription) => !topics || topics.includes(subscription.topic))
        return send(200, { data: { webhookSubscriptions: { nodes } } })
      }
      if (query.includes('fulfillmentOrders')) {
        const orderId = String(variables.id).replace('gid://shopify/Order/', '')
        const lines = orders.get(orderId)
        if (!lines) return send(200, { data: { order: null } })
        return send(200, {
          data: {
            order: {
              fulfillmentOrders: {
                nodes: [
                  {
                    id: `gid://shopify/FulfillmentOrder/${orderId}`,
                    status: lines.some((line) => line.remaining > 0) ? 'OPEN' : 'CLOSED',
                    lineItems: {
                      nodes: lines.map((line) => ({
                        id: line.id,
                        remainingQuantity: line.remaining,
                        lineItem: { id: `gid://shopify/LineItem/${line.lineItemId}` },
                      })),
                    },
                  },
                ],
              },
            },
          },
        })
      }
      if (query.includes('fulfillmentCreate')) {
        const input = variables.fulfillment
        for (const group of input.lineItemsByFulfillmentOrder) {
          const orderId = String(group.fulfillmentOrderId).replace('gid://shopify/FulfillmentOrder/', '')
          for (const item of group.fulfillmentOrderLineItems) {
            const line = orders.get(orderId)?.find((candidate) => candidate.id === item.id)
            if (line) line.remaining -= item.quantity
          }
          fulfilments.push({
            fulfillmentOrderId: group.fulfillmentOrderId,
            lineItems: group.fulfillmentOrderLineItems,
            notifyCustomer: input.notifyCustomer,
            trackingInfo: input.trackingInfo,
            accessToken: request.headers['x-shopify-access-token'] as string | undefined,
          })
        }
        return send(200, {
          data: {
            fulfillmentCreate: {
              fulfillment: { id: `gid://shopify/Fulfillment/${nextId++}`, status: 'SUCCESS' },
              userErrors: [],
            },
          },
        })
      }
      return send(200, { errors: [{ message: 'unknown operation' }] })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    addOrder(orderId, lineItems) {
      orders.set(
        orderId,
        lineItems.map((item) => ({
          id: `gid://shopify/FulfillmentOrderLineItem/${item.id}`,
          lineItemId: item.id,
          remaining: item.quantity,
        })),
      )
    },
    failNext: (...statuses) => failures.push(...statuses),
    failNextSubscriptions: (...statuses) => subscriptionFailures.push(...statuses),
    fulfilments,
    answered,
    webhookSubscriptions,
    subscriptionCreates,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
