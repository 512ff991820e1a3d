// Price-locked quotes (docs/api.md#price-locked-quotes): every quote has an id and an expiry; an order created
// with `quoteId` must match it and is charged exactly its prices, even after the catalogue's prices change.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { readSettings } from '../../src/config.ts'
import { parseId } from '../../src/domain/ids.ts'
import { openTestDatabase, type TestDatabase } from '../support/databases.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { plainPdf } from '../support/preflight-files.ts'
import { changedSampleCatalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

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

const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'

/** A hardcover book quote item of `pages` pages (priced by the pages of its `default` print area). */
function quotedBook(pages: number) {
  return { sku: BOOK, copies: 1, assets: [{ printArea: 'default', pageCount: pages }] }
}

/** The same book as an order item: a spine image first, so the page asset is assets[1]. */
function orderedBook(url: (name: string) => string, pages: number) {
  return {
    sku: BOOK,
    copies: 1,
    sizing: 'fillPrintArea',
    assets: [
      { printArea: 'spine', url: url('spine.jpg') },
      { printArea: 'default', url: url('book.pdf'), pageCount: pages },
    ],
  }
}

async function countRows(t: TestApp, table: 'quotes' | 'orders'): Promise<number> {
  const rows = await t.database.db.query<{ count: string | number }>(`SELECT count(*) AS count FROM ${table}`)
  return Number(rows[0]?.count)
}

/** Makes a stored quote look like one stored before quotes kept page counts. */
async function forgetPageCounts(t: TestApp, quoteId: string): Promise<void> {
  await t.database.db.query(
    `UPDATE quotes SET items = (SELECT jsonb_agg(item - 'pageCount') FROM jsonb_array_elements(items) AS item)
      WHERE id = $1`,
    [parseId('quo', quoteId)],
  )
}

for (const kind of databaseKinds) {
  describe(`price-locked quotes (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    before(async () => {
      t = await startTestApp({ kind })
      // A readable 20-page PDF: every asset is preflighted when it is downloaded, and an unreadable one would hold
      // the item before the charge these tests stop at.
      images = await startImageServer({ '/book.pdf': await plainPdf(20) })
    })
    after(async () => {
      await images.close()
      await t.close()
    })

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
      const otherWrap = sampleOrder({ quoteId: quote.id })
      ;(otherWrap.items as any[])[0].attributes = { wrap: 'black' }
      assert.deepEqual(failuresOf(await createOrder(t, otherWrap)), {
        'items[0].attributes': [
          { code: 'DiffersFromQuote', providedValue: { wrap: 'Black' }, comparisonValue: { wrap: 'ImageWrap' } },
        ],
      })
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

    test("a book's page count is locked: other pages are refused on the page asset, the quoted pages charged the quote", async () => {
      const [quote] = (await quoteOf(t, quoteRequest({ items: [quotedBook(20)] }))).quotes
      const thick = await createOrder(t, sampleOrder({ quoteId: quote.id, items: [orderedBook(images.url, 200)] }))
      assert.deepEqual(failuresOf(thick), {
        'items[0].assets[1].pageCount': [{ code: 'DiffersFromQuote', providedValue: 200, comparisonValue: 20 }],
      })
      // Without the quote the 200 pages cost more than the quote said: the lock was worth refusing.
      const [thickQuote] = (await quoteOf(t, quoteRequest({ items: [quotedBook(200)] }))).quotes
      assert.ok(Number(thickQuote.costSummary.totalCost.amount) > Number(quote.costSummary.totalCost.amount))

      const created = await createOrder(t, sampleOrder({ quoteId: quote.id, items: [orderedBook(images.url, 20)] }))
      assert.equal(created.statusCode, 200, created.body)
      const order = json(created).order
      const [charge] = (await pipelineDriver(t).allocate(order.id)).document.charges
      assert.ok(charge, 'the order was charged')
      assert.deepEqual(charge.totalCost, quote.costSummary.totalCost)
      assert.deepEqual(charge.totalTax, quote.costSummary.totalTax)
    })

    test('a quote stored before page counts were kept still locks other products, and refuses books', async () => {
      const [canvas] = (await quoteOf(t, quoteRequest())).quotes
      const [book] = (await quoteOf(t, quoteRequest({ items: [quotedBook(20)] }))).quotes
      await forgetPageCounts(t, canvas.id)
      await forgetPageCounts(t, book.id)
      const refused = await createOrder(t, sampleOrder({ quoteId: book.id, items: [orderedBook(images.url, 20)] }))
      assert.deepEqual(failuresOf(refused), {
        'items[0].assets[1].pageCount': [{ code: 'DiffersFromQuote', providedValue: 20, comparisonValue: null }],
      })
      const created = await createOrder(t, sampleOrder({ quoteId: canvas.id }))
      assert.equal(created.statusCode, 200, created.body)
    })

    test("only a quote in the account's billing currency is usable for orders, and says so", async () => {
      const [inPounds] = (await quoteOf(t, quoteRequest())).quotes
      const [inDollars] = (await quoteOf(t, quoteRequest({ currencyCode: 'usd' }))).quotes
      assert.equal(inPounds.usableForOrders, true)
      assert.equal(inDollars.usableForOrders, false)
      assert.ok(Object.keys(inDollars).indexOf('usableForOrders') > Object.keys(inDollars).indexOf('expiresAt'))
      assert.deepEqual(failuresOf(await createOrder(t, sampleOrder({ quoteId: inDollars.id }))), {
        quoteId: [{ code: 'CurrencyDiffersFromQuote', providedValue: 'GBP', comparisonValue: 'USD' }],
      })
      // A dollar account can use the dollar quote it asks for, and not a pound one.
      const dollars = await t.createAccount({ billingCurrency: 'USD' })
      const [own] = (await quoteOf(t, quoteRequest(), dollars.sandboxKey)).quotes
      const [foreign] = (await quoteOf(t, quoteRequest({ currencyCode: 'GBP' }), dollars.sandboxKey)).quotes
      assert.deepEqual([own.usableForOrders, foreign.usableForOrders], [true, false])
      assert.equal((await createOrder(t, sampleOrder({ quoteId: own.id }), dollars.sandboxKey)).statusCode, 200)
    })

    test('a quote request refused for an asset URL stores no quote', async () => {
      const unreachable = await startImageServer({}, null)
      try {
        const asset = (url: string) => ({ ...quotedCanvas, assets: [{ printArea: 'default', url }] })
        const before = await countRows(t, 'quotes')
        const refused = await t.sandbox({
          method: 'POST',
          url: '/v4.0/quotes',
          payload: quoteRequest({ shippingMethod: null, items: [asset(unreachable.url('gone.jpg'))] }),
        })
        assert.equal(failuresOf(refused)['items[0].assets[0].url']?.[0]?.code, 'NotDownloaded')
        assert.equal(await countRows(t, 'quotes'), before)
        // The same request with a URL that downloads stores one quote per method it answers.
        const answered = await quoteOf(t, quoteRequest({ shippingMethod: null, items: [asset(images.url('a.jpg'))] }))
        assert.ok(answered.quotes.length > 1)
        assert.equal(await countRows(t, 'quotes'), before + answered.quotes.length)
      } finally {
        await unreachable.close()
      }
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

    test('a quote can be used once per idempotency key: a retry answers its order, charged once; others are refused', async () => {
      const [quote] = (await quoteOf(t, quoteRequest())).quotes
      const key = `k-${quote.id}`
      const canvas = {
        ...(sampleOrder().items as any[])[0],
        assets: [{ printArea: 'default', url: images.url('a.jpg') }],
      }
      // A refused create claims neither the quote nor the key: the corrected order, with the same key, uses both.
      const wrong = await createOrder(
        t,
        sampleOrder({ quoteId: quote.id, idempotencyKey: key, items: [{ ...canvas, copies: 5 }] }),
      )
      assert.equal(failuresOf(wrong)['items[0].copies']?.[0]?.code, 'DiffersFromQuote')
      const ordersBefore = await countRows(t, 'orders')
      const first = await createOrder(t, sampleOrder({ quoteId: quote.id, idempotencyKey: key, items: [canvas] }))
      assert.equal(first.statusCode, 200, first.body)
      const order = json(first).order
      assert.equal(order.quoteId, quote.id)
      const retry = await createOrder(t, sampleOrder({ quoteId: quote.id, idempotencyKey: key, items: [canvas] }))
      assert.equal(json(retry).outcome, 'AlreadyExists')
      assert.equal(json(retry).order.id, order.id)
      assert.equal(await countRows(t, 'orders'), ordersBefore + 1)
      const allocated = await pipelineDriver(t).allocate(order.id)
      assert.equal(allocated.document.charges.length, 1)
      assert.deepEqual(allocated.document.charges[0]?.totalCost, quote.costSummary.totalCost)
      const again = await createOrder(t, sampleOrder({ quoteId: quote.id, idempotencyKey: key, items: [canvas] }))
      assert.equal(json(again).order.id, order.id)
      assert.equal(json(again).order.charges.length, 1, 'a retry after the charge charges nothing more')
      const used = { code: 'QuoteAlreadyUsed', providedValue: quote.id, comparisonValue: order.id }
      const second = await createOrder(t, sampleOrder({ quoteId: quote.id, idempotencyKey: `other-${quote.id}` }))
      assert.deepEqual(failuresOf(second).quoteId, [used])
      assert.deepEqual(failuresOf(await createOrder(t, sampleOrder({ quoteId: quote.id }))).quoteId, [used])
      assert.equal(await countRows(t, 'orders'), ordersBefore + 1)

      // An order without an idempotency key claims its quote too: nothing can repeat it.
      const [keyless] = (await quoteOf(t, quoteRequest())).quotes
      const claimed = json(await createOrder(t, sampleOrder({ quoteId: keyless.id }))).order
      for (const idempotencyKey of [undefined, `k-${keyless.id}`]) {
        assert.deepEqual(
          failuresOf(await createOrder(t, sampleOrder({ quoteId: keyless.id, idempotencyKey }))).quoteId,
          [{ code: 'QuoteAlreadyUsed', providedValue: keyless.id, comparisonValue: claimed.id }],
        )
      }
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

  describe(`a locked order is charged in the quote's currency (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
    })
    after(async () => {
      await images.close()
      await t.close()
    })

    test("the account's billing currency changed in the pause window: the quote's prices, in its currency", async () => {
      const account = await t.createAccount({ pauseWindowSeconds: 600 })
      const [quote] = (await quoteOf(t, quoteRequest(), account.sandboxKey)).quotes
      const item = {
        ...(sampleOrder().items as any[])[0],
        assets: [{ printArea: 'default', url: images.url('a.jpg') }],
      }
      const create = (body: Record<string, unknown>) =>
        createOrder(t, sampleOrder({ items: [item], ...body }), account.sandboxKey)
      const locked = json(await create({ quoteId: quote.id }))
      assert.equal(locked.outcome, 'OnHold')
      await t.database.db.query("UPDATE accounts SET billing_currency = 'USD' WHERE id = $1", [
        parseId('acc', account.id),
      ])
      const plain = json(await create({}))
      t.clock.advanceSeconds(601)

      const driver = pipelineDriver(t)
      const [lockedCharge] = (await driver.allocate(locked.order.id)).document.charges
      assert.ok(lockedCharge)
      assert.deepEqual(lockedCharge.totalCost, quote.costSummary.totalCost)
      assert.deepEqual(lockedCharge.totalTax, quote.costSummary.totalTax)
      assert.equal(quote.costSummary.totalCost.currency, 'GBP')
      for (const line of lockedCharge.items) assert.equal(line.cost.currency, 'GBP')
      // The change did happen: an order of the same items without the quote is charged in dollars.
      const [plainCharge] = (await driver.allocate(plain.order.id)).document.charges
      assert.equal(plainCharge?.totalCost.currency, 'USD')
    })
  })

  describe(`a configured quote lifetime (${kind})`, () => {
    let t: TestApp
    before(async () => {
      // PRINTROUTE_QUOTE_LIFETIME read as serve reads it, handed to the application as serve hands it.
      const { quoteLifetimeSeconds } = readSettings(['quoteLifetimeSeconds'], {}, { PRINTROUTE_QUOTE_LIFETIME: '2h' })
      assert.equal(quoteLifetimeSeconds, 7200)
      t = await startTestApp({ kind, quoteLifetimeSeconds })
    })
    after(() => t.close())

    test('sets expiresAt, and the quote holds until then and not after', async () => {
      const madeAt = t.clock.now().getTime()
      const [early] = (await quoteOf(t, quoteRequest())).quotes
      const [late] = (await quoteOf(t, quoteRequest())).quotes
      const expiresAt = new Date(madeAt + 7200_000).toISOString()
      assert.deepEqual([early.expiresAt, late.expiresAt], [expiresAt, expiresAt])
      t.clock.advanceSeconds(7199)
      const created = await createOrder(t, sampleOrder({ quoteId: early.id }))
      assert.equal(created.statusCode, 200, created.body)
      t.clock.advanceSeconds(1)
      assert.deepEqual(failuresOf(await createOrder(t, sampleOrder({ quoteId: late.id }))).quoteId, [
        { code: 'QuoteExpired', providedValue: late.id, comparisonValue: expiresAt },
      ])
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
      const dearer = changedSampleCatalogue('dearer catalogue', (file) => {
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
      })
      const t = await startTestApp({ kind, database, catalogue: dearer })
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
