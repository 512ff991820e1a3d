// What a product mockup shows (docs/api.md#mockups), planned in the preview's own pixels from the catalogue: the
// kind of picture for the product's category, the frame colour named by the variant (the catalogue's own colour
// names, else the built-in ones), the mount (mat) a framed print has when its print area is smaller than the
// product, a canvas's front and wrapped edges, a book's spine. Pure; adapters/mockup-renderer.ts draws the plan
// with sharp.
import type { PixelSize, Product, Variant } from './catalogue.types.ts'
import { type PixelBox, PRINT_AREA_DPI, type PrintLayout } from './print-geometry.ts'
import { SPINE_PRINT_AREA } from './spine.ts'

export interface Rgb {
  r: number
  g: number
  b: number
}

/**
 * Frame colours drawn without the catalogue's help: the names of the sample catalogue's `color` attribute on
 * framed products. A catalogue names its own in `colours` (docs/catalogue.md), which also override these.
 */
export const FRAME_COLOURS: Readonly<Record<string, Rgb>> = {
  black: { r: 24, g: 24, b: 24 },
  brown: { r: 101, g: 67, b: 33 },
  'dark grey': { r: 72, g: 72, b: 72 },
  gold: { r: 201, g: 162, b: 39 },
  'light grey': { r: 190, g: 190, b: 190 },
  natural: { r: 222, g: 184, b: 135 },
  silver: { r: 192, g: 192, b: 200 },
  white: { r: 248, g: 248, b: 248 },
}

/** Colour-wrapped canvas edges drawn without the catalogue's help (the `wrap` attribute's colour values). */
export const CANVAS_EDGE_COLOURS: Readonly<Record<string, Rgb>> = {
  black: { r: 20, g: 20, b: 20 },
  white: { r: 245, g: 245, b: 245 },
}

// Only for a catalogue built without the loader, which refuses colours that cannot be resolved.
const UNRESOLVED_FRAME: Rgb = { r: 24, g: 24, b: 24 }
const WHITE_EDGE: Rgb = { r: 245, g: 245, b: 245 }

/** How the catalogue's `colours` spell a colour. */
export const HEX_COLOUR_PATTERN = /^#[0-9A-Fa-f]{6}$/

/** The catalogue's `colours`: colour name in lower case -> "#rrggbb". */
export type ColourTable = Readonly<Record<string, string>>

/** The two canvas wraps that are not a colour (any letter case). */
const IMAGE_WRAPS = new Set(['imagewrap', 'mirrorwrap'])

/** A frame's colour or a colour-wrapped canvas's edges. */
export type ColourUse = 'frame' | 'edge'

/**
 * What a mockup draws as a colour, and from which attribute: the frame of a framed print or canvas (its `color`
 * or `colour` attribute; black without one), the edges of a stretched canvas wrapped in a colour (its `wrap`
 * values other than ImageWrap and MirrorWrap). Null for every other product. The catalogue loader checks that
 * each such value can be drawn, so that no colour silently turns into another.
 */
export function colourAttributeOf(product: {
  category: string
  attributes?: Readonly<Record<string, readonly string[]>>
}): { use: ColourUse; attribute: string | null } | null {
  const category = product.category.toLowerCase()
  const names = Object.keys(product.attributes ?? {})
  const named = (wanted: string) => names.find((name) => name.toLowerCase() === wanted)
  if (category === 'framed-print' || category === 'framed-canvas') {
    return { use: 'frame', attribute: named('color') ?? named('colour') ?? null }
  }
  if (category === 'canvas') return { use: 'edge', attribute: named('wrap') ?? null }
  return null
}

/** Whether a value of the colour attribute is drawn as a colour (a canvas's ImageWrap and MirrorWrap are not). */
export function isDrawnAsColour(use: ColourUse, value: string): boolean {
  return use === 'frame' || !IMAGE_WRAPS.has(value.toLowerCase())
}

export function hexToRgb(hex: string): Rgb {
  const value = Number.parseInt(hex.slice(1), 16)
  return { r: (value >> 16) & 255, g: (value >> 8) & 255, b: value & 255 }
}

/**
 * The colour drawn for `name` (any letter case): the catalogue's own first, then the built-in names (for canvas
 * edges, the edge shades before the frame colours). Undefined when neither knows it.
 */
