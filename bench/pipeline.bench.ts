// npm run bench:pipeline — the whole fulfilment pipeline on camera-sized photos, and its render step next to the
// libvips command line, in this one run on this machine (docs/benchmarks.md: compare ratios, not absolute
// figures, across runs).
//
// 1. Orders per minute: BENCH_ORDERS Sandbox orders are placed at once, each with two items: a GLOBAL-FAP-16x24
//    poster (4800x7200) from a 12 MP 3000x4000 JPEG and a GLOBAL-CAN-10x10 canvas, wrap Black (3054x3054), from a
//    24 MP 6000x4000 JPEG, both fillPrintArea. The photos are served by a local HTTP server on 127.0.0.1 and the
//    application runs in this process as the tests build it (test/support/test-app.ts): job workers on, private
//    URLs allowed, simulated labs stepping every BENCH_LAB_STEP_SECONDS (0: the pipeline's own pace), jobs polled
//    every 0.5 s. Every order is polled (GET) until its stage is Complete. Reported: orders and print files per
//    minute over the wall time from the first create to the last Complete, the median and 95th percentile
//    time from create to Complete, the median time from create to each detail state's Complete, and per job
//    kind pg-boss's own record (wait before start, run time, retries). On PGlite (in memory) and on PostgreSQL
//    (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; skipped when unreachable) in a fresh
//    schema dropped at the end. Each backend runs twice: with the sample catalogue (its labs print sRGB), and as
//    a CMYK lab, the same catalogue with every lab making the two products printing them through the Leipzig lab's
//    colour (FOGRA39, relative colorimetric with black-point compensation: docs/print-files.md#colour), so the
//    orders, labs and formats are the same and only the colour differs. Target: the CMYK run's print files per
//    minute within 1.5x of the sRGB run's (at least 1/1.5 of them).
// 2. Render step vs the command line: the renderer (createImageRenderer, as the pipeline configures it) and
//    `vipsthumbnail` make the same print files from the same photos (same size, centre crop, quality, 4:4:4
//    chroma, sRGB profile; file in, file out), one image at a time, BENCH_RENDER_IMAGES images per case, median
//    of BENCH_ROUNDS rounds alternating the two. Target (docs/benchmarks.md): the renderer at least 80% of
//    vipsthumbnail's images per second. As bench/render.bench.ts, it installs Debian's libvips-tools with apt-get when
//    `vipsthumbnail` is missing.
//
// Prints the report and rewrites the block between the bench:pipeline markers in docs/benchmarks.md. Options
// (env): BENCH_ORDERS (12), BENCH_LAB_STEP_SECONDS (0), BENCH_TIMEOUT_SECONDS (per backend, 120),
// BENCH_RENDER_IMAGES (4), BENCH_ROUNDS (3), DATABASE_URL.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import sharp from 'sharp'
import type { Database } from '../src/adapters/database.ts'
import { createImageRenderer, DEFAULT_RENDER_CONCURRENCY } from '../src/adapters/image-renderer.ts'
import { parseCatalogue, SAMPLE_CATALOGUE_PATH } from '../src/catalogue/catalogue.loader.ts'
import type { Catalogue } from '../src/domain/catalogue.ts'
import type { CatalogueFile } from '../src/domain/catalogue.types.ts'
import { JOB_NAMES } from '../src/domain/jobs.ts'
import type { OrderDocument } from '../src/domain/order.ts'
import {
  BENCHMARKS_MD,
  cameraLikeJpeg,
  ensureVips,
  type ImageServer,
  item,
  postgresReachable,
  quantile,
  startImageServer,
  VIPS_PROFILE_ARGS,
  VIPS_SAVE_OPTIONS,
  withBenchApplication,
  writeBenchmarksBlock,
} from './bench-support.ts'

const run = promisify(execFile)
const ORDERS = Number(process.env.BENCH_ORDERS ?? 12)
const LAB_STEP_SECONDS = Number(process.env.BENCH_LAB_STEP_SECONDS ?? 0)
const TIMEOUT_SECONDS = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 120)
const RENDER_IMAGES = Number(process.env.BENCH_RENDER_IMAGES ?? 4)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const POSTGRES_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
const JOB_POLLING_SECONDS = 0.5
const ORDER_POLL_MS = 250
/**
 * How long the run waits, after the last order is Complete, for the jobs the orders caused to end before reading
 * pg-boss's table: the longest expiry of those jobs (submit-shipment's 60 s), so only a stuck job is left over.
 */
