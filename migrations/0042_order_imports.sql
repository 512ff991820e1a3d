-- printroute schema, version 42: CSV order imports (POST /v4.0/orders/imports, docs/imports.md). One row per
-- upload, scoped to its account and environment; ids `imp_<n>` from their own sequence. The POST keeps the file in
-- the blob store (`blob_key`) and answers Pending; the run-order-import job streams it, creates each order through
-- the create-order service and records every row's result in order_import_rows. A job that dies half-way runs
-- again: the rows already recorded are skipped, and each order's idempotency key makes a second create of an order
-- created before the crash answer the same order.
CREATE SEQUENCE order_import_id_seq;

CREATE TABLE order_imports (
  id bigint PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- The uploading caller as the create-order service needs it (JSON text): the orders are created as this caller.
  caller text NOT NULL,
  file_name text,
  bytes bigint NOT NULL,
  -- The file's data rows as its line breaks count them (a quoted cell holding a line break counts twice): the
  -- whole of a progress bar.
  rows_expected integer NOT NULL,
  -- The uploaded file until the import finishes; null afterwards.
  blob_key text,
  status text NOT NULL CHECK (status IN ('Pending', 'Running', 'Completed', 'Failed')),
  rows_read integer NOT NULL DEFAULT 0,
  orders_created integer NOT NULL DEFAULT 0,
  rows_failed integer NOT NULL DEFAULT 0,
  duplicates_skipped integer NOT NULL DEFAULT 0,
  -- Why a Failed import read no row (an empty file, a wrong delimiter): {field, code, providedValue} JSON text.
  failure text,
  created_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX order_imports_scope_idx ON order_imports (account_id, environment, id);

-- One row per CSV line item read, with its order or its failures; (import_id, row_number) makes a re-run's write
-- of a row already recorded do nothing.
CREATE TABLE order_import_rows (
  import_id bigint NOT NULL REFERENCES order_imports (id) ON DELETE CASCADE,
  row_number integer NOT NULL,
  merchant_reference text,
  outcome text NOT NULL CHECK (outcome IN ('Created', 'Duplicate', 'Failed')),
  order_id text,
  -- [{field, code, providedValue?}] JSON text; empty for a created or duplicate row.
  failures text NOT NULL,
  PRIMARY KEY (import_id, row_number)
);