export function resolveColour(name: string, use: ColourUse, colours: ColourTable = {}): Rgb | undefined {
  const lower = name.toLowerCase()
  const own = colours[lower]
  if (own !== undefined) return hexToRgb(own)
  return (use === 'edge' ? CANVAS_EDGE_COLOURS[lower] : undefined) ?? FRAME_COLOURS[lower]
}

/**
 * The colour the mockup of `variant` draws (frame or canvas edge) with its name, or null when it draws none: what
 * a cached mockup depends on besides the product's shape.
 */
export function mockupColourOf(
  product: Product,
  variant: Variant,
  colours: ColourTable = {},
): { name: string; rgb: Rgb } | null {
  const found = colourAttributeOf(product)
  if (!found) return null
  const value = found.attribute === null ? undefined : variant.attributes[found.attribute]
  if (found.use === 'frame') {
    const name = value ?? 'black'
    return { name, rgb: resolveColour(name, 'frame', colours) ?? UNRESOLVED_FRAME }
  }
  if (value === undefined || !isDrawnAsColour('edge', value)) return null
  return { name: value, rgb: resolveColour(value, 'edge', colours) ?? WHITE_EDGE }
}

/** The cream mount (mat) of a framed print. */
export const MAT_COLOUR: Rgb = { r: 246, g: 243, b: 235 }
/** The wall behind every mockup. */
export const BACKGROUND_COLOUR: Rgb = { r: 236, g: 236, b: 236 }

/** Drawn frame moulding, in inches of the product. */
export const FRAME_WIDTH_INCHES = 1
/** A stretched canvas's depth (the sample catalogue's 38 mm bars). */
export const CANVAS_DEPTH_INCHES = 1.5
/** The longest side a mockup may have; previews are at most 800 px, so their mockups stay well below. */
export const MAX_MOCKUP_EDGE = 1200

export type CanvasWrap = { kind: 'image' } | { kind: 'mirror' } | { kind: 'colour'; name: string; colour: Rgb }

export type MockupPlan =
  | {
      kind: 'framedPrint'
      frameColour: { name: string; rgb: Rgb }
      /** Frame moulding in preview pixels. */
      frameWidth: number
      /** Mount on each side (preview pixels): the product is larger than its print area; null without one. */
      mat: { x: number; y: number } | null
      /** The part of the preview seen in the frame: all of it, or a canvas's front. */
      front: PixelBox
    }
  | { kind: 'canvas'; wrap: CanvasWrap; depth: number; front: PixelBox }
  | {
      kind: 'photoPrint'
      border: number
      /**
       * The part of the preview the finished print shows: its trim (the layout's face) when the print area has a
       * spec, since the bleed round it is cut off; else the whole preview.
       */
      front: PixelBox
    }
  | {
      kind: 'book'
      /** The spine's width as a share of the cover's (their print areas' widths): it is drawn beside the cover. */
      spineShare: number
    }

export interface MockupRequest {
  product: Product
  variant: Variant
  printArea: string
  /** The preview's size (the print area scaled down). */
  preview: { width: number; height: number }
  /** The catalogue's own colour names (Catalogue.colours). */
  colours?: ColourTable
  /**
   * The preview's layout when the print area has a spec: a canvas's front is then its face and its edges its
   * wrap band, exactly, instead of being worked out from the product's size.
   */
  layout?: PrintLayout | null
}

const INCHES_PER_UNIT: Readonly<Record<string, number>> = { in: 1, mm: 1 / 25.4, cm: 1 / 2.54 }

/** The product's size in inches; null for units the catalogue may name but that are not a length. */
function productInches(product: Product): { width: number; height: number } | null {
  const factor = INCHES_PER_UNIT[product.productDimensions.units.toLowerCase()]
  if (factor === undefined) return null
  return { width: product.productDimensions.width * factor, height: product.productDimensions.height * factor }
}

function attributeValue(variant: Variant, name: string): string | undefined {
  const found = Object.entries(variant.attributes).find(([key]) => key.toLowerCase() === name)
  return found?.[1]
}

/**
 * The centred part of the preview a product shows on its face: a canvas's print area has bleed (and, wrapped in
 * the image, its sides) around the product's own size. The whole preview when the product is not smaller.
 */
