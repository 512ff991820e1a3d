-- printroute schema, version 8: rate limit counters shared by every API process on one PostgreSQL
-- (docs/operations.md#rate-limits). One row per limited key (an API key's prefix or a client address, with its
-- environment): the requests counted in its current window and when that window ends; the first request
-- after the end starts a new window. UNLOGGED: written on every API request, and losing the counts in a crash
-- only resets the limits, so they skip the write-ahead log. Rows of ended windows are deleted lazily.
CREATE UNLOGGED TABLE rate_limit_counters (
  limit_key text PRIMARY KEY,
  requests integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);
