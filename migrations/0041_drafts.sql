-- printroute schema, version 41: draft orders (docs/api.md#drafts-and-holds). A draft is stored and priced like any
-- order but not started until it is confirmed; one not confirmed by `draft_expires_at` is cancelled by the
-- expire-drafts job. The column is set while the order is a draft and cleared when it is confirmed or cancelled
-- (saveOrder derives it from the pipeline state), so it also says which orders are drafts for the orders list's
-- `status=draft`.
ALTER TABLE orders ADD COLUMN draft_expires_at timestamptz;
-- The expiry job's scan (the oldest first) and the list's filter (an account's drafts, newest first).
CREATE INDEX orders_draft_expiry_idx ON orders (draft_expires_at) WHERE draft_expires_at IS NOT NULL;
CREATE INDEX orders_drafts_listing_idx ON orders (account_id, environment, id DESC) WHERE draft_expires_at IS NOT NULL;

-- create_order (migrations/0012_create_order_statement.sql) writes the draft's expiry with the order, in the same
-- statement: a draft is never stored without it. Otherwise unchanged; null for every order that is not a draft.
DROP FUNCTION create_order(bigint, text, text, text, text, timestamptz, timestamptz, text, integer, integer, text,
                           bigint, boolean, text, text, text);
CREATE FUNCTION create_order(
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
  p_template text,
  p_quote_id bigint,
  p_scenario_named boolean,
  p_scenario text,
  p_job_statement text,
  p_job_parameter text,
  p_draft_expires_at timestamptz
) RETURNS TABLE (result_order_number bigint, result_document text, result_on_hold_until timestamptz,
                 result_inserted boolean, result_sandbox_scenario text)
LANGUAGE plpgsql AS $$
DECLARE
  v_order_number bigint := nextval('order_id_seq');
  v_document text := replace(p_template, p_token || ':order', v_order_number::text);
  v_scenario text := p_scenario;
  v_holder bigint;
BEGIN
  FOR i IN 1..p_item_count LOOP
    v_document := replace(v_document, p_token || ':item:' || i || '"', nextval('order_item_id_seq') || '"');
  END LOOP;
  FOR i IN 1..p_asset_count LOOP
    v_document := replace(v_document, p_token || ':asset:' || i || '"', nextval('asset_id_seq') || '"');
  END LOOP;
  IF NOT p_scenario_named AND p_environment = 'sandbox' THEN
    SELECT e.sandbox_scenario INTO v_scenario FROM account_environments e
     WHERE e.account_id = p_account_id AND e.environment = 'sandbox';
  END IF;
  INSERT INTO orders (id, account_id, environment, idempotency_key, merchant_reference, stage, created_at,
                      last_updated, on_hold_until, sandbox_scenario, document, draft_expires_at)
  VALUES (v_order_number, p_account_id, p_environment, p_idempotency_key, p_merchant_reference, p_stage,
          p_created_at, p_created_at, p_on_hold_until, v_scenario, v_document, p_draft_expires_at)
  ON CONFLICT (account_id, environment, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING;
  IF NOT FOUND THEN
    RETURN QUERY SELECT o.id, o.document, o.on_hold_until, false, o.sandbox_scenario FROM orders o
      WHERE o.account_id = p_account_id AND o.environment = p_environment AND o.idempotency_key = p_idempotency_key;
    RETURN;
  END IF;
  IF p_quote_id IS NOT NULL THEN
    -- On PostgreSQL a concurrent claim waits for the first to commit, then finds the quote taken.
    UPDATE quotes SET order_id = v_order_number WHERE id = p_quote_id AND order_id IS NULL;
    IF NOT FOUND THEN
      SELECT q.order_id INTO v_holder FROM quotes q WHERE q.id = p_quote_id;
      RAISE EXCEPTION 'quote % is already used', p_quote_id
        USING ERRCODE = 'PRQ01', DETAIL = coalesce(v_holder::text, '');
    END IF;
  END IF;
  EXECUTE p_job_statement USING replace(p_job_parameter, p_token || ':order', v_order_number::text);
  RETURN QUERY SELECT v_order_number, v_document, p_on_hold_until, true, v_scenario;
END
$$;
