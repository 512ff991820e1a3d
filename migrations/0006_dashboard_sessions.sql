-- printroute schema, version 6: dashboard sessions (issue 12; docs/dashboard.md). Signing in to the dashboard
-- exchanges an API key for a session; the browser holds only the session token (an HttpOnly cookie), the
-- database only its SHA-256. A session lives as long as the key it was made from: revoking the key (or
-- deleting it) ends every session made with it.
CREATE TABLE dashboard_sessions (
  token_hash text PRIMARY KEY,
  api_key_id bigint NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
-- Expired sessions are removed at each sign-in, by expiry.
CREATE INDEX dashboard_sessions_expires_idx ON dashboard_sessions (expires_at);
CREATE INDEX dashboard_sessions_key_idx ON dashboard_sessions (api_key_id);
