// A serve killed with SIGKILL in the middle of pushing a job to its lab loses nothing and duplicates nothing: after
// a restart the push is made again and delivered exactly once, with the same webhook-id as the attempt the lab
// never answered, so a lab that did take the first one can tell; each shipment has one `created` webhook-id, and
// every push after the restart verifies with the lab's secret (rotated by the operator while serve was down). Real
// processes, real database files (or a real PostgreSQL database), a real receiver on 127.0.0.1 that is given the
// lab's job by the catalogue's push URL.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { SAMPLE_CATALOGUE_PATH } from '../../src/catalogue/catalogue.loader.ts'
import {
  firstStartKeys,
  killStartedPrintroutes,
  printroute,
  type RunningPrintroute,
  startPrintroute,
  withOutputOnFailure,
} from '../support/cli.ts'
import { createScratchDatabase, type ScratchDatabase } from '../support/databases.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

function serve(args: string[], env: Record<string, string>): RunningPrintroute {
  return startPrintroute(['serve', '--port', '0', '--sandbox-port', '0', ...args], env)
}

interface Received {
  webhookId: string
  type: string
  shipmentId: string
  /** From the path the push came to (/lab/<code>). */
  labCode: string
  /** The status answered; null: held, never answered (the serve was killed meanwhile). */
  answered: number | null
  /** As it came, for verifying its signature. */
  body: string
  headers: Record<string, string>
  /** Received once the restarted serve was started. */
  afterRestart: boolean
}

