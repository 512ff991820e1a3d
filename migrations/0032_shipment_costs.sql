-- printroute schema, version 32: the price list an account buys on (docs/billing.md#price-lists), and what each
-- shipment costs the operator at its lab, beside what the merchant pays
-- for it (docs/billing.md#margin). One row per hand-off of a shipment to a lab: the first hand-off, a move to
-- another lab and a reprint each add a row. A row is never rewritten after it is recorded, except its outcome and
-- the lab statement that settles it.
CREATE TABLE shipment_costs (
  id bigserial PRIMARY KEY,
  -- What makes recording idempotent: the same hand-off recorded twice (a retried job) stays one row.
  handoff_key text NOT NULL UNIQUE,
  shipment_id bigint NOT NULL,
  order_id bigint NOT NULL REFERENCES orders (id),
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  lab_code text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('Original', 'Moved', 'Reprint')),
  handed_at timestamptz NOT NULL,
  catalogue_version integer,
  -- The lab's agreed cost at hand-off, in the lab's currency: production of every copy, and the shipping.
  lab_currency text NOT NULL,
  production_cost_minor bigint NOT NULL CHECK (production_cost_minor >= 0),
  shipping_cost_minor bigint NOT NULL CHECK (shipping_cost_minor >= 0),
  -- What the merchant is charged for this shipment, untaxed, in the charge's currency (0 for a reprint), and
  -- the lab cost converted to that currency at the hand-off's rates: margin = price - cost, in one currency.
  price_currency text NOT NULL,
  price_items_minor bigint NOT NULL,
  price_shipping_minor bigint NOT NULL,
  cost_in_price_currency_minor bigint NOT NULL,
  -- Open until the lab ships the work (Shipped), or it is cancelled or rejected (then nothing is owed).
  outcome text NOT NULL DEFAULT 'Open' CHECK (outcome IN ('Open', 'Shipped', 'Cancelled', 'Rejected')),
  outcome_at timestamptz,
  -- The lab statement that settled it, once one did.
  statement_number text
);
CREATE INDEX shipment_costs_lab_idx ON shipment_costs (lab_code, environment, outcome, outcome_at);
CREATE INDEX shipment_costs_order_idx ON shipment_costs (order_id);
CREATE INDEX shipment_costs_handed_idx ON shipment_costs (handed_at);

-- The name of the catalogue price list the account buys on; null is the catalogue's default list.
ALTER TABLE accounts ADD COLUMN price_list text;
