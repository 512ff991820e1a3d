// npm run bench:preview — latency of POST /v4.0/previews for a 24 MP camera-like JPEG (6000x4000) on each kind of
// mockup (a poster, canvases wrapped in the image and mirrored, a framed canvas, a framed print with mount, a
// photo print, a book's cover and spine), next to two baselines measured on the same image in this one run on
// this machine: rendering the full print file of the same item (what an order does, ImageRenderer.renderPrintFile;
// for the book, its cover and its spine) and the plainest possible preview, a sharp resize of the source to 800 px.
// A first row times the download and hash alone (the fetcher, a scratch file, SHA-256: what every request does
// before anything else, and all a cache hit does besides a lookup). Compare ratios, not absolute figures, across
// runs (docs/benchmarks.md).
//
// The application is built in this process as the tests build it (PGlite in memory, no job workers) and driven
// with Fastify's inject, one request at a time; the image is served from 127.0.0.1, so each request includes a
// real download (local, 8 MB). `miss`: the preview cache emptied before each request (download, hash, preview,
// mockup, two blob writes, one row per asset); `hit`: the same request again (download and hash only). Also the
// sizes of what each kind answers: preview and mockup pixels and bytes.
//
// Options (env): BENCH_ROUNDS (requests per scenario and figure, default 5; the figure is the median).
// BENCH_SMOKE=1: one round on a 600x400 image, to check that the script runs; prints, writes no figures.
// Otherwise prints the report and rewrites the block between the bench:preview markers in docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { PgliteDatabase } from '../src/adapters/database.ts'
import { createImageRenderer, THUMBNAIL_JPEG_QUALITY } from '../src/adapters/image-renderer.ts'
import { migrate } from '../src/adapters/migrator.ts'
import { createSafeFetcher } from '../src/adapters/safe-fetcher.ts'
import { sha256File, withScratchFile } from '../src/adapters/scratch-files.ts'
import { buildApplication } from '../src/app.ts'
import { loadCatalogue } from '../src/catalogue/catalogue.loader.ts'
import { PRODUCT_PREVIEW_EDGE } from '../src/services/previews/preview-cache.ts'
import { BENCHMARKS_MD, cameraLikeJpeg, writeBenchmarksBlock } from './bench-support.ts'

const SMOKE = process.env.BENCH_SMOKE === '1'
const ROUNDS = SMOKE ? 1 : Number(process.env.BENCH_ROUNDS ?? 5)
const [IMAGE_WIDTH, IMAGE_HEIGHT] = SMOKE ? [600, 400] : [6000, 4000]
const MEGAPIXELS = Math.round((IMAGE_WIDTH * IMAGE_HEIGHT) / 1e5) / 10
const catalogue = loadCatalogue()

interface Scenario {
  name: string
  sku: string
  attributes: Record<string, string>
  /** Print areas, one asset each (the same image); `default` when absent. */
  printAreas?: string[]
}
const SCENARIOS: Scenario[] = [
  { name: 'poster, 16x24 in fine art print', sku: 'GLOBAL-FAP-16x24', attributes: {} },
  { name: 'canvas 16x20 in, image wrap', sku: 'GLOBAL-CAN-16x20', attributes: { wrap: 'ImageWrap' } },
  { name: 'canvas 16x20 in, mirror wrap', sku: 'GLOBAL-CAN-16x20', attributes: { wrap: 'MirrorWrap' } },
  {
    name: 'framed canvas 16x20 in, image wrap',
    sku: 'GLOBAL-FRA-CAN-16X20',
    attributes: { color: 'natural', wrap: 'ImageWrap' },
  },
  { name: 'framed print with mount, 16x20 in', sku: 'GLOBAL-CFPM-16X20', attributes: { color: 'natural' } },
  { name: 'photo print, 8x10 in', sku: 'GLOBAL-PHO-8x10', attributes: { finish: 'lustre' } },
  {
    name: 'book A4 landscape, cover and spine',
    sku: 'BOOK-A4-L-HARD-M',
    attributes: {},
    printAreas: ['default', 'spine'],
  },
]

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}
async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now()
  const value = await run()
  return { ms: performance.now() - started, value }
}

process.stdout.write(`making a ${MEGAPIXELS} MP camera-like JPEG ...\n`)
const photo = await cameraLikeJpeg(IMAGE_WIDTH, IMAGE_HEIGHT)
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo)
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const imageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/photo.jpg`

const db = await PgliteDatabase.open()
await migrate(db)
const filesDir = mkdtempSync(join(tmpdir(), 'printroute-bench-preview-'))
const app = await buildApplication({
  db,
  databaseUrl: null,
  catalogue,
  logger: false,
  filesDir,
  workers: false,
  allowPrivateUrls: true,
  rateLimit: null,
})
const { keys } = await app.services.accounts.createAccount(
  {
    name: 'Bench',
    billingCurrency: 'GBP',
    billingMode: 'invoice',
    pauseWindowSeconds: 0,
    callbackUrl: null,
  },
  // The benchmark's own setup: printroute, as the audit trail names it.
  { kind: 'system' },
)
const renderer = createImageRenderer({ concurrency: 1 })
// The fetcher the application builds for previews and orders: the same address rules and limits.
const fetcher = createSafeFetcher({ allowPrivateAddresses: true })

/** What every preview request does first: the download into a scratch file and its SHA-256. */
const downloadAndHash = () =>
  withScratchFile(async (path) => {
    await fetcher.download(imageUrl, path, {})
    return sha256File(path)
  })

async function preview(scenario: Scenario) {
  const response = await app.sandbox.inject({
    method: 'POST',
    url: '/v4.0/previews',
    headers: { 'x-api-key': keys.sandbox.key },
    payload: {
      sku: scenario.sku,
      attributes: scenario.attributes,
      sizing: 'fillPrintArea',
      assets: (scenario.printAreas ?? ['default']).map((printArea) => ({ printArea, url: imageUrl })),
    },
  })
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`)
  return JSON.parse(response.body).previews[0] as { previewUrl: string; mockupUrl: string }
}

