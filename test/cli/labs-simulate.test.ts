// The reference lab end to end: a real `printroute serve` and `printroute labs simulate` each in a process of its
// own, the simulator reaching the server only through the lab API over HTTP. A Live order goes through
// allocation, render and submission; the simulator checks the files, acknowledges, ships and reports the carrier's
// scans to Delivered, and the merchant's order ends Complete and delivered. A restart of the simulator repeats
// nothing. On the embedded PGlite and, with PRINTROUTE_TEST_DATABASE_URL, on PostgreSQL.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { newSigningSecret, webhookHeaders } from '../../src/domain/webhook-signature.ts'
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

const RECIPIENT = {
  name: 'Ada Lovelace',
  address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
}

/** A serving printroute on its own data (a data directory, and a PostgreSQL database when given). */
interface Served {
  server: RunningPrintroute
  liveUrl: string
  env: Record<string, string>
  dataDir: string
  /** `printroute <args> --data-dir <dir>` on the same data. */
  withData(args: string[]): ReturnType<typeof printroute>
}

async function serve(database: ScratchDatabase | null): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'printroute-lab-simulate-'))
  const env: Record<string, string> = {
    PORT: '0',
    PRINTROUTE_SANDBOX_PORT: '0',
    ...(database ? { DATABASE_URL: database.url } : {}),
  }
  const server = startPrintroute(['serve', '--data-dir', dataDir, '--metrics-port', '0'], env)
  const liveUrl = (await server.waitFor(/Live API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/))[1] as string
  return { server, liveUrl, env, dataDir, withData: (args) => printroute([...args, '--data-dir', dataDir], env) }
}

/** A Live order of one phone case with the server's own sample image, placed with the account's Live key. */
async function placeLiveOrder(served: Served, liveKey: string): Promise<string> {
  const response = await fetch(`${served.liveUrl}/v4.0/orders`, {
    method: 'POST',
    headers: { 'x-api-key': liveKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      merchantReference: 'lab-simulate',
      shippingMethod: 'Standard',
      recipient: RECIPIENT,
      items: [
        {
          sku: PHONE_CASE,
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ printArea: 'default', url: `${served.liveUrl}/samples/square.jpg` }],
        },
      ],
    }),
  })
  const body = (await response.json()) as { order: { id: string } }
  assert.equal(response.status, 200, JSON.stringify(body))
  return body.order.id
}

async function getOrder(served: Served, liveKey: string, orderId: string): Promise<any> {
  const response = await fetch(`${served.liveUrl}/v4.0/orders/${orderId}`, { headers: { 'x-api-key': liveKey } })
  assert.equal(response.status, 200)
  return ((await response.json()) as { order: unknown }).order
}

