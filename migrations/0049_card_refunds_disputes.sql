-- printroute schema, version 49: what counts each refund to a card and each dispute once
-- (docs/billing.md#refunds-to-the-card, docs/billing.md#disputes).

-- A refund to a card that the provider refused (failed, canceled, or a request it would not take) puts the money back
-- on the balance: that entry, set once by a conditional UPDATE, and the provider's reason.
ALTER TABLE provider_refunds ADD COLUMN reversal_entry_id bigint REFERENCES account_ledger (id);
ALTER TABLE provider_refunds ADD COLUMN failure_reason text;

-- A dispute's ledger entries: 'card-dispute' when it opens, 'card-dispute-won' when it is decided for the operator.
-- Each is set once (UPDATE ... WHERE ..._entry_id IS NULL), so a redelivered event records nothing twice.
ALTER TABLE provider_disputes ADD COLUMN opened_entry_id bigint REFERENCES account_ledger (id);
ALTER TABLE provider_disputes ADD COLUMN won_entry_id bigint REFERENCES account_ledger (id);
CREATE INDEX provider_disputes_order_idx ON provider_disputes (order_id) WHERE order_id IS NOT NULL;
