import assert from 'node:assert/strict'
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { crc32, deflateSync } from 'node:zlib'
import { PDFDocument, PDFName, PDFNumber, PDFOperator, PDFOperatorNames, type PDFPage, StandardFonts } from 'pdf-lib'
import sharp from 'sharp'
import { tier } from '../../test/support/tiers.ts'
import type { FileInspection, PreflightCheck, PreflightTarget } from '../domain/preflight.ts'
import { preflightReport } from '../domain/preflight-checks.ts'
import type { BookSpec, PrintAreaSpec } from '../domain/print-specs.ts'
import { createFileInspector } from './file-inspector.ts'

tier('pure')

// Every file here is real: images made with sharp, PDFs with pdf-lib or written by hand where pdf-lib cannot make
// them (encryption, hostile structures). Each goes through the inspector's child process and the pure checks.

const MM = 72 / 25.4
const BOOK: BookSpec = {
  trimMm: { width: 210, height: 210 },
  bleedMm: 3,
  safeMm: 5,
  minPages: 4,
  maxPages: 100,
  pageMultiple: 2,
}
const CANVAS: PrintAreaSpec = {
  trimMm: { width: 254, height: 254 },
  bleedMm: 0,
  safeMm: 0,
  wrapMm: null,
  minDpi: 150,
  recommendedDpi: 300,
}
const CMYK = { space: 'cmyk', profile: 'coated', intent: 'relative', blackPointCompensation: true } as const
const bookTarget: PreflightTarget = {
  sku: 'BOOK',
  printArea: 'default',
  spec: null,
  book: BOOK,
  colour: null,
  pixelSize: { horizontalResolution: 2480, verticalResolution: 2480 },
}
const canvasTarget: PreflightTarget = { ...bookTarget, sku: 'CAN', spec: CANVAS, book: null }

const inspector = createFileInspector()
let dir = ''
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'printroute-preflight-'))
})
after(async () => {
  await rm(dir, { recursive: true, force: true })
})

let fileNumber = 0
async function file(bytes: Uint8Array | string, extension: string): Promise<string> {
  const path = join(dir, `f${++fileNumber}.${extension}`)
  await writeFile(path, bytes)
  return path
}

async function jpeg(width: number, height: number, cmyk = false): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } })
  return (cmyk ? image.toColourspace('cmyk') : image).jpeg().toBuffer()
}

interface PageOptions {
  sizeMm?: [number, number]
  boxes?: boolean
  font?: boolean
  image?: { px: number; drawnMm: number }
  spot?: boolean
}

async function book(count: number, options: PageOptions = {}): Promise<Uint8Array> {
  const document = await PDFDocument.create()
  const [w, h] = options.sizeMm ?? [216, 216]
  const font = options.font ? await document.embedFont(StandardFonts.Helvetica) : null
  const image = options.image ? await document.embedJpg(await jpeg(options.image.px, options.image.px)) : null
  for (let i = 0; i < count; i++) {
    const page = document.addPage([w * MM, h * MM])
    if (options.boxes) {
      page.setBleedBox(0, 0, w * MM, h * MM)
      page.setTrimBox(3 * MM, 3 * MM, (w - 6) * MM, (h - 6) * MM)
    }
    if (font) page.drawText(`Page ${i + 1}`, { x: 40, y: 40, size: 12, font })
    if (image && options.image) {
      const side = options.image.drawnMm * MM
      page.drawImage(image, { x: 0, y: 0, width: side, height: side })
    }
    if (options.spot) paintSpot(document, page)
  }
  return document.save()
}

/** Fills a square with a Separation colour (PANTONE 185 C, drawn as CMYK elsewhere). */
function paintSpot(document: PDFDocument, page: PDFPage): void {
  const tint = document.context.obj({ FunctionType: 2, Domain: [0, 1], C0: [0, 0, 0, 0], C1: [0, 0.9, 0.8, 0], N: 1 })
  const separation = document.context.obj([
    PDFName.of('Separation'),
    PDFName.of('PANTONE 185 C'),
    PDFName.of('DeviceCMYK'),
    tint,
  ])
  page.node.Resources()?.set(PDFName.of('ColorSpace'), document.context.obj({ CS0: separation }))
  page.pushOperators(
    PDFOperator.of(PDFOperatorNames.NonStrokingColorspace, [PDFName.of('CS0')]),
    PDFOperator.of(PDFOperatorNames.NonStrokingColorN, [PDFNumber.of(1)]),
    PDFOperator.of(
      PDFOperatorNames.AppendRectangle,
      [10, 10, 100, 100].map((n) => PDFNumber.of(n)),
    ),
    PDFOperator.of(PDFOperatorNames.FillNonZero),
  )
}

