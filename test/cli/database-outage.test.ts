// The database goes away and comes back (docs/operations.md#when-the-database-goes-away): one API process
// (`serve --no-workers`) and two `worker` processes, started through the real command line, reach PostgreSQL
// through a TCP proxy on 127.0.0.1 (test/support/tcp-proxy.ts) while orders are in flight. First the test
// terminates every backend of printroute's database (`pg_terminate_backend`) several times; then the proxy cuts
// every connection and refuses new ones for 10 s. Meanwhile the API answers 503 ServiceUnavailable with
// Retry-After and /readyz 503 naming the database. Afterwards every order is Complete with each item in one
// shipment, one charge per order, every callback delivered (the same event under the same id when it came
// twice), and the three processes are the ones that started. Their logs hold neither the connection string, nor
// its password, nor SQL. PostgreSQL only: the embedded database has no server to lose.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { formatEventSequence } from '../../src/domain/order-events.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import {
  killStartedPrintroutes,
  printroute,
  type RunningPrintroute,
  startPrintroute,
  stopProcesses,
  withOutputOnFailure,
} from '../support/cli.ts'
import { createScratchDatabase, POSTGRES_TEST_URL, type ScratchDatabase } from '../support/databases.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

tier('sql')

/** Orders made before the terminations, and more made just before the outage, so both meet orders in flight. */
const ORDERS_BEFORE_TERMINATIONS = 3
const ORDERS_BEFORE_OUTAGE = 3
const TERMINATIONS = 3
/** The outage itself: the test's stimulus, the one fixed wait. */
const OUTAGE_MS = 10_000
/** The API's request timeout: an answer that hung until it would be a 500 TimedOut, not the 503 asserted. */
const REQUEST_TIMEOUT = '20s'
/** A password the server (trust authentication) ignores, so the logs can be searched for it. */
const PASSWORD = 'OutagePassw0rd'

const GB = {
  name: 'Ada Lovelace',
  address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
}
const US = {
  name: 'Grace Hopper',
  address: {
    line1: '1 Navy Way',
    postalOrZipCode: '20001',
    countryCode: 'US',
    townOrCity: 'Washington',
    stateOrCounty: 'DC',
  },
}

const skip = POSTGRES_TEST_URL ? false : 'needs PostgreSQL: set PRINTROUTE_TEST_DATABASE_URL (CI does)'

