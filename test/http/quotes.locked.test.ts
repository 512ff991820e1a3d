// Price-locked quotes (docs/api.md#price-locked-quotes): every quote has an id and an expiry; an order created
// with `quoteId` must match it and is charged exactly its prices, even after the catalogue's prices change.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { parseCatalogue, SAMPLE_CATALOGUE_PATH } from '../../src/catalogue/catalogue.loader.ts'
import { openTestDatabase, type TestDatabase, testDatabaseKinds } from '../support/databases.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'

const SEVEN_DAYS_MS = 7 * 86_400_000

/** sampleOrder's item (a 10x10 canvas, ImageWrap, 2 copies, to GB) as a quote item. */
const quotedCanvas = { sku: 'GLOBAL-CAN-10x10', copies: 2, attributes: { wrap: 'ImageWrap' }, assets: [{}] }

function quoteRequest(overrides: Record<string, unknown> = {}) {
  return { shippingMethod: 'Standard', destinationCountryCode: 'GB', items: [quotedCanvas], ...overrides }
}

async function quoteOf(t: TestApp, body: Record<string, unknown>, key?: string): Promise<Record<string, any>> {
  const response = await t.sandbox({ method: 'POST', url: '/v4.0/quotes', payload: body }, key)
  assert.equal(response.statusCode, 200, response.body)
  return json(response)
}

function createOrder(t: TestApp, body: Record<string, unknown>, key?: string) {
  return t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: body }, key)
}

function failuresOf(response: { statusCode: number; body: string }): Record<string, any[]> {
  assert.equal(response.statusCode, 400, response.body)
  const body = JSON.parse(response.body)
  assert.equal(body.outcome, 'ValidationFailed')
  return body.failures
}

