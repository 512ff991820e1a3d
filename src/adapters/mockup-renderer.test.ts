// Each kind of mockup drawn from a small synthetic preview: sizes, the frame colour of every framed product of
// the sample catalogue in its border, a mount, a framed canvas's front without its wrap, each canvas wrap's edges,
// colours the catalogue names, a photo print's white border, a book's spine beside its cover.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import sharp from 'sharp'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import type { Variant } from '../domain/catalogue.types.ts'
import {
  BACKGROUND_COLOUR,
  CANVAS_EDGE_COLOURS,
  FRAME_COLOURS,
  MAT_COLOUR,
  planMockup,
  type Rgb,
} from '../domain/mockups.ts'
import { planPrintLayout, previewSize, printAreaRequestOf } from '../domain/print-geometry.ts'
import { renderMockup } from './mockup-renderer.ts'

tier('pure')

const catalogue = loadCatalogue()
const RED: Rgb = { r: 220, g: 30, b: 30 }
const BLUE: Rgb = { r: 30, g: 30, b: 220 }
const GREEN: Rgb = { r: 30, g: 200, b: 30 }

async function pixel(image: Buffer, x: number, y: number): Promise<Rgb> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true })
  const index = (Math.round(y) * info.width + Math.round(x)) * info.channels
  return { r: data[index] as number, g: data[index + 1] as number, b: data[index + 2] as number }
}

function assertNear(actual: Rgb, expected: Rgb, where: string, tolerance = 24): void {
  const close = [actual.r - expected.r, actual.g - expected.g, actual.b - expected.b].every(
    (difference) => Math.abs(difference) <= tolerance,
  )
  assert.ok(close, `${where}: expected ~${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`)
}

const shade = (colour: Rgb, factor: number): Rgb => ({
  r: Math.round(colour.r * factor),
  g: Math.round(colour.g * factor),
  b: Math.round(colour.b * factor),
})

const solidJpeg = (width: number, height: number, colour: Rgb) =>
  sharp({ create: { width, height, channels: 3, background: colour } })
    .jpeg({ quality: 95 })
    .toBuffer()

function variantOf(sku: string, attributes: Record<string, string>): Variant {
  const variant = catalogue.findVariant(sku, attributes)
  if (!variant) throw new Error(`no variant ${sku} ${JSON.stringify(attributes)}`)
  return variant
}

/** A preview as the renderer makes it for this variant's print area: its size, one colour. */
async function previewFor(variant: Variant, printArea: string, colour: Rgb) {
  const area = variant.printAreaSizes[printArea]
  if (!area) throw new Error(`no print area ${printArea}`)
  const size = previewSize(area.horizontalResolution, area.verticalResolution, 400)
  return { size, data: await solidJpeg(size.width, size.height, colour) }
}

