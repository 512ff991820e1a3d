// Several machines, proven (docs/operations.md): one API process (`serve --no-workers`) and two
// worker processes, each with a data directory of its own (no shared filesystem), on one PostgreSQL database
// and one S3-compatible store (s3rver), all started through the real command line. A dozen orders: eight on
// Live, whose lab is this test, through the lab API of the API process; four on Sandbox, made by the simulated
// labs (jobs on the workers). One worker is killed with SIGKILL while print files are being rendered.
//
// Every order completes with each item in exactly one shipment; every thumbnail and every Live print file is
// fetched from the API process, which reads it from the store (Sandbox print files, which no URL exposes, are
// read from the store under the keys the order's state records); nothing is written to any process's own
// data directory. PostgreSQL only: PGlite is one process's embedded database.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import pg from 'pg'
import sharp from 'sharp'
import type { Catalogue } from '../../src/domain/catalogue.ts'
import { planPrintLayout, printAreaRequestOf } from '../../src/domain/print-geometry.ts'
import {
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
import { S3RVER_CREDENTIALS, type S3rver, startS3rver } from '../support/s3rver.ts'
import { catalogue } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

tier('sql')

const BUCKET = 'printroute'
const PREFIX = 'several'
const LIVE_ORDERS = 8
const SANDBOX_ORDERS = 4
// Renders run two at a time per worker: three at once means both workers are rendering.
const ACTIVE_RENDERS_BEFORE_THE_KILL = 3
// The first orders' posters are 16x24 in (4800x7200 print files, over a second of rendering each), so the kill
// finds renders under way; the later ones are 8x10 in (2400x3000), a fifth of the pixels, which the processes
// handle the same way at a fifth of the CPU.
const LARGE_POSTER_ORDERS = 4

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

/** Regular files anywhere under `directory` (sockets and the like are not files written). */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}

const skip = POSTGRES_TEST_URL ? false : 'needs PostgreSQL: set PRINTROUTE_TEST_DATABASE_URL (CI does)'

