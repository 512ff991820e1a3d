// The print file's layout when its print area has a spec (bleed, canvas wraps): sizes, the parts covering the file
// exactly once, where the sizing plan puts the image, and that an area without a spec plans exactly as before.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import {
  edgeFillOf,
  effectiveDpi,
  layoutParts,
  millimetresToPixels,
  type PrintAreaRequest,
  type PrintFilePlan,
  plannedSize,
  planPrintFile,
  planPrintLayout,
} from './print-geometry.ts'
import type { PrintAreaSpec } from './print-specs.ts'
import { SIZING_MODES, type SizingMode } from './shipping-methods.ts'

tier('pure')

/** An 8 x 10 in canvas on 38 mm bars with 3 mm bleed, made at 300 dpi. */
const CANVAS_8X10: PrintAreaSpec = {
  trimMm: { width: 203.2, height: 254 },
  bleedMm: 3,
  safeMm: 5,
  wrapMm: 38,
  minDpi: 100,
  recommendedDpi: 300,
}

/** An A4 poster with 3 mm bleed. */
const A4_POSTER: PrintAreaSpec = {
  trimMm: { width: 210, height: 297 },
  bleedMm: 3,
  safeMm: 5,
  wrapMm: null,
  minDpi: 150,
  recommendedDpi: 300,
}

test('millimetresToPixels: round(mm x dpi / 25.4) on whole micrometres, halves up', () => {
  assert.equal(millimetresToPixels(25.4, 300), 300)
  assert.equal(millimetresToPixels(203.2, 300), 2400)
  assert.equal(millimetresToPixels(38, 300), 449) // 448.82
  assert.equal(millimetresToPixels(3, 300), 35) // 35.43
  assert.equal(millimetresToPixels(0.127, 100), 1) // exactly 0.5: up
  assert.equal(millimetresToPixels(0.126, 100), 0) // 0.496
  assert.equal(millimetresToPixels(0.381, 100), 2) // exactly 1.5: up
  assert.equal(millimetresToPixels(0, 300), 0)
  assert.equal(millimetresToPixels(0.1 + 0.2, 254), 3) // 0.30000000000000004 mm is 300 um: exactly 3 px
})

test('a canvas wrapped in its image: face, 449 px band and 35 px bleed; the image covers the whole file', () => {
  const plan = planPrintFile({
    sourceWidth: 3000,
    sourceHeight: 4000,
    targetWidth: 2454,
    targetHeight: 3054,
    sizing: 'fillPrintArea',
    area: { spec: CANVAS_8X10, wrap: 'ImageWrap' },
  })
  assert.deepEqual(plan.layout, {
    width: 2400 + 2 * 484,
    height: 3000 + 2 * 484,
    dpi: 300,
    face: { left: 484, top: 484, width: 2400, height: 3000 },
    wrap: 449,
    bleed: 35,
    safe: 59,
    edges: { kind: 'image' },
    image: { left: 0, top: 0, width: 3368, height: 3968 },
  })
  // The sizing plan fills the image box: 3000 x 4000 -> 3368 x 4491, 261 rows cut top and bottom.
  assert.deepEqual(
    { rotate: plan.rotate, resize: plan.resize, crop: plan.crop, margins: plan.margins },
    {
      rotate: 0,
      resize: { width: 3368, height: 4491 },
      crop: { left: 0, top: 261, width: 3368, height: 3968 },
      margins: null,
    },
  )
  assert.deepEqual(plannedSize(plan), { width: 3368, height: 3968 })
})

test('MirrorWrap, Black and White: the image fills the face only; the edges are the mirror or the colour', () => {
  for (const [wrap, edges] of [
    ['MirrorWrap', { kind: 'mirror' }],
    ['mirrorwrap', { kind: 'mirror' }],
    ['Black', { kind: 'colour', name: 'Black', rgb: { r: 0, g: 0, b: 0 } }],
    ['White', { kind: 'colour', name: 'White', rgb: { r: 255, g: 255, b: 255 } }],
  ] as const) {
    const layout = planPrintLayout({ spec: CANVAS_8X10, wrap })
    assert.deepEqual(layout.edges, edges, wrap)
    assert.deepEqual(layout.image, layout.face, wrap)
    assert.deepEqual([layout.width, layout.height], [3368, 3968], wrap)
  }
})

