-- printroute schema, version 5: indexes for the callback delivery sweeper and the retention of finished
-- deliveries, their attempts and events (issue 11; docs/callbacks.md).

-- The sweeper pages through pending deliveries by id; few deliveries are pending at any time.
CREATE INDEX callback_deliveries_pending_idx ON callback_deliveries (id) WHERE status = 'pending';
-- Retention: finished deliveries by the time they finished.
CREATE INDEX callback_deliveries_finished_idx ON callback_deliveries (updated_at)
  WHERE status IN ('delivered', 'failed');
-- Retention: whether an event still has a delivery, and whether a delivery has a redelivery (both are also
-- the foreign key checks of the deletes).
CREATE INDEX callback_deliveries_event_idx ON callback_deliveries (event_id);
CREATE INDEX callback_deliveries_redelivery_idx ON callback_deliveries (redelivery_of)
  WHERE redelivery_of IS NOT NULL;
