-- printroute schema, version 36: claims about shipped work (docs/claims.md). A merchant reports a problem with
-- shipped items (or a parcel that never came), with photos uploaded first as evidence; the operator, an automatic
-- rule or the Sandbox's simulated operator resolves it: a reprint (a new shipment on the same order), a refund or a
-- credit (through the order's charges and a credit note), or a rejection. The lab that made the work sees the claims
-- against its jobs and may accept or dispute them; upheld claims count against its quality rate.
--
-- Ids: evidence `evd_<n>`, claims `clm_<n>`, each from its own sequence.
CREATE SEQUENCE claim_evidence_id_seq;
CREATE SEQUENCE claim_id_seq;

-- A photo uploaded before the claim that uses it: decoded and re-encoded without metadata, kept in the blob store.
-- Evidence no claim uses is deleted (row and blob) a day after upload by the expire-claim-evidence job.
CREATE TABLE claim_evidence (
  id bigint PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- Who uploaded it: the merchant (for a claim) or the lab (for its answer). A merchant's evidence is usable only
  -- by the same account and environment; a lab's only by that lab.
  uploaded_by text NOT NULL CHECK (uploaded_by IN ('merchant', 'lab')),
  lab_code text,
  blob_key text NOT NULL,
  content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png')),
  bytes bigint NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  created_at timestamptz NOT NULL,
  -- Set once a claim (or a lab's answer) uses it; unused evidence expires.
  claim_id bigint
);
CREATE INDEX claim_evidence_unused_idx ON claim_evidence (created_at) WHERE claim_id IS NULL;

CREATE TABLE claims (
  id bigint PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  order_id bigint NOT NULL REFERENCES orders (id),
  -- PackageMissing claims name the shipment (and cover its items); item claims name items (claim_items).
  shipment_id bigint,
  -- The lab whose work is claimed against (the shipment's lab at the time), for the lab's view and quality rate.
  lab_code text NOT NULL,
  preferred_resolution text CHECK (preferred_resolution IN ('Reprint', 'Refund')),
  status text NOT NULL CHECK (status IN ('Pending', 'Resolved', 'Rejected', 'Retracted')),
  resolution text CHECK (resolution IN ('Reprint', 'Refund', 'Credit')),
  -- The operator's note on a resolution, or the reason of a rejection.
  resolution_note text,
  -- Who resolved it, as the audit trail names actors (operator, cli, rule, sandbox).
  resolved_by text,
  resolved_at timestamptz,
  -- What the resolution made: the reprint shipment (shp_ number), the credit note's number.
  reprint_shipment_id bigint,
  credit_note_number text,
  -- The lab's answer: accept or dispute, its comment and when.
  lab_answer text CHECK (lab_answer IN ('Accepted', 'Disputed')),
  lab_comment text,
  lab_answered_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Optimistic concurrency: every change bumps it, and a change names the version it read, so two operators
  -- resolving the same claim at once give one resolution.
  version integer NOT NULL DEFAULT 1,
  -- The claim as the API shows it (JSON text, keys in the wire order), rewritten with the columns above.
  document text NOT NULL
);
CREATE INDEX claims_account_idx ON claims (account_id, environment, id);
CREATE INDEX claims_order_idx ON claims (order_id);
CREATE INDEX claims_status_idx ON claims (status, created_at);
CREATE INDEX claims_lab_idx ON claims (lab_code, environment, created_at);

-- One row per claimed item: the category, the merchant's words and its photos. One open claim per item: the
-- partial unique index refuses a second while the first is Pending.
CREATE TABLE claim_items (
  claim_id bigint NOT NULL REFERENCES claims (id),
  order_id bigint NOT NULL REFERENCES orders (id),
  -- The order item (ori_ number) and the shipment that carried it.
  item_id bigint NOT NULL,
  shipment_id bigint NOT NULL,
  category text NOT NULL,
  description text NOT NULL,
  -- Pending while the claim is; copied from the claim on every status change.
  open boolean NOT NULL,
  PRIMARY KEY (claim_id, item_id)
);
CREATE UNIQUE INDEX claim_items_one_open_idx ON claim_items (item_id) WHERE open;
CREATE INDEX claim_items_shipment_idx ON claim_items (shipment_id);
