-- printroute schema, version 22: what an environment of an account does with an order whose address breaks its
-- country's rules (docs/addresses.md): `warn` creates it with the issue order.recipient.AddressUnverified, `refuse`
-- answers 400 ValidationFailed. Existing accounts keep today's behaviour (warn).
ALTER TABLE account_environments
  ADD COLUMN address_validation text NOT NULL DEFAULT 'warn'
  CONSTRAINT account_environments_address_validation_check CHECK (address_validation IN ('warn', 'refuse'));
