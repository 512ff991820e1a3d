// printroute stopped the way a supervisor stops it: one signal to the PID of whatever started it (`npm start`,
// `npx printroute serve|worker`, or node itself, as a systemd unit or a container runs it), not to the whole
// process group as Ctrl-C in a terminal does. Each launcher must stop printroute gracefully: the launcher
// exits, no printroute process is left behind (npm and npx run it through a shell that does not pass signals
// on), its ports are free again, and the log shows the graceful shutdown.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { PRINTROUTE_NODE_FLAGS } from '../../src/adapters/node-flags.ts'
import { BIN, killStartedPrintroutes, type RunningPrintroute, startProcess } from '../support/cli.ts'
import { createScratchDatabase, POSTGRES_TEST_URL, type ScratchDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

const ROOT = join(import.meta.dirname, '..', '..')
/** The project's Node 24: what every launcher must end up running printroute on. */
const PROJECT_NODE = join(ROOT, 'node_modules', '.bin', 'node')
/** How long a graceful stop may take, from the signal; only a stop that does not happen waits this long. */
const STOP_WITHIN_MS = 120_000

type Command = 'serve' | 'worker'

interface Launcher {
  name: string
  /** The command line that starts `printroute <command> <args>` this way. */
  commandLine(command: Command, args: string[]): [string, string[]]
}

const LAUNCHERS = {
  npmStart: {
    name: 'npm start',
    commandLine: (_command, args) => ['npm', ['start', '--', ...args]],
  },
  // --offline: npx must find printroute in this checkout, never ask the registry.
  npx: {
    name: 'npx printroute',
    commandLine: (command, args) => ['npx', ['--offline', 'printroute', command, ...args]],
  },
  node: {
    name: 'node bin/printroute.js',
    commandLine: (command, args) => [PROJECT_NODE, [...PRINTROUTE_NODE_FLAGS, BIN, command, ...args]],
  },
} satisfies Record<string, Launcher>

/** A process that is gone (or a zombie its new parent has yet to reap). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/** Whether the process `pid` ends (or is a zombie) within `ms`, polling its state. */
async function endsWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}

