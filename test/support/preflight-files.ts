// Real files for preflight tests: PDFs made with pdf-lib (plain pages, or encrypted as a lab cannot open them) and
// images made with sharp.
import { cmyk, PDFDocument, PDFString } from 'pdf-lib'
import sharp from 'sharp'
import type { ServedFile } from './image-server.ts'

/** A PDF of `pages` blank A4 pages. */
export async function plainPdf(pages: number): Promise<ServedFile> {
  const document = await PDFDocument.create()
  for (let index = 0; index < pages; index++) document.addPage([595, 842])
  return { body: Buffer.from(await document.save()), type: 'application/pdf' }
}

const PT_PER_MM = 72 / 25.4

/**
 * A book interior of `pages` pages measuring the trim plus `bleedMm` on every side, a square drawn on each; with
 * `boxes` the pages carry TrimBox and BleedBox as a prepress tool writes them; without, they have neither (what the
 * preflight's box fix is for). The square is painted in RGB (pdf-lib's default) unless `cmyk`, which paints it in
 * DeviceCMYK (no RgbInCmykJob for a product a CMYK lab makes).
 */
export async function bookPdf(
  pages: number,
  trimMm: { width: number; height: number },
  bleedMm: number,
  { boxes, cmyk: inCmyk = false }: { boxes: boolean; cmyk?: boolean },
): Promise<ServedFile> {
  const document = await PDFDocument.create()
  const bleed = bleedMm * PT_PER_MM
  const width = trimMm.width * PT_PER_MM + 2 * bleed
  const height = trimMm.height * PT_PER_MM + 2 * bleed
  for (let index = 0; index < pages; index++) {
    const page = document.addPage([width, height])
    const square = { x: width / 4, y: height / 4, width: width / 2, height: height / 2 }
    page.drawRectangle(inCmyk ? { ...square, color: cmyk(0.1, 0.8, 0.3, 0) } : square)
    if (boxes) {
      page.setBleedBox(0, 0, width, height)
      page.setTrimBox(bleed, bleed, width - 2 * bleed, height - 2 * bleed)
    }
  }
  return { body: Buffer.from(await document.save()), type: 'application/pdf' }
}

/** A PDF whose trailer declares encryption (the standard handler): no lab can print it, preflight says Encrypted. */
export async function encryptedPdf(pages: number): Promise<ServedFile> {
  const document = await PDFDocument.create()
  for (let index = 0; index < pages; index++) document.addPage([595, 842])
  document.context.trailerInfo.Encrypt = document.context.obj({
    Filter: 'Standard',
    V: 1,
    R: 2,
    P: -4,
    O: PDFString.of('o'.repeat(32)),
    U: PDFString.of('u'.repeat(32)),
  })
  return { body: Buffer.from(await document.save()), type: 'application/pdf' }
}

/** A small JPEG: far below any print area's resolution, so preflight warns (ImageTooSmall) without holding. */
export async function tinyJpeg(width = 60, height = 100): Promise<ServedFile> {
  const body = await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .jpeg()
    .toBuffer()
  return { body, type: 'image/jpeg' }
}
