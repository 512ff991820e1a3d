import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import sharp from 'sharp'
import { tier } from '../../test/support/tiers.ts'
import { planPrintFile } from '../domain/print-geometry.ts'
import { SIZING_MODES, type SizingMode } from '../domain/shipping-methods.ts'
import {
  createImageRenderer,
  DEFAULT_MAX_INPUT_PIXELS,
  ImageTooLargeError,
  type RasterPrintFileFormat,
  UnreadableImageError,
} from './image-renderer.ts'

tier('pure')

// Every test image is generated here: solid blocks of colour, so a sampled pixel shows which part of the
// source ended up where. JPEG output is compared with a tolerance; blocks are sampled away from their edges.

type Rgb = readonly [number, number, number]
const RED: Rgb = [255, 0, 0]
const GREEN: Rgb = [0, 255, 0]
const BLUE: Rgb = [0, 0, 255]
const YELLOW: Rgb = [255, 255, 0]
const WHITE: Rgb = [255, 255, 255]
const TOLERANCE = 40

const renderer = createImageRenderer()

let tempDir = ''
before(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'printroute-renderer-'))
})
after(async () => {
  await rm(tempDir, { recursive: true, force: true })
})

/** An image made of rectangles of solid colour; each rectangle is [left, top, width, height, colour]. */
async function blocks(
  width: number,
  height: number,
  rects: [number, number, number, number, Rgb][],
  format: 'png' | 'jpeg' = 'png',
): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3)
  for (const [left, top, w, h, [r, g, b]] of rects) {
    for (let y = top; y < top + h; y++) {
      for (let x = left; x < left + w; x++) raw.set([r, g, b], (y * width + x) * 3)
    }
  }
  const image = sharp(raw, { raw: { width, height, channels: 3 } })
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 95 }).toBuffer()
}

/** Left half `left`, right half `right`. */
const halvesLeftRight = (width: number, height: number, left: Rgb, right: Rgb) =>
  blocks(width, height, [
    [0, 0, width / 2, height, left],
    [width / 2, 0, width / 2, height, right],
  ])

/** Top half `top`, bottom half `bottom`. */
const halvesTopBottom = (width: number, height: number, top: Rgb, bottom: Rgb) =>
  blocks(width, height, [
    [0, 0, width, height / 2, top],
    [0, height / 2, width, height / 2, bottom],
  ])

/** Red top-left, green top-right, blue bottom-left, yellow bottom-right. */
const quadrants = (width: number, height: number) =>
  blocks(width, height, [
    [0, 0, width / 2, height / 2, RED],
    [width / 2, 0, width / 2, height / 2, GREEN],
    [0, height / 2, width / 2, height / 2, BLUE],
    [width / 2, height / 2, width / 2, height / 2, YELLOW],
  ])

interface Pixels {
  width: number
  height: number
  at(x: number, y: number): Rgb
}

async function pixels(image: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  return {
    width: info.width,
    height: info.height,
    at(x, y) {
      const i = (Math.floor(y) * info.width + Math.floor(x)) * info.channels
      return [data[i]!, data[i + 1]!, data[i + 2]!]
    },
  }
}

function assertColour(actual: Rgb, expected: Rgb, where: string): void {
  const close = actual.every((value, i) => Math.abs(value - expected[i]!) <= TOLERANCE)
  assert.ok(close, `${where}: expected ~${expected.join(',')}, got ${actual.join(',')}`)
}

function render(input: string | Buffer, width: number, height: number, sizing: SizingMode, format = 'jpeg') {
  return renderer.renderPrintFile(input, { width, height, sizing, format: format as RasterPrintFileFormat })
}

