// The systemd unit and the Dockerfile of docs/operations.md, run as far as they go on a machine without systemd
// or docker. The test reads them from the document (nothing is copied here), so the document stays what runs:
// the unit's ExecStart line starts printroute, which answers /readyz and stops on the unit's KillSignal within
// its TimeoutStopSec with exit code 0; the Dockerfile's COPY lines and `npm ci --omit=dev` make a fresh
// production install, on which its CMD (with its ENV) serves, its HEALTHCHECK passes and then, once its
// STOPSIGNAL has stopped printroute, fails.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { after, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { PRINTROUTE_NODE_FLAGS } from '../../src/adapters/node-flags.ts'
import { killStartedPrintroutes, type RunningPrintroute, startProcess, withOutputOnFailure } from '../support/cli.ts'
import { createScratchDatabase, type ScratchDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const exec = promisify(execFile)
const ROOT = join(import.meta.dirname, '..', '..')
const OPERATIONS = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8')

/** The one fenced block of `language` in docs/operations.md that contains `containing`. */
function codeBlock(language: string, containing: string): string {
  const blocks = [...OPERATIONS.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)]
    .filter(([, lang, body]) => lang === language && body?.includes(containing))
    .map(([, , body]) => body as string)
  assert.equal(blocks.length, 1, `one \`\`\`${language} block with ${containing} in docs/operations.md`)
  return blocks[0] as string
}

/** `KEY=value` lines (comments and sections left out). */
function assignments(text: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const line of text.split('\n')) {
    const match = line.match(/^([A-Za-z_]+)=(.*)$/)
    if (match) found.set(match[1] as string, match[2] as string)
  }
  return found
}

/** Replaces a path prefix in each argument: where the recipe installs printroute or keeps its data. */
const relocate = (args: string[], from: string, to: string) =>
  args.map((arg) => (arg === from || arg.startsWith(`${from}/`) ? to + arg.slice(from.length) : arg))

/** Runs a health check command: its exit code. */
async function exitCodeOf(command: string[], env: Record<string, string>): Promise<number> {
  try {
    await exec(command[0] as string, command.slice(1), { env: { ...process.env, ...env } })
    return 0
  } catch (error) {
    return (error as { code: number }).code
  }
}

/** Waits for the process to end, failing with its output when it has not within `seconds` of the signal. */
async function exitCodeWithin(running: RunningPrintroute, seconds: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), seconds * 1000)
  })
  const ended = await Promise.race([running.exited, deadline])
  clearTimeout(timer)
  assert.notEqual(ended, 'late', `not stopped within ${seconds} s of the signal; output:\n${running.output()}`)
  return ended as number | null
}

// A recipe's settings, redirected for a test: free ports on the loopback address, an embedded database in a
// temporary directory or a scratch PostgreSQL database, and nothing of npm's environment (systemd and docker
// start printroute directly).
const TEST_PORTS = { PORT: '0', PRINTROUTE_SANDBOX_PORT: '0' }
const NOT_NPM = { npm_lifecycle_event: undefined, npm_command: undefined }

