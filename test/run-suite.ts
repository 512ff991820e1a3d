// `npm test`: every *.test.ts under src/ and test/, reported by the spec reporter; exit code 1 when anything
// failed. `npm test -- <file>...` runs only the files given, each in a process of its own.
//
// How the whole suite runs, and why (the suite is CPU-bound on a 2-core machine):
// - Most test files share a few processes ("shards"): each shard imports its files one after another, every
//   file's tests inside a suite named after the file (so a file's top-level hooks stay its own). A process of
//   its own per file cost each file about 4 s of CPU before its first test (loading the modules, compiling
//   PGlite's WebAssembly, building the first servers): more than half of the suite's CPU.
// - A file that spawns processes or changes the process's environment variables keeps a process of its own
//   (OWN_PROCESS): nothing it does can leak into another file, and it runs beside the shards. The pipeline's
//   files (real renders, simulated lab steps) and the browser files share the shards: a process of their own
//   cost each 1.5-3 s of CPU to start (Node, PGlite, Chromium), and they touch nothing process-wide; a shard's
//   browser files take over one Chromium (acquireBrowser in test/support/browser.ts).
// - Longest first: each file weighs what it took in a recent run (test/suite-durations.json), the shards are
//   filled heaviest file first into the lightest shard, and the processes start heaviest first, so the quick
//   ones fill the gaps at the end (`node --test` with globs started files in alphabetical order and left a
//   tail of slow ones). The files run alone and the shards start in turn: the former (spawned processes, S3,
//   npm) spend much of their time waiting, which the shards' CPU fills.
// - Node keeps the compiled code of the modules on disk (NODE_COMPILE_CACHE), so every process, the printroute
//   processes the tests spawn included, starts about half a second sooner.
//
// Which databases a file's tests run on is the file's own declaration, its tier (test/support/tiers.ts): only
// `sql` files run on PostgreSQL as well as PGlite; the runner starts every file alike.
//
// A new test file is sharded unless it matches OWN_PROCESS (test/support/own-process.ts): one that spawns
// processes, sets process.env, installs process-wide handlers or must run alone belongs there, and
// test/own-process.test.ts fails when a file that does the first three (or imports a helper that does) is not
// on it. After adding or slowing files, refresh the weights with
// `PRINTROUTE_TEST_DURATIONS=test/suite-durations.json npm test`. PRINTROUTE_TEST_TIMING=<file> writes each
// process's time, slowest first (test/support/file-timing.reporter.ts).
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { glob } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'
import fileTimingReporter from './support/file-timing.reporter.ts'
import { runsAlone } from './support/own-process.ts'
import { dropRunSchemas, newTestRunId } from './support/test-run.ts'

const ROOT = join(import.meta.dirname, '..')
/** Processes at once (PRINTROUTE_TEST_CONCURRENCY overrides it, to measure another setting). */
const CONCURRENCY = Number(process.env.PRINTROUTE_TEST_CONCURRENCY) || 4
/** Processes the sharded files share. */
const SHARDS = 8
/** Per test (as --test-timeout): the longest tests wait minutes on spawned processes. */
const TEST_TIMEOUT_MS = 300_000
const DURATIONS_FILE = join(ROOT, 'test', 'suite-durations.json')
/** The weight of a file the durations do not list yet (seconds). */
const UNKNOWN_FILE_SECONDS = 10

async function allTestFiles(): Promise<string[]> {
  const files: string[] = []
  for await (const file of glob(['src/**/*.test.ts', 'test/**/*.test.ts'], { cwd: ROOT })) files.push(file)
  return files.sort()
}

/** Seconds per file (relative path) from a recent run. */
function recordedDurations(): Record<string, number> {
  return existsSync(DURATIONS_FILE) ? JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) : {}
}

interface Batch {
  /** What the runner starts: a test file, or a shard file importing several. */
  path: string
  seconds: number
}

