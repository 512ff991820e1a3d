// Print files and thumbnails from customers' images, with sharp (libvips). The geometry (sizing mode, quarter
// turn, crop or white margins) is planned by domain/print-geometry.ts; this file only applies the plan, converts
// the colour to the lab's (sRGB, or CMYK through a shipped profile) with the profile embedded, writes the print
// resolution, encodes the lab's format, records a manifest that makes the same bytes again, and keeps memory
// bounded: inputs over a pixel limit are refused before decoding, and at most `concurrency` images are decoded at once.
// docs/print-files.md explains every rule and the measured memory use.

import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import type { Metadata, OutputInfo, Sharp, default as SharpConstructor, SharpOptions } from 'sharp'
import type { PrintFileFormat } from '../domain/catalogue.types.ts'
import { cmykProfileFile } from '../domain/colour-profiles.ts'
import type { ColourConversionPoint, PrintFileManifest, PrintFileManifestColour } from '../domain/print-files.ts'
import {
  type PrintAreaRequest,
  type PrintFilePlan,
  type PrintLayout,
  plannedSize,
  planPrintFile,
  previewSize,
} from '../domain/print-geometry.ts'
import { type LabColour, SRGB_COLOUR } from '../domain/print-specs.ts'
import type { SizingMode } from '../domain/shipping-methods.ts'

/** The CMYK profiles printroute ships (domain/colour-profiles.ts), at the repository's root. */
export const DEFAULT_PROFILES_DIRECTORY = fileURLToPath(new URL('../../profiles/', import.meta.url))

/**
 * 150 megapixels: above the largest print area in the sample catalogue (9954 x 12954 = 129 MP) and the largest
 * camera files (102 MP), so no real photo is refused. A decoded 150 MP RGB image is 450 MB, which progressive
 * JPEG and interlaced PNG inputs hold whole while decoding (docs/print-files.md, "Memory").
 */
export const DEFAULT_MAX_INPUT_PIXELS = 150_000_000

/**
 * Images rendered at the same time. Decoding one large JPEG is single-threaded in libjpeg, so two at once keep
 * two cores busy; more would only multiply peak memory (see docs/print-files.md, "Limits").
 */
export const DEFAULT_RENDER_CONCURRENCY = 2

/** Print files are written at this JPEG quality with full-resolution colour (no chroma subsampling). */
export const PRINT_JPEG_QUALITY = 95
/** Thumbnails and previews: images to look at on a screen, not to print. */
export const THUMBNAIL_JPEG_QUALITY = 80
export const DEFAULT_THUMBNAIL_EDGE = 400
/**
 * Longer edge of a print file's preview. Twice the thumbnail, so the two sit side by side at the same size on
 * a high-density screen and the preview still shows what the crop cut, while at quality 80 it stays near
 * 100 KB: an order page loads it at once, and it is never a print-ready copy of the customer's image.
 */
export const DEFAULT_PREVIEW_EDGE = 800

/** Formats accepted as customer images. SVG, PDF and camera RAW are not photos to print and are refused. */
const ACCEPTED_INPUT_FORMATS: ReadonlySet<string> = new Set(['jpeg', 'png', 'webp', 'tiff', 'gif', 'heif', 'avif'])

const WHITE = { r: 255, g: 255, b: 255, alpha: 1 }

/**
 * A CMYK print file is converted at the source's own size, before the resize, when that is cheaper
 * (docs/print-files.md#where-the-conversion-runs): lcms costs about 20 ns a pixel here, so a photo enlarged to a
 * poster converts a third of the pixels. What it costs instead is an uncompressed CMYK copy of the source between
 * two pipelines and a resize of four bands instead of three; measured break-even at 1.7 times the source's pixels,
 * so only resizes that at least double them. The copy is bounded (4 bytes a source pixel, at most 128 MiB: a 33 MP
 * photo); larger sources convert after the resize as before. Only JPEG and WebP sources (always 8 bits, where
 * the two orders are measured within a level on average) and only geometry that needs no fill colour: white fit
 * margins and Black/White/catalogue-coloured wrap bands are sRGB colours that must go through the profile.
 */
export const CONVERT_AT_SOURCE = {
  minEnlargement: 2,
  maxCopyBytes: 128 * 1024 * 1024,
  formats: new Set(['jpeg', 'webp']) as ReadonlySet<string>,
} as const

export type RasterPrintFileFormat = Exclude<PrintFileFormat, 'pdf'>

export interface ImageRendererOptions {
  /** Inputs with more pixels (width x height) are refused with ImageTooLargeError. */
  maxInputPixels?: number
  /** Renders (print files and thumbnails) running at once; further calls wait their turn. */
  concurrency?: number
  /** Where the CMYK profiles are; DEFAULT_PROFILES_DIRECTORY when absent. */
  profilesDirectory?: string
}

