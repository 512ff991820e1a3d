// POST /v4.0/quotes through HTTP on every database backend (docs/wire-contract.md#quotes): the answer's shape and key
// order, the sample catalogue's prices (CATALOGUE-FACTS.md), currencies, the US sales tax warning, canonical
// spellings, unknown fields and every other refusal at once; and, with the order's downloads and allocation run as
// their jobs would (the step helper, no live queue), that an order of the same items gets exactly the quoted
// shipments and charges.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

// The sample catalogue gives every lab a calendar and every rate transit days, so every quote and shipment carries
// printroute's delivery estimate after the contract's keys (docs/api.md#delivery-estimates).
const QUOTE_KEYS = [
  'id',
  'shipmentMethod',
  'costSummary',
  'shipments',
  'items',
  'expiresAt',
  'usableForOrders',
  'estimatedDispatchDate',
  'estimatedDelivery',
]
const COST_SUMMARY_KEYS = ['items', 'shipping', 'totalCost', 'totalTax']
const SHIPMENT_KEYS = [
  'carrier',
  'fulfillmentLocation',
  'cost',
  'tax',
  'items',
  'estimatedDispatchDate',
  'estimatedDelivery',
  // printroute's own, after the estimate: the shipment's duties and taxes (docs/api.md#customs-and-duties).
  'customs',
]
const ITEM_KEYS = ['id', 'sku', 'copies', 'unitCost', 'taxUnitCost', 'attributes', 'assets']

const canvas = (wrap = 'Black', copies = 1) => ({
  sku: 'GLOBAL-CAN-10x10',
  copies,
  attributes: { wrap },
  assets: [{ printArea: 'default' }],
})
const phoneCase = { sku: 'GLOBAL-TECH-IP11P-FC-CP', copies: 2, assets: [{ printArea: 'default' }] }

/** Money as minor units, checking the wire format on the way. */
function minor(money: { amount: string; currency: string }, currency: string): number {
  assert.deepEqual(Object.keys(money), ['amount', 'currency'])
  assert.equal(money.currency, currency)
  assert.match(money.amount, /^-?\d+\.\d{2}$/)
  return Math.round(Number(money.amount) * 100)
}

