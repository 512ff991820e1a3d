// node bench/preflight.bench.ts — the preflight inspector on the largest files it is meant for: a 200-page photo
// book PDF of about 300 MB (one full-bleed 300 dpi JPEG per page, trim and bleed boxes, a line of text) and a
// 150-megapixel JPEG (the pixel limit). Each is inspected by the real inspector (adapters/file-inspector.ts: a
// child process of its own, bounded by PREFLIGHT_LIMITS) and judged by the pure checks; the figures are the
// inspection's wall time and the inspecting process's peak resident memory (the larger of VmRSS sampled every
// 50 ms and the child's own getrusage maxRSS).
//
// Baseline, in the same run on the same files: what printroute did before the preflight, in a fresh process too
// (bench/preflight-baseline.ts): pdf-check.ts counting the book's pages with pdf-lib, and sharp reading the JPEG's
// header. Ratios are inspector / baseline.
//
// The book is written page by page to a temporary directory (the PDF's objects by hand, as pdf-lib would write
// them: pdf-lib's save() would hold the whole 300 MB document and its output in this process). Targets
// (docs/benchmarks.md): peak RSS under 500 MB for both, the book under 60 s. Options (env): BENCH_PAGES (200),
// BENCH_WRITE=0 prints without rewriting the block in docs/benchmarks.md.
import { execFile } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import sharp from 'sharp'
import { createFileInspector, type InspectionRun } from '../src/adapters/file-inspector.ts'
import { PREFLIGHT_LIMITS } from '../src/domain/limits.ts'
import { preflightReport } from '../src/domain/preflight-checks.ts'
import { cameraLikeJpeg, machineLine, writeBenchmarksBlock } from './bench-support.ts'

const run = promisify(execFile)
const PAGES = Number(process.env.BENCH_PAGES ?? 200)
const TRIM_MM = 210
const BLEED_MM = 3
const PAGE_PT = ((TRIM_MM + 2 * BLEED_MM) * 72) / 25.4
/** 216 mm at 300 dpi. */
const PAGE_PX = 2551
/** Distinct photos; each page embeds its own copy (its own object), so the file really is that large. */
const PHOTOS = 4
const MB = 1_048_576

