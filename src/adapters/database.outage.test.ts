// The PostgreSQL adapter when the server goes away (docs/operations.md#when-the-database-goes-away), on the
// real test server behind a TCP proxy (test/support/tcp-proxy.ts): a closed idle connection, a connection that
// breaks in the middle of a transaction, a COMMIT whose answer never comes, a server that refuses connections.
// Each time the caller gets DatabaseUnavailableError (or nothing, for an idle connection), the process goes on,
// a broken connection is never handed out again, and the next statement works once the server is back. Before
// the adapter listened for them, the first two ended this process. PostgreSQL only.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { createScratchDatabase, POSTGRES_TEST_URL, type ScratchDatabase } from '../../test/support/databases.ts'
import { startTcpProxy, type TcpProxy } from '../../test/support/tcp-proxy.ts'
import { tier } from '../../test/support/tiers.ts'
import { waitFor } from '../../test/support/wait.ts'
import { DatabaseUnavailableError } from '../domain/database-unavailable.ts'
import { PostgresDatabase } from './database.ts'

tier('sql')

const skip = POSTGRES_TEST_URL ? false : 'needs PostgreSQL: set PRINTROUTE_TEST_DATABASE_URL (CI does)'

describe('PostgresDatabase when the server goes away', { skip }, () => {
  let database: ScratchDatabase
  let databaseName: string
  let proxy: TcpProxy
  let admin: pg.Client
  let db: PostgresDatabase
  const heard: string[] = []

  before(async () => {
    database = await createScratchDatabase('printroute_adapter_outage')
    databaseName = new URL(database.url).pathname.slice(1)
    const server = new URL(database.url)
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) })
    admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    await admin.query('CREATE TABLE things (id integer PRIMARY KEY)')
    db = await PostgresDatabase.open(proxy.urlThrough(database.url), { maxConnections: 2, connectTimeoutMs: 1_000 })
    db.watchConnections({
      failed: (reason) => heard.push(`failed ${reason}`),
      reachable: () => heard.push('reachable'),
    })
  })

  after(async () => {
    await db?.close()
    await admin?.end()
    await proxy?.close()
    await database?.drop()
  })

  /** Terminates the adapter's backends (the proxy's database only, never the admin connection). */
  async function terminateBackends(): Promise<number> {
    const { rows } = await admin.query<{ count: number }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS count
         FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [databaseName],
    )
    return rows[0]?.count ?? 0
  }

  async function backendsGone(): Promise<void> {
    await waitFor('the terminated backends to be gone', async () => {
      const { rows } = await admin.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [databaseName],
      )
      return rows[0]?.count === 0 ? true : undefined
    })
  }

  /** The pool has dropped every connection the proxy cut: the next statement opens a new one. */
  const poolEmptied = () =>
    waitFor('the pool to drop the cut connections', () => (db.pool.totalCount === 0 ? true : undefined))

  const count = async () =>
    Number((await admin.query<{ n: string }>('SELECT count(*) AS n FROM things')).rows[0]?.n ?? Number.NaN)

  test('an idle connection the server closes is reported and replaced', async () => {
    await db.query('SELECT 1')
    heard.length = 0
    assert.ok((await terminateBackends()) > 0)
    await waitFor('the pool to hear of the closed connection', () => (heard.length > 0 ? true : undefined))
    assert.deepEqual(heard, ['failed 57P01 admin_shutdown'])
    assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }])
    assert.deepEqual(heard, ['failed 57P01 admin_shutdown', 'reachable'])
  })

  test('a connection that breaks between two statements of a transaction fails that transaction only', async () => {
    const failed = db.transaction(async (tx) => {
      await tx.query('INSERT INTO things (id) VALUES (1)')
      assert.ok((await terminateBackends()) > 0)
      await backendsGone()
      await tx.query('INSERT INTO things (id) VALUES (2)')
    })
    await assert.rejects(failed, DatabaseUnavailableError)
    assert.equal(await count(), 0, 'nothing of the broken transaction was committed')
    // The broken connection went out of the pool: two transactions at once (the pool's size) both work.
    await Promise.all([3, 4].map((id) => db.transaction((tx) => tx.query('INSERT INTO things (id) VALUES ($1)', [id]))))
    assert.equal(await count(), 2)
    await admin.query('DELETE FROM things')
  })

  test('a connection terminated as it is handed out fails that transaction, and the process goes on', async () => {
    proxy.setMode('terminate-when-ready')
    proxy.dropAll()
    await poolEmptied()
    const accepted = proxy.stats().accepted
    // The FATAL arrives in the chunk that completes the connection, before the transaction has the connection.
    await assert.rejects(
      db.transaction((tx) => tx.query('INSERT INTO things (id) VALUES (1)')),
      DatabaseUnavailableError,
    )
    assert.equal(proxy.stats().accepted, accepted + 1, 'the transaction met a connection of the terminating kind')
    await poolEmptied()
    proxy.setMode('forward')
    await db.transaction((tx) => tx.query('INSERT INTO things (id) VALUES (2)'))
    assert.equal(await count(), 1, 'only the transaction on a working connection wrote')
    await admin.query('DELETE FROM things')
  })

  test('a COMMIT whose answer never comes fails with DatabaseUnavailableError; an idempotent retry is safe', async () => {
    const write = (tx: { query: PostgresDatabase['query'] }) =>
      tx.query('INSERT INTO things (id) VALUES (10) ON CONFLICT (id) DO NOTHING')
    const cut = proxy.cutAfter('COMMIT')
    await assert.rejects(db.transaction(write), DatabaseUnavailableError)
    await cut
    // The server did commit: "unavailable" at COMMIT means the outcome is unknown, so callers retry steps that
    // are idempotent (a job's step, an order created with its idempotency key).
    await waitFor('the cut connection to end on the server', async () => ((await count()) === 1 ? true : undefined))
    await db.transaction(write)
    assert.equal(await count(), 1, 'the retry added nothing')
    await admin.query('DELETE FROM things')
  })

  test('a server that refuses connections: statements fail at once, and work again when it is back', async () => {
    proxy.setMode('refuse')
    proxy.dropAll()
    await poolEmptied()
    heard.length = 0
    try {
      await assert.rejects(db.query('SELECT 1'), (error: unknown) => {
        assert.ok(error instanceof DatabaseUnavailableError, String(error))
        assert.match(error.reason, /^(ECONNRESET|ECONNREFUSED|connection terminated)$/)
        assert.doesNotMatch(error.message, /127\.0\.0\.1|postgres:|SELECT/)
        return true
      })
      await assert.rejects(
        db.transaction((tx) => tx.query('SELECT 1')),
        DatabaseUnavailableError,
      )
    } finally {
      proxy.setMode('forward')
    }
    assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }])
    assert.equal(heard.at(-1), 'reachable')
  })

  test('a server that does not answer: a statement gives up after the connect timeout', async () => {
    proxy.setMode('hold')
    proxy.dropAll()
    await poolEmptied()
    try {
      await assert.rejects(db.query('SELECT 1'), (error: unknown) => {
        assert.ok(error instanceof DatabaseUnavailableError, String(error))
        assert.equal(error.reason, 'connection timeout')
        return true
      })
    } finally {
      proxy.setMode('forward')
    }
    assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }])
  })
})
