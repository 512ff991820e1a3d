// One small query interface over the two PostgreSQLs printroute runs on: the embedded PGlite (default, one
// process) and an external PostgreSQL server (DATABASE_URL, several processes). Repositories see only
// `Queryable`; services see `Database.transaction`. Both speak the same SQL, so the same migrations and
// repositories serve both.
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { DatabaseUnavailableError, databaseUnavailableReason } from '../domain/database-unavailable.ts'
import { PRINTROUTE_NODE_FLAGS } from './node-flags.ts'

export interface Queryable {
  /** Runs one parameterised statement and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres'
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/**
 * How much memory the embedded database keeps for its page cache. PostgreSQL's default (128 MB) is allocated
 * and touched when PGlite starts, so it is resident from the first second whether or not the data fills it:
 * it was a third of an idle `serve`'s memory. An embedded database serves one machine's orders; pages it does not
 * keep are read again from the operating system's file cache, which costs a system call, not a disk seek.
 * Set on the command line (not in postgresql.conf: PGlite's `postgresqlconf` option rewrites the data
 * directory's file), so the directory's own settings (time zone, locale) are untouched.
 */
export const PGLITE_SHARED_BUFFERS = '32MB'

/** PGlite's own start parameters plus printroute's (PGLITE_SHARED_BUFFERS); every embedded database uses them. */
export function pgliteStartParams(): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`]
}

export class PgliteDatabase implements Database {
  readonly kind = 'pglite'
  readonly client: PGlite

  constructor(client: PGlite) {
    this.client = client
  }

  /** An embedded database in `directory`, or in memory when `directory` is undefined (tests). */
  /** `onCreate` is called on a first start (a new data directory), before initdb runs: the long part of it. */
  static async open(directory?: string, options: { onCreate?: () => void } = {}): Promise<PgliteDatabase> {
    if (directory !== undefined) await createPgliteDataDirectory(directory, options.onCreate)
    const startParams = pgliteStartParams()
    const client = directory === undefined ? new PGlite({ startParams }) : new PGlite(directory, { startParams })
    await client.waitReady
    return new PgliteDatabase(client)
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const result = await this.client.query<Row>(sql, params as unknown[])
    return result.rows
  }

  async exec(sql: string): Promise<void> {
    await this.client.exec(sql)
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    // PGlite is a single connection: its transaction() holds a mutex, so concurrent transactions run one
    // after another, which gives the same guarantees as row locks on a server.
    return this.client.transaction((tx) =>
      work({
        query: async <Row>(sql: string, params: readonly unknown[] = []) =>
          (await tx.query<Row>(sql, params as unknown[])).rows,
        exec: async (sql: string) => {
          await tx.exec(sql)
        },
      }),
    )
  }

  async close(): Promise<void> {
    if (!this.client.closed) await this.client.close()
  }
}

/** The initdb child's script (exported for the test that checks it finds PGlite's initdb). */
export const INITDB_SCRIPT = join(import.meta.dirname, 'pglite-initdb.ts')

/**
 * On the first start (no data directory yet), runs initdb in a child process that exits when it is done, so
 * the serving process never holds initdb's memory (docs/operations.md, "At rest"). The child builds the
 * directory under a temporary name beside it and this process renames it into place, so a start killed
 * during initdb leaves no half-made data directory; the caller holds the data directory's lock, so no other
 * process is making one at the same time. A directory that exists but holds no database is left to PGlite,
 * as before.
 */
async function createPgliteDataDirectory(directory: string, onCreate?: () => void): Promise<void> {
  if (existsSync(join(directory, 'PG_VERSION'))) return
  if (existsSync(directory) && readdirSync(directory).length > 0) return
  onCreate?.()
  const parent = dirname(directory)
  const prefix = `${basename(directory)}.initdb-`
  for (const entry of existsSync(parent) ? readdirSync(parent) : []) {
    if (entry.startsWith(prefix)) rmSync(join(parent, entry), { recursive: true, force: true })
  }
  const building = join(parent, `${prefix}${process.pid}`)
  try {
    await promisify(execFile)(process.execPath, [...PRINTROUTE_NODE_FLAGS, INITDB_SCRIPT, building], {
      maxBuffer: 16 * 1024 * 1024,
    })
  } catch (error) {
    rmSync(building, { recursive: true, force: true })
    const failed = error as { stderr?: string; message: string }
    throw new Error(`creating the embedded database in ${directory} failed: ${failed.stderr || failed.message}`)
  }
  rmSync(directory, { recursive: true, force: true })
  renameSync(building, directory)
}

/**
 * How long taking a connection from the pool may wait (a new connection to a server that does not answer, or
 * a pool whose connections are all in use) before the caller gets DatabaseUnavailableError: well inside the
 * request timeout (60 s), so a request answers 503 instead of hanging (docs/operations.md).
 */
export const DATABASE_CONNECT_TIMEOUT_MS = 10_000

/** Who hears that the database became unreachable, and reachable again (the process's outage log). */
export interface ConnectionWatcher {
  failed(reason: string): void
  reachable(): void
}

const UNWATCHED: ConnectionWatcher = { failed: () => {}, reachable: () => {} }

/** The first connection error each pooled client met, heard at any time (see `hearEveryClientError`). */
const clientErrors = new WeakMap<pg.Client, Error>()

/**
 * Gives every connection `pool` opens a listener for its errors for as long as it lives. pg-pool listens only
 * while a connection is idle, and takes its listener off at checkout, before the caller's `await pool.connect()`
 * resumes: a server's FATAL (57P01 when a backend is terminated) read in the same chunk as the ReadyForQuery that
 * completed the connection is emitted in that gap, to nobody, and Node ends the process. The error is kept for
 * whoever holds the connection (`brokenConnection`). Used on our pool and on pg-boss's.
 */
export function hearEveryClientError(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      if (!clientErrors.has(client)) clientErrors.set(client, error)
    })
  })
}

/** The error that broke `client`'s connection, if one did. */
function brokenConnection(client: pg.Client): Error | undefined {
  return clientErrors.get(client)
}

export class PostgresDatabase implements Database {
  readonly kind = 'postgres'
  readonly pool: pg.Pool
  // Every statement runs as a named prepared statement: PostgreSQL parses and plans it once per connection
  // instead of on every call (a quarter of a simple query's cost). Our SQL texts are a small fixed set.
  readonly #statementNames = new Map<string, string>()
  #watcher: ConnectionWatcher = UNWATCHED

  constructor(pool: pg.Pool) {
    this.pool = pool
    // A server that closes an idle connection (a restart, a failover, pg_terminate_backend, an idle timeout)
    // makes the pool emit 'error'; unheard, that event ended the process. The pool has dropped the connection
    // already and opens another for the next query, so there is only the outage to report.
    pool.on('error', (error) => this.#watcher.failed(databaseUnavailableReason(error) ?? 'connection error'))
    pool.on('connect', () => this.#watcher.reachable())
    hearEveryClientError(pool)
  }

  /** A pool on `connectionString`; `searchPath` isolates a schema (used by the PostgreSQL test runs). */
  static async open(
    connectionString: string,
    options: { maxConnections?: number; searchPath?: string; connectTimeoutMs?: number } = {},
  ): Promise<PostgresDatabase> {
    const pool = new pg.Pool({
      connectionString,
      max: options.maxConnections ?? 10,
      options: options.searchPath ? `-c search_path=${options.searchPath}` : undefined,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DATABASE_CONNECT_TIMEOUT_MS,
    })
    const db = new PostgresDatabase(pool)
    // Fail at start, with the server's own message, rather than on the first request.
    const client = await pool.connect()
    client.release()
    return db
  }

  /** Reports connection failures and recoveries to `watcher` from now on. */
  watchConnections(watcher: ConnectionWatcher): void {
    this.#watcher = watcher
  }

  /** `error` as DatabaseUnavailableError (reported to the watcher) when it says the server is unreachable. */
  #unavailable(error: unknown): unknown {
    const reason = databaseUnavailableReason(error)
    if (reason === null) return error
    this.#watcher.failed(reason)
    return error instanceof DatabaseUnavailableError ? error : new DatabaseUnavailableError(reason)
  }

  statement(sql: string, params: readonly unknown[]): pg.QueryConfig {
    let name = this.#statementNames.get(sql)
    if (name === undefined) {
      name = `printroute_${this.#statementNames.size + 1}`
      this.#statementNames.set(sql, name)
    }
    return { name, text: sql, values: params as unknown[] }
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    try {
      const result = await this.pool.query(this.statement(sql, params))
      return result.rows as Row[]
    } catch (error) {
      throw this.#unavailable(error)
    }
  }

  async exec(sql: string): Promise<void> {
    try {
      await this.pool.query(sql)
    } catch (error) {
      throw this.#unavailable(error)
    }
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw this.#unavailable(error)
    }
    // Set when the connection must not go back to the pool: it broke, or its transaction could not be ended.
    let discard: Error | undefined
    try {
      // A connection that broke before it reached us (see hearEveryClientError) fails as the server went away.
      const brokenAtCheckout = brokenConnection(client)
      if (brokenAtCheckout) throw brokenAtCheckout
      await client.query('BEGIN')
      const result = await work({
        query: async <Row>(sql: string, params: readonly unknown[] = []) =>
          (await client.query(this.statement(sql, params))).rows as Row[],
        exec: async (sql: string) => {
          await client.query(sql)
        },
      })
      // When the connection dies during COMMIT, whether the transaction committed is unknown. The caller gets
      // DatabaseUnavailableError either way and retries: every step is idempotent (docs/pipeline.md), and an
      // API client retries with its idempotency key.
      await client.query('COMMIT')
      return result
    } catch (error) {
      const broken = brokenConnection(client)
      if (broken || databaseUnavailableReason(error) !== null) discard = broken ?? (error as Error)
      else {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          discard = rollbackError
        })
      }
      throw this.#unavailable(error)
    } finally {
      // A broken connection is destroyed (release with an error), never handed to the next caller. Whatever it
      // still says while it closes (57P01 after the statement already failed) goes to the listener every
      // connection keeps.
      client.release(discard ?? brokenConnection(client))
    }
  }

  async close(): Promise<void> {
    // Closing twice is harmless, as with PGlite.
    if (!this.pool.ended) await this.pool.end()
  }
}