function portIsFree(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** The first JSON log line whose message starts with `message`. */
async function logLine(running: RunningPrintroute, message: string): Promise<{ pid: number; msg: string }> {
  const escaped = message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const [line] = await running.waitFor(new RegExp(`^\\{.*"msg":"${escaped}.*$`, 'm'))
  return JSON.parse(line)
}

const portOf = (address: string) => Number(new URL(address).port)

describe('stopping printroute by signalling its launcher', () => {
  const scratch: string[] = []
  const serverPids: number[] = []
  const databases: ScratchDatabase[] = []

  after(async () => {
    killStartedPrintroutes()
    // A printroute a broken launcher left behind is not the test's child: end it by its pid.
    for (const pid of serverPids) if (isRunning(pid)) process.kill(pid, 'SIGKILL')
    for (const directory of scratch) rmSync(directory, { recursive: true, force: true })
    for (const database of databases) await database.drop()
  })

  async function startAndSignal(
    launcher: Launcher,
    command: Command,
    signal: NodeJS.Signals,
    { env = {}, to = 'pid' }: { env?: Record<string, string>; to?: 'pid' | 'group' } = {},
  ): Promise<void> {
    const dataDir = mkdtempSync(join(tmpdir(), 'printroute-launcher-'))
    scratch.push(dataDir)
    const ports = command === 'serve' ? ['--port', '0', '--sandbox-port', '0'] : ['--metrics-port', '0']
    const args = ['--data-dir', dataDir, ...ports, '--log-format', 'json']
    const [file, fileArgs] = launcher.commandLine(command, args)
    // A group of its own, so that a signal to the group (Ctrl-C) reaches the launcher's processes only.
    const running = startProcess(file, fileArgs, env, `${launcher.name} ${command}`, { cwd: ROOT, detached: true })
    const failWith = (message: string) =>
      assert.fail(`${launcher.name} ${command}: ${message}; output:\n${running.output()}`)

    // Ready: the address of every port it listens on, and the pid of the process that runs printroute.
    const addresses: string[] = []
    let ready: { pid: number }
    if (command === 'serve') {
      for (const environment of ['Live', 'Sandbox']) {
        const line = await logLine(running, `${environment} API ready at `)
        addresses.push(line.msg.match(/ready at (http:\/\/\S+)\/v4\.0/)?.[1] as string)
        ready = line
      }
    } else {
      const metrics = await logLine(running, 'metrics at ')
      addresses.push(metrics.msg.match(/metrics at (http:\/\/\S+)\/metrics/)?.[1] as string)
      ready = await logLine(running, 'workers ready')
    }
    const serverPid = ready!.pid
    serverPids.push(serverPid)
    const launcherPid = running.child.pid as number
    if (launcher === LAUNCHERS.node) assert.equal(serverPid, launcherPid)
    else assert.notEqual(serverPid, launcherPid, `${launcher.name} runs printroute in a process of its own`)
    // Whatever started it, printroute runs on the project's Node 24 (the same file as node_modules/.bin/node).
    assert.equal(statSync(`/proc/${serverPid}/exe`).ino, statSync(PROJECT_NODE).ino, 'the project Node runs it')
    // ... with printroute's V8 flags on node's command line (the shebang's for npx, the script's for npm start).
    const nodeArguments = readFileSync(`/proc/${serverPid}/cmdline`, 'utf8').split('\0')
    for (const flag of PRINTROUTE_NODE_FLAGS) assert.ok(nodeArguments.includes(flag), `${flag} in ${nodeArguments}`)
    for (const address of addresses) assert.equal((await fetch(`${address}/healthz`)).status, 200)

    // The launcher's own PID only, as systemd, a container runtime or `kill <pid>` signals it; or, as Ctrl-C
    // in a terminal does, every process of its group.
    process.kill(to === 'group' ? -launcherPid : launcherPid, signal)
    // `closed`: the launcher and every process writing to its output (printroute among them) have ended.
    let timer: NodeJS.Timeout | undefined
    const stopped = await Promise.race([
      running.closed.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), STOP_WITHIN_MS)
      }),
    ])
    clearTimeout(timer)
    if (!stopped) {
      failWith(
        `not stopped ${STOP_WITHIN_MS} ms after ${signal} to pid ${launcherPid}: the launcher is ` +
          `${isRunning(launcherPid) ? 'running' : 'gone'}, printroute (pid ${serverPid}) is ` +
          `${isRunning(serverPid) ? 'running' : 'gone'}`,
      )
    }
    const { exitCode, signalCode } = running.child
    if (!(exitCode === 0 || signalCode === signal)) failWith(`the launcher ended with ${exitCode ?? signalCode}`)
    // Its output closes while the kernel is still tearing the process down (open files are released before the
    // process becomes a zombie), so on a loaded machine the pid may look alive for a moment after `closed`.
    if (!(await endsWithin(serverPid, STOP_WITHIN_MS))) failWith(`printroute (pid ${serverPid}) is still running`)
    for (const address of addresses) {
      if (!(await portIsFree(portOf(address)))) failWith(`port ${portOf(address)} is still taken`)
    }
    // Gracefully: the shutdown ran to its end. Through npx, printroute learns of the stop from its shell's
    // end, and stops as on SIGTERM whichever signal ended the shell.
    const expectedSignal = launcher === LAUNCHERS.npx ? 'SIGTERM' : signal
    const output = running.output()
    if (!output.includes(`"signal":"${expectedSignal}","msg":"shutting down"`)) failWith('no "shutting down" line')
    if (!/"msg":"stopped"/.test(output)) failWith('no "stopped" line')
    if (/npm (error|ERR!)|ENOTCACHED/.test(output)) failWith('npm reported an error')
  }

  test('SIGTERM to npm start', () => startAndSignal(LAUNCHERS.npmStart, 'serve', 'SIGTERM'))
  test('SIGINT to npm start', () => startAndSignal(LAUNCHERS.npmStart, 'serve', 'SIGINT'))
  // printroute gets this SIGINT twice, from the terminal and forwarded by npm: the second must not cut the
  // graceful stop short.
  test("Ctrl-C on npm start (SIGINT to the launcher's process group)", () =>
    startAndSignal(LAUNCHERS.npmStart, 'serve', 'SIGINT', { to: 'group' }))
  test('SIGTERM to npx printroute serve', () => startAndSignal(LAUNCHERS.npx, 'serve', 'SIGTERM'))
  test('SIGTERM to the node process (serve)', () => startAndSignal(LAUNCHERS.node, 'serve', 'SIGTERM'))
  test('SIGINT to the node process (serve)', () => startAndSignal(LAUNCHERS.node, 'serve', 'SIGINT'))

  // A worker needs PostgreSQL (it shares the database with an API process): these run when the tests have one.
  if (POSTGRES_TEST_URL) {
    const workerOnPostgres = async (launcher: Launcher) => {
      const database = await createScratchDatabase('printroute_launcher')
      databases.push(database)
      await startAndSignal(launcher, 'worker', 'SIGTERM', { env: { DATABASE_URL: database.url } })
    }
    test('SIGTERM to npx printroute worker', () => workerOnPostgres(LAUNCHERS.npx))
    test('SIGTERM to the node process (worker)', () => workerOnPostgres(LAUNCHERS.node))
  }
})
