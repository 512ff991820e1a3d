// npm run bench:soak — whether `printroute serve`'s memory levels off under a long, mixed load. The server is
// started for real (its own process, a fresh data directory, free ports on 127.0.0.1) on the embedded PGlite and
// then on PostgreSQL (a scratch database on DATABASE_URL's server, dropped afterwards), each driven for
// BENCH_SOAK_MINUTES by a few request loops on loopback: valid and malformed requests against orders (create,
// get, list), quotes and products, unknown keys and bodies that are not JSON. The server's VmRSS is read from
// /proc/<pid>/status every BENCH_SOAK_SAMPLE_SECONDS; the report gives RSS at the start and at each minute, and
// the slope of a least-squares line through the samples of the second half (MB per minute): near zero when the
// memory has levelled off, steadily positive when something keeps growing.
//
// Options (env): BENCH_SOAK_MINUTES (default 10), BENCH_SOAK_SAMPLE_SECONDS (default 5), BENCH_SOAK_LOOPS
// (concurrent request loops, default 4), BENCH_SOAK_DATABASES (default "pglite,postgres"), DATABASE_URL (the
// PostgreSQL server, default postgres://postgres@127.0.0.1:5432/test; skipped when unreachable), BENCH_WRITE=0
// (print only; otherwise each database's block of docs/benchmarks.md is rewritten).
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { Agent, request } from 'undici'
import { PRINTROUTE_NODE_FLAGS } from '../src/adapters/node-flags.ts'
import { machineLine, postgresReachable, writeBenchmarksBlock } from './bench-support.ts'

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10)
const SAMPLE_SECONDS = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? 5)
const LOOPS = Number(process.env.BENCH_SOAK_LOOPS ?? 4)
const DATABASES = (process.env.BENCH_SOAK_DATABASES ?? 'pglite,postgres').split(',').map((name) => name.trim())
const POSTGRES_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
const WRITE = process.env.BENCH_WRITE !== '0'
/** A first start on a loaded 2-core machine can take minutes (bench/idle.bench.ts). */
const READY_TIMEOUT_MS = 600_000
/** One request may take this long before it counts as an error (the server's own request timeout is 60 s). */
const REQUEST_TIMEOUT_MS = 30_000
const ROOT = join(import.meta.dirname, '..')
const BIN = join(ROOT, 'bin', 'printroute.js')
const HEADING = '## Memory under a long load: `npm run bench:soak`'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** VmRSS of one process in MB (10^6 bytes); null once it is gone. */
function rssOf(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kilobytes = Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? Number.NaN)
    return (kilobytes * 1024) / 1e6
  } catch {
    return null
  }
}

// ---- the server ----

interface Server {
  child: ChildProcess
  sandboxUrl: string
  key: string
  output(): string
  stop(): Promise<void>
}

async function waitFor<T>(what: string, check: () => T | undefined, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < deadline) {
    const value = check()
    if (value !== undefined) return value
    if (child.exitCode !== null || child.signalCode !== null) break
    await sleep(100)
  }
  throw new Error(`no ${what}:\n${output()}`)
}

/** A scratch database on the server at POSTGRES_URL: its URL, and how to drop it. */
async function scratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `printroute_bench_soak_${randomBytes(4).toString('hex')}`
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
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await cleanup.end()
      }
    },
  }
}

/**
 * `printroute serve` on a fresh data directory with a demo account, its logs as JSON lines on a pipe (so the
 * keys go to the data directory's file, which gives the Sandbox key). The rate limit is set out of reach: what
 * is measured is the counting, not 429 answers.
 */
