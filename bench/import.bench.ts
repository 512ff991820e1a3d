// npm run bench:import — a CSV order import (two rows, two items, per order) at each size of BENCH_ROWS, on PGlite
// (in memory) and on PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; skipped when
// unreachable, in a fresh schema dropped at the end): rows per second and the memory the import takes, next to the
// same orders created through POST /v4.0/orders one by one (the baseline, its requests built from the same rows)
// in the same process on this machine (docs/benchmarks.md: compare the ratio, not absolute figures, across runs).
//
// Each (database, size) runs in a process of its own (this file, started again with BENCH_RUN and --expose-gc), so
// one run's garbage and database never count in the next's memory. The application is built as the tests build it
// (no job workers): the import's job is run by hand (services.orderImports.runImport), as the queue would run it,
// and the baseline's requests go through Fastify's inject one at a time. The upload (POST /v4.0/orders/imports) is
// timed too. Both paths are warmed up first (BENCH_WARMUP_ORDERS orders each), and every statement the application
// runs is counted per phase (calls and time): where each order's time goes.
//
// Memory, sampled every 20 ms while a phase runs, read after a forced full garbage collection every second while
// it runs (its time left out of the phase's), and before and after it: RSS (the whole process), the V8 heap used
// (the importer's own objects: the rows, the results not yet recorded, the references seen), and external /
// arrayBuffers (Buffers, and PGlite's WebAssembly memory, which is where PGlite keeps the database: it grows with the
// orders it holds; on PostgreSQL the data is the server's). The importer's memory is bounded when its live heap (the
// samples after a GC) does not grow with the rows; the PGlite database's memory is expected to.
//
// BENCH_PROFILE=DIR writes a CPU profile of each run's import and baseline phases to DIR (node:inspector), for
// scripts or Chrome's DevTools.
//
// Prints the report and rewrites the block between the bench:import markers in docs/benchmarks.md. Options (env):
// BENCH_ROWS (sizes, comma separated: 10000,20000), BENCH_BASELINE (0 skips the one-by-one POSTs), BENCH_BACKENDS
// (pglite,postgres), BENCH_WARMUP_ORDERS (200), BENCH_PROFILE, DATABASE_URL.
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Database, Queryable } from '../src/adapters/database.ts'
import { type Application, buildApplication } from '../src/app.ts'
import { loadCatalogue } from '../src/catalogue/catalogue.loader.ts'
import { parseId } from '../src/domain/ids.ts'
import { csvLine, TEMPLATE_COLUMNS } from '../src/domain/order-imports.ts'
import { machineLine, openBenchDatabase, postgresReachable, writeBenchmarksBlock } from './bench-support.ts'

const SIZES = (process.env.BENCH_ROWS ?? '10000,20000').split(',').map((size) => Number(size.trim()))
const BASELINE = process.env.BENCH_BASELINE !== '0'
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',') as Kind[]
const PROFILE_DIR = process.env.BENCH_PROFILE || null
const WARMUP_ORDERS = Number(process.env.BENCH_WARMUP_ORDERS ?? 200)
/** How often a phase's live memory is read after a forced full GC (its time is left out of the phase's). */
const LIVE_SAMPLE_MS = 1000
const POSTGRES_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'

type Kind = 'pglite' | 'postgres'

function rowOf(index: number, prefix = 'BENCH'): Record<string, string> {
  const order = Math.floor(index / 2) + 1
  return {
    merchantReference: `${prefix}-${order}`,
    shippingMethod: 'Standard',
    'recipient.name': `Customer ${order}`,
    'recipient.address.line1': `${order} Test Street`,
    'recipient.address.postalOrZipCode': 'EC1A 1BB',
    'recipient.address.countryCode': 'GB',
    'recipient.address.townOrCity': 'London',
    sku: 'GLOBAL-CAN-10x10',
    copies: String(1 + (index % 3)),
    sizing: 'fillPrintArea',
    'attributes.wrap': 'ImageWrap',
    'assets.default': `https://images.example.com/${order}-${index % 2}.jpg`,
  }
}

