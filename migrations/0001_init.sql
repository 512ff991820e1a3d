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
  -- The order exactly as the API shows it, as JSON text with keys in the contract's order, served by GET
  -- without re-serialising. `text`, not `jsonb` (which reorders keys) nor `json` (which re-parses every
  -- write: 15-20% slower inserts, measured); only printroute writes it. The columns above are copies kept
  -- for filtering, written together with it by the orders repository only.
  document text NOT NULL
);
-- Idempotency keys are remembered forever, per account and environment. Partial indexes: orders without a
-- key or reference cost no index entry.
CREATE UNIQUE INDEX orders_idempotency_key_idx ON orders (account_id, environment, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX orders_listing_idx ON orders (account_id, environment, id DESC);
CREATE INDEX orders_merchant_reference_idx ON orders (account_id, environment, merchant_reference)
  WHERE merchant_reference IS NOT NULL;

-- Creates an order in one round trip: draws its order, item and asset IDs, writes them into the document
-- template in place of the placeholders `<token>:order`, `<token>:item:N` and `<token>:asset:N` (N from 1;
-- the token is random per request, so merchant text can never contain one), and inserts the row unless the
-- idempotency key is taken, in which case it returns the existing order instead (inserted = false).
-- On PostgreSQL a concurrent insert with the same key waits for the first to commit and then finds it.
CREATE FUNCTION insert_new_order(
  p_account_id bigint,
  p_environment text,
  p_idempotency_key text,
  p_merchant_reference text,
  p_stage text,
  p_created_at timestamptz,
  p_on_hold_until timestamptz,
  p_token text,
  p_item_count integer,
  p_asset_count integer,
  p_template text
) RETURNS TABLE (result_order_number bigint, result_document text, result_on_hold_until timestamptz, result_inserted boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_order_number bigint := nextval('order_id_seq');
  v_document text := replace(p_template, p_token || ':order', v_order_number::text);
BEGIN
  FOR i IN 1..p_item_count LOOP
    v_document := replace(v_document, p_token || ':item:' || i || '"', nextval('order_item_id_seq') || '"');
  END LOOP;
  FOR i IN 1..p_asset_count LOOP
    v_document := replace(v_document, p_token || ':asset:' || i || '"', nextval('asset_id_seq') || '"');
  END LOOP;
  INSERT INTO orders (id, account_id, environment, idempotency_key, merchant_reference, stage, created_at,
                      last_updated, on_hold_until, document)
  VALUES (v_order_number, p_account_id, p_environment, p_idempotency_key, p_merchant_reference, p_stage,
          p_created_at, p_created_at, p_on_hold_until, v_document)
  ON CONFLICT (account_id, environment, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING;
  IF FOUND THEN
    RETURN QUERY SELECT v_order_number, v_document, p_on_hold_until, true;
  ELSE
    RETURN QUERY SELECT o.id, o.document, o.on_hold_until, false FROM orders o
      WHERE o.account_id = p_account_id AND o.environment = p_environment AND o.idempotency_key = p_idempotency_key;
  END IF;
END
$$;
