// npm run bench:api — create-order and get-order throughput and p99 latency on PGlite and PostgreSQL, next
// to a bare Fastify route that only validates the same body, run in this one script on this machine so the
// ratio is meaningful on a shared, noisy host. Each server runs in its own child process; autocannon runs
// here. Prints a table and rewrites the figures section of docs/benchmarks.md.
//
// Options (env): BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 10), DATABASE_URL (PostgreSQL,
// default postgres://postgres@127.0.0.1:5432/test; the PostgreSQL rows are skipped when it is unreachable).
import { type ChildProcess, spawn } from 'node:child_process'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import autocannon from 'autocannon'
import { BENCH_ORDER } from './bench-order.ts'
import { BENCHMARKS_MD, postgresReachable, writeBenchmarksBlock } from './bench-support.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const POSTGRES_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
const ROOT = join(import.meta.dirname, '..')
const BODY = JSON.stringify(BENCH_ORDER)

interface Server {
  port: number
  key: string
  orderId: string
  child: ChildProcess
}

type RateLimitMode = 'off' | 'memory' | 'database'

async function startServer(mode: 'bare' | 'pglite' | 'postgres', rateLimit: RateLimitMode = 'off'): Promise<Server> {
  const child = spawn(process.execPath, [join(ROOT, 'bench', 'bench-server.ts'), mode, rateLimit], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DATABASE_URL: POSTGRES_URL },
  })
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`bench server ${mode} exited with ${code}`)))
  })
  return { ...(JSON.parse(first) as { port: number; key: string; orderId: string }), child }
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve))
  server.child.kill('SIGTERM')
  await exited
}

interface Figures {
  requestsPerSecond: number
  p99Ms: number
  non2xx: number
}

async function load(
  url: string,
  options: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<Figures> {
  const run = (duration: number) =>
    autocannon({
      url,
      connections: CONNECTIONS,
      duration,
      method: options.method,
      headers: options.headers,
      body: options.body,
    })
  await run(2) // warm-up: JIT, connection pools, caches
  const result = await run(SECONDS)
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors,
  }
}

interface Row {
  backend: string
  scenario: string
  figures: Figures
}

const rows: Row[] = []
const json = { 'content-type': 'application/json' }

async function runBare(label: string): Promise<void> {
  const bare = await startServer('bare')
  rows.push({
    backend: 'none',
    scenario: `bare route (validate body only), ${label}`,
    figures: await load(`http://127.0.0.1:${bare.port}/v4.0/orders`, { method: 'POST', headers: json, body: BODY }),
  })
  await stopServer(bare)
}

// The baseline runs first and last; the ratios use the mean of both, which evens out drift in the load
// the shared machine is under during the run.
await runBare('first')

const backends: ('pglite' | 'postgres')[] = ['pglite']
if (await postgresReachable(POSTGRES_URL)) backends.push('postgres')
else process.stderr.write(`PostgreSQL at ${POSTGRES_URL} is unreachable: skipping its rows\n`)

for (const backend of backends) {
  const server = await startServer(backend)
  const base = `http://127.0.0.1:${server.port}/v4.0`
  const auth = { 'x-api-key': server.key }
  rows.push({
    backend,
    scenario: 'create order',
    figures: await load(`${base}/orders`, { method: 'POST', headers: { ...json, ...auth }, body: BODY }),
  })
  rows.push({
    backend,
    scenario: 'get order',
    figures: await load(`${base}/orders/${server.orderId}`, { method: 'GET', headers: auth }),
  })
  await stopServer(server)
}

// The rate limit's cost: get-order (the cheapest keyed request, where it shows most) with each key's requests
// counted in memory, and on PostgreSQL in the shared counters (create-order too); the rows above count nothing.
const rateLimitRuns: { backend: 'pglite' | 'postgres'; mode: RateLimitMode; create: boolean }[] = [
  { backend: 'pglite', mode: 'memory', create: false },
  ...(backends.includes('postgres')
    ? [
        { backend: 'postgres' as const, mode: 'memory' as const, create: false },
        { backend: 'postgres' as const, mode: 'database' as const, create: true },
      ]
    : []),
]
for (const run of rateLimitRuns) {
  const server = await startServer(run.backend, run.mode)
  const base = `http://127.0.0.1:${server.port}/v4.0`
  const auth = { 'x-api-key': server.key }
  const counted = run.mode === 'memory' ? 'rate limit counted in memory' : 'rate limit counted in PostgreSQL'
  if (run.create) {
    rows.push({
      backend: run.backend,
      scenario: `create order, ${counted}`,
      figures: await load(`${base}/orders`, { method: 'POST', headers: { ...json, ...auth }, body: BODY }),
    })
  }
  rows.push({
    backend: run.backend,
    scenario: `get order, ${counted}`,
    figures: await load(`${base}/orders/${server.orderId}`, { method: 'GET', headers: auth }),
  })
  await stopServer(server)
}

await runBare('last')
const bareRows = rows.filter((row) => row.backend === 'none')
const baseline = bareRows.reduce((sum, row) => sum + row.figures.requestsPerSecond, 0) / bareRows.length

const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`
const command = `npm run bench:api  (BENCH_SECONDS=${SECONDS}, BENCH_CONNECTIONS=${CONNECTIONS})`
const header = '| backend | scenario | req/s | p99 ms | vs bare route | non-2xx |\n|---|---|---:|---:|---:|---:|'
const table = rows
  .map(
    (row) =>
      `| ${row.backend} | ${row.scenario} | ${Math.round(row.figures.requestsPerSecond)} | ${row.figures.p99Ms} | ${(
        (row.figures.requestsPerSecond / baseline) * 100
      ).toFixed(0)}% | ${row.figures.non2xx} |`,
  )
  .join('\n')
const report = `Command: \`${command}\`\nMachine: ${machine}\nDate: ${new Date().toISOString()}\n\n${header}\n${table}\n`
process.stdout.write(`\n${report}\n`)

await writeBenchmarksBlock('api', report, { heading: '## API throughput: `npm run bench:api`' })
process.stdout.write(`figures written to ${BENCHMARKS_MD}\n`)
