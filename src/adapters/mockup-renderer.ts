// Product mockups drawn with sharp (libvips) from a print file's preview, following a plan made from the catalogue
// (domain/mockups.ts): a framed print in its frame colour (with its mount), a canvas with its wrapped edges, a
// photo print with a white border and a shadow, a book's cover beside its spine. JPEG, at most MAX_MOCKUP_EDGE
// on the longer side. docs/api.md#mockups describes what each looks like.
import type { Sharp, default as SharpConstructor } from 'sharp'
import { BACKGROUND_COLOUR, MAT_COLOUR, MAX_MOCKUP_EDGE, type MockupPlan, type Rgb } from '../domain/mockups.ts'
import type { PixelBox } from '../domain/print-geometry.ts'
import { loadSharp, THUMBNAIL_JPEG_QUALITY } from './image-renderer.ts'

export interface MockupImages {
  /** The preview of the print area the mockup is for (a JPEG from ImageRenderer.renderPreview). */
  preview: Buffer
  /** Books: the cover's and the spine's previews when the request has them, and the cover's size otherwise. */
  book?: { cover: Buffer | null; spine: Buffer | null; coverSize: { width: number; height: number } }
}

export interface RenderedMockup {
  data: Buffer
  width: number
  height: number
}

/** sharp, loaded by the first mockup (see loadSharp). */
let sharp: typeof SharpConstructor

const WHITE: Rgb = { r: 255, g: 255, b: 255 }
/** How much darker a canvas's side and bottom edges are drawn than they print, so they read as sides. */
const SIDE_SHADE = 0.78
const BOTTOM_SHADE = 0.62
const SPINE_SHADE = 0.85

const solid = (width: number, height: number, colour: Rgb): Sharp =>
  sharp({ create: { width, height, channels: 3, background: colour } })

const raw = async (image: Sharp) => image.png().toBuffer()

function extractFrom(preview: Buffer, box: PixelBox): Sharp {
  return sharp(preview).extract(box)
}

/** A canvas edge strip as printed (wrap band, mirror or colour), then shaded. */
async function canvasEdge(
  preview: Buffer,
  size: { width: number; height: number },
  plan: Extract<MockupPlan, { kind: 'canvas' }>,
  side: 'right' | 'bottom',
): Promise<Buffer> {
  const { front, depth, wrap } = plan
  const [width, height] = side === 'right' ? [depth, front.height] : [front.width, depth]
  const shade = side === 'right' ? SIDE_SHADE : BOTTOM_SHADE
  const beyond =
    side === 'right'
      ? {
          left: front.left + front.width,
          top: front.top,
          width: size.width - front.left - front.width,
          height: front.height,
        }
      : {
          left: front.left,
          top: front.top + front.height,
          width: front.width,
          height: size.height - front.top - front.height,
        }
  let strip: Sharp
  if (wrap.kind === 'colour') {
    strip = solid(width, height, wrap.colour)
  } else if (wrap.kind === 'image' && beyond.width > 0 && beyond.height > 0) {
    // The print file carries the sides around the front: the band next to the front is what folds round.
    const band =
      side === 'right'
        ? { ...beyond, width: Math.min(depth, beyond.width) }
        : { ...beyond, height: Math.min(depth, beyond.height) }
    strip = sharp(await raw(extractFrom(preview, band))).resize({ width, height, fit: 'fill' })
  } else {
    // Mirror wrap (and an image wrap without sides to show): the front's own edge, mirrored.
    const band =
      side === 'right'
        ? {
            left: front.left + front.width - Math.min(depth, front.width),
            top: front.top,
            width: Math.min(depth, front.width),
            height: front.height,
          }
        : {
            left: front.left,
            top: front.top + front.height - Math.min(depth, front.height),
            width: front.width,
            height: Math.min(depth, front.height),
          }
    const mirrored = extractFrom(preview, band)
    strip = sharp(await raw(side === 'right' ? mirrored.flop() : mirrored.flip())).resize({
      width,
      height,
      fit: 'fill',
    })
  }
  return raw(strip.linear(shade, 0))
}

/** A soft shadow the size of `width` x `height`, blurred over `blur` pixels around it. */
async function shadow(width: number, height: number, blur: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.35 } } })
    .extend({ top: blur, bottom: blur, left: blur, right: blur, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .blur(Math.max(0.3, blur / 2))
    .png()
    .toBuffer()
}

async function finish(image: Buffer): Promise<RenderedMockup> {
  const { data, info } = await sharp(image)
    .resize({ width: MAX_MOCKUP_EDGE, height: MAX_MOCKUP_EDGE, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: THUMBNAIL_JPEG_QUALITY })
    .toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height }
}