function frontOf(request: MockupRequest, size: PixelSize, inches: { width: number; height: number } | null): PixelBox {
  const { width, height } = request.preview
  if (!inches) return { left: 0, top: 0, width, height }
  // Print area pixels -> preview pixels; the product's inches -> print area pixels at PRINT_AREA_DPI. A canvas
  // drawn turned (a portrait canvas from a landscape product size) keeps its own orientation.
  const pixelsPerInch = (width / size.horizontalResolution) * PRINT_AREA_DPI
  const [faceWidth, faceHeight] =
    width >= height === inches.width >= inches.height ? [inches.width, inches.height] : [inches.height, inches.width]
  const frontWidth = Math.min(width, Math.max(1, Math.round(faceWidth * pixelsPerInch)))
  const frontHeight = Math.min(height, Math.max(1, Math.round(faceHeight * pixelsPerInch)))
  return {
    left: Math.floor((width - frontWidth) / 2),
    top: Math.floor((height - frontHeight) / 2),
    width: frontWidth,
    height: frontHeight,
  }
}

export function planMockup(request: MockupRequest): MockupPlan {
  const { product, variant, printArea, preview } = request
  const size = variant.printAreaSizes[printArea]
  if (!size) throw new RangeError(`${product.sku} has no print area ${printArea}`)
  const pixelsPerInch = (preview.width / size.horizontalResolution) * PRINT_AREA_DPI
  const inches = productInches(product)
  const category = product.category.toLowerCase()

  if (category === 'photobook') {
    const cover = variant.printAreaSizes.default ?? size
    const spine = variant.printAreaSizes[SPINE_PRINT_AREA]?.horizontalResolution ?? PRINT_AREA_DPI
    return { kind: 'book', spineShare: spine / cover.horizontalResolution }
  }

  const colour = mockupColourOf(product, variant, request.colours)
  const whole: PixelBox = { left: 0, top: 0, width: preview.width, height: preview.height }
  // A laid-out print area: the finished product shows its face (a flat print's trim); the bleed is cut off.
  const trim = request.layout ? { ...request.layout.face } : whole
  if ((category === 'framed-print' || category === 'framed-canvas') && printArea === 'default') {
    let mat: { x: number; y: number } | null = null
    let front: PixelBox = trim
    if (category === 'framed-canvas') {
      front = request.layout ? request.layout.face : frontOf(request, size, inches)
    } else if (inches) {
      // The print area is the mount's window: what the product is larger by is the mount.
      const printWidth = size.horizontalResolution / PRINT_AREA_DPI
      const printHeight = size.verticalResolution / PRINT_AREA_DPI
      const [outerWidth, outerHeight] =
        printWidth >= printHeight === inches.width >= inches.height
          ? [inches.width, inches.height]
          : [inches.height, inches.width]
      const x = Math.round(((outerWidth - printWidth) / 2) * pixelsPerInch)
      const y = Math.round(((outerHeight - printHeight) / 2) * pixelsPerInch)
      if (x > 0 || y > 0) mat = { x: Math.max(0, x), y: Math.max(0, y) }
    }
    return {
      kind: 'framedPrint',
      frameColour: colour ?? { name: 'black', rgb: UNRESOLVED_FRAME },
      frameWidth: Math.max(4, Math.round(FRAME_WIDTH_INCHES * pixelsPerInch)),
      mat,
      front,
    }
  }

  const wrap = attributeValue(variant, 'wrap')
  // A canvas whose spec has no wrap band (a rolled canvas) is flat: drawn as a print of its trim, no sides.
  const flatCanvas = request.layout ? request.layout.wrap === 0 : false
  if (category === 'canvas' && printArea === 'default' && !flatCanvas) {
    const { layout } = request
    const front = layout ? layout.face : frontOf(request, size, inches)
    const depth = Math.max(3, layout?.wrap || Math.round(CANVAS_DEPTH_INCHES * pixelsPerInch))
    const lower = (wrap ?? 'ImageWrap').toLowerCase()
    const canvasWrap: CanvasWrap =
      lower === 'imagewrap'
        ? { kind: 'image' }
        : lower === 'mirrorwrap'
          ? { kind: 'mirror' }
          : { kind: 'colour', name: colour?.name ?? lower, colour: colour?.rgb ?? WHITE_EDGE }
    return { kind: 'canvas', wrap: canvasWrap, depth, front }
  }

  return {
    kind: 'photoPrint',
    border: Math.max(6, Math.round(Math.max(preview.width, preview.height) * 0.04)),
    front: trim,
  }
}
