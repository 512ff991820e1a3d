-- printroute schema, version 26: webhook endpoints (docs/callbacks.md#webhook-endpoints). An environment may have
-- up to 20 endpoints beside its callback URL, each with its own URL, event-type and order-metadata filters and
-- signing secret. Every event is delivered to each enabled endpoint whose filters match, through the same outbox,
-- deliveries, attempts, retries and sweeper as callbacks; a delivery names the endpoint it went to.
CREATE TABLE webhook_endpoints (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  url text NOT NULL,
  description text,
  -- Exact event types and prefixes ending in `*`; empty: every event.
  event_types text[] NOT NULL DEFAULT '{}',
  -- Order metadata every delivered order event's order must carry (key -> the JSON value it must equal); empty:
  -- no condition. Events about no order never match a non-empty one.
  metadata_filter jsonb NOT NULL DEFAULT '{}',
  enabled boolean NOT NULL DEFAULT true,
  -- Why it is disabled: 'manual' (PATCH enabled false) or 'failing' (every attempt failed for 3 days).
  disabled_reason text CHECK (disabled_reason IN ('manual', 'failing')),
  disabled_at timestamptz,
  -- The first failed attempt of the current run of failures (no attempt succeeded since); null when the last
  -- attempt succeeded or none was made. Three days of it disable the endpoint.
  failing_since timestamptz,
  last_attempt_at timestamptz,
  last_success_at timestamptz,
  -- Standard Webhooks secret (`whsec_<base64>`). After a rotation the previous one keeps signing too (a second
  -- signature) until it expires, exactly as callback secrets do.
  signing_secret text NOT NULL,
  previous_signing_secret text,
  previous_signing_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Deleted endpoints are kept (their deliveries still name them until retention removes those) but are gone from
  -- every listing, receive nothing and do not count against the limit.
  deleted_at timestamptz,
  CHECK (enabled = (disabled_reason IS NULL))
);
CREATE INDEX webhook_endpoints_environment_idx ON webhook_endpoints (account_id, environment, id)
  WHERE deleted_at IS NULL;

-- The endpoint a delivery went to; null for deliveries to callback URLs and labs.
ALTER TABLE callback_deliveries ADD COLUMN webhook_id bigint REFERENCES webhook_endpoints (id);
CREATE INDEX callback_deliveries_webhook_idx ON callback_deliveries (webhook_id, id DESC) WHERE webhook_id IS NOT NULL;

-- An account's event about no order (an endpoint disabled) that still belongs in the events feed; test callbacks,
-- also about no order, stay out of it.
ALTER TABLE order_events ADD COLUMN account_event boolean NOT NULL DEFAULT false;
