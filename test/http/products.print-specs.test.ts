// Print specifications on GET /v4.0/products/{sku} (docs/api.md#print-specifications): on the print area when every
// variant agrees, per variant beside printAreaSizes where they differ, a book's interior as `book`, keys in the
// documented order; the product list shows none of them; and a catalogue without specifications answers byte for
// byte what it always did.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Catalogue } from '../../src/domain/catalogue.ts'
import { changedSampleCatalogue, json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const SPEC_KEYS = ['trimMm', 'bleedMm', 'safeMm', 'wrapMm', 'minDpi', 'recommendedDpi']

/** The sample as catalogues were before print specifications: no `printAreaSpecs`, no `book`. */
function catalogueWithoutSpecs(): Catalogue {
  return changedSampleCatalogue('without-specs.json', (file) => {
    for (const product of file.products) {
      delete product.printAreaSpecs
      delete product.book
    }
  })
}

/** The sample with the tee's `front` area specified differently for its 2xl-4xl sizes. */
function catalogueWithDifferingTee(): Catalogue {
  return changedSampleCatalogue('differing-tee.json', (file) => {
    const tee = file.products.find((product: { sku: string }) => product.sku === 'GLOBAL-TEE-BC-3001')
    tee.variantOverrides = ['2xl', '3xl', '4xl'].map((size) => ({
      when: { size },
      printAreaSpecs: { front: { trimMm: { width: 406.4, height: 508 } } },
    }))
  })
}

for (const kind of databaseKinds) {
  describe(`product print specifications (${kind})`, () => {
    let t: TestApp
    let old: TestApp
    let differing: TestApp

    before(async () => {
      t = await startTestApp({ kind })
      old = await startTestApp({ kind, catalogue: catalogueWithoutSpecs() })
      differing = await startTestApp({ kind, catalogue: catalogueWithDifferingTee() })
    })
    after(async () => {
      await t.close()
      await old.close()
      await differing.close()
    })

    const product = async (app: TestApp, sku: string) => {
      const response = await app.sandbox({ method: 'GET', url: `/v4.0/products/${sku}` })
      assert.equal(response.statusCode, 200, response.body)
      return json(response).product
    }

    test("a canvas's specification sits on its print area, keys in order; variants keep their shape", async () => {
      const canvas = await product(t, 'GLOBAL-CAN-10x10')
      assert.deepEqual(Object.keys(canvas.printAreas.default), ['required', 'spec'])
      assert.deepEqual(Object.keys(canvas.printAreas.default.spec), SPEC_KEYS)
      assert.deepEqual(canvas.printAreas.default.spec, {
        trimMm: { width: 254, height: 254 },
        bleedMm: 3,
        safeMm: 6,
        wrapMm: 38,
        minDpi: 100,
        recommendedDpi: 300,
      })
      for (const variant of canvas.variants) {
        assert.deepEqual(Object.keys(variant), ['attributes', 'shipsTo', 'printAreaSizes'])
      }
      assert.deepEqual(Object.keys(canvas), [
        'sku',
        'description',
        'productDimensions',
        'attributes',
        'printAreas',
        'variants',
      ])
    })

    test('a flat product has wrapMm null; a book has `book` last and no print area specification', async () => {
      const print = await product(t, 'GLOBAL-FAP-16x24')
      assert.equal(print.printAreas.default.spec.wrapMm, null)
      assert.deepEqual(print.printAreas.default.spec.trimMm, { width: 406.4, height: 609.6 })

      const book = await product(t, 'BOOK-A4-L-HARD-M')
      assert.deepEqual(Object.keys(book), [
        'sku',
        'description',
        'productDimensions',
        'attributes',
        'printAreas',
        'variants',
        'book',
      ])
      assert.deepEqual(book.book, {
        trimMm: { width: 297, height: 210 },
        bleedMm: 3,
        safeMm: 8,
        minPages: 24,
        maxPages: 200,
        pageMultiple: 2,
      })
      assert.deepEqual(book.printAreas, { default: { required: true }, spine: { required: false } })
    })

    test('where variants differ, each variant carries its own beside printAreaSizes', async () => {
      const tee = await product(differing, 'GLOBAL-TEE-BC-3001')
      // `back` is the same on every size: on the area. `front` differs: on each variant.
      assert.deepEqual(Object.keys(tee.printAreas.back), ['required', 'spec'])
      assert.deepEqual(tee.printAreas.front, { required: true })
      for (const variant of tee.variants) {
        assert.deepEqual(Object.keys(variant), ['attributes', 'shipsTo', 'printAreaSizes', 'printAreaSpecs'])
        assert.deepEqual(Object.keys(variant.printAreaSpecs), ['front'])
        assert.deepEqual(Object.keys(variant.printAreaSpecs.front), SPEC_KEYS)
        const large = ['2xl', '3xl', '4xl'].includes(variant.attributes.size)
        assert.deepEqual(
          variant.printAreaSpecs.front.trimMm,
          large ? { width: 406.4, height: 508 } : { width: 396.24, height: 490.22 },
          variant.attributes.size,
        )
      }
      // The list keeps its light shape: no specification anywhere.
      const list = json(await differing.sandbox({ method: 'GET', url: '/v4.0/products?search=GLOBAL-TEE-BC' }))
      const entry = list.products[0]
      assert.equal(entry.sku, 'GLOBAL-TEE-BC-3001')
      for (const variant of entry.variants)
        assert.deepEqual(Object.keys(variant), ['attributes', 'shipsTo', 'printAreaSizes'])
      assert.deepEqual(entry.printAreas, ['front', 'back'])
    })

    test('a catalogue without specifications answers exactly the bytes of before', async () => {
      const catalogue = catalogueWithoutSpecs()
      for (const sku of ['GLOBAL-CAN-10x10', 'GLOBAL-TEE-GIL-64000', 'BOOK-A4-L-HARD-M', 'GLOBAL-JIG-500']) {
        const response = await old.sandbox({ method: 'GET', url: `/v4.0/products/${sku}` })
        assert.equal(response.statusCode, 200)
        const known = catalogue.findProduct(sku)
        assert.ok(known)
        // The old shape, written out key by key.
        const expected = {
          outcome: 'Ok',
          product: {
            sku: known.sku,
            description: known.description,
            productDimensions: known.productDimensions,
            attributes: known.attributes,
            printAreas: Object.fromEntries(
              Object.values(known.printAreas).map((area) => [area.name, { required: area.required }]),
            ),
            variants: known.variants.map((variant) => ({
              attributes: variant.attributes,
              shipsTo: variant.shipsTo,
              printAreaSizes: variant.printAreaSizes,
            })),
          },
          traceParent: response.headers.traceparent,
        }
        assert.equal(response.body, JSON.stringify(expected), sku)
      }
    })
  })
}
