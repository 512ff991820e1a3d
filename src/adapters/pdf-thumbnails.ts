// Page thumbnails of a preflighted PDF (docs/print-files.md#page-thumbnails): pdf.js draws each asked page on an
// @napi-rs/canvas at most THUMBNAIL_MAX_SIDE px on its long side, then the trim, bleed and safe lines
// (domain/preflight-thumbnails.ts) are drawn over it and the canvas is written as PNG. Runs only inside the
// inspector's child process (file-inspection-child.ts), which bounds its time and memory: a hostile page costs
// that process. A page pdf.js cannot draw is left out; the others are still made.

import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas'
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'
import {
  type OverlayRect,
  type PdfBox,
  THUMBNAIL_OVERLAY,
  type ThumbnailGuideSpec,
  thumbnailLayout,
} from '../domain/preflight-thumbnails.ts'

export interface ThumbnailRequestPage {
  readonly page: number
  readonly trimBox: PdfBox | null
  readonly bleedBox: PdfBox | null
}

export interface ThumbnailRequest {
  readonly pages: readonly ThumbnailRequestPage[]
  readonly spec: ThumbnailGuideSpec | null
  readonly maxSide: number
}

export interface RenderedThumbnail {
  readonly page: number
  readonly width: number
  readonly height: number
  readonly png: Uint8Array
}

/**
 * pdf.js's own data, read from its package on disk (nothing is fetched): the standard fonts drawn for fonts a file
 * does not embed, the CMaps of CJK text, the decoders of JPEG 2000 and JBIG2 images and the CMYK profile.
 */
const PDFJS_DIRECTORY = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))
const pdfjsData = (folder: string) => `${join(PDFJS_DIRECTORY, folder)}/`

function stroke(context: SKRSContext2D, rect: OverlayRect | null, line: { colour: string; dash: readonly number[] }) {
  if (!rect || rect.width <= 0 || rect.height <= 0) return
  context.save()
  context.strokeStyle = line.colour
  context.lineWidth = 1.5
  context.setLineDash([...line.dash].map((length) => length * 2))
  // Inset by half the line so a box on the picture's edge still shows whole.
  const x = Math.max(0.75, rect.left)
  const y = Math.max(0.75, rect.top)
  context.strokeRect(x, y, Math.max(0, rect.width - 1.5), Math.max(0, rect.height - 1.5))
  context.restore()
}

/** Renders the asked pages of the PDF in `bytes`; pages pdf.js cannot draw, or with no area, are left out. */
export async function renderPdfThumbnails(bytes: Uint8Array, request: ThumbnailRequest): Promise<RenderedThumbnail[]> {
  const task = getDocument({
    data: bytes,
    disableFontFace: true,
    useSystemFonts: false,
    standardFontDataUrl: pdfjsData('standard_fonts'),
    cMapUrl: pdfjsData('cmaps'),
    wasmUrl: pdfjsData('wasm'),
    iccUrl: pdfjsData('iccs'),
    verbosity: 0,
  })
  const document = await task.promise
  const made: RenderedThumbnail[] = []
  try {
    for (const asked of request.pages) {
      if (asked.page < 1 || asked.page > document.numPages) continue
      try {
        const page = await document.getPage(asked.page)
        const view = page.view as unknown as PdfBox
        const layout = thumbnailLayout(
          { view, trimBox: asked.trimBox, bleedBox: asked.bleedBox, rotate: page.rotate },
          request.spec,
          request.maxSide,
        )
        if (!layout) continue
        // pdf.js scales by its own view; the layout's scale is pixels per point of the same view.
        const viewport = page.getViewport({ scale: layout.scale })
        const canvas = createCanvas(layout.width, layout.height)
        const context = canvas.getContext('2d')
        context.fillStyle = '#ffffff'
        context.fillRect(0, 0, layout.width, layout.height)
        await page.render({ canvas: canvas as unknown as Parameters<typeof page.render>[0]['canvas'], viewport })
          .promise
        stroke(context, layout.bleed, THUMBNAIL_OVERLAY.bleed)
        stroke(context, layout.trim, THUMBNAIL_OVERLAY.trim)
        stroke(context, layout.safe, THUMBNAIL_OVERLAY.safe)
        made.push({ page: asked.page, width: layout.width, height: layout.height, png: canvas.toBuffer('image/png') })
        page.cleanup()
      } catch {
        // A page pdf.js cannot draw gets no thumbnail; its checks say what is wrong with it.
      }
    }
  } finally {
    await task.destroy()
  }
  return made
}