/** A PDF written by hand: numbered objects, then a trailer (no xref: readers, pdf-lib included, rebuild it). */
function handPdf(objects: string[], trailer = ''): string {
  const body = objects.map((object, i) => `${i + 1} 0 obj\n${object}\nendobj\n`).join('')
  return `%PDF-1.7\n${body}trailer\n<< /Root 1 0 R /Size ${objects.length + 1} ${trailer}>>\n%%EOF\n`
}

function stream(content: string, dict = ''): string {
  return `<< /Length ${Buffer.byteLength(content, 'latin1')} ${dict}>>\nstream\n${content}\nendstream`
}

async function inspect(bytes: Uint8Array | string, extension: string, contentType: string): Promise<FileInspection> {
  return inspector.inspect(await file(bytes, extension), contentType)
}

function codes(checks: readonly PreflightCheck[]): string[] {
  return checks.map((check) => `${check.code}:${check.severity}`).sort()
}

test('a book with trim and bleed boxes, embedded fonts and well-resolved images passes', async () => {
  const inspection = await inspect(
    await book(4, { boxes: true, image: { px: 1300, drawnMm: 210 } }),
    'pdf',
    'application/pdf',
  )
  assert.equal(inspection.kind, 'pdf')
  assert.equal(inspection.pageCount, 4)
  const first = inspection.pages[0]
  assert.ok(first)
  assert.deepEqual(
    first.images.map((image) => [image.widthPx, Math.round(image.drawnWidthPt / MM)]),
    [[1300, 210]],
  )
  assert.deepEqual(codes(preflightReport(inspection, bookTarget).checks), [])
})

test('PDF warnings from real files: missing bleed, mixed sizes, fonts, low resolution, spot colour, RGB for CMYK', async () => {
  const trimOnly = await inspect(await book(4, { sizeMm: [210, 210] }), 'pdf', 'application/pdf')
  assert.deepEqual(codes(preflightReport(trimOnly, bookTarget).checks), ['MissingBleed:warning'])

  const content = await inspect(
    await book(4, { font: true, image: { px: 300, drawnMm: 200 }, spot: true }),
    'pdf',
    'application/pdf',
  )
  assert.equal(content.kind, 'pdf')
  assert.deepEqual(content.pages[0]?.fonts, [{ name: 'Helvetica', embedded: false }])
  assert.deepEqual(content.pages[0]?.spotColours, ['PANTONE 185 C'])
  const report = preflightReport(content, { ...bookTarget, colour: CMYK })
  assert.deepEqual(codes(report.checks), [
    'FontNotEmbedded:warning',
    'LowResolutionImage:warning',
    'RgbInCmykJob:warning',
    'SpotColour:warning',
  ])
  assert.equal(report.checks.find((check) => check.code === 'LowResolutionImage')?.measured, '38 dpi')

  const mixedDocument = await PDFDocument.load(await book(4))
  mixedDocument.addPage([200 * MM, 200 * MM])
  mixedDocument.addPage([216 * MM, 216 * MM])
  const mixed = await inspect(await mixedDocument.save(), 'pdf', 'application/pdf')
  assert.deepEqual(codes(preflightReport(mixed, bookTarget).checks), [
    'MixedPageSizes:warning',
    'PageSizeMismatch:warning',
  ])
})

