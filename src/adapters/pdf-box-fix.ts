// The preflight's one safe change to a PDF (docs/print-files.md, "Preflight"): a page with neither TrimBox nor
// BleedBox whose MediaBox is exactly the book's trim plus its bleed gets both boxes, so the lab's workflow knows
// where to cut. Only printroute's copy is changed (written to a new file); the customer's bytes stay as they came.
// Runs in the inspector's child process (file-inspection-child.ts), bounded like an inspection.

import { readFile, writeFile } from 'node:fs/promises'
import { PDFArray, PDFDocument, PDFName } from 'pdf-lib'
import { PAGE_SIZE_TOLERANCE_MM } from '../domain/preflight-checks.ts'
import type { BookSpec } from '../domain/print-specs.ts'

const PT_PER_MM = 72 / 25.4

export interface BoxFixRequest {
  readonly bleedMm: BookSpec['bleedMm']
  readonly trimMm: BookSpec['trimMm']
}

/** Writes `outputPath` with the boxes set; answers how many pages were changed (0: nothing written). */
export async function fixPdfBoxes(inputPath: string, outputPath: string, book: BoxFixRequest): Promise<number> {
  const document = await PDFDocument.load(await readFile(inputPath), { updateMetadata: false })
  const bleed = book.bleedMm * PT_PER_MM
  const fullWidth = (book.trimMm.width + 2 * book.bleedMm) * PT_PER_MM
  const fullHeight = (book.trimMm.height + 2 * book.bleedMm) * PT_PER_MM
  const tolerance = PAGE_SIZE_TOLERANCE_MM * PT_PER_MM
  let changed = 0
  for (const page of document.getPages()) {
    const own = (key: string) => page.node.get(PDFName.of(key)) instanceof PDFArray
    if (bleed <= 0 || own('TrimBox') || own('BleedBox')) continue
    const media = page.getMediaBox()
    if (Math.abs(media.width - fullWidth) > tolerance || Math.abs(media.height - fullHeight) > tolerance) continue
    page.setBleedBox(media.x, media.y, media.width, media.height)
    page.setTrimBox(media.x + bleed, media.y + bleed, media.width - 2 * bleed, media.height - 2 * bleed)
    changed++
  }
  if (changed > 0) await writeFile(outputPath, await document.save({ updateFieldAppearances: false }))
  return changed
}