async function fileBytes(link: string): Promise<Buffer> {
  const url = new URL(link)
  return (await app.sandbox.inject({ method: 'GET', url: `${url.pathname}${url.search}` })).rawPayload
}

const ms = (value: number) => value.toFixed(0)
const downloads: number[] = []
for (let round = 0; round < ROUNDS; round++) downloads.push((await timed(downloadAndHash)).ms)
const rows: string[] = [
  `| download and hash only, no preview (${(photo.length / 2 ** 20).toFixed(1)} MiB) | ${ms(median(downloads))} | ${ms(median(downloads))} | - | - | - | - |`,
]
process.stdout.write(`${rows[0]}\n`)
const sizes: string[] = []
for (const scenario of SCENARIOS) {
  const variant = catalogue.findVariant(scenario.sku, scenario.attributes)
  const areas = (scenario.printAreas ?? ['default']).map((name) => variant?.printAreaSizes[name])
  const area = areas[0]
  if (!area || areas.some((size) => !size)) throw new Error(`no print area for ${scenario.sku}`)
  const misses: number[] = []
  const hits: number[] = []
  const fullRenders: number[] = []
  const resizes: number[] = []
  let made = await preview(scenario)
  for (let round = 0; round < ROUNDS; round++) {
    await db.query('DELETE FROM preview_cache')
    const miss = await timed(() => preview(scenario))
    misses.push(miss.ms)
    made = miss.value
    hits.push((await timed(() => preview(scenario))).ms)
    fullRenders.push(
      (
        await timed(async () => {
          for (const size of areas) {
            if (!size) continue
            await renderer.renderPrintFile(photo, {
              width: size.horizontalResolution,
              height: size.verticalResolution,
              sizing: 'fillPrintArea',
              format: 'jpeg',
            })
          }
        })
      ).ms,
    )
    resizes.push(
      (
        await timed(() =>
          sharp(photo)
            .resize({ width: PRODUCT_PREVIEW_EDGE, height: PRODUCT_PREVIEW_EDGE, fit: 'inside' })
            .jpeg({ quality: THUMBNAIL_JPEG_QUALITY })
            .toBuffer(),
        )
      ).ms,
    )
  }
  const miss = median(misses)
  rows.push(
    `| ${scenario.name} (${area.horizontalResolution}x${area.verticalResolution}) | ${ms(miss)} | ${ms(median(hits))} | ${ms(median(fullRenders))} | ${ms(median(resizes))} | ${(median(fullRenders) / miss).toFixed(1)}x | ${(miss / median(resizes)).toFixed(1)}x |`,
  )
  const [previewImage, mockupImage] = await Promise.all([fileBytes(made.previewUrl), fileBytes(made.mockupUrl)])
  const [previewMeta, mockupMeta] = await Promise.all([sharp(previewImage).metadata(), sharp(mockupImage).metadata()])
  const kb = (bytes: number) => `${Math.round(bytes / 1024)} KiB`
  sizes.push(
    `| ${scenario.name} | ${previewMeta.width}x${previewMeta.height}, ${kb(previewImage.length)} | ${mockupMeta.width}x${mockupMeta.height}, ${kb(mockupImage.length)} |`,
  )
  process.stdout.write(`${rows.at(-1)}\n`)
}

const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}; sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips})`
const report = [
  `Command: \`npm run bench:preview\`  (BENCH_ROUNDS=${ROUNDS}: median of the rounds)`,
  `Machine: ${machine}`,
  `Date: ${new Date().toISOString()}`,
  `Image: a ${MEGAPIXELS} MP camera-like JPEG, ${IMAGE_WIDTH}x${IMAGE_HEIGHT}, ${(photo.length / 2 ** 20).toFixed(1)} MiB, served from 127.0.0.1; fillPrintArea. A book previews its cover and spine (two assets, the same image) and its print files are both.`,
  '',
  '| product (print area px) | preview, cache miss ms | preview, cache hit ms | print file render ms | sharp resize to 800 px ms | print file / preview | preview / resize |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...rows,
  '',
  'What each answers (JPEG, quality 80):',
  '',
  '| product | preview | mockup |',
  '|---|---|---|',
  ...sizes,
  '',
].join('\n')
process.stdout.write(`\n${report}\n`)
if (SMOKE) {
  process.stdout.write('BENCH_SMOKE=1: figures not written\n')
} else {
  await writeBenchmarksBlock('preview', report, {
    heading: '## Preview latency: `npm run bench:preview`',
    before: '## Render throughput',
  })
  process.stdout.write(`figures written to ${BENCHMARKS_MD}\n`)
}

await app.close()
await db.close()
server.close()
rmSync(filesDir, { recursive: true, force: true })
