// Runs the printroute command line as a child process, the way a user does: one command to its end
// (`printroute`), or a long-running one (serve, worker) to watch and stop (`startPrintroute`).
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

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
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: commandEnv(env) })
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
  /** Resolves with the first match of `pattern` in the output; fails after `timeoutMs` with the output. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** The exit code (null when a signal ended it). */
  exited: Promise<number | null>
}

/** Starts `printroute <args>` and collects its output. */
// Every process started here, so a failed test cannot leave one running (which would keep its file alive).
const started = new Set<ChildProcess>()

/** Kills (SIGKILL) every process startPrintroute started that is still running; for `after` hooks. */
export function killStartedPrintroutes(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  started.clear()
}

export function startPrintroute(args: string[], env: Record<string, string | undefined> = {}): RunningPrintroute {
  const child = spawn(process.execPath, [BIN, ...args], { env: commandEnv(env) })
  started.add(child)
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  return {
    child,
    output: () => output,
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    // Generous: a first start makes its database, while the suite runs other processes at the same time; the
    // wait only runs long when the start is broken.
    async waitFor(pattern, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const match = output.match(pattern)
        if (match) return match
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`timed out waiting for ${pattern}:\n${output}`)
    },
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
