// Test databases: an in-memory PGlite always, and a fresh schema on the real PostgreSQL server when
// PRINTROUTE_TEST_DATABASE_URL is set (CI sets it). Tests that must hold on both backends loop over
// `testDatabaseKinds()`.
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { type Database, PgliteDatabase, PostgresDatabase } from '../../src/adapters/database.ts'
import { openJobQueue } from '../../src/adapters/job-queue.ts'
import { listMigrationFiles, migrate } from '../../src/adapters/migrator.ts'
import { QUEUE_NAMES } from '../../src/jobs/registry.ts'

export type TestDatabaseKind = 'pglite' | 'postgres'

export const POSTGRES_TEST_URL = process.env.PRINTROUTE_TEST_DATABASE_URL || undefined

export function testDatabaseKinds(): TestDatabaseKind[] {
  return POSTGRES_TEST_URL ? ['pglite', 'postgres'] : ['pglite']
}

export interface TestDatabase {
  db: Database
  /** For pg-boss: the server URL (null for PGlite) and a schema of its own. */
  connectionString: string | null
  jobSchema: string
  close(): Promise<void>
}

// A new PGlite database runs initdb (in WebAssembly) before the migrations: about 2.5 s of CPU, which the suite
// paid once per test app, a few hundred times. Instead, a migrated, empty database is made once and dumped
// (PGlite's dumpDataDir); each test database is loaded from that dump (about 0.4 s). The dump is also kept in
// the system's temporary directory, named by a hash of everything that shapes it (the migrations, the migrator,
// PGlite's version), so each test file's process does not make it again; a change to any of them makes a new
// one. Files are written under a unique name and renamed, so processes making it at once cannot see half a file.
// The dump also holds pg-boss's schema and the queues (schema `pgboss`, what test apps on PGlite use): creating
// them cost every test app another 0.2-0.3 s of CPU; an app now starts on it as printroute restarts on an
// existing data directory.
const MIGRATIONS_DIR = join(import.meta.dirname, '..', '..', 'migrations')
let pgliteTemplate: Promise<Blob> | undefined

function pgliteTemplateFile(): string {
  const hash = createHash('sha256')
  // The package exports no package.json; it sits above the entry point's dist/ folder.
  const pglitePackage = join(createRequire(import.meta.url).resolve('@electric-sql/pglite'), '..', '..', 'package.json')
  hash.update(JSON.parse(readFileSync(pglitePackage, 'utf8')).version)
  const pgBossPackage = join(createRequire(import.meta.url).resolve('pg-boss'), '..', '..', 'package.json')
  hash.update(JSON.parse(readFileSync(pgBossPackage, 'utf8')).version)
  hash.update(QUEUE_NAMES.join(','))
  hash.update(readFileSync(join(import.meta.dirname, '..', '..', 'src', 'adapters', 'migrator.ts')))
  hash.update(readFileSync(join(import.meta.dirname, '..', '..', 'src', 'adapters', 'job-queue.ts')))
  for (const file of listMigrationFiles(MIGRATIONS_DIR)) {
    hash.update(file)
    hash.update(readFileSync(join(MIGRATIONS_DIR, file)))
  }
  return join(tmpdir(), `printroute-test-pglite-${hash.digest('hex').slice(0, 16)}.tar`)
}

async function makePgliteTemplate(): Promise<Blob> {
  const file = pgliteTemplateFile()
  try {
    return new Blob([readFileSync(file)])
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const db = await PgliteDatabase.open()
  try {
    await migrate(db)
    const queue = await openJobQueue({
      db,
      connectionString: null,
      schema: 'pgboss',
      queues: QUEUE_NAMES,
      runsWorkers: false,
      onError: (error) => {
        throw error
      },
    })
    await queue.stop()
    const dump = await db.client.dumpDataDir('none')
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
    writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()))
    renameSync(partial, file)
    return dump
  } finally {
    await db.close()
  }
}

function migratedPgliteTemplate(): Promise<Blob> {
  pgliteTemplate ??= makePgliteTemplate()
  return pgliteTemplate
}

/** A migrated, empty database of the given kind; `close` drops it. */
export async function openTestDatabase(
  kind: TestDatabaseKind,
  options: { maxConnections?: number } = {},
): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const client = new PGlite({ loadDataDir: await migratedPgliteTemplate() })
    await client.waitReady
    const db = new PgliteDatabase(client)
    return { db, connectionString: null, jobSchema: 'pgboss', close: () => db.close() }
  }
  if (!POSTGRES_TEST_URL) throw new Error('PRINTROUTE_TEST_DATABASE_URL is not set')
  const schema = `printroute_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: POSTGRES_TEST_URL })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const db = await PostgresDatabase.open(POSTGRES_TEST_URL, {
    searchPath: schema,
    maxConnections: options.maxConnections,
  })
  await migrate(db)
  return {
    db,
    connectionString: POSTGRES_TEST_URL,
    jobSchema: `${schema}_jobs`,
    async close() {
      await db.close()
      const cleanup = new pg.Client({ connectionString: POSTGRES_TEST_URL })
      await cleanup.connect()
      await cleanup.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await cleanup.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`)
      await cleanup.end()
    },
  }
}

export interface ScratchDatabase {
  /** The new database's URL on the test server. */
  url: string
  /** Drops the database, closing any connection still open to it. */
  drop(): Promise<void>
}

/**
 * A new, empty database on the test PostgreSQL server, for tests that start printroute processes: they use the
 * default schemas (`public`, and `pgboss` for the jobs), so a database of their own is what isolates them.
 */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  if (!POSTGRES_TEST_URL) throw new Error('PRINTROUTE_TEST_DATABASE_URL is not set')
  const name = `${prefix}_${randomBytes(4).toString('hex')}`
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_TEST_URL })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(POSTGRES_TEST_URL)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}
