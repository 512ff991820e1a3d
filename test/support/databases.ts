// Test databases: an in-memory PGlite always, and a schema pair of its own on the real PostgreSQL server when
// PRINTROUTE_TEST_DATABASE_URL is set (CI sets it). A test file loops over the kinds its tier gives it
// (`tier('sql')` in test/support/tiers.ts gives both). Every database a test opens is as new, though not always
// newly made (see below).
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import {
  type Database,
  PgliteDatabase,
  PostgresDatabase,
  pgliteStartParams,
  type Queryable,
} from '../../src/adapters/database.ts'
import { openJobQueue } from '../../src/adapters/job-queue.ts'
import { listMigrationFiles, migrate } from '../../src/adapters/migrator.ts'
import { QUEUE_NAMES } from '../../src/jobs/registry.ts'
import { type DatabaseSnapshot, resetToSnapshot, takeSnapshot } from './database-reset.ts'
import { POSTGRES_SCHEMA_PREFIX } from './test-run.ts'

export type TestDatabaseKind = 'pglite' | 'postgres'

export const POSTGRES_TEST_URL = process.env.PRINTROUTE_TEST_DATABASE_URL || undefined

export interface TestDatabase {
  db: Database
  /** For pg-boss: the server URL (null for PGlite) and a schema of its own. */
  connectionString: string | null
  jobSchema: string
  /** Ends this test's use of the database: it is emptied for the next test, or dropped. Closing again does nothing. */
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

// Test databases are reused within a process (test/support/database-reset.ts): `close` empties a database back
// to how it started and keeps it for the next `openTestDatabase` of its kind, unless a test changed its
// structure. Whoever holds a closed one can no longer use it: a PGlite is handed out behind a lease that
// refuses every call once closed, and a PostgreSQL database's connections are closed with it.
/** Emptied databases kept per kind (each PGlite holds its own PostgreSQL in memory). */
const IDLE_LIMIT = { pglite: 2, postgres: 4 } as const

/** Emptied PGlites, each with the timer that closes it unless a test takes it first. */
const idlePglites: { client: PGlite; timer: NodeJS.Timeout }[] = []
const made = { pglite: 0, postgres: 0 }

/** How many databases of each kind this process has made (not reused), for the tests of the reuse itself. */
export function testDatabasesMade(): Readonly<typeof made> {
  return { ...made }
}
let pgliteSnapshot: Promise<DatabaseSnapshot> | undefined

/** PGlite's own schemas, which a snapshot leaves alone; every other schema is the tests'. */
const PGLITE_SYSTEM_SCHEMAS = `nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'`

async function userSchemas(client: PGlite): Promise<string[]> {
  const result = await client.query<{ nspname: string }>(
    `SELECT nspname FROM pg_namespace WHERE ${PGLITE_SYSTEM_SCHEMAS} ORDER BY nspname`,
  )
  return result.rows.map((row) => row.nspname)
}

async function newPglite(): Promise<PGlite> {
  const client = new PGlite({ loadDataDir: await migratedPgliteTemplate(), startParams: pgliteStartParams() })
  await client.waitReady
  made.pglite++
  pgliteSnapshot ??= userSchemas(client).then((schemas) => takeSnapshot(new PgliteDatabase(client), schemas))
  await pgliteSnapshot
  return client
}

/**
 * `client` for one test database's life: each method is the client's own until `release`, then refuses. LISTEN
 * subscriptions still open at release are ended, so no callback of this test hears the next test's
 * notifications.
 */
function leasePglite(client: PGlite): { client: PGlite; release(): Promise<void> } {
  let released = false
  const subscriptions = new Set<() => Promise<void>>()
  const refuse = () => Promise.reject(new Error('this test database is closed'))
  const lease = new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      if (property === 'listen') {
        return async (...args: Parameters<PGlite['listen']>) => {
          if (released) return refuse()
          const unsubscribe = await target.listen(...args)
          const end = async () => {
            subscriptions.delete(end)
            await unsubscribe()
          }
          subscriptions.add(end)
          return end
        }
      }
      return (...args: unknown[]) => (released ? refuse() : value.apply(target, args))
    },
  })
  return {
    client: lease,
    async release() {
      if (released) return
      released = true
      for (const end of [...subscriptions]) await end().catch(() => {})
      await keepOrClosePglite(client)
    },
  }
}

async function keepOrClosePglite(client: PGlite): Promise<void> {
  if (client.closed) return
  const snapshot = await pgliteSnapshot
  let reusable = false
  if (snapshot && idlePglites.length < IDLE_LIMIT.pglite) {
    try {
      // DISCARD ALL ends what a session keeps (settings, prepared statements, temporary tables, advisory
      // locks, LISTENs); it fails inside a transaction, which a test then left open.
      await client.exec('DISCARD ALL')
      reusable =
        (await userSchemas(client)).join() === snapshot.schemas.join() &&
        (await resetToSnapshot(new PgliteDatabase(client), snapshot))
    } catch {
      reusable = false
    }
  }
  if (reusable) keepIdle(client)
  else await client.close()
}

