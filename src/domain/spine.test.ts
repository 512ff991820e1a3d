import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testCatalogueFile } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { parseCatalogue } from '../catalogue/catalogue.loader.ts'
import {
  hasSpine,
  micrometresToMillimetres,
  millimetresToMicrometres,
  SPINE_PRINT_AREA,
  spineWidthMicrometres,
} from './spine.ts'

tier('pure')

const catalogue = parseCatalogue(testCatalogueFile(), 'test-catalogue')

test('catalogue millimetres become whole micrometres, refusing figures finer than a micrometre', () => {
  assert.equal(millimetresToMicrometres(0.448), 448)
  assert.equal(millimetresToMicrometres(5.4), 5400)
  assert.equal(millimetresToMicrometres(0), 0)
  assert.equal(millimetresToMicrometres(0.001), 1)
  assert.equal(millimetresToMicrometres(0.4485), undefined)
  assert.equal(millimetresToMicrometres(-1), undefined)
  assert.equal(millimetresToMicrometres(Number.NaN), undefined)
  assert.equal(millimetresToMicrometres(Number.POSITIVE_INFINITY), undefined)
})

test('the width is the cover allowance plus every page, exact to the micrometre', () => {
  const paper = { paper: 'test', coverAllowanceMicrometres: 5400, pageThicknessMicrometres: 400 }
  assert.equal(spineWidthMicrometres(paper, 50), 25_400)
  assert.equal(micrometresToMillimetres(spineWidthMicrometres(paper, 50)), 25.4)
  // Summing 0.1 mm pages in floating point would drift (0.1 x 3 = 0.30000000000000004); micrometres do not.
  const thin = { paper: 'thin', coverAllowanceMicrometres: 0, pageThicknessMicrometres: 100 }
  assert.equal(micrometresToMillimetres(spineWidthMicrometres(thin, 3)), 0.3)
  assert.throws(() => spineWidthMicrometres(paper, 2.5), RangeError)
  assert.throws(() => spineWidthMicrometres(paper, -1), RangeError)
})

test('only page-priced products with a spine print area have a spine', () => {
  const book = catalogue.findProduct('TEST-BOOK')
  const phoneCase = catalogue.findProduct('TEST-CASE')
  assert.ok(book && phoneCase)
  assert.ok(SPINE_PRINT_AREA in book.printAreas)
  assert.equal(hasSpine(book), true)
  assert.equal(hasSpine(phoneCase), false)
})