const SETTLE_SECONDS = 60
/** Distinct photos per case; orders use them in turn. */
const SOURCES_PER_CASE = 2
/** The target (docs/benchmarks.md): the render step at least this share of the command line's images per second. */
const TARGET_RATIO = 0.8
/** The target (docs/benchmarks.md): a CMYK lab's print files per minute within this factor of an sRGB lab's. */
const CMYK_TARGET_FACTOR = 1.5
/** The lab whose colour the CMYK run gives every lab making the benchmark's products. */
const CMYK_LAB = 'de1'
const HEADING = '## Pipeline throughput: `npm run bench:pipeline`'
const DETAILS = [
  'downloadAssets',
  'allocateProductionLocation',
  'printReadyAssetsPrepared',
  'inProduction',
  'shipping',
] as const
type Detail = (typeof DETAILS)[number]

interface Case {
  key: string
  label: string
  sku: string
  attributes: Record<string, string> | null
  source: { width: number; height: number }
  target: { width: number; height: number }
}

// Sources have the orientation of their print area: vipsthumbnail cannot make the quarter turn the renderer
// would add, and the pipeline renders the very files the comparison does.
const CASES: Case[] = [
  {
    key: 'poster',
    label: '12 MP 3000x4000 -> GLOBAL-FAP-16x24 4800x7200',
    sku: 'GLOBAL-FAP-16x24',
    attributes: null,
    source: { width: 3000, height: 4000 },
    target: { width: 4800, height: 7200 },
  },
  {
    key: 'canvas',
    label: '24 MP 6000x4000 -> GLOBAL-CAN-10x10 Black 3054x3054',
    sku: 'GLOBAL-CAN-10x10',
    attributes: { wrap: 'Black' },
    source: { width: 6000, height: 4000 },
    target: { width: 3054, height: 3054 },
  },
]

// ---- helpers ----

const median = (values: readonly number[]) => quantile(values, 0.5)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-')

// ---- 1. orders through the whole pipeline ----

interface JobStat {
  name: string
  state: string
  count: number
  retries: number
  waitS: number
  runS: number
  maxRunS: number
}

interface PipelineResult {
  /** The database, and ", CMYK lab" for the CMYK run. */
  backend: string
  cmyk: boolean
  completed: number
  printFiles: number
  wallS: number
  createToComplete: number[]
  toDetailComplete: Record<Detail, number[]>
  jobs: JobStat[]
  /** Mean render job run time per SKU. */
  renderJobS: Map<string, number>
  /** Print files per second over the span of the render jobs (first start to last end). */
  renderPhaseImagesPerS: number
  /** The orders' jobs still running when the last order was Complete, and how long until they had all ended. */
  settle: Settled
  problems: string[]
}

interface Settled {
  /** Job name -> how many were created, retrying or active when the last order was Complete. */
  running: Map<string, number>
  seconds: number
}

/**
 * Waits (at most SETTLE_SECONDS) until no job an order causes is created, retrying or active. An order can be
 * Complete before its last job ends: submit-shipment attaches the packing slip after the submission it commits,
 * and with lab steps of 0 s the simulated lab ships the order meanwhile. Reading pg-boss's table at once counted
 * such a job as "left active"; after this wait only a job that really does not end is.
 */
async function settleJobs(db: Pick<Database, 'query'>, jobSchema: string): Promise<Settled> {
  const unfinished = () =>
    db.query<{ name: string; count: number }>(
      `SELECT name, count(*)::int AS count FROM ${jobSchema}.job
       WHERE name = ANY($1) AND state::text IN ('created', 'retry', 'active') GROUP BY name`,
      [JOB_NAMES],
    )
  const begun = performance.now()
  const running = new Map((await unfinished()).map((row) => [row.name, Number(row.count)]))
  let left = running.size
  while (left > 0 && performance.now() - begun < SETTLE_SECONDS * 1000) {
    await sleep(100)
    left = (await unfinished()).length
  }
  return { running, seconds: (performance.now() - begun) / 1000 }
}

