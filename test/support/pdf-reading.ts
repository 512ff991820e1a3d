// Reads back what a PDF made by printroute shows, for tests: the text its pages draw with the standard fonts
// (pdf-lib writes each run as a hex string shown by `Tj`, in flate-compressed content streams) and the PNG
// images it embeds (as RGBA pixels, for a QR decoder).
import jsQRModule from 'jsqr'
import {
  decodePDFRawStream,
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFName,
  type PDFNumber,
  PDFRawStream,
  type PDFRef,
} from 'pdf-lib'

// The package is CommonJS whose exports are the function itself (with a `default` pointing back at it), while its
// types declare only an ES default export: this reads it the way Node loads it.
const jsQR = jsQRModule.default

function streamBytes(stream: PDFRawStream): Uint8Array {
  return decodePDFRawStream(stream).decode()
}

/** A text run where it is drawn: its baseline's start in points, its font's resource name and size. */
export interface PlacedTextRun {
  text: string
  x: number
  y: number
  fontName: string
  size: number
}

/** Every text run of `page` (0-based) with its place, in drawing order (pdf-lib's `drawText` operators). */
export function placedTextRuns(pdf: PDFDocument, pageIndex: number): PlacedTextRun[] {
  const runs: PlacedTextRun[] = []
  for (const operators of pageOperators(pdf, pageIndex)) {
    const blocks = operators.matchAll(
      /\/(\S+) ([\d.]+) Tf[\s\S]*?1 0 0 1 (-?[\d.]+) (-?[\d.]+) Tm\s*<([0-9A-Fa-f]*)> Tj/g,
    )
    for (const [, fontName = '', size = '0', x = '0', y = '0', hex = ''] of blocks) {
      runs.push({
        text: Buffer.from(hex, 'hex').toString('latin1'),
        x: Number(x),
        y: Number(y),
        fontName,
        size: Number(size),
      })
    }
  }
  return runs
}

function pageOperators(pdf: PDFDocument, pageIndex: number): string[] {
  const contents = pdf.getPage(pageIndex).node.Contents()
  const streams =
    contents instanceof PDFArray ? contents.asArray().map((ref) => pdf.context.lookup(ref)) : contents ? [contents] : []
  return streams.flatMap((stream) =>
    stream instanceof PDFRawStream ? [Buffer.from(streamBytes(stream)).toString('latin1')] : [],
  )
}

/** Every text run of `page` (0-based), in drawing order, one string a run. */
export function pageTextRuns(pdf: PDFDocument, pageIndex: number): string[] {
  return pageOperators(pdf, pageIndex).flatMap((operators) =>
    [...operators.matchAll(/<([0-9A-Fa-f]*)> Tj/g)].map((match) =>
      Buffer.from(match[1] ?? '', 'hex').toString('latin1'),
    ),
  )
}

/** All text of the document, runs separated by line feeds. */
export function documentText(pdf: PDFDocument): string {
  return pdf
    .getPages()
    .flatMap((_, index) => pageTextRuns(pdf, index))
    .join('\n')
}

/** What the QR codes embedded as images on `page` hold. */
export function qrCodesOnPage(pdf: PDFDocument, pageIndex: number): string[] {
  const resources = pdf.getPage(pageIndex).node.Resources()
  const xObjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict)
  const found: string[] = []
  for (const [, ref] of xObjects?.entries() ?? []) {
    const image = pdf.context.lookup(ref as PDFRef)
    if (!(image instanceof PDFRawStream)) continue
    if (image.dict.get(PDFName.of('Subtype')) !== PDFName.of('Image')) continue
    const width = (image.dict.get(PDFName.of('Width')) as PDFNumber).asNumber()
    const height = (image.dict.get(PDFName.of('Height')) as PDFNumber).asNumber()
    const samples = streamBytes(image)
    const channels = samples.length / (width * height)
    const rgba = new Uint8ClampedArray(width * height * 4)
    for (let pixel = 0; pixel < width * height; pixel += 1) {
      for (let channel = 0; channel < 3; channel += 1) {
        rgba[pixel * 4 + channel] = samples[pixel * channels + (channels === 1 ? 0 : channel)] ?? 0
      }
      rgba[pixel * 4 + 3] = 255
    }
    const decoded = jsQR(rgba, width, height)
    if (decoded) found.push(decoded.data)
  }
  return found
}
