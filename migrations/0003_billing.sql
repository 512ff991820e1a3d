-- printroute schema, version 3: billing (charges are settled per account; issue 4).

-- How a Live account pays: 'invoice' (charges are collected and invoiced later) or 'prepaid' (charges are
-- taken from the balance; an order the balance cannot cover waits for a card payment). Sandbox never bills.
ALTER TABLE accounts ADD COLUMN billing_mode text NOT NULL DEFAULT 'invoice'
  CHECK (billing_mode IN ('invoice', 'prepaid'));
-- Prepaid balance in minor units of the billing currency; never negative.
ALTER TABLE accounts ADD COLUMN balance_minor bigint NOT NULL DEFAULT 0 CHECK (balance_minor >= 0);

-- Every movement of money on a Live account, in the order it happened: what an invoice or a statement is
-- built from. Written in the same transaction as the charge or top-up it records.
CREATE TABLE account_ledger (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  order_id bigint REFERENCES orders (id),
  -- The order's charge (chg_...) this entry settles; null for top-ups.
  charge_id text,
  -- 'top-up' (balance added by the operator), 'card-payment' (a payment authorised on the payment page),
  -- 'balance-charge' (a charge taken from the balance), 'balance-refund' (a refund credited to the balance),
  -- 'invoice-charge' / 'invoice-refund' (for the next invoice; the balance does not move).
  entry text NOT NULL CHECK (entry IN ('top-up', 'card-payment', 'balance-charge', 'balance-refund',
                                       'invoice-charge', 'invoice-refund')),
  -- Signed as the account sees it: money in (top-up, payment, refund) positive, money out (charge) negative.
  amount_minor bigint NOT NULL,
  currency text NOT NULL,
  -- Prepaid balance after this entry (unchanged for invoice entries).
  balance_after_minor bigint NOT NULL,
  -- Payment provider's reference for card payments, the operator's note for top-ups.
  reference text,
  created_at timestamptz NOT NULL
);
CREATE INDEX account_ledger_account_idx ON account_ledger (account_id, id);