function orderBody(index: number, base: string): Record<string, unknown> {
  return {
    merchantReference: `bench-${index}`,
    shippingMethod: 'Standard',
    recipient: {
      name: 'Ada Lovelace',
      email: null,
      phoneNumber: null,
      address: {
        line1: '14 Test Street',
        line2: null,
        postalOrZipCode: 'EC1A 1BB',
        countryCode: 'GB',
        townOrCity: 'London',
        stateOrCounty: null,
      },
    },
    items: CASES.map((benchCase) => ({
      merchantReference: `${benchCase.key}-${index}`,
      sku: benchCase.sku,
      copies: 1,
      sizing: 'fillPrintArea',
      ...(benchCase.attributes ? { attributes: benchCase.attributes } : {}),
      assets: [
        {
          printArea: 'default',
          url: `${base}/photos/${benchCase.key}-${index % SOURCES_PER_CASE}.jpg?order=${index}`,
        },
      ],
    })),
  }
}

/** The sample catalogue with every lab making the benchmark's products printing them in the CMYK lab's colour. */
function cmykCatalogue(): Catalogue {
  const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8')) as CatalogueFile
  const colour = file.labs.find((lab) => lab.code === CMYK_LAB)?.defaultColour
  if (colour?.space !== 'cmyk') throw new Error(`the sample's ${CMYK_LAB} is no longer a CMYK lab`)
  const skus = new Set(CASES.map((benchCase) => benchCase.sku))
  for (const lab of file.labs) {
    for (const product of lab.products) if (skus.has(product.sku)) product.colour = colour
  }
  return parseCatalogue(file, 'sample catalogue, CMYK labs for the benchmark')
}

/** Every print file the run made is in the run's colour space, as read back from the file (its record says). */
async function colourProblems(
  db: { query<T>(sql: string): Promise<T[]> },
  cmyk: boolean,
  backend: string,
): Promise<string[]> {
  const expected = cmyk ? 'cmyk' : 'srgb'
  const rows = await db.query<{ pipeline: string }>('SELECT pipeline::text AS pipeline FROM orders')
  const spaces = rows.flatMap((row) => {
    const pipeline = JSON.parse(row.pipeline) as {
      shipments?: Record<string, { printFiles: Record<string, { colourSpace?: string } | null> }>
    }
    return Object.values(pipeline.shipments ?? {}).flatMap((shipment) =>
      // Files not made (a run cut off by its timeout) are reported as stuck orders, not here.
      Object.values(shipment.printFiles).flatMap((file) => (file ? [file.colourSpace ?? 'none'] : [])),
    )
  })
  const wrong = spaces.filter((space) => space !== expected)
  return wrong.length > 0 ? [`${backend}: ${wrong.length} of ${spaces.length} print files not ${expected}`] : []
}

