// The reference lab with the lab API's item-by-item reports, cancellation requests and pushes: parcels with their
// own tracking, one item rejected while the rest ships, a merchant's cancel answered by the lab, and jobs pushed
// to the simulator's own push receiver. Real processes (`serve`, `labs simulate`), as in labs-simulate.test.ts;
// on the embedded PGlite and, with PRINTROUTE_TEST_DATABASE_URL, on PostgreSQL.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import {
  killStartedPrintroutes,
  printroute,
  type RunningPrintroute,
  startPrintroute,
  stopProcesses,
  withOutputOnFailure,
} from '../support/cli.ts'
import { createScratchDatabase, POSTGRES_TEST_URL, type ScratchDatabase } from '../support/databases.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

tier('sql')

type Json = Record<string, any>
/** A second phone case made by the same lab as PHONE_CASE, so an order of both is one shipment. */
const OTHER_CASE = 'GLOBAL-TECH-IP12-CS-M'
const RECIPIENT = {
  name: 'Ada Lovelace',
  address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
}

/** A port free now (bound and released), for a push URL that must be known before the simulator starts. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function withParts(label: string, database: () => Promise<ScratchDatabase | null>) {
  describe(`the reference lab's item reports, cancellations and pushes on ${label}`, () => {
    let scratch: ScratchDatabase | null
    let server: RunningPrintroute
    let liveUrl: string
    let dataDir: string
    let stateHome: string
    let liveKey: string
    let labCode: string
    let labKey: string
    const env: Record<string, string> = { PORT: '0', PRINTROUTE_SANDBOX_PORT: '0' }
    const running: RunningPrintroute[] = []
    const withData = (args: string[]) => printroute([...args, '--data-dir', dataDir], env)

    const api = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const response = await fetch(`${liveUrl}${path}`, {
        method,
        headers: { 'x-api-key': liveKey, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
      const answer = (await response.json()) as Json
      assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
      return answer
    }
    const order = async (orderId: string) => (await api('GET', `/v4.0/orders/${orderId}`)).order
    /** A Live order of the given phone cases, allocated: its id and its (one) shipment. */
    const allocatedOrder = async (skus: string[]) => {
      const created = await api('POST', '/v4.0/orders', {
        shippingMethod: 'Standard',
        recipient: RECIPIENT,
        items: skus.map((sku) => ({
          sku,
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ printArea: 'default', url: `${liveUrl}/samples/square.jpg` }],
        })),
      })
      const orderId: string = created.order.id
      const shipment = await withOutputOnFailure(
        () => ({ serve: server }),
        () => waitFor('allocation', async () => (await order(orderId)).shipments[0], 120_000),
      )
      return { orderId, shipment }
    }
    /**
     * Waits until GET /labs/v1/jobs, with the lab's key, lists the shipment: allocated is not yet handed over (its
     * print files are made first), and a simulator run with --once sees only the jobs its lab holds.
     */
    const inLabHands = (shipmentId: string) =>
      withOutputOnFailure(
        () => ({ serve: server }),
        () =>
          waitFor(
            `${shipmentId} submitted to the lab`,
            async () => {
              const response = await fetch(`${liveUrl}/labs/v1/jobs`, { headers: { 'x-api-key': labKey } })
              const answer = (await response.json()) as { jobs?: { shipmentId: string }[] }
              return answer.jobs?.some((job) => job.shipmentId === shipmentId) || undefined
            },
            120_000,
          ),
      )
    const simulate = (name: string, args: string[]) => [
      'labs',
      'simulate',
      '--base-url',
      liveUrl,
      '--api-key',
      labKey,
      '--state-file',
      join(stateHome, `${name}.json`),
      ...args,
    ]

    before(async () => {
      scratch = await database()
      if (scratch) env.DATABASE_URL = scratch.url
      dataDir = mkdtempSync(join(tmpdir(), 'printroute-lab-parts-'))
      stateHome = mkdtempSync(join(tmpdir(), 'printroute-lab-parts-state-'))
      // Loopback URLs allowed: the simulator's push receiver listens on 127.0.0.1.
      server = startPrintroute(['serve', '--data-dir', dataDir, '--metrics-port', '0', '--allow-private-urls'], env)
      liveUrl = (await server.waitFor(/Live API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/))[1] as string
      const created = await withData(['accounts', 'create', '--name', 'Parts shop', '--json'])
      assert.equal(created.code, 0, created.stderr)
      liveKey = JSON.parse(created.stdout).keys.live
      // The lab both phone cases go to, learnt from a first order (which the first test's run then makes).
      const { shipment } = await allocatedOrder([PHONE_CASE])
      labCode = shipment.fulfillmentLocation.labCode
      const key = await withData(['labs', 'keys', 'create', '--lab', labCode])
      assert.equal(key.code, 0, key.stderr)
      labKey = key.stdout.trim()
    })
    after(async () => {
      // Stopped gracefully (SIGTERM) when they end in time; any still running after that is one a failed test left
      // hanging: its output is printed and it is killed.
      await Promise.race([
        stopProcesses([server, ...running]),
        new Promise((resolve) => setTimeout(resolve, 30_000).unref()),
      ])
      killStartedPrintroutes()
      rmSync(dataDir, { recursive: true, force: true })
      rmSync(stateHome, { recursive: true, force: true })
      await scratch?.drop()
    })

    test('--parcels 2: each item printed, then shipped in a parcel of its own with its own tracking, to Delivered', async () => {
      const { orderId, shipment } = await allocatedOrder([PHONE_CASE, OTHER_CASE])
      assert.equal(shipment.items.length, 2, 'one shipment of both cases')
      await inLabHands(shipment.id)
      const run = await printroute(simulate('parcels', ['--parcels', '2', '--once']))
      assert.equal(run.code, 0, run.stderr + run.stdout)
      const [first, second] = shipment.items.map((item: Json) => item.itemId)
      assert.match(run.stdout, new RegExp(`  ${shipment.id}  printed ${first}, ${second} -> Updated`))
      assert.match(run.stdout, new RegExp(`  ${shipment.id}  shipped parcel 1/2 items ${first} \\(.*P1\\) -> Updated`))
      assert.match(run.stdout, new RegExp(`  ${shipment.id}  shipped parcel 2/2 items ${second} \\(.*P2\\) -> Updated`))
      assert.match(run.stdout, new RegExp(`  ${shipment.id}  tracking Delivered -> Updated`))
      const done = await order(orderId)
      assert.equal(done.status.stage, 'Complete')
      const shipped = done.shipments[0]
      assert.equal(shipped.status, 'Shipped')
      assert.equal(shipped.deliveryStatus, 'Delivered')
      assert.deepEqual(
        shipped.parcels.map((parcel: Json) => [parcel.items.map((item: Json) => item.itemId), parcel.tracking.number]),
        [
          [[first], `SIM${shipment.id.replace(/\D/g, '')}P1`],
          [[second], `SIM${shipment.id.replace(/\D/g, '')}P2`],
        ],
      )
      // Run again with its state lost: the same parcels are repeats (Ok), nothing is doubled.
      const again = await printroute(simulate('parcels-again', ['--parcels', '2', '--once']))
      assert.equal(again.code, 0, again.stderr)
      assert.deepEqual((await order(orderId)).shipments, done.shipments)
    })

    test('--reject-items SKU: that item leaves the shipment (allocated again without this lab); the rest ships', async () => {
      const { orderId, shipment } = await allocatedOrder([PHONE_CASE, OTHER_CASE])
      assert.equal(shipment.items.length, 2, 'one shipment of both cases')
      await inLabHands(shipment.id)
      const rejected = (await order(orderId)).items.find((item: Json) => item.sku === OTHER_CASE).id
      const run = await printroute(
        simulate('reject', ['--reject-items', OTHER_CASE, '--reject-reason', 'OutOfStock', '--once']),
      )
      assert.equal(run.code, 0, run.stderr + run.stdout)
      assert.match(run.stdout, new RegExp(`  ${shipment.id}  reject items ${rejected} OutOfStock -> Updated`))
      assert.match(run.stdout, new RegExp(`  ${shipment.id}  tracking Delivered -> Updated`))
      const after = await order(orderId)
      const kept = after.shipments.find((candidate: Json) => candidate.id === shipment.id)
      assert.deepEqual(
        kept.items.map((item: Json) => item.itemId),
        shipment.items.map((item: Json) => item.itemId).filter((itemId: string) => itemId !== rejected),
      )
      assert.equal(kept.status, 'Shipped')
      const elsewhere = after.shipments.find((candidate: Json) =>
        candidate.items.some((item: Json) => item.itemId === rejected),
      )
      if (elsewhere) assert.notEqual(elsewhere.fulfillmentLocation.labCode, labCode, 'not given back to this lab')
      else assert.ok(JSON.stringify(after.status.issues).includes('ItemUnavailable'), JSON.stringify(after.status))
    })

    test("a merchant's cancel before production is answered cancelled by the lab, and the order is Cancelled", async () => {
      const simulator = startPrintroute(simulate('cancel', ['--delay-ms', '4000', '--poll-interval', '200ms']))
      running.push(simulator)
      const { orderId, shipment } = await allocatedOrder([PHONE_CASE])
      await withOutputOnFailure(
        () => ({ serve: server, simulator }),
        async () => {
          await simulator.waitFor(new RegExp(`  ${shipment.id}  acknowledge -> Updated`), 120_000)
          // The simulator now waits 4 s before its next pass: the cancellation is requested meanwhile.
          await api('POST', `/v4.0/orders/${orderId}/actions/cancel`)
          await simulator.waitFor(new RegExp(`  ${shipment.id}  cancellation cancelled -> Updated`), 60_000)
          await waitFor(
            'the order cancelled',
            async () => (await order(orderId)).status.stage === 'Cancelled' || undefined,
          )
        },
      )
      assert.doesNotMatch(simulator.output(), new RegExp(`  ${shipment.id}  in production`))
      simulator.child.kill('SIGTERM')
      assert.equal(await simulator.exited, 0, simulator.output())
    })

    test('jobs pushed to the simulator, signed with the push secret, are made at once without waiting for a poll', async () => {
      const port = await freePort()
      const configured = await withData([
        'labs',
        'configure',
        '--lab',
        labCode,
        '--push-url',
        `http://127.0.0.1:${port}/`,
      ])
      assert.equal(configured.code, 0, configured.stderr)
      // The secret printed once (the `secret:` line shows only its first characters).
      const secret = /signing secret:\s+(whsec_[A-Za-z0-9+/]+=*)/.exec(configured.stdout)?.[1]
      assert.ok(secret, configured.stdout)
      // Polling once an hour: only a push makes it look.
      const simulator = startPrintroute(
        simulate('push', ['--push-port', String(port), '--push-secret', secret, '--poll-interval', '1h']),
      )
      running.push(simulator)
      await simulator.waitFor(/taking pushed events at http:\/\/127\.0\.0\.1:\d+\//)
      await simulator.waitFor(/simulating the lab of/)
      const { orderId, shipment } = await allocatedOrder([PHONE_CASE])
      await withOutputOnFailure(
        () => ({ serve: server, simulator }),
        async () => {
          await simulator.waitFor(
            new RegExp(`  ${shipment.id}  push com\\.printroute\\.lab\\.job\\.created evt_\\w+ -> accepted`),
            120_000,
          )
          await simulator.waitFor(new RegExp(`  ${shipment.id}  tracking Delivered -> Updated`), 120_000)
        },
      )
      assert.doesNotMatch(simulator.output(), /push refused/)
      assert.equal((await order(orderId)).shipments[0].deliveryStatus, 'Delivered')
      const pushes = await fetch(`${liveUrl}/labs/v1/pushes`, { headers: { 'x-api-key': labKey } })
      assert.equal(pushes.status, 200)
      const log = (await pushes.json()) as { pushes: { type: string; status: string }[] }
      assert.ok(
        log.pushes.some((push) => push.type === 'com.printroute.lab.job.created' && push.status === 'delivered'),
        `the push is in the lab's delivery log, delivered: ${JSON.stringify(log)}`,
      )
      simulator.child.kill('SIGTERM')
      assert.equal(await simulator.exited, 0, simulator.output())
    })

    test('labs configure --remove-push: labs show says the lab has no push URL, and its next job is pushed nowhere', async () => {
      const port = await freePort()
      const set = await withData(['labs', 'configure', '--lab', labCode, '--push-url', `http://127.0.0.1:${port}/`])
      assert.equal(set.code, 0, set.stderr)
      const removed = await withData(['labs', 'configure', '--lab', labCode, '--remove-push'])
      assert.equal(removed.code, 0, removed.stderr)
      const shown = await withData(['labs', 'show', '--lab', labCode])
      assert.equal(shown.code, 0, shown.stderr)
      assert.match(shown.stdout, /^push url: +none \(removed\)$/m, shown.stdout)
      assert.doesNotMatch(shown.stdout, /127\.0\.0\.1/, 'the URL is gone')

      const { orderId, shipment } = await allocatedOrder([PHONE_CASE])
      await inLabHands(shipment.id)
      const response = await fetch(`${liveUrl}/labs/v1/pushes?top=100`, { headers: { 'x-api-key': labKey } })
      assert.equal(response.status, 200)
      const { pushes } = (await response.json()) as { pushes: { orderId: string }[] }
      assert.deepEqual(
        pushes.filter((push) => push.orderId === orderId),
        [],
        'no push is written for a job submitted after the removal',
      )
    })
  })
}

withParts('PGlite', async () => null)
if (POSTGRES_TEST_URL !== undefined) withParts('PostgreSQL', () => createScratchDatabase('printroute_lab_parts'))