for (const kind of testDatabaseKinds()) {
  describe(`price-locked quotes (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    test('every quote of an answer has its own quo_ id and expires 7 days after it was made', async () => {
      const body = await quoteOf(t, quoteRequest({ shippingMethod: null }))
      assert.ok(body.quotes.length > 1)
      const ids = body.quotes.map((quote: any) => quote.id)
      for (const id of ids) assert.match(id, /^quo_\d+$/)
      assert.equal(new Set(ids).size, ids.length)
      const expected = new Date(t.clock.now().getTime() + SEVEN_DAYS_MS).toISOString()
      for (const quote of body.quotes) assert.equal(quote.expiresAt, expected)
    })

    test('an order that differs from its quote is refused, naming each field that differs', async () => {
      const [quote] = (await quoteOf(t, quoteRequest())).quotes
      const copies = sampleOrder({ quoteId: quote.id })
      ;(copies.items as any[])[0].copies = 3
      assert.deepEqual(failuresOf(await createOrder(t, copies))['items[0].copies'], [
        { code: 'DiffersFromQuote', providedValue: 3, comparisonValue: 2 },
      ])
      const elsewhere = sampleOrder({ quoteId: quote.id, shippingMethod: 'Express' })
      ;(elsewhere.recipient as any).address.countryCode = 'US'
      const failures = failuresOf(await createOrder(t, elsewhere))
      assert.deepEqual(failures.shippingMethod, [
        { code: 'DiffersFromQuote', providedValue: 'Express', comparisonValue: 'Standard' },
      ])
      assert.deepEqual(failures['recipient.address.countryCode'], [
        { code: 'DiffersFromQuote', providedValue: 'US', comparisonValue: 'GB' },
      ])
      const otherSku = sampleOrder({ quoteId: quote.id })
      ;(otherSku.items as any[])[0].sku = 'GLOBAL-CAN-12x12'
      assert.equal(failuresOf(await createOrder(t, otherSku))['items[0].sku']?.[0]?.code, 'DiffersFromQuote')
      const twoItems = sampleOrder({ quoteId: quote.id })
      twoItems.items = [...(twoItems.items as any[]), ...(twoItems.items as any[])]
      assert.deepEqual(failuresOf(await createOrder(t, twoItems)).items, [
        { code: 'DiffersFromQuote', providedValue: 2, comparisonValue: 1 },
      ])
      const [inDollars] = (await quoteOf(t, quoteRequest({ currencyCode: 'USD' }))).quotes
      assert.deepEqual(failuresOf(await createOrder(t, sampleOrder({ quoteId: inDollars.id }))).quoteId, [
        { code: 'CurrencyDiffersFromQuote', providedValue: 'GBP', comparisonValue: 'USD' },
      ])
      // Nothing was created by the refused requests: the quote is still unused.
      const created = await createOrder(t, sampleOrder({ quoteId: quote.id, merchantReference: 'fits' }))
      assert.equal(created.statusCode, 200, created.body)
    })

    test("another account's, another environment's or an unknown quote is not found", async () => {
      const [quote] = (await quoteOf(t, quoteRequest())).quotes
      const other = await t.createAccount()
      for (const response of [
        await createOrder(t, sampleOrder({ quoteId: quote.id }), other.sandboxKey),
        await t.live({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder({ quoteId: quote.id }) }),
        await createOrder(t, sampleOrder({ quoteId: 'quo_999999999' })),
        await createOrder(t, sampleOrder({ quoteId: 'not-a-quote' })),
      ]) {
        assert.deepEqual(
          failuresOf(response).quoteId?.map((failure) => failure.code),
          ['QuoteNotFound'],
        )
      }
    })

    test('a quote prices one order: a retry with its idempotency key answers that order, another is refused', async () => {
      const [quote] = (await quoteOf(t, quoteRequest())).quotes
      const first = await createOrder(t, sampleOrder({ quoteId: quote.id, idempotencyKey: `k-${quote.id}` }))
      assert.equal(first.statusCode, 200, first.body)
      const order = json(first).order
      assert.equal(order.quoteId, quote.id)
      const retry = await createOrder(t, sampleOrder({ quoteId: quote.id, idempotencyKey: `k-${quote.id}` }))
      assert.equal(json(retry).outcome, 'AlreadyExists')
      assert.equal(json(retry).order.id, order.id)
      const second = await createOrder(t, sampleOrder({ quoteId: quote.id, idempotencyKey: `other-${quote.id}` }))
      assert.deepEqual(failuresOf(second).quoteId, [
        { code: 'QuoteAlreadyUsed', providedValue: quote.id, comparisonValue: order.id },
      ])
      // An order without a quote carries no quoteId key at all: what Prodigi clients see is unchanged.
      const plain = json(await createOrder(t, sampleOrder())).order
      assert.equal(Object.hasOwn(plain, 'quoteId'), false)
    })

    test('an expired quote is refused with its expiry', async () => {
      const [quote] = (await quoteOf(t, quoteRequest())).quotes
      t.clock.advanceSeconds(SEVEN_DAYS_MS / 1000)
      assert.deepEqual(failuresOf(await createOrder(t, sampleOrder({ quoteId: quote.id }))).quoteId, [
        { code: 'QuoteExpired', providedValue: quote.id, comparisonValue: quote.expiresAt },
      ])
    })

    test('unused quotes are deleted 30 days after they expire; a quote an order used is kept', async () => {
      const [used] = (await quoteOf(t, quoteRequest())).quotes
      assert.equal((await createOrder(t, sampleOrder({ quoteId: used.id }))).statusCode, 200)
      const [unused] = (await quoteOf(t, quoteRequest())).quotes
      const routing = (quoteId: string) => t.sandbox({ method: 'GET', url: `/v4.0/quotes/${quoteId}/routing` })
      // Expired, but within the 30 days: kept, so an order naming it is still told QuoteExpired.
      t.clock.advanceSeconds(SEVEN_DAYS_MS / 1000 + 29 * 86_400)
      await t.app.services.quotes.expireQuotes()
      assert.equal((await routing(unused.id)).statusCode, 200)
      assert.equal(
        failuresOf(await createOrder(t, sampleOrder({ quoteId: unused.id }))).quoteId?.[0]?.code,
        'QuoteExpired',
      )
      t.clock.advanceSeconds(2 * 86_400)
      const [fresh] = (await quoteOf(t, quoteRequest())).quotes
      assert.ok((await t.app.services.quotes.expireQuotes()) >= 1)
      assert.equal((await routing(unused.id)).statusCode, 404)
      assert.equal(
        failuresOf(await createOrder(t, sampleOrder({ quoteId: unused.id }))).quoteId?.[0]?.code,
        'QuoteNotFound',
      )
      assert.equal((await routing(used.id)).statusCode, 200, 'the used quote stays with its order')
      assert.equal((await routing(fresh.id)).statusCode, 200, 'a quote not yet expired stays')
    })
  })

  describe(`a locked price survives a catalogue price change (${kind})`, () => {
    let database: TestDatabase
    let images: ImageServer
    before(async () => {
      database = await openTestDatabase(kind)
      images = await startImageServer()
    })
    after(async () => {
      await images.close()
      await database.close()
    })

    test('the order is charged the quoted items, shipping and tax; an order without the quote the new prices', async () => {
      const before = await startTestApp({ kind, database })
      const key = before.account.sandboxKey
      const [quote] = (await quoteOf(before, quoteRequest())).quotes
      await before.close()

      // Every lab now charges 10.00 more per canvas and 5.00 more per parcel.
      const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
      for (const lab of file.labs) {
        for (const product of lab.products) {
          if (product.sku === 'GLOBAL-CAN-10x10') product.unitCost = (Number(product.unitCost) + 10).toFixed(2)
        }
        for (const rate of lab.shippingRates) {
          for (const cost of Object.values(rate.costs) as any[]) {
            cost.perShipment = (Number(cost.perShipment) + 5).toFixed(2)
          }
        }
      }
      const t = await startTestApp({ kind, database, catalogue: parseCatalogue(file, 'dearer catalogue') })
      try {
        const driver = pipelineDriver(t)
        const item = {
          ...(sampleOrder().items as any[])[0],
          assets: [{ printArea: 'default', url: images.url('a.jpg') }],
        }
        const locked = json(await createOrder(t, sampleOrder({ quoteId: quote.id, items: [item] }), key)).order
        const unlocked = json(await createOrder(t, sampleOrder({ items: [item] }), key)).order
        const [lockedCharge] = (await driver.allocate(locked.id)).document.charges
        const [newCharge] = (await driver.allocate(unlocked.id)).document.charges
        assert.ok(lockedCharge && newCharge)
        assert.deepEqual(lockedCharge.totalCost, quote.costSummary.totalCost)
        assert.deepEqual(lockedCharge.totalTax, quote.costSummary.totalTax)
        const lines = (type: string) => lockedCharge.items.filter((line) => line.chargeType === type)
        const copies = 2
        assert.deepEqual(
          lines('Item').map((line) => line.cost.amount),
          [(Number(quote.items[0].unitCost.amount) * copies).toFixed(2)],
        )
        assert.deepEqual(
          lines('Shipping').map((line) => line.cost),
          quote.shipments.map((shipment: any) => shipment.cost),
        )
        // The catalogue did change: the same order without the quote costs more.
        assert.ok(Number(newCharge.totalCost.amount) > Number(lockedCharge.totalCost.amount) + 20)
      } finally {
        await t.close()
      }
    })
  })
}
