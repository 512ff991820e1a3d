// The routing explanation of an account priced by a price list (docs/api.md#routing, docs/billing.md#price-lists):
// every money figure is what the merchant pays, priced through its list as its charges are, so the labs' costs
// (the operator's margin) never show; an account no list applies to sees the labs' costs exactly as before, and
// the operator's console keeps the labs' costs.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { SAMPLE_CATALOGUE_PATH } from '../../src/catalogue/catalogue.loader.ts'
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

/** Split between two labs (the split is cheaper than uk6 making both): labs considered and not chosen. */
const splitQuote = {
  shippingMethod: 'Standard',
  destinationCountryCode: 'US',
  items: [
    { sku: 'GLOBAL-CAN-ROL-SC-8x8', copies: 1, assets: [{}] },
    { sku: 'GLOBAL-HPR-A3', copies: 2, assets: [{}] },
  ],
}

/** The retail list's products: cost + 40% (rounded half-up), then up to .99. */
function retailPrice(cost: bigint): bigint {
  return roundUpToPricePoint(cost + (cost * 40n + 50n) / 100n, 99)
}

/** Retail's shipping in this test's catalogue: cost + 25%. */
function retailShipping(cost: bigint): bigint {
  return cost + (cost * 25n + 50n) / 100n
}

/** Every `{amount, currency}` in the routing's allocations, with its path. */
function figures(value: unknown, path = ''): [string, bigint][] {
  if (Array.isArray(value)) return value.flatMap((entry, index) => figures(entry, `${path}[${index}]`))
  if (typeof value !== 'object' || value === null) return []
  const record = value as Record<string, unknown>
  if (typeof record.amount === 'string' && typeof record.currency === 'string') return [[path, minor(record.amount)]]
  return Object.entries(record).flatMap(([key, entry]) => figures(entry, `${path}.${key}`))
}

