-- printroute schema, version 27: where an endpoint's missed events begin (docs/callbacks.md#when-a-webhook-endpoint-keeps-failing).
-- Set when the endpoint is disabled: the start of its run of failures when it is disabled for failing, else the
-- moment it is disabled. Re-enabling clears failing_since and disabled_at but keeps this, so that
-- POST /v4.0/webhooks/{id}/redeliver-missed without `since` knows where to start.
ALTER TABLE webhook_endpoints ADD COLUMN missed_since timestamptz;