/** The name of the ICC profile's `desc` tag (a v4 `mluc` or v2 `desc` text). */
function iccDescription(icc: Buffer): string {
  const tagCount = icc.readUInt32BE(128)
  for (let i = 0; i < tagCount; i++) {
    const entry = 132 + i * 12
    if (icc.toString('latin1', entry, entry + 4) !== 'desc') continue
    const offset = icc.readUInt32BE(entry + 4)
    const type = icc.toString('latin1', offset, offset + 4)
    if (type === 'desc') return icc.toString('latin1', offset + 12, offset + 12 + icc.readUInt32BE(offset + 8) - 1)
    const length = icc.readUInt32BE(offset + 20)
    const start = offset + icc.readUInt32BE(offset + 24)
    return icc
      .subarray(start, start + length)
      .swap16()
      .toString('utf16le')
  }
  return ''
}

// ---------------------------------------------------------------------------------------------------------
// Geometry: which part of the source lands where
// ---------------------------------------------------------------------------------------------------------

test('fillPrintArea crops the sides of a wide source equally', async () => {
  // 800x400: red | green (the middle 400) | blue. Square 400x400 area: only the green middle remains.
  const source = await blocks(800, 400, [
    [0, 0, 200, 400, RED],
    [200, 0, 400, 400, GREEN],
    [600, 0, 200, 400, BLUE],
  ])
  const result = await render(source, 400, 400, 'fillPrintArea')
  assert.deepEqual([result.width, result.height, result.rotated, result.format], [400, 400, false, 'jpeg'])
  const out = await pixels(result.data)
  assert.deepEqual([out.width, out.height], [400, 400])
  for (const [x, y] of [
    [4, 200],
    [200, 200],
    [395, 200],
    [4, 4],
    [395, 395],
  ] as const) {
    assertColour(out.at(x, y), GREEN, `(${x},${y})`)
  }
})

test('fillPrintArea crops the top and bottom of a tall source equally', async () => {
  // 400x800: red / green (the middle 400) / blue, into 200x200: scaled to 200x400, 100 cut top and bottom.
  const source = await blocks(400, 800, [
    [0, 0, 400, 200, RED],
    [0, 200, 400, 400, GREEN],
    [0, 600, 400, 200, BLUE],
  ])
  const result = await render(source, 200, 200, 'fillPrintArea')
  const out = await pixels(result.data)
  assert.equal(result.rotated, false)
  for (const y of [3, 100, 196]) assertColour(out.at(100, y), GREEN, `row ${y}`)
})

test('a landscape source turns clockwise into a portrait area: its left edge becomes the top', async () => {
  // 600x400 red | blue, turned 400x600 red over blue; 200x300 has that exact shape, so nothing is cut.
  const source = await halvesLeftRight(600, 400, RED, BLUE)
  for (const sizing of SIZING_MODES) {
    const result = await render(source, 200, 300, sizing)
    assert.deepEqual([result.width, result.height, result.rotated], [200, 300, true], sizing)
    const out = await pixels(result.data)
    assertColour(out.at(100, 10), RED, `${sizing} top`)
    assertColour(out.at(100, 290), BLUE, `${sizing} bottom`)
    assertColour(out.at(3, 75), RED, `${sizing} top-left`)
  }
})

test('a portrait source turns clockwise into a landscape area: its top edge becomes the right', async () => {
  const source = await halvesTopBottom(400, 600, RED, BLUE)
  const result = await render(source, 300, 200, 'fillPrintArea')
  assert.deepEqual([result.width, result.height, result.rotated], [300, 200, true])
  const out = await pixels(result.data)
  assertColour(out.at(10, 100), BLUE, 'left')
  assertColour(out.at(290, 100), RED, 'right')
})

test('fitPrintArea centres the image on white, after turning it when that helps', async () => {
  // 600x300 red | blue into portrait 200x300: turned 300x600 (red over blue), fitted 150x300, 25 white each side.
  const source = await halvesLeftRight(600, 300, RED, BLUE)
  const result = await render(source, 200, 300, 'fitPrintArea')
  assert.deepEqual([result.width, result.height, result.rotated], [200, 300, true])
  const out = await pixels(result.data)
  for (const x of [2, 20, 180, 197]) assertColour(out.at(x, 150), WHITE, `margin column ${x}`)
  assertColour(out.at(100, 10), RED, 'top')
  assertColour(out.at(100, 290), BLUE, 'bottom')
  assertColour(out.at(30, 10), RED, 'just inside the left margin')
})