for (const kind of databaseKinds) {
  describe(`routing on a price list (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      drive = pipelineDriver(t)
      // The sample's retail list with shipping marked up too, so that no figure of a priced routing is a cost.
      const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
      file.priceLists.retail.shipping = { '*': { markupPercent: '25' } }
      const versions = t.app.services.catalogueVersions
      const { version } = await versions.import(JSON.stringify(file), 'marked-up.json', TEST_ACTOR)
      await versions.activate(version, TEST_ACTOR)
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

    async function get(url: string, key: string): Promise<Record<string, any>> {
      const response = await t.sandbox({ method: 'GET', url }, key)
      assert.equal(response.statusCode, 200, response.body)
      assert.ok(!response.body.includes('sellingPrices'), 'the stored pricing never leaves as it is')
      return json(response).routing
    }

    async function quoteAndRouting(key: string) {
      const response = await t.sandbox({ method: 'POST', url: '/v4.0/quotes', payload: splitQuote }, key)
      assert.equal(response.statusCode, 200, response.body)
      const [quote] = json(response).quotes
      return { quote, routing: await get(`/v4.0/quotes/${quote.id}/routing`, key) }
    }

    test("a priced account's quote routing shows what it pays, never a lab cost; an unpriced one's is unchanged", async () => {
      const plain = await t.createAccount({ billingCurrency: 'GBP' })
      const priced = await t.createAccount({ billingCurrency: 'GBP' })
      await setPriceList(operator(), { account: priced.id, list: 'retail' })

      const costs = await quoteAndRouting(plain.sandboxKey)
      assert.deepEqual(Object.keys(costs.routing), [
        'orderId',
        'quoteId',
        'destinationCountryCode',
        'currency',
        'allocations',
        'amounts',
      ])
      assert.equal(costs.routing.amounts, 'LabCosts')
      const [atCost] = costs.routing.allocations
      const quotedAtCost = minor(costs.quote.costSummary.items.amount) + minor(costs.quote.costSummary.shipping.amount)
      assert.equal(minor(atCost.chosenPlan.totalCost.amount), quotedAtCost, 'the labs costs are the quote, as before')

      const selling = await quoteAndRouting(priced.sandboxKey)
      assert.equal(selling.routing.amounts, 'SellingPrices')
      assert.equal(selling.routing.priceList, 'retail')
      assert.deepEqual(Object.keys(selling.routing).slice(-2), ['amounts', 'priceList'])
      const [sold] = selling.routing.allocations
      // The same allocation (routing compares the labs' costs), now in the merchant's prices.
      assert.deepEqual(
        sold.items.map((item: any) => [item.chosenLabCode, item.labsConsidered.map((lab: any) => lab.labCode)]),
        atCost.items.map((item: any) => [item.chosenLabCode, item.labsConsidered.map((lab: any) => lab.labCode)]),
      )
      const quoted = minor(selling.quote.costSummary.items.amount) + minor(selling.quote.costSummary.shipping.amount)
      assert.equal(minor(sold.chosenPlan.totalCost.amount), quoted, "the chosen plan is the merchant's quote")
      // Each lab considered, chosen or not: what the list charges for its cost.
      const copies = [1n, 2n]
      atCost.items.forEach((item: any, index: number) => {
        const soldItem = sold.items[index]
        item.labsConsidered.forEach((lab: any, labIndex: number) => {
          const soldLab = soldItem.labsConsidered[labIndex]
          const count = copies[index] as bigint
          const unitCost = minor(lab.productionCost.amount) / count
          assert.equal(minor(soldLab.productionCost.amount), retailPrice(unitCost) * count, lab.labCode)
          assert.equal(minor(soldLab.shippingCost.amount), retailShipping(minor(lab.shippingCost.amount)))
        })
      })
      assert.ok(atCost.items.some((item: any) => item.labsConsidered.length > 1))
      // No figure is a lab cost: every one is above its cost counterpart (splitSaving compares two prices).
      const costFigures = new Map(figures(atCost))
      const soldFigures = figures(sold)
      assert.deepEqual(
        soldFigures.map(([path]) => path),
        [...costFigures.keys()],
      )
      for (const [path, amount] of soldFigures) {
        if (path === '.splitSaving') continue
        assert.ok(amount > (costFigures.get(path) as bigint), `${path}: ${amount} is not above its cost`)
      }
      assert.equal(
        minor(sold.splitSaving.amount),
        minor(sold.bestUnsplitPlan.totalCost.amount) - minor(sold.chosenPlan.totalCost.amount),
      )
    })

    test("a priced account's order routing, estimated and allocated, is its charges; the console keeps the costs", async () => {
      const account = await t.createAccount({ billingCurrency: 'GBP' })
      await setPriceList(operator(), { account: account.id, list: 'retail' })
      const order = sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 3, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
      const created = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload: order, headers: { 'content-type': 'application/json' } },
        account.sandboxKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id
      const estimate = await get(`/v4.0/orders/${orderId}/routing`, account.sandboxKey)
      assert.equal(estimate.allocations[0].basis, 'Estimate')
      assert.equal(estimate.amounts, 'SellingPrices')
      assert.equal(estimate.priceList, 'retail')

      const charged = (await drive.allocate(orderId)).document
      const charge = charged.charges[0] as Charge
      const beforeTax = charge.items.reduce((sum, line) => sum + minor(line.cost.amount), 0n)
      const routing = await get(`/v4.0/orders/${orderId}/routing`, account.sandboxKey)
      assert.equal(routing.amounts, 'SellingPrices')
      const allocated = routing.allocations.at(-1)
      assert.equal(allocated.basis, 'Allocation')
      assert.equal(minor(allocated.chosenPlan.totalCost.amount), beforeTax, 'the chosen plan is what was charged')
      assert.equal(
        minor(allocated.chosenPlan.totalCost.amount),
        minor(estimate.allocations[0].chosenPlan.totalCost.amount),
      )

      // The operator's console reads the labs' costs (it shows the margins beside them).
      const view = await t.app.services.adminViews.orders.readOrder(orderId)
      const console = view?.view.routing
      assert.ok(console)
      assert.equal(console.amounts, 'LabCosts')
      assert.equal(console.priceList, undefined)
      const consoleAllocated = console.allocations.at(-1)
      assert.ok(consoleAllocated?.chosenPlan)
      assert.ok(
        minor(consoleAllocated.chosenPlan.totalCost.amount) < beforeTax,
        'the labs cost less than the merchant pays',
      )
      assert.ok(!JSON.stringify(console).includes('sellingPrices'))
    })
  })
}
