import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import {
  MAX_PRINT_GEOMETRY_SIDE,
  type PrintFilePlan,
  placementOnSource,
  planPrintFile,
  shouldRotate,
} from './print-geometry.ts'
import { SIZING_MODES, type SizingMode } from './shipping-methods.ts'

tier('pure')

const plan = (
  sourceWidth: number,
  sourceHeight: number,
  targetWidth: number,
  targetHeight: number,
  sizing: SizingMode,
) => planPrintFile({ sourceWidth, sourceHeight, targetWidth, targetHeight, sizing })

/** Width and height of the image a plan produces, walking its steps. */
function outputSize(p: PrintFilePlan): { width: number; height: number } {
  if (p.crop) return { width: p.crop.width, height: p.crop.height }
  if (p.margins) {
    return {
      width: p.margins.left + p.resize.width + p.margins.right,
      height: p.margins.top + p.resize.height + p.margins.bottom,
    }
  }
  return p.resize
}

test('fillPrintArea: a landscape source into a landscape area scales to the height and crops the sides equally', () => {
  // 4000x2000 (2:1) into 3000x2000 (3:2): height 2000 is kept, 1000 px of width are cut, 500 each side.
  assert.deepEqual(plan(4000, 2000, 3000, 2000, 'fillPrintArea'), {
    rotate: 0,
    resize: { width: 4000, height: 2000 },
    crop: { left: 500, top: 0, width: 3000, height: 2000 },
    margins: null,
  })
})

test('fillPrintArea: a too-tall portrait source is cropped at top and bottom', () => {
  // 1000x3000 into 2000x4000: scale 2 -> 2000x6000, cut 1000 top and 1000 bottom.
  assert.deepEqual(plan(1000, 3000, 2000, 4000, 'fillPrintArea'), {
    rotate: 0,
    resize: { width: 2000, height: 6000 },
    crop: { left: 0, top: 1000, width: 2000, height: 4000 },
    margins: null,
  })
})

test('fillPrintArea: the same aspect ratio only resizes (no crop), up or down', () => {
  assert.deepEqual(plan(6000, 4000, 3000, 2000, 'fillPrintArea'), {
    rotate: 0,
    resize: { width: 3000, height: 2000 },
    crop: null,
    margins: null,
  })
  assert.deepEqual(plan(300, 200, 3000, 2000, 'fillPrintArea').resize, { width: 3000, height: 2000 })
})

test('fillPrintArea: an odd overhang puts the extra pixel on the right / bottom', () => {
  // 1001x1000 into 1000x1000: one pixel too wide, cut 0 on the left and 1 on the right.
  assert.deepEqual(plan(1001, 1000, 1000, 1000, 'fillPrintArea').crop, { left: 0, top: 0, width: 1000, height: 1000 })
  assert.deepEqual(plan(1000, 1003, 1000, 1000, 'fillPrintArea').crop, { left: 0, top: 1, width: 1000, height: 1000 })
})

test('fitPrintArea: a wide source fits the width with equal white bands above and below', () => {
  // 4000x2000 into 3000x3000: 3000x1500, 750 white at top and bottom.
  assert.deepEqual(plan(4000, 2000, 3000, 3000, 'fitPrintArea'), {
    rotate: 0,
    resize: { width: 3000, height: 1500 },
    crop: null,
    margins: { top: 750, right: 0, bottom: 750, left: 0 },
  })
})

test('fitPrintArea: a tall source fits the height with white bands left and right; odd spare pixel goes right', () => {
  // 1000x3000 into 2001x4000 (both portrait): 1333x4000 (1333.33 rounded), 668 spare -> 334 left, 334 right.
  assert.deepEqual(plan(1000, 3000, 2001, 4000, 'fitPrintArea'), {
    rotate: 0,
    resize: { width: 1333, height: 4000 },
    crop: null,
    margins: { top: 0, right: 334, bottom: 0, left: 334 },
  })
  // 1000x3000 into 2000x4000: 1333x4000, 667 spare -> 333 left, 334 right.
  assert.deepEqual(plan(1000, 3000, 2000, 4000, 'fitPrintArea').margins, { top: 0, right: 334, bottom: 0, left: 333 })
})