async function runPipeline(kind: 'pglite' | 'postgres', images: ImageServer, cmyk: boolean): Promise<PipelineResult> {
  const problems: string[] = []
  const backend = cmyk ? `${kind}, CMYK lab` : kind
  return withBenchApplication(
    kind,
    POSTGRES_URL,
    {
      jobPollingSeconds: JOB_POLLING_SECONDS,
      pipeline: { simulatedLabStepSeconds: LAB_STEP_SECONDS, downloadRetryBaseSeconds: 1 },
      ...(cmyk ? { catalogue: cmykCatalogue() } : {}),
    },
    async ({ app, db, jobSchema, sandboxKey, loggedProblems }) => {
      const key = sandboxKey
      process.stderr.write(`${backend}: placing ${ORDERS} orders ...\n`)

      interface Tracked {
        id: string
        createdAt: number
        completeAt: number | null
        details: Partial<Record<Detail, number>>
        last: OrderDocument | null
      }
      const started = performance.now()
      const tracked: Tracked[] = []
      for (let index = 0; index < ORDERS; index++) {
        const createdAt = performance.now()
        const response = await app.sandbox.inject({
          method: 'POST',
          url: '/v4.0/orders',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          payload: orderBody(index, images.base),
        })
        if (response.statusCode !== 200) throw new Error(`create order: HTTP ${response.statusCode} ${response.body}`)
        tracked.push({ id: JSON.parse(response.body).order.id, createdAt, completeAt: null, details: {}, last: null })
      }

      const deadline = started + TIMEOUT_SECONDS * 1000
      const seenIssues = new Set<string>()
      let pending = tracked
      while (pending.length > 0 && performance.now() < deadline) {
        for (const order of pending) {
          const response = await app.sandbox.inject({
            method: 'GET',
            url: `/v4.0/orders/${order.id}`,
            headers: { 'x-api-key': key },
          })
          const now = performance.now()
          if (response.statusCode !== 200) {
            problems.push(`${backend}: GET ${order.id}: HTTP ${response.statusCode}`)
            continue
          }
          const document = JSON.parse(response.body).order as OrderDocument
          order.last = document
          for (const detail of DETAILS) {
            if (document.status.details[detail] === 'Complete') order.details[detail] ??= now - order.createdAt
          }
          for (const issue of document.status.issues) {
            const text = `${issue.errorCode}: ${issue.description}`
            if (!seenIssues.has(text)) {
              seenIssues.add(text)
              problems.push(`${backend}: issue on ${order.id}: ${text}`)
            }
          }
          if (document.status.stage === 'Complete') order.completeAt = now
        }
        pending = pending.filter((order) => order.completeAt === null)
        if (pending.length > 0) await sleep(ORDER_POLL_MS)
      }
      const finished = Math.max(...tracked.map((order) => order.completeAt ?? performance.now()))
      for (const order of pending) {
        const details = order.last
          ? DETAILS.map((detail) => `${detail} ${order.last?.status.details[detail]}`).join(', ')
          : 'never read'
        problems.push(`${backend}: ${order.id} not Complete after ${TIMEOUT_SECONDS} s: ${details}`)
      }
      const settle = await settleJobs(db, jobSchema)

      const jobs = (
        await db.query<Record<string, unknown>>(
          `SELECT name, state::text AS state, count(*)::int AS count, coalesce(sum(retry_count), 0)::int AS retries,
             avg(extract(epoch FROM started_on - greatest(start_after, created_on)))::float8 AS wait_s,
             avg(extract(epoch FROM completed_on - started_on))::float8 AS run_s,
             max(extract(epoch FROM completed_on - started_on))::float8 AS max_run_s
           FROM ${jobSchema}.job GROUP BY name, state ORDER BY name, state`,
        )
      ).map((row) => ({
        name: String(row.name),
        state: String(row.state),
        count: Number(row.count),
        retries: Number(row.retries),
        waitS: Number(row.wait_s ?? Number.NaN),
        runS: Number(row.run_s ?? Number.NaN),
        maxRunS: Number(row.max_run_s ?? Number.NaN),
      }))
      for (const job of jobs) {
        // Only the orders' jobs: a schedule's (pg-boss's own __pgboss__send-it, a sweep) may fire during a long run.
        const ordersJob = JOB_NAMES.includes(job.name as (typeof JOB_NAMES)[number])
        if (ordersJob && job.state !== 'completed') {
          problems.push(`${backend}: ${job.count} ${job.name} job(s) left ${job.state}`)
        }
        if (job.retries > 0) problems.push(`${backend}: ${job.name}: ${job.retries} pg-boss retries`)
      }

      // Render job run times per SKU: the job names the asset; the order documents name its item's SKU.
      const skuOfAsset = new Map<string, string>()
      for (const order of tracked) {
        for (const orderItem of order.last?.items ?? []) {
          for (const asset of orderItem.assets) skuOfAsset.set(asset.id, orderItem.sku)
        }
      }
      const renderRows = await db.query<Record<string, unknown>>(
        `SELECT data->>'assetId' AS asset_id, extract(epoch FROM completed_on - started_on)::float8 AS run_s,
           extract(epoch FROM started_on)::float8 AS started, extract(epoch FROM completed_on)::float8 AS completed
         FROM ${jobSchema}.job WHERE name = 'render-print-file' AND state = 'completed'`,
      )
      const bySku = new Map<string, number[]>()
      for (const row of renderRows) {
        const sku = skuOfAsset.get(String(row.asset_id)) ?? 'unknown'
        bySku.set(sku, [...(bySku.get(sku) ?? []), Number(row.run_s)])
      }
      const renderJobS = new Map([...bySku].map(([sku, runs]) => [sku, runs.reduce((a, b) => a + b, 0) / runs.length]))
      const renderSpan =
        Math.max(...renderRows.map((row) => Number(row.completed))) -
        Math.min(...renderRows.map((row) => Number(row.started)))

      problems.push(...loggedProblems())
      const complete = tracked.filter((order) => order.completeAt !== null)
      problems.push(...(await colourProblems(db, cmyk, backend)))
      return {
        backend,
        cmyk,
        completed: complete.length,
        printFiles: renderRows.length,
        wallS: (finished - started) / 1000,
        createToComplete: complete.map((order) => ((order.completeAt ?? 0) - order.createdAt) / 1000),
        toDetailComplete: Object.fromEntries(
          DETAILS.map((detail) => [
            detail,
            tracked.flatMap((order) => {
              const ms = order.details[detail]
              return ms === undefined ? [] : [ms / 1000]
            }),
          ]),
        ) as Record<Detail, number[]>,
        jobs,
        renderJobS,
        renderPhaseImagesPerS: renderRows.length / renderSpan,
        settle,
        problems,
      }
    },
  )
}

