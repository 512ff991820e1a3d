-- printroute schema, version 44: approval of the orders a channel or a CSV import creates (docs/channels.md#approval,
-- docs/imports.md). A channel's orders are created at once (automatic), held before production for
-- approval_delay_hours (delayed: the order's own holdUntil), or created as drafts the merchant confirms (manual). An
-- import's orders are created at once (automatic) or as drafts (manual).
ALTER TABLE channels ADD COLUMN approval_mode text NOT NULL DEFAULT 'automatic'
  CHECK (approval_mode IN ('automatic', 'delayed', 'manual'));
-- Hours a delayed channel's orders are held (1..336, the 14-day hold limit); null unless delayed.
ALTER TABLE channels ADD COLUMN approval_delay_hours integer
  CHECK ((approval_mode = 'delayed') = (approval_delay_hours IS NOT NULL)
    AND (approval_delay_hours IS NULL OR approval_delay_hours BETWEEN 1 AND 336));

ALTER TABLE order_imports ADD COLUMN approval text NOT NULL DEFAULT 'automatic'
  CHECK (approval IN ('automatic', 'manual'));