test('fitPrintArea: the same aspect ratio needs no margins', () => {
  assert.deepEqual(plan(1200, 1800, 4800, 7200, 'fitPrintArea'), {
    rotate: 0,
    resize: { width: 4800, height: 7200 },
    crop: null,
    margins: null,
  })
})

test('fitPrintArea: an extreme panorama keeps at least one pixel row', () => {
  const p = plan(100_000, 1, 100, 100, 'fitPrintArea')
  assert.deepEqual(p.resize, { width: 100, height: 1 })
  assert.deepEqual(p.margins, { top: 49, right: 0, bottom: 50, left: 0 })
})

test('stretchToPrintArea: always resized to exactly the target, never cropped or bordered', () => {
  assert.deepEqual(plan(4000, 2000, 3000, 3000, 'stretchToPrintArea'), {
    rotate: 0,
    resize: { width: 3000, height: 3000 },
    crop: null,
    margins: null,
  })
})

test('rotation: a landscape source into a portrait area turns a quarter turn, in every sizing mode', () => {
  // 6000x4000 landscape photo on a 4800x7200 portrait poster: turned, it is 4000x6000, the same 2:3 shape.
  for (const sizing of SIZING_MODES) {
    assert.deepEqual(plan(6000, 4000, 4800, 7200, sizing), {
      rotate: 90,
      resize: { width: 4800, height: 7200 },
      crop: null,
      margins: null,
    })
  }
})

test('rotation: a portrait source into a landscape area turns; dimensions in the plan are after the turn', () => {
  // 2000x3000 portrait into 4000x2000 landscape: turned it is 3000x2000; fill scales to 4000x2667, cuts 333/334.
  assert.deepEqual(plan(2000, 3000, 4000, 2000, 'fillPrintArea'), {
    rotate: 90,
    resize: { width: 4000, height: 2667 },
    crop: { left: 0, top: 333, width: 4000, height: 2000 },
    margins: null,
  })
  assert.deepEqual(plan(2000, 3000, 4000, 2000, 'fitPrintArea'), {
    rotate: 90,
    resize: { width: 3000, height: 2000 },
    crop: null,
    margins: { top: 0, right: 500, bottom: 0, left: 500 },
  })
})

test('rotation: sources of the same orientation as the area never turn, however different the ratios', () => {
  assert.equal(plan(10_000, 1000, 3000, 2000, 'fillPrintArea').rotate, 0)
  assert.equal(plan(1000, 10_000, 2000, 3000, 'fitPrintArea').rotate, 0)
  assert.equal(plan(3001, 3000, 6000, 1000, 'stretchToPrintArea').rotate, 0)
})

test('rotation: a square area never turns, nor does a square source', () => {
  for (const sizing of SIZING_MODES) {
    assert.equal(plan(6000, 4000, 3054, 3054, sizing).rotate, 0)
    assert.equal(plan(4000, 6000, 3054, 3054, sizing).rotate, 0)
    assert.equal(plan(3000, 3000, 4800, 7200, sizing).rotate, 0)
    assert.equal(plan(3000, 3000, 7200, 4800, sizing).rotate, 0)
  }
  // A square source into a portrait area: fill crops the sides, fit leaves white at top and bottom.
  assert.deepEqual(plan(3000, 3000, 4800, 7200, 'fillPrintArea').crop, {
    left: 1200,
    top: 0,
    width: 4800,
    height: 7200,
  })
  assert.deepEqual(plan(3000, 3000, 4800, 7200, 'fitPrintArea').margins, { top: 1200, right: 0, bottom: 1200, left: 0 })
})

test('rotation: even a nearly square source turns when its orientation differs from the area', () => {
  // 1001x1000 is (just) landscape; the area 1000x1500 is portrait: turning makes the ratios closer.
  assert.equal(plan(1001, 1000, 1000, 1500, 'fillPrintArea').rotate, 90)
  assert.equal(plan(1000, 1001, 1500, 1000, 'fillPrintArea').rotate, 90)
})

test('invalid sizes and modes are refused', () => {
  for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_PRINT_GEOMETRY_SIDE + 1]) {
    assert.throws(() => plan(bad, 100, 100, 100, 'fillPrintArea'), RangeError)
    assert.throws(() => plan(100, 100, 100, bad, 'fitPrintArea'), RangeError)
  }
  assert.throws(() => plan(100, 100, 100, 100, 'crop' as SizingMode), /unknown sizing mode/)
})

