// `printroute serve` as an operator runs it: a real process on real ports with the embedded database, its
// printed first order pasted into a real shell, and the other commands run beside it on the same data.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { hostname, tmpdir, userInfo } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { adminSocketPath } from '../../src/adapters/admin-channel.ts'
import {
  BIN,
  type FirstStartKeys,
  firstStartKeys,
  killStartedPrintroutes,
  printroute,
  type RunningPrintroute,
  startCliSession,
  startPrintroute,
  withOutputOnFailure,
} from '../support/cli.ts'
import { createScratchDatabase, POSTGRES_TEST_URL } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'
import { HANG_BOUND_MS, waitFor } from '../support/wait.ts'

tier('sql')

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
  let keys: FirstStartKeys

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'printroute-serve-'))
    // Readable logs, as asked for; the test's pipe is no terminal, so the keys go to files, not to the log.
    server = startServe(['--data-dir', dataDir, '--log-format', 'pretty', '--metrics-port', '0'])
    liveUrl = (await server.waitFor(/Live API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/))[1]!
    sandboxUrl = (await server.waitFor(/Sandbox API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/))[1]!
    keys = await firstStartKeys(server)
    demoKey = keys.sandbox
    // The first order, as the script holds it: from the first line of the order to the line that watches it.
    banner = /^KEY=pr_sandbox_\S+\n[\s\S]*?merchantReferences=my-first-order.*$/m.exec(
      readFileSync(keys.script, 'utf8'),
    )![0]
  })

  after(async () => {
    // A server still running here belongs to a failed test: its output is printed before it is killed.
    killStartedPrintroutes()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('off a terminal the keys are in a file only the owner reads, named by the log, and not in the log', async () => {
    assert.equal(keys.keysFile, join(dataDir, 'first-start-keys.txt'))
    assert.equal(keys.script, join(dataDir, 'first-order.sh'))
    assert.equal(statSync(keys.keysFile).mode & 0o777, 0o600)
    assert.equal(statSync(keys.script).mode & 0o777, 0o700)
    assert.match(readFileSync(keys.keysFile, 'utf8'), new RegExp(`^ {2}Live: {4}${keys.live}$`, 'm'))
    await server.waitFor(/open (http:\/\/127\.0\.0\.1:\d+\/dashboard\/) and sign in/)
    const output = server.output()
    for (const key of [keys.sandbox, keys.live]) {
      assert.ok(!output.includes(key.slice(0, key.indexOf('_', 3) + 1 + 9)), 'no key (past its prefix) is logged')
    }
    assert.doesNotMatch(output, /pr_(sandbox|live)_[A-Za-z0-9_-]{9}/)
    assert.match(output, new RegExp(`Demo account ${keys.accountId} created`))
    // The long, quiet part of a first start is said as it begins and when it is done, before the ports answer.
    const creating = output.indexOf(`INFO: Creating the database in ${dataDir} (first start, about 20 s)...`)
    const created = output.search(/INFO: Database created in \d+\.\d s\n/)
    assert.ok(creating >= 0 && created > creating, output)
    assert.ok(created < output.indexOf('Live API ready at'), output)
  })

  test('the first order it gives, pasted into a shell or run as its script, reaches Complete with the bundled sample image', async () => {
    assert.ok(banner.startsWith(`KEY=${demoKey}\n`), banner)
    assert.match(banner, new RegExp(`"url": "${sandboxUrl}/samples/portrait\\.jpg"`))
    // Pasted whole, it places the order and lists it; the two answers are two JSON bodies on lines of their own.
    const pasted = await paste(banner)
    const answers = pasted.split('\n')
    assert.equal(answers.length, 3, pasted)
    assert.equal(answers[2], '', 'the last answer ends its line')
    assert.equal(JSON.parse(answers[0]!).outcome, 'Created')
    assert.equal(JSON.parse(answers[1]!).outcome, 'Ok')
    // The script is the same block: run again, it finds the order the paste placed.
    const { stdout: ran } = await exec(keys.script)
    assert.equal(JSON.parse(ran.split('\n')[0]!).outcome, 'AlreadyExists')
    const lines = banner.split('\n')
    const create = lines.slice(0, -1).join('\n')
    const watch = `${lines[0]}\n${lines.at(-1)}`
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

  test('the log names the dashboard, which answers with its sign-in page', async () => {
    const line = (await server.waitFor(/open (http:\/\/127\.0\.0\.1:\d+\/dashboard\/) and sign in/))[1]!
    assert.equal(line, `${sandboxUrl}/dashboard/`)
    const page = await fetch(line)
    assert.equal(page.status, 200, 'redirected to the sign-in form')
    assert.match(page.url, /\/dashboard\/sign-in/)
    assert.match(await page.text(), /<label for="api-key">API key<\/label>/)
  })

  test('until the seller is set, the start says how to set it: the command and the console page', async () => {
    const line = (await server.waitFor(/no seller is set for invoices[^\n]*/))[0]
    assert.match(line, /printroute invoices seller --name NAME --address LINE/)
    assert.ok(line.includes(`${liveUrl}/admin/invoices/seller`), line)
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
    assert.equal(
      listed.stderr,
      `printroute: using the embedded database in ${resolve(dataDir)}, through the serve running on it (its admin channel)\n`,
    )
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
    // An operator's order action runs in the serving process too: a note, and a refusal in the command line's words.
    // A Sandbox order: whenever its pipeline invoices it, the invoice is a Sandbox one, as the trail below expects.
    const order = await fetch(`${sandboxUrl}/v4.0/orders`, {
      method: 'POST',
      headers: { 'x-api-key': account.keys.sandbox, 'content-type': 'application/json' },
      body: JSON.stringify({
        shippingMethod: 'Standard',
        recipient: {
          name: 'Ada Lovelace',
          address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
        },
        items: [
          {
            sku: 'GLOBAL-CAN-10x10',
            copies: 1,
            sizing: 'fillPrintArea',
            attributes: { wrap: 'Black' },
            assets: [{ printArea: 'default', url: `${sandboxUrl}/samples/square.jpg` }],
          },
        ],
      }),
    })
    assert.equal(order.status, 200)
    const orderId = ((await order.json()) as { order: { id: string } }).order.id
    const noted = await withData(['orders', 'note', orderId, '--reason', 'Watching this one'])
    assert.equal(noted.code, 0, noted.stderr)
    assert.match(noted.stderr, /through the serve running on it \(its admin channel\)/)
    assert.match(noted.stdout, new RegExp(`^${orderId}: note ont_\\d+ added by command line`))
    const noReason = await withData(['orders', 'release', orderId])
    assert.equal(noReason.code, 2)
    assert.match(noReason.stderr, /--reason is required/)
    const updated = await withData(['accounts', 'update', '--account', account.id, '--pause-window', '1.5s'])
    assert.equal(updated.code, 2, 'a pause window must be whole seconds, whoever runs the change')
    assert.match(updated.stderr, /--pause-window: the pause window must be whole seconds/)
    const labKey = await withData(['labs', 'keys', 'create', '--lab', 'NOPE'])
    assert.equal(labKey.code, 2)
    assert.match(labKey.stderr, /no lab NOPE/)
    // Pausing a lab while serving takes effect at once: the lab API of the running process says so.
    const uk6Key = await withData(['labs', 'keys', 'create', '--lab', 'uk6'])
    assert.equal(uk6Key.code, 0, uk6Key.stderr)
    const paused = async () => {
      const answer = await fetch(`${liveUrl}/labs/v1/capacity`, { headers: { 'x-api-key': uk6Key.stdout.trim() } })
      assert.equal(answer.status, 200)
      return ((await answer.json()) as { capacity: { paused: boolean } }).capacity.paused
    }
    assert.equal(await paused(), false)
    const pause = await withData(['labs', 'pause', '--lab', 'uk6'])
    assert.equal(pause.code, 0, pause.stderr)
    assert.equal(pause.stdout, 'paused lab uk6\n')
    assert.equal(await paused(), true)
    assert.equal((await withData(['labs', 'pause', '--lab', 'uk6'])).stdout, 'lab uk6 was already paused\n')
    const resume = await withData(['labs', 'resume', '--lab', 'uk6'])
    assert.equal(resume.code, 0, resume.stderr)
    assert.equal(resume.stdout, 'resumed lab uk6\n')
    assert.equal(await paused(), false)
    const unknownLab = await withData(['labs', 'pause', '--lab', 'NOPE'])
    assert.equal(unknownLab.code, 2)
    assert.match(unknownLab.stderr, /no lab NOPE/)
    // Every change above is in the audit trail, run by the serving process for the command line that asked;
    // the demo account was made by printroute itself. The refused ones recorded nothing.
    const trail = await withData(['audit', 'list', '--top', '100', '--json'])
    assert.equal(trail.code, 0, trail.stderr)
    const entries = JSON.parse(trail.stdout).entries as { action: string; target: string; actor: any }[]
    const commandLine = { kind: 'cli', description: `command line (${userInfo().username}@${hostname()})` }
    // printroute's own entries (the bundled catalogue made version 1, the demo account, the invoice of the first
    // order's charge, whenever its pipeline gets there) are apart from the command line's.
    const byCommandLine = entries.filter((entry) => entry.actor.kind === 'cli')
    const byPrintroute = entries.filter((entry) => entry.actor.kind === 'system')
    assert.equal(byCommandLine.length + byPrintroute.length, entries.length)
    assert.deepEqual(
      byCommandLine.map((entry) => [entry.action, entry.target]),
      [
        ['lab.resumed', 'uk6'],
        ['lab.paused', 'uk6'],
        ['lab.keyCreated', 'uk6'],
        ['order.noteAdded', orderId],
        ['account.toppedUp', account.id],
        ['account.created', account.id],
        ['key.revoked', key.slice(0, 'pr_sandbox_'.length + 8)],
        ['key.created', key.slice(0, 'pr_sandbox_'.length + 8)],
      ],
    )
    for (const entry of byCommandLine) assert.deepEqual(entry.actor, commandLine)
    assert.deepEqual(
      byPrintroute
        .filter((entry) => entry.action !== 'invoice.issued')
        .map((entry) => [entry.action, entry.target, entry.actor.description]),
      [
        ['account.created', 'acc_1', 'printroute'],
        ['catalogue.activated', 'catalogue v1', 'printroute'],
        ['catalogue.imported', 'catalogue v1', 'printroute'],
      ],
    )
    for (const entry of byPrintroute.filter((entry) => entry.action === 'invoice.issued')) {
      assert.match(entry.target, /^SBX-INV-\d{6}$/, 'a Sandbox order is invoiced apart from Live')
    }
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
    const seller = await printroute(['invoices', 'seller', '--name', 'Print Co Ltd', '--data-dir', dataDir])
    assert.equal(seller.code, 0, seller.stderr)
    // A restart keeps the accounts and creates no second demo account; JSON logs when asked. With the seller set,
    // its start no longer asks for it (the line would come before the console's).
    const restarted = startServe(['--data-dir', dataDir, '--log-format', 'json'])
    await restarted.waitFor(/Sandbox API ready/)
    await restarted.waitFor(/operator console at/)
    assert.doesNotMatch(restarted.output(), /no seller is set/)
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

describe('printroute serve at a terminal', () => {
  test('the keys and the first order are printed once, outside the JSON lines; the files are written too', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'printroute-tty-'))
    t.after(() => rmSync(dataDir, { recursive: true, force: true }))
    // `script` runs the command on a pseudo-terminal: its stdout is a TTY, as in a person's shell.
    const command = [process.execPath, BIN, 'serve', '--data-dir', dataDir, '--log-format', 'json']
    const child = spawn('script', ['-qfec', command.map((part) => `'${part}'`).join(' '), '/dev/null'], {
      env: { ...process.env, DATABASE_URL: '', PRINTROUTE_DATA_DIR: '', PORT: '0', PRINTROUTE_SANDBOX_PORT: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    let servePid: number | undefined
    t.after(async () => {
      if (servePid !== undefined && child.exitCode === null) process.kill(servePid, 'SIGKILL')
      await exited
    })
    const sandboxKey = await waitFor(
      'the banner at the terminal',
      () => /^ {2}Sandbox: (pr_sandbox_\S+)\r?$/m.exec(output)?.[1],
      90_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`)
    })
    servePid = Number(/"pid":(\d+)/.exec(output)?.[1])
    assert.ok(servePid > 0, output)
    await waitFor('the line naming the files', () => (output.includes('first-order.sh') ? true : undefined))
    assert.match(output, /^KEY=pr_sandbox_\S+\r?$/m)
    assert.equal(output.split(sandboxKey).length - 1, 2, 'the key is shown once, with the first order that uses it')
    for (const line of output.split(/\r?\n/).filter((text) => text.startsWith('{'))) {
      assert.ok(!line.includes(sandboxKey), `a JSON line holds the key: ${line}`)
    }
    assert.match(readFileSync(join(dataDir, 'first-order.sh'), 'utf8'), new RegExp(`^KEY=${sandboxKey}$`, 'm'))
    assert.equal(statSync(join(dataDir, 'first-start-keys.txt')).mode & 0o777, 0o600)
    // At a terminal in JSON lines too, the first start says what it is doing while it creates the database.
    assert.match(output, /"msg":"Creating the database in [^"]+ \(first start, about 20 s\)\.\.\."/)
    assert.match(output, /"msg":"Database created in \d+\.\d s"/)
    process.kill(servePid, 'SIGTERM')
    await exited
  })
})

// With PostgreSQL to test on (PRINTROUTE_TEST_DATABASE_URL), as CI has.
if (POSTGRES_TEST_URL !== undefined)
  describe('printroute serve on PostgreSQL', () => {
    test('no demo account without --demo-account: the log says how to create one; with it, the keys go to the file', async (t) => {
      const database = await createScratchDatabase('printroute_serve_demo')
      const dataDir = mkdtempSync(join(tmpdir(), 'printroute-serve-pg-'))
      t.after(async () => {
        killStartedPrintroutes()
        rmSync(dataDir, { recursive: true, force: true })
        await database.drop()
      })
      const env = { DATABASE_URL: database.url }
      // Each wait is bounded, so that a hang says where, with the process's output.
      const plain = startServe(['--data-dir', dataDir], env)
      await plain.waitFor(
        /No account yet\. Create one with `npx printroute accounts create --name NAME`/,
        HANG_BOUND_MS,
      )
      const listed = await printroute(['accounts', 'list', '--json'], env)
      assert.equal(listed.code, 0, listed.stderr)
      assert.deepEqual(JSON.parse(listed.stdout), [])
      assert.equal(existsSync(join(dataDir, 'first-start-keys.txt')), false)
      assert.doesNotMatch(plain.output(), /Demo account/)
      plain.child.kill('SIGTERM')
      assert.equal(await exitedWithin(plain), 0, plain.output())

      const demo = startServe(['--data-dir', dataDir, '--demo-account'], env)
      const keys = await firstStartKeys(demo)
      assert.equal(statSync(keys.keysFile).mode & 0o777, 0o600)
      assert.ok(!demo.output().includes(keys.sandbox))
      const sandboxUrl = (
        await demo.waitFor(/Sandbox API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/, HANG_BOUND_MS)
      )[1]!
      const answer = await fetch(`${sandboxUrl}/v4.0/orders`, { headers: { 'x-api-key': keys.sandbox } })
      assert.equal(answer.status, 200)
      demo.child.kill('SIGTERM')
      assert.equal(await exitedWithin(demo), 0, demo.output())
    })
  })

/** The exit code of a process asked to stop; fails, with its output, if it has not exited within the hang bound. */
async function exitedWithin(running: { exited: Promise<number | null>; output(): string }): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the process did not exit within ${HANG_BOUND_MS} ms; its output:\n${running.output()}`)),
      HANG_BOUND_MS,
    )
  })
  try {
    return await Promise.race([running.exited, hung])
  } finally {
    clearTimeout(timer)
  }
}
