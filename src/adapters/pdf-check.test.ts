import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { PDFDocument, PDFString } from 'pdf-lib'
import { tier } from '../../test/support/tiers.ts'
import { checkPdf, InvalidPdfError, type InvalidPdfReason } from './pdf-check.ts'

tier('pure')

// Every PDF here is generated with pdf-lib: numbered square pages, like a photo book's page file.

async function book(pages: number): Promise<Buffer> {
  const document = await PDFDocument.create()
  for (let i = 1; i <= pages; i++) document.addPage([595, 595]).drawText(`Page ${i}`, { x: 50, y: 300, size: 24 })
  return Buffer.from(await document.save({ addDefaultPage: false }))
}

function isInvalidPdf(reason: InvalidPdfReason, message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof InvalidPdfError, `expected InvalidPdfError, got ${error}`)
    assert.equal(error.code, 'InvalidPdf')
    assert.equal(error.reason, reason)
    assert.match(error.message, message)
    return true
  }
}

let tempDir = ''
before(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'printroute-pdf-'))
})
after(async () => {
  await rm(tempDir, { recursive: true, force: true })
})

test('a readable PDF with the expected page count passes, and its bytes are left unchanged', async () => {
  const pdf = await book(40)
  const before = createHash('sha256').update(pdf).digest('hex')
  assert.deepEqual(await checkPdf(pdf, 40), { pageCount: 40 })
  assert.equal(createHash('sha256').update(pdf).digest('hex'), before)
})

test('without an expected page count the PDF is only checked for being readable', async () => {
  assert.deepEqual(await checkPdf(await book(7), null), { pageCount: 7 })
})

test('a page count that differs from pageCount is refused with both numbers', async () => {
  await assert.rejects(checkPdf(await book(38), 40), (error) => {
    isInvalidPdf('pageCountMismatch', /^PDF has 38 pages, pageCount says 40$/)(error)
    assert.ok(error instanceof InvalidPdfError)
    assert.deepEqual([error.pageCount, error.expectedPageCount], [38, 40])
    return true
  })
  await assert.rejects(
    checkPdf(await book(1), 2),
    isInvalidPdf('pageCountMismatch', /^PDF has 1 page, pageCount says 2$/),
  )
  await assert.rejects(checkPdf(await book(41), 40), isInvalidPdf('pageCountMismatch', /has 41 pages/))
})

test('files that are not PDFs are refused as unreadable', async () => {
  await assert.rejects(checkPdf(Buffer.from('just some text\n'), 1), isInvalidPdf('unreadable', /not a PDF/))
  await assert.rejects(checkPdf(Buffer.alloc(0), null), isInvalidPdf('unreadable', /not a PDF/))
  const jpegMagic = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46])
  await assert.rejects(checkPdf(jpegMagic, null), isInvalidPdf('unreadable', /not a PDF/))
})

test('a truncated or corrupt PDF is refused as unreadable', async () => {
  const pdf = await book(10)
  await assert.rejects(checkPdf(pdf.subarray(0, pdf.length / 2), 10), isInvalidPdf('unreadable', /cannot be read/))
  await assert.rejects(
    checkPdf(Buffer.from('%PDF-1.7\nnot really a pdf\n%%EOF\n'), 1),
    isInvalidPdf('unreadable', /cannot be read/),
  )
})

test('an encrypted PDF is refused', async () => {
  const document = await PDFDocument.create()
  document.addPage()
  document.context.trailerInfo.Encrypt = document.context.obj({
    Filter: 'Standard',
    V: 1,
    R: 2,
    P: -4,
    O: PDFString.of('o'.repeat(32)),
    U: PDFString.of('u'.repeat(32)),
  })
  const encrypted = Buffer.from(await document.save())
  await assert.rejects(checkPdf(encrypted, 1), isInvalidPdf('encrypted', /encrypted/))
})

test('a PDF without pages is refused', async () => {
  await assert.rejects(checkPdf(await book(0), null), isInvalidPdf('noPages', /no pages/))
})

test('a file path works like a buffer; a missing file is a file system error, not an invalid PDF', async () => {
  const path = join(tempDir, 'pages.pdf')
  await writeFile(path, await book(24))
  assert.deepEqual(await checkPdf(path, 24), { pageCount: 24 })
  await assert.rejects(checkPdf(join(tempDir, 'missing.pdf'), 24), (error: NodeJS.ErrnoException) => {
    assert.equal(error.code, 'ENOENT')
    return true
  })
})

test('an expected page count that is not a positive integer is a programming error', async () => {
  const pdf = await book(1)
  for (const bad of [0, -1, 1.5, Number.NaN]) await assert.rejects(checkPdf(pdf, bad), RangeError)
})
