// GET /orders/{id}/routing and GET /quotes/{id}/routing (docs/api.md#routing): the explanation comes from the
// allocation the pipeline and quotes run, so its chosen plan is exactly the order's shipments or the quote's.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testDatabaseKinds } from '../support/databases.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { type PipelineDriver, pipelineDriver, twoLabOrder } from '../support/pipeline-driver.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'

const REASONS = ['DoesNotMakeProduct', 'DoesNotShipThere', 'Rejected', 'OutOfStock']

/** Every item's considered labs include the chosen one; every excluded lab has a documented reason. */
function assertItemsExplained(allocation: any): void {
  for (const item of allocation.items) {
    if (item.chosenLabCode !== null) {
      assert.ok(
        item.labsConsidered.some((lab: any) => lab.labCode === item.chosenLabCode),
        item.itemId,
      )
    }
    for (const excluded of item.labsExcluded) assert.ok(REASONS.includes(excluded.reason), excluded.reason)
    const considered = new Set(item.labsConsidered.map((lab: any) => lab.labCode))
    for (const excluded of item.labsExcluded) assert.equal(considered.has(excluded.labCode), false)
  }
}

function planLabs(plan: any): Record<string, string[]> {
  return Object.fromEntries(plan.shipments.map((shipment: any) => [shipment.labCode, shipment.itemIds]))
}

for (const kind of testDatabaseKinds()) {
  describe(`routing explanations (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let driver: PipelineDriver
    before(async () => {
      images = await startImageServer()
      t = await startTestApp({ kind })
      driver = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    const routingOf = async (path: string, key?: string) => {
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/${path}/routing` }, key)
      return { response, body: JSON.parse(response.body) }
    }

    test("a quote's routing is the allocation behind it: same labs, same totals, and what the split saved", async () => {
      const quoted = await t.sandbox({
        method: 'POST',
        url: '/v4.0/quotes',
        payload: {
          shippingMethod: 'Standard',
          destinationCountryCode: 'US',
          // Split between two labs, although uk6 could make both: the split is cheaper.
          items: [
            { sku: 'GLOBAL-CAN-ROL-SC-8x8', copies: 1, assets: [{}] },
            { sku: 'GLOBAL-HPR-A3', copies: 1, assets: [{}] },
          ],
        },
      })
      const [quote] = json(quoted).quotes
      const { response, body } = await routingOf(`quotes/${quote.id}`)
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(body.outcome, 'Ok')
      const { routing } = body
      assert.equal(routing.quoteId, quote.id)
      assert.equal(routing.orderId, null)
      assert.equal(routing.currency, 'GBP')
      assert.equal(routing.allocations.length, 1)
      const [allocation] = routing.allocations
      assert.equal(allocation.basis, 'Quote')
      assert.equal(allocation.shippingMethod, 'Standard')
      assert.deepEqual(
        planLabs(allocation.chosenPlan),
        Object.fromEntries(quote.shipments.map((s: any) => [s.fulfillmentLocation.labCode, s.items])),
      )
      const quotedBeforeTax = minor(quote.costSummary.items.amount) + minor(quote.costSummary.shipping.amount)
      assert.equal(minor(allocation.chosenPlan.totalCost.amount), quotedBeforeTax)
      assertItemsExplained(allocation)
      assert.equal(allocation.chosenPlan.shipments.length, 2)
      assert.ok(
        allocation.items.some((item: any) => item.labsExcluded.some((l: any) => l.reason === 'DoesNotMakeProduct')),
      )
      assert.deepEqual(
        allocation.bestUnsplitPlan.shipments.map((shipment: any) => [shipment.labCode, shipment.itemIds]),
        [['uk6', quote.items.map((item: any) => item.id)]],
      )
      const saving = minor(allocation.splitSaving.amount)
      assert.equal(saving, minor(allocation.bestUnsplitPlan.totalCost.amount) - quotedBeforeTax)
      assert.ok(saving > 0n)
      // Someone else's quote, or none, is not found.
      const other = await t.createAccount()
      assert.equal((await routingOf(`quotes/${quote.id}`, other.sandboxKey)).response.statusCode, 404)
      assert.equal((await routingOf('quotes/quo_999999999')).response.statusCode, 404)
    })

    test("an order's routing: an estimate, then each allocation as made, with labs that refused it excluded", async () => {
      const created = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: twoLabOrder(images.url) })
      const orderId = json(created).order.id
      const estimate = (await routingOf(`orders/${orderId}`)).body.routing
      assert.equal(estimate.orderId, orderId)
      assert.deepEqual(
        estimate.allocations.map((a: any) => a.basis),
        ['Estimate'],
      )

      const allocated = await driver.allocate(orderId)
      const shipments = allocated.document.shipments
      const [first] = (await routingOf(`orders/${orderId}`)).body.routing.allocations
      assert.equal(first.basis, 'Allocation')
      assertItemsExplained(first)
      // One code path: the explanation's chosen plan is the order's actual shipments.
      assert.deepEqual(
        planLabs(first.chosenPlan),
        Object.fromEntries(shipments.map((s) => [s.fulfillmentLocation.labCode, s.items.map((entry) => entry.itemId)])),
      )
      const [charge] = allocated.document.charges
      assert.ok(charge)
      assert.equal(
        minor(first.chosenPlan.totalCost.amount),
        minor(charge.totalCost.amount) - minor(charge.totalTax.amount),
      )

      // The canvas's lab refuses the whole shipment, then the next lab says the canvas is out of stock.
      const canvasId = allocated.document.items[0]?.id as string
      const refuse = async (unavailableItemIds: string[]) => {
        const state = await driver.state(orderId)
        const shipment = state.document.shipments.find((s) => s.items.some((entry) => entry.itemId === canvasId))
        assert.ok(shipment)
        await driver.submit(orderId, shipment.id)
        await t.app.services.pipeline.reportLab(orderId, shipment.id, {
          kind: 'rejected',
          reason: 'test',
          unavailableItemIds,
        })
        await t.app.services.pipeline.allocateOrder(orderId, (await driver.state(orderId)).pipeline.allocationRound)
        return shipment.fulfillmentLocation.labCode
      }
      const rejectedLab = await refuse([])
      const afterRejection = (await routingOf(`orders/${orderId}`)).body.routing.allocations
      assert.equal(afterRejection.length, 2)
      const second = afterRejection[1]
      assert.deepEqual(
        second.items.map((item: any) => item.itemId),
        [canvasId],
      )
      assert.ok(second.items[0].labsExcluded.some((l: any) => l.labCode === rejectedLab && l.reason === 'Rejected'))
      const moved = (await driver.document(orderId)).shipments.find((s) =>
        s.items.some((entry) => entry.itemId === canvasId),
      )
      assert.ok(moved)
      assert.deepEqual(Object.keys(planLabs(second.chosenPlan)), [moved.fulfillmentLocation.labCode])

      const outOfStockLab = await refuse([canvasId])
      const third = (await routingOf(`orders/${orderId}`)).body.routing.allocations[2]
      const reasons = Object.fromEntries(third.items[0].labsExcluded.map((l: any) => [l.labCode, l.reason]))
      assert.equal(reasons[rejectedLab], 'Rejected')
      assert.equal(reasons[outOfStockLab], 'OutOfStock')
    })

    test("another account's order has no routing to show", async () => {
      const created = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: twoLabOrder(images.url) })
      const other = await t.createAccount()
      const { response } = await routingOf(`orders/${json(created).order.id}`, other.sandboxKey)
      assert.equal(response.statusCode, 404)
    })
  })
}