test('wrap values: no wrap attribute is ImageWrap; catalogue colours; flat products ignore the attribute', () => {
  assert.deepEqual(edgeFillOf({ spec: CANVAS_8X10, wrap: null }), { kind: 'image' })
  assert.deepEqual(edgeFillOf({ spec: CANVAS_8X10, wrap: 'Navy', colours: { navy: '#102040' } }), {
    kind: 'colour',
    name: 'Navy',
    rgb: { r: 16, g: 32, b: 64 },
  })
  // The catalogue's own colour wins over the built-in black.
  assert.deepEqual(edgeFillOf({ spec: CANVAS_8X10, wrap: 'Black', colours: { black: '#111111' } }), {
    kind: 'colour',
    name: 'Black',
    rgb: { r: 17, g: 17, b: 17 },
  })
  assert.throws(() => edgeFillOf({ spec: CANVAS_8X10, wrap: 'Teal' }), /wrap Teal is neither/)
  assert.deepEqual(edgeFillOf({ spec: A4_POSTER, wrap: 'MirrorWrap' }), { kind: 'image' })
})

test('a flat print with bleed: no band, the image covers trim + bleed, fit puts its white margins inside it', () => {
  const plan = planPrintFile({
    sourceWidth: 4000,
    sourceHeight: 2000,
    targetWidth: 2480,
    targetHeight: 3508,
    sizing: 'fitPrintArea',
    area: { spec: A4_POSTER },
  })
  const layout = plan.layout as NonNullable<PrintFilePlan['layout']>
  assert.deepEqual([layout.face.width, layout.face.height, layout.wrap, layout.bleed], [2480, 3508, 0, 35])
  assert.deepEqual(layout.image, { left: 0, top: 0, width: 2550, height: 3578 })
  // Turned (landscape source, portrait file) to 2000 x 4000, fitted to the 3578 px height of trim + bleed; the
  // white margins are inside the bleed's image box.
  assert.equal(plan.rotate, 90)
  assert.deepEqual(plan.resize, { width: 1789, height: 3578 })
  assert.deepEqual(plan.margins, { top: 0, right: 381, bottom: 0, left: 380 })
})

test('no spec: exactly the plan of before, with no layout key', () => {
  const request = { sourceWidth: 640, sourceHeight: 400, targetWidth: 300, targetHeight: 450 }
  for (const sizing of SIZING_MODES) {
    const plan = planPrintFile({ ...request, sizing })
    assert.equal('layout' in plan, false)
    assert.deepEqual(planPrintFile({ ...request, sizing, area: null }), plan)
    assert.deepEqual(plannedSize(plan), { width: 300, height: 450 })
  }
})

test('refusals: a mirror deeper than the face, an impossible dpi or length', () => {
  // 40 mm is 472 px, under the 449 + 35 px the mirror needs.
  const deep = { ...CANVAS_8X10, trimMm: { width: 40, height: 254 } }
  assert.throws(() => planPrintLayout({ spec: deep, wrap: 'MirrorWrap' }), /484 px mirror band is deeper than the 472/)
  assert.doesNotThrow(() => planPrintLayout({ spec: deep, wrap: 'ImageWrap' }))
  assert.throws(() => planPrintLayout({ spec: { ...CANVAS_8X10, recommendedDpi: 300.5 } }), /recommendedDpi/)
  assert.throws(() => planPrintLayout({ spec: { ...CANVAS_8X10, bleedMm: -1 } }), /bleedMm/)
  assert.throws(
    () => planPrintLayout({ spec: { ...CANVAS_8X10, trimMm: { width: 0.01, height: 10 } } }),
    /under a pixel/,
  )
})

test('effective dpi of a plan with a layout is at the spec resolution', () => {
  const plan = planPrintFile({
    sourceWidth: 1684,
    sourceHeight: 1984,
    targetWidth: 1,
    targetHeight: 1,
    sizing: 'stretchToPrintArea',
    area: { spec: CANVAS_8X10, wrap: 'ImageWrap' },
  })
  // 1684 source px over 3368 file px at 300 dpi: 150 dpi.
  assert.equal(effectiveDpi({ width: 1684, height: 1984 }, plan), 150)
})

// ---- properties ----------------------------------------------------------------------------------------

const millimetres = (max: number) => fc.integer({ min: 0, max: max * 10 }).map((tenths) => tenths / 10)
const spec: fc.Arbitrary<PrintAreaSpec> = fc.record({
  // At least 130 mm: deeper than the deepest wrap and bleed drawn here, so a mirror always fits.
  trimMm: fc.record({ width: millimetres(900).map((mm) => mm + 130), height: millimetres(900).map((mm) => mm + 130) }),
  bleedMm: millimetres(10),
  safeMm: millimetres(10),
  wrapMm: fc.option(millimetres(50), { nil: null }),
  minDpi: fc.constant(100),
  recommendedDpi: fc.integer({ min: 30, max: 400 }),
})
const wrap = fc.option(fc.constantFrom('ImageWrap', 'MirrorWrap', 'Black', 'White'), { nil: null })
const area: fc.Arbitrary<PrintAreaRequest> = fc.record({ spec, wrap })
const side = fc.integer({ min: 1, max: 6000 })
const sizing = fc.constantFrom<SizingMode>(...SIZING_MODES)

