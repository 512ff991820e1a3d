-- printroute schema, version 24: what an API key may do and until when (docs/api.md#api-keys). `scopes` null is
-- every scope, as keys had before; `expires_at` null never expires. Existing keys keep working as they did.
ALTER TABLE api_keys ADD COLUMN scopes text[];
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
