// Geometry of one print file: how a source image of a given pixel size becomes exactly the print area's pixel
// size under the item's `sizing` mode (spec, "Image sizing"), and whether it is first turned a quarter turn
// (spec, "Rotation"). Pure arithmetic on integers; the image renderer (adapters/image-renderer.ts) applies the
// plan with sharp. The rules are written out in docs/print-files.md.

import type { SizingMode } from './shipping-methods.ts'

export interface PrintFileRequest {
  /** Source size after EXIF orientation has been applied (what a viewer shows as upright). */
  sourceWidth: number
  sourceHeight: number
  /** The variant's print area size in pixels (`horizontalResolution` x `verticalResolution`). */
  targetWidth: number
  targetHeight: number
  sizing: SizingMode
}

export interface PixelBox {
  left: number
  top: number
  width: number
  height: number
}

export interface Margins {
  top: number
  right: number
  bottom: number
  left: number
}

export interface PrintFilePlan {
  /** Quarter turn clockwise applied to the upright source before anything else. */
  rotate: 0 | 90
  /** Size the (rotated) source is resized to. */
  resize: { width: number; height: number }
  /** fillPrintArea only: the centred target-sized box cut out of the resized image; null when nothing is cut. */
  crop: PixelBox | null
  /** fitPrintArea only: white borders around the resized image; null when it already fills the target. */
  margins: Margins | null
}

/**
 * Whether turning the source a quarter turn brings its aspect ratio closer to the target's.
 *
 * Closeness is measured as the ratio of the two aspect ratios, max(a/t, t/a) >= 1: its inverse is the share
 * of the source kept by fillPrintArea, the share of the print area covered by fitPrintArea, and it is the
 * distortion factor of stretchToPrintArea, so a smaller value means less resizing in every mode. Turning the
 * source replaces a by 1/a; that is strictly closer exactly when one of source and target is landscape
 * (wider than tall) and the other portrait (taller than wide). A square source or a square target never
 * rotates (the turn would change nothing), and neither does an equal-orientation pair. Ties keep the image
 * as it is.
 */
export function shouldRotate(
  sourceWidth: number,
  sourceHeight: number,
  targetWidth: number,
  targetHeight: number,
): boolean {
  const sourceLandscape = sourceWidth > sourceHeight
  const sourcePortrait = sourceHeight > sourceWidth
  const targetLandscape = targetWidth > targetHeight
  const targetPortrait = targetHeight > targetWidth
  return (sourceLandscape && targetPortrait) || (sourcePortrait && targetLandscape)
}

/**
 * Largest side accepted, so every product of two sides (up to 10^12) is exact in a double. Far above any real
 * image: the renderer's pixel limit refuses big inputs long before this.
 */
export const MAX_PRINT_GEOMETRY_SIDE = 1_000_000

export function planPrintFile(request: PrintFileRequest): PrintFilePlan {
  const { sourceWidth, sourceHeight, targetWidth, targetHeight, sizing } = request
  for (const [name, value] of Object.entries({ sourceWidth, sourceHeight, targetWidth, targetHeight })) {
    if (!Number.isInteger(value) || value < 1 || value > MAX_PRINT_GEOMETRY_SIDE) {
      throw new RangeError(`${name} must be an integer from 1 to ${MAX_PRINT_GEOMETRY_SIDE}, got ${value}`)
    }
  }
  const rotate = shouldRotate(sourceWidth, sourceHeight, targetWidth, targetHeight) ? 90 : 0
  const width = rotate ? sourceHeight : sourceWidth
  const height = rotate ? sourceWidth : sourceHeight
  // Compared by cross-multiplication so equal aspect ratios are recognised exactly (no floating point).
  const sourceIsWider = width * targetHeight >= height * targetWidth

  switch (sizing) {
    case 'stretchToPrintArea':
      return { rotate, resize: { width: targetWidth, height: targetHeight }, crop: null, margins: null }

    case 'fillPrintArea': {
      // Scale so the source covers the target, then cut the overhang equally from both sides.
      const resize = sourceIsWider
        ? { width: Math.max(targetWidth, Math.round((width * targetHeight) / height)), height: targetHeight }
        : { width: targetWidth, height: Math.max(targetHeight, Math.round((height * targetWidth) / width)) }
      const crop =
        resize.width === targetWidth && resize.height === targetHeight
          ? null
          : {
              left: Math.floor((resize.width - targetWidth) / 2),
              top: Math.floor((resize.height - targetHeight) / 2),
              width: targetWidth,
              height: targetHeight,
            }
      return { rotate, resize, crop, margins: null }
    }

    case 'fitPrintArea': {
      // Scale so the whole source fits, then centre it on white; an odd leftover pixel goes right / bottom.
      const resize = sourceIsWider
        ? { width: targetWidth, height: clamp(Math.round((height * targetWidth) / width), 1, targetHeight) }
        : { width: clamp(Math.round((width * targetHeight) / height), 1, targetWidth), height: targetHeight }
      const spareX = targetWidth - resize.width
      const spareY = targetHeight - resize.height
      const left = Math.floor(spareX / 2)
      const top = Math.floor(spareY / 2)
      const margins = spareX === 0 && spareY === 0 ? null : { top, right: spareX - left, bottom: spareY - top, left }
      return { rotate, resize, crop: null, margins }
    }

    default:
      throw new RangeError(`unknown sizing mode ${String(sizing satisfies never)}`)
  }
}

