-- printroute schema, version 30: lab keys that can be rotated and show when they were last used (docs/labs.md#lab-keys).
-- expires_at: set on a lab's keys when a new key replaces them (`printroute labs keys rotate`, the console); the old
-- key keeps working until then, like a push signing secret's overlap. NULL: the key does not expire.
-- last_used_at: the last lab API call made with the key, written at most once a minute per key.
ALTER TABLE lab_keys ADD COLUMN expires_at timestamptz;
ALTER TABLE lab_keys ADD COLUMN last_used_at timestamptz;
CREATE INDEX lab_keys_lab_idx ON lab_keys (lab_code);
