// GET /v4.0/products: every catalogue product by SKU, paged like the orders list, searched in SKU,
// description and attribute values in any letter case; each entry the product's details (print areas by
// name) with the labs that make it and the countries it ships to.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { catalogue, json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const ENTRY_KEYS = [
  'sku',
  'description',
  'productDimensions',
  'attributes',
  'printAreas',
  'variants',
  'labs',
  'shipsTo',
]

const SKUS_BY_SKU = catalogue.products
  .map((product) => product.sku)
  .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1))

for (const kind of databaseKinds) {
  describe(`product list (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    async function page(url: string) {
      const response = await t.sandbox({ method: 'GET', url })
      assert.equal(response.statusCode, 200, response.body)
      return json(response)
    }
    const skus = (body: Record<string, any>): string[] => body.products.map((product: any) => product.sku)

    test('pages of 20 by SKU, followed by nextUrl to the end', async () => {
      assert.ok(SKUS_BY_SKU.length > 40, 'the sample has several pages')
      const first = await page('/v4.0/products')
      assert.deepEqual(Object.keys(first), ['outcome', 'products', 'hasMore', 'nextUrl', 'traceParent'])
      assert.equal(first.outcome, 'Ok')
      assert.deepEqual(skus(first), SKUS_BY_SKU.slice(0, 20))
      assert.equal(first.hasMore, true)
      assert.equal(first.nextUrl, `${t.app.publicUrl('sandbox')}/v4.0/products?top=20&skip=20`)
      const seen = [...skus(first)]
      let next: string | null = first.nextUrl
      while (next !== null) {
        const body = await page(new URL(next).pathname + new URL(next).search)
        seen.push(...skus(body))
        next = body.nextUrl
        assert.equal(body.hasMore, next !== null)
      }
      assert.deepEqual(seen, SKUS_BY_SKU)
      const last = await page(`/v4.0/products?top=100`)
      assert.deepEqual(skus(last), SKUS_BY_SKU)
      assert.equal(last.hasMore, false)
      assert.equal(last.nextUrl, null)
      assert.deepEqual((await page('/v4.0/products?skip=5000')).products, [])
    })

    test('an entry is the product details with print area names, its labs and where it ships', async () => {
      const [entry] = (await page('/v4.0/products?search=GLOBAL-CAN-10x10')).products
      assert.deepEqual(Object.keys(entry), ENTRY_KEYS)
      const details = json(await t.sandbox({ method: 'GET', url: '/v4.0/products/GLOBAL-CAN-10x10' })).product
      for (const key of ['sku', 'description', 'productDimensions', 'attributes', 'variants']) {
        assert.deepEqual(entry[key], details[key], key)
      }
      assert.deepEqual(entry.printAreas, Object.keys(details.printAreas))
      const product = catalogue.findProduct('GLOBAL-CAN-10x10')
      assert.ok(product)
      const labs = new Map(
        product.variants.flatMap((variant) => variant.offers.map((offer) => [offer.lab.code, offer.lab])),
      )
      assert.ok(labs.size > 1)
      assert.deepEqual(
        entry.labs,
        [...labs.values()]
          .map((lab) => ({ code: lab.code, name: lab.name, countryCode: lab.countryCode }))
          .sort((a, b) => (a.code < b.code ? -1 : 1)),
      )
      const countries = new Set(details.variants.flatMap((variant: any) => variant.shipsTo))
      assert.deepEqual(entry.shipsTo, [...countries].sort())
      // Every page entry has the same shape, also products with several print areas.
      const all = (await page('/v4.0/products?top=100')).products
      const book = all.find((candidate: any) => candidate.printAreas.length > 1)
      assert.ok(book, 'some product has several print areas')
      assert.deepEqual(
        book.printAreas,
        Object.keys(json(await t.sandbox({ method: 'GET', url: `/v4.0/products/${book.sku}` })).product.printAreas),
      )
    })

    test('search: SKU, description or attribute value, any letter case, paged with the filter kept', async () => {
      const expected = (match: (product: (typeof catalogue.products)[number]) => boolean) =>
        SKUS_BY_SKU.filter((sku) => match(catalogue.findProduct(sku) as (typeof catalogue.products)[number]))
      const bySku = await page('/v4.0/products?search=can-1')
      assert.deepEqual(
        skus(bySku),
        expected((product) => product.sku.toLowerCase().includes('can-1')),
      )
      assert.ok(skus(bySku).length > 1)
      const byDescription = await page('/v4.0/products?Search=%20STRETCHER%20bar%20&top=100')
      assert.deepEqual(
        skus(byDescription),
        expected((product) => product.description.toLowerCase().includes('stretcher bar')),
      )
      assert.ok(skus(byDescription).length > 1)
      const byAttribute = await page('/v4.0/products?search=mirrorwrap&top=100')
      assert.deepEqual(
        skus(byAttribute),
        expected((product) => Object.values(product.attributes).flat().includes('MirrorWrap')),
      )
      assert.ok(skus(byAttribute).length > 0)
      assert.ok(!byAttribute.products.some((product: any) => /mirrorwrap/i.test(product.sku + product.description)))

      const paged = await page('/v4.0/products?search=Can-1&top=1')
      assert.deepEqual(skus(paged), skus(bySku).slice(0, 1))
      assert.equal(paged.nextUrl, `${t.app.publicUrl('sandbox')}/v4.0/products?search=Can-1&top=1&skip=1`)
      const none = await page('/v4.0/products?search=no-such-product-anywhere')
      assert.deepEqual(none.products, [])
      assert.equal(none.hasMore, false)
      assert.equal(none.nextUrl, null)
      assert.deepEqual(skus(await page('/v4.0/products?search=')), SKUS_BY_SKU.slice(0, 20))
    })

    test('bad queries are ValidationFailed naming the parameter; no key is Unauthorized', async () => {
      const cases: [string, string, string][] = [
        ['top=0', 'top', 'MustBeGreaterThanOrEqualTo'],
        ['top=101', 'top', 'MustBeLessThanOrEqualTo'],
        ['skip=-1', 'skip', 'MustBeGreaterThanOrEqualTo'],
        [`search=${'a'.repeat(201)}`, 'search', 'TooLong'],
        ['search=a%09b', 'search', 'InvalidCharacter'],
        ['sku=GLOBAL-CAN-10x10', 'sku', 'UnknownField'],
      ]
      for (const [query, field, code] of cases) {
        const response = await t.sandbox({ method: 'GET', url: `/v4.0/products?${query}` })
        assert.equal(response.statusCode, 400, `${query}: ${response.body}`)
        const body = json(response)
        assert.equal(body.outcome, 'ValidationFailed')
        assert.equal(body.failures[field]?.[0]?.code, code, `${query}: ${JSON.stringify(body.failures)}`)
      }
      const anonymous = await t.sandbox({ method: 'GET', url: '/v4.0/products' }, null)
      assert.equal(anonymous.statusCode, 401)
      assert.equal(json(anonymous).outcome, 'Unauthorized')
    })
  })
}