describe('the service recipes in docs/operations.md', () => {
  const scratch: string[] = []
  const databases: ScratchDatabase[] = []
  after(async () => {
    killStartedPrintroutes()
    for (const directory of scratch) rmSync(directory, { recursive: true, force: true })
    for (const database of databases) await database.drop()
  })
  const temporaryDirectory = (name: string) => {
    const directory = mkdtempSync(join(tmpdir(), `printroute-${name}-`))
    scratch.push(directory)
    return directory
  }

  for (const kind of databaseKinds) {
    test(`the systemd unit's ExecStart serves, and KillSignal stops it within TimeoutStopSec (${kind})`, async () => {
      const unit = assignments(codeBlock('ini', 'ExecStart='))
      const environmentFile = assignments(codeBlock('sh', '/etc/printroute/printroute.env'))
      const installDir = unit.get('WorkingDirectory') as string
      const stateDir = `/var/lib/${unit.get('StateDirectory')}`
      const execStart = (unit.get('ExecStart') as string).split(' ')
      assert.ok(execStart[0]?.startsWith('/'), 'systemd wants an absolute path')
      assert.ok(execStart.includes(stateDir), 'the data directory is the StateDirectory systemd makes')
      for (const flag of PRINTROUTE_NODE_FLAGS) assert.ok(execStart.includes(flag), `node's ${flag} in ExecStart`)
      const dataDir = temporaryDirectory('unit-data')
      const command = relocate(relocate(execStart, installDir, ROOT), stateDir, dataDir)
      const database = kind === 'postgres' ? await createScratchDatabase('printroute_unit') : undefined
      if (database) databases.push(database)
      const env = {
        ...Object.fromEntries(environmentFile),
        ...TEST_PORTS,
        DATABASE_URL: database?.url ?? '',
        ...NOT_NPM,
      }
      const running = startProcess(command[0] as string, command.slice(1), env, 'ExecStart', { cwd: ROOT })
      await withOutputOnFailure(
        () => ({ ExecStart: running }),
        async () => {
          const live = (await running.waitFor(/Live API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/))[1]
          assert.equal((await fetch(`${live}/readyz`)).status, 200)
          running.child.kill(unit.get('KillSignal') as NodeJS.Signals)
          assert.equal(await exitCodeWithin(running, Number(unit.get('TimeoutStopSec'))), 0)
          assert.match(running.output(), /"msg":"stopped"/)
        },
      )
    })
  }

  test("the Dockerfile's steps make a production install on which its CMD serves, its HEALTHCHECK tells, and its STOPSIGNAL stops", async () => {
    const lines = codeBlock('dockerfile', 'HEALTHCHECK')
      .split('\n')
      .filter((line) => line.trim() !== '')
    assert.ok(
      lines.every((line) => !line.endsWith('\\')),
      'one instruction per line (the test reads them so)',
    )
    const instructions = lines.map((line) => {
      const [, name, rest] = line.match(/^([A-Z]+)\s+(.*)$/) as RegExpMatchArray
      return { name: name as string, rest: rest as string }
    })
    const one = (name: string) => {
      const found = instructions.filter((instruction) => instruction.name === name)
      assert.equal(found.length, 1, `one ${name}`)
      return (found[0] as { rest: string }).rest
    }
    const workDir = one('WORKDIR')
    const volume = one('VOLUME')
    const installDir = temporaryDirectory('image')
    const dataDir = temporaryDirectory('image-data')

    // The build: COPY and RUN in order, in a directory standing in for WORKDIR. A RUN that prepares the volume
    // (outside WORKDIR, as root) is left out: the test's temporary data directory stands in for the volume.
    for (const { name, rest } of instructions) {
      if (name === 'COPY') {
        const paths = rest.split(' ')
        const destination = join(installDir, relative(workDir, join(workDir, paths.at(-1) as string)))
        for (const source of paths.slice(0, -1)) {
          const target = paths.length > 2 ? join(destination, source) : destination
          mkdirSync(dirname(target), { recursive: true })
          cpSync(join(ROOT, source), target, { recursive: true })
        }
      } else if (name === 'RUN' && !rest.includes(volume)) {
        // Offline: the packages come from npm's cache, which the checkout's own install filled.
        await exec('sh', ['-c', rest], {
          cwd: installDir,
          env: { ...process.env, npm_config_offline: 'true' },
          maxBuffer: 16 * 1024 * 1024,
        }).catch((error) => assert.fail(`RUN ${rest}: ${error.stderr}`))
      }
    }
    assert.ok(existsSync(join(installDir, 'node_modules', '.bin', 'node')), 'the pinned Node 24 is installed')
    assert.ok(!existsSync(join(installDir, 'node_modules', 'typescript')), 'without the dev dependencies')

    const env: Record<string, string | undefined> = {}
    for (const pair of one('ENV').split(' ')) {
      const [name, value] = pair.split('=') as [string, string]
      env[name] = value === volume ? dataDir : value
    }
    assert.equal(env.PRINTROUTE_DATA_DIR, dataDir, 'the data directory is the volume')
    Object.assign(env, TEST_PORTS, { PRINTROUTE_HOST: '127.0.0.1', DATABASE_URL: '' }, NOT_NPM)
    const inImage = (json: string) => relocate(JSON.parse(json) as string[], workDir, installDir)
    const cmd = inImage(one('CMD'))
    for (const flag of PRINTROUTE_NODE_FLAGS) assert.ok(cmd.includes(flag), `node's ${flag} in CMD`)
    const healthCheck = inImage(one('HEALTHCHECK').replace(/^.*?\bCMD\s+/, ''))

    const running = startProcess(cmd[0] as string, cmd.slice(1), env, 'CMD', { cwd: installDir })
    await withOutputOnFailure(
      () => ({ CMD: running }),
      async () => {
        const livePort = (await running.waitFor(/Live API ready at http:\/\/127\.0\.0\.1:(\d+)\/v4\.0/))[1] as string
        const pid = running.child.pid as number
        assert.equal(
          statSync(`/proc/${pid}/exe`).ino,
          statSync(join(installDir, 'node_modules', '.bin', 'node')).ino,
          'CMD runs the Node the production install brought',
        )
        assert.equal(await exitCodeOf(healthCheck, { PORT: livePort }), 0, 'healthy while it serves')
        running.child.kill(one('STOPSIGNAL') as NodeJS.Signals)
        const stopTimeout = Number(codeBlock('sh', 'docker run').match(/--stop-timeout (\d+)/)?.[1])
        assert.equal(await exitCodeWithin(running, stopTimeout), 0)
        assert.match(running.output(), /"msg":"stopped"/)
        assert.equal(await exitCodeOf(healthCheck, { PORT: livePort }), 1, 'unhealthy once it has stopped')
      },
    )
  })
})
