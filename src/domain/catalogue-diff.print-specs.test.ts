// The catalogue diff shows print specifications added or changed (docs/catalogue.md#comparing-versions), and
// nothing for catalogues without them.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { parseCatalogue } from '../catalogue/catalogue.loader.ts'
import { diffCatalogues } from './catalogue-diff.ts'

tier('pure')

test('adding a specification and a book shows as a product change; none shows nothing', () => {
  const before = parseCatalogue(testCatalogueJson(), 'a.json')
  assert.equal(diffCatalogues(1, before, 2, parseCatalogue(testCatalogueJson(), 'b.json')).total, 0)
  const json = testCatalogueJson()
  json.products[0].printAreaSpecs = {
    default: { trimMm: { width: 254, height: 254 }, bleedMm: 3, safeMm: 6, wrapMm: 38 },
  }
  json.products[2].book = { trimMm: { width: 210, height: 297 }, bleedMm: 3, safeMm: 8, pageMultiple: 2 }
  const diff = diffCatalogues(1, before, 2, parseCatalogue(json, 'c.json'))
  const products = diff.sections.find((section) => section.section === 'products')?.changes
  assert.deepEqual(products, [
    {
      change: 'changed',
      key: 'TEST-BOOK',
      before: 'book: (none)',
      after: 'book: 210x297 mm, bleed 3, safe 8, 20-100 pages by 2',
    },
    {
      change: 'changed',
      key: 'TEST-CANVAS',
      before: 'printAreaSpecs: (none)',
      after: 'printAreaSpecs: {"default":"254x254 mm, bleed 3, safe 6, wrap 38, 150-300 dpi"}',
    },
  ])
})
