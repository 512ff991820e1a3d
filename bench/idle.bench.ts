// npm run bench:idle — what printroute costs when nobody uses it: `printroute serve` started for real (its own
// process, a temporary data directory, free ports) on the embedded PGlite and on PostgreSQL (a scratch database
// on DATABASE_URL's server, dropped afterwards), beside a bare Fastify process (bench/idle-baseline.ts) in the
// same run. Each is started alone and waited for (its ready lines, then GET /readyz answering 200), left to
// settle, and then all three are measured over the same window:
//   - idle CPU: the process's own CPU time (utime + stime in /proc/<pid>/stat, its descendants' added, if any)
//     over the window: what the process used, which other load on a shared machine inflates little;
//   - RSS after start: VmRSS once settled (and again at the end of the window);
//   - peak RSS while starting: VmHWM (the high-water mark of the resident set) once settled.
// Prints a table and rewrites the figures block of docs/benchmarks.md.
//
// Options (env): BENCH_IDLE_SECONDS (the measured window, default 60), BENCH_SETTLE_SECONDS (wait after
// readiness, default 15), DATABASE_URL (the PostgreSQL server, default postgres://postgres@127.0.0.1:5432/test;
// the PostgreSQL row is skipped when it is unreachable), BENCH_WRITE=0 (print only, leave the docs alone).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { PRINTROUTE_NODE_FLAGS } from '../src/adapters/node-flags.ts'
import { BENCHMARKS_MD, machineLine, postgresReachable, writeBenchmarksBlock } from './bench-support.ts'

const WINDOW_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60)
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 15)
const POSTGRES_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
const WRITE = process.env.BENCH_WRITE !== '0'
/** A first start on a loaded 2-core machine (load average 30) took over 3 minutes. */
const READY_TIMEOUT_MS = 600_000
const ROOT = join(import.meta.dirname, '..')
const BIN = join(ROOT, 'bin', 'printroute.js')
const HEADING = '## Idle cost: `npm run bench:idle`'
/** The targets: CPU in % of one core, memory in MB (10^6 bytes, as `ps` and the issue count them). */
const TARGET = { cpuPercent: 0.5, rssPglite: 350, rssPostgres: 200, peak: 600 }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

// ---- /proc ----

/** utime + stime of one process in clock ticks, and its parent; null once it is gone. */
function statOf(pid: number): { ticks: number; ppid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    // After the name: state(3) ppid(4) ... utime(14) stime(15), here 0-based from field 3.
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }
  } catch {
    return null
  }
}

/** `pid` and every process below it. */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = statOf(Number(entry))
    if (stat) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)])
  }
  const tree = [pid]
  for (let index = 0; index < tree.length; index++) tree.push(...(children.get(tree[index] as number) ?? []))
  return tree
}

/** CPU seconds used so far by `pid` and its descendants, by process id (threads are counted in their process). */
function cpuSecondsByProcess(pid: number): Map<number, number> {
  const seconds = new Map<number, number>()
  for (const member of processTree(pid)) {
    const stat = statOf(member)
    if (stat) seconds.set(member, stat.ticks / TICKS_PER_SECOND)
  }
  return seconds
}

/** CPU seconds between two readings: processes present at the end, less what each had used at the start. */
function cpuSecondsBetween(start: Map<number, number>, end: Map<number, number>): number {
  let total = 0
  for (const [pid, seconds] of end) total += seconds - (start.get(pid) ?? 0)
  return total
}

/** VmRSS and VmHWM of one process in MB (10^6 bytes); null once it is gone. */
function memoryOfProcess(pid: number): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kilobytes = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0)
    return { rss: (kilobytes('VmRSS') * 1024) / 1e6, peak: (kilobytes('VmHWM') * 1024) / 1e6 }
  } catch {
    return null
  }
}

/** VmRSS and VmHWM of the process tree in MB (10^6 bytes). */
function memoryOf(pid: number): { rss: number; peak: number } {
  let rss = 0
  let peak = 0
  for (const member of processTree(pid)) {
    const memory = memoryOfProcess(member)
    rss += memory?.rss ?? 0
    peak += memory?.peak ?? 0
  }
  return { rss, peak }
}

// ---- the processes ----

interface Subject {
  name: string
  child: ChildProcess
  output(): string
  readySeconds: number
  /** The high-water mark (VmHWM, MB) of every process seen below the subject while it started, by pid. */
  startPeaks: Map<number, number>
  cleanup(): Promise<void>
}

/**
 * Watches the process tree of `pid` while it starts, so a short-lived child (the embedded database's first
 * start runs initdb in one) counts with its own peak: VmHWM read every 50 ms, the last reading of each process
 * kept. A child that grew further in its last 50 ms would be under-read by that much.
 */
function watchStartPeaks(pid: number): { peaks: Map<number, number>; stop(): void } {
  const peaks = new Map<number, number>()
  const read = () => {
    for (const member of processTree(pid)) {
      const peak = memoryOfProcess(member)?.peak
      if (peak !== undefined) peaks.set(member, Math.max(peaks.get(member) ?? 0, peak))
    }
  }
  const timer = setInterval(read, 50)
  read()
  return {
    peaks,
    stop() {
      clearInterval(timer)
      read()
    },
  }
}

