// The cover's maths (docs/api.md#book-cover-dimensions): 2 x trim width + spine + 2 x bleed by trim height + 2 x
// bleed, exact in micrometres, converted to mm, pt (72 to the inch) and in, each rounded half up once to its step.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import { COVER_UNIT_DECIMALS, COVER_UNITS, coverDimensions, micrometresIn } from './cover-dimensions.ts'
import type { BookSpec } from './print-specs.ts'

tier('pure')

const A4_LANDSCAPE: BookSpec = {
  trimMm: { width: 297, height: 210 },
  bleedMm: 3,
  safeMm: 8,
  minPages: 24,
  maxPages: 200,
  pageMultiple: 2,
}

test('the full spread: two faces, the spine and the bleed round them', () => {
  // The spine of the public example: 25.4 mm, one inch.
  assert.deepEqual(coverDimensions(A4_LANDSCAPE, 25_400, 'mm'), {
    width: 625.4,
    height: 216,
    spineWidth: 25.4,
    bleed: 3,
    safeArea: 8,
    unit: 'mm',
  })
  assert.deepEqual(coverDimensions(A4_LANDSCAPE, 25_400, 'in'), {
    width: 24.622,
    height: 8.504,
    spineWidth: 1,
    bleed: 0.118,
    safeArea: 0.315,
    unit: 'in',
  })
  assert.deepEqual(coverDimensions(A4_LANDSCAPE, 25_400, 'pt'), {
    width: 1772.79,
    height: 612.28,
    spineWidth: 72,
    bleed: 8.5,
    safeArea: 22.68,
    unit: 'pt',
  })
})

test('decimal millimetres add exactly (no 0.1 + 0.2 drift)', () => {
  const book = { ...A4_LANDSCAPE, trimMm: { width: 0.1, height: 0.2 }, bleedMm: 0.1 }
  const cover = coverDimensions(book, 300, 'mm')
  assert.equal(cover.width, 0.7)
  assert.equal(cover.height, 0.4)
})

test('each unit rounds half up once, to 0.01 mm, 0.01 pt, 0.001 in', () => {
  assert.equal(micrometresIn(5, 'mm'), 0.01)
  assert.equal(micrometresIn(4, 'mm'), 0)
  assert.equal(micrometresIn(12_345, 'mm'), 12.35)
  // 127 micrometres are exactly 0.36 pt (127 x 72 / 254 = 36 hundredths) and exactly 0.005 in: half up to 0.005.
  assert.equal(micrometresIn(127, 'pt'), 0.36)
  assert.equal(micrometresIn(127, 'in'), 0.005)
  // 12.7 micrometres would be 0.0005 in: 13 rounds up to 0.001, 12 down to 0.
  assert.equal(micrometresIn(13, 'in'), 0.001)
  assert.equal(micrometresIn(12, 'in'), 0)
  assert.equal(micrometresIn(25_400, 'pt'), 72)
  assert.throws(() => micrometresIn(1.5, 'mm'), RangeError)
  assert.throws(() => micrometresIn(-1, 'mm'), RangeError)
})

test('every unit is within half a step of the exact length and has at most its decimals', () => {
  const exact = {
    mm: (um: number) => um / 1000,
    pt: (um: number) => (um * 72) / 25_400,
    in: (um: number) => um / 25_400,
  }
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.constantFrom(...COVER_UNITS), (um, unit) => {
      const value = micrometresIn(um, unit)
      const step = 10 ** -COVER_UNIT_DECIMALS[unit]
      assert.ok(Math.abs(value - exact[unit](um)) <= step / 2 + 1e-9, `${um} um in ${unit}: ${value}`)
      const decimals = String(value).split('.')[1]?.length ?? 0
      assert.ok(decimals <= COVER_UNIT_DECIMALS[unit], `${value} ${unit}`)
    }),
  )
})