test('property: face, band and bleed are the spec lengths in pixels and add up to the file size', () => {
  fc.assert(
    fc.property(area, (a) => {
      const layout = planPrintLayout(a)
      const { spec: s } = a
      const px = (mm: number) => millimetresToPixels(mm, s.recommendedDpi)
      assert.equal(layout.face.width, px(s.trimMm.width))
      assert.equal(layout.face.height, px(s.trimMm.height))
      assert.equal(layout.wrap, s.wrapMm === null ? 0 : px(s.wrapMm))
      assert.equal(layout.bleed, px(s.bleedMm))
      assert.equal(layout.safe, px(s.safeMm))
      assert.equal(layout.width, layout.face.width + 2 * layout.wrap + 2 * layout.bleed)
      assert.equal(layout.height, layout.face.height + 2 * layout.wrap + 2 * layout.bleed)
      assert.equal(layout.face.left, layout.wrap + layout.bleed)
      assert.equal(layout.face.top, layout.wrap + layout.bleed)
      for (const value of [layout.width, layout.height, layout.wrap, layout.bleed, layout.safe]) {
        assert.ok(Number.isInteger(value))
      }
    }),
    { numRuns: 500 },
  )
})

test('property: the parts cover the file exactly once (no overlap, no gap), each part its own depth', () => {
  fc.assert(
    fc.property(area, (a) => {
      const layout = planPrintLayout(a)
      const parts = layoutParts(layout)
      let covered = 0
      for (const [index, part] of parts.entries()) {
        assert.ok(part.width > 0 && part.height > 0, 'no empty part')
        assert.ok(part.left >= 0 && part.top >= 0, 'inside the file')
        assert.ok(part.left + part.width <= layout.width && part.top + part.height <= layout.height, 'inside')
        covered += part.width * part.height
        for (const other of parts.slice(index + 1)) {
          const apart =
            part.left + part.width <= other.left ||
            other.left + other.width <= part.left ||
            part.top + part.height <= other.top ||
            other.top + other.height <= part.top
          assert.ok(apart, `${JSON.stringify(part)} overlaps ${JSON.stringify(other)}`)
        }
        if (part.part !== 'face') {
          const depth = part.part === 'wrap' ? layout.wrap : layout.bleed
          assert.ok(part.width === depth || part.height === depth, `${part.part} strip is ${depth} deep`)
        }
      }
      // Disjoint boxes inside the file whose areas add up to the file's leave no gap.
      assert.equal(covered, layout.width * layout.height)
    }),
    { numRuns: 300 },
  )
})

test('property: the sizing plan fills exactly the image box, which is the file or the face', () => {
  fc.assert(
    fc.property(side, side, sizing, area, (sourceWidth, sourceHeight, mode, a) => {
      const plan = planPrintFile({
        sourceWidth,
        sourceHeight,
        targetWidth: 100,
        targetHeight: 100,
        sizing: mode,
        area: a,
      })
      const layout = plan.layout as NonNullable<PrintFilePlan['layout']>
      const sizingOnly = planPrintFile({
        sourceWidth,
        sourceHeight,
        targetWidth: layout.image.width,
        targetHeight: layout.image.height,
        sizing: mode,
      })
      assert.deepEqual({ ...plan, layout: undefined }, { ...sizingOnly, layout: undefined })
      assert.deepEqual(plannedSize(sizingOnly), { width: layout.image.width, height: layout.image.height })
      const wholeFile = { left: 0, top: 0, width: layout.width, height: layout.height }
      assert.deepEqual(layout.image, layout.edges.kind === 'image' ? wholeFile : layout.face)
      assert.equal(layout.edges.kind === 'image', a.spec.wrapMm === null || a.wrap === null || a.wrap === 'ImageWrap')
    }),
    { numRuns: 300 },
  )
})

test('property: a preview layout is never over maxEdge, keeps the edges and never has a band wider than the file', () => {
  fc.assert(
    fc.property(area, fc.integer({ min: 50, max: 1200 }), (a, maxEdge) => {
      const full = planPrintLayout(a)
      const preview = planPrintLayout({ ...a, maxEdge })
      // Every part rounded down: at most maxEdge, but for a face kept at 1 px when it would round to none.
      assert.ok(Math.max(preview.width, preview.height) <= maxEdge + 1)
      assert.ok(preview.wrap <= full.wrap && preview.bleed <= full.bleed && preview.safe <= full.safe)
      assert.deepEqual(preview.edges, full.edges)
      assert.equal(preview.width, preview.face.width + 2 * (preview.wrap + preview.bleed))
      if (Math.max(full.width, full.height) <= maxEdge) assert.deepEqual(preview, full)
    }),
    { numRuns: 300 },
  )
})
