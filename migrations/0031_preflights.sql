-- printroute schema, version 31: preflights of files checked on their own (POST /v4.0/files/preflight,
-- docs/api.md#preflight). One row per request, scoped to its account and environment; ids `pfl_<n>` from their own
-- sequence. The POST downloads the file into the blob store (`blob_key`) and answers Pending; the run-preflight job
-- inspects it, stores the report (JSON text, keys as written) and deletes the file. The expire-preflights job deletes
-- rows past `expires_at` (7 days after creation) with any file left.
CREATE SEQUENCE preflight_id_seq;

CREATE TABLE preflights (
  id bigint PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- What was asked: {url, sku, printArea, pageCount, attributes} in canonical spelling.
  request text NOT NULL,
  content_type text NOT NULL,
  bytes bigint NOT NULL,
  -- The downloaded file while it waits for its inspection; null once inspected.
  blob_key text,
  status text NOT NULL CHECK (status IN ('Pending', 'Running', 'Passed', 'PassedWithWarnings', 'Failed')),
  -- The PreflightReport {pageCount, checks, fixes, validSkus}; null until inspected.
  report text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX preflights_expires_at_idx ON preflights (expires_at);