export interface PrintFileOptions {
  /** The variant's print area size in pixels. */
  width: number
  height: number
  sizing: SizingMode
  /** PDFs (books) are not rendered: they are checked by adapters/pdf-check.ts and passed through. */
  format: RasterPrintFileFormat
  /**
   * The print area's spec and the item's wrap, when the catalogue gives one: the file is then laid out from the
   * spec (face, wrap band, bleed) and `width` x `height` are left aside. Absent: today's file, byte for byte.
   */
  area?: PrintAreaRequest | null
  /** The lab's colour (docs/print-files.md#colour); SRGB_COLOUR when absent. */
  colour?: LabColour
  /** Pixels per inch written into the file (domain/print-files.ts, printFileDpi); none written when absent. */
  dpi?: number
  /**
   * Where a CMYK conversion runs (CONVERT_AT_SOURCE): chosen by the renderer when absent; a manifest's own choice
   * when its file is made again, since the two orders give different bytes.
   */
  convertAt?: ColourConversionPoint
}

export interface RenderedPrintFile {
  data: Buffer
  width: number
  height: number
  format: RasterPrintFileFormat
  /** Whether the image was turned a quarter turn (clockwise) to suit the print area. */
  rotated: boolean
  /** The source's size after EXIF orientation, and the geometry applied to it (domain/print-geometry.ts). */
  source: { width: number; height: number }
  plan: PrintFilePlan
  /** A JPEG of the print file whose longer edge is at most DEFAULT_PREVIEW_EDGE (never enlarged). */
  preview: Buffer
  /** The colour space read back from the encoded file, as libvips names it (`srgb`, `cmyk`, `b-w`). */
  colourSpace: string
  /** What the file was made from, to make it again (docs/print-files.md#reproducible-print-files). */
  manifest: PrintFileManifest
}

export interface PreviewOptions {
  /** The variant's print area size in pixels, as for the print file. */
  width: number
  height: number
  sizing: SizingMode
  /** Longer edge of the preview; DEFAULT_PREVIEW_EDGE when absent. */
  maxEdge?: number
  /** As for the print file; the preview then also shows the trim, bleed, wrap and safe lines (guideLinesSvg). */
  area?: PrintAreaRequest | null
}

/** A print file at screen size: the print file's geometry applied at a reduced scale, as a JPEG. */
export interface RenderedPreview {
  data: Buffer
  /** The preview's size: the print area scaled down (previewSize). */
  width: number
  height: number
  /** The source's size after EXIF orientation. */
  source: { width: number; height: number }
  /** The plan of the full-size print file (its crop, turn and margins), as renderPrintFile would apply it. */
  plan: PrintFilePlan
  /** Areas with a spec: the preview's own layout (the file's, scaled down), where its guide lines are drawn. */
  layout?: PrintLayout
  /** Areas with a spec: the same picture without the guide lines (PNG), which the mockup is drawn from. */
  plain?: Buffer
}

export interface ImageProbe {
  /** Size as displayed, after the EXIF orientation is applied. */
  width: number
  height: number
  /** Decoder name as sharp reports it: jpeg, png, webp, tiff, gif, heif, ... */
  format: string
}

export interface ImageRenderer {
  renderPrintFile(input: string | Buffer, options: PrintFileOptions): Promise<RenderedPrintFile>
  /**
   * The print file a manifest describes, made again from its stored input: refused with PrintFileMismatchError when
   * the input, the profile or the renderer's versions are not the manifest's, or the bytes come out different.
   */
  reproducePrintFile(input: string | Buffer, manifest: PrintFileManifest): Promise<RenderedPrintFile>
  /** What renderPrintFile would make, reduced: the same plan applied to a print area scaled to `maxEdge`. */
  renderPreview(input: string | Buffer, options: PreviewOptions): Promise<RenderedPreview>
  /** A JPEG whose longer edge is at most `maxEdge` (never enlarged). */
  renderThumbnail(input: string | Buffer, maxEdge?: number): Promise<Buffer>
  /** Reads only the header: cheap, and does not apply the pixel limit. */
  probe(input: string | Buffer): Promise<ImageProbe>
  /** Renders running now and waiting for a turn (for logs and metrics). */
  queue(): { running: number; waiting: number }
}

/** The image has more pixels than the renderer accepts; retrying cannot help. */
export class ImageTooLargeError extends Error {
  readonly code = 'ImageTooLarge'
  readonly width: number | null
  readonly height: number | null
  readonly limit: number

  constructor(width: number | null, height: number | null, limit: number, options?: ErrorOptions) {
    const size = width !== null && height !== null ? `${width} x ${height} = ${width * height} pixels` : 'image'
    super(`${size} exceeds the limit of ${limit} pixels`, options)
    this.name = 'ImageTooLargeError'
    this.width = width
    this.height = height
    this.limit = limit
  }
}

/** The input is not an image the renderer accepts (not an image, truncated, corrupt, unsupported format). */
export class UnreadableImageError extends Error {
  readonly code = 'UnreadableImage'

  constructor(reason: string, options?: ErrorOptions) {
    super(`unreadable image: ${reason}`, options)
    this.name = 'UnreadableImageError'
  }
}

