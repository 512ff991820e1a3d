// GET /v4.0/products/{sku} through HTTP on every database backend (docs/wire-contract.md#products):
// SKU matched in any letter case and returned in the catalogue spelling, the product shape,
// variants with destinations and pixel sizes, EntityNotFound for unknown SKUs and 401 without a key.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const PRODUCT_KEYS = ['sku', 'description', 'productDimensions', 'attributes', 'printAreas', 'variants']

interface Variant {
  attributes: Record<string, string>
  shipsTo: string[]
  printAreaSizes: Record<string, { horizontalResolution: number; verticalResolution: number }>
}

for (const kind of databaseKinds) {
  describe(`products (${kind})`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    test('a product answers Ok with the product in the contract key order', async () => {
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/products/GLOBAL-CAN-10x10' })
      assert.equal(response.statusCode, 200)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'product', 'traceParent'])
      assert.equal(body.outcome, 'Ok')
      assert.match(body.traceParent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
      assert.equal(body.traceParent, response.headers.traceparent)
      const product = body.product
      assert.deepEqual(Object.keys(product), PRODUCT_KEYS)
      assert.equal(product.sku, 'GLOBAL-CAN-10x10')
      assert.equal(typeof product.description, 'string')
      assert.ok(product.description.length > 0)
      assert.deepEqual(product.productDimensions, { width: 10, height: 10, units: 'in' })
      assert.deepEqual(Object.keys(product.productDimensions), ['width', 'height', 'units'])
      assert.deepEqual(product.attributes.wrap, ['Black', 'ImageWrap', 'MirrorWrap', 'White'])
      assert.deepEqual(Object.keys(product.printAreas), ['default'])
      assert.equal(product.printAreas.default.required, true)
    })

    test('the SKU is matched in any letter case and returned in the catalogue spelling', async () => {
      for (const sku of ['global-can-10x10', 'GLOBAL-CAN-10X10', 'Global-Can-10x10']) {
        const response = await t.sandbox({ method: 'GET', url: `/v4.0/products/${sku}` })
        assert.equal(response.statusCode, 200, sku)
        assert.equal(json(response).product.sku, 'GLOBAL-CAN-10x10', sku)
      }
    })

    test('the lower-case answer equals the canonical one', async () => {
      const canonical = json(await t.sandbox({ method: 'GET', url: '/v4.0/products/GLOBAL-CAN-10x10' })).product
      const lower = json(await t.sandbox({ method: 'GET', url: '/v4.0/products/global-can-10x10' })).product
      assert.deepEqual(lower, canonical)
    })

    test('every variant ships to a non-empty list of two-letter codes and has integer default pixel sizes', async () => {
      const product = json(await t.sandbox({ method: 'GET', url: '/v4.0/products/GLOBAL-CAN-10x10' })).product
      const variants = product.variants as Variant[]
      assert.equal(variants.length, 4)
      assert.deepEqual(variants.map((variant) => variant.attributes.wrap).sort(), [
        'Black',
        'ImageWrap',
        'MirrorWrap',
        'White',
      ])
      for (const variant of variants) {
        assert.deepEqual(Object.keys(variant), ['attributes', 'shipsTo', 'printAreaSizes'])
        assert.ok(Array.isArray(variant.shipsTo) && variant.shipsTo.length > 0)
        for (const code of variant.shipsTo) assert.match(code, /^[A-Z]{2}$/)
        assert.equal(new Set(variant.shipsTo).size, variant.shipsTo.length)
        assert.ok(variant.shipsTo.includes('GB'))
        const size = variant.printAreaSizes.default
        assert.ok(size, 'printAreaSizes.default missing')
        assert.deepEqual(Object.keys(size), ['horizontalResolution', 'verticalResolution'])
        assert.ok(Number.isInteger(size.horizontalResolution) && size.horizontalResolution > 0)
        assert.ok(Number.isInteger(size.verticalResolution) && size.verticalResolution > 0)
      }
    })

    test('the tee requires the front print area and not the back', async () => {
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/products/global-tee-bc-3001' })
      assert.equal(response.statusCode, 200)
      const product = json(response).product
      assert.equal(product.sku, 'GLOBAL-TEE-BC-3001')
      assert.deepEqual(Object.keys(product.printAreas), ['front', 'back'])
      assert.equal(product.printAreas.front.required, true)
      assert.equal(product.printAreas.back.required, false)
      assert.deepEqual(Object.keys(product.attributes), ['color', 'size'])
      const variants = product.variants as Variant[]
      assert.equal(variants.length, product.attributes.color.length * product.attributes.size.length)
      for (const variant of variants) {
        assert.deepEqual(Object.keys(variant.printAreaSizes).sort(), ['back', 'front'])
        assert.ok(variant.shipsTo.length > 0)
      }
    })

    test('a product without attributes has one variant with empty attributes', async () => {
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/products/GLOBAL-FAP-8x10' })
      assert.equal(response.statusCode, 200)
      const product = json(response).product
      assert.deepEqual(product.attributes, {})
      assert.equal(product.variants.length, 1)
      assert.deepEqual(product.variants[0].attributes, {})
    })

    test('an unknown SKU is 404 EntityNotFound', async () => {
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/products/GLOBAL-NOPE-1' })
      assert.equal(response.statusCode, 404)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
      assert.equal(body.outcome, 'EntityNotFound')
      assert.equal(body.statusCode, 404)
      assert.deepEqual(body.data, { nearestSkus: { sku: [] } }, 'nothing in the catalogue is near')
      assert.equal(body.traceParent, response.headers.traceparent)
    })

    test('an unknown SKU near known ones names them in data.nearestSkus, nearest first, in any letter case', async () => {
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/products/global-can-16X21' })
      assert.equal(response.statusCode, 404)
      assert.deepEqual(json(response).data, {
        nearestSkus: { sku: ['GLOBAL-CAN-16x20', 'GLOBAL-CAN-12x12', 'GLOBAL-CAN-16x16'] },
      })
    })

    test('a product without an API key is 401 Unauthorized', async () => {
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/products/GLOBAL-CAN-10x10' }, null)
      assert.equal(response.statusCode, 401)
      const body = json(response)
      assert.equal(body.outcome, 'Unauthorized')
      assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
    })

    test('products are served on the Live address with a Live key', async () => {
      const response = await t.live({ method: 'GET', url: '/v4.0/products/GLOBAL-CAN-10x10' })
      assert.equal(response.statusCode, 200)
      assert.equal(json(response).product.sku, 'GLOBAL-CAN-10x10')
      assert.equal(
        (await t.live({ method: 'GET', url: '/v4.0/products/GLOBAL-CAN-10x10' }, t.account.sandboxKey)).statusCode,
        401,
      )
    })

    test('a wrong method on a product is 405 allowing GET', async () => {
      const response = await t.sandbox({ method: 'POST', url: '/v4.0/products/GLOBAL-CAN-10x10', payload: {} })
      assert.equal(response.statusCode, 405)
      assert.equal(json(response).outcome, 'MethodNotAllowed')
      assert.match(String(response.headers.allow), /\bGET\b/)
    })
  })
}
