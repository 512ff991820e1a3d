-- printroute schema, version 37: credit limits of invoice accounts (docs/billing.md#credit-limits) and a version for
-- the operator's edits of an account (docs/admin.md#editing-an-account).
--
-- credit_limit_minor: the most an invoice account may owe (its open amount, minor units of its billing currency)
-- before a Live order's charge holds the order for payment; NULL: no limit, every account's until an operator sets
-- one. version: raised by every edit of the account's name, billing mode, currency, price list or credit limit, so
-- that of two operators editing at once the second is told the account changed instead of undoing the first.
ALTER TABLE accounts ADD COLUMN credit_limit_minor bigint
  CHECK (credit_limit_minor IS NULL OR credit_limit_minor >= 0);
ALTER TABLE accounts ADD COLUMN version integer NOT NULL DEFAULT 1;
