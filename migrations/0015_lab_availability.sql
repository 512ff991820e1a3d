-- printroute schema, version 15: whether a lab takes new work (docs/allocation.md#lab-availability). The operator
-- pauses and resumes a lab (printroute labs pause / resume); the lab reports how many more jobs it can take on its
-- date (PUT /labs/v1/capacity); the jobs it was given on its date are counted here, under this row's lock, as Live
-- allocations give them. Dates are the lab's calendar dates ("YYYY-MM-DD"). A lab without a row is not paused and
-- has reported nothing.
CREATE TABLE lab_availability (
  lab_code text PRIMARY KEY,
  paused_at timestamptz,
  capacity_date text,
  capacity_jobs integer CHECK (capacity_jobs BETWEEN 0 AND 10000),
  capacity_base integer NOT NULL DEFAULT 0,
  capacity_reported_at timestamptz,
  given_date text,
  given_jobs integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL
);
