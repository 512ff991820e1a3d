-- printroute schema, version 10: price-locked quotes (docs/api.md#quotes). Every quote of a POST /quotes answer
-- (one per shipping method) is kept, so an order can name it in `quoteId` and be charged what it said, and its
-- routing can be shown as it was worked out then.
CREATE SEQUENCE quote_id_seq;

CREATE TABLE quotes (
  id bigint PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  shipping_method text NOT NULL,
  destination_country_code text NOT NULL,
  currency text NOT NULL,
  -- The request's items in canonical spelling, in request order, with their quoted prices:
  -- [{sku, copies, attributes, unitCost, taxUnitCost}] (amounts in minor units of `currency`, as strings).
  items jsonb NOT NULL,
  -- The quoted shipments: [{labCode, cost, tax, itemIndexes}] (indexes into `items`).
  shipments jsonb NOT NULL,
  -- How the allocation was reached, as GET /quotes/{id}/routing shows it (the catalogue of quote time).
  routing jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- The order that was created with this quote; a quote prices one order.
  order_id bigint REFERENCES orders (id)
);