export async function renderMockup(plan: MockupPlan, images: MockupImages): Promise<RenderedMockup> {
  sharp = await loadSharp()
  const meta = await sharp(images.preview).metadata()
  const size = { width: meta.width ?? 1, height: meta.height ?? 1 }

  switch (plan.kind) {
    case 'framedPrint': {
      const { front, frameWidth, mat } = plan
      let picture = extractFrom(images.preview, front)
      if (mat)
        picture = sharp(
          await raw(picture.extend({ top: mat.y, bottom: mat.y, left: mat.x, right: mat.x, background: MAT_COLOUR })),
        )
      const framed = picture.extend({
        top: frameWidth,
        bottom: frameWidth,
        left: frameWidth,
        right: frameWidth,
        background: plan.frameColour.rgb,
      })
      const margin = Math.max(8, Math.round(frameWidth / 2))
      return finish(
        await raw(
          sharp(await raw(framed)).extend({
            top: margin,
            bottom: margin,
            left: margin,
            right: margin,
            background: BACKGROUND_COLOUR,
          }),
        ),
      )
    }

    case 'canvas': {
      const { front, depth } = plan
      const margin = Math.max(8, Math.round(depth / 2))
      const [face, right, bottom] = await Promise.all([
        raw(extractFrom(images.preview, front)),
        canvasEdge(images.preview, size, plan, 'right'),
        canvasEdge(images.preview, size, plan, 'bottom'),
      ])
      const canvas = solid(front.width + depth + 2 * margin, front.height + depth + 2 * margin, BACKGROUND_COLOUR)
      return finish(
        await raw(
          canvas.composite([
            { input: face, left: margin, top: margin },
            { input: right, left: margin + front.width, top: margin },
            { input: bottom, left: margin, top: margin + front.height },
          ]),
        ),
      )
    }

    case 'photoPrint': {
      const { border, front } = plan
      // The finished print: its trim, the bleed round it cut off.
      const trimmed = await raw(extractFrom(images.preview, front))
      const print = await raw(
        sharp(trimmed).extend({ top: border, bottom: border, left: border, right: border, background: WHITE }),
      )
      const printWidth = front.width + 2 * border
      const printHeight = front.height + 2 * border
      const blur = Math.max(4, border)
      const margin = 2 * blur
      const background = solid(printWidth + 2 * margin, printHeight + 2 * margin, BACKGROUND_COLOUR)
      return finish(
        await raw(
          background.composite([
            {
              input: await shadow(printWidth, printHeight, blur),
              left: margin - blur + blur / 2,
              top: margin - blur + blur / 2,
            },
            { input: print, left: margin, top: margin },
          ]),
        ),
      )
    }

    case 'book': {
      const book = images.book ?? { cover: images.preview, spine: null, coverSize: size }
      const coverBuffer = book.cover ?? (await raw(solid(book.coverSize.width, book.coverSize.height, WHITE)))
      const coverMeta = await sharp(coverBuffer).metadata()
      const coverWidth = coverMeta.width ?? 1
      const coverHeight = coverMeta.height ?? 1
      const spineWidth = Math.max(2, Math.round(plan.spineShare * coverWidth))
      // Without a spine image the spine takes the cover's average colour, as a printed case would.
      const spineSource = book.spine
        ? sharp(book.spine).resize({ width: spineWidth, height: coverHeight, fit: 'fill' })
        : solid(spineWidth, coverHeight, await averageColour(coverBuffer))
      const spine = await raw(spineSource.linear(SPINE_SHADE, 0))
      const hinge = await raw(solid(Math.max(1, Math.round(spineWidth / 12)), coverHeight, { r: 40, g: 40, b: 40 }))
      const margin = Math.max(12, Math.round(coverWidth * 0.04))
      const background = solid(spineWidth + coverWidth + 2 * margin, coverHeight + 2 * margin, BACKGROUND_COLOUR)
      return finish(
        await raw(
          background.composite([
            { input: spine, left: margin, top: margin },
            { input: coverBuffer, left: margin + spineWidth, top: margin },
            { input: hinge, left: margin + spineWidth, top: margin },
          ]),
        ),
      )
    }
  }
}

async function averageColour(image: Buffer): Promise<Rgb> {
  const { channels } = await sharp(image).stats()
  const [r, g, b] = channels.map((channel) => Math.round(channel.mean))
  return { r: r ?? 128, g: g ?? 128, b: b ?? 128 }
}