// ---- 2. the render step next to vipsthumbnail ----

interface RenderComparison {
  benchCase: Case
  sourceMiB: number
  sharpPerS: number
  vipsPerS: number
  note: string
}

async function compareRender(benchCase: Case, sources: readonly string[], dir: string): Promise<RenderComparison> {
  const caseDir = join(dir, `compare-${benchCase.key}`)
  await mkdir(join(caseDir, 'sharp'), { recursive: true })
  await mkdir(join(caseDir, 'vips'), { recursive: true })
  // vipsthumbnail names each output after its input, so every image has its own input file.
  const inputs: string[] = []
  for (let i = 0; i < RENDER_IMAGES; i++) {
    const path = join(caseDir, `in${String(i).padStart(3, '0')}.jpg`)
    await writeFile(path, await readFile(item(sources, i % sources.length)))
    inputs.push(path)
  }
  const renderer = createImageRenderer()
  const { width, height } = benchCase.target
  // As the render step: the stored photo read into memory, rendered, the print file written.
  const renderOne = async (i: number) => {
    const input = await readFile(item(inputs, i))
    const result = await renderer.renderPrintFile(input, { width, height, sizing: 'fillPrintArea', format: 'jpeg' })
    await writeFile(join(caseDir, 'sharp', `in${String(i).padStart(3, '0')}.jpg`), result.data)
  }
  const vipsBatch = (indexes: number[]) =>
    run('vipsthumbnail', [
      '--size',
      `${width}x${height}`,
      '--smartcrop',
      'centre',
      ...VIPS_PROFILE_ARGS,
      '-o',
      `${join(caseDir, 'vips', '%s.jpg')}${VIPS_SAVE_OPTIONS}`,
      ...indexes.map((i) => item(inputs, i)),
    ])
  const timed = async (task: () => Promise<unknown>) => {
    const begun = performance.now()
    await task()
    return RENDER_IMAGES / ((performance.now() - begun) / 1000)
  }
  await renderOne(0) // warm-up: code paths, page cache
  await vipsBatch([0])
  const sharpRuns: number[] = []
  const vipsRuns: number[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`render ${benchCase.key}: round ${round} of ${ROUNDS} ...\n`)
    sharpRuns.push(
      await timed(async () => {
        for (let i = 0; i < RENDER_IMAGES; i++) await renderOne(i)
      }),
    )
    vipsRuns.push(await timed(() => vipsBatch(inputs.map((_, i) => i))))
  }
  const [a, b] = await Promise.all([
    sharp(join(caseDir, 'sharp', 'in000.jpg')).metadata(),
    sharp(join(caseDir, 'vips', 'in000.jpg')).metadata(),
  ])
  const note =
    `${benchCase.label}: outputs ${a.width}x${a.height} / ${b.width}x${b.height}, chroma ` +
    `${a.chromaSubsampling}/${b.chromaSubsampling}, ICC ${a.icc ? 'yes' : 'no'}/${b.icc ? 'yes' : 'no'} (renderer/vips)`
  return {
    benchCase,
    sourceMiB: (await stat(item(sources, 0))).size / 1024 ** 2,
    sharpPerS: median(sharpRuns),
    vipsPerS: median(vipsRuns),
    note,
  }
}

// ---- the report ----

