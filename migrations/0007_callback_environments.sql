-- printroute schema, version 7: callback settings per environment, and test callbacks (docs/callbacks.md).

-- Sandbox and Live each have their own callback URL and signing secret (with its rotation overlap), so that a
-- Sandbox key, which is handed to developers and test systems, neither reads the secret that signs Live
-- callbacks nor redirects them. The pause window and billing stay the account's (one business, one rule).
CREATE TABLE account_environments (
  account_id bigint NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  callback_url text,
  -- Standard Webhooks secret (`whsec_<base64>`), generated when first needed. After a rotation the previous
  -- secret keeps signing too (a second signature) until it expires.
  signing_secret text,
  previous_signing_secret text,
  previous_signing_secret_expires_at timestamptz,
  PRIMARY KEY (account_id, environment)
);

-- Existing accounts keep their callback URL in both environments, and Live keeps its secret (and overlap).
-- Sandbox does not keep signing with the Live secret: its secret starts empty and a new one is generated the
-- first time it is needed (by the application: random bytes are not SQL's job).
INSERT INTO account_environments (account_id, environment, callback_url, signing_secret, previous_signing_secret,
                                  previous_signing_secret_expires_at)
SELECT id, 'live', callback_url, signing_secret, previous_signing_secret, previous_signing_secret_expires_at
  FROM accounts;
INSERT INTO account_environments (account_id, environment, callback_url)
SELECT id, 'sandbox', callback_url FROM accounts;

ALTER TABLE accounts DROP COLUMN callback_url;
ALTER TABLE accounts DROP COLUMN signing_secret;
ALTER TABLE accounts DROP COLUMN previous_signing_secret;
ALTER TABLE accounts DROP COLUMN previous_signing_secret_expires_at;

-- A test callback (POST /v4.0/callbacks/test) is an event of no order: it is stored and delivered like the
-- others (so it is listed with its attempt) but is not part of the events feed, and its `sequence` is 0 (an
-- order's events count from 1).
ALTER TABLE order_events ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE order_events ADD CONSTRAINT order_events_order_or_test CHECK ((order_id IS NULL) = (sequence = 0));
ALTER TABLE callback_deliveries ALTER COLUMN order_id DROP NOT NULL;
