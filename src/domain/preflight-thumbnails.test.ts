// The page thumbnails' pure parts: which pages get one, and where the trim, bleed and safe lines fall on it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import type { PreflightCheck } from './preflight.ts'
import {
  rotateRect,
  THUMBNAIL_FIRST_PAGES,
  THUMBNAIL_MAX_PAGES,
  thumbnailLayout,
  thumbnailPages,
} from './preflight-thumbnails.ts'

tier('pure')

const MM = 72 / 25.4
const check = (severity: 'error' | 'warning', page?: number): PreflightCheck => ({
  code: 'PageSizeMismatch',
  severity,
  ...(page === undefined ? {} : { page }),
  message: '',
  measured: '',
  required: '',
})
/** A 100 x 200 mm trim with 5 mm bleed and 10 mm safe: whole millimetres make the pixels easy to follow. */
const SPEC = { trimMm: { width: 100, height: 200 }, bleedMm: 5, safeMm: 10 }
const FULL: [number, number, number, number] = [0, 0, 110 * MM, 210 * MM]

test('the first pages, then the pages an error names, at most the cap, only pages the file has', () => {
  assert.deepEqual(thumbnailPages(2, []), [1, 2])
  assert.deepEqual(thumbnailPages(100, []), [1, 2, 3, 4])
  assert.equal(THUMBNAIL_FIRST_PAGES, 4)
  assert.deepEqual(thumbnailPages(100, [check('error', 50), check('warning', 60), check('error', 2)]), [1, 2, 3, 4, 50])
  assert.deepEqual(thumbnailPages(10, [check('error', 11), check('error')]), [1, 2, 3, 4])
  const many = Array.from({ length: 20 }, (_, index) => check('error', 90 - index))
  const pages = thumbnailPages(100, many)
  assert.equal(pages.length, THUMBNAIL_MAX_PAGES)
  assert.deepEqual(pages, [1, 2, 3, 4, 71, 72, 73, 74], 'the lowest error pages first')
  assert.deepEqual(thumbnailPages(0, []), [])
})

test('a page with TrimBox and BleedBox: the lines where the boxes are, y measured from the top', () => {
  const layout = thumbnailLayout(
    { view: FULL, trimBox: [5 * MM, 5 * MM, 105 * MM, 205 * MM], bleedBox: FULL, rotate: 0 },
    SPEC,
    210,
  )
  assert.ok(layout)
  // 210 mm is the long side: one pixel per millimetre.
  assert.equal(layout.height, 210)
  assert.equal(layout.width, 110)
  assert.deepEqual(layout.bleed, { left: 0, top: 0, width: 110, height: 210 })
  assert.deepEqual(layout.trim, { left: 5, top: 5, width: 100, height: 200 })
  assert.deepEqual(layout.safe, { left: 15, top: 15, width: 80, height: 180 })
})

test('a TrimBox off centre is placed from the top of the page, not the bottom', () => {
  const layout = thumbnailLayout(
    { view: FULL, trimBox: [0, 0, 50 * MM, 100 * MM], bleedBox: null, rotate: 0 },
    null,
    210,
  )
  assert.ok(layout)
  assert.deepEqual(layout.trim, { left: 0, top: 110, width: 50, height: 100 })
  assert.equal(layout.bleed, null)
  assert.equal(layout.safe, null, 'no spec: no safe area')
})

test('no boxes: a page the size of trim + bleed has its bleed round the trim; any other page is the trim', () => {
  const bled = thumbnailLayout({ view: FULL, trimBox: null, bleedBox: null, rotate: 0 }, SPEC, 210)
  assert.ok(bled)
  assert.deepEqual(bled.bleed, { left: 0, top: 0, width: 110, height: 210 })
  assert.deepEqual(bled.trim, { left: 5, top: 5, width: 100, height: 200 })
  const trimOnly = thumbnailLayout(
    { view: [0, 0, 100 * MM, 200 * MM], trimBox: null, bleedBox: null, rotate: 0 },
    SPEC,
    200,
  )
  assert.ok(trimOnly)
  assert.equal(trimOnly.bleed, null, 'a page without bleed shows no bleed line')
  assert.deepEqual(trimOnly.trim, { left: 0, top: 0, width: 100, height: 200 })
  assert.deepEqual(trimOnly.safe, { left: 10, top: 10, width: 80, height: 180 })
})

test('a BleedBox without a TrimBox: the trim is the bleed box less the bleed', () => {
  const layout = thumbnailLayout({ view: FULL, trimBox: null, bleedBox: FULL, rotate: 0 }, SPEC, 210)
  assert.ok(layout)
  assert.deepEqual(layout.trim, { left: 5, top: 5, width: 100, height: 200 })
})

test('boxes beyond the page are clipped to it; a safe margin wider than the trim has no area', () => {
  const layout = thumbnailLayout(
    { view: FULL, trimBox: [-50 * MM, 5 * MM, 105 * MM, 205 * MM], bleedBox: null, rotate: 0 },
    { ...SPEC, safeMm: 500 },
    210,
  )
  assert.ok(layout)
  assert.deepEqual(layout.trim, { left: 0, top: 5, width: 105, height: 200 })
  assert.equal(layout.safe?.width, 0)
  assert.equal(layout.safe?.height, 0)
})

test('a huge page stays at the long side; a page without area gets no thumbnail', () => {
  const huge = thumbnailLayout({ view: [0, 0, 14_400_000, 7_200_000], trimBox: null, bleedBox: null, rotate: 0 }, null)
  assert.ok(huge)
  assert.deepEqual([huge.width, huge.height], [240, 120])
  assert.equal(thumbnailLayout({ view: [0, 0, 0, 100], trimBox: null, bleedBox: null, rotate: 0 }, null), null)
  assert.equal(
    thumbnailLayout({ view: [0, 0, Number.POSITIVE_INFINITY, 100], trimBox: null, bleedBox: null, rotate: 0 }, null),
    null,
  )
})

test('a rotated page: the picture and its lines turn clockwise as the page is shown', () => {
  const trimBox: [number, number, number, number] = [0, 0, 50 * MM, 100 * MM]
  const turned = thumbnailLayout({ view: FULL, trimBox, bleedBox: null, rotate: 90 }, null, 210)
  assert.ok(turned)
  assert.deepEqual([turned.width, turned.height], [210, 110])
  // Unturned the trim is at left 0, top 110, 50 x 100 on a 110 x 210 picture: its bottom left corner, which a
  // quarter turn clockwise brings to the top left.
  assert.deepEqual(turned.trim, { left: 0, top: 0, width: 100, height: 50 })
  const upsideDown = thumbnailLayout({ view: FULL, trimBox, bleedBox: null, rotate: 180 }, null, 210)
  assert.deepEqual(upsideDown?.trim, { left: 60, top: 0, width: 50, height: 100 })
  const back = thumbnailLayout({ view: FULL, trimBox, bleedBox: null, rotate: -90 }, null, 210)
  assert.deepEqual(back?.trim, { left: 110, top: 60, width: 100, height: 50 })
  // Four quarter turns are none.
  let rect = { left: 3, top: 7, width: 20, height: 30 }
  let size = [110, 210]
  for (let turn = 0; turn < 4; turn++) {
    rect = rotateRect(rect, 90, size[0] as number, size[1] as number)
    size = [size[1] as number, size[0] as number]
  }
  assert.deepEqual(rect, { left: 3, top: 7, width: 20, height: 30 })
})
