// Print files of print areas with a spec (bleed and canvas wraps), rendered for real with sharp: their size is the
// layout's, each wrap kind fills the band and the bleed as docs/print-files.md says (the mirror proven pixel for
// pixel), previews carry guide lines; and areas without a spec still get exactly the bytes they got before.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import sharp, { type Sharp } from 'sharp'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import { planMockup } from '../domain/mockups.ts'
import { type PixelBox, type PrintAreaRequest, planPrintLayout } from '../domain/print-geometry.ts'
import type { PrintAreaSpec } from '../domain/print-specs.ts'
import type { SizingMode } from '../domain/shipping-methods.ts'
import { createImageRenderer, GUIDE_LINE_COLOURS, type RasterPrintFileFormat } from './image-renderer.ts'
import { renderMockup } from './mockup-renderer.ts'

tier('pure')

const renderer = createImageRenderer()

/** A deterministic image whose every pixel differs from its neighbours, so a misplaced row or column shows. */
async function pattern(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3
      raw[i] = (x * 7 + y * 3) & 255
      raw[i + 1] = (x * y) & 255
      raw[i + 2] = ((x ^ y) * 5) & 255
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 9 })
    .toBuffer()
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

// The renderer's output on main before print areas had specs (sharp 0.35.5, libvips 8.18.7): an area without a
// spec must keep giving these very bytes, print file, its preview and the item preview alike.
const BEFORE_SPECS = [
  {
    source: [640, 400],
    width: 300,
    height: 450,
    sizing: 'fillPrintArea',
    format: 'jpeg',
    file: '5a558b0464366c89365591825146dcea864ccd08e17377021a52cf02ab70ca6b',
    preview: '95722e7c9c674ad1ecb23e299e815eeb14180a62c96657c5f715dfe6fddeea6f',
    itemPreview: '5d49055de513057cb7eb9cd37141fded9597d3f0671a0db939479ca05b08df5b',
  },
  {
    source: [400, 640],
    width: 500,
    height: 500,
    sizing: 'fitPrintArea',
    format: 'png',
    file: 'f7fd4965e26c9335e369c1905a7e684c31f43ddebaada249054922e0d324134a',
    preview: '8baa171c09bf727738f969613ef6cd9042ee2bd881204436d60e3fa1166a7a0f',
    itemPreview: '16653f99f0e1cbafd975560a2711dde609c82e9bd38dbf30264b0dc0697f6bc6',
  },
  {
    source: [333, 222],
    width: 260,
    height: 170,
    sizing: 'stretchToPrintArea',
    format: 'tiff',
    file: 'e791c4975018a5122316ec5fe262e809d35a9c0ea9c842c61c22a6c8831755da',
    preview: '812f2a55cfe2cb583258d626a07319ac0d167ba66b8366f512eb1205c9e8f58f',
    itemPreview: '8db6dae2b2b2590d8db74dcd38957e08f50c04c3f9fde2340e72116b6e5e44a9',
  },
  {
    source: [500, 300],
    width: 420,
    height: 260,
    sizing: 'fitPrintArea',
    format: 'jpeg',
    file: '1505a98589202447acd10fad50cb4e37906793ece97bf8f124e730a27865db78',
    preview: '60ab4fbcc0a736ad4e75ca25323730d938f417000257123cfdf4c18075952619',
    itemPreview: 'c8f11cd325e6604f7d619d3cec336596a3555a38067485eae9d247c9f3caa412',
  },
] as const

test('no spec: print files, their previews and item previews are byte for byte those of before', async () => {
  for (const expected of BEFORE_SPECS) {
    const { width, height, format } = expected
    const sizing = expected.sizing as SizingMode
    const source = await pattern(expected.source[0], expected.source[1])
    const rendered = await renderer.renderPrintFile(source, { width, height, sizing, format, area: null })
    const preview = await renderer.renderPreview(source, { width, height, sizing, maxEdge: 200 })
    const where = `${expected.source.join('x')} -> ${width}x${height} ${sizing} ${format}`
    assert.equal(sha256(rendered.data), expected.file, `${where}: print file`)
    assert.equal(sha256(rendered.preview), expected.preview, `${where}: its preview`)
    assert.equal(sha256(preview.data), expected.itemPreview, `${where}: item preview`)
    assert.equal(preview.layout, undefined)
  }
})