/** A print file cannot be made again as its manifest says: what differs is in `reason`. */
export class PrintFileMismatchError extends Error {
  readonly code = 'PrintFileMismatch'

  constructor(reason: string) {
    super(`print file cannot be reproduced: ${reason}`)
    this.name = 'PrintFileMismatchError'
  }
}

/**
 * libvips settings, process-wide, applied when a renderer is created:
 * - cache off: the operation cache keeps recent results (up to 50 MB and 20 open files by default) for
 *   pipelines that repeat; every print file is a different image, so it would only hold memory and files.
 * - one libvips thread per image: JPEG decoding and encoding are single-threaded anyway, and on glibc every
 *   extra thread grows its own malloc arena (sharp's own default on glibc for the same reason); parallelism
 *   comes from rendering `concurrency` images at once instead: two renders with one thread each measured
 *   1.14 images/s, with two threads each 1.21 for 46 MiB more (docs/print-files.md, "Limits and errors").
 */
function configureSharp(sharp: typeof SharpConstructor): typeof SharpConstructor {
  sharp.cache(false)
  sharp.concurrency(1)
  return sharp
}

/**
 * sharp (libvips), loaded and configured at the first image: a process that renders nothing (an API process
 * beside workers, an idle one) does not hold libvips and its modules in memory.
 */
let loadingSharp: Promise<typeof SharpConstructor> | null = null
export function loadSharp(): Promise<typeof SharpConstructor> {
  loadingSharp ??= import('sharp').then((module) => configureSharp(module.default))
  return loadingSharp
}

