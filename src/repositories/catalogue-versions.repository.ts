// SQL of the catalogue versions and the active version (migrations/0019_catalogue_versions.sql). The one row of
// `catalogue_active` is locked by every import and activation: they run one at a time across processes.
import type { Queryable } from '../adapters/database.ts'

export interface CatalogueVersionRow {
  version: number
  sourceName: string
  sha256: string
  importedAt: Date
  importedBy: string
  /** Its length in bytes (the content itself is read by `readCatalogueContent`). */
  bytes: number
}

export interface ActiveCatalogueRow {
  /** Null until the first start has imported a catalogue. */
  version: number | null
  activatedAt: Date | null
  activatedBy: string | null
}

const VERSION_COLUMNS = `version, source_name AS "sourceName", sha256, imported_at AS "importedAt",
  imported_by AS "importedBy", octet_length(content)::int AS bytes`

/** The active version; takes the row lock with `forUpdate` (in a transaction), serialising imports and activations. */
export async function readActiveCatalogue(db: Queryable, forUpdate = false): Promise<ActiveCatalogueRow> {
  const rows = await db.query<ActiveCatalogueRow>(
    `SELECT version, activated_at AS "activatedAt", activated_by AS "activatedBy" FROM catalogue_active
      ${forUpdate ? 'FOR UPDATE' : ''}`,
  )
  return rows[0] ?? { version: null, activatedAt: null, activatedBy: null }
}

/** Every version, oldest first. */
export async function listCatalogueVersions(db: Queryable): Promise<CatalogueVersionRow[]> {
  return db.query<CatalogueVersionRow>(`SELECT ${VERSION_COLUMNS} FROM catalogue_versions ORDER BY version`)
}

export async function findCatalogueVersion(db: Queryable, version: number): Promise<CatalogueVersionRow | undefined> {
  const rows = await db.query<CatalogueVersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM catalogue_versions WHERE version = $1`,
    [version],
  )
  return rows[0]
}

export async function findCatalogueVersionBySha256(
  db: Queryable,
  sha256: string,
): Promise<CatalogueVersionRow | undefined> {
  const rows = await db.query<CatalogueVersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM catalogue_versions WHERE sha256 = $1`,
    [sha256],
  )
  return rows[0]
}

/** The stored text of a version, exactly as imported; undefined for an unknown version. */
export async function readCatalogueContent(db: Queryable, version: number): Promise<string | undefined> {
  const rows = await db.query<{ content: string }>('SELECT content FROM catalogue_versions WHERE version = $1', [
    version,
  ])
  return rows[0]?.content
}

/** Stores a new version numbered one above the highest; run under `readActiveCatalogue(tx, true)`'s lock. */
export async function insertCatalogueVersion(
  db: Queryable,
  version: { sourceName: string; sha256: string; content: string; importedAt: Date; importedBy: string },
): Promise<number> {
  const rows = await db.query<{ version: number }>(
    `INSERT INTO catalogue_versions (version, source_name, sha256, content, imported_at, imported_by)
     SELECT coalesce(max(version), 0) + 1, $1, $2, $3, $4, $5 FROM catalogue_versions
     RETURNING version`,
    [version.sourceName, version.sha256, version.content, version.importedAt, version.importedBy],
  )
  return (rows[0] as { version: number }).version
}

export async function setActiveCatalogue(db: Queryable, version: number, at: Date, by: string): Promise<void> {
  await db.query('UPDATE catalogue_active SET version = $1, activated_at = $2, activated_by = $3', [version, at, by])
}
