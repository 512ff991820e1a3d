// The spine paper of lab product entries (docs/catalogue.md, "Lab product entries"): required exactly for books
// with a spine print area, checked figure by figure, loaded in micrometres; and the sample's books carry it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { hasSpine } from '../domain/spine.ts'
import { CatalogueError, loadCatalogue, parseCatalogue } from './catalogue.loader.ts'

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

/** gb1's TEST-BOOK entry in the fixture. */
const BOOK_ENTRY = 2

test('the paper loads in micrometres onto the lab offer; other products have none', () => {
  const catalogue = parseCatalogue(testCatalogueJson(), 'test.json')
  const book = catalogue.findVariant('TEST-BOOK')
  const canvas = catalogue.findVariant('TEST-CANVAS', { wrap: 'Black' })
  assert.ok(book && canvas)
  assert.deepEqual(book.offers[0]?.spine, {
    paper: 'Test silk 170gsm',
    coverAllowanceMicrometres: 3500,
    pageThicknessMicrometres: 120,
  })
  for (const offer of canvas.offers) assert.equal(offer.spine, null)
})

test('a lab making a book with a spine must give its paper', () => {
  const json = testCatalogueJson()
  delete json.labs[0].products[BOOK_ENTRY].spine
  assertProblem(problemsOf(json), `labs[0] (gb1).products[${BOOK_ENTRY}].spine`, 'is required')
})

test('the paper is only allowed on books with a spine print area', () => {
  const json = testCatalogueJson()
  json.labs[0].products[3].spine = { paper: 'x', coverAllowanceMm: 1, pageThicknessMm: 0.1 }
  assertProblem(problemsOf(json), 'labs[0] (gb1).products[3].spine', 'only allowed for books with a spine print area')
})

test('paper figures: named, non-negative cover, positive page, at most 3 decimals, within bounds, no extras', () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ coverAllowanceMm: 1, pageThicknessMm: 0.1 }, 'paper', 'is required'],
    [{ paper: 'p', coverAllowanceMm: -1, pageThicknessMm: 0.1 }, 'coverAllowanceMm', 'non-negative number'],
    [{ paper: 'p', coverAllowanceMm: '3', pageThicknessMm: 0.1 }, 'coverAllowanceMm', 'non-negative number'],
    [{ paper: 'p', coverAllowanceMm: 1, pageThicknessMm: 0 }, 'pageThicknessMm', 'positive number'],
    [{ paper: 'p', coverAllowanceMm: 1, pageThicknessMm: 0.1234 }, 'pageThicknessMm', 'at most 3 decimals'],
    [{ paper: 'p', coverAllowanceMm: 1, pageThicknessMm: 120 }, 'pageThicknessMm', 'at most 5 mm'],
    [{ paper: 'p', coverAllowanceMm: 3500, pageThicknessMm: 0.1 }, 'coverAllowanceMm', 'at most 50 mm'],
    [{ paper: 'p', coverAllowanceMm: 1, pageThicknessMm: 0.1, gsm: 170 }, 'gsm', 'unknown field'],
  ]
  for (const [spine, field, reason] of cases) {
    const json = testCatalogueJson()
    json.labs[0].products[BOOK_ENTRY].spine = spine
    assertProblem(problemsOf(json), `labs[0] (gb1).products[${BOOK_ENTRY}].spine.${field}`, reason)
  }
})

test('a spine print area needs page pricing', () => {
  const json = testCatalogueJson()
  json.products[3].printAreas.spine = { required: false, horizontalResolution: 300, verticalResolution: 2200 }
  assertProblem(problemsOf(json), 'products[3] (TEST-CASE).printAreas.spine', 'needs pagePricing')
})

test('in the sample, every lab making a book with a spine has its paper, and only those books have one', () => {
  const sample = loadCatalogue()
  const books = sample.products.filter((product) => hasSpine(product))
  assert.deepEqual(books.map((book) => book.sku).sort(), ['BOOK-A4-L-HARD-M', 'BOOK-FE-11_7-SQ-HARD-G'])
  for (const product of sample.products) {
    for (const variant of product.variants) {
      for (const offer of variant.offers) {
        if (hasSpine(product)) assert.ok(offer.spine, `${product.sku} at ${offer.lab.code}`)
        else assert.equal(offer.spine, null, `${product.sku} at ${offer.lab.code}`)
      }
    }
  }
})