/** Writes the book page by page; returns its size in bytes. */
async function writeBook(path: string): Promise<number> {
  const photos: Buffer[] = []
  // Quality 85: about 1.5 MB a page, so 200 pages make the ~300 MB book of the target.
  for (let i = 0; i < PHOTOS; i++) {
    photos.push(
      await sharp(await cameraLikeJpeg(PAGE_PX, PAGE_PX))
        .jpeg({ quality: 85 })
        .toBuffer(),
    )
  }
  const out = createWriteStream(path)
  let offset = 0
  const offsets: number[] = []
  const write = (chunk: string | Buffer) =>
    new Promise<void>((resolve, reject) => {
      offset += typeof chunk === 'string' ? Buffer.byteLength(chunk, 'latin1') : chunk.length
      out.write(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk, (error) =>
        error ? reject(error) : resolve(),
      )
    })
  const object = async (id: number, body: string, streamBytes?: Buffer) => {
    offsets[id] = offset
    await write(`${id} 0 obj\n${body}\n`)
    if (streamBytes) await write(Buffer.concat([Buffer.from('stream\n'), streamBytes, Buffer.from('\nendstream\n')]))
    await write('endobj\n')
  }
  await write('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')
  await object(1, '<< /Type /Catalog /Pages 2 0 R >>')
  await object(3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>')
  const kids: string[] = []
  const bleed = (BLEED_MM * 72) / 25.4
  for (let page = 0; page < PAGES; page++) {
    const [image, content, pageId] = [4 + 3 * page, 5 + 3 * page, 6 + 3 * page]
    const photo = photos[page % PHOTOS] as Buffer
    await object(
      image,
      `<< /Type /XObject /Subtype /Image /Width ${PAGE_PX} /Height ${PAGE_PX} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${photo.length} >>`,
      photo,
    )
    const ops = `q ${PAGE_PT.toFixed(2)} 0 0 ${PAGE_PT.toFixed(2)} 0 0 cm /Im0 Do Q BT /F1 10 Tf 40 40 Td (Page ${page + 1}) Tj ET`
    await object(content, `<< /Length ${ops.length} >>`, Buffer.from(ops))
    const boxes = `/BleedBox [0 0 ${PAGE_PT.toFixed(2)} ${PAGE_PT.toFixed(2)}] /TrimBox [${bleed.toFixed(2)} ${bleed.toFixed(2)} ${(PAGE_PT - bleed).toFixed(2)} ${(PAGE_PT - bleed).toFixed(2)}]`
    await object(
      pageId,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_PT.toFixed(2)} ${PAGE_PT.toFixed(2)}] ${boxes} /Resources << /XObject << /Im0 ${image} 0 R >> /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`,
    )
    kids.push(`${pageId} 0 R`)
  }
  await object(2, `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${PAGES} >>`)
  const xref = offset
  const size = offsets.length
  const rows = Array.from({ length: size }, (_, id) =>
    id === 0 ? '0000000000 65535 f \n' : `${String(offsets[id]).padStart(10, '0')} 00000 n \n`,
  )
  await write(`xref\n0 ${size}\n${rows.join('')}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`)
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
  return offset
}

interface Baseline {
  answer: unknown
  elapsedMs: number
  peakRssBytes: number
}

async function baseline(kind: 'pdf' | 'image', path: string): Promise<Baseline> {
  const script = join(import.meta.dirname, 'preflight-baseline.ts')
  const { stdout } = await run(process.execPath, [script, kind, path], { maxBuffer: 1 << 20 })
  return JSON.parse(stdout) as Baseline
}

const mb = (bytes: number | null) => (bytes === null ? 'n/a' : (bytes / MB).toFixed(0))

function row(name: string, measured: InspectionRun, base: Baseline, summary: string): string {
  const rss = measured.peakRssBytes ?? 0
  return (
    `| ${name} | ${(measured.elapsedMs / 1000).toFixed(1)} | ${mb(rss)} | ${(base.elapsedMs / 1000).toFixed(1)} | ` +
    `${mb(base.peakRssBytes)} | ${(measured.elapsedMs / base.elapsedMs).toFixed(1)}x / ${(rss / base.peakRssBytes).toFixed(2)}x | ${summary} |`
  )
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'printroute-preflight-bench-'))
  const inspector = createFileInspector()
  try {
    const bookPath = join(dir, 'book.pdf')
    process.stderr.write(`writing a ${PAGES}-page book ...\n`)
    const bookBytes = await writeBook(bookPath)
    const jpegPath = join(dir, 'photo.jpg')
    process.stderr.write('writing a 150-megapixel JPEG ...\n')
    await sharp(await cameraLikeJpeg(1500, 1000))
      .resize(15_000, 10_000)
      .jpeg({ quality: 90 })
      .toFile(jpegPath)
    const jpegBytes = (await stat(jpegPath)).size

    process.stderr.write('inspecting the book ...\n')
    const book = await inspector.inspectMeasured(bookPath, 'application/pdf')
    const bookBase = await baseline('pdf', bookPath)
    process.stderr.write('inspecting the JPEG ...\n')
    const photo = await inspector.inspectMeasured(jpegPath, 'image/jpeg')
    const photoBase = await baseline('image', jpegPath)

    const bookSpec = {
      trimMm: { width: TRIM_MM, height: TRIM_MM },
      bleedMm: BLEED_MM,
      safeMm: 5,
      minPages: 20,
      maxPages: 400,
      pageMultiple: 2,
    }
    const pixelSize = { horizontalResolution: 15_000, verticalResolution: 10_000 }
    const target = { sku: 'BENCH', printArea: 'default', spec: null, colour: null, pixelSize }
    const bookReport = preflightReport(book.inspection, { ...target, book: bookSpec })
    const photoReport = preflightReport(photo.inspection, { ...target, book: null })
    const summary = (inspection: InspectionRun['inspection'], codes: string[]) =>
      `${inspection.kind === 'pdf' ? `${inspection.pageCount} pages measured` : inspection.kind === 'image' ? `${inspection.widthPx} x ${inspection.heightPx} px` : inspection.kind}; checks: ${codes.join(', ') || 'none'}`

    const block = [
      `Command: \`npm run bench:preflight\` (BENCH_PAGES=${PAGES})`,
      `Machine: ${machineLine()}`,
      `Date: ${new Date().toISOString()}`,
      `Limits: PREFLIGHT_LIMITS (${PREFLIGHT_LIMITS.maxBytes / MB} MB, ${PREFLIGHT_LIMITS.maxPages} pages, ${PREFLIGHT_LIMITS.timeoutMs / 1000} s, ${PREFLIGHT_LIMITS.maxMemoryMb} MB, ${PREFLIGHT_LIMITS.maxPixels / 1e6} MP)`,
      '',
      '| file | inspect s | inspect peak RSS MB | baseline s | baseline peak RSS MB | ratio time / RSS | result |',
      '|---|---:|---:|---:|---:|---:|---|',
      row(
        `book PDF, ${PAGES} pages, ${(bookBytes / MB).toFixed(0)} MB`,
        book,
        bookBase,
        summary(
          book.inspection,
          bookReport.checks.map((c) => c.code),
        ),
      ),
      row(
        `JPEG 15000 x 10000 (150 MP), ${(jpegBytes / MB).toFixed(0)} MB`,
        photo,
        photoBase,
        summary(
          photo.inspection,
          photoReport.checks.map((c) => c.code),
        ),
      ),
    ].join('\n')
    console.log(block)
    if (process.env.BENCH_WRITE !== '0') {
      await writeBenchmarksBlock('preflight', block, { heading: '## Preflight: `npm run bench:preflight`' })
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
