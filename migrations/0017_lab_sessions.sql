-- printroute schema, version 17: lab portal sessions (docs/labs.md#the-lab-portal). A print shop signs in to the lab
-- portal with a lab key, as a merchant signs in to the dashboard with an API key: the same table holds both
-- kinds of session, each standing for exactly one key. Revoking (or deleting) the lab key ends its sessions.
ALTER TABLE dashboard_sessions ALTER COLUMN api_key_id DROP NOT NULL;
ALTER TABLE dashboard_sessions ADD COLUMN lab_key_id bigint REFERENCES lab_keys (id) ON DELETE CASCADE;
ALTER TABLE dashboard_sessions
  ADD CONSTRAINT dashboard_sessions_one_key CHECK ((api_key_id IS NULL) <> (lab_key_id IS NULL));
CREATE INDEX dashboard_sessions_lab_key_idx ON dashboard_sessions (lab_key_id);