export function createImageRenderer(options: ImageRendererOptions = {}): ImageRenderer {
  const maxInputPixels = options.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS
  const concurrency = options.concurrency ?? DEFAULT_RENDER_CONCURRENCY
  if (!Number.isInteger(maxInputPixels) || maxInputPixels < 1) throw new RangeError('maxInputPixels must be >= 1')
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be >= 1')
  const limiter = createLimiter(concurrency)
  const profilesDirectory = options.profilesDirectory ?? DEFAULT_PROFILES_DIRECTORY

  // 'truncated' refuses cut-off and corrupt files (they would print with a grey band) but accepts files with
  // recoverable defects that only raise decoder warnings (extraneous bytes before a marker, say) and that
  // every viewer shows correctly; 'warning' would refuse those too. No measurable speed difference.
  const decodeOptions: SharpOptions = { limitInputPixels: maxInputPixels, failOn: 'truncated' }

  /** Header only; refuses non-images, unaccepted formats and, when `enforceLimit`, oversized images. */
  async function readHeader(input: string | Buffer, enforceLimit: boolean): Promise<ImageProbe> {
    let metadata: Metadata
    const sharp = await loadSharp()
    try {
      metadata = await sharp(input, { limitInputPixels: false }).metadata()
    } catch (error) {
      throw classifyError(error, maxInputPixels)
    }
    if (!ACCEPTED_INPUT_FORMATS.has(metadata.format)) {
      throw new UnreadableImageError(`format ${metadata.format} is not accepted`)
    }
    const { width, height } = metadata.autoOrient ?? metadata
    if (!width || !height) throw new UnreadableImageError('no pixel size in the header')
    if (enforceLimit && width * height > maxInputPixels) throw new ImageTooLargeError(width, height, maxInputPixels)
    return { width, height, format: metadata.format }
  }

  async function encode(pipeline: Sharp): Promise<{ data: Buffer; info: OutputInfo }> {
    try {
      return await pipeline.toBuffer({ resolveWithObject: true })
    } catch (error) {
      throw classifyError(error, maxInputPixels)
    }
  }

  /** Hex SHA-256 of each profile file read, once per process: the manifest names the exact bytes converted with. */
  const profileHashes = new Map<string, Promise<string>>()

  /** The file a lab colour converts through (null: sRGB, as applyPlan leaves it) and what the manifest says of it. */
  async function resolveColour(colour: LabColour): Promise<{ path: string | null; manifest: PrintFileManifestColour }> {
    if (colour.space === 'srgb' || colour.profile === null) {
      const { intent, blackPointCompensation } = SRGB_COLOUR
      const manifest = { space: 'srgb', profile: null, profileFile: null, profileSha256: null }
      return { path: null, manifest: { ...manifest, intent, blackPointCompensation } as PrintFileManifestColour }
    }
    const file = cmykProfileFile(colour.profile, colour.intent, colour.blackPointCompensation)
    const path = join(profilesDirectory, file)
    let hash = profileHashes.get(path)
    if (!hash) {
      hash = readFile(path).then(sha256Of)
      profileHashes.set(path, hash)
      // A missing file is a broken installation: let a later render (after it is fixed) read it again.
      hash.catch(() => profileHashes.delete(path))
    }
    const { space, profile, intent, blackPointCompensation } = colour
    const manifest = { space, profile, profileFile: file, profileSha256: await hash, intent, blackPointCompensation }
    return { path, manifest }
  }

  async function makePrintFile(input: string | Buffer, options: PrintFileOptions): Promise<RenderedPrintFile> {
    const { width, height, sizing, format, area, colour = SRGB_COLOUR, dpi } = options
    const sharp = await loadSharp()
    if (!isRasterFormat(format)) {
      throw new RangeError(`print file format ${String(format)} is not rendered (PDFs are checked, not rendered)`)
    }
    if (dpi !== undefined && !(Number.isFinite(dpi) && dpi > 0)) throw new RangeError('dpi must be a positive number')
    const source = await readHeader(input, true)
    const plan = planPrintFile({
      sourceWidth: source.width,
      sourceHeight: source.height,
      targetWidth: width,
      targetHeight: height,
      sizing,
      area: area ?? null,
    })
    const conversion = await resolveColour(colour)
    const convertAt = options.convertAt ?? conversionPointFor(plan, source, conversion.path)
    if (convertAt === 'source' && !canConvertAtSource(plan, source, conversion.path)) {
      throw new RangeError('this print file cannot be converted at the source: sRGB, a fill colour or not a photo')
    }
    // The geometry (the sizing plan, then an area's wrap band and bleed), then the lab's colour, then the
    // resolution; or, for an enlarged photo to a CMYK lab, the colour first at the source's size.
    const converted =
      convertAt === 'source'
        ? await convertedAtSource(sharp, { input, decodeOptions, plan, profilePath: conversion.path as string, encode })
        : convertColour(
            plan.layout
              ? await applyLayout(sharp, applyPlan(sharp(input, decodeOptions), plan), plan.layout, encode)
              : applyPlan(sharp(input, decodeOptions), plan),
            conversion.path,
          )
    const pipeline = encodeAs(withResolution(converted, dpi), format)

    const { data } = await encode(pipeline)
    // The size and colour space read back from the file as written (a header read), so a lab is told what it will
    // open, not what was meant. Not sharp's `info`: after a resize and a crop it gives the crop's size even when
    // an `extend` followed in the same pipeline (sharp 0.35.5), as the mirrored band converted at the source does.
    const written = await sharp(data, { limitInputPixels: false }).metadata()
    const planned = plannedSize(plan)
    if (written.width !== planned.width || written.height !== planned.height) {
      throw new Error(
        `print file came out ${written.width} x ${written.height}, expected ${planned.width} x ${planned.height}`,
      )
    }
    // The preview, in the same turn of the limiter. From the encoded print file: a JPEG print file shrinks on load
    // (the decoder's 1/8 scale), so this costs a fraction of the render and shows exactly what was printed; our own
    // output of a catalogue size, so the input pixel limit does not apply. A CMYK file from a photo whose decoder
    // reduces as it reads: a soft proof, the same picture for less than half the CPU (softProof).
    const preview =
      conversion.path !== null && REDUCING_DECODERS.has(source.format)
        ? await softProof(sharp, {
            input,
            decodeOptions,
            source,
            options,
            profilePath: conversion.path,
            fileSize: previewSize(planned.width, planned.height, DEFAULT_PREVIEW_EDGE),
            encode,
          })
        : await encode(reducedJpeg(sharp(data, { limitInputPixels: false, failOn: 'truncated' }), DEFAULT_PREVIEW_EDGE))
    const manifest: PrintFileManifest = {
      inputSha256: sha256Of(typeof input === 'string' ? await readFile(input) : input),
      outputSha256: sha256Of(data),
      target: { width, height, sizing, format, dpi: dpi ?? null, ...(area ? { area } : {}) },
      plan,
      colour: { ...conversion.manifest, convertedAt: convertAt },
      renderer: rendererVersions(sharp),
    }
    return {
      data,
      width: planned.width,
      height: planned.height,
      format,
      rotated: plan.rotate === 90,
      source: { width: source.width, height: source.height },
      plan,
      preview: preview.data,
      colourSpace: written.space,
      manifest,
    }
  }

  /** makePrintFile with what the manifest asked, refused where the result could not be the manifest's bytes. */
  async function reproduce(input: string | Buffer, manifest: PrintFileManifest): Promise<RenderedPrintFile> {
    const versions = rendererVersions(await loadSharp())
    if (versions.sharp !== manifest.renderer.sharp || versions.libvips !== manifest.renderer.libvips) {
      throw new PrintFileMismatchError(
        `made with sharp ${manifest.renderer.sharp} (libvips ${manifest.renderer.libvips}), ` +
          `this process has sharp ${versions.sharp} (libvips ${versions.libvips})`,
      )
    }
    const inputSha256 = sha256Of(typeof input === 'string' ? await readFile(input) : input)
    if (inputSha256 !== manifest.inputSha256) {
      throw new PrintFileMismatchError(`the input's SHA-256 is ${inputSha256}, the manifest's ${manifest.inputSha256}`)
    }
    const { space, profile, intent, blackPointCompensation } = manifest.colour
    const colour: LabColour = { space, profile, intent, blackPointCompensation }
    const { target } = manifest
    const rendered = await makePrintFile(input, {
      width: target.width,
      height: target.height,
      sizing: target.sizing,
      format: target.format as RasterPrintFileFormat,
      colour,
      ...(target.dpi === null ? {} : { dpi: target.dpi }),
      ...(target.area ? { area: target.area } : {}),
      // Manifests from before the choice existed converted after the resize.
      convertAt: manifest.colour.convertedAt ?? 'printFile',
    })
    if (rendered.manifest.colour.profileSha256 !== manifest.colour.profileSha256) {
      throw new PrintFileMismatchError(`the profile ${manifest.colour.profileFile} is not the file it was made with`)
    }
    // Compared as values: a manifest kept in a jsonb column comes back with its keys in another order.
    if (!isDeepStrictEqual(rendered.plan, manifest.plan)) {
      throw new PrintFileMismatchError('the geometry plans differently now')
    }
    if (rendered.manifest.outputSha256 !== manifest.outputSha256) {
      throw new PrintFileMismatchError(
        `the bytes' SHA-256 is ${rendered.manifest.outputSha256}, the manifest's ${manifest.outputSha256}`,
      )
    }
    return rendered
  }

  return {
    probe: (input) => readHeader(input, false),

    queue: () => limiter.state(),

    renderPrintFile: (input, options) => limiter.run(() => makePrintFile(input, options)),

    reproducePrintFile: (input, manifest) => limiter.run(() => reproduce(input, manifest)),

    renderPreview: (input, { width, height, sizing, maxEdge = DEFAULT_PREVIEW_EDGE, area }) =>
      limiter.run(async () => {
        const sharp = await loadSharp()
        if (!Number.isInteger(maxEdge) || maxEdge < 1) throw new RangeError('maxEdge must be a positive integer')
        const source = await readHeader(input, true)
        const printFile = { sourceWidth: source.width, sourceHeight: source.height, sizing }
        if (area) {
          const request = { input, decodeOptions, source, width, height, sizing, area, maxEdge, encode }
          return renderLaidOutPreview(sharp, request)
        }
        const plan = planPrintFile({ ...printFile, targetWidth: width, targetHeight: height })
        // The print file's own pipeline, planned for the print area scaled down to the preview's size: the same
        // rules (turn, fill, fit, stretch) at a scale where libvips decodes a JPEG at 1/2 to 1/8 of its size.
        const size = previewSize(width, height, maxEdge)
        const previewPlan = planPrintFile({ ...printFile, targetWidth: size.width, targetHeight: size.height })
        const pipeline = applyPlan(sharp(input, decodeOptions), previewPlan).jpeg({ quality: THUMBNAIL_JPEG_QUALITY })
        const { data } = await encode(pipeline)
        return {
          data,
          width: size.width,
          height: size.height,
          source: { width: source.width, height: source.height },
          plan,
        }
      }),

    renderThumbnail: (input, maxEdge = DEFAULT_THUMBNAIL_EDGE) =>
      limiter.run(async () => {
        const sharp = await loadSharp()
        if (!Number.isInteger(maxEdge) || maxEdge < 1) throw new RangeError('maxEdge must be a positive integer')
        await readHeader(input, true)
        return (await encode(reducedJpeg(sharp(input, decodeOptions).autoOrient(), maxEdge))).data
      }),
  }
}

