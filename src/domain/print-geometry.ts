// Geometry of one print file: how a source image of a given pixel size becomes exactly the print area's pixel
// size under the item's `sizing` mode (spec, "Image sizing"), and whether it is first turned a quarter turn
// (spec, "Rotation"); and, for a print area with a physical spec, the file's layout round it (face, canvas wrap
// band, bleed). Pure arithmetic on integers; the image renderer (adapters/image-renderer.ts) applies the plan
// with sharp. The rules are written out in docs/print-files.md.

import type { Variant } from './catalogue.types.ts'
import type { PrintAreaSpec } from './print-specs.ts'
import type { SizingMode } from './shipping-methods.ts'

export interface PrintFileRequest {
  /** Source size after EXIF orientation has been applied (what a viewer shows as upright). */
  sourceWidth: number
  sourceHeight: number
  /** The variant's print area size in pixels (`horizontalResolution` x `verticalResolution`). */
  targetWidth: number
  targetHeight: number
  sizing: SizingMode
  /**
   * The print area's physical specification and the item's `wrap` attribute, when the catalogue gives the area
   * a spec: the print file is then laid out from the spec (planPrintLayout) instead of `targetWidth` x
   * `targetHeight`. Absent or null: today's plan, exactly.
   */
  area?: PrintAreaRequest | null
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
  /**
   * Only when the print area has a spec: the print file's layout (face, wrap band, bleed), of which `resize`,
   * `crop` and `margins` above fill the `image` box. Absent for areas without a spec (and older plans).
   */
  layout?: PrintLayout
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
  const { sourceWidth, sourceHeight, targetWidth, targetHeight } = request
  for (const [name, value] of Object.entries({ sourceWidth, sourceHeight, targetWidth, targetHeight })) {
    if (!Number.isInteger(value) || value < 1 || value > MAX_PRINT_GEOMETRY_SIDE) {
      throw new RangeError(`${name} must be an integer from 1 to ${MAX_PRINT_GEOMETRY_SIDE}, got ${value}`)
    }
  }
  if (!request.area) return planSizing(request)
  // With a spec the spec says the file's size; the variant's pixel size is left aside (see docs/print-files.md).
  const layout = planPrintLayout(request.area)
  const sizing = planSizing({ ...request, targetWidth: layout.image.width, targetHeight: layout.image.height })
  return { ...sizing, layout }
}

