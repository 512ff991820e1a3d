// GET /v4.0/products/{sku}/cover-dimensions (docs/api.md#book-cover-dimensions): the full spread in mm, pt and in
// with the spine the spine endpoint gives for the same lab; the lab by labCode, by destination, or the one paper all
// labs share; and every refusal: no cover (naming the SKU), page counts out of range or not whole, an unknown unit,
// an unknown SKU (404), no key (401).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { catalogue, changedSampleCatalogue, json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const BOOK = 'BOOK-A4-L-HARD-M'

/** us7's paper for the book, as the catalogue gives it (micrometres). */
function us7SpineMicrometres(pages: number): number {
  const paper = catalogue.findVariant(BOOK)?.offers.find((offer) => offer.lab.code === 'us7')?.spine
  assert.ok(paper)
  return paper.coverAllowanceMicrometres + pages * paper.pageThicknessMicrometres
}

/** The sample with only us7 making the book: one paper, so no destination is needed. */
function oneBooksLab() {
  return changedSampleCatalogue('one-books-lab.json', (file) => {
    for (const lab of file.labs) {
      if (lab.code !== 'us7') lab.products = lab.products.filter((entry: { sku: string }) => entry.sku !== BOOK)
    }
  })
}

for (const kind of databaseKinds) {
  describe(`book cover dimensions (${kind})`, () => {
    let t: TestApp
    let single: TestApp

    before(async () => {
      t = await startTestApp({ kind })
      single = await startTestApp({ kind, catalogue: oneBooksLab() })
    })
    after(async () => {
      await t.close()
      await single.close()
    })

    const cover = (query: string, sku = BOOK, app = t) =>
      app.sandbox({ method: 'GET', url: `/v4.0/products/${sku}/cover-dimensions?${query}` })

    test('the public example in mm (the default): 2 x 297 + spine + 2 x 3 by 210 + 2 x 3', async () => {
      const response = await cover('pageCount=50&destinationCountryCode=US')
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'coverDimensions', 'traceParent'])
      assert.equal(body.outcome, 'Ok')
      const spineMm = us7SpineMicrometres(50) / 1000
      assert.deepEqual(body.coverDimensions, {
        width: Math.round((2 * 297 + spineMm + 6) * 100) / 100,
        height: 216,
        spineWidth: spineMm,
        bleed: 3,
        safeArea: 8,
        unit: 'mm',
        sku: BOOK,
        pageCount: 50,
        labCode: 'us7',
      })
      // The same spine as the spine endpoint's for the same book, pages and destination.
      const spine = await t.sandbox({
        method: 'POST',
        url: '/v4.0/products/spine',
        payload: { sku: BOOK, destinationCountryCode: 'US', numberOfPages: 50 },
      })
      assert.equal(json(spine).spineInfo.widthMm, body.coverDimensions.spineWidth)
    })

    test('points and inches, any letter case, rounded to 0.01 pt and 0.001 in', async () => {
      const micrometres = { width: 2 * 297_000 + us7SpineMicrometres(50) + 6_000, height: 216_000 }
      const points = json(await cover('pageCount=50&destinationCountryCode=us&unit=PT')).coverDimensions
      assert.equal(points.unit, 'pt')
      assert.equal(points.width, Math.round((micrometres.width * 72) / 254) / 100)
      assert.equal(points.height, Math.round((micrometres.height * 72) / 254) / 100)
      assert.equal(points.bleed, 8.5)
      const inches = json(await cover('pageCount=50&destinationCountryCode=US&unit=in')).coverDimensions
      assert.equal(inches.unit, 'in')
      assert.equal(inches.width, Math.round((micrometres.width * 10) / 254) / 1000)
      assert.equal(inches.height, 8.504)
      assert.equal(inches.safeArea, 0.315)
    })

    test('the lab: named by labCode, chosen for the destination, or the only paper there is', async () => {
      const byLab = json(await cover('pageCount=100&labCode=DE1')).coverDimensions
      assert.equal(byLab.labCode, 'de1')
      const byDestination = json(await cover('pageCount=100&destinationCountryCode=DE')).coverDimensions
      assert.deepEqual(byDestination, byLab)
      const gb = json(await cover('pageCount=100&destinationCountryCode=GB')).coverDimensions
      assert.notEqual(gb.spineWidth, byLab.spineWidth, 'another lab, another paper')

      const only = await cover('pageCount=50', BOOK, single)
      assert.equal(only.statusCode, 200, only.body)
      assert.equal(json(only).coverDimensions.labCode, 'us7')
      assert.equal(json(only).coverDimensions.spineWidth, us7SpineMicrometres(50) / 1000)
    })

    test('without a lab or destination, labs with different papers are refused naming destinationCountryCode', async () => {
      const response = await cover('pageCount=50')
      assert.equal(response.statusCode, 400)
      const body = json(response)
      assert.equal(body.outcome, 'ValidationFailed')
      assert.deepEqual(body.failures, { destinationCountryCode: [{ code: 'Required', providedValue: null }] })
      assert.match(body.statusText, /different papers/)
    })

    test('a product without a cover is refused naming the SKU', async () => {
      for (const sku of ['BOOK-A4-P-HARD-M', 'GLOBAL-CAN-10x10']) {
        const response = await cover('pageCount=50', sku.toLowerCase())
        assert.equal(response.statusCode, 400, sku)
        const body = json(response)
        assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'failures', 'data', 'traceParent'])
        assert.deepEqual(body.failures, { sku: [{ code: 'ProductHasNoCover', providedValue: sku }] })
        assert.match(body.statusText, new RegExp(`^${sku} has no cover`))
      }
    })

    test('page counts out of range, not whole or missing, and units not in the list are 400 naming the field', async () => {
      const low = json(await cover('pageCount=2&destinationCountryCode=US'))
      assert.deepEqual(low.failures, {
        pageCount: [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: 2, comparisonValue: 24 }],
      })
      const high = json(await cover('pageCount=202&destinationCountryCode=XX'))
      assert.deepEqual(high.failures, {
        pageCount: [{ code: 'MustBeLessThanOrEqualTo', providedValue: 202, comparisonValue: 200 }],
        destinationCountryCode: [{ code: 'NotAValidCountryCode', providedValue: 'XX' }],
      })
      for (const query of [
        'pageCount=50.5',
        'pageCount=fifty',
        '',
        'pageCount=50&unit=cm',
        'pageCount=50&colour=red',
      ]) {
        const response = await cover(`${query}&destinationCountryCode=US`)
        assert.equal(response.statusCode, 400, query)
        const body = json(response)
        assert.equal(body.outcome, 'ValidationFailed', query)
        const field = query.includes('unit') ? 'unit' : query.includes('colour') ? 'colour' : 'pageCount'
        assert.ok(body.failures[field], `${query}: ${JSON.stringify(body.failures)}`)
      }
      const unit = json(await cover('pageCount=50&unit=cm&destinationCountryCode=US'))
      assert.equal(unit.failures.unit[0].code, 'InvalidValue')
    })

    test('labCode: a lab not making the book, or given with a destination, is refused', async () => {
      const other = json(await cover('pageCount=50&labCode=us1'))
      assert.deepEqual(other.failures, {
        labCode: [{ code: 'InvalidValue', providedValue: 'us1', validValues: ['de1', 'prodigi_gb3', 'us7'] }],
      })
      const both = json(await cover('pageCount=50&labCode=us7&destinationCountryCode=US'))
      assert.equal(both.failures.labCode[0].code, 'InvalidValue')
    })

    test('an unknown SKU is 404 EntityNotFound with the nearest SKUs; no key is 401', async () => {
      const response = await cover('pageCount=50', 'BOOK-A4-L-HARD-X')
      assert.equal(response.statusCode, 404)
      const body = json(response)
      assert.equal(body.outcome, 'EntityNotFound')
      assert.ok(body.data.nearestSkus.sku.includes(BOOK))
      const anonymous = await t.sandbox(
        { method: 'GET', url: `/v4.0/products/${BOOK}/cover-dimensions?pageCount=50` },
        null,
      )
      assert.equal(anonymous.statusCode, 401)
    })
  })
}