/** Where a print file came from: the part of the upright source it prints, and its white borders. */
export interface SourcePlacement extends PixelBox {
  /** fitPrintArea only: the white borders of the print file, in print-area pixels; null when there are none. */
  margins: Margins | null
}

/**
 * The part of the upright source (after EXIF orientation, before the plan's quarter turn) that a plan prints,
 * in source pixels, so it can be drawn over the source or its thumbnail. fillPrintArea: the crop box mapped
 * back through the resize and the turn; fitPrintArea and stretchToPrintArea print the whole source.
 * The crop's edges fall between source pixels when the source is scaled; the box is the smallest whole-pixel
 * box around them (every source pixel that shows in the print file, if only in part), so it is never empty.
 */
export function placementOnSource(source: { width: number; height: number }, plan: PrintFilePlan): SourcePlacement {
  const { crop, resize } = plan
  if (!crop) return { left: 0, top: 0, width: source.width, height: source.height, margins: plan.margins }
  const turnedWidth = plan.rotate ? source.height : source.width
  const turnedHeight = plan.rotate ? source.width : source.height
  // The crop's edges in the turned source, before the resize. Integer products and one division: a quotient
  // that is a whole number comes out exact, so floor and ceil below never add a pixel by rounding error.
  const x0 = (crop.left * turnedWidth) / resize.width
  const x1 = ((crop.left + crop.width) * turnedWidth) / resize.width
  const y0 = (crop.top * turnedHeight) / resize.height
  const y1 = ((crop.top + crop.height) * turnedHeight) / resize.height
  // Undoing the clockwise quarter turn: the turned image's point (x, y) is the source's (y, height - x), so
  // the turned image's columns are source rows counted from the bottom.
  const [left, right, top, bottom] = plan.rotate ? [y0, y1, source.height - x1, source.height - x0] : [x0, x1, y0, y1]
  return {
    left: Math.floor(left),
    top: Math.floor(top),
    width: Math.ceil(right) - Math.floor(left),
    height: Math.ceil(bottom) - Math.floor(top),
    margins: null,
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value))
}

/**
 * The print resolution the catalogue's print-area pixel sizes are made for (docs/catalogue.md): a print area of
 * 4800 x 7200 px prints 16 x 24 in. Print inches are therefore print-area pixels / PRINT_AREA_DPI, for every
 * print area alike (a canvas's wrap and bleed, a mount window, a spine), without a physical size per area.
 */
export const PRINT_AREA_DPI = 300

/**
 * Source pixels per printed inch, the smaller of the two axes: how sharp the print will be. The plan's resize is
 * the scale from the (turned) source to print-area pixels, the same for every part of it, so a crop does not
 * change it: fillPrintArea prints the crop's source pixels over the crop's inches at that same scale.
 */
export function effectiveDpi(
  source: { width: number; height: number },
  plan: PrintFilePlan,
  printAreaDpi: number = PRINT_AREA_DPI,
): number {
  const turnedWidth = plan.rotate ? source.height : source.width
  const turnedHeight = plan.rotate ? source.width : source.height
  return printAreaDpi * Math.min(turnedWidth / plan.resize.width, turnedHeight / plan.resize.height)
}

/** The print area scaled so its longer edge is at most `maxEdge` (never enlarged, never below 1 px). */
export function previewSize(width: number, height: number, maxEdge: number): { width: number; height: number } {
  const scale = Math.min(1, maxEdge / Math.max(width, height))
  const scaled = { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
  // Rounding must not make a nearly square print area square (or turn it): the quarter turn follows orientation.
  if (width > height && scaled.width <= scaled.height) scaled.height = Math.max(1, scaled.width - 1)
  if (height > width && scaled.height <= scaled.width) scaled.width = Math.max(1, scaled.height - 1)
  return scaled
}