function spawnSubject(args: string[], env: NodeJS.ProcessEnv) {
  const startedAt = performance.now()
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return { child, startedAt, exited, output: () => output }
}

/** Resolves with the first match of `pattern` in the output; throws with the output when the process exits. */
async function waitForOutput(
  spawned: ReturnType<typeof spawnSubject>,
  pattern: RegExp,
  name: string,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < deadline) {
    const match = spawned.output().match(pattern)
    if (match) return match
    if (spawned.child.exitCode !== null || spawned.child.signalCode !== null) break
    await sleep(50)
  }
  throw new Error(`${name} did not become ready (${pattern}):\n${spawned.output()}`)
}

async function waitForReadyz(url: string, name: string, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < deadline) {
    const status = await fetch(`${url}/readyz`).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) return
    await sleep(100)
  }
  throw new Error(`${name}: ${url}/readyz never answered 200:\n${output()}`)
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  const killed = setTimeout(() => child.kill('SIGKILL'), 30_000)
  await exited
  clearTimeout(killed)
}

async function startBaseline(): Promise<Subject> {
  const spawned = spawnSubject([join(ROOT, 'bench', 'idle-baseline.ts')], process.env)
  const url = (await waitForOutput(spawned, /ready at (http:\/\/\S+)/, 'bare Fastify'))[1] as string
  await waitForReadyz(url, 'bare Fastify', spawned.output)
  return {
    name: 'bare Fastify (baseline)',
    child: spawned.child,
    output: spawned.output,
    readySeconds: (performance.now() - spawned.startedAt) / 1000,
    startPeaks: new Map(),
    cleanup: () => stop(spawned.child, spawned.exited),
  }
}