interface Memory {
  rss: number
  heapUsed: number
  external: number
  arrayBuffers: number
}

/** The statements of a phase: how many of each ran and the milliseconds spent waiting for them. */
type Statements = Record<string, { calls: number; ms: number }>

/** A phase: its time, the peaks sampled while it ran, the memory after a GC before and after it, its statements. */
interface Phase {
  /** Without the forced GCs of the live samples. */
  seconds: number
  peak: Memory
  /** The highest of the samples read just after a forced full GC, every LIVE_SAMPLE_MS: what the phase holds (0: none). */
  live: Memory
  liveSamples: number
  before: Memory
  after: Memory
  statements: Statements
}

/** One (database, size) run, as its process reports it. */
interface RunResult {
  kind: Kind
  rows: number
  fileBytes: number
  ordersCreated: number
  upload: Phase
  importJob: Phase
  baseline: Phase | null
}

declare const gc: (() => void) | undefined

/** The milliseconds the live samples' forced GCs took so far: left out of a phase's time and of its statements'. */
let forcedGcMs = 0

/** The statement a query's SQL is counted under: its first words (a function called, a table written or read). */
function statementName(sql: string): string {
  const text = sql.replace(/\s+/g, ' ').trim()
  const called = /^SELECT \* FROM (\w+)\(/.exec(text)
  if (called) return `${called[1]}()`
  const written = /^(INSERT INTO|UPDATE|DELETE FROM) (\w+)/.exec(text)
  if (written) return `${written[1]?.split(' ')[0]} ${written[2]}`
  const read = /^SELECT .*? FROM (\w+)/.exec(text)
  return read ? `SELECT ${read[1]}` : text.slice(0, 40)
}

/**
 * Counts every statement the application runs on `db` into `into.current` (the phase being measured): the time
 * from the call to its rows, so on PGlite the database's own work and on PostgreSQL the round trip and server.
 */
function countStatements(db: Database, into: { current: Statements }): void {
  const timed =
    (query: Queryable['query']): Queryable['query'] =>
    async (sql, params) => {
      const started = performance.now()
      const gcBefore = forcedGcMs
      try {
        return await query(sql, params)
      } finally {
        const name = statementName(sql)
        const entry = into.current[name] ?? { calls: 0, ms: 0 }
        entry.calls += 1
        entry.ms += performance.now() - started - (forcedGcMs - gcBefore)
        into.current[name] = entry
      }
    }
  db.query = timed(db.query.bind(db))
  const transaction = db.transaction.bind(db)
  db.transaction = (work) => transaction((tx) => work({ query: timed(tx.query.bind(tx)), exec: tx.exec.bind(tx) }))
}

function settledMemory(): Memory {
  if (typeof gc === 'function') {
    gc()
    gc()
  }
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage()
  return { rss, heapUsed, external, arrayBuffers }
}

/**
 * Runs `work`, sampling the process's memory every 20 ms, counting its statements into `counter` (and profiling
 * its CPU into `profile`, when given).
 */
async function measured(
  work: () => Promise<void>,
  counter: { current: Statements },
  profile: string | null,
): Promise<Phase> {
  const before = settledMemory()
  const statements: Statements = {}
  const peak = { ...before }
  const sample = () => {
    const now = process.memoryUsage()
    peak.rss = Math.max(peak.rss, now.rss)
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed)
    peak.external = Math.max(peak.external, now.external)
    peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers)
  }
  const live: Memory = { rss: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }
  let liveSamples = 0
  const gcAtStart = forcedGcMs
  const sampleLive = () => {
    const started = performance.now()
    const now = settledMemory()
    forcedGcMs += performance.now() - started
    liveSamples += 1
    live.rss = Math.max(live.rss, now.rss)
    live.heapUsed = Math.max(live.heapUsed, now.heapUsed)
    live.external = Math.max(live.external, now.external)
    live.arrayBuffers = Math.max(live.arrayBuffers, now.arrayBuffers)
  }
  const session = profile ? new Session() : null
  if (session) {
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.start')
  }
  const timer = setInterval(sample, 20)
  const liveTimer = setInterval(sampleLive, LIVE_SAMPLE_MS)
  counter.current = statements
  const started = performance.now()
  try {
    await work()
    sample()
  } finally {
    clearInterval(timer)
    clearInterval(liveTimer)
    counter.current = {}
  }
  const seconds = (performance.now() - started - (forcedGcMs - gcAtStart)) / 1000
  if (session && profile) {
    const { profile: taken } = await session.post('Profiler.stop')
    writeFileSync(profile, JSON.stringify(taken))
    session.disconnect()
  }
  return { seconds, peak, live, liveSamples, before, after: settledMemory(), statements }
}

