-- printroute schema, version 34: operators' notes on orders (docs/admin.md#acting-on-an-order). A note is written
-- by an operator (console) or the command line, shown on the console's order page with its author and time, and
-- recorded in the audit trail (order.noteAdded). Notes are never changed or deleted.
CREATE TABLE order_notes (
  id bigserial PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  at timestamptz NOT NULL,
  -- the author as the audit trail names actors: its kind, its identity and how it is shown
  author_kind text NOT NULL CHECK (author_kind IN ('operator', 'cli')),
  author text NOT NULL,
  author_description text NOT NULL,
  body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 2000)
);
CREATE INDEX order_notes_order_idx ON order_notes (order_id, id);