/** `printroute serve` on a fresh data directory, on PGlite or (with `databaseUrl`) PostgreSQL. */
async function startServe(name: string, databaseUrl: string, after: () => Promise<void>): Promise<Subject> {
  const dataDir = await mkdtemp(join(tmpdir(), 'printroute-bench-idle-'))
  const spawned = spawnSubject(
    [
      ...PRINTROUTE_NODE_FLAGS,
      BIN,
      'serve',
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--sandbox-port',
      '0',
      '--log-format',
      'json',
    ],
    { ...process.env, DATABASE_URL: databaseUrl, PRINTROUTE_DATA_DIR: '', PORT: '', PRINTROUTE_SANDBOX_PORT: '' },
  )
  const watch = watchStartPeaks(spawned.child.pid as number)
  const cleanup = async () => {
    watch.stop()
    await stop(spawned.child, spawned.exited)
    await rm(dataDir, { recursive: true, force: true })
    await after()
  }
  try {
    const live = (await waitForOutput(spawned, /Live API ready at (http:\/\/[^/\s"]+)/, name))[1] as string
    await waitForOutput(spawned, /Sandbox API ready at (http:\/\/[^/\s"]+)/, name)
    await waitForReadyz(live, name, spawned.output)
    watch.stop()
  } catch (error) {
    await cleanup()
    throw error
  }
  return {
    name,
    child: spawned.child,
    output: spawned.output,
    readySeconds: (performance.now() - spawned.startedAt) / 1000,
    startPeaks: watch.peaks,
    cleanup,
  }
}

/** A scratch database on the server at POSTGRES_URL: its URL, and how to drop it. */
async function scratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `printroute_bench_idle_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: POSTGRES_URL })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(POSTGRES_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL })
      await cleanup.connect()
      try {
        // FORCE ends only the sessions connected to this database: the service's own, left after its stop.
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await cleanup.end()
      }
    },
  }
}

// ---- the report ----

interface Row {
  subject: Subject
  cpuSeconds: number
  rssAfterStart: number
  rssAtEnd: number
  peak: number
  target: { rss: number } | null
}

const fixed = (value: number, digits = 1) => value.toFixed(digits)

function report(rows: Row[], skipped: string[], loadAtStart: string): string {
  const baseline = rows.find((row) => row.target === null)
  const ratio = (value: number, of: number | undefined) => (of ? `${fixed(value / of)}x` : '-')
  const percent = (row: Row) => (row.cpuSeconds / WINDOW_SECONDS) * 100
  const verdict = (row: Row) => {
    if (!row.target) return ''
    const met = percent(row) < TARGET.cpuPercent && row.rssAfterStart < row.target.rss && row.peak < TARGET.peak
    return met ? 'met' : 'not met'
  }
  const startPeaks = (row: Row) => {
    const pid = row.subject.child.pid
    return [...row.subject.startPeaks]
      .map(([member, peak]) => `${member === pid ? 'serve' : 'child'} ${fixed(peak, 0)}`)
      .join(', ')
  }
  return [
    `Command: \`npm run bench:idle\`  (BENCH_IDLE_SECONDS=${WINDOW_SECONDS}, BENCH_SETTLE_SECONDS=${SETTLE_SECONDS})`,
    `Machine: ${machineLine()} at the end (${loadAtStart} at the start)`,
    `Date: ${new Date().toISOString()}`,
    `Each process started alone (\`printroute serve\` with a fresh data directory and free ports; on PostgreSQL a ` +
      `scratch database), ready when both ports logged ready and GET /readyz answered 200, then ${SETTLE_SECONDS} s ` +
      `to settle; then all measured over the same ${WINDOW_SECONDS}-second window with nothing to do. CPU: ` +
      `utime + stime of the process (and any children) over the window. RSS: VmRSS once settled and at the end ` +
      `of the window; peak: VmHWM, the largest of the serving process and of any process it ran while starting ` +
      `(watched every 50 ms; the embedded database's first start runs initdb in a child, whose peak is in the ` +
      `"start's processes" column). MB = 10^6 bytes. Targets: idle CPU < ${TARGET.cpuPercent}% of a core, RSS ` +
      `after start < ${TARGET.rssPglite} MB (PGlite) / ${TARGET.rssPostgres} MB (PostgreSQL), peak < ${TARGET.peak} MB.`,
    '',
    "| process | ready s | idle CPU s/min | % of a core | x baseline | RSS after start MB | RSS at end MB | x baseline | peak RSS MB | start's processes: peak MB | target |",
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.subject.name} | ${fixed(row.subject.readySeconds)} | ${fixed((row.cpuSeconds * 60) / WINDOW_SECONDS, 2)} | ` +
        `${fixed(percent(row), 2)} | ${row === baseline ? '1.0x' : ratio(row.cpuSeconds, baseline?.cpuSeconds)} | ` +
        `${fixed(row.rssAfterStart, 0)} | ${fixed(row.rssAtEnd, 0)} | ` +
        `${row === baseline ? '1.0x' : ratio(row.rssAfterStart, baseline?.rssAfterStart)} | ${fixed(row.peak, 0)} | ${startPeaks(row)} | ${verdict(row)} |`,
    ),
    ...skipped.map((line) => `| ${line} | | | | | | | | | | |`),
  ].join('\n')
}

async function main(): Promise<void> {
  const loadAtStart = machineLine().replace(/.*; /, '')
  const subjects: { subject: Subject; target: { rss: number } | null }[] = []
  const skipped: string[] = []
  const rows: Row[] = []
  try {
    process.stderr.write('starting the bare Fastify baseline ...\n')
    subjects.push({ subject: await startBaseline(), target: null })
    process.stderr.write('starting printroute serve on PGlite ...\n')
    subjects.push({
      subject: await startServe('printroute serve, PGlite', '', async () => {}),
      target: { rss: TARGET.rssPglite },
    })
    if (await postgresReachable(POSTGRES_URL)) {
      process.stderr.write('starting printroute serve on PostgreSQL ...\n')
      const database = await scratchDatabase()
      try {
        subjects.push({
          subject: await startServe('printroute serve, PostgreSQL', database.url, database.drop),
          target: { rss: TARGET.rssPostgres },
        })
      } catch (error) {
        await database.drop()
        throw error
      }
    } else {
      skipped.push(`printroute serve, PostgreSQL: skipped, ${POSTGRES_URL.replace(/\/\/[^@]*@/, '//')} unreachable`)
    }
    process.stderr.write(`settling ${SETTLE_SECONDS} s, then measuring ${WINDOW_SECONDS} s ...\n`)
    await sleep(SETTLE_SECONDS * 1000)
    const atStart = subjects.map(({ subject }) => ({
      cpu: cpuSecondsByProcess(subject.child.pid as number),
      memory: memoryOf(subject.child.pid as number),
    }))
    await sleep(WINDOW_SECONDS * 1000)
    subjects.forEach(({ subject, target }, index) => {
      const pid = subject.child.pid as number
      if (subject.child.exitCode !== null) throw new Error(`${subject.name} exited:\n${subject.output()}`)
      const start = atStart[index] as (typeof atStart)[number]
      const end = memoryOf(pid)
      rows.push({
        subject,
        cpuSeconds: cpuSecondsBetween(start.cpu, cpuSecondsByProcess(pid)),
        rssAfterStart: start.memory.rss,
        rssAtEnd: end.rss,
        // Each process's own high-water mark: the serving process's, and those of the processes it ran to start.
        peak: Math.max(start.memory.peak, end.peak, ...subject.startPeaks.values()),
        target,
      })
    })
  } finally {
    for (const { subject } of subjects.reverse()) await subject.cleanup()
  }
  const block = report(rows, skipped, loadAtStart)
  process.stdout.write(`\n${block}\n`)
  if (WRITE) {
    await writeBenchmarksBlock('idle', block, { heading: HEADING, before: '## The test suite' })
    process.stdout.write(`figures written to ${BENCHMARKS_MD}\n`)
  }
}

await main()