/** The run this process was started for: one database, one size. */
async function runOne(kind: Kind, rows: number): Promise<RunResult> {
  const { db, databaseUrl, jobSchema, drop } = await openBenchDatabase(kind, POSTGRES_URL)
  const counter = { current: {} as Statements }
  countStatements(db, counter)
  const filesDir = mkdtempSync(join(tmpdir(), 'printroute-bench-import-'))
  try {
    const app = await buildApplication({
      db,
      databaseUrl,
      jobSchema,
      catalogue: loadCatalogue(),
      logger: false,
      filesDir,
      workers: false,
      rateLimit: null,
    })
    try {
      const account = await app.services.accounts.createAccount(
        { name: 'bench', billingCurrency: 'GBP', pauseWindowSeconds: 0, callbackUrl: null },
        { kind: 'system' },
      )
      const key = account.keys.sandbox.key
      // Both paths warmed up first (the same create-order code, compiled by V8 as it runs): otherwise whichever
      // ran first would pay for the compiling, as the import did in the earlier runs.
      await importFile(app, key, WARMUP_ORDERS * 2, 'WARM')
      if (BASELINE) await postOneByOne(app, key, WARMUP_ORDERS * 2, 'WARMBASE')
      const profileOf = (phase: string) =>
        PROFILE_DIR ? join(PROFILE_DIR, `import-${kind}-${rows}-${phase}.cpuprofile`) : null
      const measuredImport = await importFile(app, key, rows, 'BENCH', counter, profileOf('import'))
      const baseline = BASELINE
        ? await measured(() => postOneByOne(app, key, rows, 'BASE'), counter, profileOf('baseline'))
        : null
      return { kind, rows, ...measuredImport, baseline }
    } finally {
      await app.close()
    }
  } finally {
    await drop()
    rmSync(filesDir, { recursive: true, force: true })
  }
}

/** Uploads a file of `rows` rows (references `prefix-N`) and runs its import; measured when `counter` is given. */
async function importFile(
  app: Application,
  key: string,
  rows: number,
  prefix: string,
  counter: { current: Statements } = { current: {} },
  profile: string | null = null,
): Promise<Pick<RunResult, 'fileBytes' | 'ordersCreated' | 'upload' | 'importJob'>> {
  let file = csvLine(TEMPLATE_COLUMNS)
  for (let index = 0; index < rows; index++) {
    const row = rowOf(index, prefix)
    file += csvLine(TEMPLATE_COLUMNS.map((column) => row[column] ?? ''))
  }
  const fileBytes = Buffer.byteLength(file)
  let importId = ''
  const upload = await measured(
    async () => {
      const answer = await app.sandbox.inject({
        method: 'POST',
        url: '/v4.0/orders/imports',
        headers: { 'x-api-key': key, 'content-type': 'text/csv' },
        payload: file,
      })
      importId = (answer.json().import as { id: string }).id
    },
    counter,
    null,
  )
  // The file is the upload's: the import reads it from the blob store, never from here.
  file = ''
  const importJob = await measured(
    () => app.services.orderImports.runImport(parseId('imp', importId) as number),
    counter,
    profile,
  )
  const done = (
    await app.sandbox.inject({ method: 'GET', url: `/v4.0/orders/imports/${importId}`, headers: { 'x-api-key': key } })
  ).json().import as { ordersCreated: number; rowsFailed: number; rowsRead: number }
  if (done.rowsRead !== rows || done.rowsFailed !== 0) throw new Error(`the import went wrong: ${JSON.stringify(done)}`)
  return { fileBytes, ordersCreated: done.ordersCreated, upload, importJob }
}

