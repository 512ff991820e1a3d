-- printroute schema, version 1: accounts, API keys and orders.
-- Plain SQL valid on PostgreSQL 15+ and PGlite. Migrations are forward-only: never edit a released file,
-- add the next number instead.

-- One sequence per public ID prefix (acc_, ord_, ori_, ast_, ...): IDs grow with creation.
CREATE SEQUENCE account_id_seq;
CREATE SEQUENCE order_id_seq;
CREATE SEQUENCE order_item_id_seq;
CREATE SEQUENCE asset_id_seq;
CREATE SEQUENCE shipment_id_seq;
CREATE SEQUENCE charge_id_seq;
CREATE SEQUENCE charge_item_id_seq;
CREATE SEQUENCE event_id_seq;

CREATE TABLE accounts (
  id bigint PRIMARY KEY DEFAULT nextval('account_id_seq'),
  name text NOT NULL,
  billing_currency text NOT NULL,
  -- Orders wait this long on hold before fulfilment starts; 0 = no pause window.
  pause_window_seconds integer NOT NULL DEFAULT 0 CHECK (pause_window_seconds >= 0),
  callback_url text,
  created_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- The first characters of the key, shown in listings and used to revoke it; never enough to use it.
  prefix text NOT NULL UNIQUE,
  -- SHA-256 of the whole key, hex. The key itself is shown once and never stored.
  key_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id);

CREATE TABLE orders (
  id bigint PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  idempotency_key text,
  merchant_reference text,
  stage text NOT NULL CHECK (stage IN ('InProgress', 'Complete', 'Cancelled')),
  created_at timestamptz NOT NULL,
  last_updated timestamptz NOT NULL,
  -- Set while the order waits in the account's pause window; the order is hidden from GET until then.
  on_hold_until timestamptz,
  -- True while an open RequiresPaymentAuthorisation issue holds the order (list filter awaitingPayment).
  awaiting_payment boolean NOT NULL DEFAULT false,
  -- The order as the API shows it (without envelope). The columns above are copies kept for filtering,
  -- written together with it by the orders repository only.
  document jsonb NOT NULL
);
-- Idempotency keys are remembered forever, per account and environment (NULL keys never conflict).
CREATE UNIQUE INDEX orders_idempotency_key_idx ON orders (account_id, environment, idempotency_key);
CREATE INDEX orders_listing_idx ON orders (account_id, environment, id DESC);
CREATE INDEX orders_merchant_reference_idx ON orders (account_id, environment, merchant_reference);
