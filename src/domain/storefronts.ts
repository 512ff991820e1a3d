// What printroute needs from a storefront a merchant sells on (Shopify, WooCommerce): its webhooks checked and read
// into one order shape, and the store told when a shipment ships. Each storefront is an adapter implementing
// StorefrontAdapter (adapters/shopify-storefront.ts, adapters/woocommerce-storefront.ts); the channels service only
// sees this interface, so the order mapping, the "not connected" flow and the fulfilment outbox are written once.

import type { ChannelWebhookTopic, StoreWebhookSubscription } from './channel-webhooks.ts'
import type { Recipient } from './order.ts'

export type StorefrontKind = 'shopify' | 'woocommerce'

/** The secrets and addresses a channel talks to its store with (stored encrypted; never logged). */
export type StorefrontCredentials =
  | { readonly kind: 'shopify'; readonly shopDomain: string; readonly adminAccessToken: string }
  | {
      readonly kind: 'woocommerce'
      readonly storeUrl: string
      readonly consumerKey: string
      readonly consumerSecret: string
    }

/** What a verified webhook is about, in printroute's words. */
export type StorefrontTopic = 'orderCreated' | 'orderCancelled' | 'uninstalled' | 'other'

/** One line of a storefront order, as the store identifies it. */
export interface StorefrontLineItem {
  /** The store's id of this line (Shopify line item id, WooCommerce line item id), as a string. */
  readonly externalLineItemId: string
  /** The store's variant (Shopify variant id, WooCommerce variation or product id); null when the line has none. */
  readonly externalVariantId: string | null
  /** The store's SKU of the line; null when blank. */
  readonly externalSku: string | null
  readonly title: string
  readonly quantity: number
}

/** A storefront order read from its webhook. */
export interface StorefrontOrder {
  /** The store's own id of the order, as a string (Shopify numeric id, WooCommerce id). */
  readonly externalOrderId: string
  /** The name the merchant and the customer know it by (Shopify `#1001`, WooCommerce the order number). */
  readonly name: string
  readonly lineItems: readonly StorefrontLineItem[]
  /** The shipping address; null when the order ships nothing physical. */
  readonly recipient: Recipient | null
}

/** A shipment that shipped, to be told to the store. */
export interface StorefrontFulfilment {
  readonly externalOrderId: string
  readonly lineItems: readonly { readonly externalLineItemId: string; readonly quantity: number }[]
  readonly tracking: { readonly carrier: string | null; readonly number: string | null; readonly url: string | null }
}

/** A store's API answered with an error or could not be reached. */
export class StorefrontError extends Error {
  /** 429, 5xx and network failures: try again later (the outbox's retry schedule). */
  readonly retryable: boolean
  readonly status: number | null
  /** The store's Retry-After, when it gave one. */
  readonly retryAfterSeconds: number | null

  constructor(
    message: string,
    retryable: boolean,
    status: number | null = null,
    retryAfterSeconds: number | null = null,
  ) {
    super(message)
    this.name = 'StorefrontError'
    this.retryable = retryable
    this.status = status
    this.retryAfterSeconds = retryAfterSeconds
  }
}

export interface StorefrontAdapter {
  readonly kind: StorefrontKind
  /** Whether the raw body's signature header matches the channel's webhook secret (timing-safe). */
  verifyWebhook(rawBody: Buffer, headers: Readonly<Record<string, string | undefined>>, secret: string): boolean
  /** The store's delivery id of a webhook, for dropping redeliveries; null when the store sends none. */
  webhookId(headers: Readonly<Record<string, string | undefined>>): string | null
  topic(headers: Readonly<Record<string, string | undefined>>): StorefrontTopic
  /** Reads an order webhook's body; throws an Error naming what is missing when it is not an order. */
  parseOrder(body: unknown): StorefrontOrder
  /**
   * Reads a cancellation webhook's body when it is not a whole order (WooCommerce sends only the id); absent: the
   * cancellation is read with parseOrder. Throws an Error naming what is missing.
   */
  parseCancellation?(body: unknown): { externalOrderId: string }
  /** Tells the store the items shipped, with tracking, asking it to notify the customer. */
  fulfil(
    credentials: StorefrontCredentials,
    fulfilment: StorefrontFulfilment,
  ): Promise<{ externalFulfilmentId: string | null }>
  /**
   * The app's webhook subscriptions of `topics` (a store whose webhooks printroute subscribes itself: Shopify);
   * absent: the merchant sets the store's webhooks up.
   */
  listWebhookSubscriptions?(
    credentials: StorefrontCredentials,
    topics: readonly ChannelWebhookTopic[],
  ): Promise<StoreWebhookSubscription[]>
  /** Subscribes the app to `topic`, sent to `uri`; a StorefrontError when the store refuses or fails. */
  createWebhookSubscription?(credentials: StorefrontCredentials, topic: ChannelWebhookTopic, uri: string): Promise<void>
}
