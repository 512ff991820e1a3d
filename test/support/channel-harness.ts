// What every storefront channel test sets up (docs/channels.md): a store's local stand-in, an image server, the
// test application (told where the stand-in is), the pipeline driver, and the requests the tests make of channels:
// a JSON POST or PATCH with the account's Live key, a channel created (201 asserted), the kept webhooks mapped as
// their jobs would, and the store order row of an external order id.
import assert from 'node:assert/strict'
import type { TestDatabaseKind } from './databases.ts'
import { type ImageServer, startImageServer } from './image-server.ts'
import { type PipelineDriver, pipelineDriver } from './pipeline-driver.ts'
import { type ShopifyStandIn, shopifyOrderBody, shopifyWebhookHeaders } from './shopify-stand-in.ts'
import { json, startTestApp, type TestApp, type TestAppOptions } from './test-app.ts'

export interface ChannelHarness<Store> {
  t: TestApp
  store: Store
  images: ImageServer
  drive: PipelineDriver
  /** A JSON request to the Live port with the account's Live key. */
  send(method: 'POST' | 'PATCH', url: string, payload?: unknown): ReturnType<TestApp['live']>
  post(url: string, payload?: unknown): ReturnType<TestApp['live']>
  /** POST /v4.0/channels, asserting 201: the channel answered. */
  createChannel(body: Record<string, unknown>): Promise<Record<string, any>>
  /** Runs the mapping job of every webhook kept and not yet mapped, as its job would. */
  mapWebhooks(): Promise<void>
  /** The store order row of an external order id (its state, printroute order number and cancellation). */
  channelOrder(
    externalOrderId: string,
  ): Promise<{ state: string; orderId: string | null; cancellation: string | null } | undefined>
  close(): Promise<void>
}

/** Starts the stand-in, the images and the app (`appOptions` may name the stand-in's address). */
export async function startChannelHarness<Store extends { close(): Promise<void> }>(
  kind: TestDatabaseKind,
  startStore: () => Promise<Store>,
  appOptions: (store: Store) => TestAppOptions = () => ({}),
): Promise<ChannelHarness<Store>> {
  const store = await startStore()
  const images = await startImageServer()
  const t = await startTestApp({ kind, ...appOptions(store) })
  const send = (method: 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t.live({ method, url, headers: { 'content-type': 'application/json' }, payload: payload as object })
  return {
    t,
    store,
    images,
    drive: pipelineDriver(t),
    send,
    post: (url, payload) => send('POST', url, payload),
    async createChannel(body) {
      const response = await send('POST', '/v4.0/channels', body)
      assert.equal(response.statusCode, 201, response.body)
      return json(response).channel
    },
    async mapWebhooks() {
      const rows = await t.database.db.query<{ id: number | string }>(
        'SELECT id FROM channel_webhooks WHERE processed_at IS NULL ORDER BY id',
      )
      for (const row of rows) await t.app.services.channels.mapWebhook(Number(row.id))
    },
    async channelOrder(externalOrderId) {
      const rows = await t.database.db.query<{ state: string; orderId: string | null; cancellation: string | null }>(
        `SELECT state, order_id AS "orderId", cancellation FROM channel_orders WHERE external_order_id = $1`,
        [externalOrderId],
      )
      return rows[0]
    },
    async close() {
      await t.close()
      await store.close()
      await images.close()
    },
  }
}

/**
 * A Shopify store order received by its signed `orders/create` webhook (webhook id `wh-<id>`), created (asserted),
 * given one fulfillment order of `lineItem` at the stand-in, and its one shipment driven to shipped: its printroute
 * order id and its fulfilment's number in the outbox.
 */
export async function shipShopifyStoreOrder(
  h: ChannelHarness<ShopifyStandIn>,
  order: {
    channelId: string
    shop: string
    webhookSecret: string
    externalOrderId: string
    name: string
    lineItem: string
  },
): Promise<{ orderId: string; fulfilmentId: number }> {
  const { externalOrderId } = order
  const body = shopifyOrderBody(externalOrderId, order.name)
  const received = await h.t.app.live.inject({
    method: 'POST',
    url: `/channels/v1/${order.channelId}/shopify`,
    headers: shopifyWebhookHeaders(body, order.webhookSecret, 'orders/create', `wh-${externalOrderId}`, order.shop),
    payload: body,
  })
  assert.equal(received.statusCode, 200, received.body)
  await h.mapWebhooks()
  const row = await h.channelOrder(externalOrderId)
  assert.equal(row?.state, 'created')
  const orderId = `ord_${row?.orderId}`
  h.store.addOrder(externalOrderId, [{ id: order.lineItem, quantity: 1 }])
  await h.drive.allocate(orderId)
  await h.drive.render(orderId)
  await h.drive.submit(orderId)
  await h.drive.ship(orderId)
  const [outbox] = await h.t.database.db.query<{ id: number | string }>(
    `SELECT f.id FROM channel_fulfilments f JOIN channel_orders o ON o.id = f.channel_order_id
      WHERE o.external_order_id = $1`,
    [externalOrderId],
  )
  assert.ok(outbox, 'the shipped shipment has its outbox row')
  return { orderId, fulfilmentId: Number(outbox.id) }
}