test('fitPrintArea leaves white bands above and below a wide source of the same orientation', async () => {
  const source = await halvesLeftRight(600, 200, RED, BLUE)
  const result = await render(source, 300, 200, 'fitPrintArea', 'png')
  assert.equal(result.rotated, false)
  const out = await pixels(result.data)
  // 300x100 image, 50 white rows above and below: exact colours, PNG is lossless.
  assert.deepEqual(out.at(150, 0), WHITE)
  assert.deepEqual(out.at(150, 48), WHITE)
  assert.deepEqual(out.at(150, 152), WHITE)
  assert.deepEqual(out.at(150, 199), WHITE)
  assert.deepEqual(out.at(40, 100), RED)
  assert.deepEqual(out.at(260, 100), BLUE)
})

test('stretchToPrintArea fills the area exactly, distorting, with nothing cut', async () => {
  // 600x200 into a square: no turn (square areas never turn); both halves stay, squashed.
  const source = await halvesLeftRight(600, 200, RED, BLUE)
  const result = await render(source, 300, 300, 'stretchToPrintArea')
  assert.equal(result.rotated, false)
  const out = await pixels(result.data)
  assertColour(out.at(10, 5), RED, 'top-left')
  assertColour(out.at(10, 295), RED, 'bottom-left')
  assertColour(out.at(290, 150), BLUE, 'right')
})

test('a square print area never turns the image', async () => {
  for (const [w, h] of [
    [600, 400],
    [400, 600],
  ]) {
    const source = await quadrants(w!, h!)
    for (const sizing of SIZING_MODES) {
      const result = await render(source, 300, 300, sizing)
      assert.equal(result.rotated, false, `${w}x${h} ${sizing}`)
      const out = await pixels(result.data)
      // Upright: red (top-left quadrant) stays top-left; fit leaves a white corner on a non-square source.
      assertColour(out.at(100, 100), RED, `${w}x${h} ${sizing}`)
      assertColour(out.at(20, 20), sizing === 'fitPrintArea' ? WHITE : RED, `${w}x${h} ${sizing} corner`)
    }
  }
})

test('every sizing, portrait and landscape sources into portrait and landscape areas, matches the plan', async () => {
  // An independent check of the applied plan: map sampled output pixels back to the source through the plan
  // (crop or margins, resize, quarter turn) and compare with the source quadrant's colour there.
  const sources = [
    { width: 900, height: 400 },
    { width: 400, height: 900 },
  ]
  const areas = [
    { width: 300, height: 200 },
    { width: 200, height: 300 },
  ]
  for (const src of sources) {
    const source = await quadrants(src.width, src.height)
    for (const area of areas) {
      for (const sizing of SIZING_MODES) {
        const label = `${src.width}x${src.height} -> ${area.width}x${area.height} ${sizing}`
        const plan = planPrintFile({
          sourceWidth: src.width,
          sourceHeight: src.height,
          targetWidth: area.width,
          targetHeight: area.height,
          sizing,
        })
        const sourceLandscape = src.width > src.height
        const areaLandscape = area.width > area.height
        assert.equal(plan.rotate === 90, sourceLandscape !== areaLandscape, label)

        const result = await render(source, area.width, area.height, sizing)
        assert.deepEqual([result.width, result.height, result.rotated], [area.width, area.height, plan.rotate === 90])
        const out = await pixels(result.data)
        let checked = 0
        for (let y = 2; y < area.height; y += 7) {
          for (let x = 2; x < area.width; x += 7) {
            const expected = expectedColour(plan, src, x + 0.5, y + 0.5)
            if (expected === null) continue
            assertColour(out.at(x, y), expected, `${label} at (${x},${y})`)
            checked++
          }
        }
        assert.ok(checked > 200, `${label}: only ${checked} pixels away from edges`)
      }
    }
  }
})