/** A 100 x 150 mm canvas on 20 mm bars with 3 mm bleed at 100 dpi: 394 x 591 face, 79 px band, 12 px bleed. */
const CANVAS: PrintAreaSpec = {
  trimMm: { width: 100, height: 150 },
  bleedMm: 3,
  safeMm: 5,
  wrapMm: 20,
  minDpi: 50,
  recommendedDpi: 100,
}

interface Raw {
  width: number
  height: number
  data: Buffer
}

async function rawOf(image: Buffer | Sharp): Promise<Raw> {
  const pipeline = Buffer.isBuffer(image) ? sharp(image) : image
  const { data, info } = await pipeline.removeAlpha().raw().toBuffer({ resolveWithObject: true })
  return { width: info.width, height: info.height, data }
}

/** The pixels of `box` of an image, optionally flipped left-right (flop) and / or top-bottom (flip). */
async function boxPixels(image: Buffer, box: PixelBox, turn: { flop?: boolean; flip?: boolean } = {}): Promise<Raw> {
  let pipeline = sharp(image).extract(box)
  if (turn.flop) pipeline = pipeline.flop()
  if (turn.flip) pipeline = pipeline.flip()
  return rawOf(await pipeline.png().toBuffer())
}

async function renderCanvas(wrap: string, format: RasterPrintFileFormat = 'png', sizing: SizingMode = 'fillPrintArea') {
  const area: PrintAreaRequest = { spec: CANVAS, wrap }
  const source = await pattern(500, 700)
  // The variant's pixel size is left aside when the area has a spec.
  return renderer.renderPrintFile(source, { width: 10, height: 10, sizing, format, area })
}

test('every wrap kind: the print file is the layout size (face + 2 x band + 2 x bleed), at the planned dpi', async () => {
  const layout = planPrintLayout({ spec: CANVAS, wrap: 'MirrorWrap' })
  assert.deepEqual([layout.face.width, layout.face.height, layout.wrap, layout.bleed], [394, 591, 79, 12])
  for (const wrap of ['ImageWrap', 'MirrorWrap', 'Black', 'White']) {
    for (const format of ['jpeg', 'png', 'tiff'] as const) {
      const rendered = await renderCanvas(wrap, format)
      const meta = await sharp(rendered.data).metadata()
      assert.deepEqual([meta.width, meta.height], [394 + 2 * 91, 591 + 2 * 91], `${wrap} ${format}`)
      assert.deepEqual([rendered.width, rendered.height], [576, 773])
      assert.equal(
        rendered.plan.layout?.edges.kind,
        wrap === 'ImageWrap' ? 'image' : wrap === 'MirrorWrap' ? 'mirror' : 'colour',
      )
    }
  }
})

test('MirrorWrap: each band and its bleed is the flipped face edge strip of the same depth, corners both ways', async () => {
  const rendered = await renderCanvas('MirrorWrap')
  const file = rendered.data
  const { face, wrap, bleed } = rendered.plan.layout as NonNullable<typeof rendered.plan.layout>
  const d = wrap + bleed
  const right = face.left + face.width
  const bottom = face.top + face.height
  const sides: [string, PixelBox, PixelBox, { flop?: boolean; flip?: boolean }][] = [
    ['left', { left: 0, top: face.top, width: d, height: face.height }, { ...face, width: d }, { flop: true }],
    [
      'right',
      { left: right, top: face.top, width: d, height: face.height },
      { ...face, left: right - d, width: d },
      { flop: true },
    ],
    ['top', { left: face.left, top: 0, width: face.width, height: d }, { ...face, height: d }, { flip: true }],
    [
      'bottom',
      { left: face.left, top: bottom, width: face.width, height: d },
      { ...face, top: bottom - d, height: d },
      { flip: true },
    ],
    [
      'top-left corner',
      { left: 0, top: 0, width: d, height: d },
      { left: face.left, top: face.top, width: d, height: d },
      { flop: true, flip: true },
    ],
    [
      'bottom-right corner',
      { left: right, top: bottom, width: d, height: d },
      { left: right - d, top: bottom - d, width: d, height: d },
      { flop: true, flip: true },
    ],
  ]
  for (const [name, band, edge, turn] of sides) {
    const actual = await boxPixels(file, band)
    const mirrored = await boxPixels(file, edge, turn)
    assert.ok(actual.data.equals(mirrored.data), `${name}: the band is the mirrored face edge`)
  }
  // The face is not uniform, so the comparison above could fail: a band of one colour would not match.
  const edgeStrip = await boxPixels(file, { ...face, width: d })
  assert.ok(!edgeStrip.data.equals(Buffer.alloc(edgeStrip.data.length, edgeStrip.data[0])))
})

