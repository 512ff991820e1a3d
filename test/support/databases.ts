// Test databases: an in-memory PGlite always, and a fresh schema on the real PostgreSQL server when
// PRINTROUTE_TEST_DATABASE_URL is set (CI sets it). Tests that must hold on both backends loop over
// `testDatabaseKinds()`.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { type Database, PgliteDatabase, PostgresDatabase } from '../../src/adapters/database.ts'
import { migrate } from '../../src/adapters/migrator.ts'

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

/** A migrated, empty database of the given kind; `close` drops it. */
export async function openTestDatabase(
  kind: TestDatabaseKind,
  options: { maxConnections?: number } = {},
): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const db = await PgliteDatabase.open()
    await migrate(db)
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
