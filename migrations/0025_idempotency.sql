-- printroute schema, version 25: idempotent POSTs of the merchant API (docs/api.md#idempotent-requests). A
-- request with an Idempotency-Key claims the key here (INSERT ... ON CONFLICT DO NOTHING, a statement of its own,
-- before any work), and its answer is stored when it is sent, so a retry with the same key gets that answer
-- again. Rows are deleted 24 hours after the claim (the expire-idempotent-requests job). Order creation keeps its
-- own keys on the orders themselves (kept forever) and does not use this table.
-- Neither the key nor the answer is readable here: `idempotency_key` holds the key's SHA-256, and `response_body`
-- is the answer encrypted with a key derived from the Idempotency-Key, which only the client holds (an answer may
-- carry a secret: the key POST /v4.0/account/keys makes).
CREATE TABLE idempotent_requests (
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL,
  idempotency_key text NOT NULL,
  -- SHA-256 of the method, path and body: a retry must send the same request to get the stored answer.
  request_hash text NOT NULL,
  -- Names the one request holding the claim, so an abandoned claim taken over is not completed by its first owner.
  claim_token text NOT NULL,
  claimed_at timestamptz NOT NULL,
  -- NULL while the request is in flight.
  status_code integer,
  content_type text,
  response_body text,
  PRIMARY KEY (account_id, environment, idempotency_key)
);

CREATE INDEX idempotent_requests_claimed_at_idx ON idempotent_requests (claimed_at);