// ---------------------------------------------------------------------------------------------------------
// Properties over arbitrary sizes
// ---------------------------------------------------------------------------------------------------------

const side = fc.integer({ min: 1, max: 20_000 })
const request = fc.record({
  sourceWidth: side,
  sourceHeight: side,
  targetWidth: side,
  targetHeight: side,
  sizing: fc.constantFrom(...SIZING_MODES),
})
const RUNS = { numRuns: 5000 }

/** Source size as the plan sees it, after its optional quarter turn. */
function turned(r: { sourceWidth: number; sourceHeight: number }, p: PrintFilePlan) {
  return p.rotate === 90 ? { w: r.sourceHeight, h: r.sourceWidth } : { w: r.sourceWidth, h: r.sourceHeight }
}

test('property: the output is always exactly the target size, in integer pixels', () => {
  fc.assert(
    fc.property(request, (r) => {
      const p = planPrintFile(r)
      assert.deepEqual(outputSize(p), { width: r.targetWidth, height: r.targetHeight })
      const numbers = [
        p.resize.width,
        p.resize.height,
        ...Object.values(p.crop ?? {}),
        ...Object.values(p.margins ?? {}),
      ]
      for (const n of numbers) assert.ok(Number.isInteger(n) && n >= 0, `${n} is not a non-negative integer`)
      assert.ok(p.resize.width >= 1 && p.resize.height >= 1)
    }),
    RUNS,
  )
})

test('property: each mode uses only its own step (fill crops, fit borders, stretch neither)', () => {
  fc.assert(
    fc.property(request, (r) => {
      const p = planPrintFile(r)
      if (r.sizing !== 'fillPrintArea') assert.equal(p.crop, null)
      if (r.sizing !== 'fitPrintArea') assert.equal(p.margins, null)
      if (r.sizing === 'stretchToPrintArea')
        assert.deepEqual(p.resize, { width: r.targetWidth, height: r.targetHeight })
    }),
    RUNS,
  )
})

test('property: fill covers the target and its centred crop stays inside the resized image', () => {
  fc.assert(
    fc.property(request, (r) => {
      const p = planPrintFile({ ...r, sizing: 'fillPrintArea' })
      assert.ok(p.resize.width >= r.targetWidth && p.resize.height >= r.targetHeight)
      // One side is exactly the target: printed as large as possible, nothing more cut than needed.
      assert.ok(p.resize.width === r.targetWidth || p.resize.height === r.targetHeight)
      if (p.crop === null) {
        assert.deepEqual(p.resize, { width: r.targetWidth, height: r.targetHeight })
        return
      }
      const { left, top, width, height } = p.crop
      assert.ok(left >= 0 && top >= 0)
      assert.ok(left + width <= p.resize.width && top + height <= p.resize.height)
      // Centred: what is cut on the two sides differs by at most one pixel.
      assert.ok(Math.abs(p.resize.width - width - left - left) <= 1)
      assert.ok(Math.abs(p.resize.height - height - top - top) <= 1)
    }),
    RUNS,
  )
})

test('property: fit leaves non-negative margins centred within one pixel, touching two opposite edges', () => {
  fc.assert(
    fc.property(request, (r) => {
      const p = planPrintFile({ ...r, sizing: 'fitPrintArea' })
      assert.ok(p.resize.width <= r.targetWidth && p.resize.height <= r.targetHeight)
      assert.ok(p.resize.width === r.targetWidth || p.resize.height === r.targetHeight)
      if (p.margins === null) {
        assert.deepEqual(p.resize, { width: r.targetWidth, height: r.targetHeight })
        return
      }
      const { top, right, bottom, left } = p.margins
      for (const m of [top, right, bottom, left]) assert.ok(m >= 0)
      assert.ok(Math.abs(left - right) <= 1 && Math.abs(top - bottom) <= 1)
      assert.ok(left + right === 0 || top + bottom === 0, 'white on two opposite sides only')
    }),
    RUNS,
  )
})

