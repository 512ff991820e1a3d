// `printroute serve` as an operator runs it: a real process on real ports with the embedded database, its
// printed first order pasted into a real shell, and the other commands run beside it on the same data.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { adminSocketPath } from '../../src/adapters/admin-channel.ts'
import {
  killStartedPrintroutes,
  printroute,
  type RunningPrintroute,
  startCliSession,
  startPrintroute,
  withOutputOnFailure,
} from '../support/cli.ts'
import { waitFor } from '../support/wait.ts'

const exec = promisify(execFile)

type Running = RunningPrintroute

function startServe(args: string[], env: Record<string, string> = {}): Running {
  return startPrintroute(['serve', ...args], { PORT: '0', PRINTROUTE_SANDBOX_PORT: '0', ...env })
}

/** Runs shell lines exactly as a person pastes them. */
async function paste(lines: string): Promise<string> {
  const { stdout } = await exec('bash', ['-c', lines])
  return stdout
}

describe('printroute serve', () => {
  let dataDir: string
  let server: Running
  let sandboxUrl: string
  let liveUrl: string
  let demoKey: string
  let banner: string

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'printroute-serve-'))
    // As in a terminal: readable logs (the test's pipe is not a TTY, so the format is asked for).
    server = startServe(['--data-dir', dataDir, '--log-format', 'pretty', '--metrics-port', '0'])
    liveUrl = (await server.waitFor(/Live API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/))[1]!
    sandboxUrl = (await server.waitFor(/Sandbox API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/))[1]!
    // The banner, from the first line of the first order to the line that watches it.
    banner = (await server.waitFor(/^KEY=pr_sandbox_\S+\n[\s\S]*?merchantReferences=my-first-order.*$/m))[0]
    demoKey = (await server.waitFor(/^ {2}Sandbox: (pr_sandbox_\S+)$/m))[1]!
  })

  after(async () => {
    // A server still running here belongs to a failed test: its output is printed before it is killed.
    killStartedPrintroutes()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('the first order it prints, pasted into a shell, reaches Complete with the bundled sample image', async () => {
    assert.ok(banner.startsWith(`KEY=${demoKey}\n`), banner)
    assert.match(banner, new RegExp(`"url": "${sandboxUrl}/samples/portrait\\.jpg"`))
    // Pasted whole, it places the order and lists it; the two answers are two JSON bodies back to back.
    const pasted = await paste(banner)
    const lines = banner.split('\n')
    const create = lines.slice(0, -1).join('\n')
    const watch = `${lines[0]}\n${lines.at(-1)}`
    assert.match(pasted, /^\{"outcome":"Created"/)
    assert.match(pasted, /\}\{"outcome":"Ok","orders":\[/)
    const created = JSON.parse(await paste(create))
    assert.equal(created.outcome, 'AlreadyExists', 'the second paste finds the order the first one placed')
    const complete = await withOutputOnFailure(
      () => ({ serve: server }),
      () =>
        waitFor(
          'the first order to reach Complete',
          async () => {
            const listed = JSON.parse(await paste(watch))
            const order = listed.orders[0]
            return order?.status.stage === 'Complete' ? order : undefined
          },
          60_000,
        ),
    )
    assert.equal(complete.id, created.order.id)
    assert.equal(complete.status.details.downloadAssets, 'Complete')
    assert.equal(complete.shipments[0].status, 'Shipped')
    // The thumbnail was made from the sample, and is served.
    const thumbnail = await fetch(complete.items[0].assets[0].thumbnailUrl)
    assert.equal(thumbnail.status, 200)
    assert.equal(thumbnail.headers.get('content-type'), 'image/jpeg')
  })

  test('the banner names the dashboard, which answers with its sign-in page', async () => {
    const line = (await server.waitFor(/open (http:\/\/127\.0\.0\.1:\d+\/dashboard\/) and sign in/))[1]!
    assert.equal(line, `${sandboxUrl}/dashboard/`)
    const page = await fetch(line)
    assert.equal(page.status, 200, 'redirected to the sign-in form')
    assert.match(page.url, /\/dashboard\/sign-in/)
    assert.match(await page.text(), /<label for="api-key">API key<\/label>/)
  })

  test('metrics and health answer on the metrics port bound at start, not on the Live port', async () => {
    const metricsUrl = (await server.waitFor(/metrics at (http:\/\/127\.0\.0\.1:\d+)\/metrics/))[1]!
    const scraped = await fetch(`${metricsUrl}/metrics`)
    assert.equal(scraped.status, 200)
    assert.match(await scraped.text(), /^# HELP printroute_http_request_duration_seconds/m)
    assert.equal((await fetch(`${metricsUrl}/readyz`)).status, 200)
    assert.equal((await fetch(`${liveUrl}/metrics`)).status, 404)
    assert.equal((await fetch(`${liveUrl}/healthz`)).status, 200)
  })

  test('Live and Sandbox are separate addresses; the Sandbox key is refused on Live', async () => {
    assert.notEqual(liveUrl, sandboxUrl)
    const response = await fetch(`${liveUrl}/v4.0/orders`, { headers: { 'x-api-key': demoKey } })
    assert.equal(response.status, 401)
    assert.equal(((await response.json()) as any).outcome, 'Unauthorized')
  })

  test('the data commands run beside it on the same data directory, with immediate effect', async (t) => {
    // These short commands share one process, as in cli.test.ts; each reaches the server like its own would.
    const cli = startCliSession()
    t.after(() => cli.close())
    const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])
    const socket = adminSocketPath(dataDir)
    assert.equal(statSync(socket).mode & 0o777, 0o600)
    assert.equal(statSync(join(socket, '..')).mode & 0o777, 0o700)

    const listed = await withData(['accounts', 'list', '--json'])
    assert.equal(listed.code, 0, listed.stderr)
    assert.equal(JSON.parse(listed.stdout)[0].name, 'Demo merchant')
    const migrated = await withData(['migrate'])
    assert.equal(migrated.code, 0, migrated.stderr)
    assert.match(migrated.stdout, /up to date/)

    // A key made while serving authenticates on the next request; revoked, it is refused on the next one.
    const issued = await withData(['keys', 'create', '--account', 'acc_1', '--env', 'sandbox'])
    assert.equal(issued.code, 0, issued.stderr)
    const key = issued.stdout.trim()
    const withKey = () => fetch(`${sandboxUrl}/v4.0/orders`, { headers: { 'x-api-key': key } })
    assert.equal((await withKey()).status, 200)
    const revoked = await withData(['keys', 'revoke', key.slice(0, 'pr_sandbox_'.length + 8)])
    assert.equal(revoked.code, 0, revoked.stderr)
    assert.equal((await withKey()).status, 401)

    const created = await withData(['accounts', 'create', '--name', 'Beside', '--billing-mode', 'prepaid', '--json'])
    assert.equal(created.code, 0, created.stderr)
    const account = JSON.parse(created.stdout)
    assert.equal((await fetch(`${liveUrl}/v4.0/orders`, { headers: { 'x-api-key': account.keys.live } })).status, 200)
    const topUp = await withData(['accounts', 'top-up', '--account', account.id, '--amount', '12.50', '--json'])
    assert.equal(topUp.code, 0, topUp.stderr)
    assert.equal(JSON.parse(topUp.stdout).balance, '12.50')
    const updated = await withData(['accounts', 'update', '--account', account.id, '--pause-window', '1.5s'])
    assert.equal(updated.code, 2, 'a pause window must be whole seconds, whoever runs the change')
    assert.match(updated.stderr, /--pause-window: the pause window must be whole seconds/)
    const labKey = await withData(['labs', 'keys', 'create', '--lab', 'NOPE'])
    assert.equal(labKey.code, 2)
    assert.match(labKey.stderr, /no lab NOPE/)
    // A second server on the same data directory is still refused: one process holds the embedded database.
    const second = await printroute(['serve', '--port', '0', '--sandbox-port', '0', '--data-dir', dataDir])
    assert.equal(second.code, 1)
    assert.match(second.stderr, /in use by process \d+/)
  })

  test('a port in use stops a start with one line naming it, before anything is written', async () => {
    const fresh = join(tmpdir(), `printroute-clash-${process.pid}-${Date.now()}`)
    const livePort = new URL(liveUrl).port
    const clash = await printroute(['serve', '--data-dir', fresh], { PORT: livePort, PRINTROUTE_SANDBOX_PORT: '0' })
    assert.equal(clash.code, 1)
    assert.equal(clash.stderr.trim().split('\n').length, 1, clash.stderr)
    assert.match(
      clash.stderr,
      new RegExp(`port ${livePort} on 127\\.0\\.0\\.1 is already in use; choose another with --port`),
    )
    assert.equal(existsSync(fresh), false, 'the data directory was not even created')
    const sandboxPort = new URL(sandboxUrl).port
    const sandboxClash = await printroute(['serve', '--data-dir', fresh, '--port', '0', '--sandbox-port', sandboxPort])
    assert.equal(sandboxClash.code, 1)
    assert.match(sandboxClash.stderr, /choose another with --sandbox-port/)
    assert.equal(existsSync(fresh), false)
  })

  test('SIGTERM stops it gracefully; the commands then open the data directory themselves', async () => {
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0, server.output().slice(-3000))
    assert.match(server.output(), /stopped/)
    assert.equal(existsSync(adminSocketPath(dataDir)), false)
    const listed = await printroute(['accounts', 'list', '--data-dir', dataDir])
    assert.equal(listed.code, 0, listed.stderr)
    assert.match(listed.stdout, /Demo merchant/)
    // A restart keeps the accounts and creates no second demo account; JSON logs when asked.
    const restarted = startServe(['--data-dir', dataDir, '--log-format', 'json'])
    await restarted.waitFor(/Sandbox API ready/)
    for (const line of restarted.output().trim().split('\n')) assert.doesNotThrow(() => JSON.parse(line), line)
    // Killed outright, it leaves its socket behind; the next command sees nobody there and goes ahead.
    restarted.child.kill('SIGKILL')
    await restarted.exited
    assert.equal(existsSync(adminSocketPath(dataDir)), true)
    const afterKill = await printroute(['accounts', 'list', '--data-dir', dataDir])
    assert.equal(afterKill.code, 0, afterKill.stderr)
    assert.doesNotMatch(restarted.output(), /Demo account/)
  })
})