// A PGlite loaded from the dump, or one a statement failed on, keeps a 10-second timer of its WebAssembly
// PostgreSQL running (re-armed each time it fires), which would keep the process alive after its last test. An
// idle one is therefore closed when no test has taken it for IDLE_PGLITE_MS; that timer itself is unref'd.
const IDLE_PGLITE_MS = 2_000

function keepIdle(client: PGlite): void {
  const idle = {
    client,
    timer: setTimeout(() => {
      const index = idlePglites.indexOf(idle)
      if (index >= 0) idlePglites.splice(index, 1)
      client.close().catch(() => {})
    }, IDLE_PGLITE_MS).unref(),
  }
  idlePglites.push(idle)
}

function takeIdlePglite(): PGlite | undefined {
  const idle = idlePglites.pop()
  if (idle) clearTimeout(idle.timer)
  return idle?.client
}

interface PostgresEntry {
  schema: string
  snapshot: DatabaseSnapshot
}

const idlePostgres: PostgresEntry[] = []

async function onTestServer<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL })
  await client.connect()
  try {
    return await work({
      query: async <Row>(sql: string, params: readonly unknown[] = []) =>
        (await client.query(sql, params as unknown[])).rows as Row[],
      exec: async (sql: string) => {
        await client.query(sql)
      },
    })
  } finally {
    await client.end()
  }
}

const dropSchemas = (schema: string) =>
  onTestServer((db) => db.exec(`DROP SCHEMA IF EXISTS ${schema}, ${schema}_jobs CASCADE`))

/** A new schema pair on the test server: printroute's tables migrated, pg-boss's schema and queues made. */
async function newPostgresSchema(): Promise<PostgresEntry> {
  const schema = `${POSTGRES_SCHEMA_PREFIX}${randomBytes(6).toString('hex')}`
  await onTestServer((db) => db.exec(`CREATE SCHEMA ${schema}`))
  try {
    const db = await PostgresDatabase.open(POSTGRES_TEST_URL as string, { searchPath: schema })
    try {
      await migrate(db)
      const queue = await openJobQueue({
        db,
        connectionString: POSTGRES_TEST_URL as string,
        schema: `${schema}_jobs`,
        queues: QUEUE_NAMES,
        runsWorkers: false,
        onError: (error) => {
          throw error
        },
      })
      await queue.stop()
    } finally {
      await db.close()
    }
    const snapshot = await onTestServer((db) => takeSnapshot(db, [schema, `${schema}_jobs`]))
    made.postgres++
    return { schema, snapshot }
  } catch (error) {
    await dropSchemas(schema)
    throw error
  }
}

async function keepOrDropPostgres(entry: PostgresEntry): Promise<void> {
  let reusable = false
  if (idlePostgres.length < IDLE_LIMIT.postgres) {
    try {
      reusable = await onTestServer((db) => resetToSnapshot(db, entry.snapshot))
    } catch {
      reusable = false
    }
  }
  if (reusable) idlePostgres.push(entry)
  else await dropSchemas(entry.schema)
}

// The schemas still kept when the process has nothing else to do are dropped then, so none outlives its run.
process.on('beforeExit', () => {
  const leftover = idlePostgres.splice(0)
  // `npm test` drops what fails here at the end of the run (test/support/test-run.ts).
  if (leftover.length > 0) Promise.all(leftover.map((entry) => dropSchemas(entry.schema))).catch(() => {})
})

/** A migrated, empty database of the given kind; `close` gives it back to be emptied for the next test. */
export async function openTestDatabase(
  kind: TestDatabaseKind,
  options: { maxConnections?: number } = {},
): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const lease = leasePglite(takeIdlePglite() ?? (await newPglite()))
    const db = new PgliteDatabase(lease.client)
    return { db, connectionString: null, jobSchema: 'pgboss', close: lease.release }
  }
  if (!POSTGRES_TEST_URL) throw new Error('PRINTROUTE_TEST_DATABASE_URL is not set')
  const entry = idlePostgres.pop() ?? (await newPostgresSchema())
  const db = await PostgresDatabase.open(POSTGRES_TEST_URL, {
    searchPath: entry.schema,
    maxConnections: options.maxConnections,
  })
  let closed: Promise<void> | undefined
  return {
    db,
    connectionString: POSTGRES_TEST_URL,
    jobSchema: `${entry.schema}_jobs`,
    close() {
      closed ??= db.close().then(() => keepOrDropPostgres(entry))
      return closed
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
  const admin = (sql: string) => onTestServer((db) => db.exec(sql))
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(POSTGRES_TEST_URL)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}