describe('mockups', () => {
  test('every frame colour of the sample catalogue is mapped and drawn in the frame, with the mount when there is one', async () => {
    const framed = catalogue.products.filter((product) => product.category.startsWith('framed'))
    const colours = new Set(framed.flatMap((product) => product.attributes.color ?? []))
    assert.ok(colours.size >= 8, [...colours].join(', '))
    for (const colour of colours) {
      assert.ok(FRAME_COLOURS[colour], `frame colour ${colour} has an RGB value`)
      // A mounted frame: 8x10 in around a 6x8 in window.
      const variant = variantOf('GLOBAL-CFPM-8X10', { color: colour })
      const product = catalogue.findProduct('GLOBAL-CFPM-8X10')
      if (!product) throw new Error('no product')
      const preview = await previewFor(variant, 'default', RED)
      const plan = planMockup({ product, variant, printArea: 'default', preview: preview.size })
      assert.equal(plan.kind, 'framedPrint')
      if (plan.kind !== 'framedPrint') return
      assert.ok(plan.mat && plan.mat.x > 0 && plan.mat.y > 0, 'a mount around the 6x8 in window')
      const mockup = await renderMockup(plan, { preview: preview.data })
      const info = await sharp(mockup.data).metadata()
      assert.deepEqual([info.width, info.height, info.format], [mockup.width, mockup.height, 'jpeg'])
      assert.ok(Math.max(mockup.width, mockup.height) <= 1200)
      const margin = Math.max(8, Math.round(plan.frameWidth / 2))
      const scale = mockup.width / (preview.size.width + 2 * (plan.mat.x + plan.frameWidth + margin))
      const expected = FRAME_COLOURS[colour] as Rgb
      assertNear(
        await pixel(mockup.data, (margin + plan.frameWidth / 2) * scale, mockup.height / 2),
        expected,
        `${colour} frame, left`,
      )
      assertNear(
        await pixel(mockup.data, mockup.width / 2, (margin + plan.frameWidth / 2) * scale),
        expected,
        `${colour} frame, top`,
      )
      assertNear(
        await pixel(mockup.data, (margin + plan.frameWidth + plan.mat.x / 2) * scale, mockup.height / 2),
        MAT_COLOUR,
        'mount',
      )
      assertNear(await pixel(mockup.data, mockup.width / 2, mockup.height / 2), RED, 'the print')
      assertNear(await pixel(mockup.data, 2, 2), BACKGROUND_COLOUR, 'the wall')
    }
  })

  test('a frame without mount has none', () => {
    const product = catalogue.findProduct('GLOBAL-CFP-8X10')
    if (!product) throw new Error('no product')
    const variant = variantOf('GLOBAL-CFP-8X10', { color: 'black' })
    const plan = planMockup({ product, variant, printArea: 'default', preview: { width: 640, height: 800 } })
    assert.equal(plan.kind === 'framedPrint' && plan.mat, null)
  })

  test('a framed canvas shows its front in the frame, the wrap and bleed around it hidden, for each wrap', async () => {
    const product = catalogue.findProduct('GLOBAL-FRA-CAN-16X20')
    if (!product) throw new Error('no product')
    for (const wrap of ['ImageWrap', 'MirrorWrap', 'Black', 'White']) {
      const variant = variantOf('GLOBAL-FRA-CAN-16X20', { color: 'gold', wrap })
      const area = variant.printAreaSizes.default
      if (!area) throw new Error('no area')
      const size = previewSize(area.horizontalResolution, area.verticalResolution, 400)
      const plan = planMockup({ product, variant, printArea: 'default', preview: size })
      assert.equal(plan.kind, 'framedPrint')
      if (plan.kind !== 'framedPrint') return
      // 16x20 in of a print area with bleed (and for ImageWrap the 900 px of wrapped sides): centred, smaller.
      const { front, frameWidth } = plan
      assert.equal(plan.mat, null)
      assert.ok(front.width < size.width && front.height < size.height, `${wrap}: ${JSON.stringify(front)}`)
      assert.ok(Math.abs(front.width / front.height - 16 / 20) < 0.01, `${wrap}: the front is 16x20`)
      assert.deepEqual(
        [front.left, front.top],
        [Math.floor((size.width - front.width) / 2), Math.floor((size.height - front.height) / 2)],
      )
      // Blue all round the front, red on it: nothing blue may show between the frame and the picture.
      const preview = await sharp({ create: { ...size, channels: 3, background: BLUE } })
        .composite([{ input: await solidJpeg(front.width, front.height, RED), left: front.left, top: front.top }])
        .jpeg({ quality: 95 })
        .toBuffer()
      const mockup = await renderMockup(plan, { preview })
      const margin = Math.max(8, Math.round(frameWidth / 2))
      assert.deepEqual(
        [mockup.width, mockup.height],
        [front.width + 2 * (frameWidth + margin), front.height + 2 * (frameWidth + margin)],
      )
      const inside = margin + frameWidth
      assertNear(await pixel(mockup.data, margin + frameWidth / 2, mockup.height / 2), FRAME_COLOURS.gold as Rgb, wrap)
      for (const [x, y] of [
        [inside + 2, mockup.height / 2],
        [mockup.width - inside - 3, mockup.height / 2],
        [mockup.width / 2, inside + 2],
        [mockup.width / 2, mockup.height - inside - 3],
      ] as const) {
        assertNear(await pixel(mockup.data, x, y), RED, `${wrap}: the front right inside the frame at ${x},${y}`)
      }
    }
  })

  test("the catalogue's colours draw frames and colour-wrapped edges, before the built-in names", async () => {
    const colours = { gold: '#3b6e8f', black: '#602010' }
    const framed = catalogue.findProduct('GLOBAL-CFP-8X10')
    const canvas = catalogue.findProduct('GLOBAL-CAN-8x8')
    if (!framed || !canvas) throw new Error('no product')
    const gold = variantOf('GLOBAL-CFP-8X10', { color: 'gold' })
    const framedPreview = await previewFor(gold, 'default', RED)
    const framedPlan = planMockup({
      product: framed,
      variant: gold,
      printArea: 'default',
      preview: framedPreview.size,
      colours,
    })
    assert.deepEqual(framedPlan.kind === 'framedPrint' && framedPlan.frameColour, {
      name: 'gold',
      rgb: { r: 0x3b, g: 0x6e, b: 0x8f },
    })
    if (framedPlan.kind !== 'framedPrint') return
    const framedMockup = await renderMockup(framedPlan, { preview: framedPreview.data })
    const margin = Math.max(8, Math.round(framedPlan.frameWidth / 2))
    const scale = framedMockup.width / (framedPreview.size.width + 2 * (framedPlan.frameWidth + margin))
    assertNear(
      await pixel(framedMockup.data, (margin + framedPlan.frameWidth / 2) * scale, framedMockup.height / 2),
      { r: 0x3b, g: 0x6e, b: 0x8f },
      "the frame in the catalogue's gold",
    )

    const black = variantOf('GLOBAL-CAN-8x8', { wrap: 'Black' })
    const canvasPreview = await previewFor(black, 'default', RED)
    const canvasPlan = planMockup({
      product: canvas,
      variant: black,
      printArea: 'default',
      preview: canvasPreview.size,
      colours,
    })
    assert.equal(canvasPlan.kind, 'canvas')
    if (canvasPlan.kind !== 'canvas') return
    assert.deepEqual(canvasPlan.wrap, { kind: 'colour', name: 'Black', colour: { r: 0x60, g: 0x20, b: 0x10 } })
    const canvasMockup = await renderMockup(canvasPlan, { preview: canvasPreview.data })
    const { front, depth } = canvasPlan
    const edgeMargin = Math.max(8, Math.round(depth / 2))
    assertNear(
      await pixel(canvasMockup.data, edgeMargin + front.width + depth / 4, edgeMargin + front.height / 2),
      shade({ r: 0x60, g: 0x20, b: 0x10 }, 0.78),
      "the right edge in the catalogue's black",
    )
    // Without the table, the built-in colours.
    const plain = planMockup({ product: canvas, variant: black, printArea: 'default', preview: canvasPreview.size })
    assert.deepEqual(plain.kind === 'canvas' && plain.wrap, {
      kind: 'colour',
      name: 'Black',
      colour: CANVAS_EDGE_COLOURS.black,
    })
  })

  test('a canvas shows its front and its right and bottom edges for each wrap', async () => {
    const product = catalogue.findProduct('GLOBAL-CAN-10x10')
    if (!product) throw new Error('no product')
    for (const wrap of ['ImageWrap', 'MirrorWrap', 'Black', 'White']) {
      const variant = variantOf('GLOBAL-CAN-10x10', { wrap })
      const area = variant.printAreaSizes.default
      if (!area) throw new Error('no area')
      const size = previewSize(area.horizontalResolution, area.verticalResolution, 400)
      const plan = planMockup({ product, variant, printArea: 'default', preview: size })
      assert.equal(plan.kind, 'canvas')
      if (plan.kind !== 'canvas') return
      const { front, depth } = plan
      // The front red, a green band along its right and bottom edges inside it, blue beyond the front (the sides an
      // image wrap folds round). Edges are sampled next to the front, where a mirror wrap repeats the green band.
      const band = Math.max(2, Math.round(depth / 2))
      const preview = await sharp({ create: { ...size, channels: 3, background: BLUE } })
        .composite([
          { input: await solidJpeg(front.width, front.height, GREEN), left: front.left, top: front.top },
          { input: await solidJpeg(front.width - band, front.height - band, RED), left: front.left, top: front.top },
        ])
        .jpeg({ quality: 95 })
        .toBuffer()
      const mockup = await renderMockup(plan, { preview })
      const margin = Math.max(8, Math.round(depth / 2))
      assert.deepEqual(
        [mockup.width, mockup.height],
        [front.width + depth + 2 * margin, front.height + depth + 2 * margin],
      )
      const rightEdge = await pixel(mockup.data, margin + front.width + depth / 4, margin + front.height / 2)
      const bottomEdge = await pixel(mockup.data, margin + front.width / 2, margin + front.height + depth / 4)
      assertNear(await pixel(mockup.data, margin + front.width / 3, margin + front.height / 3), RED, `${wrap} front`)
      const expected: Record<string, Rgb> = {
        ImageWrap: BLUE,
        MirrorWrap: GREEN,
        Black: { r: 20, g: 20, b: 20 },
        White: { r: 245, g: 245, b: 245 },
      }
      const edge = expected[wrap] as Rgb
      assertNear(rightEdge, shade(edge, 0.78), `${wrap} right edge`)
      assertNear(bottomEdge, shade(edge, 0.62), `${wrap} bottom edge`)
    }
  })

  test('a photo print has a white border on the wall, with a shadow', async () => {
    const product = catalogue.findProduct('GLOBAL-PHO-4x6')
    if (!product) throw new Error('no product')
    const variant = variantOf('GLOBAL-PHO-4x6', { finish: 'gloss' })
    const preview = await previewFor(variant, 'default', BLUE)
    const plan = planMockup({ product, variant, printArea: 'default', preview: preview.size })
    assert.equal(plan.kind, 'photoPrint')
    if (plan.kind !== 'photoPrint') return
    const mockup = await renderMockup(plan, { preview: preview.data })
    const blur = Math.max(4, plan.border)
    const margin = 2 * blur
    assert.deepEqual(
      [mockup.width, mockup.height],
      [preview.size.width + 2 * plan.border + 2 * margin, preview.size.height + 2 * plan.border + 2 * margin],
    )
    assertNear(
      await pixel(mockup.data, margin + plan.border / 2, mockup.height / 2),
      { r: 255, g: 255, b: 255 },
      'border',
    )
    assertNear(await pixel(mockup.data, mockup.width / 2, mockup.height / 2), BLUE, 'the print')
    const shadowed = await pixel(mockup.data, mockup.width - margin + blur / 2, mockup.height - margin + blur / 2)
    assert.ok(shadowed.r < BACKGROUND_COLOUR.r - 10, `a shadow at the bottom right: ${JSON.stringify(shadowed)}`)
  })

  test('a flat print with a spec shows its trim: the bleed round it is cut off, no canvas sides', async () => {
    for (const sku of ['GLOBAL-PHO-4x6', 'GLOBAL-CAN-ROL-SC-8x8', 'GLOBAL-FAP-8x8']) {
      const product = catalogue.findProduct(sku)
      if (!product) throw new Error('no product')
      const variant = catalogue.findVariant(sku, sku === 'GLOBAL-PHO-4x6' ? { finish: 'gloss' } : {})
      if (!variant) throw new Error('no variant')
      const area = printAreaRequestOf(variant, 'default', catalogue.colours)
      if (!area) throw new Error('no spec')
      const layout = planPrintLayout({ ...area, maxEdge: 400 })
      assert.ok(layout.bleed > 0 && layout.wrap === 0, `${sku}: a flat area with bleed`)
      const size = { width: layout.width, height: layout.height }
      const plan = planMockup({ product, variant, printArea: 'default', preview: size, layout })
      assert.equal(plan.kind, 'photoPrint', sku)
      if (plan.kind !== 'photoPrint') return
      assert.deepEqual(plan.front, layout.face, `${sku}: the print shows its trim`)
      // Red bleed round a blue trim: no red may show on the print.
      const preview = await sharp({ create: { ...size, channels: 3, background: RED } })
        .composite([{ input: await solidJpeg(layout.face.width, layout.face.height, BLUE), ...layout.face }])
        .jpeg({ quality: 95 })
        .toBuffer()
      const mockup = await renderMockup(plan, { preview })
      const margin = 2 * Math.max(4, plan.border)
      const inside = margin + plan.border
      assert.deepEqual([mockup.width, mockup.height], [layout.face.width + 2 * inside, layout.face.height + 2 * inside])
      // Three pixels in from the print's edge: within the bleed's width, had the bleed been left on.
      assert.ok(layout.bleed > 3, `${sku}: ${layout.bleed} px of bleed`)
      for (const [x, y] of [
        [inside + 3, mockup.height / 2],
        [mockup.width - inside - 4, mockup.height / 2],
        [mockup.width / 2, inside + 3],
        [mockup.width / 2, mockup.height - inside - 4],
      ] as const) {
        assertNear(await pixel(mockup.data, x, y), BLUE, `${sku}: the trim's edge at ${x},${y}`)
      }
    }
  })

  test('a canvas whose spec has no wrap band is drawn flat, as a print of its trim', () => {
    const product = catalogue.findProduct('GLOBAL-CAN-8x8')
    const variant = catalogue.findVariant('GLOBAL-CAN-8x8', { wrap: 'Black' })
    if (!product || !variant) throw new Error('no canvas')
    const area = printAreaRequestOf(variant, 'default', catalogue.colours)
    if (!area) throw new Error('no spec')
    const wrapped = planPrintLayout({ ...area, maxEdge: 400 })
    const preview = { width: wrapped.width, height: wrapped.height }
    assert.equal(planMockup({ product, variant, printArea: 'default', preview, layout: wrapped }).kind, 'canvas')
    const flat = planPrintLayout({ ...area, spec: { ...area.spec, wrapMm: null }, maxEdge: 400 })
    const plan = planMockup({ product, variant, printArea: 'default', preview, layout: flat })
    assert.equal(plan.kind, 'photoPrint')
    assert.deepEqual(plan.kind === 'photoPrint' && plan.front, flat.face)
  })

  test('a book shows its cover and, to its left, the spine at the share of the cover its print area has', async () => {
    const product = catalogue.findProduct('BOOK-A4-L-HARD-M')
    if (!product) throw new Error('no product')
    const variant = variantOf('BOOK-A4-L-HARD-M', {})
    const cover = await previewFor(variant, 'default', RED)
    const spine = await previewFor(variant, 'spine', GREEN)
    const plan = planMockup({ product, variant, printArea: 'default', preview: cover.size })
    assert.equal(plan.kind, 'book')
    if (plan.kind !== 'book') return
    assert.equal(plan.spineShare, 300 / 3508)
    const mockup = await renderMockup(plan, {
      preview: cover.data,
      book: { cover: cover.data, spine: spine.data, coverSize: cover.size },
    })
    const spineWidth = Math.round(plan.spineShare * cover.size.width)
    const margin = Math.max(12, Math.round(cover.size.width * 0.04))
    assert.deepEqual(
      [mockup.width, mockup.height],
      [spineWidth + cover.size.width + 2 * margin, cover.size.height + 2 * margin],
    )
    assertNear(await pixel(mockup.data, margin + spineWidth / 3, mockup.height / 2), shade(GREEN, 0.85), 'spine')
    assertNear(await pixel(mockup.data, margin + spineWidth + cover.size.width / 2, mockup.height / 2), RED, 'cover')
    // Without a spine image the spine takes the cover's colour, shaded.
    const plain = await renderMockup(plan, {
      preview: cover.data,
      book: { cover: cover.data, spine: null, coverSize: cover.size },
    })
    assertNear(await pixel(plain.data, margin + spineWidth / 3, plain.height / 2), shade(RED, 0.85), 'plain spine')
  })
})
