// What a print file must be, per product print area and per lab: the physical geometry (trim, bleed, safe area,
// canvas wrap band, resolution bounds) and the colour the lab's press wants. The catalogue declares them
// (optional and additive: a catalogue without them keeps loading, and its print files stay exactly as before);
// the loader resolves them per variant; the planner (print-file geometry), the renderer's colour step and the
// preflight read only these types.

/** Millimetres, as the catalogue writes them (decimals allowed). */
export interface SizeMm {
  readonly width: number
  readonly height: number
}

/** One print area's physical specification for one variant (variant overrides already applied). */
export interface PrintAreaSpec {
  /** The finished size after trimming (for a canvas: the face). */
  readonly trimMm: SizeMm
  /** Band added outside the trim on every side, cut off after printing; 0 = none. */
  readonly bleedMm: number
  /** Band inside the trim on every side where nothing important should be; 0 = none. */
  readonly safeMm: number
  /** Canvases: depth of the edge band wrapped round the frame, on every side; null for flat products. */
  readonly wrapMm: number | null
  /** Below this effective resolution at the print size a source image gets a preflight warning. */
  readonly minDpi: number
  /** The resolution print files are made at. */
  readonly recommendedDpi: number
}

/** Books: the interior's physical specification (the cover follows from it and the spine, see cover-dimensions). */
export interface BookSpec {
  readonly trimMm: SizeMm
  readonly bleedMm: number
  readonly safeMm: number
  readonly minPages: number
  readonly maxPages: number
  /** The binding needs a page count that is a multiple of this (1 = any). */
  readonly pageMultiple: number
}

export const COLOUR_SPACES = ['srgb', 'cmyk'] as const
export type ColourSpace = (typeof COLOUR_SPACES)[number]

export const RENDERING_INTENTS = ['perceptual', 'relative', 'saturation', 'absolute'] as const
export type RenderingIntent = (typeof RENDERING_INTENTS)[number]

/** The colour of the print files one lab gets for one product (next to its `printFileFormat`). */
export interface LabColour {
  readonly space: ColourSpace
  /** Name of a profile the project ships (null for sRGB: the built-in sRGB profile). */
  readonly profile: string | null
  readonly intent: RenderingIntent
  readonly blackPointCompensation: boolean
}

/** Today's behaviour, and what a lab without a `colour` entry gets. */
export const SRGB_COLOUR: LabColour = {
  space: 'srgb',
  profile: null,
  intent: 'perceptual',
  blackPointCompensation: false,
}

/** A lab colour for people: `CMYK printroute-fogra39, relative intent, black-point compensation`. */
export function labColourText(colour: LabColour): string {
  if (colour.space === 'srgb') return 'sRGB'
  const profile = colour.profile ? ` ${colour.profile}` : ''
  const bpc = colour.blackPointCompensation ? ', black-point compensation' : ''
  return `CMYK${profile}, ${colour.intent} intent${bpc}`
}