test('PDF errors from real files: wrong shape, page count, an image for a book, a PDF for a canvas', async () => {
  const a4 = await inspect(await book(4, { sizeMm: [210, 297] }), 'pdf', 'application/pdf')
  assert.deepEqual(codes(preflightReport(a4, bookTarget).checks), ['PageSizeMismatch:warning'])
  const short = await inspect(await book(3), 'pdf', 'application/pdf')
  assert.deepEqual(codes(preflightReport(short, bookTarget).checks), ['PageCountOutOfRange:error'])
  const odd = await inspect(await book(5), 'pdf', 'application/pdf')
  assert.deepEqual(codes(preflightReport(odd, bookTarget).checks), ['PageCountNotMultiple:warning'])
  assert.deepEqual(codes(preflightReport(odd, canvasTarget).checks), ['NotAPdf:error'])
  const photo = await inspect(await jpeg(3000, 3000), 'jpg', 'image/jpeg')
  assert.deepEqual(codes(preflightReport(photo, bookTarget).checks), ['NotAPdf:error'])
})

test('an encrypted PDF (written by hand: pdf-lib cannot encrypt) is Encrypted', async () => {
  const hex = 'a'.repeat(64)
  const encrypted = handPdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 612] /Contents 5 0 R >>',
      `<< /Filter /Standard /V 1 /R 2 /O <${hex}> /U <${hex}> /P -4 >>`,
      stream('garbage that is ciphertext'),
    ],
    `/Encrypt 4 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>] `,
  )
  const inspection = await inspect(encrypted, 'pdf', 'application/pdf')
  assert.deepEqual(inspection, { kind: 'pdf', encrypted: true, pageCount: 1, pages: [], truncated: false })
  assert.deepEqual(codes(preflightReport(inspection, bookTarget).checks), ['Encrypted:error'])

  // Pages inside an (encrypted, so unreadable) object stream: still Encrypted, with no page count to tell.
  const hidden = handPdf(
    [
      '<< /Type /Catalog /Pages 4 0 R >>',
      stream('ciphertext of objects 4 and 5', '/Type /ObjStm /N 2 /First 10 '),
      `<< /Filter /Standard /V 2 /R 3 /Length 128 /O <${hex}> /U <${hex}> /P -4 >>`,
    ],
    `/Encrypt 3 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>] `,
  )
  const hiddenInspection = await inspect(hidden, 'pdf', 'application/pdf')
  assert.deepEqual(hiddenInspection, { kind: 'pdf', encrypted: true, pageCount: 0, pages: [], truncated: false })
  assert.deepEqual(codes(preflightReport(hiddenInspection, bookTarget).checks), ['Encrypted:error'])
})

test('images from real files: resolution, colour, and a PNG header claiming 100,000 x 100,000 px', async () => {
  const sharpEnough = await inspect(await jpeg(1500, 1500), 'jpg', 'image/jpeg')
  assert.deepEqual(codes(preflightReport(sharpEnough, canvasTarget).checks), [])
  const soft = await inspect(await jpeg(1000, 1000), 'jpg', 'image/jpeg')
  assert.deepEqual(codes(preflightReport(soft, canvasTarget).checks), ['LowResolutionImage:warning'])
  const tiny = await inspect(await jpeg(300, 300), 'jpg', 'image/jpeg')
  assert.deepEqual(codes(preflightReport(tiny, canvasTarget).checks), ['ImageTooSmall:warning'])
  // An RGB image for a CMYK lab: printroute converts it, so a note in `fixes` rather than a finding.
  const forCmyk = preflightReport(sharpEnough, { ...canvasTarget, colour: CMYK })
  assert.deepEqual(codes(forCmyk.checks), [])
  assert.deepEqual(
    forCmyk.fixes.map((fix) => fix.code),
    ['ConvertToLabColour'],
  )
  const cmyk = await inspect(await jpeg(1500, 1500, true), 'jpg', 'image/jpeg')
  assert.equal(cmyk.kind === 'image' && cmyk.colourSpace, 'cmyk')
  assert.deepEqual(codes(preflightReport(cmyk, { ...canvasTarget, colour: CMYK }).checks), [])

  const bomb = await inspect(pngHeader(100_000, 100_000), 'png', 'image/png')
  assert.deepEqual(bomb, {
    kind: 'image',
    format: 'png',
    widthPx: 100_000,
    heightPx: 100_000,
    colourSpace: 'srgb',
    hasProfile: false,
    tooLarge: true,
  })
  assert.deepEqual(codes(preflightReport(bomb, canvasTarget).checks), ['ImageTooLarge:error'])
})

