// A node:test reporter that prints how long each test file's process took, slowest first, when it started
// (seconds after the run began) and how many tests it ran: for finding the files that bound the suite's wall
// time. Use it beside the spec reporter, e.g.
//   node --test --test-concurrency=3 --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./test/support/file-timing.reporter.ts --test-reporter-destination=timing.txt \
//     "src/**/*.test.ts" "test/**/*.test.ts"
// The runner reports each file once it has finished (a file-level `test:complete` without `entryFile`, whose
// duration covers the whole child process); its tests' pass/fail events may arrive later, in order.

interface FileTiming {
  startedAtMs: number | null
  durationMs: number | null
  tests: number
  failed: number
}

interface TestEvent {
  type: string
  data?: {
    file?: string
    entryFile?: string
    name?: string
    details?: { type?: string; duration_ms?: number }
  }
}

export default async function* fileTimingReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const runStartedAt = Date.now()
  const files = new Map<string, FileTiming>()
  const timingOf = (file: string): FileTiming => {
    let timing = files.get(file)
    if (!timing) {
      timing = { startedAtMs: null, durationMs: null, tests: 0, failed: 0 }
      files.set(file, timing)
    }
    return timing
  }
  for await (const event of source) {
    const data = event.data
    if (!data?.file) continue
    const isFileLevel = data.entryFile === undefined && data.name !== undefined && data.file.endsWith(data.name)
    if (isFileLevel) {
      if (event.type === 'test:dequeue') timingOf(data.file).startedAtMs = Date.now() - runStartedAt
      if (event.type === 'test:complete') timingOf(data.file).durationMs = data.details?.duration_ms ?? null
      continue
    }
    // Leaf tests only, as node's own "# tests N" counts them (suites report details.type 'suite').
    if ((event.type === 'test:pass' || event.type === 'test:fail') && data.details?.type !== 'suite') {
      const timing = timingOf(data.file)
      timing.tests += 1
      if (event.type === 'test:fail') timing.failed += 1
    }
  }
  const cwd = `${process.cwd()}/`
  const rows = [...files.entries()]
    .map(([file, timing]) => ({ file: file.startsWith(cwd) ? file.slice(cwd.length) : file, ...timing }))
    .sort((a, b) => (b.durationMs ?? 0) - (a.durationMs ?? 0))
  const seconds = (ms: number | null) => (ms === null ? '?' : (ms / 1000).toFixed(1)).padStart(6)
  yield '  time  start  tests  file\n'
  let totalTests = 0
  for (const row of rows) {
    totalTests += row.tests
    const failed = row.failed > 0 ? `  (${row.failed} failed)` : ''
    yield `${seconds(row.durationMs)}s ${seconds(row.startedAtMs)} ${String(row.tests).padStart(5)}  ${row.file}${failed}\n`
  }
  yield `files ${rows.length}, tests ${totalTests}, wall ${seconds(Date.now() - runStartedAt).trim()}s\n`
}