/** Deals `files` into SHARDS shard files in `directory`, heaviest first into the lightest shard. */
function writeShards(files: string[], weight: (file: string) => number, directory: string): Batch[] {
  const shards = Array.from({ length: Math.min(SHARDS, files.length) }, () => ({ files: [] as string[], seconds: 0 }))
  for (const file of [...files].sort((a, b) => weight(b) - weight(a))) {
    const lightest = shards.reduce((best, shard) => (shard.seconds < best.seconds ? shard : best))
    lightest.files.push(file)
    lightest.seconds += weight(file)
  }
  return shards.map((shard, index) => {
    const path = join(directory, `shard-${index + 1}.test.mjs`)
    const suites = shard.files.map(
      (file) =>
        `describe(${JSON.stringify(file)}, async () => {\n  await import(${JSON.stringify(join(ROOT, file))})\n})\n`,
    )
    writeFileSync(path, `import { describe } from 'node:test'\n${suites.join('')}`)
    return { path, seconds: shard.seconds }
  })
}

/**
 * A reporter that records each file's duration: a file run alone by its process's time, a sharded file by its
 * suite's. Writes them to `file` (sorted by name) at the end.
 */
function durationsRecorder(file: string) {
  return async function* (source: AsyncIterable<{ type: string; data?: Record<string, any> }>) {
    const seconds: Record<string, number> = {}
    for await (const event of source) {
      const data = event.data
      // A file run alone reports its process's end as test:complete; a shard's suites report test:pass/fail.
      const ended = event.type === 'test:complete' || event.type === 'test:pass' || event.type === 'test:fail'
      if (!ended || data?.nesting !== 0) continue
      const name = String(data.name)
      const path = isAbsolute(name) ? relative(ROOT, name) : name
      if (/\.test\.ts$/.test(path) && !path.startsWith('..')) {
        seconds[path] = Math.round((data.details?.duration_ms ?? 0) / 100) / 10
      }
    }
    const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)))
    writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`)
    yield ''
  }
}

process.env.NODE_COMPILE_CACHE ??= join(ROOT, 'node_modules', '.cache', 'node-compile-cache')
// The test processes inherit the run's id: their PostgreSQL schemas are named by it, and dropped by it at the end.
const runId = newTestRunId()
process.env.PRINTROUTE_TEST_RUN = runId

const requested = process.argv.slice(2)
let processes: string[]
if (requested.length > 0) {
  processes = requested.map((file) => resolve(file))
} else {
  const files = await allTestFiles()
  const durations = recordedDurations()
  const weight = (file: string) => durations[file] ?? UNKNOWN_FILE_SECONDS
  const shardDirectory = mkdtempSync(join(tmpdir(), 'printroute-test-shards-'))
  process.on('exit', () => rmSync(shardDirectory, { recursive: true, force: true }))
  const heaviestFirst = (batches: Batch[]) => batches.sort((a, b) => b.seconds - a.seconds).map((batch) => batch.path)
  const alone = heaviestFirst(
    files.filter(runsAlone).map((file) => ({ path: join(ROOT, file), seconds: weight(file) })),
  )
  const shards = heaviestFirst(
    writeShards(
      files.filter((file) => !runsAlone(file)),
      weight,
      shardDirectory,
    ),
  )
  processes = Array.from({ length: Math.max(alone.length, shards.length) }, (_, index) => [
    alone[index],
    shards[index],
  ]).flatMap((pair) => pair.filter((path) => path !== undefined))
}

const events = run({ files: processes, concurrency: CONCURRENCY, timeout: TEST_TIMEOUT_MS })
// Each reporter composed onto the stream adds listeners of its own; three of them pass Node's default warning mark.
events.setMaxListeners(32)
events.on('test:fail', () => {
  process.exitCode = 1
})
// The run's own summary (every file's has its file) comes last: then no test process is left.
events.on('test:summary', (summary: { file?: string }) => {
  const url = process.env.PRINTROUTE_TEST_DATABASE_URL
  if (summary.file !== undefined || !url) return
  dropRunSchemas(url, runId).then(
    (dropped) => {
      if (dropped > 0) process.stderr.write(`dropped ${dropped} test schemas a test process left on the server\n`)
    },
    (error) => {
      process.stderr.write(`could not drop this run's test schemas: ${error.message}\n`)
      process.exitCode = 1
    },
  )
})
events.compose(spec).pipe(process.stdout)
const timingFile = process.env.PRINTROUTE_TEST_TIMING
if (timingFile) events.compose(fileTimingReporter).pipe(createWriteStream(timingFile))
const durationsFile = process.env.PRINTROUTE_TEST_DURATIONS
if (durationsFile) events.compose(durationsRecorder(resolve(durationsFile))).resume()
