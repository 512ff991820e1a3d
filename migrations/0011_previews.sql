-- printroute schema, version 11: the cache of product previews and mockups (POST /v4.0/previews,
-- docs/api.md#previews). One row per cache key: sha256 of the image bytes, the SKU, the resolved attributes, the
-- sizing, the print area (and the spine image of a book) and the renderer version, hashed together. `result`
-- holds the geometry and warnings answered; the images are blobs (`preview_key`, `mockup_key`). A row is used only
-- before `expires_at`; the `expire-previews` job deletes expired rows and their blobs every hour. Shared by
-- every account: the key is derived from the image itself, so only a caller holding the same image can hit it.
CREATE TABLE preview_cache (
  cache_key text PRIMARY KEY,
  result text NOT NULL,
  preview_key text NOT NULL,
  mockup_key text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX preview_cache_expires_at ON preview_cache (expires_at);