/** The baseline: the same orders (references `prefix-N`) POSTed one by one, each with its two items. */
async function postOneByOne(app: Application, key: string, rows: number, prefix: string) {
  for (let order = 1; order <= rows / 2; order++) {
    const pair = [rowOf((order - 1) * 2), rowOf((order - 1) * 2 + 1)]
    const first = pair[0] as Record<string, string>
    const answer = await app.sandbox.inject({
      method: 'POST',
      url: '/v4.0/orders',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: {
        merchantReference: `${prefix}-${order}`,
        shippingMethod: 'Standard',
        recipient: {
          name: first['recipient.name'],
          address: {
            line1: first['recipient.address.line1'],
            postalOrZipCode: 'EC1A 1BB',
            countryCode: 'GB',
            townOrCity: 'London',
          },
        },
        items: pair.map((row) => ({
          sku: row.sku,
          copies: Number(row.copies),
          sizing: 'fillPrintArea',
          attributes: { wrap: 'ImageWrap' },
          assets: [{ printArea: 'default', url: row['assets.default'] }],
        })),
      },
    })
    if (answer.statusCode !== 200) throw new Error(`baseline order ${order}: ${answer.body.slice(0, 300)}`)
  }
}

const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(0)
const mib1 = (bytes: number) => (bytes / 1024 ** 2).toFixed(1)

function report(results: RunResult[], skipped: string[], load: { before: string; after: string }): string {
  const lines = [
    `Command: \`npm run bench:import\` (BENCH_ROWS=${SIZES.join(',')}; orders of 2 rows; each database and size in a process of its own)`,
    `Machine: ${machineLine()}; \`nproc\` ${navigator.hardwareConcurrency}`,
    `Load average (1, 5, 15 min) before the first run: ${load.before}; after the last: ${load.after}`,
    `Date: ${new Date().toISOString()}`,
    ...skipped.map((line) => `Skipped: ${line}`),
    '',
    '| database | rows | import job | rows/s | baseline rows/s | import / baseline | upload |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map((r) => {
      const rate = r.rows / r.importJob.seconds
      const baseRate = r.baseline ? r.rows / r.baseline.seconds : Number.NaN
      return (
        `| ${r.kind} | ${r.rows} (${mib(r.fileBytes)} MiB file, ${r.ordersCreated} orders) | ` +
        `${r.importJob.seconds.toFixed(1)} s | ${rate.toFixed(0)} | ${r.baseline ? baseRate.toFixed(0) : 'not run'} | ` +
        `${r.baseline ? (rate / baseRate).toFixed(2) : ''} | ${r.upload.seconds.toFixed(2)} s |`
      )
    }),
    '',
    'Memory during the import job and the baseline, MiB. "before" and "after": after a full garbage collection ' +
      'just before the phase and just after it; "live": the highest of the samples read just after a forced full ' +
      `GC every ${LIVE_SAMPLE_MS / 1000} s while the phase ran (what it holds, garbage excluded; the GCs' time is left out ` +
      'of the phase\'s time); "peak": the highest of the 20 ms samples (garbage not yet collected included). ' +
      'PGlite keeps its database in WebAssembly memory, counted in arrayBuffers (and external).',
    '',
    '| database | rows | phase | RSS before / peak | heap used before / live / peak / after | arrayBuffers before / live / after | external before / live / after |',
    '|---|---:|---|---:|---:|---:|---:|',
    ...results.flatMap((r) =>
      (
        [
          ['import', r.importJob],
          ['baseline', r.baseline],
        ] as const
      ).flatMap(([name, phase]) => {
        if (!phase) return []
        const { before, live, peak, after } = phase
        return [
          `| ${r.kind} | ${r.rows} | ${name} (${phase.liveSamples} live samples) | ${mib(before.rss)} / ${mib(peak.rss)} | ` +
            `${mib1(before.heapUsed)} / **${mib1(live.heapUsed)}** / ${mib1(peak.heapUsed)} / ${mib1(after.heapUsed)} | ` +
            `${mib(before.arrayBuffers)} / ${mib(live.arrayBuffers)} / ${mib(after.arrayBuffers)} | ` +
            `${mib(before.external)} / ${mib(live.external)} / ${mib(after.external)} |`,
        ]
      }),
    ),
  ]
  lines.push(
    '',
    'Where the time goes, per order (2 rows), in ms: each statement the application ran (calls per order, time from ' +
      'the call to its rows: on PGlite the database itself, on PostgreSQL the round trip and the server), and the ' +
      'rest of the phase (JavaScript: parsing, the schema check, building the order; the request for the baseline).',
    '',
    ...results.flatMap((r) => timeLines(r)),
  )
  return lines.join('\n')
}

