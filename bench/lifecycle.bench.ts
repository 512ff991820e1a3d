import { type SimulatedLabStep, scanStatusOf } from '../src/domain/jobs.ts'
import type { OrderDocument } from '../src/domain/order.ts'
import {
  BENCHMARKS_MD,
  cameraLikeJpeg,
  type ImageServer,
  machineLine,
  postgresReachable,
  quantile,
  startImageServer,
  withBenchApplication,
  writeBenchmarksBlock,
} from './bench-support.ts'

const SEQUENTIAL = Number(process.env.BENCH_ORDERS ?? 30)
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 50)
const TIMEOUT_SECONDS = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 120)
const POSTGRES_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
/** Orders placed and completed before measuring (JIT, statement caches, pg-boss's queue caches). */
const WARM_UP = 3
/** GET interval while one order is in flight: fine enough not to blur a sub-second figure. */
const POLL_MS = 10
/** GET interval for all orders in flight at once (one round of GETs, then this pause). */
const CONCURRENT_POLL_MS = 50
const TARGET = { p50: 0.5, p95: 1 }
const PHOTO = { width: 1200, height: 800 }
const HEADING = '## Order lifecycle: `npm run bench:lifecycle`'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-')
const p50 = (values: readonly number[]) => quantile(values, 0.5)
const p95 = (values: readonly number[]) => quantile(values, 0.95)

function orderBody(label: string, base: string): Record<string, unknown> {
  return {
    merchantReference: label,
    shippingMethod: 'Standard',
    recipient: {
      name: 'Ada Lovelace',
      address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
    },
    items: [
      {
        sku: 'GLOBAL-PHO-4x6',
        copies: 1,
        sizing: 'fillPrintArea',
        attributes: { finish: 'lustre' },
        // A query string per order, so no two orders share a URL.
        assets: [{ printArea: 'default', url: `${base}/photos/photo.jpg?order=${label}` }],
      },
    ],
  }
}

interface JobRecord {
  orderId: string
  name: string
  /** A simulated lab step's step; null for the other jobs. */
  step: string | null
  state: string
  retries: number
  /** Seconds (epoch): when it was due (created, or its start_after if later), started, completed. */
  due: number
  started: number
  completed: number
}

interface Tracked {
  id: string
  createdAt: number
  /** Seconds from the create request to the first GET that showed it Complete; null when it never did. */
  seconds: number | null
}

interface RunResult {
  run: string
  orders: Tracked[]
  jobs: JobRecord[]
}

interface BackendResult {
  backend: string
  runs: RunResult[]
  problems: string[]
}

