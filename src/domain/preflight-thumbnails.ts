// Page thumbnails of a preflighted PDF (docs/print-files.md#page-thumbnails): which pages get one, how big, and
// where the trim, bleed and safe lines fall on it. Pure: the inspector's child renders the page with pdf.js and
// draws these rectangles on it; the pages show the PNG with a legend in the same colours.

import type { PreflightCheck } from './preflight.ts'

/** The long side of a thumbnail, in pixels. */
export const THUMBNAIL_MAX_SIDE = 240
/** The first pages that always get a thumbnail. */
export const THUMBNAIL_FIRST_PAGES = 4
/** At most this many thumbnails per file: the first pages, then the pages an error check names. */
export const THUMBNAIL_MAX_PAGES = 8

/** The overlay's lines, burned into the thumbnail; the legend on the pages uses the same colours. */
export const THUMBNAIL_OVERLAY = {
  bleed: { colour: '#0969da', dash: [4, 2] },
  trim: { colour: '#cf222e', dash: [] },
  safe: { colour: '#1a7f37', dash: [1, 2] },
} as const

/** One thumbnail as a report lists it: the page and the PNG's size in pixels. */
export interface PreflightThumbnail {
  readonly page: number
  readonly width: number
  readonly height: number
}

/** A PDF box as the file writes it: [x0, y0, x1, y1] in points, y upwards. */
export type PdfBox = readonly [number, number, number, number]

/** A rectangle on the thumbnail, in pixels from its top left corner. */
export interface OverlayRect {
  readonly left: number
  readonly top: number
  readonly width: number
  readonly height: number
}

/** The physical lines a page is held to (a book's interior or a print area's spec). */
export interface ThumbnailGuideSpec {
  readonly trimMm: { readonly width: number; readonly height: number }
  readonly bleedMm: number
  readonly safeMm: number
}

export interface ThumbnailPageInput {
  /** The area pdf.js draws (its `view`: the CropBox within the MediaBox). */
  readonly view: PdfBox
  readonly trimBox: PdfBox | null
  readonly bleedBox: PdfBox | null
  /** The page's /Rotate, a multiple of 90. */
  readonly rotate: number
}

export interface ThumbnailLayout {
  readonly width: number
  readonly height: number
  /** Pixels per point. */
  readonly scale: number
  /** Null when the page has no bleed (no BleedBox, and its size is not the trim plus the bleed). */
  readonly bleed: OverlayRect | null
  readonly trim: OverlayRect
  /** Null without a spec or with no safe margin. */
  readonly safe: OverlayRect | null
}

const POINTS_PER_MM = 72 / 25.4
/** As the preflight's page-size check (PAGE_SIZE_TOLERANCE_MM): a page measures trim + bleed within 1 mm. */
const SIZE_TOLERANCE_MM = 1

/**
 * The pages that get a thumbnail: the first THUMBNAIL_FIRST_PAGES, then each page an error check names (in page
 * order), THUMBNAIL_MAX_PAGES at most; only pages the file has.
 */
export function thumbnailPages(pageCount: number, checks: readonly PreflightCheck[]): number[] {
  const pages = new Set<number>()
  for (let page = 1; page <= Math.min(pageCount, THUMBNAIL_FIRST_PAGES); page++) pages.add(page)
  const errorPages = checks
    .filter((check) => check.severity === 'error' && check.page !== undefined)
    .map((check) => check.page as number)
    .filter((page) => Number.isInteger(page) && page >= 1 && page <= pageCount)
    .sort((a, b) => a - b)
  for (const page of errorPages) {
    if (pages.size >= THUMBNAIL_MAX_PAGES) break
    pages.add(page)
  }
  return [...pages].sort((a, b) => a - b)
}

function normal(box: PdfBox): [number, number, number, number] {
  return [Math.min(box[0], box[2]), Math.min(box[1], box[3]), Math.max(box[0], box[2]), Math.max(box[1], box[3])]
}

function inset(box: PdfBox, by: number): [number, number, number, number] {
  return [box[0] + by, box[1] + by, box[2] - by, box[3] - by]
}

function near(a: number, b: number): boolean {
  return Math.abs(a - b) <= SIZE_TOLERANCE_MM * POINTS_PER_MM
}