async function startServe(databaseUrl: string): Promise<Server> {
  const dataDir = await mkdtemp(join(tmpdir(), 'printroute-bench-soak-'))
  const child = spawn(
    process.execPath,
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
      '--rate-limit',
      '100000000/1m',
      ...(databaseUrl ? ['--demo-account'] : []),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PRINTROUTE_DATA_DIR: '',
        PORT: '',
        PRINTROUTE_SANDBOX_PORT: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  // The output is kept only in part: a long run's request lines would otherwise be the benchmark's own leak.
  let output = ''
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000)
  }
  let head = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    if (head.length < 100_000) head += chunk.toString()
    keep(chunk)
  })
  child.stderr?.on('data', keep)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    const killed = setTimeout(() => child.kill('SIGKILL'), 30_000)
    await exited
    clearTimeout(killed)
    await rm(dataDir, { recursive: true, force: true })
  }
  try {
    const sandboxUrl = await waitFor(
      'Sandbox ready line',
      () => head.match(/Sandbox API ready at (http:\/\/[^/\s"]+)/)?.[1],
      child,
      () => output,
    )
    const keysFile = await waitFor(
      'keys file in the log',
      () => head.match(/"keysFile":"([^"]+)"/)?.[1],
      child,
      () => output,
    )
    const key = readFileSync(keysFile, 'utf8').match(/Sandbox: (\S+)/)?.[1]
    if (!key) throw new Error(`no Sandbox key in ${keysFile}`)
    return { child, sandboxUrl, key, output: () => output, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

// ---- the load ----

interface Step {
  name: string
  method: 'GET' | 'POST'
  path: string
  body?: string
  key?: 'valid' | 'unknown' | 'none'
  contentType?: string
}

/** One round of the mix: mostly reads and rejected input, with a valid order now and then (its jobs run too). */
function mix(sandboxUrl: string, orderId: () => string | null): () => Step[] {
  const recipient = {
    name: 'Ada Lovelace',
    address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
  }
  const order = (reference: string) =>
    JSON.stringify({
      merchantReference: reference,
      shippingMethod: 'Budget',
      recipient,
      items: [
        {
          sku: 'GLOBAL-FAP-8x10',
          copies: 1,
          sizing: 'fillPrintArea',
          // The sample image the Sandbox serves itself: the order's download stays on loopback.
          assets: [{ printArea: 'default', url: `${sandboxUrl}/samples/portrait.jpg` }],
        },
      ],
    })
  const quote = JSON.stringify({
    shippingMethod: 'Standard',
    destinationCountryCode: 'GB',
    currencyCode: 'GBP',
    items: [{ sku: 'GLOBAL-FAP-8x10', copies: 2, assets: [{ printArea: 'default' }] }],
  })
  let round = 0
  return () => {
    round++
    const id = orderId()
    return [
      ...(round % 5 === 1
        ? [{ name: 'create order', method: 'POST' as const, path: '/v4.0/orders', body: order(`soak-${round}`) }]
        : []),
      ...(id ? [{ name: 'get order', method: 'GET' as const, path: `/v4.0/orders/${id}` }] : []),
      { name: 'list orders', method: 'GET', path: `/v4.0/orders?top=10&skip=${round % 50}` },
      { name: 'quote', method: 'POST', path: '/v4.0/quotes', body: quote },
      { name: 'product', method: 'GET', path: '/v4.0/products/GLOBAL-FAP-8x10' },
      { name: 'unknown product', method: 'GET', path: `/v4.0/products/NO-SUCH-${round}` },
      { name: 'unknown order', method: 'GET', path: `/v4.0/orders/ord_${100000 + round}` },
      { name: 'body not JSON', method: 'POST', path: '/v4.0/orders', body: `{"merchantReference": ${round}` },
      {
        name: 'invalid order',
        method: 'POST',
        path: '/v4.0/orders',
        body: JSON.stringify({ shippingMethod: 'Teleport', recipient: {}, items: [{ sku: `X-${round}`, copies: -1 }] }),
      },
      { name: 'invalid quote', method: 'POST', path: '/v4.0/quotes', body: JSON.stringify({ items: 'none' }) },
      { name: 'wrong content type', method: 'POST', path: '/v4.0/orders', body: 'a=b', contentType: 'text/plain' },
      { name: 'unknown key', method: 'GET', path: '/v4.0/orders', key: 'unknown' },
      { name: 'no key', method: 'GET', path: `/v4.0/orders?merchantReferences=soak-${round}`, key: 'none' },
    ]
  }
}

interface LoadTally {
  requests: number
  byStatus: Map<string, number>
}

async function drive(server: Server, until: number, tally: LoadTally): Promise<void> {
  const agent = new Agent({ connections: LOOPS, keepAliveTimeout: 10_000 })
  let lastOrderId: string | null = null
  const rounds = mix(server.sandboxUrl, () => lastOrderId)
  const unknownKey = `sk_sandbox_${randomBytes(16).toString('hex')}`
  const loop = async () => {
    while (Date.now() < until) {
      for (const step of rounds()) {
        if (Date.now() >= until) return
        const headers: Record<string, string> = {}
        if ((step.key ?? 'valid') === 'valid') headers['x-api-key'] = server.key
        if (step.key === 'unknown') headers['x-api-key'] = unknownKey
        if (step.body !== undefined) headers['content-type'] = step.contentType ?? 'application/json'
        let status = 'error'
        try {
          const response = await request(`${server.sandboxUrl}${step.path}`, {
            method: step.method,
            headers,
            body: step.body,
            dispatcher: agent,
            headersTimeout: REQUEST_TIMEOUT_MS,
            bodyTimeout: REQUEST_TIMEOUT_MS,
          })
          status = String(response.statusCode)
          const text = await response.body.text()
          if (step.name === 'create order' && response.statusCode === 200) {
            lastOrderId = (JSON.parse(text) as { order?: { id?: string } }).order?.id ?? lastOrderId
          }
        } catch (error) {
          status = `error ${(error as { code?: string }).code ?? (error as Error).name}`
        }
        tally.requests++
        const label = `${step.name} ${status}`
        tally.byStatus.set(label, (tally.byStatus.get(label) ?? 0) + 1)
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: LOOPS }, loop))
  } finally {
    await agent.close()
  }
}

// ---- one run ----

interface Sample {
  seconds: number
  rss: number
}

interface Run {
  database: string
  samples: Sample[]
  tally: LoadTally
  loadAtStart: string
}

/** Slope (MB per minute) of the least-squares line through `samples`. */
function slopePerMinute(samples: readonly Sample[]): number {
  const n = samples.length
  if (n < 2) return Number.NaN
  const meanX = samples.reduce((sum, sample) => sum + sample.seconds, 0) / n
  const meanY = samples.reduce((sum, sample) => sum + sample.rss, 0) / n
  let covariance = 0
  let variance = 0
  for (const sample of samples) {
    covariance += (sample.seconds - meanX) * (sample.rss - meanY)
    variance += (sample.seconds - meanX) ** 2
  }
  return (covariance / variance) * 60
}

async function soak(database: 'pglite' | 'postgres'): Promise<Run> {
  const loadAtStart = machineLine().replace(/.*; /, '')
  const scratch = database === 'postgres' ? await scratchDatabase() : null
  process.stderr.write(`${database}: starting printroute serve ...\n`)
  const server = await startServe(scratch?.url ?? '').catch(async (error) => {
    await scratch?.drop()
    throw error
  })
  const pid = server.child.pid as number
  const samples: Sample[] = []
  const tally: LoadTally = { requests: 0, byStatus: new Map() }
  try {
    const started = Date.now()
    const until = started + MINUTES * 60_000
    const sample = () => {
      const rss = rssOf(pid)
      if (rss !== null) samples.push({ seconds: (Date.now() - started) / 1000, rss })
    }
    sample()
    const sampler = setInterval(() => {
      sample()
      const last = samples.at(-1)
      if (last && Math.round(last.seconds) % 60 < SAMPLE_SECONDS) {
        process.stderr.write(
          `${database}: ${(last.seconds / 60).toFixed(1)} min, RSS ${last.rss.toFixed(0)} MB, ${tally.requests} requests\n`,
        )
      }
    }, SAMPLE_SECONDS * 1000)
    try {
      await drive(server, until, tally)
    } finally {
      clearInterval(sampler)
      sample()
    }
    if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`)
  } finally {
    await server.stop()
    await scratch?.drop()
  }
  return { database, samples, tally, loadAtStart }
}

// ---- the report ----

function report(run: Run): string {
  const { samples } = run
  const first = samples[0]
  const last = samples.at(-1)
  const atMinute = (minute: number) =>
    samples.reduce<Sample | undefined>(
      (best, sample) =>
        !best || Math.abs(sample.seconds - minute * 60) < Math.abs(best.seconds - minute * 60) ? sample : best,
      undefined,
    )
  const minutes = Array.from({ length: Math.floor(MINUTES) }, (_, index) => index + 1)
  const half = (last?.seconds ?? 0) / 2
  const secondHalf = samples.filter((sample) => sample.seconds >= half)
  const firstHalf = samples.filter((sample) => sample.seconds < half)
  const peak = Math.max(...samples.map((sample) => sample.rss))
  const fixed = (value: number | undefined, digits = 0) => (value === undefined ? '-' : value.toFixed(digits))
  const statuses = [...run.tally.byStatus]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, count]) => `${label}: ${count}`)
    .join(', ')
  return [
    `Command: \`BENCH_SOAK_DATABASES=${run.database} npm run bench:soak\`  (BENCH_SOAK_MINUTES=${MINUTES}, BENCH_SOAK_SAMPLE_SECONDS=${SAMPLE_SECONDS}, BENCH_SOAK_LOOPS=${LOOPS})`,
    `Machine: ${machineLine()} at the end (${run.loadAtStart} at the start); shared with other sessions' work`,
    `Date: ${new Date().toISOString()}`,
    '',
    `| database | requests | req/s | RSS at start MB | ${minutes.map((minute) => `${minute} min`).join(' | ')} | peak MB | slope, first half MB/min | slope, second half MB/min |`,
    `|---|---:|---:|---:|${minutes.map(() => '---:').join('|')}|---:|---:|---:|`,
    `| ${run.database} | ${run.tally.requests} | ${fixed(run.tally.requests / (last?.seconds || 1))} | ${fixed(first?.rss)} | ` +
      `${minutes.map((minute) => fixed(atMinute(minute)?.rss)).join(' | ')} | ${fixed(peak)} | ` +
      `${fixed(slopePerMinute(firstHalf), 1)} | ${fixed(slopePerMinute(secondHalf), 1)} |`,
    '',
    `Answers (request, status: count): ${statuses}.`,
  ].join('\n')
}

async function main(): Promise<void> {
  for (const database of DATABASES) {
    if (database !== 'pglite' && database !== 'postgres') throw new Error(`unknown database ${database}`)
    if (database === 'postgres' && !(await postgresReachable(POSTGRES_URL))) {
      process.stderr.write(`PostgreSQL at ${POSTGRES_URL} is unreachable: skipping it\n`)
      continue
    }
    const run = await soak(database)
    const block = report(run)
    process.stdout.write(`${block}\n\n`)
    if (WRITE) {
      await writeBenchmarksBlock(`soak-${database}`, block, { heading: HEADING })
    }
  }
}

await main()
