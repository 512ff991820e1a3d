-- printroute schema, version 19: the catalogue as versioned data (docs/catalogue.md#versions). Every imported
-- catalogue file is kept as it was given, numbered from 1; one of them is active, and every process serves the
-- active one (it polls `catalogue_active` and switches without a restart).
CREATE TABLE catalogue_versions (
  version integer PRIMARY KEY,
  -- where the file came from, as given ("sample-catalogue.json", a file path, "console upload")
  source_name text NOT NULL,
  -- hex SHA-256 of `content`: importing the same text again finds this version instead of making a new one
  sha256 text NOT NULL UNIQUE,
  -- the file's text exactly as imported (`catalogue export N` gives it back byte for byte)
  content text NOT NULL,
  imported_at timestamptz NOT NULL,
  -- who imported it, as the audit trail describes actors
  imported_by text NOT NULL
);

-- Exactly one row (the CHECK on `id`): the version every process serves. Its row lock serialises imports and
-- activations across processes. `version` is null only until the first start imports a catalogue.
CREATE TABLE catalogue_active (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  version integer REFERENCES catalogue_versions (version),
  activated_at timestamptz,
  activated_by text
);
INSERT INTO catalogue_active (id) VALUES (true);

-- The version an order's latest allocation and a quote's prices were worked out with; null for those made
-- before versions existed.
ALTER TABLE orders ADD COLUMN catalogue_version integer;
ALTER TABLE quotes ADD COLUMN catalogue_version integer;