/** The quadrant colour (or margin white) expected at output point (x, y); null near any edge. */
function expectedColour(
  plan: ReturnType<typeof planPrintFile>,
  src: { width: number; height: number },
  x: number,
  y: number,
): Rgb | null {
  const EDGE = 4
  let rx = x
  let ry = y
  if (plan.margins) {
    rx = x - plan.margins.left
    ry = y - plan.margins.top
    const inside = rx >= 0 && ry >= 0 && rx < plan.resize.width && ry < plan.resize.height
    const nearEdge =
      Math.abs(rx) < EDGE ||
      Math.abs(ry) < EDGE ||
      Math.abs(rx - plan.resize.width) < EDGE ||
      Math.abs(ry - plan.resize.height) < EDGE
    if (nearEdge) return null
    if (!inside) return WHITE
  }
  if (plan.crop) {
    rx = x + plan.crop.left
    ry = y + plan.crop.top
  }
  // Into the turned source's frame, then back to the upright source (clockwise turn: x' = H - y, y' = x).
  const turnedWidth = plan.rotate ? src.height : src.width
  const turnedHeight = plan.rotate ? src.width : src.height
  const tx = (rx * turnedWidth) / plan.resize.width
  const ty = (ry * turnedHeight) / plan.resize.height
  const sx = plan.rotate ? ty : tx
  const sy = plan.rotate ? src.height - tx : ty
  const scale = Math.max(turnedWidth / plan.resize.width, turnedHeight / plan.resize.height)
  if (Math.abs(sx - src.width / 2) < EDGE * scale || Math.abs(sy - src.height / 2) < EDGE * scale) return null
  const left = sx < src.width / 2
  const top = sy < src.height / 2
  return top ? (left ? RED : GREEN) : left ? BLUE : YELLOW
}

// ---------------------------------------------------------------------------------------------------------
// Orientation, colour, formats
// ---------------------------------------------------------------------------------------------------------

test('an EXIF-rotated JPEG is treated as it is displayed (upright after orientation)', async () => {
  // Stored 600x400 red | blue with orientation 6 (display turned clockwise): shown as 400x600 red over blue.
  const stored = await halvesLeftRight(600, 400, RED, BLUE)
  const exif = await sharp(stored).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer()
  assert.equal((await sharp(exif).metadata()).orientation, 6)
  assert.deepEqual(await renderer.probe(exif), { width: 400, height: 600, format: 'jpeg' })

  // Square area: nothing turns; fill cuts top and bottom of the upright portrait image.
  const square = await render(exif, 300, 300, 'fillPrintArea')
  assert.equal(square.rotated, false)
  let out = await pixels(square.data)
  assertColour(out.at(150, 20), RED, 'square top')
  assertColour(out.at(150, 280), BLUE, 'square bottom')

  // Portrait area: upright already, so no turn (ignoring the tag would have turned the stored landscape).
  const portrait = await render(exif, 200, 300, 'fillPrintArea')
  assert.equal(portrait.rotated, false)
  out = await pixels(portrait.data)
  assertColour(out.at(100, 10), RED, 'portrait top')
  assertColour(out.at(100, 290), BLUE, 'portrait bottom')

  // Landscape area: the upright portrait turns clockwise, red (its top) to the right.
  const landscape = await render(exif, 300, 200, 'fillPrintArea')
  assert.equal(landscape.rotated, true)
  out = await pixels(landscape.data)
  assertColour(out.at(10, 100), BLUE, 'landscape left')
  assertColour(out.at(290, 100), RED, 'landscape right')

  // The output carries no orientation tag, so no viewer or RIP turns it again.
  assert.equal((await sharp(landscape.data).metadata()).orientation, undefined)
})