describe('the database goes away and comes back (PostgreSQL)', () => {
  let scratch: string
  let database: ScratchDatabase
  let databaseName: string
  let proxy: TcpProxy
  let sql: pg.Client
  let images: ImageServer
  let receiver: CallbackReceiver
  const processes: Record<string, RunningPrintroute> = {}

  before(async () => {
    if (skip) return
    scratch = mkdtempSync(join(tmpdir(), 'printroute-outage-'))
    database = await createScratchDatabase('printroute_outage')
    databaseName = new URL(database.url).pathname.slice(1)
    const server = new URL(database.url)
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) })
    sql = new pg.Client({ connectionString: database.url })
    await sql.connect()
    images = await startImageServer()
    receiver = await startCallbackReceiver()
  })

  after(async () => {
    await stopProcesses(Object.values(processes))
    killStartedPrintroutes()
    await sql?.end()
    await proxy?.close()
    await database?.drop()
    await images?.close()
    await receiver?.close()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  test('no process exits, the API answers 503 meanwhile, and every order, charge and callback comes out once', {
    skip,
    timeout: 300_000,
  }, async () => {
    await withOutputOnFailure(() => processes, run)
  })

  /** Ends every connection of printroute's processes to the server (never the test's own, nor other tests'). */
  async function terminatePrintrouteBackends(): Promise<number> {
    const { rows } = await sql.query<{ terminated: number }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS terminated
         FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [databaseName],
    )
    return rows[0]?.terminated ?? 0
  }

  async function run(): Promise<void> {
    // Through the proxy, with a password in the URL to look for in the logs afterwards.
    const url = new URL(proxy.urlThrough(database.url))
    url.username = 'postgres'
    url.password = PASSWORD
    const databaseUrl = url.toString()
    const shared = [
      '--database-url',
      databaseUrl,
      '--data-dir',
      scratch,
      '--allow-private-urls',
      '--simulate-live-labs',
    ]

    const created = await printroute([
      'accounts',
      'create',
      '--name',
      'Outage',
      '--json',
      '--callback-url',
      receiver.url('/outage'),
      '--database-url',
      database.url,
    ])
    assert.equal(created.code, 0, created.stderr)
    const key = (JSON.parse(created.stdout) as { keys: { live: string } }).keys.live

    // One data directory for the three (its files are the blob store; PostgreSQL holds no lock on it).
    const api = startPrintroute([
      'serve',
      '--no-workers',
      '--port',
      '0',
      '--sandbox-port',
      '0',
      '--rate-limit',
      '0',
      '--request-timeout',
      REQUEST_TIMEOUT,
      ...shared,
    ])
    processes.api = api
    const live = (await api.waitFor(/Live API ready at (http:\/\/[^\s"]+)\/v4\.0/))[1] as string
    const sandbox = (await api.waitFor(/Sandbox API ready at (http:\/\/[^\s"]+)\/v4\.0/))[1] as string
    // Lab steps 2 s apart: an order spends most of its life waiting for its simulated lab, so the outages meet
    // orders in flight without big renders.
    const worker = () =>
      startPrintroute([
        'worker',
        ...shared,
        '--public-url',
        live,
        '--sandbox-public-url',
        sandbox,
        '--sim-lab-step',
        '2s',
      ])
    processes['worker A'] = worker()
    processes['worker B'] = worker()
    await Promise.all([processes['worker A'].waitFor(/workers ready/), processes['worker B'].waitFor(/workers ready/)])
    const pids = Object.fromEntries(Object.entries(processes).map(([name, running]) => [name, running.child.pid]))

    const headers = { 'x-api-key': key, 'content-type': 'application/json' }
    const orderIds: string[] = []
    const createOrders = async (count: number) => {
      for (let n = 0; n < count; n += 1) {
        const index = orderIds.length
        const response = await fetch(`${live}/v4.0/orders`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            merchantReference: `outage-${index}`,
            idempotencyKey: `outage-${index}`,
            shippingMethod: 'Standard',
            recipient: index % 2 === 0 ? GB : US,
            items: [
              {
                sku: 'GLOBAL-FAP-8x10',
                copies: 1,
                sizing: 'fillPrintArea',
                assets: [{ printArea: 'default', url: images.url(`poster-${index}.jpg`) }],
              },
              {
                sku: PHONE_CASE,
                copies: 1,
                sizing: 'fillPrintArea',
                assets: [{ url: images.url(`case-${index}.jpg`) }],
              },
            ],
          }),
        })
        const body = (await response.json()) as { outcome: string; order: { id: string } }
        assert.equal(body.outcome, 'Created', JSON.stringify(body))
        orderIds.push(body.order.id)
      }
    }
    /** The orders as the API has them, or undefined while it cannot answer (a request met a termination). */
    const readOrders = async (): Promise<any[] | undefined> => {
      const orders = []
      for (const id of orderIds) {
        const response = await fetch(`${live}/v4.0/orders/${id}`, { headers })
        if (response.status === 503) return undefined
        assert.equal(response.status, 200, await response.clone().text())
        orders.push(((await response.json()) as { order: any }).order)
      }
      return orders
    }
    const assertAllRunning = (when: string) => {
      for (const [name, running] of Object.entries(processes)) {
        assert.ok(
          running.child.exitCode === null && running.child.signalCode === null,
          `${name} exited ${when} (code ${running.child.exitCode}, signal ${running.child.signalCode}); its last ` +
            `output:\n${running.output().slice(-4000)}`,
        )
      }
    }
    const complete = (orders: any[]) => orders.filter((order) => order.status.stage === 'Complete').length

    // (a) Every backend terminated, several times, orders in flight. Each time the processes connect again
    // (new backends, opened after the termination) before the next.
    await createOrders(ORDERS_BEFORE_TERMINATIONS)
    for (let round = 0; round < TERMINATIONS; round += 1) {
      const { rows } = await sql.query<{ now: Date }>('SELECT clock_timestamp() AS now')
      const terminatedAt = rows[0]?.now
      assert.ok((await terminatePrintrouteBackends()) > 0, `round ${round + 1}: printroute had backends to terminate`)
      await waitFor(
        `printroute's processes to connect again after termination ${round + 1}`,
        async () => {
          assertAllRunning(`after termination ${round + 1}`)
          await readOrders()
          const { rows: backends } = await sql.query<{ count: number }>(
            `SELECT count(*)::int AS count FROM pg_stat_activity
              WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_start > $2`,
            [databaseName, terminatedAt],
          )
          return (backends[0]?.count ?? 0) >= 3 ? true : undefined
        },
        60_000,
        200,
      )
    }

    // (b) The proxy cuts every connection and refuses new ones for OUTAGE_MS.
    await createOrders(ORDERS_BEFORE_OUTAGE)
    const before = await waitFor('the orders to be readable', readOrders)
    assert.ok(complete(before) < orderIds.length, 'orders are in flight when the outage begins')
    const outageStarted = Date.now()
    proxy.setMode('refuse')
    proxy.dropAll()

    // The API answers at once, in the documented body: 503 ServiceUnavailable with Retry-After, not a 500, not a
    // hang (a request hanging until the request timeout would be a 500 TimedOut).
    assertAllRunning('when the outage began')
    const read = await fetch(`${live}/v4.0/orders/${orderIds[0]}`, { headers })
    const readBody = (await read.json()) as any
    assert.equal(read.status, 503, JSON.stringify(readBody))
    assert.equal(readBody.outcome, 'ServiceUnavailable')
    assert.equal(readBody.statusCode, 503)
    assert.match(readBody.statusText, /database/i)
    assert.match(readBody.traceParent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
    assert.match(read.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
    const write = await fetch(`${live}/v4.0/orders`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        merchantReference: 'during the outage',
        shippingMethod: 'Standard',
        recipient: GB,
        items: [{ sku: 'GLOBAL-FAP-8x10', copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('x.jpg') }] }],
      }),
    })
    assert.equal(write.status, 503, await write.clone().text())
    assert.equal(((await write.json()) as any).outcome, 'ServiceUnavailable')
    assert.match(write.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
    const readiness = await fetch(`${live}/readyz`)
    const readinessBody = (await readiness.json()) as any
    assert.equal(readiness.status, 503, JSON.stringify(readinessBody))
    assert.equal(readinessBody.outcome, 'NotReady')
    assert.match(readinessBody.statusText, /database/)
    assert.equal(readinessBody.data.checks.database.ok, false)
    // A load balancer keeps asking: each answer is 503, and the log gains no line for any of them (below).
    for (let probe = 0; probe < 20; probe++) assert.equal((await fetch(`${live}/readyz`)).status, 503)

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageStarted + OUTAGE_MS - Date.now())))
    assertAllRunning('during the outage')
    assert.ok(proxy.stats().refused > 0, 'the processes tried to reconnect during the outage')
    proxy.setMode('forward')

    // Everything carries on by itself.
    await waitFor(
      '/readyz to answer 200 again',
      async () => ((await fetch(`${live}/readyz`)).status === 200 ? true : undefined),
      60_000,
      250,
    )
    // To the end of each order's path: its parcel delivered (the simulated carrier's scans follow Complete), so
    // that no event is still to come when the callbacks are compared with the events below.
    const orders = await waitFor(
      'every order to complete and be delivered',
      async () => {
        const current = await readOrders()
        if (!current) return undefined
        for (const order of current) {
          assert.deepEqual(withoutResolutionWarnings(order.status.issues), [], `${order.id} has no issues`)
        }
        const delivered = current.filter((order) => order.deliveredAt !== undefined).length
        return complete(current) === orderIds.length && delivered === orderIds.length ? current : undefined
      },
      240_000,
      500,
    )

    // Each item in exactly one shipment, every shipment shipped.
    for (const order of orders) {
      const shipments = order.shipments.filter((shipment: any) => !shipment.cancelled)
      const shipped = shipments.flatMap((shipment: any) => shipment.items.map((item: any) => item.itemId)).sort()
      assert.deepEqual(shipped, order.items.map((item: any) => item.id).sort(), `${order.id}: each item once`)
      for (const shipment of shipments) assert.equal(shipment.status, 'Shipped')
    }

    // One charge per order, on the order and in the account's ledger.
    const orderNumbers = orderIds.map((id) => Number(id.slice('ord_'.length)))
    for (const order of orders) assert.equal(order.charges.length, 1, `${order.id}: one charge`)
    const { rows: ledger } = await sql.query<{ order_id: string; entries: number }>(
      `SELECT order_id::text, count(*)::int AS entries FROM account_ledger
        WHERE entry = 'invoice-charge' AND order_id = ANY($1::bigint[]) GROUP BY order_id`,
      [orderNumbers],
    )
    assert.deepEqual(
      ledger.map((row) => [`ord_${row.order_id}`, row.entries]).sort(),
      orderIds.map((id) => [id, 1]).sort(),
      'one ledger charge per order',
    )

    // Every callback delivered: each event the orders caused reached the receiver, and an event that came more
    // than once came as the same event (same id, type, sequence and order).
    await waitFor(
      'every callback delivery to be delivered',
      async () => {
        const { rows } = await sql.query<{ pending: number }>(
          `SELECT count(*)::int AS pending FROM callback_deliveries WHERE status <> 'delivered'`,
        )
        return rows[0]?.pending === 0 ? true : undefined
      },
      120_000,
      500,
    )
    const { rows: events } = await sql.query<{ id: string; order_id: string; type: string; sequence: number }>(
      'SELECT id::text, order_id::text, type, sequence FROM order_events WHERE order_id = ANY($1::bigint[])',
      [orderNumbers],
    )
    const received = new Map<string, any[]>()
    for (const callback of receiver.received) {
      received.set(callback.event.id, [...(received.get(callback.event.id) ?? []), callback.event])
    }
    assert.deepEqual([...received.keys()].sort(), events.map((event) => `evt_${event.id}`).sort())
    for (const event of events) {
      for (const copy of received.get(`evt_${event.id}`) ?? []) {
        assert.equal(copy.type, event.type)
        assert.equal(copy.sequence, formatEventSequence(Number(event.sequence)))
        assert.equal(copy.subject, `ord_${event.order_id}`)
      }
    }
    for (const id of orderIds) {
      assert.ok(
        events.some((event) => `ord_${event.order_id}` === id && event.type.endsWith('status.stage.changed#Complete')),
        `${id}: its Complete event was sent`,
      )
    }

    // The processes that started are the ones still running: none exited, each line of each log is its own.
    for (const [name, running] of Object.entries(processes)) {
      assert.equal(running.child.exitCode, null, `${name} did not exit`)
      assert.equal(running.child.signalCode, null, `${name} was not killed`)
      assert.equal(running.child.pid, pids[name])
      const logPids = new Set(
        running
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => (JSON.parse(line) as { pid: number }).pid),
      )
      assert.deepEqual([...logPids], [pids[name]], `${name} logged from one process`)
    }

    // The logs said what happened, in a few lines, and nothing of the connection or the SQL.
    for (const [name, running] of Object.entries(processes)) {
      const output = running.output()
      assert.match(output, /database (connection lost|unreachable) \([^)]+\); (requests answer 503|jobs wait)/, name)
      assert.match(output, /database reachable again after/, name)
      for (const secret of [PASSWORD, databaseUrl, database.url, 'postgres://', `127.0.0.1:${proxy.port}`]) {
        assert.ok(!output.includes(secret), `${name}'s log holds ${secret}`)
      }
      assert.doesNotMatch(output, /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/, `${name}'s log holds SQL`)
      assert.doesNotMatch(output, /"level":(50|60)/, `${name} logged no error (an outage is a warning)`)
      // The outage log speaks for /readyz too; no line carries a driver's stack.
      assert.doesNotMatch(output, /readiness check/, `${name}: /readyz logged a line per request`)
      assert.doesNotMatch(output, /"stack"|\\n\s+at /, `${name}'s log holds a stack`)
    }
  }
})
