// Price lists on the wire (docs/billing.md#price-lists): an account without a list pays the sample catalogue's
// costs (it has no default list), exactly as before; set to a list (the operator's set-price-list action), its
// quotes show that list's selling prices and name it, and its order's first charge is what the quote said.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { OperatorRefusal } from '../../src/domain/operator-refusal.ts'
import type { Charge } from '../../src/domain/order.ts'
import { roundUpToPricePoint } from '../../src/domain/price-lists.ts'
import { setPriceList } from '../../src/services/operator/accounts.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const phoneQuote = {
  shippingMethod: 'Standard',
  destinationCountryCode: 'GB',
  items: [{ sku: PHONE_CASE, copies: 3, assets: [{}] }],
}

for (const kind of databaseKinds) {
  describe(`price lists (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    const operator = () => ({
      accounts: t.app.services.accounts,
      catalogueVersions: t.app.services.catalogueVersions,
      actor: TEST_ACTOR,
    })

    async function quote(key: string): Promise<Record<string, any>> {
      const response = await t.sandbox({ method: 'POST', url: '/v4.0/quotes', payload: phoneQuote }, key)
      assert.equal(response.statusCode, 200, response.body)
      const [only] = json(response).quotes
      return only
    }

    /** items + shipping + tax = total, exactly, as the contract says. */
    function assertAddsUp(summary: Record<string, { amount: string }>): void {
      assert.equal(
        minor(summary.items?.amount ?? '') +
          minor(summary.shipping?.amount ?? '') +
          minor(summary.totalTax?.amount ?? ''),
        minor(summary.totalCost?.amount ?? ''),
      )
    }

    test('a quote is priced on the account list; its order is charged the quoted figures', async () => {
      const account = await t.createAccount({ billingCurrency: 'GBP' })
      const atCost = await quote(account.sandboxKey)
      assert.equal(atCost.priceList, undefined, 'no list applies: the figures are the costs, and no new field')
      const costPerCase = minor(atCost.items[0].unitCost.amount)

      const changed = await setPriceList(operator(), { account: account.id, list: 'retail' })
      assert.equal(changed.priceList, 'retail')
      const retail = await quote(account.sandboxKey)
      assert.equal(retail.priceList, 'retail')
      // The sample's retail list: the cost + 40%, rounded up to .99; shipping "*" at cost.
      const expected = roundUpToPricePoint(costPerCase + (costPerCase * 40n + 50n) / 100n, 99)
      assert.equal(minor(retail.items[0].unitCost.amount), expected)
      assert.equal(minor(retail.costSummary.items.amount), expected * 3n)
      assert.equal(retail.costSummary.shipping.amount, atCost.costSummary.shipping.amount)
      assert.ok(minor(retail.costSummary.totalCost.amount) > minor(atCost.costSummary.totalCost.amount))
      assertAddsUp(retail.costSummary)
      assert.deepEqual(
        retail.shipments.map((shipment: any) => shipment.fulfillmentLocation.labCode),
        atCost.shipments.map((shipment: any) => shipment.fulfillmentLocation.labCode),
        'allocation still picks the cheapest lab by cost',
      )

      // The order of the account is charged on the same list: the quote's figures.
      const order = sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 3, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
      const created = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload: order, headers: { 'content-type': 'application/json' } },
        account.sandboxKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id
      const charged = (await drive.allocate(orderId)).document
      const charge = charged.charges[0] as Charge
      assert.equal(minor(charge.totalCost.amount), minor(retail.costSummary.totalCost.amount))
      const itemLines = charge.items.filter((line) => line.chargeType === 'Item')
      assert.deepEqual(
        itemLines.map((line) => minor(line.cost.amount)),
        [expected * 3n],
      )

      // Wholesale: the retail price less 15%.
      await setPriceList(operator(), { account: account.id, list: 'wholesale' })
      const wholesale = await quote(account.sandboxKey)
      assert.equal(wholesale.priceList, 'wholesale')
      assert.equal(minor(wholesale.items[0].unitCost.amount), expected - (expected * 15n + 50n) / 100n)
      assertAddsUp(wholesale.costSummary)

      // Back to the default (none in the sample): the costs, byte for byte as before.
      const reset = await setPriceList(operator(), { account: account.id, list: 'default' })
      assert.equal(reset.priceList, null)
      const again = await quote(account.sandboxKey)
      // Item ids are new on every quote: everything else is the same.
      const figures = (q: Record<string, any>) => ({
        keys: Object.keys(q),
        costSummary: q.costSummary,
        items: q.items.map((item: any) => [item.unitCost, item.taxUnitCost]),
        shipments: q.shipments.map((shipment: any) => [shipment.cost, shipment.tax, shipment.fulfillmentLocation]),
      })
      assert.deepEqual(figures(again), figures(atCost))
    })

    test("GET /products/{sku} adds the caller's selling price only when a list applies", async () => {
      const account = await t.createAccount({ billingCurrency: 'USD' })
      const product = async () => {
        const response = await t.sandbox({ method: 'GET', url: '/v4.0/products/GLOBAL-MUG-11OZ' }, account.sandboxKey)
        assert.equal(response.statusCode, 200, response.body)
        return json(response).product
      }
      const plain = await product()
      assert.equal(plain.prices, undefined, 'no list applies: the product as before')
      await setPriceList(operator(), { account: account.id, list: 'retail' })
      const priced = await product()
      // The sample's retail list has a fixed price for the 11oz mug: 15.00 USD.
      assert.deepEqual(priced.prices, { priceList: 'retail', fromUnitCost: { amount: '15.00', currency: 'USD' } })
      const { prices: _prices, ...rest } = priced
      assert.deepEqual(rest, plain)
      assert.equal(Object.keys(priced).at(-1), 'prices', 'the addition comes last')
    })

    test("GET /products lists the caller's selling prices as the product page does, only when a list applies", async () => {
      const account = await t.createAccount({ billingCurrency: 'USD' })
      const page = async (query: string) => {
        const response = await t.sandbox({ method: 'GET', url: `/v4.0/products?${query}` }, account.sandboxKey)
        assert.equal(response.statusCode, 200, response.body)
        return json(response).products as Record<string, any>[]
      }
      const detailsOf = async (sku: string) => {
        const response = await t.sandbox({ method: 'GET', url: `/v4.0/products/${sku}` }, account.sandboxKey)
        return json(response).product
      }
      const plain = await page('top=5')
      assert.equal(plain.length, 5)
      assert.ok(
        plain.every((entry) => !('prices' in entry)),
        'no list applies: the list as before',
      )
      await setPriceList(operator(), { account: account.id, list: 'retail' })
      const priced = await page('top=5')
      for (const [index, entry] of priced.entries()) {
        const { prices, ...rest } = entry
        assert.deepEqual(rest, plain[index], 'only prices is added')
        assert.equal(Object.keys(entry).at(-1), 'prices', 'the addition comes last')
        assert.deepEqual(prices, (await detailsOf(entry.sku)).prices, `${entry.sku}: as its product page says`)
      }
      const [mug] = await page('search=GLOBAL-MUG-11OZ')
      assert.deepEqual(mug?.prices, { priceList: 'retail', fromUnitCost: { amount: '15.00', currency: 'USD' } })
    })

    test('importing a catalogue that sells a product below a lab cost answers the warnings, and stores it', async () => {
      const { readSampleCatalogueText } = await import('../../src/catalogue/catalogue.loader.ts')
      const file = JSON.parse(readSampleCatalogueText().text)
      file.priceLists.retail.products['GLOBAL-MUG-11OZ'] = { prices: { GBP: '4.00' } }
      const imported = await t.app.services.catalogueVersions.import(
        JSON.stringify(file),
        'cheap-mugs.json',
        TEST_ACTOR,
      )
      assert.equal(imported.created, true)
      assert.equal(imported.active, false)
      // Three labs make it: de1 for 4.85 EUR (4.25 GBP at 1.14), prodigi_gb2 for 4.20 GBP, us2 for 6.00 USD (4.58 GBP
      // at 1.31); retail sells it at 4.00, wholesale at 4.00 less 15% = 3.40: below every one of them.
      const labs = ["de1's cost GBP 4.25", "prodigi_gb2's cost GBP 4.20", "us2's cost GBP 4.58"]
      assert.deepEqual(imported.warnings, [
        ...labs.map((lab) => `priceLists.retail: GLOBAL-MUG-11OZ sells at GBP 4.00, below lab ${lab}`),
        ...labs.map((lab) => `priceLists.wholesale: GLOBAL-MUG-11OZ sells at GBP 3.40, below lab ${lab}`),
      ])
    })

    test('an unknown list or account is refused, and nothing changes', async () => {
      const account = await t.createAccount()
      await assert.rejects(
        setPriceList(operator(), { account: account.id, list: 'platinum' }),
        (error: unknown) =>
          error instanceof OperatorRefusal &&
          error.reason === 'unknown-price-list' &&
          error.choices.join() === 'retail,wholesale',
      )
      await assert.rejects(
        setPriceList(operator(), { account: 'acc_999999', list: 'retail' }),
        (error: unknown) => error instanceof OperatorRefusal && error.reason === 'unknown',
      )
      assert.equal((await t.app.services.accounts.getAccount(account.id)).priceList, null)
    })
  })
}