test('property: fill and fit keep the aspect ratio within a pixel', () => {
  fc.assert(
    fc.property(request, fc.constantFrom<SizingMode>('fillPrintArea', 'fitPrintArea'), (r, sizing) => {
      const p = planPrintFile({ ...r, sizing })
      const { w, h } = turned(r, p)
      // The side not pinned to the target is within one pixel of the exact scaled size.
      const exactHeight = (p.resize.width * h) / w
      const exactWidth = (p.resize.height * w) / h
      assert.ok(
        Math.abs(p.resize.height - exactHeight) <= 1 || Math.abs(p.resize.width - exactWidth) <= 1,
        `${w}x${h} resized to ${p.resize.width}x${p.resize.height}`,
      )
    }),
    RUNS,
  )
})

test('property: the rotation rule turns exactly when that brings the aspect ratios strictly closer', () => {
  // Reference rule in log space: distance |ln(a) - ln(t)|; turning replaces ln(a) by -ln(a).
  fc.assert(
    fc.property(side, side, side, side, (sw, sh, tw, th) => {
      const t = Math.log(tw / th)
      const a = Math.log(sw / sh)
      const closer = Math.abs(-a - t) < Math.abs(a - t) - 1e-12
      assert.equal(shouldRotate(sw, sh, tw, th), closer, `${sw}x${sh} into ${tw}x${th}`)
    }),
    RUNS,
  )
})

test('property: turning never makes fill cut more or fit cover less', () => {
  fc.assert(
    fc.property(side, side, side, side, (sw, sh, tw, th) => {
      const request = { sourceWidth: sw, sourceHeight: sh, targetWidth: tw, targetHeight: th }
      const fill = planPrintFile({ ...request, sizing: 'fillPrintArea' })
      if (fill.rotate === 90) {
        // Share of the source kept = target area / resized area; compare with the unturned alternative.
        const keptTurned = (tw * th) / (fill.resize.width * fill.resize.height)
        const scale = Math.max(tw / sw, th / sh)
        const keptUpright = (tw * th) / (sw * scale * sh * scale)
        // Whole pixels: a resized side may be off by up to one pixel, which matters for sides of a few pixels.
        const slack = 0.01 + 1 / Math.min(fill.resize.width, fill.resize.height)
        assert.ok(keptTurned >= keptUpright - slack, `${sw}x${sh} into ${tw}x${th}`)
      }
      const fit = planPrintFile({ ...request, sizing: 'fitPrintArea' })
      if (fit.rotate === 90) {
        const coveredTurned = (fit.resize.width * fit.resize.height) / (tw * th)
        const scale = Math.min(tw / sw, th / sh)
        const coveredUpright = (sw * scale * sh * scale) / (tw * th)
        const slack = 0.01 + 1 / Math.min(fit.resize.width, fit.resize.height)
        assert.ok(coveredTurned >= coveredUpright - slack, `${sw}x${sh} into ${tw}x${th}`)
      }
    }),
    RUNS,
  )
})

test('property: the plan depends only on shapes: swapping both source and target sides mirrors it', () => {
  fc.assert(
    fc.property(request, (r) => {
      const p = planPrintFile(r)
      const q = planPrintFile({
        ...r,
        sourceWidth: r.sourceHeight,
        sourceHeight: r.sourceWidth,
        targetWidth: r.targetHeight,
        targetHeight: r.targetWidth,
      })
      assert.equal(q.rotate, p.rotate)
      assert.deepEqual(q.resize, { width: p.resize.height, height: p.resize.width })
    }),
    RUNS,
  )
})

// ---------------------------------------------------------------------------------------------------------
// Placement: the part of the source a plan prints, in source pixels
// ---------------------------------------------------------------------------------------------------------

const placement = (
  sourceWidth: number,
  sourceHeight: number,
  targetWidth: number,
  targetHeight: number,
  sizing: SizingMode,
) =>
  placementOnSource(
    { width: sourceWidth, height: sourceHeight },
    plan(sourceWidth, sourceHeight, targetWidth, targetHeight, sizing),
  )

test('placement: fill without a turn maps the crop box back through the resize', () => {
  // 4000x2000 into 3000x2000: not scaled, 500 px cut each side.
  assert.deepEqual(placement(4000, 2000, 3000, 2000, 'fillPrintArea'), {
    left: 500,
    top: 0,
    width: 3000,
    height: 2000,
    margins: null,
  })
  // 1000x3000 into 2000x4000: scaled x2 to 2000x6000, rows 1000..5000 kept = source rows 500..2500.
  assert.deepEqual(placement(1000, 3000, 2000, 4000, 'fillPrintArea'), {
    left: 0,
    top: 500,
    width: 1000,
    height: 2000,
    margins: null,
  })
})

