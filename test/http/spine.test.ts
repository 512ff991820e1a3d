// POST /v4.0/products/spine through HTTP on every database backend (docs/wire-contract.md#spine): the answer's shape, a
// width from the paper of the lab that makes the book for the destination, and every refusal (no spine, page
// counts out of range, unknown SKU, unknown fields); the route lives beside GET /products/{sku} without shadowing it.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import { catalogue, json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

/** The width the catalogue's paper gives at a lab, in millimetres (micrometre figures, as the service counts). */
function expectedWidthMm(sku: string, labCode: string, pages: number): number {
  const paper = catalogue.findVariant(sku)?.offers.find((offer) => offer.lab.code === labCode)?.spine
  assert.ok(paper, `${labCode} has a paper for ${sku}`)
  return (paper.coverAllowanceMicrometres + pages * paper.pageThicknessMicrometres) / 1000
}

for (const kind of databaseKinds) {
  describe(`book spine width (${kind})`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    const spine = (payload: Record<string, unknown>, key?: string | null) =>
      t.sandbox({ method: 'POST', url: '/v4.0/products/spine', payload }, key)

    test('the public example: an A4 landscape book of 50 pages to the US has a spine of about 25.4 mm', async () => {
      const response = await spine({ sku: 'BOOK-A4-L-HARD-M', destinationCountryCode: 'US', numberOfPages: 50 })
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'success', 'message', 'spineInfo', 'traceParent'])
      assert.equal(body.outcome, 'Ok')
      assert.equal(body.success, true)
      assert.deepEqual(body.spineInfo, { widthMm: expectedWidthMm('BOOK-A4-L-HARD-M', 'us7', 50) })
      assert.ok(Math.abs(body.spineInfo.widthMm - 25.4) < 0.5, `${body.spineInfo.widthMm} mm`)
      assert.match(body.message, /BOOK-A4-L-HARD-M.*50 pages.*US.*us7/)
      assert.equal(body.traceParent, response.headers.traceparent)
    })

    test("the destination decides the lab, and the lab's paper the width", async () => {
      const widthTo = async (destinationCountryCode: string) => {
        const response = await spine({ sku: 'BOOK-FE-11_7-SQ-HARD-G', destinationCountryCode, numberOfPages: 100 })
        assert.equal(response.statusCode, 200, response.body)
        return json(response).spineInfo.widthMm as number
      }
      const [gb, us, de] = [await widthTo('GB'), await widthTo('US'), await widthTo('DE')]
      assert.equal(gb, expectedWidthMm('BOOK-FE-11_7-SQ-HARD-G', 'prodigi_gb3', 100))
      assert.equal(us, expectedWidthMm('BOOK-FE-11_7-SQ-HARD-G', 'us7', 100))
      assert.equal(de, expectedWidthMm('BOOK-FE-11_7-SQ-HARD-G', 'de1', 100))
      assert.equal(new Set([gb, us, de]).size, 3, 'three labs, three papers')
    })

    test('more pages make a wider spine', async () => {
      const width = async (numberOfPages: number) =>
        json(await spine({ sku: 'BOOK-A4-L-HARD-M', destinationCountryCode: 'GB', numberOfPages })).spineInfo.widthMm
      const widths = [await width(24), await width(100), await width(200)]
      const [thin = 0, medium = 0, thick = 0] = widths
      assert.ok(thin < medium && medium < thick, widths.join(' < '))
    })

    test('any letter case; state is accepted; a shipping method is honoured or refused by name', async () => {
      const response = await spine({
        sku: 'book-a4-l-hard-m',
        destinationCountryCode: 'us',
        state: 'CA',
        numberOfPages: 50,
        shippingMethod: 'express',
      })
      assert.equal(response.statusCode, 200, response.body)
      assert.match(json(response).message, /^BOOK-A4-L-HARD-M .* to US \(Express\)/)
      // Nothing makes this book in France and ships it there by StandardPlus.
      const refused = json(
        await spine({
          sku: 'BOOK-A4-L-HARD-M',
          destinationCountryCode: 'FR',
          numberOfPages: 50,
          shippingMethod: 'StandardPlus',
        }),
      )
      assert.equal(refused.outcome, 'ValidationFailed')
      assert.equal(refused.failures.shippingMethod[0].code, 'ShippingMethodNotAvailable')
      assert.ok(refused.failures.shippingMethod[0].validValues.includes('Budget'))
    })

    test('books without a spine and products that are no books are refused with ProductHasNoSpine', async () => {
      for (const sku of ['PHBK_14_SQ_HPC', 'BOOK-A4-P-HARD-M', 'GLOBAL-CAN-10x10']) {
        const response = await spine({ sku, destinationCountryCode: 'GB', numberOfPages: 40 })
        assert.equal(response.statusCode, 400, sku)
        const body = json(response)
        assert.equal(body.outcome, 'ValidationFailed')
        assert.deepEqual(body.failures, { sku: [{ code: 'ProductHasNoSpine', providedValue: sku }] })
      }
    })

    test("page counts outside the book's range and an unknown SKU are refused, all at once", async () => {
      const low = json(await spine({ sku: 'BOOK-A4-L-HARD-M', destinationCountryCode: 'XX', numberOfPages: 10 }))
      assert.deepEqual(low.failures, {
        destinationCountryCode: [{ code: 'NotAValidCountryCode', providedValue: 'XX' }],
        numberOfPages: [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: 10, comparisonValue: 24 }],
      })
      const high = json(await spine({ sku: 'BOOK-A4-L-HARD-M', destinationCountryCode: 'GB', numberOfPages: 201 }))
      assert.deepEqual(high.failures, {
        numberOfPages: [{ code: 'MustBeLessThanOrEqualTo', providedValue: 201, comparisonValue: 200 }],
      })
      const unknown = await spine({ sku: 'BOOK-NOPE', destinationCountryCode: 'GB', numberOfPages: 40 })
      assert.equal(unknown.statusCode, 400)
      assert.deepEqual(json(unknown).failures, { sku: [{ code: 'UnknownSku', providedValue: 'BOOK-NOPE' }] })
      const typo = await spine({ sku: 'BOOK-A4-L-HARD-N', destinationCountryCode: 'GB', numberOfPages: 40 })
      assert.deepEqual(json(typo).data, { nearestSkus: { sku: ['BOOK-A4-L-HARD-M', 'BOOK-A4-P-HARD-M'] } })
    })

    test('the body is checked like every other: required fields, types, limits, unknown fields', async () => {
      const body = json(
        await spine({ sku: 'BOOK-A4-L-HARD-M', numberOfPages: 2001, pages: 40, destinationCountryCode: 'USA' }),
      )
      assert.equal(body.outcome, 'ValidationFailed')
      assert.deepEqual(body.failures.pages, [{ code: 'UnknownField', providedValue: 40 }])
      assert.equal(body.failures.numberOfPages[0].code, 'MustBeLessThanOrEqualTo')
      assert.equal(body.failures.destinationCountryCode[0].code, 'InvalidFormat')
      const missing = json(await spine({ sku: 'BOOK-A4-L-HARD-M', destinationCountryCode: 'GB' }))
      assert.deepEqual(missing.failures.numberOfPages, [{ code: 'Required', providedValue: null }])
      const fractional = json(
        await spine({ sku: 'BOOK-A4-L-HARD-M', destinationCountryCode: 'GB', numberOfPages: 40.5 }),
      )
      assert.equal(fractional.failures.numberOfPages[0].code, 'InvalidType')
    })

    test('property: no body, however odd, gets anything but 200 or 400', async () => {
      const value = fc.oneof(
        fc.constantFrom(
          'GB',
          'us',
          'XX',
          'BOOK-A4-L-HARD-M',
          'BOOK-FE-11_7-SQ-HARD-G',
          'PHBK_14_SQ_HPC',
          'express',
          '',
        ),
        fc.integer({ min: -5, max: 3_000 }),
        fc.jsonValue({ maxDepth: 2 }),
      )
      const body = fc.record(
        { sku: value, destinationCountryCode: value, state: value, numberOfPages: value, shippingMethod: value },
        { requiredKeys: [] },
      )
      await fc.assert(
        fc.asyncProperty(body, async (payload) => {
          const response = await spine(payload)
          assert.ok([200, 400].includes(response.statusCode), `${response.statusCode} ${response.body}`)
        }),
        { numRuns: 300 },
      )
    })

    test('the spine route does not shadow product details, and needs a key', async () => {
      const product = await t.sandbox({ method: 'GET', url: '/v4.0/products/BOOK-A4-L-HARD-M' })
      assert.equal(product.statusCode, 200)
      assert.equal(json(product).product.sku, 'BOOK-A4-L-HARD-M')
      const getSpine = await t.sandbox({ method: 'GET', url: '/v4.0/products/spine' })
      assert.equal(getSpine.statusCode, 405)
      assert.match(String(getSpine.headers.allow), /\bPOST\b/)
      const postProduct = await t.sandbox({ method: 'POST', url: '/v4.0/products/GLOBAL-CAN-10x10', payload: {} })
      assert.equal(postProduct.statusCode, 405)
      const unauthorised = await spine(
        { sku: 'BOOK-A4-L-HARD-M', destinationCountryCode: 'GB', numberOfPages: 40 },
        null,
      )
      assert.equal(unauthorised.statusCode, 401)
    })
  })
}