async function runBackend(kind: 'pglite' | 'postgres', images: ImageServer): Promise<BackendResult> {
  const problems: string[] = []
  return withBenchApplication(
    kind,
    POSTGRES_URL,
    { pipeline: { simulatedLabStepSeconds: 0 } },
    async ({ app, db, jobSchema, sandboxKey, loggedProblems }) => {
      const headers = { 'x-api-key': sandboxKey }
      const seenIssues = new Set<string>()

      const create = async (label: string): Promise<Tracked> => {
        const createdAt = performance.now()
        const response = await app.sandbox.inject({
          method: 'POST',
          url: '/v4.0/orders',
          headers: { ...headers, 'content-type': 'application/json' },
          payload: orderBody(label, images.base),
        })
        if (response.statusCode !== 200) throw new Error(`create order: HTTP ${response.statusCode} ${response.body}`)
        return { id: JSON.parse(response.body).order.id, createdAt, seconds: null }
      }
      /** One GET; records the time when it shows the order Complete. */
      const check = async (order: Tracked): Promise<void> => {
        const response = await app.sandbox.inject({ method: 'GET', url: `/v4.0/orders/${order.id}`, headers })
        const now = performance.now()
        if (response.statusCode !== 200) {
          problems.push(`${kind}: GET ${order.id}: HTTP ${response.statusCode}`)
          return
        }
        const document = JSON.parse(response.body).order as OrderDocument
        for (const issue of document.status.issues) {
          const text = `${issue.errorCode}: ${issue.description}`
          if (!seenIssues.has(text)) {
            seenIssues.add(text)
            problems.push(`${kind}: issue on ${order.id}: ${text}`)
          }
        }
        if (document.status.stage === 'Complete') order.seconds = (now - order.createdAt) / 1000
      }
      const untilComplete = async (orders: Tracked[], pollMs: number): Promise<void> => {
        const deadline = performance.now() + TIMEOUT_SECONDS * 1000
        let pending = orders
        while (pending.length > 0 && performance.now() < deadline) {
          await Promise.all(pending.map(check))
          pending = pending.filter((order) => order.seconds === null)
          if (pending.length > 0) await sleep(pollMs)
        }
        for (const order of pending) problems.push(`${kind}: ${order.id} not Complete after ${TIMEOUT_SECONDS} s`)
      }

      const sequential = async (label: string, count: number): Promise<Tracked[]> => {
        const orders: Tracked[] = []
        for (let index = 0; index < count; index++) {
          const order = await create(`${label}-${index}`)
          await untilComplete([order], POLL_MS)
          orders.push(order)
        }
        return orders
      }

      process.stderr.write(`${kind}: ${WARM_UP} warm-up orders, then ${SEQUENTIAL} one at a time ...\n`)
      await sequential('warm-up', WARM_UP)
      const oneAtATime = await sequential('sequential', SEQUENTIAL)
      process.stderr.write(`${kind}: ${CONCURRENT} at once ...\n`)
      const atOnce = await Promise.all(Array.from({ length: CONCURRENT }, (_, index) => create(`at-once-${index}`)))
      await untilComplete(atOnce, CONCURRENT_POLL_MS)

      // A job's own record is completed just after its handler returns, so the last step of the last order can
      // still be active when its GET already shows Complete.
      const settleBy = performance.now() + 10_000
      const unfinished = `SELECT count(*)::int AS count FROM ${jobSchema}.job WHERE state < 'completed' AND data->>'orderId' IS NOT NULL`
      while ((await db.query<{ count: number }>(unfinished))[0]?.count && performance.now() < settleBy) await sleep(20)

      const jobs = (
        await db.query<Record<string, unknown>>(
          `SELECT data->>'orderId' AS order_id, name, data->>'step' AS step, state::text AS state, retry_count,
             extract(epoch FROM greatest(created_on, start_after))::float8 AS due,
             extract(epoch FROM started_on)::float8 AS started,
             extract(epoch FROM completed_on)::float8 AS completed
           FROM ${jobSchema}.job WHERE data->>'orderId' IS NOT NULL`,
        )
      ).map(
        (row): JobRecord => ({
          orderId: String(row.order_id),
          name: String(row.name),
          step: row.step === null ? null : String(row.step),
          state: String(row.state),
          retries: Number(row.retry_count),
          due: Number(row.due),
          started: Number(row.started),
          completed: Number(row.completed),
        }),
      )
      for (const job of jobs) {
        if (job.state !== 'completed') problems.push(`${kind}: ${job.name} of ${job.orderId} left ${job.state}`)
        if (job.retries > 0) problems.push(`${kind}: ${job.name} of ${job.orderId}: ${job.retries} pg-boss retries`)
      }
      problems.push(...loggedProblems())
      const jobsOf = (orders: Tracked[]) => {
        const ids = new Set(orders.map((order) => order.id))
        return jobs.filter((job) => ids.has(job.orderId))
      }
      return {
        backend: kind,
        runs: [
          { run: `${SEQUENTIAL} one at a time`, orders: oneAtATime, jobs: jobsOf(oneAtATime) },
          { run: `${CONCURRENT} at once`, orders: atOnce, jobs: jobsOf(atOnce) },
        ],
        problems,
      }
    },
  )
}

// ---- the report ----

/**
 * Per order of a run: seconds to Complete, the sum of its jobs' run times, and the ratio of the two. The simulated
 * carrier's scans come after Complete, so their steps are not part of that sum.
 */
function perOrder(run: RunResult) {
  const beforeComplete = (job: JobRecord) =>
    job.step === null || scanStatusOf(job.step as SimulatedLabStep) === undefined
  return run.orders.flatMap((order) => {
    if (order.seconds === null) return []
    const runS = run.jobs
      .filter((job) => job.orderId === order.id && job.state === 'completed' && beforeComplete(job))
      .reduce((sum, job) => sum + (job.completed - job.started), 0)
    return [{ seconds: order.seconds, runS, ratio: order.seconds / runS }]
  })
}

