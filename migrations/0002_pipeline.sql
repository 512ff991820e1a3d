-- printroute schema, version 2: the fulfilment pipeline.

-- Pipeline state of an order that is not on the wire (download attempts, stored copies, print files, lab
-- progress), changed in the same transaction as the document by the pipeline service only.
ALTER TABLE orders ADD COLUMN pipeline jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Instance-wide settings shared by every process, e.g. the secret that signs file URLs.
CREATE TABLE settings (
  name text PRIMARY KEY,
  value text NOT NULL
);

-- Labs are accounts of their own kind: a lab key lets a production lab read its jobs and report progress.
CREATE TABLE lab_keys (
  id bigserial PRIMARY KEY,
  lab_code text NOT NULL,
  prefix text NOT NULL UNIQUE,
  key_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);

-- Shipments a lab works on, for the lab API's job list (GET /labs/v1/jobs). The order document stays the
-- source of truth; this row only says which lab holds which shipment of which order, and in what state.
CREATE TABLE lab_jobs (
  shipment_id bigint PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  lab_code text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  state text NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX lab_jobs_lab_idx ON lab_jobs (lab_code, state);
