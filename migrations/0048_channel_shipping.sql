-- printroute schema, version 48: a channel's shipping method (docs/channels.md#shipping-method), the method its
-- orders are created with (Standard before the setting existed); and the fulfilment outbox's index for the sweeper
-- (docs/channels.md#fulfilments), which looks for pending rows whose next attempt is overdue.
ALTER TABLE channels ADD COLUMN shipping_method text NOT NULL DEFAULT 'Standard'
  CHECK (shipping_method IN ('Budget', 'Standard', 'StandardPlus', 'Express', 'Overnight'));

CREATE INDEX channel_fulfilments_due_idx ON channel_fulfilments (next_attempt_at, id) WHERE status = 'pending';
