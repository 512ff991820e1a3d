-- printroute schema, version 18: the audit trail (docs/audit.md). One row per change made by an operator, a
-- merchant's key or dashboard session, a lab or the command line. Append-only: the triggers below refuse every
-- UPDATE, DELETE and TRUNCATE, so no code path (and no mistaken query) can rewrite history.
CREATE TABLE audit_events (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  actor_kind text NOT NULL CHECK (actor_kind IN ('operator', 'key', 'session', 'lab', 'cli', 'system')),
  -- the actor's identity: an operator id, a key prefix, a lab code, user@host
  actor text NOT NULL,
  -- the actor as shown: "operator opr_2 (Dana)", "key pr_live_ab12 of acc_3", ...
  actor_description text NOT NULL,
  -- the account the change concerns; null for the instance's own (labs, catalogue, operators)
  account_id bigint,
  environment text CHECK (environment IN ('sandbox', 'live')),
  action text NOT NULL,
  target text,
  -- JSON text, or null where before/after does not apply
  before text,
  after text
);
CREATE INDEX audit_events_account_idx ON audit_events (account_id, id);
CREATE INDEX audit_events_action_idx ON audit_events (action, id);

CREATE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_events_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();
