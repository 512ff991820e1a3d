// The catalogue commands against running processes (docs/catalogue.md#versions), all through the real command
// line. Embedded database: `catalogue import`, `activate`, `list`, `diff` and `export` run inside the serving
// process through its admin channel (a file larger than the channel's former 1 MiB limit included), and serve
// switches. PostgreSQL: a `serve` and a `worker` process on one database; two activations from two processes at
// once; both processes end on the version that won, and report it on /readyz and in their metrics.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { SAMPLE_CATALOGUE_PATH } from '../../src/catalogue/catalogue.loader.ts'
import {
  killStartedPrintroutes,
  printroute,
  type RunningPrintroute,
  startPrintroute,
  stopProcesses,
  withOutputOnFailure,
} from '../support/cli.ts'
import { createScratchDatabase, POSTGRES_TEST_URL, type ScratchDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

tier('sql')

/** The sample with every lab's unit costs times `factor`, as JSON text with `padding` spaces after it. */
function dearerSample(factor: number, padding = 0): string {
  const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
  for (const lab of file.labs) {
    for (const product of lab.products) product.unitCost = (Number(product.unitCost) * factor).toFixed(2)
  }
  return `${JSON.stringify(file, null, 2)}\n${' '.repeat(padding)}`
}

/** The catalogue version a process reports on /readyz at `base`. */
async function readyVersion(base: string): Promise<number | undefined> {
  const response = await fetch(`${base}/readyz`)
  if (response.status !== 200) return undefined
  return ((await response.json()) as { catalogueVersion?: number }).catalogueVersion
}

/** The `printroute_catalogue_version` samples of the metrics at `base`. */
async function metricsVersions(base: string): Promise<string[]> {
  const text = await (await fetch(`${base}/metrics`)).text()
  return text.split('\n').filter((line) => line.startsWith('printroute_catalogue_version{'))
}

describe('catalogue commands while serve runs on the embedded database', () => {
  let scratch: string
  let dataDir: string
  let serve: RunningPrintroute
  let live: string

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'printroute-catalogue-'))
    dataDir = join(scratch, 'data')
    serve = startPrintroute(['serve', '--data-dir', dataDir, '--log-format', 'json'], {
      PORT: '0',
      PRINTROUTE_SANDBOX_PORT: '0',
    })
    live = (await serve.waitFor(/Live API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/))[1] as string
  })

  after(async () => {
    await stopProcesses([serve])
    killStartedPrintroutes()
    rmSync(scratch, { recursive: true, force: true })
  })

  test('import, list, diff, activate and export run in serve, which switches; bad files and versions exit 2', {
    timeout: 120_000,
  }, async () => {
    await withOutputOnFailure(
      () => ({ serve }),
      async () => {
        const withData = (args: string[]) => printroute([...args, '--data-dir', dataDir])
        assert.equal(await readyVersion(live), 1)

        // Over 1 MiB (JSON allows the trailing spaces): the admin channel takes catalogue-sized bodies.
        const big = dearerSample(2, 1_200_000)
        const bigFile = join(scratch, 'dearer.json')
        writeFileSync(bigFile, big)
        const imported = await withData(['catalogue', 'import', bigFile, '--json'])
        assert.equal(imported.code, 0, imported.stderr)
        assert.match(imported.stderr, /through the serve running on it/)
        assert.deepEqual(JSON.parse(imported.stdout), { version: 2, created: true, active: false })

        const broken = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
        broken.products[0].sku = 7
        broken.zones.uk.countries = ['ZZ']
        const brokenFile = join(scratch, 'broken.json')
        writeFileSync(brokenFile, JSON.stringify(broken))
        const refused = await withData(['catalogue', 'import', brokenFile])
        assert.equal(refused.code, 2)
        assert.match(refused.stderr, /catalogue broken\.json refused, nothing stored: \d+ problems/)
        assert.match(refused.stderr, /products\[0\]\.sku/)
        assert.match(refused.stderr, /zones\.uk\.countries\[0\]/)

        const listed = await withData(['catalogue', 'list', '--json'])
        assert.deepEqual(
          JSON.parse(listed.stdout).map((version: any) => [version.version, version.active, version.sourceName]),
          [
            [1, true, 'sample-catalogue.json'],
            [2, false, 'dearer.json'],
          ],
        )
        const diff = await withData(['catalogue', 'diff', '1', '2'])
        assert.equal(diff.code, 0, diff.stderr)
        assert.match(diff.stdout, /^catalogue version 1 -> 2: \d+ changes/)
        assert.match(diff.stdout, /~ GLOBAL-CAN-8x8\{[^}]*\} from uk6: 12\.50 GBP -> 25\.00 GBP/)

        const unknown = await withData(['catalogue', 'activate', '9'])
        assert.equal(unknown.code, 2)
        assert.match(unknown.stderr, /no catalogue version 9: nothing changed/)
        const notNumber = await withData(['catalogue', 'activate', 'two'])
        assert.equal(notNumber.code, 2)

        const activated = await withData(['catalogue', 'activate', '2'])
        assert.equal(activated.code, 0, activated.stderr)
        assert.match(activated.stdout, /catalogue version 2 is active \(was 1\)/)
        // The channel ran it in serve itself: it serves the new version at once.
        assert.equal(await readyVersion(live), 2)
        await serve.waitFor(/switched to catalogue version 2/)

        const exported = join(scratch, 'exported.json')
        const written = await withData(['catalogue', 'export', '2', '--output', exported])
        assert.equal(written.code, 0, written.stderr)
        assert.equal(readFileSync(exported, 'utf8'), big)
      },
    )
  })
})

