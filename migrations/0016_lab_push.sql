-- printroute schema, version 16: jobs pushed to labs (docs/pipeline.md#jobs-pushed-to-labs). A lab with a push
-- endpoint is POSTed its jobs as they change, signed with a secret of its own, through the same outbox, deliveries
-- and attempts as merchants' callbacks.

-- Each lab's push endpoint as the operator set it (printroute labs configure). `url` null: the catalogue's push URL
-- (if any) is used; `removed`: the operator removed pushing, whatever the catalogue says. The signing secret
-- (Standard Webhooks, `whsec_<base64>`) is generated when first needed; after a rotation the previous one keeps
-- signing too (a second signature) until it expires, exactly as callback secrets do.
CREATE TABLE lab_push_endpoints (
  lab_code text PRIMARY KEY,
  url text,
  removed boolean NOT NULL DEFAULT false,
  signing_secret text,
  previous_signing_secret text,
  previous_signing_secret_expires_at timestamptz,
  updated_at timestamptz NOT NULL
);

-- A lab's event (lab.job.*) is stored in the outbox and delivered like an order's event, but belongs to no
-- merchant: it has the lab's code instead of an account, and no order (so no order `sequence`: 0, like a test
-- callback's), which keeps it out of every merchant listing, feed and redelivery by construction. Its delivery
-- names the lab too, and keeps the order it is about (for the log lines).
ALTER TABLE order_events ADD COLUMN lab_code text;
ALTER TABLE order_events ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE order_events ADD CONSTRAINT order_events_account_or_lab
  CHECK ((lab_code IS NULL) = (account_id IS NOT NULL) AND (lab_code IS NULL OR order_id IS NULL));
ALTER TABLE callback_deliveries ADD COLUMN lab_code text;
ALTER TABLE callback_deliveries ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE callback_deliveries ADD CONSTRAINT callback_deliveries_account_or_lab
  CHECK ((lab_code IS NULL) = (account_id IS NOT NULL));
-- The lab API's listing of a lab's deliveries, newest first.
CREATE INDEX callback_deliveries_lab_idx ON callback_deliveries (lab_code, id DESC) WHERE lab_code IS NOT NULL;

-- Reminders already pushed: at most one per job, reason and the lab's calendar date (lab.job.reminder).
CREATE TABLE lab_push_reminders (
  shipment_id bigint NOT NULL,
  reason text NOT NULL CHECK (reason IN ('notAcknowledged', 'shipByToday', 'overdue')),
  lab_date text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (shipment_id, reason, lab_date)
);
