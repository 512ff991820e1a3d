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

test("a lab's colour or print file format changing shows under print files, per product from the lab", () => {
  const before = parseCatalogue(testCatalogueJson(), 'a.json')
  const json = testCatalogueJson()
  const gb1 = json.labs.find((lab: { code: string }) => lab.code === 'gb1')
  // The lab's default colour turns CMYK (every product of it without its own), and one product's format changes.
  gb1.defaultColour = { space: 'cmyk', profile: 'printroute-fogra39', intent: 'relative', blackPointCompensation: true }
  const canvas = gb1.products.find((product: { sku: string }) => product.sku === 'TEST-CANVAS')
  canvas.printFileFormat = 'tiff'
  const tee = gb1.products.find((product: { sku: string }) => product.sku === 'TEST-TEE')
  tee.colour = { space: 'srgb' }
  const diff = diffCatalogues(1, before, 2, parseCatalogue(json, 'd.json'))
  const changes = diff.sections.find((section) => section.section === 'printFiles')?.changes ?? []
  const cmyk = 'colour: CMYK printroute-fogra39, relative intent, black-point compensation'
  const byKey = Object.fromEntries(changes.map((change) => [change.key, change]))
  assert.deepEqual(byKey['TEST-CANVAS from gb1'], {
    change: 'changed',
    key: 'TEST-CANVAS from gb1',
    before: 'printFileFormat: jpeg; colour: sRGB',
    after: `printFileFormat: tiff; ${cmyk}`,
  })
  assert.deepEqual(byKey['TEST-CASE from gb1'], {
    change: 'changed',
    key: 'TEST-CASE from gb1',
    before: 'colour: sRGB',
    after: cmyk,
  })
  // The T-shirt keeps its own sRGB colour and its format: unchanged. The other lab's products: unchanged.
  assert.equal(byKey['TEST-TEE from gb1'], undefined)
  assert.ok(changes.every((change) => change.key.endsWith(' from gb1')))
  // Only that section changed; the sections keep their order with print files after prices.
  assert.equal(diff.total, changes.length)
  assert.deepEqual(diff.sections.map((section) => section.section).slice(0, 3), ['products', 'prices', 'printFiles'])
})