function report(results: BackendResult[], skipped: string[], loadAtStart: string): string {
  const jobNames = [...new Set(results.flatMap((r) => r.runs.flatMap((run) => run.jobs.map((job) => job.name))))]
  const lines = [
    `Command: \`npm run bench:lifecycle\`  (BENCH_ORDERS=${SEQUENTIAL}, BENCH_CONCURRENT=${CONCURRENT})`,
    `Machine: ${machineLine()} at the end (${loadAtStart} at the start)`,
    `Date: ${new Date().toISOString()}`,
    `Orders: one GLOBAL-PHO-4x6 print (finish lustre) from a ${PHOTO.width}x${PHOTO.height} JPEG served on ` +
      `127.0.0.1, Sandbox, simulated lab steps 0 s, the default job polling interval (workers woken on enqueue); ` +
      `${WARM_UP} warm-up orders first; polled (GET) every ${POLL_MS} ms one at a time, every ${CONCURRENT_POLL_MS} ms ` +
      `when all are in flight. Baseline: the sum of the run times pg-boss records for the order's jobs ` +
      `(completed_on - started_on); ratio: create -> Complete over that sum, per order. Target: one at a time, ` +
      `p50 <= ${TARGET.p50} s and p95 <= ${TARGET.p95} s.`,
    '',
    '| backend | orders | Complete | create -> Complete p50 s | p95 s | max s | jobs run p50 s | ratio p50 | ratio p95 | target |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...results.flatMap((r) =>
      r.runs.map((run, index) => {
        const figures = perOrder(run)
        const seconds = figures.map((f) => f.seconds)
        const met = p50(seconds) <= TARGET.p50 && p95(seconds) <= TARGET.p95
        return (
          `| ${r.backend} | ${run.run} | ${figures.length} of ${run.orders.length} | ${fixed(p50(seconds))} | ` +
          `${fixed(p95(seconds))} | ${fixed(Math.max(...seconds))} | ${fixed(p50(figures.map((f) => f.runS)))} | ` +
          `${fixed(p50(figures.map((f) => f.ratio)), 1)} | ${fixed(p95(figures.map((f) => f.ratio)), 1)} | ` +
          `${index === 0 ? (met ? 'met' : 'not met') : ''} |`
        )
      }),
    ),
    ...skipped.map((line) => `| ${line} | | | | | | | | | |`),
    '',
    "Per job, mean seconds from due to started (wait: the hand-off) and of its run, from pg-boss's table:",
    '',
    `| backend | orders | ${jobNames.map((name) => `${name} wait / run`).join(' | ')} |`,
    `|---|---|${jobNames.map(() => '---:').join('|')}|`,
    ...results.flatMap((r) =>
      r.runs.map((run) => {
        const cells = jobNames.map((name) => {
          const of = run.jobs.filter((job) => job.name === name && job.state === 'completed')
          const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
          return `${fixed(mean(of.map((job) => job.started - job.due)), 3)} / ${fixed(mean(of.map((job) => job.completed - job.started)), 3)}`
        })
        return `| ${r.backend} | ${run.run} | ${cells.join(' | ')} |`
      }),
    ),
    '',
    ...(results.some((r) => r.problems.length > 0)
      ? results.flatMap((r) => r.problems.map((problem) => `- Problem: ${problem}`))
      : ['- No issues, errors, retries or stuck orders.']),
  ]
  return lines.join('\n')
}

async function main(): Promise<void> {
  const loadAtStart = machineLine().replace(/.*; /, '')
  const images = await startImageServer(
    new Map([['/photos/photo.jpg', await cameraLikeJpeg(PHOTO.width, PHOTO.height)]]),
  )
  const results: BackendResult[] = []
  const skipped: string[] = []
  try {
    results.push(await runBackend('pglite', images))
    if (await postgresReachable(POSTGRES_URL)) results.push(await runBackend('postgres', images))
    else skipped.push(`postgres: skipped, ${POSTGRES_URL.replace(/\/\/[^@]*@/, '//')} unreachable`)
  } finally {
    await images.close()
  }
  const block = report(results, skipped, loadAtStart)
  process.stdout.write(`\n${block}\n`)
  await writeBenchmarksBlock('lifecycle', block, { heading: HEADING, before: '## Pipeline throughput' })
  process.stdout.write(`figures written to ${BENCHMARKS_MD}\n`)
}

await main()