for (const kind of databaseKinds) {
  describe(`quotes (${kind})`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    const quote = (payload: unknown, key?: string | null) =>
      t.sandbox({ method: 'POST', url: '/v4.0/quotes', payload: payload as Record<string, unknown> }, key)

    test('a GB quote answers Created with one quote per method, every key in the contract order', async () => {
      const response = await quote({ destinationCountryCode: 'GB', items: [canvas('ImageWrap')] })
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'quotes', 'issues', 'traceParent'])
      assert.equal(body.outcome, 'Created')
      assert.deepEqual(body.issues, [])
      assert.equal(body.traceParent, response.headers.traceparent)
      // uk6 ships within GB by all five methods.
      assert.deepEqual(
        body.quotes.map((candidate: any) => candidate.shipmentMethod),
        ['Budget', 'Standard', 'StandardPlus', 'Express', 'Overnight'],
      )
      for (const candidate of body.quotes) {
        // A guaranteed method's quote says so, last (docs/catalogue.md#shipping-guarantees); the others as before.
        const guaranteed = ['Express', 'Overnight'].includes(candidate.shipmentMethod)
        assert.deepEqual(Object.keys(candidate), guaranteed ? [...QUOTE_KEYS, 'guarantee'] : QUOTE_KEYS)
        if (guaranteed) assert.deepEqual(candidate.guarantee, { creditPercent: '50' })
        assert.deepEqual(Object.keys(candidate.costSummary), COST_SUMMARY_KEYS)
        for (const shipment of candidate.shipments) {
          assert.deepEqual(Object.keys(shipment), SHIPMENT_KEYS)
          assert.deepEqual(Object.keys(shipment.carrier), ['name', 'service'])
          assert.deepEqual(Object.keys(shipment.fulfillmentLocation), ['countryCode', 'labCode'])
        }
        for (const item of candidate.items) {
          assert.deepEqual(Object.keys(item), ITEM_KEYS)
          assert.match(item.id, /^qit_[0-9a-f]{32}$/)
          assert.deepEqual(item.assets, [{ printArea: 'default', pageCount: null }])
        }
      }
      // CATALOGUE-FACTS.md: the 10x10 canvas costs 14.37 GBP in a GB quote, plus 20% VAT.
      const standard = body.quotes[1]
      assert.deepEqual(standard.items[0].unitCost, { amount: '14.37', currency: 'GBP' })
      assert.deepEqual(standard.items[0].taxUnitCost, { amount: '2.87', currency: 'GBP' })
      assert.deepEqual(standard.shipments[0].fulfillmentLocation, { countryCode: 'GB', labCode: 'uk6' })
      const shipping = minor(standard.shipments[0].cost, 'GBP')
      assert.equal(minor(standard.shipments[0].tax, 'GBP'), Math.round(shipping * 0.2))
      assert.equal(
        minor(standard.costSummary.totalCost, 'GBP'),
        1437 + 287 + shipping + minor(standard.shipments[0].tax, 'GBP'),
      )
    })

    test('a US quote in USD matches the public totals, carries no tax and the sales tax warning', async () => {
      const response = await quote({ destinationCountryCode: 'US', currencyCode: 'USD', items: [canvas()] })
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.equal(body.outcome, 'CreatedWithIssues')
      assert.equal(body.issues.length, 1)
      assert.deepEqual(Object.keys(body.issues[0]), ['errorCode', 'description'])
      assert.equal(body.issues[0].errorCode, 'destinationCountryCode.UsSalesTaxWarning')
      assert.ok(body.issues[0].description.length > 0)
      // CATALOGUE-FACTS.md: a 10x10 canvas to the US totals 36.95 / 39.00 / 49.00 / 71.95 USD.
      const totals = Object.fromEntries(
        body.quotes.map((candidate: any) => [candidate.shipmentMethod, candidate.costSummary.totalCost.amount]),
      )
      assert.equal(totals.Budget, '36.95')
      assert.equal(totals.Standard, '39.00')
      assert.equal(totals.Express, '49.00')
      assert.equal(totals.Overnight, '71.95')
      for (const candidate of body.quotes) {
        assert.deepEqual(candidate.costSummary.totalTax, { amount: '0.00', currency: 'USD' })
        assert.deepEqual(candidate.shipments[0].fulfillmentLocation, { countryCode: 'US', labCode: 'us1' })
      }
    })

    test('a canvas and a phone case to the US are quoted as two shipments, from a US and a UK lab', async () => {
      const body = json(
        await quote({ shippingMethod: 'Standard', destinationCountryCode: 'US', items: [canvas(), phoneCase] }),
      )
      assert.equal(body.quotes.length, 1)
      const [only] = body.quotes
      assert.equal(only.shipmentMethod, 'Standard')
      const byLab = Object.fromEntries(
        only.shipments.map((shipment: any) => [shipment.fulfillmentLocation.labCode, shipment]),
      )
      assert.deepEqual(Object.keys(byLab).sort(), ['prodigi_gb2', 'us1'])
      assert.deepEqual(byLab.us1.items, [only.items[0].id])
      assert.deepEqual(byLab.prodigi_gb2.items, [only.items[1].id])
      assert.equal(byLab.prodigi_gb2.fulfillmentLocation.countryCode, 'GB')
      // The account's billing currency (GBP) is the default.
      assert.equal(only.costSummary.totalCost.currency, 'GBP')
      // Overnight exists only where a lab is domestic: the UK-made case cannot go Overnight to the US.
      const methods = json(await quote({ destinationCountryCode: 'US', items: [canvas(), phoneCase] })).quotes.map(
        (candidate: any) => candidate.shipmentMethod,
      )
      assert.ok(!methods.includes('Overnight'), methods.join(', '))
      assert.ok(methods.includes('Standard'))
    })

    test('the arithmetic of the contract holds in another currency', async () => {
      const body = json(
        await quote({ destinationCountryCode: 'DE', currencyCode: 'eur', items: [canvas('White', 3), phoneCase] }),
      )
      for (const candidate of body.quotes) {
        const items = candidate.items.reduce(
          (sum: number, item: any) => sum + minor(item.unitCost, 'EUR') * item.copies,
          0,
        )
        const shipping = candidate.shipments.reduce(
          (sum: number, shipment: any) => sum + minor(shipment.cost, 'EUR'),
          0,
        )
        const tax =
          candidate.items.reduce((sum: number, item: any) => sum + minor(item.taxUnitCost, 'EUR') * item.copies, 0) +
          candidate.shipments.reduce((sum: number, shipment: any) => sum + minor(shipment.tax, 'EUR'), 0)
        assert.equal(minor(candidate.costSummary.items, 'EUR'), items)
        assert.equal(minor(candidate.costSummary.shipping, 'EUR'), shipping)
        assert.equal(minor(candidate.costSummary.totalTax, 'EUR'), tax)
        assert.equal(minor(candidate.costSummary.totalCost, 'EUR'), items + shipping + tax)
        assert.ok(tax > 0, 'German VAT is charged')
      }
    })

    test('any letter case is accepted and the catalogue spelling comes back', async () => {
      const response = await quote({
        shippingMethod: 'sTaNdArD',
        destinationCountryCode: 'gb',
        currencyCode: 'usd',
        items: [
          { sku: 'global-can-10x10', copies: 1, attributes: { WRAP: 'imagewrap' }, assets: [{ printArea: 'DEFAULT' }] },
        ],
      })
      assert.equal(response.statusCode, 200, response.body)
      const [only] = json(response).quotes
      assert.equal(only.shipmentMethod, 'Standard')
      assert.equal(only.items[0].sku, 'GLOBAL-CAN-10x10')
      assert.deepEqual(only.items[0].attributes, { wrap: 'ImageWrap' })
      assert.deepEqual(only.items[0].assets, [{ printArea: 'default', pageCount: null }])
      assert.equal(only.costSummary.totalCost.currency, 'USD')
    })

    test('a book is priced by its page count and echoes its assets', async () => {
      const book = (pageCount: number) => ({
        shippingMethod: 'Budget',
        destinationCountryCode: 'GB',
        items: [
          {
            sku: 'BOOK-FE-11_7-SQ-HARD-G',
            copies: 1,
            assets: [{ printArea: 'default', pageCount }, { printArea: 'spine' }],
          },
        ],
      })
      const thin = json(await quote(book(20))).quotes[0]
      const thick = json(await quote(book(40))).quotes[0]
      assert.deepEqual(thick.items[0].assets, [
        { printArea: 'default', pageCount: 40 },
        { printArea: 'spine', pageCount: null },
      ])
      // 20 pages beyond the 20 base pages, each at the per-page cost of the lab that makes it (a GBP lab here).
      const labCode = thick.shipments[0].fulfillmentLocation.labCode
      assert.equal(thin.shipments[0].fulfillmentLocation.labCode, labCode)
      const offer = catalogue.findVariant('BOOK-FE-11_7-SQ-HARD-G')?.offers.find((each) => each.lab.code === labCode)
      assert.equal(offer?.lab.currency, 'GBP')
      const perPage = Number(offer?.perAdditionalPageCost?.minor)
      assert.ok(perPage > 0)
      assert.equal(minor(thick.items[0].unitCost, 'GBP') - minor(thin.items[0].unitCost, 'GBP'), 20 * perPage)
    })

    test('unknown fields are refused by name, all at once: merchantReference and md5Hash belong to orders, not quotes', async () => {
      const response = await quote({
        destinationCountryCode: 'GB',
        recipient: { name: 'Ada' },
        items: [
          {
            ...canvas(),
            merchantReference: 'poster',
            assets: [{ printArea: 'default', md5Hash: '0123456789abcdef0123456789abcdef' }],
          },
        ],
      })
      assert.equal(response.statusCode, 400)
      const body = json(response)
      assert.equal(body.outcome, 'ValidationFailed')
      assert.deepEqual(body.failures.recipient, [{ code: 'UnknownField', providedValue: { name: 'Ada' } }])
      assert.deepEqual(body.failures['items[0].merchantReference'], [{ code: 'UnknownField', providedValue: 'poster' }])
      assert.deepEqual(body.failures['items[0].assets[0].md5Hash'], [
        { code: 'UnknownField', providedValue: '0123456789abcdef0123456789abcdef' },
      ])
    })

    test('catalogue problems and an unknown currency are all reported in one answer', async () => {
      const response = await quote({
        destinationCountryCode: 'GB',
        currencyCode: 'JPY',
        items: [
          { sku: 'GLOBAL-NOPE', copies: 1, assets: [] },
          { sku: 'GLOBAL-TEE-BC-3001', copies: 1, attributes: { color: 'black' }, assets: [{ printArea: 'front' }] },
          { sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'Black' }, assets: [{ printArea: 'lid' }] },
        ],
      })
      assert.equal(response.statusCode, 400)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'failures', 'data', 'traceParent'])
      assert.equal(body.failures.currencyCode[0].code, 'UnknownCurrency')
      assert.ok(body.failures.currencyCode[0].validValues.includes('GBP'))
      assert.deepEqual(body.failures['items[0].sku'], [{ code: 'UnknownSku', providedValue: 'GLOBAL-NOPE' }])
      assert.deepEqual(body.data, { nearestSkus: { 'items[0].sku': [] } })
      const missing = body.failures['items[1].attributes'][0]
      assert.equal(missing.code, 'MissingRequiredAttributes')
      assert.deepEqual(
        missing.missingItems.attributes.map((attribute: any) => attribute.name),
        ['size'],
      )
      assert.ok(missing.missingItems.attributes[0].validValues.includes('xl'))
      assert.equal(body.failures['items[2].assets[0].printArea'][0].code, 'UnknownPrintArea')
      assert.equal(body.failures['items[2].assets'][0].code, 'MissingRequiredPrintArea')
    })

    test('destinations: not a country, or a method that cannot serve every item there', async () => {
      const notACountry = json(await quote({ destinationCountryCode: 'XX', items: [canvas()] }))
      assert.deepEqual(notACountry.failures.destinationCountryCode, [
        { code: 'NotAValidCountryCode', providedValue: 'XX' },
      ])
      // The phone case is made only in GB, so it cannot go Overnight to the US; the failure names what works.
      const method = json(
        await quote({ shippingMethod: 'Overnight', destinationCountryCode: 'US', items: [canvas(), phoneCase] }),
      )
      assert.equal(method.outcome, 'ValidationFailed')
      const failure = method.failures.shippingMethod[0]
      assert.equal(failure.code, 'ShippingMethodNotAvailable')
      assert.ok(failure.validValues.includes('Standard'))
      assert.ok(!failure.validValues.includes('Overnight'))
    })

    test('limits are explicit: items, copies, page counts and required fields', async () => {
      const tooMany = json(
        await quote({ destinationCountryCode: 'GB', items: Array.from({ length: 101 }, () => canvas()) }),
      )
      assert.deepEqual(tooMany.failures.items, [{ code: 'TooMany', providedValue: null, comparisonValue: 100 }])
      const body = json(
        await quote({
          items: [
            { ...canvas(), copies: 0 },
            { ...canvas(), copies: 10_001 },
            { sku: 'BOOK-FE-11_7-SQ-HARD-G', copies: 1, assets: [{ printArea: 'default', pageCount: 2001 }] },
          ],
        }),
      )
      assert.deepEqual(body.failures.destinationCountryCode, [{ code: 'Required', providedValue: null }])
      assert.equal(body.failures['items[0].copies'][0].code, 'MustBeGreaterThanOrEqualTo')
      assert.equal(body.failures['items[1].copies'][0].code, 'MustBeLessThanOrEqualTo')
      assert.deepEqual(body.failures['items[2].assets[0].pageCount'], [
        { code: 'MustBeLessThanOrEqualTo', providedValue: 2001, comparisonValue: 2000 },
      ])
      const none = json(await quote({ destinationCountryCode: 'GB', items: [] }))
      assert.equal(none.failures.items[0].code, 'TooFew')
    })

    test('property: no body, however odd, gets anything but 200 or 400', async () => {
      // Plausible field values mixed with anything JSON can hold, in and out of place.
      const value = fc.oneof(
        fc.constantFrom('GB', 'us', 'XX', 'GLOBAL-CAN-10x10', 'BOOK-A4-L-HARD-M', 'standard', 'JPY', 'default', ''),
        fc.integer({ min: -5, max: 20_000 }),
        fc.jsonValue({ maxDepth: 2 }),
      )
      const item = fc.record(
        {
          sku: value,
          copies: value,
          attributes: fc.oneof(fc.dictionary(fc.constantFrom('wrap', 'Wrap', 'color', 'size', 'x'), value), value),
          assets: fc.oneof(
            fc.array(fc.record({ printArea: value, pageCount: value }, { requiredKeys: [] }), { maxLength: 3 }),
            value,
          ),
        },
        { requiredKeys: [] },
      )
      const body = fc.record(
        {
          shippingMethod: value,
          destinationCountryCode: value,
          currencyCode: value,
          items: fc.oneof(fc.array(item, { maxLength: 4 }), value),
        },
        { requiredKeys: [] },
      )
      await fc.assert(
        fc.asyncProperty(body, async (payload) => {
          const response = await quote(payload)
          assert.ok([200, 400].includes(response.statusCode), `${response.statusCode} ${response.body}`)
        }),
        { numRuns: 300 },
      )
    })

    test('a quote needs a key, answers only POST, and is served on the Live address too', async () => {
      assert.equal((await quote({ destinationCountryCode: 'GB', items: [canvas()] }, null)).statusCode, 401)
      const get = await t.sandbox({ method: 'GET', url: '/v4.0/quotes' })
      assert.equal(get.statusCode, 405)
      assert.match(String(get.headers.allow), /\bPOST\b/)
      const live = await t.live({
        method: 'POST',
        url: '/v4.0/Quotes/',
        payload: { destinationCountryCode: 'GB', items: [canvas()] },
      })
      assert.equal(live.statusCode, 200, live.body)
      assert.equal(json(live).outcome, 'Created')
    })
  })
}

