-- printroute schema, version 35: the console's "needs attention" queue (docs/admin.md#needs-attention) and the
-- lookup of a shipment's order for a move to another lab (docs/admin.md#moving-a-shipment-to-another-lab). Both
-- read only orders in progress: a partial index keeps that set at hand, oldest change first, without a scan of
-- every order ever made (orders that are Complete or Cancelled cost no index entry).
CREATE INDEX orders_in_progress_idx ON orders (last_updated, id) WHERE stage = 'InProgress';