test('output is sRGB with an embedded sRGB ICC profile, JPEG at full chroma resolution', async () => {
  const result = await render(await quadrants(400, 400), 200, 200, 'fillPrintArea')
  const metadata = await sharp(result.data).metadata()
  assert.equal(metadata.format, 'jpeg')
  assert.equal(metadata.space, 'srgb')
  assert.equal(result.colourSpace, metadata.space, "the colour space reported is the file's")
  assert.equal(metadata.channels, 3)
  assert.equal(metadata.chromaSubsampling, '4:4:4')
  assert.ok(metadata.icc, 'ICC profile embedded')
  assert.match(iccDescription(metadata.icc), /sRGB/)
})

test('CMYK input is converted to sRGB', async () => {
  const cmyk = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .toColourspace('cmyk')
    .jpeg({ quality: 95 })
    .toBuffer()
  const input = await sharp(cmyk).metadata()
  assert.deepEqual([input.space, input.channels], ['cmyk', 4])

  const result = await render(cmyk, 150, 100, 'fillPrintArea')
  const metadata = await sharp(result.data).metadata()
  assert.deepEqual([metadata.space, metadata.channels], ['srgb', 3])
  assert.equal(result.colourSpace, 'srgb', 'what was written, not what came in')
  assert.match(iccDescription(metadata.icc!), /sRGB/)
  const [r, g, b] = (await pixels(result.data)).at(75, 50)
  assert.ok(r > 180 && g < 70 && b < 70, `still red: ${r},${g},${b}`)
})

test('an image with another embedded profile (Display P3) is converted to sRGB', async () => {
  const p3 = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 200, g: 60, b: 60 } } })
    .withIccProfile('p3')
    .png()
    .toBuffer()
  assert.match(iccDescription((await sharp(p3).metadata()).icc!), /P3/)
  const result = await render(p3, 150, 100, 'stretchToPrintArea', 'png')
  const metadata = await sharp(result.data).metadata()
  assert.match(iccDescription(metadata.icc!), /sRGB/)
})

