-- printroute schema, version 28: the `off` mode of address validation (docs/addresses.md#modes: no checks on orders
-- at all), and each environment's `callback_events` (docs/callbacks.md#which-events-a-callback-url-gets): `all` sends
-- the callback URLs every event type, `prodigi` only those of the Prodigi Print API, for strict decoders. Existing
-- accounts keep today's behaviour (warn, all).
ALTER TABLE account_environments DROP CONSTRAINT account_environments_address_validation_check;
ALTER TABLE account_environments
  ADD CONSTRAINT account_environments_address_validation_check CHECK (address_validation IN ('warn', 'refuse', 'off'));
ALTER TABLE account_environments
  ADD COLUMN callback_events text NOT NULL DEFAULT 'all'
  CONSTRAINT account_environments_callback_events_check CHECK (callback_events IN ('prodigi', 'all'));