test('Black and White: band and bleed are the colour exactly; the face is the image, cropped to it', async () => {
  for (const [wrap, value] of [
    ['Black', 0],
    ['White', 255],
  ] as const) {
    const rendered = await renderCanvas(wrap)
    const { face } = rendered.plan.layout as NonNullable<typeof rendered.plan.layout>
    const image = await rawOf(rendered.data)
    for (const part of [
      { left: 0, top: 0, width: image.width, height: face.top },
      { left: 0, top: face.top + face.height, width: image.width, height: image.height - face.top - face.height },
      { left: 0, top: face.top, width: face.left, height: face.height },
      { left: face.left + face.width, top: face.top, width: image.width - face.left - face.width, height: face.height },
    ]) {
      const pixels = await boxPixels(rendered.data, part)
      assert.ok(
        pixels.data.every((channel) => channel === value),
        `${wrap}: ${JSON.stringify(part)}`,
      )
    }
    // The image is cropped to the face: 500 x 700 filled into 394 x 591.
    assert.deepEqual(rendered.plan.resize, { width: 422, height: 591 })
    const faceBox = await boxPixels(rendered.data, face)
    assert.ok(!faceBox.data.every((channel) => channel === value), `${wrap}: the face is the image`)
  }
})

test('ImageWrap: the image covers the whole file; fit on a colour wrap keeps its white margins inside the face', async () => {
  const image = await renderCanvas('ImageWrap')
  assert.deepEqual(image.plan.layout?.image, { left: 0, top: 0, width: 576, height: 773 })
  // 500 x 700 filled into 576 x 773: the file's width decides (700 x 576/500 = 806.4 rows), 33 rows cut.
  assert.deepEqual(image.plan.resize, { width: 576, height: 806 })
  assert.deepEqual(image.plan.crop, { left: 0, top: 16, width: 576, height: 773 })
  const black = await renderCanvas('Black', 'png', 'fitPrintArea')
  const { face } = black.plan.layout as NonNullable<typeof black.plan.layout>
  const margins = black.plan.margins as NonNullable<typeof black.plan.margins>
  // 5:7 is wider than the 394 x 591 face: white rows above and below the image, inside the face.
  assert.ok(margins.top > 0 && margins.bottom > 0 && margins.left === 0)
  const white = await boxPixels(black.data, { left: face.left, top: face.top, width: face.width, height: margins.top })
  assert.ok(
    white.data.every((channel) => channel === 255),
    'white margin inside the face',
  )
  const band = await boxPixels(black.data, { left: 0, top: face.top, width: face.left, height: face.height })
  assert.ok(
    band.data.every((channel) => channel === 0),
    'black band outside it',
  )
})

test('a flat print with bleed: the file is trim + bleed and the image covers all of it', async () => {
  const poster: PrintAreaSpec = { ...CANVAS, wrapMm: null }
  const rendered = await renderer.renderPrintFile(await pattern(500, 700), {
    width: 10,
    height: 10,
    sizing: 'fillPrintArea',
    format: 'png',
    area: { spec: poster, wrap: 'MirrorWrap' },
  })
  assert.deepEqual([rendered.width, rendered.height], [394 + 24, 591 + 24])
  const layout = rendered.plan.layout as NonNullable<typeof rendered.plan.layout>
  assert.deepEqual([layout.wrap, layout.bleed, layout.edges.kind], [0, 12, 'image'])
  assert.deepEqual(layout.image, { left: 0, top: 0, width: 418, height: 615 })
})

test('a real-size canvas (8 x 10 in at 300 dpi) mirrors through the whole pipeline as a JPEG', async () => {
  const spec: PrintAreaSpec = { ...CANVAS, trimMm: { width: 203.2, height: 254 }, wrapMm: 38, recommendedDpi: 300 }
  const source = await sharp(await pattern(1200, 1500))
    .jpeg()
    .toBuffer()
  const rendered = await renderer.renderPrintFile(source, {
    width: 10,
    height: 10,
    sizing: 'fillPrintArea',
    format: 'jpeg',
    area: { spec, wrap: 'MirrorWrap' },
  })
  assert.deepEqual([rendered.width, rendered.height], [2400 + 2 * 484, 3000 + 2 * 484])
  assert.equal(rendered.colourSpace, 'srgb')
})