/**
 * A print file's geometry applied to an image, then its colour: what every print file and print-file preview is
 * made by. EXIF orientation first. The planned quarter turn comes after the resize (sharp applies the steps in
 * call order), so the resize is given in the unturned frame and only the smaller, resized image is turned, which
 * libvips must hold in memory to do. Transparent pixels print as white paper; then sRGB, 8 bits, the profile
 * embedded.
 */
function applyPlan(image: Sharp, plan: PrintFilePlan): Sharp {
  let pipeline = resizeTurnAndCrop(image.autoOrient(), plan)
  if (plan.margins) pipeline = pipeline.extend({ ...plan.margins, background: WHITE })
  return pipeline.flatten({ background: WHITE }).toColourspace('srgb').withIccProfile('srgb')
}

/** The plan's resize (in the unturned frame), quarter turn and crop: the geometry that needs no colour. */
function resizeTurnAndCrop(image: Sharp, plan: PrintFilePlan): Sharp {
  let pipeline = image.resize({
    width: plan.rotate ? plan.resize.height : plan.resize.width,
    height: plan.rotate ? plan.resize.width : plan.resize.height,
    fit: 'fill',
  })
  if (plan.rotate) pipeline = pipeline.rotate(plan.rotate)
  if (plan.crop) pipeline = pipeline.extract(plan.crop)
  return pipeline
}

/**
 * Whether a print file's CMYK conversion can run at the source's size (CONVERT_AT_SOURCE): a CMYK lab, a photo,
 * and geometry that adds no colour of its own (no fit margins; a wrap band, if any, mirrored from the face).
 */
function canConvertAtSource(plan: PrintFilePlan, source: ImageProbe, profilePath: string | null): boolean {
  const edges = plan.layout?.edges.kind ?? 'image'
  return (
    profilePath !== null &&
    CONVERT_AT_SOURCE.formats.has(source.format) &&
    plan.margins === null &&
    (edges === 'image' || edges === 'mirror')
  )
}

