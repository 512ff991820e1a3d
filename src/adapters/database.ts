// One small query interface over the two PostgreSQLs printroute runs on: the embedded PGlite (default, one
// process) and an external PostgreSQL server (DATABASE_URL, several processes). Repositories see only
// `Queryable`; services see `Database.transaction`. Both speak the same SQL, so the same migrations and
// repositories serve both.
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'

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

export class PgliteDatabase implements Database {
  readonly kind = 'pglite'
  readonly client: PGlite

  constructor(client: PGlite) {
    this.client = client
  }

  /** An embedded database in `directory`, or in memory when `directory` is undefined (tests). */
  static async open(directory?: string): Promise<PgliteDatabase> {
    const client = directory === undefined ? new PGlite() : new PGlite(directory)
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

export class PostgresDatabase implements Database {
  readonly kind = 'postgres'
  readonly pool: pg.Pool
  // Every statement runs as a named prepared statement: PostgreSQL parses and plans it once per connection
  // instead of on every call (a quarter of a simple query's cost). Our SQL texts are a small fixed set.
  readonly #statementNames = new Map<string, string>()

  constructor(pool: pg.Pool) {
    this.pool = pool
  }

  /** A pool on `connectionString`; `searchPath` isolates a schema (used by the PostgreSQL test runs). */
  static async open(
    connectionString: string,
    options: { maxConnections?: number; searchPath?: string } = {},
  ): Promise<PostgresDatabase> {
    const pool = new pg.Pool({
      connectionString,
      max: options.maxConnections ?? 10,
      options: options.searchPath ? `-c search_path=${options.searchPath}` : undefined,
    })
    // Fail at start, with the server's own message, rather than on the first request.
    const client = await pool.connect()
    client.release()
    return new PostgresDatabase(pool)
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
    const result = await this.pool.query(this.statement(sql, params))
    return result.rows as Row[]
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql)
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect()
    try {
      await client.query('BEGIN')
      const result = await work({
        query: async <Row>(sql: string, params: readonly unknown[] = []) =>
          (await client.query(this.statement(sql, params))).rows as Row[],
        exec: async (sql: string) => {
          await client.query(sql)
        },
      })
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }

  async close(): Promise<void> {
    // Closing twice is harmless, as with PGlite.
    if (!this.pool.ended) await this.pool.end()
  }
}
