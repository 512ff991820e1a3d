-- printroute schema, version 29: an Idempotency-Key's stored answer belongs to the API key that made the request
-- (docs/api.md#idempotent-requests). `api_key_prefix` is that key's visible prefix (unique and never reused, the name
-- the audit trail gives a key; a dashboard session's requests are its key's). A request with the same
-- Idempotency-Key and another API key of the account is refused (422) and never given the answer, which may hold a
-- secret (the new key of POST /v4.0/account/keys).
-- Rows claimed before this version have no owner (NULL): no key can prove it made them, so they are replayed to none
-- and refused to every key until they expire, at most 24 hours after this migration.
ALTER TABLE idempotent_requests ADD COLUMN api_key_prefix text;