test('previews of an area with a spec: the scaled layout, with dashed guide lines in their colours', async () => {
  const source = await pattern(500, 700)
  const preview = await renderer.renderPreview(source, {
    width: 10,
    height: 10,
    sizing: 'fillPrintArea',
    maxEdge: 400,
    area: { spec: CANVAS, wrap: 'Black' },
  })
  const layout = preview.layout as NonNullable<typeof preview.layout>
  assert.ok(Math.max(preview.width, preview.height) <= 400)
  assert.deepEqual([preview.width, preview.height], [layout.width, layout.height])
  assert.deepEqual(preview.plan.layout?.width, 576, 'the full-size plan is the print file')
  const image = await rawOf(preview.data)
  assert.deepEqual([image.width, image.height], [preview.width, preview.height])
  const at = (x: number, y: number) => [
    ...image.data.subarray((y * image.width + x) * 3, (y * image.width + x) * 3 + 3),
  ]
  const near = (actual: number[], hex: string) =>
    actual.every((value, i) => Math.abs(value - Number.parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16)) <= 60)
  // Along each line some pixels carry its colour (the dashes), on the top edge of its box.
  const lineOn = (y: number, from: number, to: number, hex: string) =>
    Array.from({ length: to - from }, (_, i) => at(from + i, y)).some((pixel) => near(pixel, hex))
  const { face } = layout
  assert.ok(lineOn(face.top, face.left + 10, face.left + 60, GUIDE_LINE_COLOURS.trim), 'trim line')
  assert.ok(lineOn(layout.bleed, face.left + 10, face.left + 60, GUIDE_LINE_COLOURS.wrap), 'wrap line')
  assert.ok(lineOn(0, 10, 60, GUIDE_LINE_COLOURS.bleed), 'bleed line')
  assert.ok(lineOn(face.top + layout.safe, face.left + 20, face.left + 80, GUIDE_LINE_COLOURS.safe), 'safe line')
  // The print file itself has no lines: its band is black to the pixel (above).
  // The same picture without the lines, which mockups are drawn from: the black band has no line in it.
  const plain = await rawOf(preview.plain as Buffer)
  assert.deepEqual([plain.width, plain.height], [preview.width, preview.height])
  const plainAt = (x: number, y: number) => [
    ...plain.data.subarray((y * plain.width + x) * 3, (y * plain.width + x) * 3 + 3),
  ]
  for (const [y, hex] of [
    [layout.bleed, GUIDE_LINE_COLOURS.wrap],
    [0, GUIDE_LINE_COLOURS.bleed],
  ] as const) {
    const row = Array.from({ length: 50 }, (_, i) => plainAt(face.left + 10 + i, y))
    assert.ok(
      row.every((pixel) => pixel.every((value) => value < 40)),
      `no line at y ${y}: ${JSON.stringify(row[0])}`,
    )
    assert.ok(!row.some((pixel) => near(pixel, hex)))
  }
})

test('mockups of a canvas with a spec: its front is the preview layout face, its edges the wrap band', async () => {
  const product = loadCatalogue().findProduct('GLOBAL-CAN-10x10')
  const variant = product?.variants.find((candidate) => candidate.attributes.wrap === 'MirrorWrap')
  assert.ok(product && variant)
  const preview = await renderer.renderPreview(await pattern(500, 700), {
    width: 10,
    height: 10,
    sizing: 'fillPrintArea',
    maxEdge: 400,
    area: { spec: CANVAS, wrap: 'MirrorWrap' },
  })
  const layout = preview.layout as NonNullable<typeof preview.layout>
  const size = { width: preview.width, height: preview.height }
  const plan = planMockup({ product, variant, printArea: 'default', preview: size, layout })
  assert.deepEqual(plan, { kind: 'canvas', wrap: { kind: 'mirror' }, depth: layout.wrap, front: layout.face })
  const mockup = await renderMockup(plan, { preview: preview.data })
  // Front, one band on the right and below, and margins of half the depth round it.
  const margin = Math.round(layout.wrap / 2)
  assert.deepEqual(
    [mockup.width, mockup.height],
    [layout.face.width + layout.wrap + 2 * margin, layout.face.height + layout.wrap + 2 * margin],
  )
})