describe('API and worker processes on several machines (PostgreSQL, S3)', () => {
  let scratch: string
  let s3rver: S3rver
  let s3: S3Client
  let images: ImageServer | undefined
  let imageBase: string
  let database: ScratchDatabase
  let sql: pg.Client
  const processes: Record<string, RunningPrintroute> = {}

  before(async () => {
    if (skip) return
    scratch = mkdtempSync(join(tmpdir(), 'printroute-several-'))
    s3rver = await startS3rver(join(scratch, 's3rver'))
    s3 = new S3Client({
      endpoint: s3rver.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
    })
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }))
    // A photo-like image big enough that rendering a 16x24 in poster (4800x7200) takes a while.
    const photo = await sharp(
      await sharp({
        create: {
          width: 3000,
          height: 2000,
          channels: 3,
          background: '#6a8caf',
          noise: { type: 'gaussian', mean: 128, sigma: 40 },
        },
      })
        .png()
        .toBuffer(),
    )
      .blur(3)
      .jpeg({ quality: 90 })
      .toBuffer()
    images = await startImageServer({}, { body: photo, type: 'image/jpeg' })
    imageBase = images.base
    database = await createScratchDatabase('printroute_several')
    sql = new pg.Client({ connectionString: database.url })
    await sql.connect()
  })

  after(async () => {
    await stopProcesses(Object.values(processes))
    await sql?.end()
    await database?.drop()
    s3?.destroy()
    await s3rver?.stop()
    await images?.close()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  test('a dozen orders complete across the processes, with a worker killed mid-render', {
    skip,
    timeout: 300_000,
  }, async () => {
    await withOutputOnFailure(() => processes, run)
  })

  async function run(): Promise<void> {
    // Hermetic S3 settings: s3rver's credentials, none of the machine's AWS configuration.
    const env = {
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      AWS_CONFIG_FILE: join(scratch, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(scratch, 'no-aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_PROFILE: undefined,
      AWS_REGION: undefined,
      AWS_SESSION_TOKEN: undefined,
    }
    const shared = [
      '--database-url',
      database.url,
      '--blob-store',
      `s3://${BUCKET}/${PREFIX}?endpoint=${s3rver.endpoint}&region=us-east-1`,
    ]
    const dataDirs = ['api', 'worker-a', 'worker-b'].map((name) => {
      const directory = join(scratch, name)
      mkdirSync(directory)
      return directory
    })
    const [apiDir, workerADir, workerBDir] = dataDirs as [string, string, string]

    const created = await printroute(
      ['accounts', 'create', '--name', 'Several machines', '--json', ...shared.slice(0, 2)],
      env,
    )
    assert.equal(created.code, 0, created.stderr)
    const keys = (JSON.parse(created.stdout) as { keys: { sandbox: string; live: string } }).keys

    const api = startPrintroute(
      // No rate limit: the test reads a dozen orders and plays their labs several times a second, far above
      // one merchant's budget.
      [
        'serve',
        '--no-workers',
        '--port',
        '0',
        '--sandbox-port',
        '0',
        '--rate-limit',
        '0',
        '--data-dir',
        apiDir,
        ...shared,
      ],
      env,
    )
    processes.api = api
    const live = (await api.waitFor(/Live API ready at (http:\/\/[^\s"]+)\/v4\.0/))[1] as string
    const sandbox = (await api.waitFor(/Sandbox API ready at (http:\/\/[^\s"]+)\/v4\.0/))[1] as string
    const worker = (directory: string) =>
      startPrintroute(
        [
          'worker',
          '--data-dir',
          directory,
          ...shared,
          '--allow-private-urls',
          '--public-url',
          live,
          '--sandbox-public-url',
          sandbox,
          '--sim-lab-step',
          '1s',
        ],
        env,
      )
    const workerA = worker(workerADir)
    processes['worker A'] = workerA
    const workerB = worker(workerBDir)
    processes['worker B'] = workerB
    await Promise.all([workerA.waitFor(/workers ready/), workerB.waitFor(/workers ready/)])

    // A poster and a phone case per order, to Britain and to the US in turn: one shipment or two (the case
    // is made in Britain only). Orders are made one after another, so the large posters' renders come first.
    const orders: { id: string; base: string; key: string }[] = []
    for (let n = 0; n < LIVE_ORDERS + SANDBOX_ORDERS; n += 1) {
      const [base, key] = n < LIVE_ORDERS ? [live, keys.live] : [sandbox, keys.sandbox]
      const response = await fetch(`${base}/v4.0/orders`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({
          merchantReference: `several-${n}`,
          shippingMethod: 'Standard',
          recipient: n % 2 === 0 ? GB : US,
          items: [
            {
              sku: n < LARGE_POSTER_ORDERS ? 'GLOBAL-FAP-16x24' : 'GLOBAL-FAP-8x10',
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ printArea: 'default', url: `${imageBase}/poster-${n}.jpg` }],
            },
            { sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: `${imageBase}/case-${n}.jpg` }] },
          ],
        }),
      })
      const body = (await response.json()) as { outcome: string; order: { id: string } }
      assert.equal(body.outcome, 'Created', JSON.stringify(body))
      orders.push({ id: body.order.id, base, key })
    }
    const liveOrderIds = new Set(orders.slice(0, LIVE_ORDERS).map((order) => order.id))

    // Kill worker A while both workers are rendering, so it dies in the middle of a render.
    await waitFor(
      `${ACTIVE_RENDERS_BEFORE_THE_KILL} print files rendering at once`,
      async () => {
        const { rows } = await sql.query<{ active: number }>(
          `SELECT count(*)::int AS active FROM pgboss.job WHERE name = 'render-print-file' AND state = 'active'`,
        )
        return (rows[0]?.active ?? 0) >= ACTIVE_RENDERS_BEFORE_THE_KILL ? true : undefined
      },
      120_000,
    )
    workerA.child.kill('SIGKILL')
    assert.equal(await workerA.exited, null, 'worker A was killed by the signal')

    // Be the lab of the Live orders until every order is complete.
    const getOrder = async (order: { id: string; base: string; key: string }) => {
      const response = await fetch(`${order.base}/v4.0/orders/${order.id}`, { headers: { 'x-api-key': order.key } })
      assert.equal(response.status, 200)
      return ((await response.json()) as { order: any }).order
    }
    const labKeys = new Map<string, string>()
    const handedOver = new Set<string>()
    const printFiles: { orderId: string; sku: string; attributes: Record<string, string>; url: string }[] = []
    const lab = async (key: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${live}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
      assert.equal(response.status, 200, `${method} ${path}: ${await response.clone().text()}`)
      return (await response.json()) as any
    }
    const complete = await waitFor(
      'every order to complete',
      async () => {
        const current = await Promise.all(orders.map(getOrder))
        for (const order of current) {
          if (withoutResolutionWarnings(order.status.issues).length > 0) {
            throw new Error(`${order.id}: ${JSON.stringify(order.status.issues)}`)
          }
          if (!liveOrderIds.has(order.id)) continue
          for (const shipment of order.shipments) {
            const code = shipment.fulfillmentLocation.labCode as string
            if (labKeys.has(code)) continue
            const issued = await printroute(['labs', 'keys', 'create', '--lab', code, ...shared.slice(0, 2)], env)
            assert.equal(issued.code, 0, issued.stderr)
            labKeys.set(code, (issued.stdout.match(/pr_lab_\S+/) as RegExpMatchArray)[0])
          }
        }
        for (const key of labKeys.values()) {
          for (const job of (await lab(key, 'GET', '/labs/v1/jobs')).jobs) {
            if (!liveOrderIds.has(job.orderId) || handedOver.has(job.shipmentId)) continue
            for (const item of job.items) {
              assert.equal(item.printFiles.length, 1, `${job.shipmentId}: one print file per item`)
              printFiles.push({
                orderId: job.orderId,
                sku: item.sku,
                attributes: item.attributes,
                url: item.printFiles[0].url,
              })
            }
            await lab(key, 'POST', `/labs/v1/jobs/${job.shipmentId}/acknowledge`)
            await lab(key, 'POST', `/labs/v1/jobs/${job.shipmentId}/in-production`)
            await lab(key, 'POST', `/labs/v1/jobs/${job.shipmentId}/shipped`, {
              carrier: { name: 'Test Carrier', service: 'Tracked' },
              tracking: null,
            })
            handedOver.add(job.shipmentId)
          }
        }
        return current.every((order) => order.status.stage === 'Complete') ? current : undefined
      },
      240_000,
      500,
    )

    // The kill met a render: pg-boss handed that job to worker B (a retry) once A's heartbeats stopped.
    const { rows: retried } = await sql.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pgboss.job WHERE name = 'render-print-file' AND retry_count > 0`,
    )
    assert.ok((retried[0]?.count ?? 0) >= 1, 'a render of the killed worker was taken over')

    // Every order complete, each item in exactly one shipment, every shipment shipped.
    assert.equal(complete.length, LIVE_ORDERS + SANDBOX_ORDERS)
    for (const order of complete) {
      assert.deepEqual(withoutResolutionWarnings(order.status.issues), [])
      const shipments = order.shipments.filter((shipment: any) => !shipment.cancelled)
      const shipped = shipments.flatMap((shipment: any) => shipment.items.map((item: any) => item.itemId)).sort()
      assert.deepEqual(shipped, order.items.map((item: any) => item.id).sort(), `${order.id}: each item once`)
      for (const shipment of shipments) assert.equal(shipment.status, 'Shipped')
    }

    // Thumbnails: from the API process (each environment's own address), real images.
    const fetchImage = async (url: string, origin: string) => {
      assert.equal(new URL(url).origin, origin, `${url} is served by the API process`)
      const response = await fetch(url)
      assert.equal(response.status, 200, url)
      assert.match(response.headers.get('content-type') ?? '', /^image\//)
      return sharp(Buffer.from(await response.arrayBuffer())).metadata()
    }
    let thumbnails = 0
    for (const [index, order] of complete.entries()) {
      const origin = new URL((orders[index] as { base: string }).base).origin
      for (const item of order.items) {
        for (const asset of item.assets) {
          const metadata = await fetchImage(asset.thumbnailUrl, origin)
          assert.ok((metadata.width ?? 0) > 0 && (metadata.height ?? 0) > 0)
          thumbnails += 1
        }
      }
    }
    assert.equal(thumbnails, 2 * (LIVE_ORDERS + SANDBOX_ORDERS))

    // Live print files: every one the lab API handed over, from the API process, at the print area's size.
    assert.equal(printFiles.length, 2 * LIVE_ORDERS, 'a print file for each item of each Live order')
    for (const file of printFiles) {
      const size = printFileSizeOf(catalogue, file.sku, file.attributes)
      const metadata = await fetchImage(file.url, new URL(live).origin)
      assert.deepEqual([metadata.width, metadata.height], [size?.horizontalResolution, size?.verticalResolution])
    }

    // Sandbox print files: in the store, under the keys the orders' state records, at the print area's size.
    const sandboxOrders = complete.slice(LIVE_ORDERS)
    const { rows: states } = await sql.query<{ id: string; pipeline: string }>(
      'SELECT id::text, pipeline::text FROM orders WHERE id = ANY($1::bigint[])',
      [sandboxOrders.map((order: any) => Number(order.id.slice('ord_'.length)))],
    )
    let sandboxPrintFiles = 0
    for (const order of sandboxOrders) {
      const state = JSON.parse(states.find((row) => `ord_${row.id}` === order.id)?.pipeline ?? 'null')
      for (const shipment of order.shipments.filter((candidate: any) => !candidate.cancelled)) {
        for (const { itemId } of shipment.items) {
          const item = order.items.find((candidate: any) => candidate.id === itemId)
          const blobKey = state.shipments[shipment.id].printFiles[item.assets[0].id].blobKey as string
          const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/${blobKey}` }))
          const metadata = await sharp(Buffer.from(await (object.Body as any).transformToByteArray())).metadata()
          const size = printFileSizeOf(catalogue, item.sku, item.attributes)
          assert.deepEqual([metadata.width, metadata.height], [size?.horizontalResolution, size?.verticalResolution])
          sandboxPrintFiles += 1
        }
      }
    }
    assert.equal(sandboxPrintFiles, 2 * SANDBOX_ORDERS)

    // Everything stored went to the bucket; no process wrote a file of its own.
    const stored = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${PREFIX}/thumbnails/` }))
    assert.equal(stored.KeyCount, 2 * (LIVE_ORDERS + SANDBOX_ORDERS))
    for (const directory of dataDirs) assert.deepEqual(filesUnder(directory), [], `nothing written in ${directory}`)
  }
})

/** A print file's size: its layout where the area has a specification, else the print area's pixels. */
function printFileSizeOf(catalogue: Catalogue, sku: string, attributes: Record<string, string>) {
  const variant = catalogue.findVariant(sku, attributes)
  const area = variant && printAreaRequestOf(variant, 'default', catalogue.colours)
  const layout = area ? planPrintLayout(area) : null
  return layout
    ? { horizontalResolution: layout.width, verticalResolution: layout.height }
    : variant?.printAreaSizes.default
}
