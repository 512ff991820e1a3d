// Print specifications in the catalogue (docs/catalogue.md#print-specifications): optional and additive (a catalogue
// without them loads to {} and null), resolved per variant through overrides and explicit variants, and every bad
// value refused with its path: sizes, decimals, the safe area, the resolutions, a wrap band on a flat product, a book
// entry on a product not priced by page, a page range the page multiple does not divide.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { DEFAULT_RECOMMENDED_DPI } from '../domain/catalogue-print-specs.ts'
import { CatalogueError, parseCatalogue } from './catalogue.loader.ts'

tier('pure')

function problemsOf(json: unknown): string[] {
  try {
    parseCatalogue(json, 'test.json')
  } catch (error) {
    assert.ok(error instanceof CatalogueError, `expected CatalogueError, got ${String(error)}`)
    return [...error.problems]
  }
  assert.fail('the catalogue loaded, but it should have been refused')
}

function assertProblem(problems: string[], path: string, reason: string): void {
  const found = problems.some((problem) => problem.startsWith(`${path}: `) && problem.includes(reason))
  assert.ok(found, `no problem "${path}: ...${reason}..." among:\n${problems.join('\n')}`)
}

const CANVAS = 0
const TEE = 1
const BOOK = 2
const FRAME = 4
const CANVAS_PATH = 'products[0] (TEST-CANVAS)'
const BOOK_PATH = 'products[2] (TEST-BOOK)'

/** The fixture with specifications on the canvas, the frame and the book. */
function specifiedJson() {
  const json = testCatalogueJson()
  json.products[CANVAS].printAreaSpecs = {
    default: { trimMm: { width: 254, height: 254 }, bleedMm: 3, safeMm: 6, wrapMm: 38 },
  }
  json.products[CANVAS].variantOverrides[0].printAreaSpecs = { default: { recommendedDpi: 360 } }
  json.products[FRAME].printAreaSpecs = {
    default: { trimMm: { width: 203.2, height: 254 }, bleedMm: 3, safeMm: 5, minDpi: 120 },
  }
  json.products[FRAME].variants[1].printAreaSpecs = { default: { trimMm: { width: 406.4, height: 508 } } }
  json.products[BOOK].book = { trimMm: { width: 210, height: 297 }, bleedMm: 3, safeMm: 8, pageMultiple: 2 }
  return json
}

test('a catalogue without specifications loads with empty specs and no book', () => {
  const catalogue = parseCatalogue(testCatalogueJson(), 'test.json')
  for (const product of catalogue.products) {
    assert.equal(product.book, null, product.sku)
    for (const variant of product.variants) assert.deepEqual(variant.printAreaSpecs, {}, variant.key)
  }
})

test('specifications resolve per variant: product entry, overrides in order, then the explicit variant', () => {
  const catalogue = parseCatalogue(specifiedJson(), 'test.json')
  assert.deepEqual(catalogue.findVariant('TEST-CANVAS', { wrap: 'Black' })?.printAreaSpecs, {
    default: {
      trimMm: { width: 254, height: 254 },
      bleedMm: 3,
      safeMm: 6,
      wrapMm: 38,
      minDpi: 150,
      recommendedDpi: DEFAULT_RECOMMENDED_DPI,
    },
  })
  assert.equal(catalogue.findVariant('TEST-CANVAS', { wrap: 'ImageWrap' })?.printAreaSpecs.default?.recommendedDpi, 360)
  const small = catalogue.findVariant('TEST-FRAME', { color: 'black', size: 'small' })?.printAreaSpecs.default
  const large = catalogue.findVariant('TEST-FRAME', { color: 'black', size: 'large' })?.printAreaSpecs.default
  assert.deepEqual(small?.trimMm, { width: 203.2, height: 254 })
  assert.deepEqual(large, {
    trimMm: { width: 406.4, height: 508 },
    bleedMm: 3,
    safeMm: 5,
    wrapMm: null,
    minDpi: 120,
    recommendedDpi: 300,
  })
  // Areas the catalogue does not specify are absent, and so are products without any.
  assert.deepEqual(catalogue.findVariant('TEST-TEE', { color: 'black', size: 's' })?.printAreaSpecs, {})
  assert.deepEqual(catalogue.findProduct('TEST-BOOK')?.book, {
    trimMm: { width: 210, height: 297 },
    bleedMm: 3,
    safeMm: 8,
    minPages: 20,
    maxPages: 100,
    pageMultiple: 2,
  })
})

