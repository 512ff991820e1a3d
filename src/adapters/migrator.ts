// Forward-only SQL migrations from migrations/NNNN_name.sql, applied in order, each in its own transaction
// together with its row in schema_migrations. An advisory lock makes concurrent starts (several API
// processes on one PostgreSQL) apply each file exactly once.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Database } from './database.ts'

const MIGRATIONS_DIR = join(import.meta.dirname, '..', '..', 'migrations')
// Arbitrary constant shared by every printroute process: "printroute migrations".
const MIGRATION_LOCK_KEY = 7_275_011_001

export interface MigrationResult {
  applied: string[]
}

export function listMigrationFiles(directory = MIGRATIONS_DIR): string[] {
  return readdirSync(directory)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort()
}

export async function migrate(db: Database, directory = MIGRATIONS_DIR): Promise<MigrationResult> {
  await db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  )
  const applied: string[] = []
  for (const file of listMigrationFiles(directory)) {
    const version = file.slice(0, -'.sql'.length)
    const sql = readFileSync(join(directory, file), 'utf8')
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [version])
      if (done.length > 0) return
      await tx.exec(sql)
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version])
      applied.push(version)
    })
  }
  return { applied }
}
