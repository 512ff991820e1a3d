// The wake-up listener on the real test server, through a small proxy that can speak for the server: it hands
// notifications on, and when the server ends its connection with a FATAL error and then says more on the same
// socket (PostgreSQL's 57P01 for a backend terminated twice), the listener reports the first, lets the connection
// go, reconnects, and the second goes nowhere. pg-boss's own listener took every listener off the dropped client,
// so that second error was an uncaught exception, the end of the process (here: of this test file's process).
// PostgreSQL only.
import assert from 'node:assert/strict'
import { createServer, connect as dial, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { createScratchDatabase, POSTGRES_TEST_URL, type ScratchDatabase } from '../../test/support/databases.ts'
import { adminShutdownMessage } from '../../test/support/tcp-proxy.ts'
import { tier } from '../../test/support/tiers.ts'
import { waitFor } from '../../test/support/wait.ts'
import { DatabaseUnavailableError } from '../domain/database-unavailable.ts'
import { createWakeUpListener } from './wake-up-listener.ts'

tier('sql')

const skip = POSTGRES_TEST_URL ? false : 'needs PostgreSQL: set PRINTROUTE_TEST_DATABASE_URL (CI does)'

/** Forwards to the server; `lastWords` ends every client connection with two FATAL errors, as one chunk. */
async function startSpeakingProxy(target: { host: string; port: number }) {
  const clients = new Set<Socket>()
  const upstreams = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = dial(target.port, target.host)
    clients.add(client)
    upstreams.add(upstream)
    upstream.on('close', () => upstreams.delete(upstream))
    client.on('close', () => {
      clients.delete(client)
      upstream.destroy()
    })
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    port,
    lastWords(): number {
      const count = clients.size
      for (const client of clients) {
        client.unpipe()
        client.end(Buffer.concat([adminShutdownMessage(), adminShutdownMessage()]))
      }
      return count
    },
    /** Stops forwarding on every open connection, both ways, without closing it: a silent drop. */
    freeze(): number {
      for (const client of clients) client.unpipe()
      for (const upstream of upstreams) upstream.unpipe()
      return clients.size
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of clients) client.destroy()
        server.close(() => resolve())
      }),
  }
}

describe('the wake-up listener', { skip }, () => {
  let database: ScratchDatabase
  let admin: pg.Client
  let proxy: Awaited<ReturnType<typeof startSpeakingProxy>>

  before(async () => {
    database = await createScratchDatabase('printroute_wake_up')
    const url = new URL(database.url)
    proxy = await startSpeakingProxy({ host: url.hostname, port: Number(url.port || 5432) })
    admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
  })

  after(async () => {
    await admin?.end()
    await proxy?.close()
    await database?.drop()
  })

  test('hands notifications on; after the server ends the connection with more to say, reports once and listens again', async () => {
    const url = new URL(database.url)
    url.host = `127.0.0.1:${proxy.port}`
    const errors: Error[] = []
    const payloads: string[] = []
    let reconnects = 0
    const listen = createWakeUpListener({
      connection: { connectionString: url.toString() },
      onError: (error) => errors.push(error),
    })
    const handle = await listen(
      'printroute wake-up test',
      (payload) => payloads.push(payload),
      () => reconnects++,
    )
    try {
      assert.equal(reconnects, 1, 'called once listening, as pg-boss expects')
      await admin.query(`SELECT pg_notify('printroute wake-up test', 'first')`)
      await waitFor('the first notification', () => (payloads.includes('first') ? true : undefined))

      assert.equal(proxy.lastWords(), 1, 'the listener has one connection')
      await waitFor('the listener to listen again', () => (reconnects === 2 ? true : undefined))
      assert.deepEqual(
        errors.map((error) => (error as { code?: string }).code),
        ['57P01'],
        'the first error is reported; the second, said after the connection was let go, goes nowhere',
      )
      await admin.query(`SELECT pg_notify('printroute wake-up test', 'second')`)
      await waitFor('the notification after reconnecting', () => (payloads.includes('second') ? true : undefined))
    } finally {
      await handle.close()
    }
    await waitFor('the closed connection to end on the server', async () => {
      const { rows } = await admin.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [new URL(database.url).pathname.slice(1)],
      )
      return rows[0]?.count === 0 ? true : undefined
    })
  })

  test('a connection that stops answering is found by the heartbeat, reported as unreachable, and replaced', async () => {
    const url = new URL(database.url)
    url.host = `127.0.0.1:${proxy.port}`
    const errors: Error[] = []
    const payloads: string[] = []
    let reconnects = 0
    const listen = createWakeUpListener({
      connection: { connectionString: url.toString() },
      onError: (error) => errors.push(error),
      heartbeatMs: 100,
      heartbeatTimeoutMs: 1_000,
    })
    const handle = await listen(
      'printroute wake-up test',
      (payload) => payloads.push(payload),
      () => reconnects++,
    )
    try {
      const before = reconnects
      assert.equal(proxy.freeze(), 1)
      await waitFor('the listener to listen again', () => (reconnects > before ? true : undefined))
      // (A heartbeat a loaded machine answered too late would be one more such report, and one more reconnection.)
      assert.ok(errors.length >= 1)
      for (const error of errors) {
        assert.ok(error instanceof DatabaseUnavailableError, String(error))
        assert.equal(error.reason, 'connection timeout')
      }
      await admin.query(`SELECT pg_notify('printroute wake-up test', 'after the silent drop')`)
      await waitFor('the notification', () => (payloads.includes('after the silent drop') ? true : undefined))
    } finally {
      await handle.close()
    }
  })
})