/** Each backend's CMYK run against its sRGB run: print files per minute, and whether within the target factor. */
function cmykComparison(results: readonly PipelineResult[]): string[] {
  const perMinute = (r: PipelineResult) => (r.printFiles / r.wallS) * 60
  const lines = results
    .filter((r) => !r.cmyk)
    .flatMap((srgb) => {
      const cmyk = results.find((r) => r.cmyk && r.backend.startsWith(`${srgb.backend},`))
      if (!cmyk) return []
      const factor = perMinute(srgb) / perMinute(cmyk)
      return [
        `- ${srgb.backend}: CMYK lab ${fixed(perMinute(cmyk))} print files/min, sRGB lab ${fixed(perMinute(srgb))}: ` +
          `the sRGB lab's pace is ${fixed(factor, 2)}x the CMYK lab's (target: within ${CMYK_TARGET_FACTOR}x, ` +
          `${factor <= CMYK_TARGET_FACTOR ? 'met' : 'not met'}).`,
      ]
    })
  return lines.length > 0 ? [...lines, ''] : []
}

function report(results: PipelineResult[], renders: RenderComparison[], vipsVersion: string, skipped: string[]) {
  const cpu = cpus()
  const mib = (benchCase: Case) => fixed(renders.find((r) => r.benchCase === benchCase)?.sourceMiB ?? Number.NaN)
  const lines = [
    `Command: \`npm run bench:pipeline\`  (BENCH_ORDERS=${ORDERS}, BENCH_LAB_STEP_SECONDS=${LAB_STEP_SECONDS}, ` +
      `BENCH_RENDER_IMAGES=${RENDER_IMAGES}, BENCH_ROUNDS=${ROUNDS})`,
    `Machine: ${cpu.length} x ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 1024 ** 3)} GiB, ` +
      `Node ${process.version}, ${process.platform}; sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}); ` +
      `${vipsVersion} (Debian libvips-tools)`,
    `Date: ${new Date().toISOString()}`,
    `Orders: ${ORDERS} Sandbox orders placed at once, each ${CASES.map((c) => `${c.label} (${mib(c)} MiB JPEG)`).join(' and ')}, ` +
      `fillPrintArea, to GB; photos from a local HTTP server; render concurrency ${DEFAULT_RENDER_CONCURRENCY}, ` +
      `jobs polled every ${JOB_POLLING_SECONDS} s, simulated lab steps ${LAB_STEP_SECONDS} s, orders polled every ` +
      `${ORDER_POLL_MS} ms.`,
    '',
    '| backend | orders Complete | wall s | orders/min | print files/min | create -> Complete median s | p95 s |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.backend} | ${r.completed} of ${ORDERS} | ${fixed(r.wallS)} | ${fixed((r.completed / r.wallS) * 60)} | ` +
        `${fixed((r.printFiles / r.wallS) * 60)} | ${fixed(median(r.createToComplete))} | ` +
        `${fixed(quantile(r.createToComplete, 0.95))} |`,
    ),
    ...skipped.map((line) => `| ${line} | | | | | | |`),
    '',
    ...cmykComparison(results),
    'Median seconds from create until each detail state is Complete (as polled):',
    '',
    `| backend | ${DETAILS.join(' | ')} |`,
    `|---|${DETAILS.map(() => '---:').join('|')}|`,
    ...results.map(
      (r) => `| ${r.backend} | ${DETAILS.map((detail) => fixed(median(r.toDetailComplete[detail]))).join(' | ')} |`,
    ),
    '',
    "Jobs, from pg-boss's table (wait: from due to started, including the polling interval):",
    '',
    '| backend | job | state | jobs | mean wait s | mean run s | max run s | retries |',
    '|---|---|---|---:|---:|---:|---:|---:|',
    ...results.flatMap((r) =>
      r.jobs.map(
        (job) =>
          `| ${r.backend} | ${job.name} | ${job.state} | ${job.count} | ${fixed(job.waitS, 2)} | ${fixed(job.runS, 2)} | ` +
          `${fixed(job.maxRunS, 2)} | ${job.retries} |`,
      ),
    ),
    '',
    `Render step vs the command line, one image at a time, median of ${ROUNDS} rounds of ${RENDER_IMAGES} images ` +
      `(target: renderer at least ${TARGET_RATIO * 100}% of vipsthumbnail). Last columns: the mean render job in the ` +
      `pipeline runs above (${DEFAULT_RENDER_CONCURRENCY} at once, beside downloads and database work), as images/s.`,
    '',
    `| case | renderer images/s | vipsthumbnail images/s | renderer vs vips | target | ${results
      .map((r) => `in pipeline (${r.backend})`)
      .join(' | ')} |`,
    `|---|---:|---:|---:|---|${results.map(() => '---:').join('|')}|`,
    ...renders.map((r) => {
      const ratio = r.sharpPerS / r.vipsPerS
      const inPipeline = results.map((result) => fixed(1 / (result.renderJobS.get(r.benchCase.sku) ?? Number.NaN), 2))
      return (
        `| ${r.benchCase.label} | ${fixed(r.sharpPerS, 2)} | ${fixed(r.vipsPerS, 2)} | ${fixed(ratio * 100, 0)}% | ` +
        `${ratio >= TARGET_RATIO ? 'met' : 'not met'} | ${inPipeline.join(' | ')} |`
      )
    }),
    '',
    `- vips: \`vipsthumbnail --size WxH --smartcrop centre ${VIPS_PROFILE_ARGS.join(' ')} ` +
      `-o out/%s.jpg${VIPS_SAVE_OPTIONS} in...\` (one process for the images of a round, default threads); ` +
      `renderer: sharp.concurrency(1), the photo read into memory and the print file written, as the render step.`,
    ...renders.map((r) => `- ${r.note}`),
    ...results.map(
      (r) =>
        `- ${r.backend}: render jobs made ${r.printFiles} print files at ${fixed(r.renderPhaseImagesPerS, 2)} images/s ` +
        'from the first render start to the last render end.',
    ),
    ...results.flatMap((r) =>
      r.settle.running.size > 0
        ? [
            `- ${r.backend}: still running when the last order was Complete: ` +
              `${[...r.settle.running].map(([name, count]) => `${count} ${name}`).join(', ')}; ` +
              `pg-boss's table was read ${fixed(r.settle.seconds, 2)} s later, once they had ended (or after ${SETTLE_SECONDS} s).`,
          ]
        : [],
    ),
    ...(results.some((r) => r.problems.length > 0)
      ? results.flatMap((r) => r.problems.map((problem) => `- Problem: ${problem}`))
      : ['- No issues, errors, retries or stuck orders.']),
  ]
  return lines.join('\n')
}

