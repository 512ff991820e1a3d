-- printroute schema, version 33: lab payables statements (docs/billing.md#lab-payables-statements). Once a month
-- the operator issues each lab, on the lab's behalf (self-billing), a statement of the Live work it shipped that
-- month at the costs agreed at hand-off (shipment_costs, version 32).
--
-- Numbers are gapless per lab (SB-<LAB>-000001): like the invoices' series (version 20), each lab's counter is a
-- row counted up in the issuing transaction, so a rollback gives its number back. The row is made on a lab's
-- first statement, then locked by every issue for that lab, which also makes "one statement per lab and month"
-- hold when two processes issue the same one at once.
CREATE TABLE lab_statement_counters (
  lab_code text PRIMARY KEY,
  last bigint NOT NULL CHECK (last >= 0)
);

CREATE TABLE lab_statements (
  -- SB-<LAB CODE IN CAPITALS>-000001
  number text PRIMARY KEY,
  lab_code text NOT NULL REFERENCES lab_statement_counters (lab_code),
  sequence bigint NOT NULL,
  -- YYYY-MM (UTC): the month whose shipped work it settles
  month text NOT NULL,
  issued_at timestamptz NOT NULL,
  -- the jobs it lists as owed, and those handed over but cancelled or rejected (not owed)
  shipment_count integer NOT NULL,
  -- Everything the statement shows, fixed at issue (JSON text): the lab as seller, the operator as buyer, every
  -- line and the totals per currency. The PDF and CSV are drawn from it alone.
  content text NOT NULL,
  UNIQUE (lab_code, sequence),
  UNIQUE (lab_code, month)
);
CREATE INDEX lab_statements_issued_idx ON lab_statements (lab_code, issued_at);
