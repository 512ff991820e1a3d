-- printroute schema, version 43: storefront channels (docs/channels.md). A channel is one store (Shopify,
-- WooCommerce) an environment takes orders from: its webhooks are received and kept, their orders mapped through
-- the channel's links into printroute orders, and each shipment that ships is told back to the store through an
-- outbox with retries and an attempt log.

-- One store of an account's environment. The store's secrets are AES-256-GCM ciphertexts (domain/channels.ts:
-- base64 of IV, tag and ciphertext) under the channel secrets key; the database never holds them in clear.
CREATE TABLE channels (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  type text NOT NULL CHECK (type IN ('shopify', 'woocommerce')),
  -- The shop domain (Shopify, shop.myshopify.com) or the store URL (WooCommerce).
  store text NOT NULL,
  name text,
  -- The store's credentials (StorefrontCredentials as JSON) and the webhook secret, encrypted.
  credentials_encrypted text NOT NULL,
  webhook_secret_encrypted text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'failing', 'uninstalled')),
  -- Why the channel is failing (the last refused fulfilment or the store's answer); null when active.
  status_reason text,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX channels_listing_idx ON channels (account_id, environment, id) WHERE deleted_at IS NULL;
-- One live channel per store and environment: a second would create every order twice.
CREATE UNIQUE INDEX channels_store_idx ON channels (account_id, environment, type, lower(store)) WHERE deleted_at IS NULL;

-- A store's variant (or SKU) -> a printroute product with its attributes, print files and sizing; or ignored
-- (the store fulfils it some other way). Applies to every later order of the channel.
CREATE TABLE channel_links (
  id bigserial PRIMARY KEY,
  channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  external_variant_id text,
  external_sku text,
  -- Null for an ignored item.
  sku text,
  attributes jsonb NOT NULL DEFAULT '{}',
  -- [{ "printArea": ..., "url": ... }]
  assets jsonb NOT NULL DEFAULT '[]',
  sizing text,
  ignore boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  CHECK ((external_variant_id IS NULL) <> (external_sku IS NULL)),
  CHECK (ignore OR sku IS NOT NULL)
);
CREATE UNIQUE INDEX channel_links_variant_idx ON channel_links (channel_id, external_variant_id)
  WHERE external_variant_id IS NOT NULL;
CREATE UNIQUE INDEX channel_links_sku_idx ON channel_links (channel_id, external_sku) WHERE external_sku IS NOT NULL;

-- Each store order the channel received, once: created (the printroute order exists), notConnected (waiting for
-- links or ignores, then a release), ignored (nothing of it is printroute's), cancelled (the store cancelled it).
CREATE TABLE channel_orders (
  id bigserial PRIMARY KEY,
  channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  external_order_id text NOT NULL,
  name text NOT NULL,
  state text NOT NULL CHECK (state IN ('created', 'notConnected', 'ignored', 'cancelled')),
  order_id bigint REFERENCES orders (id),
  -- The line items no link maps yet: [{ externalLineItemId, externalVariantId, externalSku, title, quantity }].
  unlinked_items jsonb NOT NULL DEFAULT '[]',
  -- The store's order as read from its webhook (StorefrontOrder), kept until it is released.
  raw_order jsonb NOT NULL,
  -- Why a connected order could not be created (the create-order answer's first failure); a release tries again.
  problem text,
  -- The answer of the printroute cancel a store cancellation asked for.
  cancellation text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (channel_id, external_order_id)
);
CREATE INDEX channel_orders_order_idx ON channel_orders (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX channel_orders_pending_idx ON channel_orders (channel_id, id) WHERE state = 'notConnected';

-- Webhooks received: the store's delivery id drops redeliveries; the body waits here for the job that maps it.
-- Kept for the retention of docs/channels.md, then deleted.
CREATE TABLE channel_webhooks (
  id bigserial PRIMARY KEY,
  channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  webhook_id text NOT NULL,
  topic text NOT NULL,
  body text NOT NULL,
  received_at timestamptz NOT NULL,
  processed_at timestamptz,
  -- What mapping it did, or why it could not.
  result text,
  UNIQUE (channel_id, webhook_id)
);
CREATE INDEX channel_webhooks_received_idx ON channel_webhooks (received_at);

-- The fulfilment outbox: one row per shipped shipment of a channel order, delivered to the store by its own job
-- on the callbacks' retry schedule; every attempt is kept in channel_fulfilment_attempts.
CREATE TABLE channel_fulfilments (
  id bigserial PRIMARY KEY,
  channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  channel_order_id bigint NOT NULL REFERENCES channel_orders (id) ON DELETE CASCADE,
  shipment_id text NOT NULL,
  -- StorefrontFulfilment as JSON.
  fulfilment jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  external_fulfilment_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (channel_id, shipment_id)
);

CREATE TABLE channel_fulfilment_attempts (
  fulfilment_id bigint NOT NULL REFERENCES channel_fulfilments (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  http_status integer,
  latency_ms integer NOT NULL,
  error text,
  PRIMARY KEY (fulfilment_id, attempt)
);