/** Whether a box measures the trim plus the bleed on every side (either way round). */
function isTrimPlusBleed(box: PdfBox, spec: ThumbnailGuideSpec): boolean {
  const width = box[2] - box[0]
  const height = box[3] - box[1]
  const w = (spec.trimMm.width + 2 * spec.bleedMm) * POINTS_PER_MM
  const h = (spec.trimMm.height + 2 * spec.bleedMm) * POINTS_PER_MM
  return (near(width, w) && near(height, h)) || (near(width, h) && near(height, w))
}

/** Where the trim and bleed are on the page, in points: the page's own boxes, else read from its size. */
function pageBoxes(page: ThumbnailPageInput, spec: ThumbnailGuideSpec | null) {
  const view = normal(page.view)
  const bleedPt = (spec?.bleedMm ?? 0) * POINTS_PER_MM
  const trimBox = page.trimBox ? normal(page.trimBox) : null
  const bleedBox = page.bleedBox ? normal(page.bleedBox) : null
  if (trimBox) return { view, trim: trimBox, bleed: bleedBox }
  if (bleedBox) return { view, trim: bleedPt > 0 ? inset(bleedBox, bleedPt) : bleedBox, bleed: bleedBox }
  // No boxes: a page the size of the trim plus the bleed has its bleed round the trim; any other page is the trim.
  if (spec && bleedPt > 0 && isTrimPlusBleed(view, spec)) return { view, trim: inset(view, bleedPt), bleed: view }
  return { view, trim: view, bleed: null }
}

/** A box in points as a rectangle on the unrotated picture of `view` (top left origin), clipped to it. */
function toPixels(box: PdfBox, view: PdfBox, scale: number, width: number, height: number) {
  const clamp = (value: number, max: number) => Math.min(Math.max(value, 0), max)
  const left = clamp((box[0] - view[0]) * scale, width)
  const right = clamp((box[2] - view[0]) * scale, width)
  const top = clamp((view[3] - box[3]) * scale, height)
  const bottom = clamp((view[3] - box[1]) * scale, height)
  return { left, top, width: Math.max(0, right - left), height: Math.max(0, bottom - top) }
}

/** A rectangle on the unrotated picture (width x height) turned clockwise by `rotate` degrees, as pdf.js shows it. */
export function rotateRect(rect: OverlayRect, rotate: number, width: number, height: number): OverlayRect {
  const turn = (((rotate % 360) + 360) % 360) / 90
  if (turn === 1)
    return { left: height - rect.top - rect.height, top: rect.left, width: rect.height, height: rect.width }
  if (turn === 2) return { ...rect, left: width - rect.left - rect.width, top: height - rect.top - rect.height }
  if (turn === 3) return { left: rect.top, top: width - rect.left - rect.width, width: rect.height, height: rect.width }
  return rect
}

function rounded(rect: OverlayRect): OverlayRect {
  const round = (value: number) => Math.round(value * 10) / 10
  return { left: round(rect.left), top: round(rect.top), width: round(rect.width), height: round(rect.height) }
}

/**
 * The thumbnail of one page: its pixel size (the long side `maxSide`) and the overlay's rectangles, turned as the
 * page's /Rotate turns it. Null for a page with no area (a zero or non-finite box): it gets no thumbnail.
 */
export function thumbnailLayout(
  page: ThumbnailPageInput,
  spec: ThumbnailGuideSpec | null,
  maxSide: number = THUMBNAIL_MAX_SIDE,
): ThumbnailLayout | null {
  const boxes = pageBoxes(page, spec)
  const viewWidth = boxes.view[2] - boxes.view[0]
  const viewHeight = boxes.view[3] - boxes.view[1]
  if (!(viewWidth > 0 && viewHeight > 0 && Number.isFinite(viewWidth) && Number.isFinite(viewHeight))) return null
  const scale = maxSide / Math.max(viewWidth, viewHeight)
  const width = Math.max(1, Math.round(viewWidth * scale))
  const height = Math.max(1, Math.round(viewHeight * scale))
  const place = (box: PdfBox) =>
    rounded(rotateRect(toPixels(box, boxes.view, scale, width, height), page.rotate, width, height))
  const safePt = (spec?.safeMm ?? 0) * POINTS_PER_MM
  const quarter = ((((page.rotate % 360) + 360) % 360) / 90) % 2 === 1
  return {
    width: quarter ? height : width,
    height: quarter ? width : height,
    scale,
    bleed: boxes.bleed ? place(boxes.bleed) : null,
    trim: place(boxes.trim),
    safe: spec && safePt > 0 ? place(inset(boxes.trim, safePt)) : null,
  }
}