/** Where the renderer converts a print file's colour when nothing asks otherwise (CONVERT_AT_SOURCE). */
function conversionPointFor(
  plan: PrintFilePlan,
  source: ImageProbe,
  profilePath: string | null,
): ColourConversionPoint {
  const sourcePixels = source.width * source.height
  const enlarged = plan.resize.width * plan.resize.height >= CONVERT_AT_SOURCE.minEnlargement * sourcePixels
  const copyFits = 4 * sourcePixels <= CONVERT_AT_SOURCE.maxCopyBytes
  return enlarged && copyFits && canConvertAtSource(plan, source, profilePath) ? 'source' : 'printFile'
}

/**
 * The print file of an enlarged photo for a CMYK lab, colour first: the upright photo flattened on white and
 * converted through the lab's profile at its own size into an uncompressed CMYK TIFF (the profile embedded), then
 * that resized, turned and cropped as the plan says, in CMYK (`pipelineColourspace('cmyk')`: sharp converts
 * nothing on the way in), a mirrored wrap band added in the same pipeline (no margins here, so it is the
 * pipeline's one `extend`), the profile kept for the output. The file's geometry is the other order's exactly; its
 * pixels differ where the resize interpolates between unlike colours (docs/print-files.md measures how much).
 */
async function convertedAtSource(
  sharp: typeof SharpConstructor,
  request: {
    input: string | Buffer
    decodeOptions: SharpOptions
    plan: PrintFilePlan
    profilePath: string
    encode: Encoder
  },
): Promise<Sharp> {
  const { plan, encode } = request
  const separated = await encode(
    sharp(request.input, request.decodeOptions)
      .autoOrient()
      .flatten({ background: WHITE })
      .toColourspace('srgb')
      .withIccProfile(request.profilePath)
      .tiff({ compression: 'none' }),
  )
  let pipeline = resizeTurnAndCrop(sharp(separated.data, { limitInputPixels: false }).pipelineColourspace('cmyk'), plan)
  const layout = plan.layout
  if (layout?.edges.kind === 'mirror') {
    const depth = layout.wrap + layout.bleed
    pipeline = pipeline.extend({ top: depth, bottom: depth, left: depth, right: depth, extendWith: 'mirror' })
  }
  return pipeline.toColourspace('cmyk').keepIccProfile()
}

/**
 * A print area with a spec: the image box the sizing plan made (`region`, already in sRGB) extended by the wrap
 * band and the bleed, as the layout says. Flat prints and ImageWrap need nothing: the image box is the whole
 * file. MirrorWrap extends by the face's own edge mirrored (libvips's `mirror`: the pixel d outside the face's
 * edge is the face's pixel d inside it, corners mirrored both ways, the bleed continuing the mirror); Black,
 * White and catalogue colours by that colour. The region is first rendered to raw pixels: sharp runs one
 * `extend` per pipeline, and fit's white margins are one already. That buffer (3 bytes per face pixel) and the
 * encoded file are the two full-size buffers a render holds.
 */
async function applyLayout(
  sharp: typeof SharpConstructor,
  region: Sharp,
  layout: PrintLayout,
  encode: Encoder,
): Promise<Sharp> {
  if (layout.edges.kind === 'image') return region
  const { data, info } = await encode(region.raw())
  const depth = layout.wrap + layout.bleed
  const sides = { top: depth, bottom: depth, left: depth, right: depth }
  const extended = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).extend(
    layout.edges.kind === 'mirror'
      ? { ...sides, extendWith: 'mirror' }
      : { ...sides, background: { ...layout.edges.rgb, alpha: 1 } },
  )
  return extended.toColourspace('srgb').withIccProfile('srgb')
}

/** Runs a pipeline to a buffer, sharp's errors turned into the renderer's (ImageTooLarge, UnreadableImage). */
type Encoder = (pipeline: Sharp) => Promise<{ data: Buffer; info: OutputInfo }>

/**
 * Source formats whose decoder reduces while it reads (JPEG by 1/2 to 1/8, WebP to any size): decoding one for a
 * preview costs a fraction of decoding it whole.
 */
const REDUCING_DECODERS: ReadonlySet<string> = new Set(['jpeg', 'webp'])

/**
 * The preview of a CMYK print file as a soft proof: the print file's own steps (plan, layout, the lab's profile
 * and intent) at the preview's size, then back to sRGB through the same profile, as a screen shows the press's
 * colours. The same picture as reducing the file (docs/print-files.md#previews-and-placement measures how close)
 * for less than half the CPU: a CMYK JPEG is 2.2 times the sRGB one, and the decoder reads every byte of it even
 * at 1/8, while the source decoder reduces as it reads. Only for sources whose decoder does.
 */
