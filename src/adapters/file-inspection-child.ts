// The preflight inspector's child process (started by file-inspector.ts, never imported): it receives one request,
// measures or fixes one file, answers once with its peak resident memory, and exits. The parent bounds it: its
// V8 heap is capped, the parent watches its resident memory and kills it at the limit or the deadline, so a hostile
// file can cost this process, never the service.

import { readFileSync } from 'node:fs'
import { open, readFile } from 'node:fs/promises'
import type { FileInspection } from '../domain/preflight.ts'
import { inspectImage } from './image-inspection.ts'
import type { BoxFixRequest } from './pdf-box-fix.ts'
import type { RenderedThumbnail, ThumbnailRequest } from './pdf-thumbnails.ts'

export type InspectionRequest =
  | { op: 'inspect'; path: string; contentType: string; maxPages: number; maxPixels: number }
  | { op: 'fix-boxes'; path: string; outputPath: string; book: BoxFixRequest }
  | { op: 'thumbnails'; path: string; request: ThumbnailRequest }

export type InspectionAnswer =
  | { op: 'inspect'; inspection: FileInspection; maxRssKb: number }
  | { op: 'fix-boxes'; pagesChanged: number; maxRssKb: number }
  | { op: 'thumbnails'; thumbnails: RenderedThumbnail[]; maxRssKb: number }
  | { op: 'failed'; reason: string; maxRssKb: number }

/** Whether the file starts like a PDF: "%PDF-" within its first 1024 bytes (as readers accept it). */
async function looksLikePdf(path: string): Promise<boolean> {
  const file = await open(path, 'r')
  try {
    const head = Buffer.alloc(1024)
    const { bytesRead } = await file.read(head, 0, head.length, 0)
    return head.subarray(0, bytesRead).includes('%PDF-')
  } finally {
    await file.close()
  }
}

async function inspect(request: Extract<InspectionRequest, { op: 'inspect' }>): Promise<FileInspection> {
  if (await looksLikePdf(request.path)) {
    // One copy of the file, as a Buffer: pdf-lib's slices of it are views, not copies (pdf-inspection.ts).
    // pdf-lib is loaded only for PDFs: an image's inspection starts faster without it.
    const { inspectPdf } = await import('./pdf-inspection.ts')
    return inspectPdf(await readFile(request.path), request.maxPages)
  }
  const image = await inspectImage(request.path, request.contentType, request.maxPixels)
  if (image.kind === 'unreadable' && /pdf/i.test(request.contentType)) {
    return { kind: 'unreadable', reason: 'the file is not a PDF (no %PDF- header)' }
  }
  return image
}

/**
 * This process's peak resident memory in kB: Linux's VmHWM, which starts afresh with the process's own image.
 * (getrusage's maxRSS, the fallback elsewhere, carries the parent's peak across fork and exec on Linux.)
 */
function maxRssKb(): number {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'))
    if (match) return Number(match[1])
  } catch {
    // Not Linux: the fallback below.
  }
  return process.resourceUsage().maxRSS
}

async function answer(request: InspectionRequest): Promise<InspectionAnswer> {
  try {
    if (request.op === 'inspect') return { op: 'inspect', inspection: await inspect(request), maxRssKb: maxRssKb() }
    if (request.op === 'thumbnails') {
      // pdf.js and the canvas are loaded only for thumbnails: an inspection starts faster without them.
      const { renderPdfThumbnails } = await import('./pdf-thumbnails.ts')
      const thumbnails = await renderPdfThumbnails(new Uint8Array(await readFile(request.path)), request.request)
      return { op: 'thumbnails', thumbnails, maxRssKb: maxRssKb() }
    }
    const { fixPdfBoxes } = await import('./pdf-box-fix.ts')
    const pagesChanged = await fixPdfBoxes(request.path, request.outputPath, request.book)
    return { op: 'fix-boxes', pagesChanged, maxRssKb: maxRssKb() }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return { op: 'failed', reason: message.slice(0, 200), maxRssKb: maxRssKb() }
  }
}

// The parent gone (its process ended), nobody waits for the answer: stop rather than linger.
process.once('disconnect', () => process.exit(1))

process.once('message', (request: InspectionRequest) => {
  void answer(request).then((result) => {
    process.send?.(result, () => process.exit(0))
  })
})
