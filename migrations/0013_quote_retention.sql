-- printroute schema, version 13: unused quotes are deleted some time after they expire (the expire-quotes job,
-- docs/api.md#price-locked-quotes). This index finds them without reading the quotes that orders hold.
CREATE INDEX quotes_unused_expiry_idx ON quotes (expires_at) WHERE order_id IS NULL;