test('PNG output when the lab asks for PNG, TIFF when it asks for TIFF', async () => {
  const source = await quadrants(400, 300)
  const png = await render(source, 200, 150, 'fillPrintArea', 'png')
  assert.equal(png.format, 'png')
  assert.deepEqual([...png.data.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  let metadata = await sharp(png.data).metadata()
  assert.deepEqual([metadata.format, metadata.space, metadata.channels, metadata.hasAlpha], ['png', 'srgb', 3, false])
  assert.match(iccDescription(metadata.icc!), /sRGB/)
  // Lossless: exact colours.
  assert.deepEqual((await pixels(png.data)).at(20, 20), RED)

  const tiff = await render(source, 200, 150, 'fillPrintArea', 'tiff')
  assert.equal(tiff.format, 'tiff')
  metadata = await sharp(tiff.data).metadata()
  assert.deepEqual([metadata.format, metadata.space, metadata.width, metadata.height], ['tiff', 'srgb', 200, 150])
  assert.match(iccDescription(metadata.icc!), /sRGB/)
})

test('transparent parts print as white', async () => {
  const transparent = await sharp({
    create: { width: 200, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
  })
    .composite([{ input: await blocks(100, 100, [[0, 0, 100, 100, BLUE]]), left: 50, top: 50 }])
    .png()
    .toBuffer()
  const result = await render(transparent, 200, 200, 'fillPrintArea')
  const out = await pixels(result.data)
  assertColour(out.at(10, 10), WHITE, 'transparent corner')
  assertColour(out.at(100, 100), BLUE, 'opaque centre')
})

test('a file path works as input, like a buffer', async () => {
  const path = join(tempDir, 'photo.jpg')
  await writeFile(path, await blocks(600, 400, [[0, 0, 600, 400, GREEN]], 'jpeg'))
  const result = await render(path, 300, 200, 'fillPrintArea')
  assertColour((await pixels(result.data)).at(150, 100), GREEN, 'centre')
  assert.deepEqual(await renderer.probe(path), { width: 600, height: 400, format: 'jpeg' })
  // A missing file is not the image's fault: the plain error comes through (the job retries).
  await assert.rejects(render(join(tempDir, 'missing.jpg'), 300, 200, 'fillPrintArea'), (error: Error) => {
    assert.ok(!(error instanceof UnreadableImageError))
    assert.match(error.message, /missing/)
    return true
  })
})

test('a PDF print file is not rendered here', async () => {
  await assert.rejects(render(await quadrants(100, 100), 100, 100, 'fillPrintArea', 'pdf'), RangeError)
})

// ---------------------------------------------------------------------------------------------------------
// Refusals and limits
// ---------------------------------------------------------------------------------------------------------

test('inputs over the pixel limit are refused with ImageTooLargeError before decoding', async () => {
  const small = createImageRenderer({ maxInputPixels: 10_000 })
  const source = await quadrants(200, 100) // 20,000 pixels
  await assert.rejects(
    small.renderPrintFile(source, { width: 50, height: 50, sizing: 'fillPrintArea', format: 'jpeg' }),
    (error) => {
      assert.ok(error instanceof ImageTooLargeError)
      assert.deepEqual([error.code, error.width, error.height, error.limit], ['ImageTooLarge', 200, 100, 10_000])
      assert.match(error.message, /200 x 100 = 20000 pixels exceeds the limit of 10000/)
      return true
    },
  )
  await assert.rejects(small.renderThumbnail(source), ImageTooLargeError)
  // Probing reads the header only, so it still reports the size.
  assert.deepEqual(await small.probe(source), { width: 200, height: 100, format: 'png' })
  // Exactly at the limit is accepted.
  const atLimit = await small.renderPrintFile(await quadrants(100, 100), {
    width: 50,
    height: 50,
    sizing: 'fitPrintArea',
    format: 'jpeg',
  })
  assert.equal(atLimit.width, 50)
  assert.equal(DEFAULT_MAX_INPUT_PIXELS, 150_000_000)
  // The renderer keeps working after a refusal.
  assert.equal(small.queue().running, 0)
})

test('a buffer that is not an image gives UnreadableImageError, in every method', async () => {
  const notAnImage = Buffer.from('this is a text file, not a photo\n'.repeat(20))
  await assert.rejects(render(notAnImage, 100, 100, 'fillPrintArea'), (error) => {
    assert.ok(error instanceof UnreadableImageError)
    assert.equal(error.code, 'UnreadableImage')
    return true
  })
  await assert.rejects(renderer.renderThumbnail(notAnImage), UnreadableImageError)
  await assert.rejects(renderer.probe(notAnImage), UnreadableImageError)
  await assert.rejects(render(Buffer.alloc(0), 100, 100, 'fillPrintArea'), UnreadableImageError)
})

test('a truncated JPEG and an SVG are refused as unreadable', async () => {
  const jpeg = await sharp({
    create: {
      width: 400,
      height: 400,
      channels: 3,
      background: 'grey',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .jpeg()
    .toBuffer()
  await assert.rejects(render(jpeg.subarray(0, jpeg.length / 2), 100, 100, 'fillPrintArea'), UnreadableImageError)
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100"/></svg>',
  )
  await assert.rejects(render(svg, 100, 100, 'fillPrintArea'), /format svg is not accepted/)
})

test('at most `concurrency` renders run at once; the rest wait their turn', async () => {
  const limited = createImageRenderer({ concurrency: 2 })
  const source = await quadrants(800, 600)
  let maxRunning = 0
  const timer = setInterval(() => {
    maxRunning = Math.max(maxRunning, limited.queue().running)
  }, 1)
  const renders = Array.from({ length: 5 }, () =>
    limited.renderPrintFile(source, { width: 400, height: 300, sizing: 'fillPrintArea', format: 'jpeg' }),
  )
  assert.deepEqual(limited.queue(), { running: 2, waiting: 3 })
  // A failing render releases its slot too.
  const failing = limited.renderPrintFile(Buffer.from('nope'), {
    width: 1,
    height: 1,
    sizing: 'fillPrintArea',
    format: 'jpeg',
  })
  await assert.rejects(failing, UnreadableImageError)
  const results = await Promise.all(renders)
  clearInterval(timer)
  assert.equal(results.length, 5)
  assert.ok(maxRunning <= 2, `saw ${maxRunning} running`)
  assert.deepEqual(limited.queue(), { running: 0, waiting: 0 })
  assert.throws(() => createImageRenderer({ concurrency: 0 }), RangeError)
})

test('thumbnails are JPEGs no larger than the requested edge, upright, never enlarged', async () => {
  const stored = await halvesLeftRight(1200, 800, RED, BLUE)
  const exif = await sharp(stored).jpeg().withMetadata({ orientation: 6 }).toBuffer()
  const thumbnail = await renderer.renderThumbnail(exif)
  const metadata = await sharp(thumbnail).metadata()
  assert.deepEqual([metadata.format, metadata.width, metadata.height], ['jpeg', 267, 400])
  const out = await pixels(thumbnail)
  assertColour(out.at(133, 20), RED, 'thumbnail top')

  const small = await renderer.renderThumbnail(await quadrants(100, 60), 400)
  assert.deepEqual(
    await sharp(small)
      .metadata()
      .then((m) => [m.width, m.height]),
    [100, 60],
  )
  const tiny = await renderer.renderThumbnail(await quadrants(1000, 500), 64)
  assert.deepEqual(
    await sharp(tiny)
      .metadata()
      .then((m) => [m.width, m.height]),
    [64, 32],
  )
})

test('a print file comes with a preview: a JPEG of the rendered pixels, at most 800 px, never enlarged', async () => {
  // 1200x800 red | blue turned into a 1000x1500 TIFF (red over blue): the preview is the print file reduced,
  // 533x800, in the print area's shape, with the turn and the crop already applied.
  const source = await halvesLeftRight(1200, 800, RED, BLUE)
  const result = await render(source, 1000, 1500, 'fillPrintArea', 'tiff')
  const metadata = await sharp(result.preview).metadata()
  assert.deepEqual([metadata.format, metadata.width, metadata.height], ['jpeg', 533, 800])
  const out = await pixels(result.preview)
  assertColour(out.at(266, 20), RED, 'preview top')
  assertColour(out.at(266, 780), BLUE, 'preview bottom')

  // A print area smaller than the preview edge: the preview has the print file's own size.
  const small = await render(source, 300, 200, 'fitPrintArea', 'png')
  const smallMetadata = await sharp(small.preview).metadata()
  assert.deepEqual([smallMetadata.format, smallMetadata.width, smallMetadata.height], ['jpeg', 300, 200])
})

test('a print file reports the source size after EXIF orientation and the plan it applied', async () => {
  // Stored 1200x800 with orientation 6: a 800x1200 portrait, which a 300x200 area turns.
  const stored = await halvesLeftRight(1200, 800, RED, BLUE)
  const exif = await sharp(stored).jpeg().withMetadata({ orientation: 6 }).toBuffer()
  const result = await render(exif, 300, 200, 'fillPrintArea')
  assert.deepEqual(result.source, { width: 800, height: 1200 })
  assert.deepEqual(
    result.plan,
    planPrintFile({
      sourceWidth: 800,
      sourceHeight: 1200,
      targetWidth: 300,
      targetHeight: 200,
      sizing: 'fillPrintArea',
    }),
  )
  assert.equal(result.plan.rotate, 90)
})