function endToEnd(label: string, database: () => Promise<ScratchDatabase | null>) {
  describe(`the reference lab on ${label}`, () => {
    let served: Served
    let scratch: ScratchDatabase | null
    let stateHome: string
    const running: RunningPrintroute[] = []

    before(async () => {
      scratch = await database()
      served = await serve(scratch)
      stateHome = mkdtempSync(join(tmpdir(), 'printroute-lab-simulate-state-'))
    })
    after(async () => {
      // Stopped gracefully (SIGTERM) when they end in time; any still running after that is one a failed test left
      // hanging: its output is printed and it is killed.
      await Promise.race([
        stopProcesses([served.server, ...running]),
        new Promise((resolve) => setTimeout(resolve, 30_000).unref()),
      ])
      killStartedPrintroutes()
      rmSync(served.dataDir, { recursive: true, force: true })
      rmSync(stateHome, { recursive: true, force: true })
      await scratch?.drop()
    })

    test('a Live order goes from allocation to Complete and Delivered with the simulator as its lab; a restart repeats nothing', async () => {
      const created = await served.withData(['accounts', 'create', '--name', 'Simulated shop', '--json'])
      assert.equal(created.code, 0, created.stderr)
      const liveKey = (JSON.parse(created.stdout) as { keys: { live: string } }).keys.live
      const orderId = await placeLiveOrder(served, liveKey)
      const allocated = await withOutputOnFailure(
        () => ({ serve: served.server }),
        () => waitFor('allocation', async () => (await getOrder(served, liveKey, orderId)).shipments[0], 120_000),
      )
      const labCode: string = allocated.fulfillmentLocation.labCode
      const keyCreated = await served.withData(['labs', 'keys', 'create', '--lab', labCode])
      assert.equal(keyCreated.code, 0, keyCreated.stderr)
      const labKey = keyCreated.stdout.trim()
      assert.match(labKey, /^pr_lab_/)

      const stateFile = join(stateHome, 'lab.json')
      const simulatorArgs = ['labs', 'simulate', '--base-url', served.liveUrl, '--poll-interval', '200ms']
      // The key from the environment, as a lab's deployment would keep it out of its command line.
      const simulatorEnv = { PRINTROUTE_LAB_KEY: labKey, XDG_STATE_HOME: stateHome }
      const simulator = startPrintroute([...simulatorArgs, '--state-file', stateFile], simulatorEnv)
      running.push(simulator)
      const shipmentId: string = allocated.id
      const line = (step: string) => new RegExp(`  ${shipmentId}  ${step}[^\\n]* -> Updated\\n`)
      await withOutputOnFailure(
        () => ({ serve: served.server, simulator }),
        async () => {
          // A key prefix is base64url: it may hold "-" as well as word characters.
          await simulator.waitFor(/simulating the lab of pr_lab_[\w-]+ at http:\/\/127\.0\.0\.1:\d+ /, 120_000)
          await simulator.waitFor(new RegExp(`  ${shipmentId}  files checked: 1 print files, sha256 and size`), 120_000)
          for (const step of ['acknowledge', 'in production', 'shipped parcel 1/1', 'tracking InTransit']) {
            await simulator.waitFor(line(step), 60_000)
          }
          await simulator.waitFor(line('tracking Delivered'), 60_000)
        },
      )
      const order = await getOrder(served, liveKey, orderId)
      assert.equal(order.status.stage, 'Complete')
      const shipment = order.shipments[0]
      assert.equal(shipment.id, shipmentId)
      assert.equal(shipment.status, 'Shipped')
      assert.equal(shipment.deliveryStatus, 'Delivered')
      assert.ok(shipment.deliveredAt, 'the shipment has its delivery time')
      assert.ok(order.deliveredAt, 'the order is delivered')
      assert.deepEqual(shipment.carrier, allocated.carrier, 'the lab ships with the carrier it was given')
      assert.match(shipment.tracking.number, /^SIM\d+P1$/)
      assert.equal(shipment.tracking.url, `https://tracking.example/${shipment.tracking.number}`)

      simulator.child.kill('SIGTERM')
      assert.equal(await simulator.exited, 0, simulator.output())
      assert.match(simulator.output(), /stopped; 0 shipments in hand/)
      const kept = JSON.parse(readFileSync(stateFile, 'utf8'))
      assert.equal(kept.shipments[shipmentId].finished, 'delivered')

      // Restarted on the same state, it finds nothing to do; with the state lost, the repeats are Ok.
      const again = await printroute([...simulatorArgs, '--state-file', stateFile, '--once'], simulatorEnv)
      assert.equal(again.code, 0, again.stderr)
      assert.doesNotMatch(again.stdout, / -> /, again.stdout)
      const after = await getOrder(served, liveKey, orderId)
      assert.deepEqual(after.shipments, order.shipments, 'nothing about the shipment changed')
    })

    if (label === 'PGlite')
      test('a lab key that is not one, and bad flags, are refused before anything runs', async () => {
        const notLab = await printroute(['labs', 'simulate', '--base-url', served.liveUrl, '--api-key', 'pr_live_x'])
        assert.equal(notLab.code, 2)
        assert.match(notLab.stderr, /--api-key must be a lab key \(pr_lab_\.\.\.\)/)
        const reason = await printroute([
          'labs',
          'simulate',
          '--base-url',
          served.liveUrl,
          '--api-key',
          'pr_lab_x',
          '--reject-items',
          'all',
          '--reject-reason',
          'Broken',
        ])
        assert.equal(reason.code, 2)
        assert.match(reason.stderr, /--reject-reason must be one of OutOfStock, FileDefect, CannotProduce/)
        const secret = await printroute(
          ['labs', 'simulate', '--base-url', served.liveUrl, '--api-key', 'pr_lab_x', '--push-port', '0'],
          { PRINTROUTE_LAB_PUSH_SECRET: '' },
        )
        assert.equal(secret.code, 2)
        assert.match(secret.stderr, /--push-secret .* must be the lab's push signing secret/)
        const wrongKey = await printroute([
          'labs',
          'simulate',
          '--base-url',
          served.liveUrl,
          '--api-key',
          'pr_lab_nope',
          '--once',
        ])
        assert.equal(wrongKey.code, 2, wrongKey.stderr)
        assert.match(wrongKey.stderr, /GET \/labs\/v1\/jobs: The X-API-Key is not a valid lab key/)
      })

    if (label === 'PGlite')
      test('with --push-port it takes pushes signed with its secret (204) and refuses bad signatures (401)', async () => {
        const keyCreated = await served.withData(['labs', 'keys', 'create', '--lab', 'uk6'])
        assert.equal(keyCreated.code, 0, keyCreated.stderr)
        const secret = newSigningSecret()
        const simulator = startPrintroute(
          [
            'labs',
            'simulate',
            '--base-url',
            served.liveUrl,
            '--api-key',
            keyCreated.stdout.trim(),
            '--push-port',
            '0',
            '--state-file',
            join(stateHome, 'push.json'),
          ],
          { PRINTROUTE_LAB_PUSH_SECRET: secret },
        )
        running.push(simulator)
        const pushUrl = (await simulator.waitFor(/taking pushed events at (http:\/\/127\.0\.0\.1:\d+)\//))[1] as string
        const body = JSON.stringify({
          specversion: '1.0',
          id: 'evt_1',
          type: 'com.printroute.lab.job.created',
          source: served.liveUrl,
          data: { job: { shipmentId: 'shp_999' } },
        })
        const push = (headers: Record<string, string>) =>
          fetch(pushUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
        const signed = await push(webhookHeaders([secret], 'evt_1', new Date(), body))
        assert.equal(signed.status, 204)
        await simulator.waitFor(/ {2}shp_999 {2}push com\.printroute\.lab\.job\.created evt_1 -> accepted/)
        const otherSecret = await push(webhookHeaders([newSigningSecret()], 'evt_1', new Date(), body))
        assert.equal(otherSecret.status, 401)
        assert.match(await otherSecret.text(), /no signature matches the push secret/)
        const stale = await push(webhookHeaders([secret], 'evt_1', new Date(Date.now() - 3_600_000), body))
        assert.equal(stale.status, 401)
        assert.equal((await push({})).status, 401, 'unsigned')
        // During a rotation the old and the new secret both sign: either verifies.
        const rotated = await push(webhookHeaders([newSigningSecret(), secret], 'evt_1', new Date(), body))
        assert.equal(rotated.status, 204)
        assert.equal((await fetch(pushUrl)).status, 405)
        await simulator.waitFor(/push refused \(401\): no signature matches the push secret/)
        simulator.child.kill('SIGTERM')
        assert.equal(await simulator.exited, 0, simulator.output())
      })
  })
}

// A lab API of the test's own (the jobs it lists, the reports it records), for what a real server cannot be made
// to do: hand out a print file that differs from what its job says.
describe('the reference lab against a lab API that serves a damaged file', () => {
  test('it rejects the item with FileDefect and what differed, ships the good one, and sends each report once', async () => {
    const good = Buffer.from('a good print file')
    const damaged = Buffer.from('a print file cut shor')
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
    const reports: { path: string; body: Json }[] = []
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      const send = (status: number, body: unknown, type = 'application/json') => {
        response.writeHead(status, { 'content-type': type })
        response.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body))
      }
      if (request.headers['x-api-key'] !== 'pr_lab_test' && request.url?.startsWith('/labs/')) {
        return send(401, { outcome: 'Unauthorized' })
      }
      if (request.url === '/files/good.png') return send(200, good, 'image/png')
      if (request.url === '/files/damaged.png') return send(200, damaged, 'image/png')
      if (request.url === '/files/slip.pdf') return send(200, '%PDF-1.7\n', 'application/pdf')
      if (request.method === 'GET' && request.url === '/labs/v1/jobs') {
        const shipped = reports.some((report) => report.path.endsWith('/shipped'))
        return send(200, { outcome: 'Ok', jobs: shipped ? [] : [job()] })
      }
      if (request.method === 'POST' && request.url?.startsWith('/labs/v1/jobs/shp_7/')) {
        const text = Buffer.concat(chunks).toString('utf8')
        reports.push({ path: request.url, body: text ? JSON.parse(text) : {} })
        return send(200, { outcome: 'Updated' })
      }
      send(404, { outcome: 'EndpointDoesNotExist' })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const printFile = (itemId: string, name: string) => ({
      itemId,
      sku: itemId === 'ori_1' ? 'GLOBAL-FAP-8x10' : 'GLOBAL-FAP-16x24',
      copies: 1,
      attributes: {},
      printFiles: [
        { printArea: 'default', url: `${base}/files/${name}`, format: 'png', sha256: sha256(good), bytes: good.length },
      ],
    })
    const job = () => ({
      shipmentId: 'shp_7',
      orderId: 'ord_7',
      state: 'submitted',
      carrier: { name: 'Evri', service: 'Evri Standard 48' },
      items: [printFile('ori_1', 'good.png'), printFile('ori_2', 'damaged.png')],
      packingSlipPdf: { url: `${base}/files/slip.pdf` },
    })
    const stateDir = mkdtempSync(join(tmpdir(), 'printroute-lab-simulate-defect-'))
    try {
      const run = await printroute([
        'labs',
        'simulate',
        '--base-url',
        base,
        '--api-key',
        'pr_lab_test',
        '--once',
        '--state-file',
        join(stateDir, 'state.json'),
      ])
      assert.equal(run.code, 0, run.stderr + run.stdout)
      assert.match(run.stdout, / {2}shp_7 {2}reject items ori_2 FileDefect -> Updated/)
      const rejects = reports.filter((report) => report.path.endsWith('/reject'))
      assert.equal(rejects.length, 1)
      assert.deepEqual(rejects[0]?.body.items, [
        {
          itemId: 'ori_2',
          reason: 'FileDefect',
          description: `the default print file of ori_2 is ${damaged.length} bytes, the job says ${good.length}`,
        },
      ])
      const paths = reports.map((report) => report.path.replace('/labs/v1/jobs/shp_7/', ''))
      assert.deepEqual(paths, [
        'reject',
        'acknowledge',
        'in-production',
        'printed',
        'shipped',
        'tracking',
        'tracking',
        'tracking',
      ])
      assert.deepEqual(reports[3]?.body, { itemIds: ['ori_1'] }, 'only the good item is printed')
      assert.equal(reports[4]?.body.itemIds, undefined, 'one parcel: everything left')
      assert.deepEqual(
        reports.slice(5).map((report) => report.body.events[0].status),
        ['InTransit', 'OutForDelivery', 'Delivered'],
      )
    } finally {
      server.close()
      rmSync(stateDir, { recursive: true, force: true })
    }
  })
})

// The simulator stopped right after its last parcel's report went through, before it saved that: the job is no longer
// listed. It reads the job by its id, sees it shipped, and goes on with the carrier's scans without shipping again.
describe('the reference lab picking up a job that left the listing while it was stopped', () => {
  test('it reads the job, finds it shipped, sends no second parcel and reports the scans to Delivered', async () => {
    const reports: string[] = []
    const reads: string[] = []
    const server = createServer(async (request, response) => {
      for await (const _ of request) {
      }
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' })
        response.end(JSON.stringify(body))
      }
      if (request.headers['x-api-key'] !== 'pr_lab_test') return send(401, { outcome: 'Unauthorized' })
      if (request.method === 'GET' && request.url === '/labs/v1/jobs') return send(200, { outcome: 'Ok', jobs: [] })
      if (request.method === 'GET' && request.url?.startsWith('/labs/v1/jobs/')) {
        reads.push(request.url)
        if (request.url !== '/labs/v1/jobs/shp_7') return send(404, { outcome: 'EntityNotFound' })
        const parcel = { tracking: { number: 'SIM7P1' }, dispatchDate: '2026-11-27T10:00:00.000Z' }
        return send(200, { outcome: 'Ok', job: { shipmentId: 'shp_7', state: 'shipped', parcels: [parcel] } })
      }
      if (request.method === 'POST' && request.url?.startsWith('/labs/v1/jobs/')) {
        reports.push(request.url)
        return send(200, { outcome: 'Updated' })
      }
      send(404, { outcome: 'EndpointDoesNotExist' })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const stateDir = mkdtempSync(join(tmpdir(), 'printroute-lab-simulate-pick-up-'))
    const stateFile = join(stateDir, 'state.json')
    const inHand = (orderId: string) => ({
      orderId,
      done: ['checked', 'acknowledged', 'inProduction', 'printed'],
      rejectedItemIds: [],
      parcels: [
        {
          itemIds: [],
          trackingNumber: 'SIM7P1',
          dispatchDate: '2026-11-27T10:00:00.000Z',
          carrier: { name: 'Evri', service: 'Evri Standard 48' },
          shipped: false,
        },
      ],
      scans: [],
    })
    // shp_7 shipped before the stop; shp_8 is another lab's now (404): left alone.
    const state = {
      baseUrl: base,
      keyPrefix: 'pr_lab_test',
      shipments: { shp_7: inHand('ord_7'), shp_8: inHand('ord_8') },
    }
    writeFileSync(stateFile, JSON.stringify(state))
    try {
      const run = await printroute([
        'labs',
        'simulate',
        '--base-url',
        base,
        '--api-key',
        'pr_lab_test',
        '--once',
        '--state-file',
        stateFile,
      ])
      assert.equal(run.code, 0, run.stderr + run.stdout)
      assert.match(
        run.stdout,
        / {2}shp_7 {2}shipped, as printroute says \(1 parcel; the last report before the stop went through\)/,
      )
      assert.match(run.stdout, / {2}shp_8 {2}no longer with this lab/)
      assert.deepEqual(reads.sort(), ['/labs/v1/jobs/shp_7', '/labs/v1/jobs/shp_8'], 'each read once')
      assert.deepEqual(reports, [
        '/labs/v1/jobs/shp_7/tracking',
        '/labs/v1/jobs/shp_7/tracking',
        '/labs/v1/jobs/shp_7/tracking',
      ])
      const saved = JSON.parse(readFileSync(stateFile, 'utf8'))
      assert.equal(saved.shipments.shp_7.finished, 'delivered')
      assert.equal(saved.shipments.shp_8.finished, 'gone')
    } finally {
      server.close()
      rmSync(stateDir, { recursive: true, force: true })
    }
  })
})

endToEnd('PGlite', async () => null)
if (POSTGRES_TEST_URL !== undefined) endToEnd('PostgreSQL', () => createScratchDatabase('printroute_lab_simulate'))