test("minDpi defaults to the product's minimumDpi", () => {
  const json = specifiedJson()
  json.products[CANVAS].minimumDpi = 100
  const catalogue = parseCatalogue(json, 'test.json')
  assert.equal(catalogue.findVariant('TEST-CANVAS', { wrap: 'Black' })?.printAreaSpecs.default?.minDpi, 100)
})

test('the file text keeps the specifications, so a stored version reads back the same', () => {
  const catalogue = parseCatalogue(specifiedJson(), 'test.json')
  const again = parseCatalogue(JSON.parse(catalogue.fileText()), 'again.json')
  assert.deepEqual(
    again.products.map((product) => [product.book, product.variants.map((variant) => variant.printAreaSpecs)]),
    catalogue.products.map((product) => [product.book, product.variants.map((variant) => variant.printAreaSpecs)]),
  )
})

test('sizes: zero or negative trims and bands, more than 3 decimals, beyond the bounds', () => {
  const json = specifiedJson()
  json.products[CANVAS].printAreaSpecs.default = {
    trimMm: { width: 0, height: -5 },
    bleedMm: -1,
    safeMm: 1.0001,
    wrapMm: 0,
  }
  json.products[FRAME].printAreaSpecs.default.trimMm = { width: 6000, height: 254 }
  const problems = problemsOf(json)
  const at = `${CANVAS_PATH}.printAreaSpecs.default`
  assertProblem(problems, `${at}.trimMm.width`, 'must be a positive number of millimetres')
  assertProblem(problems, `${at}.trimMm.height`, 'must be a positive number of millimetres')
  assertProblem(problems, `${at}.bleedMm`, 'must be a non-negative number of millimetres')
  assertProblem(problems, `${at}.safeMm`, 'with at most 3 decimals, got 1.0001')
  assertProblem(problems, `${at}.wrapMm`, 'must be a positive number of millimetres')
  assertProblem(problems, 'products[4] (TEST-FRAME).printAreaSpecs.default.trimMm.width', 'must be at most 5000 mm')
})

test("the product's entries need trim, bleed and safe; unknown fields and print areas are named", () => {
  const json = specifiedJson()
  json.products[CANVAS].printAreaSpecs.default = { trimMm: { width: 254, height: 254 }, bleed: 3 }
  json.products[CANVAS].printAreaSpecs.lid = { trimMm: { width: 10, height: 10 }, bleedMm: 0, safeMm: 0 }
  const problems = problemsOf(json)
  assertProblem(problems, `${CANVAS_PATH}.printAreaSpecs.default.bleedMm`, 'is required')
  assertProblem(problems, `${CANVAS_PATH}.printAreaSpecs.default.safeMm`, 'is required')
  assertProblem(problems, `${CANVAS_PATH}.printAreaSpecs.default.bleed`, 'unknown field')
  assertProblem(problems, `${CANVAS_PATH}.printAreaSpecs.lid`, 'unknown print area (the product has default)')
})

test('a safe area of half the trim or more is refused where it is written, naming the variant of an override', () => {
  const json = specifiedJson()
  json.products[CANVAS].printAreaSpecs.default.safeMm = 127
  json.products[FRAME].variants[1].printAreaSpecs.default = { trimMm: { width: 10, height: 508 } }
  const problems = problemsOf(json)
  assertProblem(
    problems,
    `${CANVAS_PATH}.printAreaSpecs.default.safeMm`,
    "must be less than half the trim's shorter side (254 mm), got 127",
  )
  assertProblem(
    problems,
    'products[4] (TEST-FRAME).printAreaSpecs.default.safeMm',
    'shorter side (10 mm), got 5 (variant {color=black,size=large})',
  )
})

