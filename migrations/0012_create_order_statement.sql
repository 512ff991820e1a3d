-- printroute schema, version 12: an order is created by one statement (one round trip, its own transaction),
-- together with everything that must commit with it: the quote it claims, its Sandbox scenario and the job that
-- starts its fulfilment. Until now creation was a transaction of four to five round trips (BEGIN, the insert,
-- the account's default scenario, the job insert, COMMIT), which held create-order to a few percent of the bare
-- route's throughput (docs/benchmarks.md#api-throughput-npm-run-bench-api).
--
-- create_order draws the order's IDs and inserts it exactly as insert_new_order did (which it replaces), then:
-- - claims the quote `p_quote_id` for the order; when another order holds it, raises SQLSTATE PRQ01 with that
--   order's number as the error's DETAIL, which rolls the whole statement back (nothing is created);
-- - stores the Sandbox scenario: `p_scenario` when the request named one (`p_scenario_named`), otherwise, in
--   Sandbox, the account's default (resolved once: a later change of the default does not reach this order);
-- - runs the job queue's own insert statement `p_job_statement` (pg-boss's, given by the application, so the
--   queue's table layout stays pg-boss's business) with the parameter `p_job_parameter`, in which the order
--   placeholder is replaced like the document's.
-- An idempotency key that is already taken inserts nothing, claims nothing and enqueues nothing: the existing
-- order comes back with inserted = false.
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
  p_job_parameter text
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
                      last_updated, on_hold_until, sandbox_scenario, document)
  VALUES (v_order_number, p_account_id, p_environment, p_idempotency_key, p_merchant_reference, p_stage,
          p_created_at, p_created_at, p_on_hold_until, v_scenario, v_document)
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

DROP FUNCTION insert_new_order(bigint, text, text, text, text, timestamptz, timestamptz, text, integer, integer, text);