// ---- a quote equals the order of the same items: same shipments, same charges ------------------------------

for (const kind of databaseKinds) {
  describe(`a quote and the order of the same items (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    before(async () => {
      const colour = { r: 200, g: 80, b: 40 }
      images = await startImageServer(
        { '/canvas.jpg': await solidJpeg(1200, 1200, colour), '/case.jpg': await solidJpeg(540, 1035, colour) },
        null,
      )
      t = await startTestApp({ kind, realClock: true })
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    test("the order's shipments and first charge are the quote's, line by line", async () => {
      const recipient = {
        name: 'Grace Hopper',
        address: {
          line1: '1 Navy Way',
          postalOrZipCode: '20001',
          countryCode: 'US',
          townOrCity: 'Washington',
          stateOrCounty: 'DC',
        },
      }
      const items = [
        {
          sku: 'GLOBAL-CAN-10x10',
          copies: 2,
          sizing: 'fillPrintArea',
          attributes: { wrap: 'Black' },
          assets: [{ url: `${images.base}/canvas.jpg` }],
        },
        {
          sku: 'GLOBAL-TECH-IP11P-FC-CP',
          copies: 3,
          sizing: 'fitPrintArea',
          assets: [{ url: `${images.base}/case.jpg` }],
        },
      ]
      const quoted = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/quotes',
          payload: {
            shippingMethod: 'Standard',
            destinationCountryCode: 'US',
            items: items.map(({ sku, copies, attributes, assets }) => ({
              sku,
              copies,
              ...(attributes ? { attributes } : {}),
              assets: assets.map(() => ({ printArea: 'default' })),
            })),
          },
        }),
      ).quotes[0]
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ shippingMethod: 'Standard', recipient, items }),
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id

      // The downloads and the allocation, as their jobs would run them: the first charge comes with the allocation.
      await pipelineDriver(t).allocate(orderId)
      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      if (order.status.issues.length > 0) assert.fail(JSON.stringify(order.status.issues))
      assert.ok(order.shipments.length > 0 && order.charges.length > 0, 'the order was allocated and charged')

      // Quote item i is order item i.
      const orderItemOf = new Map(quoted.items.map((item: any, index: number) => [item.id, order.items[index].id]))
      const shipmentsOf = (list: any[], itemIds: (shipment: any) => string[]) =>
        list
          .map((shipment) => ({
            carrier: shipment.carrier,
            fulfillmentLocation: shipment.fulfillmentLocation,
            items: itemIds(shipment).sort(),
          }))
          .sort((a, b) => a.fulfillmentLocation.labCode.localeCompare(b.fulfillmentLocation.labCode))
      assert.deepEqual(
        shipmentsOf(order.shipments, (shipment) => shipment.items.map((item: any) => item.itemId)),
        shipmentsOf(quoted.shipments, (shipment) => shipment.items.map((id: string) => orderItemOf.get(id))),
      )
      assert.equal(order.shipments.length, 2)

      const [charge] = order.charges
      assert.deepEqual(charge.totalCost, quoted.costSummary.totalCost)
      assert.deepEqual(charge.totalTax, quoted.costSummary.totalTax)
      for (const [index, item] of quoted.items.entries()) {
        const line = charge.items.find((candidate: any) => candidate.itemId === order.items[index].id)
        assert.ok(line, `a charge line for item ${index}`)
        assert.equal(line.chargeType, 'Item')
        assert.equal(minor(line.cost, 'GBP'), minor(item.unitCost, 'GBP') * item.copies)
      }
      for (const shipment of quoted.shipments) {
        const orderShipment = order.shipments.find(
          (candidate: any) => candidate.fulfillmentLocation.labCode === shipment.fulfillmentLocation.labCode,
        )
        const line = charge.items.find(
          (candidate: any) => candidate.chargeType === 'Shipping' && candidate.shipmentId === orderShipment.id,
        )
        assert.ok(line, `a shipping line for ${shipment.fulfillmentLocation.labCode}`)
        assert.deepEqual(line.cost, shipment.cost)
      }
    })
  })
}