/** How a source becomes exactly `targetWidth` x `targetHeight` under the sizing mode: the plan of every file. */
function planSizing(request: PrintFileRequest): PrintFilePlan {
  const { sourceWidth, sourceHeight, targetWidth, targetHeight, sizing } = request
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
 * Source pixels per printed inch, the smaller of the two axes: how sharp the print will be. A plan with a layout
 * is at its spec's recommendedDpi, every other at PRINT_AREA_DPI. The plan's resize is
 * the scale from the (turned) source to print-area pixels, the same for every part of it, so a crop does not
 * change it: fillPrintArea prints the crop's source pixels over the crop's inches at that same scale.
 */
export function effectiveDpi(
  source: { width: number; height: number },
  plan: PrintFilePlan,
  printAreaDpi: number = plan.layout?.dpi ?? PRINT_AREA_DPI,
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

// ---- Bleed and canvas wraps (docs/print-files.md, "Bleed and canvas wraps") ---------------------------------

/** A colour in 8-bit sRGB. */
export interface EdgeColour {
  r: number
  g: number
  b: number
}

/**
 * What fills the file outside the face: the image itself (flat prints' bleed, ImageWrap), the face's edge
 * mirrored (MirrorWrap), or one colour (Black, White, or a colour the catalogue names in `colours`).
 */
export type EdgeFill = { kind: 'image' } | { kind: 'mirror' } | { kind: 'colour'; name: string; rgb: EdgeColour }

/** The print area's spec and the item's choice of wrap, as planPrintFile takes them. */
export interface PrintAreaRequest {
  spec: PrintAreaSpec
  /** The item's `wrap` attribute value (any letter case); null or absent without one. Ignored for flat products. */
  wrap?: string | null
  /** The catalogue's `colours` (lower-case name -> "#rrggbb"), for wrap colours other than Black and White. */
  colours?: Readonly<Record<string, string>>
  /**
   * Previews: lay the file out scaled so its longer side is at most this many pixels (every band and the face
   * rounded down; only a face that would round to nothing is kept at 1 px); absent for the print file itself.
   */
  maxEdge?: number
}

/**
 * One print file's layout, in its own pixels (x to the right, y down, from the top-left corner). Outwards from the
 * centre: the face (the trim: a flat print's finished size, a canvas's front), the wrap band round it (`wrap`
 * pixels deep on every side, 0 for flat products), then the bleed (`bleed` pixels on every side). So
 * `width = face.width + 2 * (wrap + bleed)`, likewise the height, and `face.left = face.top = wrap + bleed`.
 */
export interface PrintLayout {
  width: number
  height: number
  /** The resolution the layout was made at: the spec's recommendedDpi (scaled down for a preview). */
  dpi: number
  face: PixelBox
  wrap: number
  bleed: number
  /** Depth of the safe area inside the face on every side: advice for previews and preflight, never drawn. */
  safe: number
  /** How the wrap band and the bleed are filled; 'image' for flat products. */
  edges: EdgeFill
  /** Where the sizing plan puts the source: the whole file when `edges` is 'image', else the face. */
  image: PixelBox
}

/**
 * Deepest wrap band plus bleed on a side, in pixels: libvips extends an image by at most 10,000 pixels a side.
 * 10,000 px is 846 mm at 300 dpi, far beyond any canvas bar.
 */
export const MAX_EDGE_DEPTH = 10_000

/** Micrometres per inch: lengths are turned into whole micrometres first, so the pixel arithmetic is exact. */
const MICROMETRES_PER_INCH = 25_400

/**
 * The one rounding rule: a length in millimetres is `round(mm x dpi / 25.4)` pixels, halves rounded up, computed
 * exactly on whole micrometres (`mm` is first rounded to the nearest micrometre). Each part (face side, wrap,
 * bleed, safe) is rounded on its own and the file is their sum, so the bands are the same on every side.
 */
export function millimetresToPixels(millimetres: number, dpi: number): number {
  const micrometres = Math.round(millimetres * 1000)
  return Math.floor((2 * micrometres * dpi + MICROMETRES_PER_INCH) / (2 * MICROMETRES_PER_INCH))
}

const BUILT_IN_EDGE_COLOURS: Readonly<Record<string, EdgeColour>> = {
  black: { r: 0, g: 0, b: 0 },
  white: { r: 255, g: 255, b: 255 },
}

/**
 * The edge fill an item's `wrap` attribute asks for on a canvas: ImageWrap (also when the item has no `wrap`),
 * MirrorWrap, or a colour: the catalogue's own `colours` first, then Black (0,0,0) and White (255,255,255) as
 * they print (not the mockup's shades). A flat product's bleed is always the image.
 */
export function edgeFillOf(area: Pick<PrintAreaRequest, 'spec' | 'wrap' | 'colours'>): EdgeFill {
  if (area.spec.wrapMm === null || !area.wrap) return { kind: 'image' }
  const lower = area.wrap.toLowerCase()
  if (lower === 'imagewrap') return { kind: 'image' }
  if (lower === 'mirrorwrap') return { kind: 'mirror' }
  const hex = area.colours?.[lower]
  const rgb = hex && /^#[0-9a-f]{6}$/i.test(hex) ? hexColour(hex) : BUILT_IN_EDGE_COLOURS[lower]
  if (!rgb) throw new RangeError(`wrap ${area.wrap} is neither ImageWrap, MirrorWrap nor a colour the catalogue names`)
  return { kind: 'colour', name: area.wrap, rgb }
}

function hexColour(hex: string): EdgeColour {
  const value = Number.parseInt(hex.slice(1), 16)
  return { r: (value >> 16) & 255, g: (value >> 8) & 255, b: value & 255 }
}

/** The spec's lengths in pixels at its recommendedDpi (or scaled for a preview), checked. */
function bandsOf(area: PrintAreaRequest): Omit<PrintLayout, 'width' | 'height' | 'face' | 'edges' | 'image'> & {
  faceWidth: number
  faceHeight: number
} {
  const { spec } = area
  const dpi = spec.recommendedDpi
  if (!Number.isInteger(dpi) || dpi < 1) throw new RangeError(`recommendedDpi must be a positive integer, got ${dpi}`)
  for (const [name, value] of Object.entries({
    'trimMm.width': spec.trimMm.width,
    'trimMm.height': spec.trimMm.height,
    bleedMm: spec.bleedMm,
    safeMm: spec.safeMm,
    wrapMm: spec.wrapMm ?? 0,
  })) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a length >= 0, got ${value}`)
  }
  const bands = {
    dpi,
    faceWidth: millimetresToPixels(spec.trimMm.width, dpi),
    faceHeight: millimetresToPixels(spec.trimMm.height, dpi),
    wrap: spec.wrapMm === null ? 0 : millimetresToPixels(spec.wrapMm, dpi),
    bleed: millimetresToPixels(spec.bleedMm, dpi),
    safe: millimetresToPixels(spec.safeMm, dpi),
  }
  if (area.maxEdge === undefined) return bands
  if (!Number.isInteger(area.maxEdge) || area.maxEdge < 1) throw new RangeError('maxEdge must be a positive integer')
  const outer = bands.wrap + bands.bleed
  const scale = Math.min(1, area.maxEdge / Math.max(bands.faceWidth + 2 * outer, bands.faceHeight + 2 * outer))
  // Rounded down, each part: the scaled file is never larger than maxEdge, and a band never grows.
  const down = (pixels: number) => Math.floor(pixels * scale)
  return {
    dpi: bands.dpi * scale,
    faceWidth: Math.max(1, down(bands.faceWidth)),
    faceHeight: Math.max(1, down(bands.faceHeight)),
    wrap: down(bands.wrap),
    bleed: down(bands.bleed),
    safe: down(bands.safe),
  }
}

/**
 * The print file's layout for a print area with a spec (see PrintLayout). Refused (RangeError) when the face
 * would be under a pixel, the file over MAX_PRINT_GEOMETRY_SIDE or the band and bleed over MAX_EDGE_DEPTH, and for MirrorWrap when the band and bleed
 * together are deeper than the face is wide or high (a mirror of the face's edge cannot be deeper than the face).
 */
export function planPrintLayout(area: PrintAreaRequest): PrintLayout {
  const { faceWidth, faceHeight, wrap, bleed, safe, dpi } = bandsOf(area)
  const edges = edgeFillOf(area)
  const outer = wrap + bleed
  const width = faceWidth + 2 * outer
  const height = faceHeight + 2 * outer
  if (faceWidth < 1 || faceHeight < 1) throw new RangeError(`the trim is under a pixel at ${dpi} dpi`)
  if (width > MAX_PRINT_GEOMETRY_SIDE || height > MAX_PRINT_GEOMETRY_SIDE) {
    throw new RangeError(`a ${width} x ${height} print file is over ${MAX_PRINT_GEOMETRY_SIDE} pixels a side`)
  }
  if (outer > MAX_EDGE_DEPTH) throw new RangeError(`a ${outer} px band and bleed is over ${MAX_EDGE_DEPTH} px`)
  if (edges.kind === 'mirror' && outer > Math.min(faceWidth, faceHeight)) {
    throw new RangeError(`a ${outer} px mirror band is deeper than the ${faceWidth} x ${faceHeight} px face`)
  }
  const face = { left: outer, top: outer, width: faceWidth, height: faceHeight }
  const image = edges.kind === 'image' ? { left: 0, top: 0, width, height } : face
  return { width, height, dpi, face, wrap, bleed, safe, edges, image }
}

/**
 * What planPrintFile needs to lay out `printArea` of `variant`: its spec and the variant's `wrap` attribute (name
 * matched in any letter case), or null when the catalogue gives the area no spec (the file is then as before).
 */
export function printAreaRequestOf(
  variant: Pick<Variant, 'attributes' | 'printAreaSpecs'>,
  printArea: string,
  colours?: Readonly<Record<string, string>>,
): PrintAreaRequest | null {
  const spec = variant.printAreaSpecs[printArea]
  if (!spec) return null
  const wrap = Object.entries(variant.attributes).find(([name]) => name.toLowerCase() === 'wrap')?.[1] ?? null
  return { spec, wrap, ...(colours ? { colours } : {}) }
}

/** A named part of a layout; together they cover the file exactly once. */
export interface LayoutPart extends PixelBox {
  part: 'face' | 'wrap' | 'bleed'
}

/**
 * The layout cut into non-overlapping boxes that cover the whole file: the face, then each ring (wrap, bleed) as
 * a full-width top and bottom strip and left and right strips between them. Empty boxes are left out.
 */
export function layoutParts(layout: PrintLayout): LayoutPart[] {
  const parts: LayoutPart[] = [{ part: 'face', ...layout.face }]
  let inner: PixelBox = layout.face
  for (const [part, depth] of [
    ['wrap', layout.wrap],
    ['bleed', layout.bleed],
  ] as const) {
    const outer = grow(inner, depth)
    const strips: PixelBox[] = [
      { left: outer.left, top: outer.top, width: outer.width, height: depth },
      { left: outer.left, top: inner.top + inner.height, width: outer.width, height: depth },
      { left: outer.left, top: inner.top, width: depth, height: inner.height },
      { left: inner.left + inner.width, top: inner.top, width: depth, height: inner.height },
    ]
    for (const strip of strips) if (strip.width > 0 && strip.height > 0) parts.push({ part, ...strip })
    inner = outer
  }
  return parts
}

/** The box `depth` pixels larger on every side (smaller when negative, never below nothing). */
export function grow(box: PixelBox, depth: number): PixelBox {
  return {
    left: box.left - depth,
    top: box.top - depth,
    width: Math.max(0, box.width + 2 * depth),
    height: Math.max(0, box.height + 2 * depth),
  }
}

/** The size of the file a plan makes: the layout's when it has one, else the sizing plan's output. */
export function plannedSize(plan: PrintFilePlan): { width: number; height: number } {
  if (plan.layout) return { width: plan.layout.width, height: plan.layout.height }
  if (plan.crop) return { width: plan.crop.width, height: plan.crop.height }
  if (plan.margins) {
    return {
      width: plan.margins.left + plan.resize.width + plan.margins.right,
      height: plan.margins.top + plan.resize.height + plan.margins.bottom,
    }
  }
  return plan.resize
}