async function main(): Promise<void> {
  const vipsVersion = ensureVips()
  const dir = await mkdtemp(join(tmpdir(), 'printroute-pipeline-bench-'))
  try {
    const files = new Map<string, Buffer>()
    const sourcePaths = new Map<string, string[]>()
    for (const benchCase of CASES) {
      process.stderr.write(`generating ${SOURCES_PER_CASE} photos for ${benchCase.label} ...\n`)
      const paths: string[] = []
      for (let i = 0; i < SOURCES_PER_CASE; i++) {
        const body = await cameraLikeJpeg(benchCase.source.width, benchCase.source.height)
        const path = join(dir, `${benchCase.key}-${i}.jpg`)
        await writeFile(path, body)
        files.set(`/photos/${benchCase.key}-${i}.jpg`, body)
        paths.push(path)
      }
      sourcePaths.set(benchCase.key, paths)
    }

    const images = await startImageServer(files)
    const results: PipelineResult[] = []
    const skipped: string[] = []
    try {
      results.push(await runPipeline('pglite', images, false))
      results.push(await runPipeline('pglite', images, true))
      if (await postgresReachable(POSTGRES_URL)) {
        results.push(await runPipeline('postgres', images, false))
        results.push(await runPipeline('postgres', images, true))
      } else skipped.push(`postgres: skipped, ${POSTGRES_URL.replace(/\/\/[^@]*@/, '//')} unreachable`)
    } finally {
      await images.close()
    }

    const renders: RenderComparison[] = []
    for (const benchCase of CASES) {
      renders.push(await compareRender(benchCase, sourcePaths.get(benchCase.key) ?? [], dir))
    }

    const block = report(results, renders, vipsVersion, skipped)
    process.stdout.write(`\n${block}\n`)
    await writeBenchmarksBlock('pipeline', block, { heading: HEADING, before: '## Render throughput' })
    process.stdout.write(`figures written to ${BENCHMARKS_MD}\n`)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