test('minDpi above recommendedDpi is refused, also when minDpi comes from minimumDpi', () => {
  const json = specifiedJson()
  json.products[FRAME].printAreaSpecs.default.minDpi = 400
  json.products[CANVAS].minimumDpi = 500
  const problems = problemsOf(json)
  assertProblem(
    problems,
    'products[4] (TEST-FRAME).printAreaSpecs.default.minDpi',
    'must be at most recommendedDpi (300)',
  )
  assertProblem(
    problems,
    `${CANVAS_PATH}.printAreaSpecs.default.recommendedDpi`,
    'is required: the default 300 is below minDpi (500',
  )
  assertProblem(
    problems,
    `${CANVAS_PATH}.variantOverrides[0].printAreaSpecs.default.recommendedDpi`,
    "must be at least minDpi (500, the product's minimumDpi) (variant {wrap=ImageWrap,edge=38mm})",
  )
})

test('a wrap band only on products with a wrap attribute', () => {
  const json = specifiedJson()
  json.products[FRAME].printAreaSpecs.default.wrapMm = 38
  assertProblem(
    problemsOf(json),
    'products[4] (TEST-FRAME).printAreaSpecs.default.wrapMm',
    'only allowed on products with a wrap attribute (canvases); TEST-FRAME has none',
  )
})

test('overrides: only of specified areas, and each override gives sizes or specifications', () => {
  const json = specifiedJson()
  json.products[TEE].variantOverrides = [{ when: { size: 'm' }, printAreaSpecs: { front: { bleedMm: 1 } } }]
  json.products[CANVAS].variantOverrides.push({ when: { wrap: 'Black' } })
  json.products[FRAME].variants[0].printAreaSpecs = { back: { bleedMm: 1 } }
  const problems = problemsOf(json)
  assertProblem(
    problems,
    'products[1] (TEST-TEE).variantOverrides[0].printAreaSpecs.front',
    "the product's printAreaSpecs has no entry for front to lay this over",
  )
  assertProblem(problems, `${CANVAS_PATH}.variantOverrides[1].printAreaSizes`, 'is required (or printAreaSpecs')
  assertProblem(problems, 'products[4] (TEST-FRAME).variants[0].printAreaSpecs.back', 'unknown print area')
})

test('book: only with pagePricing, a page multiple of at least 1 dividing the page range, a sane safe area', () => {
  const json = specifiedJson()
  json.products[BOOK].book.pageMultiple = 0
  json.products[BOOK].book.bleedMm = -3
  json.products[3].book = { trimMm: { width: 10, height: 10 }, bleedMm: 0, safeMm: 0, pageMultiple: 1 }
  const problems = problemsOf(json)
  assertProblem(problems, `${BOOK_PATH}.book.pageMultiple`, 'must be a positive integer, got number 0')
  assertProblem(problems, `${BOOK_PATH}.book.bleedMm`, 'must be a non-negative number of millimetres')
  assertProblem(
    problems,
    'products[3] (TEST-CASE).book',
    'only allowed for products with pagePricing; TEST-CASE has none',
  )

  const odd = specifiedJson()
  odd.products[BOOK].book.pageMultiple = 8
  odd.products[BOOK].book.safeMm = 105
  const oddProblems = problemsOf(odd)
  assertProblem(
    oddProblems,
    `${BOOK_PATH}.book.pageMultiple`,
    'pagePricing.minimumPages (20) must be a multiple of it (8)',
  )
  assertProblem(
    oddProblems,
    `${BOOK_PATH}.book.pageMultiple`,
    'pagePricing.maximumPages (100) must be a multiple of it (8)',
  )
  assertProblem(
    oddProblems,
    `${BOOK_PATH}.book.safeMm`,
    "must be less than half the trim's shorter side (210 mm), got 105",
  )
})
