// A worker killed with SIGKILL in the middle of the pipeline loses nothing and duplicates nothing: after a
// restart the order completes with exactly one set of shipments. Real processes, real database files (or a
// real PostgreSQL database), real HTTP.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import {
  firstStartKeys,
  killStartedPrintroutes,
  type RunningPrintroute,
  startPrintroute,
  withOutputOnFailure,
} from '../support/cli.ts'
import { createScratchDatabase, type ScratchDatabase } from '../support/databases.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

function serve(args: string[], env: Record<string, string>): RunningPrintroute {
  return startPrintroute(['serve', '--port', '0', '--sandbox-port', '0', ...args], env)
}

// The two databases run at once: most of each run is waiting for the restarted worker to take the killed
// one's jobs over (heartbeats), time the other can use.
describe('a worker killed mid-pipeline', { concurrency: true }, () => {
  after(killStartedPrintroutes)

  for (const kind of databaseKinds) {
    describe(`a worker killed mid-pipeline (${kind})`, () => {
      let images: ImageServer
      let imageBase: string
      let dataDir: string
      let databaseUrl = ''
      let database: ScratchDatabase | undefined

      before(async () => {
        const photo = await sharp({
          create: {
            width: 3000,
            height: 2000,
            channels: 3,
            background: '#808080',
            noise: { type: 'gaussian', mean: 128, sigma: 40 },
          },
        })
          .jpeg()
          .toBuffer()
        images = await startImageServer({}, { body: photo, type: 'image/jpeg' })
        imageBase = images.base
        dataDir = mkdtempSync(join(tmpdir(), 'printroute-crash-'))
        if (kind === 'postgres') {
          database = await createScratchDatabase('printroute_crash')
          databaseUrl = database.url
        }
      })

      after(async () => {
        await images.close()
        rmSync(dataDir, { recursive: true, force: true })
        await database?.drop()
      })

      // Two starts, a pipeline and a takeover: under 2 minutes alone, near the suite's 5-minute default on a
      // machine loaded by the whole suite. The bound only matters for a run that is stuck.
      test('the order completes after a restart with exactly one set of shipments', { timeout: 600_000 }, async () => {
        const args = [
          '--data-dir',
          dataDir,
          '--allow-private-urls',
          '--sim-lab-step',
          '200ms',
          '--log-format',
          'pretty',
          // On PostgreSQL too: the test's account is the demo one.
          '--demo-account',
        ]
        const env = databaseUrl ? { DATABASE_URL: databaseUrl } : ({} as Record<string, string>)
        // Every wait below starts from a line the process wrote (or from its end), not from its start: on a
        // loaded machine a start alone can take minutes. A failure shows what both processes wrote.
        let second: RunningPrintroute | undefined
        const first = serve(args, env)
        await withOutputOnFailure(
          () => ({ 'the first serve': first, 'the restarted serve': second }),
          async () => {
            const key = (await firstStartKeys(first)).sandbox
            const sandbox = `${(await first.waitFor(/Sandbox API ready at (http:\/\/\S+)\/v4\.0/))[1]}/v4.0`
            const order = {
              shippingMethod: 'Standard',
              recipient: {
                name: 'Grace Hopper',
                address: {
                  line1: '1 Navy Way',
                  postalOrZipCode: '20001',
                  countryCode: 'US',
                  townOrCity: 'Washington',
                  stateOrCounty: 'DC',
                },
              },
              items: [
                {
                  sku: 'GLOBAL-CAN-10x10',
                  copies: 1,
                  sizing: 'fillPrintArea',
                  attributes: { wrap: 'Black' },
                  assets: [{ url: `${imageBase}/a.jpg` }],
                },
                {
                  sku: 'GLOBAL-TECH-IP11P-FC-CP',
                  copies: 1,
                  sizing: 'fillPrintArea',
                  assets: [{ url: `${imageBase}/b.jpg` }],
                },
                {
                  sku: 'GLOBAL-FAP-16x24',
                  copies: 1,
                  sizing: 'fillPrintArea',
                  assets: [{ url: `${imageBase}/c.jpg` }],
                },
              ],
            }
            const created = await fetch(`${sandbox}/orders`, {
              method: 'POST',
              headers: { 'x-api-key': key, 'content-type': 'application/json' },
              body: JSON.stringify(order),
            })
            const orderId = ((await created.json()) as any).order.id as string
            const get = async (base: string) =>
              ((await (await fetch(`${base}/orders/${orderId}`, { headers: { 'x-api-key': key } })).json()) as any)
                .order

            // Kill it while print files are being made: after allocation, before the labs have everything.
            await waitFor(
              'allocation',
              async () => {
                const current = await get(sandbox)
                return current.shipments.length > 0 ? current : undefined
              },
              60_000,
              500,
            )
            first.child.kill('SIGKILL')
            await first.exited

            second = serve(args, env)
            const restarted = (await second.waitFor(/Sandbox API ready at (http:\/\/[^\s"]+)/))[1] as string
            try {
              const complete = await waitFor(
                'stage Complete after the restart',
                async () => {
                  const current = await get(restarted)
                  return current.status.stage === 'Complete' ? current : undefined
                },
                180_000,
                500,
              )
              const shipmentIds = complete.shipments.map((shipment: any) => shipment.id)
              assert.equal(new Set(shipmentIds).size, shipmentIds.length)
              const shippedItems = complete.shipments.flatMap((shipment: any) =>
                shipment.items.map((item: any) => item.itemId),
              )
              assert.deepEqual(
                shippedItems.sort(),
                complete.items.map((item: any) => item.id).sort(),
                'each item in exactly one shipment',
              )
              assert.ok(complete.shipments.every((shipment: any) => shipment.status === 'Shipped'))
              assert.deepEqual(withoutResolutionWarnings(complete.status.issues), [])
            } finally {
              second.child.kill('SIGTERM')
              await second.exited
            }
          },
        )
      })
    })
  }
})
