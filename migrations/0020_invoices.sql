-- printroute schema, version 20: invoices and credit notes (docs/billing.md#invoices). Every charge gets one
-- document in the charge's own transaction: an invoice, or a credit note for a refund.
--
-- Numbers are gapless per series (Live invoices INV, Live credit notes CN, Sandbox SBX-INV and SBX-CN). A
-- sequence would leave gaps (a rolled-back transaction never gives its value back), so each series is a row
-- counted up by `UPDATE invoice_counters SET last = last + 1 ... RETURNING last` in the charge's transaction:
-- the row lock makes concurrent charges in any process wait for each other, and a rollback undoes the count.
CREATE TABLE invoice_counters (
  series text PRIMARY KEY CHECK (series IN ('INV', 'CN', 'SBX-INV', 'SBX-CN')),
  last bigint NOT NULL CHECK (last >= 0)
);
INSERT INTO invoice_counters (series, last) VALUES ('INV', 0), ('CN', 0), ('SBX-INV', 0), ('SBX-CN', 0);

CREATE TABLE invoices (
  -- INV-000001, CN-000001, SBX-INV-000001, SBX-CN-000001
  number text PRIMARY KEY,
  series text NOT NULL REFERENCES invoice_counters (series),
  sequence bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('Invoice', 'CreditNote')),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  account_id bigint NOT NULL REFERENCES accounts (id),
  order_id bigint NOT NULL REFERENCES orders (id),
  charge_id text NOT NULL UNIQUE,
  issued_at timestamptz NOT NULL,
  currency text NOT NULL,
  -- the charge's totals in minor units (negative for money given back), as the charge writes them
  total_cost_minor bigint NOT NULL,
  total_tax_minor bigint NOT NULL,
  -- Everything the document shows, fixed at issue (JSON text): seller and buyer as they were then, the order's
  -- reference, the lines, tax by rate, the invoices a credit note credits. The PDF is drawn from it alone, so
  -- it never changes afterwards whatever happens to the settings, the account or the catalogue.
  content text NOT NULL,
  -- the order documents were issued in, across series (issue times can be equal); gaps here mean nothing
  issue_order bigserial NOT NULL UNIQUE,
  UNIQUE (series, sequence)
);
CREATE INDEX invoices_order_idx ON invoices (order_id, issued_at);
CREATE INDEX invoices_account_idx ON invoices (account_id, issued_at);
CREATE INDEX invoices_issued_idx ON invoices (issued_at);