describe('a serve killed while pushing a job to its lab', { concurrency: true }, () => {
  after(killStartedPrintroutes)

  for (const kind of databaseKinds) {
    describe(`a serve killed while pushing a job to its lab (${kind})`, () => {
      let images: ImageServer
      let receiver: Server
      let dataDir: string
      let catalogueFile: string
      let databaseUrl = ''
      let database: ScratchDatabase | undefined
      const received: Received[] = []
      /** Called on the first `created` push, which is never answered. */
      let onFirstCreated: () => void = () => {}
      let restarting = false

      before(async () => {
        images = await startImageServer({}, await solidJpeg(800, 1200, { r: 90, g: 120, b: 200 }))
        receiver = createServer((request, response) => {
          const chunks: Buffer[] = []
          request.on('data', (chunk: Buffer) => chunks.push(chunk))
          request.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8')
            const event = JSON.parse(body)
            const entry: Received = {
              webhookId: String(request.headers['webhook-id']),
              type: event.type,
              shipmentId: event.data?.job?.shipmentId,
              labCode: (request.url ?? '').replace(/^\/lab\//, ''),
              answered: null,
              body,
              headers: request.headers as Record<string, string>,
              afterRestart: restarting,
            }
            received.push(entry)
            if (event.type.endsWith('.lab.job.created') && received.filter((r) => r.type === event.type).length === 1) {
              onFirstCreated()
              return
            }
            entry.answered = 200
            response.writeHead(200).end('ok')
          })
        })
        await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
        const port = (receiver.address() as AddressInfo).port
        dataDir = mkdtempSync(join(tmpdir(), 'printroute-crash-push-'))
        // Every lab pushes to the receiver, by the catalogue: the secret is made on the first push.
        const catalogue = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
        for (const lab of catalogue.labs) lab.push = { url: `http://127.0.0.1:${port}/lab/${lab.code}` }
        catalogueFile = join(dataDir, 'catalogue.json')
        writeFileSync(catalogueFile, JSON.stringify(catalogue))
        if (kind === 'postgres') {
          database = await createScratchDatabase('printroute_crash_push')
          databaseUrl = database.url
        }
      })

      after(async () => {
        receiver.closeAllConnections()
        await new Promise((resolve) => receiver.close(resolve))
        await images.close()
        rmSync(dataDir, { recursive: true, force: true })
        await database?.drop()
      })

      test('the push is delivered exactly once after the restart, with the same webhook-id', {
        timeout: 600_000,
      }, async () => {
        const args = [
          '--data-dir',
          dataDir,
          '--catalogue',
          catalogueFile,
          '--allow-private-urls',
          '--log-format',
          'pretty',
          '--demo-account',
        ]
        const env = databaseUrl ? { DATABASE_URL: databaseUrl } : ({} as Record<string, string>)
        let second: RunningPrintroute | undefined
        const first = serve(args, env)
        await withOutputOnFailure(
          () => ({ 'the first serve': first, 'the restarted serve': second }),
          async () => {
            const key = (await firstStartKeys(first)).live
            const live = `${(await first.waitFor(/Live API ready at (http:\/\/\S+)\/v4\.0/))[1]}`
            const firstCreated = new Promise<void>((resolve) => {
              onFirstCreated = resolve
            })
            const created = await fetch(`${live}/v4.0/orders`, {
              method: 'POST',
              headers: { 'x-api-key': key, 'content-type': 'application/json' },
              body: JSON.stringify({
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
                    sku: 'GLOBAL-FAP-16x24',
                    copies: 1,
                    sizing: 'fillPrintArea',
                    assets: [{ url: `${images.base}/a.jpg` }],
                  },
                ],
              }),
            })
            assert.equal(created.status, 200, await created.clone().text())
            // Killed while the lab holds the push unanswered: the attempt is made, never recorded.
            await firstCreated
            first.child.kill('SIGKILL')
            await first.exited
            const held = received.find((entry) => entry.type.endsWith('.lab.job.created')) as Received
            // The secret was made on the first push and is never shown: the operator rotates it while serve is
            // down, and everything pushed from now on is signed with the new one (and the old, during the overlap).
            const downRotation = await printroute(
              [
                'labs',
                'configure',
                '--lab',
                held.labCode,
                '--rotate-secret',
                '--data-dir',
                dataDir,
                '--catalogue',
                catalogueFile,
              ],
              env,
            )
            assert.equal(downRotation.code, 0, downRotation.stderr)
            const pushSecret = /signing secret: +(whsec_\S+)/.exec(downRotation.stdout)?.[1] as string
            assert.ok(pushSecret, downRotation.stdout)

            restarting = true
            second = serve(args, env)
            const restarted = (await second.waitFor(/Live API ready at (http:\/\/[^\s"]+)\/v4\.0/))[1] as string
            try {
              const again = await waitFor(
                'the push made again after the restart',
                () => received.find((entry) => entry !== held && entry.webhookId === held.webhookId),
                180_000,
                250,
              )
              assert.equal(again.shipmentId, held.shipmentId)
              const labCode = held.labCode
              const issued = await printroute(
                ['labs', 'keys', 'create', '--lab', labCode, '--data-dir', dataDir, '--catalogue', catalogueFile],
                env,
              )
              assert.equal(issued.code, 0, issued.stderr)
              const labKey = issued.stdout.trim()
              const push = await waitFor(
                'the push recorded as delivered',
                async () => {
                  const answer = await fetch(`${restarted}/labs/v1/pushes?top=100`, {
                    headers: { 'x-api-key': labKey },
                  })
                  const pushes = ((await answer.json()) as any).pushes as any[]
                  const found = pushes.find((candidate) => candidate.eventId === held.webhookId)
                  return found?.status === 'delivered' ? found : undefined
                },
                60_000,
                250,
              )
              assert.equal(push.attempts.length, 1, 'the killed attempt was never recorded; the one after it was')
              assert.equal(push.attempts[0].httpStatus, 200)
              const answered = received.filter((entry) => entry.webhookId === held.webhookId && entry.answered === 200)
              assert.equal(answered.length, 1, 'delivered exactly once')
              const createdIds = new Map<string, Set<string>>()
              for (const entry of received.filter((candidate) => candidate.type.endsWith('.lab.job.created'))) {
                createdIds.set(entry.shipmentId, (createdIds.get(entry.shipmentId) ?? new Set()).add(entry.webhookId))
              }
              assert.deepEqual(
                [...createdIds.values()].map((ids) => ids.size),
                [1],
                'one shipment, one created event: the same webhook-id on every attempt',
              )
              const signed = received.filter((entry) => entry.afterRestart)
              assert.ok(signed.includes(answered[0] as Received))
              for (const entry of signed) {
                assert.doesNotThrow(
                  () => new Webhook(pushSecret).verify(entry.body, entry.headers),
                  `the ${entry.type} push ${entry.webhookId} verifies with the lab's secret`,
                )
              }
              const show = await printroute(
                ['labs', 'show', '--lab', labCode, '--data-dir', dataDir, '--catalogue', catalogueFile],
                env,
              )
              assert.equal(show.code, 0, show.stderr)
              assert.match(show.stdout, /push url: +http:\/\/127\.0\.0\.1:\d+\/lab\/\S+ \(from the catalogue\)/)
              assert.match(show.stdout, /secret: +whsec_\S{4}\.\.\./, 'made on the first push; only its start shown')
              // While serve runs: the operator gives the lab a new secret, printed once and never logged.
              const rotated = await printroute(
                [
                  'labs',
                  'configure',
                  '--lab',
                  labCode,
                  '--rotate-secret',
                  '--data-dir',
                  dataDir,
                  '--catalogue',
                  catalogueFile,
                ],
                env,
              )
              assert.equal(rotated.code, 0, rotated.stderr)
              const secret = /signing secret: +(whsec_\S+)/.exec(rotated.stdout)?.[1] as string
              assert.ok(secret, rotated.stdout)
              assert.match(rotated.stdout, /previous secret: signs too until /)
              assert.ok(!second.output().includes(secret), 'the secret is not in the log')
              const refused = await printroute(
                [
                  'labs',
                  'configure',
                  '--lab',
                  labCode,
                  '--push-url',
                  'ftp://lab.example/x',
                  '--data-dir',
                  dataDir,
                  '--catalogue',
                  catalogueFile,
                ],
                env,
              )
              assert.equal(refused.code, 2, refused.stderr)
              assert.match(
                refused.stderr,
                /--push-url ftp:\/\/lab\.example\/x cannot be called: the scheme must be http or https/,
              )
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
