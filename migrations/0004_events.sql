-- printroute schema, version 4: order events (callbacks and the events feed; issue 6).

-- Signing secret of the account's callbacks (Standard Webhooks, `whsec_<base64>`), generated when first
-- needed. After a rotation the previous secret keeps signing too (a second signature) until it expires, so a
-- receiver can switch secrets without losing a callback.
ALTER TABLE accounts ADD COLUMN signing_secret text;
ALTER TABLE accounts ADD COLUMN previous_signing_secret text;
ALTER TABLE accounts ADD COLUMN previous_signing_secret_expires_at timestamptz;

-- The outbox: every event an order change causes, written in the transaction of that change, kept for the
-- feed (GET /v4.0/events) and for redelivery. `id` comes from event_id_seq (evt_<id>) and is drawn while the
-- transaction holds the account's row lock, so within one account ids grow in commit order: a feed reader
-- that has seen evt_N never later finds a new event below N.
CREATE TABLE order_events (
  id bigint PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- Per order, from 1, in the order the changes happened (the CloudEvent's `sequence` extension).
  sequence integer NOT NULL,
  type text NOT NULL,
  created_at timestamptz NOT NULL,
  -- The CloudEvent exactly as it is sent, as JSON text (key order kept, like orders.document).
  body text NOT NULL,
  UNIQUE (order_id, sequence)
);
CREATE INDEX order_events_feed_idx ON order_events (account_id, environment, id);

-- One delivery of an event to a callback URL: the first one written with the event, more by redelivery.
CREATE TABLE callback_deliveries (
  id bigserial PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES order_events (id),
  order_id bigint NOT NULL REFERENCES orders (id),
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- Called exactly as given (query string kept).
  url text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  -- Attempts made so far.
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  -- The delivery this one repeats (POST /v4.0/callbacks/{id}/redeliver); null for the first.
  redelivery_of bigint REFERENCES callback_deliveries (id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX callback_deliveries_listing_idx ON callback_deliveries (account_id, environment, id DESC);
CREATE INDEX callback_deliveries_order_idx ON callback_deliveries (order_id);

-- Every attempt of a delivery: when, the HTTP status (null when no answer came), how long it took, the start
-- of the answer, or why there was none.
CREATE TABLE callback_attempts (
  delivery_id bigint NOT NULL REFERENCES callback_deliveries (id),
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  http_status integer,
  latency_ms integer NOT NULL,
  response_snippet text,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);
