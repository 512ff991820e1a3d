// `npm test`: every *.test.ts under src/ and test/, reported by the spec reporter; exit code 1 when anything
// failed. `npm test -- <file>...` runs only the files given, each in a process of its own.
//
// How the whole suite runs, and why (the suite is CPU-bound on a 2-core machine):
// - Most test files share a few processes ("shards"): each shard imports its files one after another, every
//   file's tests inside a suite named after the file (so a file's top-level hooks stay its own). A process of
//   its own per file cost each file about 4 s of CPU before its first test (loading the modules, compiling
//   PGlite's WebAssembly, building the first servers): more than half of the suite's CPU.
// - A file that spawns processes, drives a browser, renders through the whole pipeline or changes the
//   process's environment variables keeps a process of its own (OWN_PROCESS): those are the slowest files,
//   they run four at a time beside the shards, and nothing they do can leak into another file.
// - The slowest start first and the quick ones fill the gaps (longest first finishes a batch of jobs soonest on
//   a few workers); `node --test` with globs started files in alphabetical order, leaving a tail of slow ones.
// - Node keeps the compiled code of the modules on disk (NODE_COMPILE_CACHE), so every process, the printroute
//   processes the tests spawn included, starts about half a second sooner.
//
// A new test file is sharded unless it matches OWN_PROCESS: one that sets process.env, installs process-wide
// handlers or must run alone belongs there. PRINTROUTE_TEST_TIMING=<file> also writes each process's time,
// slowest first (test/support/file-timing.reporter.ts).
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { glob } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'
import fileTimingReporter from './support/file-timing.reporter.ts'

const ROOT = join(import.meta.dirname, '..')
/** Processes at once. */
const CONCURRENCY = 4
/** Processes the sharded files share. */
const SHARDS = 6
/** Per test (as --test-timeout): the longest tests wait minutes on spawned processes. */
const TEST_TIMEOUT_MS = 300_000

/** Files run in a process of their own, in this order, before the shards (the longest first). */
const OWN_PROCESS: RegExp[] = [
  /^test\/cli\/(several-processes|crash)\.test\.ts$/, // spawned processes and recovery waits: the longest files
  /\.browser\.test\.ts$/, // a real Chromium
  /^test\/(cli|pipeline)\//, // spawned processes, the pipeline's real renders and lab steps
  /^src\/adapters\/s3-blob-store\.test\.ts$/, // sets the AWS_* environment variables
  /^test\/sdk\/sdk\.package\.test\.ts$/, // packs and installs the SDK
]

function ownProcessRank(file: string): number {
  return OWN_PROCESS.findIndex((pattern) => pattern.test(file))
}

async function allTestFiles(): Promise<string[]> {
  const files: string[] = []
  for await (const file of glob(['src/**/*.test.ts', 'test/**/*.test.ts'], { cwd: ROOT })) files.push(file)
  return files.sort()
}

/** Writes the shard files (each imports its test files, one suite per file) into `directory`. */
function writeShards(files: string[], directory: string): string[] {
  // test/ files (applications, HTTP) are heavier than src/ unit tests: dealt out first, so each shard gets some.
  const ordered = [
    ...files.filter((file) => file.startsWith('test/')),
    ...files.filter((file) => !file.startsWith('test/')),
  ]
  const count = Math.min(SHARDS, ordered.length)
  const shards = Array.from({ length: count }, (_, shard) => ordered.filter((_file, index) => index % count === shard))
  return shards.map((shardFiles, index) => {
    const path = join(directory, `shard-${index + 1}.test.mjs`)
    const imports = shardFiles.map(
      (file) =>
        `describe(${JSON.stringify(file)}, async () => {\n  await import(${JSON.stringify(join(ROOT, file))})\n})\n`,
    )
    writeFileSync(path, `import { describe } from 'node:test'\n${imports.join('')}`)
    return path
  })
}

process.env.NODE_COMPILE_CACHE ??= join(ROOT, 'node_modules', '.cache', 'node-compile-cache')

const requested = process.argv.slice(2)
let processes: string[]
if (requested.length > 0) {
  processes = requested.map((file) => resolve(file))
} else {
  const files = await allTestFiles()
  const own = files
    .filter((file) => ownProcessRank(file) !== -1)
    .sort((a, b) => ownProcessRank(a) - ownProcessRank(b) || a.localeCompare(b))
  const shardDirectory = mkdtempSync(join(tmpdir(), 'printroute-test-shards-'))
  process.on('exit', () => rmSync(shardDirectory, { recursive: true, force: true }))
  const shards = writeShards(
    files.filter((file) => ownProcessRank(file) === -1),
    shardDirectory,
  )
  // The two longest files, then the shards (about a minute each), then the other files of their own.
  processes = [
    ...own.slice(0, 2).map((file) => join(ROOT, file)),
    ...shards,
    ...own.slice(2).map((file) => join(ROOT, file)),
  ]
}

const events = run({ files: processes, concurrency: CONCURRENCY, timeout: TEST_TIMEOUT_MS })
events.on('test:fail', () => {
  process.exitCode = 1
})
events.compose(spec).pipe(process.stdout)
const timingFile = process.env.PRINTROUTE_TEST_TIMING
if (timingFile) events.compose(fileTimingReporter).pipe(createWriteStream(timingFile))
