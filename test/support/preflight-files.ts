// Real files for preflight tests: PDFs made with pdf-lib (plain pages, or encrypted as a lab cannot open them) and
// images made with sharp.
import { PDFDocument, PDFString } from 'pdf-lib'
import sharp from 'sharp'
import type { ServedFile } from './image-server.ts'

/** A PDF of `pages` blank A4 pages. */
export async function plainPdf(pages: number): Promise<ServedFile> {
  const document = await PDFDocument.create()
  for (let index = 0; index < pages; index++) document.addPage([595, 842])
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