function timeLines(r: RunResult): string[] {
  const orders = r.rows / 2
  const phases: [string, Phase | null][] = [
    ['import', r.importJob],
    ['baseline', r.baseline],
  ]
  const names = [...new Set(phases.flatMap(([, phase]) => (phase ? Object.keys(phase.statements) : [])))].sort(
    (a, b) => (r.importJob.statements[b]?.ms ?? 0) - (r.importJob.statements[a]?.ms ?? 0),
  )
  const cell = (phase: Phase | null, name: string) => {
    const entry = phase?.statements[name]
    return entry ? `${(entry.calls / orders).toFixed(2)} x, ${(entry.ms / orders).toFixed(3)}` : ''
  }
  const rest = (phase: Phase | null) => {
    if (!phase) return ''
    const database = Object.values(phase.statements).reduce((sum, entry) => sum + entry.ms, 0)
    return ((phase.seconds * 1000 - database) / orders).toFixed(3)
  }
  const total = (phase: Phase | null) => (phase ? ((phase.seconds * 1000) / orders).toFixed(3) : '')
  return [
    `| ${r.kind}, ${r.rows} rows | import | baseline |`,
    '|---|---:|---:|',
    ...names.map((name) => `| \`${name}\` | ${cell(r.importJob, name)} | ${cell(r.baseline, name)} |`),
    `| outside the database | ${rest(r.importJob)} | ${rest(r.baseline)} |`,
    `| **whole order** | ${total(r.importJob)} | ${total(r.baseline)} |`,
    '',
  ]
}

const loadNow = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(', ')

async function main(): Promise<void> {
  const child = process.env.BENCH_RUN
  if (child) {
    const [kind, rows] = child.split(':') as [Kind, string]
    const result = await runOne(kind, Number(rows))
    process.stdout.write(`BENCH_RESULT ${JSON.stringify(result)}\n`)
    return
  }
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true })
  const skipped: string[] = []
  const kinds: Kind[] = []
  for (const kind of BACKENDS) {
    if (kind === 'postgres' && !(await postgresReachable(POSTGRES_URL))) {
      skipped.push(`postgres, ${POSTGRES_URL.replace(/\/\/[^@]*@/, '//')} unreachable`)
    } else kinds.push(kind)
  }
  const load = { before: loadNow(), after: '' }
  const results: RunResult[] = []
  // One run at a time: the machine is shared, and runs side by side would share its CPUs.
  for (const kind of kinds) {
    for (const rows of SIZES) {
      process.stderr.write(`${kind}, ${rows} rows (load ${loadNow()}) ...\n`)
      const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', import.meta.filename], {
        env: { ...process.env, BENCH_RUN: `${kind}:${rows}` },
        maxBuffer: 16 * 1024 ** 2,
      })
      const line = stdout.split('\n').find((text) => text.startsWith('BENCH_RESULT '))
      if (!line) throw new Error(`${kind}, ${rows} rows: no result in ${stdout.slice(-500)}`)
      results.push(JSON.parse(line.slice('BENCH_RESULT '.length)) as RunResult)
    }
  }
  load.after = loadNow()
  const block = report(results, skipped, load)
  console.log(block)
  await writeBenchmarksBlock('import', block, { heading: '## CSV order imports: `npm run bench:import`' })
}

await main()
