// Runs the printroute command line as a child process, the way a user does: one command to its end
// (`printroute`), or a long-running one (serve, worker) to watch and stop (`startPrintroute`).
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { PRINTROUTE_NODE_FLAGS } from '../../src/adapters/node-flags.ts'

const run = promisify(execFile)
export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'printroute.js')

/** The caller's environment without the settings that would point a command at the developer's own data. */
function commandEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', PRINTROUTE_DATA_DIR: '', ...env }
  // `undefined` removes a variable.
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name]
  return merged
}

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

export async function printroute(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...PRINTROUTE_NODE_FLAGS, BIN, ...args], {
      env: commandEnv(env),
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

export interface CliSessionRequest {
  args: string[]
  env: Record<string, string | undefined>
}

export interface CliSession {
  /** Runs `printroute <args>` to its end, as `printroute` does; `env` applies to this command only. */
  run(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>
  close(): Promise<void>
}

/**
 * One child process that runs short commands one after another (not `serve` that starts: it would not end).
 * Each command gets the environment `printroute` gives it and its own output; a command that leaves state in
 * the process would be seen by the next, which is why only commands that open, act and close belong here.
 */
export function startCliSession(): CliSession {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'cli-session-child.ts')], {
    env: commandEnv({}),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let queue: Promise<unknown> = Promise.resolve()
  const run = (args: string[], env: Record<string, string | undefined> = {}) => {
    const result = queue.then(
      () =>
        new Promise<CliResult>((resolve, reject) => {
          const onExit = () => reject(new Error(`the CLI session ended during printroute ${args.join(' ')}`))
          child.once('exit', onExit)
          child.once('message', (message) => {
            child.off('exit', onExit)
            resolve(message as CliResult)
          })
          const request: CliSessionRequest = { args, env }
          child.send(request)
        }),
    )
    queue = result.catch(() => undefined)
    return result
  }
  return {
    run,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

export interface RunningPrintroute {
  child: ChildProcess
  /** Everything the process has written to stdout and stderr so far. */
  output(): string
  /**
   * Resolves with the first match of `pattern` in the output. Fails, with the output, as soon as the process
   * has ended without writing it, or after `timeoutMs` when one is given (for a line that should follow one
   * already seen). Without one the wait lasts as long as the test may: a start on a loaded machine can take
   * minutes, and a start that fails ends the process, which ends the wait at once.
   */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** The exit code (null when a signal ended it). */
  exited: Promise<number | null>
  /**
   * Resolves once every process holding the output pipes has ended: the child and anything it started that
   * writes to the same output (npm's or a shell's children).
   */
  closed: Promise<void>
}

interface Started {
  child: ChildProcess
  label: string
  output(): string
  /** The patterns a test is still waiting for. */
  awaited: Set<RegExp>
}

// Every process started here, so a failed test cannot leave one running (which would keep its file alive).
const started = new Set<Started>()

/**
 * Kills (SIGKILL) every process startProcess started that is still running; for `after` hooks. A process
 * still running here belongs to a test that failed or timed out: its output is printed first, with what the
 * test was waiting for, since a test cut off by its timeout never reaches its own messages.
 */
export function killStartedPrintroutes(): void {
  for (const { child, label, output, awaited } of started) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    const waits = awaited.size > 0 ? ` (waited for ${[...awaited].join(', ')})` : ''
    process.stderr.write(`\n----- ${label} was still running${waits}; its output: -----\n${output()}\n-----\n`)
    child.kill('SIGKILL')
  }
  started.clear()
}

/** Stops (SIGTERM) each of `processes` still running and waits for all of them to exit; for `after` hooks. */
export async function stopProcesses(processes: Iterable<RunningPrintroute>): Promise<void> {
  for (const running of processes) {
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGTERM')
    await running.exited
  }
}

/** Starts `printroute <args>` on the project's Node and collects its output. */
export function startPrintroute(args: string[], env: Record<string, string | undefined> = {}): RunningPrintroute {
  return startProcess(process.execPath, [...PRINTROUTE_NODE_FLAGS, BIN, ...args], env, `printroute ${args.join(' ')}`)
}

/**
 * Starts any command (npm, npx, node) with the environment `printroute` gives a command, and collects its
 * output; `label` names it in failures.
 */
export function startProcess(
  command: string,
  args: string[],
  env: Record<string, string | undefined> = {},
  label = `${command} ${args.join(' ')}`,
  options: { cwd?: string; detached?: boolean } = {},
): RunningPrintroute {
  const child = spawn(command, args, { env: commandEnv(env), ...options })
  let output = ''
  let hasClosed = false
  const onOutput = new Set<() => void>()
  const awaited = new Set<RegExp>()
  started.add({ child, label, output: () => output, awaited })
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      for (const listener of onOutput) listener()
    })
  }
  const closed = new Promise<void>((resolve) =>
    child.once('close', () => {
      hasClosed = true
      for (const listener of onOutput) listener()
      resolve()
    }),
  )
  return {
    child,
    output: () => output,
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    closed,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined
        const finish = () => {
          onOutput.delete(check)
          awaited.delete(pattern)
          clearTimeout(timer)
        }
        function check() {
          const match = output.match(pattern)
          if (match) {
            finish()
            resolve(match)
          } else if (hasClosed) {
            finish()
            const ending = child.signalCode ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`
            reject(new Error(`${label} ended (${ending}) without writing ${pattern}; its output:\n${output}`))
          }
        }
        if (timeoutMs !== undefined) {
          timer = setTimeout(() => {
            finish()
            reject(new Error(`${label} wrote no ${pattern} within ${timeoutMs} ms; its output:\n${output}`))
          }, timeoutMs)
        }
        onOutput.add(check)
        awaited.add(pattern)
        check()
      })
    },
  }
}

/** The end of a long output, where a failure shows; what came before is counted, not printed. */
function tail(output: string, characters = 30_000): string {
  if (output.length <= characters) return output
  return `(${output.length - characters} characters before)\n${output.slice(-characters)}`
}

/**
 * Runs `body`; when it fails, the error also carries the output of each process `processes` names (asked
 * then, so processes started inside `body` count), so a failure that is not about one line of output (a probe
 * that timed out, a wrong answer) still shows what the processes said.
 */
export async function withOutputOnFailure<T>(
  processes: () => Record<string, RunningPrintroute | undefined>,
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body()
  } catch (error) {
    const outputs = Object.entries(processes())
      .filter((entry): entry is [string, RunningPrintroute] => entry[1] !== undefined)
      .map(([name, running]) => `\n----- output of ${name} -----\n${tail(running.output())}`)
      .join('')
    if (error instanceof Error) error.message += outputs
    throw error
  }
}

export interface FirstStartKeys {
  accountId: string
  sandbox: string
  live: string
  /** The file the keys were written to, and the first-order script beside it. */
  keysFile: string
  script: string
}

/**
 * The demo account's keys of a `serve` whose output is not a terminal: it logs where it wrote them (never the
 * keys themselves), and they are read from that file.
 */
export async function firstStartKeys(running: RunningPrintroute): Promise<FirstStartKeys> {
  const keysFile = (await running.waitFor(/API keys are in (\S+), readable only by this user/))[1] as string
  const script = (await running.waitFor(/watch it: sh (\S+first-order\.sh) /))[1] as string
  const text = readFileSync(keysFile, 'utf8')
  const field = (pattern: RegExp) => {
    const found = pattern.exec(text)?.[1]
    if (!found) throw new Error(`${pattern} not in ${keysFile}:\n${text}`)
    return found
  }
  return {
    accountId: field(/^Demo account (acc_\d+) created/m),
    sandbox: field(/^ {2}Sandbox: (pr_sandbox_\S+)$/m),
    live: field(/^ {2}Live: {4}(pr_live_\S+)$/m),
    keysFile,
    script,
  }
}