async function softProof(
  sharp: typeof SharpConstructor,
  request: {
    input: string | Buffer
    decodeOptions: SharpOptions
    source: ImageProbe
    options: PrintFileOptions
    profilePath: string
    /** The size the preview of the file has: the file's, fitted inside DEFAULT_PREVIEW_EDGE. */
    fileSize: { width: number; height: number }
    encode: Encoder
  },
): Promise<{ data: Buffer; info: OutputInfo }> {
  const { source, options, encode } = request
  const planned = { sourceWidth: source.width, sourceHeight: source.height, sizing: options.sizing }
  const area = options.area ?? null
  const reduced = area
    ? planPrintFile({
        ...planned,
        targetWidth: options.width,
        targetHeight: options.height,
        area: { ...area, maxEdge: DEFAULT_PREVIEW_EDGE },
      })
    : planPrintFile({ ...planned, ...targetOf(previewSize(options.width, options.height, DEFAULT_PREVIEW_EDGE)), area })
  const region = applyPlan(sharp(request.input, request.decodeOptions), reduced)
  const geometry = reduced.layout ? await applyLayout(sharp, region, reduced.layout, encode) : region
  const proof = await encode(convertColour(geometry, request.profilePath).tiff({ compression: 'none' }))
  // The size reducing the file gives, which a layout's per-part rounding can miss by a pixel or two.
  const size = request.fileSize
  return encode(screenJpeg(sharp(proof.data).resize({ ...size, fit: 'fill' })))
}

function targetOf(size: { width: number; height: number }): { targetWidth: number; targetHeight: number } {
  return { targetWidth: size.width, targetHeight: size.height }
}

/** Colours of the guide lines drawn on previews of areas with a spec (docs/print-files.md). */
export const GUIDE_LINE_COLOURS = {
  bleed: '#00a0e0',
  wrap: '#2040ff',
  trim: '#e00000',
  safe: '#00a040',
} as const

/**
 * The guide lines of a preview as an SVG the size of the preview: dashed, one pixel wide, on the inside of each
 * boundary so none leaves the image. Bleed: the file's own edge (when there is bleed); wrap: the outer edge of
 * the wrap band (canvases with a band); trim: the face's edge; safe: the safe area inside the face (when given).
 */
export function guideLinesSvg(layout: PrintLayout): string {
  const { face } = layout
  const boxes: [keyof typeof GUIDE_LINE_COLOURS, { left: number; top: number; width: number; height: number }][] = []
  if (layout.bleed > 0) boxes.push(['bleed', { left: 0, top: 0, width: layout.width, height: layout.height }])
  if (layout.wrap > 0) {
    const wrap = { left: layout.bleed, top: layout.bleed, width: face.width + 2 * layout.wrap }
    boxes.push(['wrap', { ...wrap, height: face.height + 2 * layout.wrap }])
  }
  boxes.push(['trim', face])
  const safe = layout.safe
  if (safe > 0 && face.width > 2 * safe && face.height > 2 * safe) {
    const inner = { left: face.left + safe, top: face.top + safe }
    boxes.push(['safe', { ...inner, width: face.width - 2 * safe, height: face.height - 2 * safe }])
  }
  const rects = boxes.map(
    ([name, box]) =>
      `<rect x="${box.left + 0.5}" y="${box.top + 0.5}" width="${Math.max(0, box.width - 1)}" ` +
      `height="${Math.max(0, box.height - 1)}" fill="none" stroke="${GUIDE_LINE_COLOURS[name]}" ` +
      'stroke-width="1" stroke-dasharray="4 3"/>',
  )
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}">` +
    `${rects.join('')}</svg>`
  )
}

interface LaidOutPreviewRequest {
  input: string | Buffer
  decodeOptions: SharpOptions
  source: { width: number; height: number }
  width: number
  height: number
  sizing: SizingMode
  area: PrintAreaRequest
  maxEdge: number
  encode: Encoder
}

/**
 * The preview of a print area with a spec: the print file's layout scaled so its longer side is at most
 * `maxEdge`, made by the print file's own steps (applyPlan, applyLayout), with the guide lines drawn over it.
 */
async function renderLaidOutPreview(
  sharp: typeof SharpConstructor,
  request: LaidOutPreviewRequest,
): Promise<RenderedPreview> {
  const { source, area } = request
  const printFile = { sourceWidth: source.width, sourceHeight: source.height, sizing: request.sizing }
  const size = { targetWidth: request.width, targetHeight: request.height }
  const plan = planPrintFile({ ...printFile, ...size, area })
  const reduced = planPrintFile({ ...printFile, ...size, area: { ...area, maxEdge: request.maxEdge } })
  const layout = reduced.layout as PrintLayout
  const { encode } = request
  const region = applyPlan(sharp(request.input, request.decodeOptions), reduced)
  const image = await applyLayout(sharp, region, layout, encode)
  // The lines in a pipeline of their own, over the finished image: sharp orders a pipeline's steps itself.
  const pixels = (await encode(image.png({ compressionLevel: 1 }))).data
  const { data } = await encode(
    sharp(pixels)
      .composite([{ input: Buffer.from(guideLinesSvg(layout)), left: 0, top: 0 }])
      .toColourspace('srgb')
      .withIccProfile('srgb')
      // Full-resolution colour: 4:2:0 would smear the one-pixel coloured lines into the image around them.
      .jpeg({ quality: THUMBNAIL_JPEG_QUALITY, chromaSubsampling: '4:4:4' }),
  )
  return { data, width: layout.width, height: layout.height, source, plan, layout, plain: pixels }
}

