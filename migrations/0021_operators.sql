-- printroute schema, version 21: the operator console (docs/admin.md). Operators sign in to /admin/ with a token
-- (`pr_operator_...`) that `printroute operators create` prints once; the database keeps its SHA-256 and a visible
-- prefix. Their sessions sit in the dashboard's session table beside merchants' and labs': a row stands for
-- exactly one API key, lab key or operator, and revoking the operator ends its sessions (the lookup checks
-- `revoked_at` on every request). Accounts can be suspended: their keys are refused (403) until reactivated.
CREATE TABLE operators (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  prefix text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);

ALTER TABLE dashboard_sessions ADD COLUMN operator_id bigint REFERENCES operators (id) ON DELETE CASCADE;
ALTER TABLE dashboard_sessions DROP CONSTRAINT dashboard_sessions_one_key;
ALTER TABLE dashboard_sessions
  ADD CONSTRAINT dashboard_sessions_one_key CHECK (num_nonnulls(api_key_id, lab_key_id, operator_id) = 1);
CREATE INDEX dashboard_sessions_operator_idx ON dashboard_sessions (operator_id);

-- Suspension: null when the account is in good standing. The reason is the operator's note, shown in the console.
ALTER TABLE accounts ADD COLUMN suspended_at timestamptz;
ALTER TABLE accounts ADD COLUMN suspended_reason text;