const skip = POSTGRES_TEST_URL ? false : 'needs PostgreSQL: set PRINTROUTE_TEST_DATABASE_URL (CI does)'

describe('a serve and a worker process on PostgreSQL follow activations', () => {
  let scratch: string
  let database: ScratchDatabase
  const processes: Record<string, RunningPrintroute> = {}

  before(async () => {
    if (skip) return
    scratch = mkdtempSync(join(tmpdir(), 'printroute-catalogue-pg-'))
    database = await createScratchDatabase('printroute_catalogue')
  })

  after(async () => {
    await stopProcesses(Object.values(processes))
    killStartedPrintroutes()
    await database?.drop()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  test('both switch within seconds; two activations at once end with both on the one that won', {
    skip,
    timeout: 180_000,
  }, async () => {
    await withOutputOnFailure(
      () => processes,
      async () => {
        const env = { DATABASE_URL: database.url }
        const cli = (args: string[]) => printroute(args, env)
        processes.serve = startPrintroute(
          ['serve', '--data-dir', join(scratch, 'serve'), '--no-workers', '--log-format', 'json'],
          { ...env, PORT: '0', PRINTROUTE_SANDBOX_PORT: '0' },
        )
        const live = (
          await processes.serve.waitFor(/Live API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/)
        )[1] as string
        processes.worker = startPrintroute(
          ['worker', '--data-dir', join(scratch, 'worker'), '--metrics-port', '0', '--log-format', 'json'],
          env,
        )
        const workerBase = (
          await processes.worker.waitFor(/metrics at (http:\/\/127\.0\.0\.1:\d+)\/metrics/)
        )[1] as string
        await processes.worker.waitFor(/workers ready/)
        assert.equal(await readyVersion(live), 1)
        assert.equal(await readyVersion(workerBase), 1)

        for (const factor of [2, 3]) {
          const file = join(scratch, `times-${factor}.json`)
          writeFileSync(file, dearerSample(factor))
          const imported = await cli(['catalogue', 'import', file])
          assert.equal(imported.code, 0, imported.stderr)
        }
        const both = async (version: number) =>
          waitFor(`serve and worker to serve catalogue version ${version}`, async () => {
            const [api, worker] = await Promise.all([readyVersion(live), readyVersion(workerBase)])
            return api === version && worker === version ? true : undefined
          })

        const first = await cli(['catalogue', 'activate', '2'])
        assert.equal(first.code, 0, first.stderr)
        await both(2)
        assert.deepEqual(await metricsVersions(workerBase), ['printroute_catalogue_version{version="2"} 2'])
        assert.deepEqual(await metricsVersions(live), ['printroute_catalogue_version{version="2"} 2'])

        // Two operators at once: the row lock takes one activation after the other, and the later one stands.
        const [toOne, toThree] = await Promise.all([
          cli(['catalogue', 'activate', '1']),
          cli(['catalogue', 'activate', '3']),
        ])
        assert.equal(toOne.code, 0, toOne.stderr)
        assert.equal(toThree.code, 0, toThree.stderr)
        const listed = JSON.parse((await cli(['catalogue', 'list', '--json'])).stdout)
        const active = listed.filter((version: any) => version.active).map((version: any) => version.version)
        assert.equal(active.length, 1)
        const [winner] = active
        assert.ok(winner === 1 || winner === 3, String(winner))
        // Whichever ran second named the first one's version as the one it replaced.
        const previous = [toOne.stdout, toThree.stdout].map((out) => /\(was (\d+)\)/.exec(out)?.[1])
        assert.ok(previous.includes('2'), previous.join(', '))
        await both(winner)
        await processes.worker.waitFor(new RegExp(`switched to catalogue version ${winner}`))
        await processes.serve.waitFor(new RegExp(`switched to catalogue version ${winner}`))
      },
    )
  })
})