/** A PNG whose header claims the given size, followed by a few bytes of image data: never decodable whole. */
function pngHeader(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

test('hostile PDFs each get an answer: 100,000 pages, cycles, deep nesting, a truncated file, a garbage font', async () => {
  const kids = Array.from({ length: 100_000 }, () => '3 0 R').join(' ')
  const huge = handPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count 100000 >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 612] >>',
  ])
  const many = await inspect(huge, 'pdf', 'application/pdf')
  assert.equal(many.kind, 'pdf')
  assert.deepEqual([many.pageCount, many.pages.length, many.truncated], [100_000, 2_000, true])
  assert.deepEqual(codes(preflightReport(many, bookTarget).checks), ['PageCountOutOfRange:error'])

  const cyclicTree = handPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 612] >>',
  ])
  assert.deepEqual(await inspect(cyclicTree, 'pdf', 'application/pdf'), {
    kind: 'unreadable',
    reason: 'the page tree contains itself (a cycle)',
  })

  const selfDrawingForm = handPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 612] /Resources << /XObject << /X1 4 0 R >> >> /Contents 5 0 R >>',
    stream('/X1 Do', '/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /X1 4 0 R >> >> '),
    stream('q 1 0 0 1 0 0 cm /X1 Do Q'),
  ])
  const form = await inspect(selfDrawingForm, 'pdf', 'application/pdf')
  assert.equal(form.kind, 'pdf')
  assert.equal(form.pageCount, 1)

  const nested = handPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 612] /Deep ${'['.repeat(200_000)}${']'.repeat(200_000)} >>`,
  ])
  // pdf-lib gives up on the page object (its parser's stack), so the book would lose a page: refused.
  assert.deepEqual(await inspect(nested, 'pdf', 'application/pdf'), {
    kind: 'unreadable',
    reason: 'a page of the page tree cannot be read (a damaged or missing object)',
  })

  const whole = await book(8, { font: true, image: { px: 800, drawnMm: 100 } })
  const truncated = await inspect(whole.subarray(0, Math.floor(whole.length / 3)), 'pdf', 'application/pdf')
  assert.equal(truncated.kind, 'unreadable', JSON.stringify(truncated))
  assert.deepEqual(codes(preflightReport(truncated, bookTarget).checks), ['Unreadable:error'])

  // One image drawn 100,000 times, the last time largest: the page's answer stays small and keeps the lowest dpi.
  const draws = 'q 10 0 0 10 0 0 cm /Im0 Do Q '.repeat(100_000)
  const repeated = handPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 612] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>',
    stream(
      'x'.repeat(300),
      '/Type /XObject /Subtype /Image /Width 10 /Height 10 /ColorSpace /DeviceRGB /BitsPerComponent 8 ',
    ),
    stream(`${draws} q 600 0 0 600 0 0 cm /Im0 Do Q`),
  ])
  const drawn = await inspect(repeated, 'pdf', 'application/pdf')
  assert.equal(drawn.kind, 'pdf')
  assert.equal(drawn.pages[0]?.images.length, 256)
  assert.ok(drawn.pages[0]?.images.some((image) => image.drawnWidthPt === 600))

  const garbageFont = handPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 612] /Resources << /Font << /F1 4 0 R >> >> /Contents 6 0 R >>',
    '<< /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+Broken /FontDescriptor 5 0 R >>',
    `<< /Type /FontDescriptor /FontName /ABCDEF+Broken /FontFile2 7 0 R >>`,
    stream('BT /F1 12 Tf 10 10 Td (Hello) Tj ET'),
    stream('\u0000\u00ff\u0013garbage font program'.repeat(100)),
  ])
  const font = await inspect(garbageFont, 'pdf', 'application/pdf')
  assert.equal(font.kind, 'pdf')
  assert.deepEqual(font.pages[0]?.fonts, [{ name: 'Broken', embedded: true }])
})

test('files beyond the limits: a 1 GB file, a file that is not a PDF, time and memory overruns', async () => {
  const big = join(dir, 'big.pdf')
  const handle = await open(big, 'w')
  await handle.truncate(1024 * 1_048_576) // sparse: 1 GB on paper, nothing on disk
  await handle.close()
  assert.deepEqual(await inspector.inspect(big, 'application/pdf'), {
    kind: 'unreadable',
    reason: 'the file is 1024 MB, more than the 512 MB preflight reads',
  })
  assert.deepEqual(await inspect('hello, not a PDF', 'pdf', 'application/pdf'), {
    kind: 'unreadable',
    reason: 'the file is not a PDF (no %PDF- header)',
  })
  const path = await file(await book(4), 'pdf')
  assert.deepEqual(await createFileInspector({ timeoutMs: 1 }).inspect(path, 'application/pdf'), {
    kind: 'unreadable',
    reason: 'took longer than 1 ms',
  })
  assert.deepEqual(await createFileInspector({ maxMemoryMb: 16 }).inspect(path, 'application/pdf'), {
    kind: 'unreadable',
    reason: 'needed more than 16 MB',
  })
  const few = await createFileInspector({ maxPages: 2 }).inspect(path, 'application/pdf')
  assert.deepEqual(few.kind === 'pdf' && [few.pageCount, few.pages.length, few.truncated], [4, 2, true])
})

test('inspections run at the concurrency limit and each answers', async () => {
  const single = createFileInspector({ concurrency: 1 })
  const paths = await Promise.all([1, 2, 3].map(async (n) => file(await book(n * 2), 'pdf')))
  const answers = await Promise.all(paths.map((path) => single.inspect(path, 'application/pdf')))
  assert.deepEqual(
    answers.map((answer) => answer.kind === 'pdf' && answer.pageCount),
    [2, 4, 6],
  )
})

test('the box fix sets TrimBox and BleedBox on a copy, and the fixed copy passes', async () => {
  const input = await file(await book(4), 'pdf')
  const output = join(dir, 'fixed.pdf')
  const before = await readFile(input)
  assert.deepEqual(
    preflightReport(await inspector.inspect(input, 'application/pdf'), bookTarget).fixes.map((fix) => fix.code),
    ['SetTrimBox', 'SetBleedBox'],
  )
  assert.deepEqual(await inspector.fixPdfBoxes(input, output, BOOK), { pagesChanged: 4 })
  assert.deepEqual(await readFile(input), before)
  const fixed = await inspector.inspect(output, 'application/pdf')
  assert.equal(fixed.kind, 'pdf')
  const trim = fixed.pages[0]?.trimBox
  assert.ok(trim)
  assert.deepEqual(
    trim.map((value) => Math.round(value / MM)),
    [3, 3, 213, 213],
  )
  const report = preflightReport(fixed, bookTarget)
  assert.deepEqual([report.checks, report.fixes], [[], []])
  // Nothing to fix: nothing written.
  assert.deepEqual(await inspector.fixPdfBoxes(output, join(dir, 'again.pdf'), BOOK), { pagesChanged: 0 })
})

test('page thumbnails: PNGs at most the long side, drawn in the bounded child; an overrun gets none', async () => {
  const path = await file(await book(4), 'pdf')
  const request = {
    pages: [1, 3, 9].map((page) => ({ page, trimBox: null, bleedBox: null })),
    spec: BOOK,
    maxSide: 120,
  }
  const made = await inspector.renderPdfThumbnails(path, request)
  assert.ok('thumbnails' in made, JSON.stringify(made))
  // Page 9 is not in the file: left out.
  assert.deepEqual(
    made.thumbnails.map((thumbnail) => [thumbnail.page, thumbnail.width, thumbnail.height]),
    [
      [1, 120, 120],
      [3, 120, 120],
    ],
  )
  const first = made.thumbnails[0]
  assert.ok(first)
  const metadata = await sharp(Buffer.from(first.png)).metadata()
  assert.deepEqual([metadata.format, metadata.width, metadata.height], ['png', 120, 120])
  assert.deepEqual(await createFileInspector({ timeoutMs: 1 }).renderPdfThumbnails(path, request), {
    failed: 'took longer than 1 ms',
  })
  assert.deepEqual(await createFileInspector({ maxMemoryMb: 16 }).renderPdfThumbnails(path, request), {
    failed: 'needed more than 16 MB',
  })
})