test('placement: fill with a turn, the crop across the turned width, lands on source rows counted from the bottom', () => {
  // 50x40 landscape into 21x30 portrait: turned clockwise to 40x50, resized to 24x30 (scale 0.6), 3 columns too
  // many: 1 cut on the left, 2 on the right (resized columns 1..22 = turned columns 1.67..36.67). The turned
  // image's left edge is the source's bottom edge, so the source keeps rows 40-36.67 = 3.33 .. 40-1.67 = 38.33
  // (more is cut at the top), all 50 columns; whole pixels around that: rows 3..39.
  assert.deepEqual(plan(50, 40, 21, 30, 'fillPrintArea'), {
    rotate: 90,
    resize: { width: 24, height: 30 },
    crop: { left: 1, top: 0, width: 21, height: 30 },
    margins: null,
  })
  assert.deepEqual(placement(50, 40, 21, 30, 'fillPrintArea'), {
    left: 0,
    top: 3,
    width: 50,
    height: 36,
    margins: null,
  })
})

test('placement: fill with a turn, the crop across the turned height, lands on source columns from the left', () => {
  // 10x4 landscape into 3x5 portrait: turned to 4x10, resized to 3x8, rows 1..6 kept (1 cut at the top, 2 at
  // the bottom) = turned rows 1.25..7.5. The turned image's top is the source's left edge: source columns
  // 1.25..7.5, all 4 rows; whole pixels around that: columns 1..8.
  assert.deepEqual(plan(10, 4, 3, 5, 'fillPrintArea').crop, { left: 0, top: 1, width: 3, height: 5 })
  assert.deepEqual(placement(10, 4, 3, 5, 'fillPrintArea'), { left: 1, top: 0, width: 7, height: 4, margins: null })
})

test('placement: fit prints the whole source with the margins of the print area; stretch the whole source', () => {
  // 4000x2000 into 3000x3000: resized to 3000x1500, 750 px of white above and below.
  assert.deepEqual(placement(4000, 2000, 3000, 3000, 'fitPrintArea'), {
    left: 0,
    top: 0,
    width: 4000,
    height: 2000,
    margins: { top: 750, right: 0, bottom: 750, left: 0 },
  })
  // Turned (600x400 into 1080x2070): the whole upright source, margins in the print area's own frame.
  assert.deepEqual(placement(600, 400, 1080, 2070, 'fitPrintArea'), {
    left: 0,
    top: 0,
    width: 600,
    height: 400,
    margins: { top: 225, right: 0, bottom: 225, left: 0 },
  })
  assert.deepEqual(placement(600, 400, 1080, 2070, 'stretchToPrintArea'), {
    left: 0,
    top: 0,
    width: 600,
    height: 400,
    margins: null,
  })
  // Same shape: nothing cut.
  assert.deepEqual(placement(6000, 4000, 3000, 2000, 'fillPrintArea'), {
    left: 0,
    top: 0,
    width: 6000,
    height: 4000,
    margins: null,
  })
})

test('property: a fill placement is a non-empty box inside the source, at most a pixel around the exact crop', () => {
  fc.assert(
    fc.property(request, (r) => {
      const p = planPrintFile({ ...r, sizing: 'fillPrintArea' })
      const box = placementOnSource({ width: r.sourceWidth, height: r.sourceHeight }, p)
      assert.ok(box.width >= 1 && box.height >= 1)
      assert.ok(box.left >= 0 && box.top >= 0)
      assert.ok(box.left + box.width <= r.sourceWidth && box.top + box.height <= r.sourceHeight)
      // The exact crop covers target / scale source pixels along each turned axis; the box rounds it outwards.
      const { w, h } = turned(r, p)
      const exactWidth = (r.targetWidth * w) / p.resize.width
      const exactHeight = (r.targetHeight * h) / p.resize.height
      const [boxAcross, boxDown] = p.rotate ? [box.height, box.width] : [box.width, box.height]
      assert.ok(boxAcross >= exactWidth - 1e-9 && boxAcross <= exactWidth + 2, `${boxAcross} vs ${exactWidth}`)
      assert.ok(boxDown >= exactHeight - 1e-9 && boxDown <= exactHeight + 2, `${boxDown} vs ${exactHeight}`)
    }),
    RUNS,
  )
})