/**
 * The lab's colour, after the geometry: applyPlan leaves sRGB with its profile (an sRGB lab's print file, byte for
 * byte as before); a CMYK profile replaces that output profile, so libvips converts the sRGB pixels through it
 * (lcms, in the same pipeline, strip by strip) and embeds it. sharp fixes the conversion's intent to perceptual
 * without compensation, so `profilePath` is the profile file that bakes the lab's intent into its perceptual table
 * (domain/colour-profiles.ts).
 */
function convertColour(pipeline: Sharp, profilePath: string | null): Sharp {
  return profilePath === null ? pipeline : pipeline.withIccProfile(profilePath)
}

/**
 * The print resolution in the file's metadata: JFIF density (JPEG), XResolution/YResolution in inches (TIFF), pHYs
 * (PNG). sharp's withDensity also keeps the source's EXIF; `withExif({})` drops every field of it, so the file
 * carries a minimal EXIF block of its own (the resolution and an upright orientation) and nothing of the camera's.
 */
function withResolution(pipeline: Sharp, dpi: number | undefined): Sharp {
  return dpi === undefined ? pipeline : pipeline.withDensity(dpi).withExif({})
}

function sha256Of(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

/** The versions a manifest records: another sharp or libvips may resample or encode differently. */
function rendererVersions(sharp: typeof SharpConstructor): { sharp: string; libvips: string } {
  return { sharp: sharp.versions.sharp ?? 'unknown', libvips: sharp.versions.vips }
}

/** An upright sRGB JPEG for screens whose longer edge is at most `maxEdge`, never enlarged. */
function reducedJpeg(pipeline: Sharp, maxEdge: number): Sharp {
  return screenJpeg(pipeline.resize({ width: maxEdge, height: maxEdge, fit: 'inside', withoutEnlargement: true }))
}

/** An image for screens: transparency on white, sRGB (a CMYK image through its embedded profile), a JPEG. */
function screenJpeg(pipeline: Sharp): Sharp {
  return pipeline
    .flatten({ background: WHITE })
    .toColourspace('srgb')
    .withIccProfile('srgb')
    .jpeg({ quality: THUMBNAIL_JPEG_QUALITY })
}

function isRasterFormat(format: string): format is RasterPrintFileFormat {
  return format === 'jpeg' || format === 'png' || format === 'tiff'
}

function encodeAs(pipeline: Sharp, format: RasterPrintFileFormat): Sharp {
  switch (format) {
    case 'jpeg':
      // No Huffman-table optimisation: it makes libjpeg buffer every DCT coefficient of the whole image before
      // writing (2 bytes x 3 channels per pixel: 260 MB for a 6000 x 7200 file); measured 816 vs 337 MiB peak
      // RSS and 3.5 vs 1.6 s for that file, which is only 5% smaller (docs/print-files.md, "Formats").
      // No mozjpeg trellis quantisation either: slower still, for a size nobody pays for.
      return pipeline.jpeg({
        quality: PRINT_JPEG_QUALITY,
        chromaSubsampling: '4:4:4',
        optimiseCoding: false,
        mozjpeg: false,
      })
    case 'png':
      return pipeline.png({ compressionLevel: 6, adaptiveFiltering: false })
    case 'tiff':
      // LZW with horizontal prediction: lossless, read by every RIP, about half the size of uncompressed.
      return pipeline.tiff({ compression: 'lzw', predictor: 'horizontal' })
  }
}

/** Maps sharp's errors to the renderer's; anything that is not about the image itself is passed on as it is. */
function classifyError(error: unknown, limit: number): Error {
  const message = error instanceof Error ? error.message : String(error)
  if (/exceeds pixel limit/i.test(message)) return new ImageTooLargeError(null, null, limit, { cause: error })
  // A missing file is the caller's (blob store's) problem, not the customer's image: keep it retryable.
  if (/^Input file is missing/.test(message)) return error instanceof Error ? error : new Error(message)
  return new UnreadableImageError(message, { cause: error })
}

interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>
  state(): { running: number; waiting: number }
}

/** At most `max` tasks at once, the rest in arrival order. */
function createLimiter(max: number): Limiter {
  let running = 0
  const waiting: (() => void)[] = []
  return {
    async run(task) {
      if (running < max) running++
      else await new Promise<void>((resolve) => waiting.push(resolve))
      try {
        return await task()
      } finally {
        // Hand the slot straight to the next task, so `running` never exceeds `max`.
        const next = waiting.shift()
        if (next) next()
        else running--
      }
    },
    state: () => ({ running, waiting: waiting.length }),
  }
}
