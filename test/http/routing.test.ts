// GET /orders/{id}/routing and GET /quotes/{id}/routing (docs/api.md#routing): the explanation comes from the
// allocation the pipeline and quotes run, so its chosen plan is exactly the order's shipments or the quote's.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { blackCanvasItem, type PipelineDriver, pipelineDriver, twoLabOrder } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const REASONS = ['DoesNotMakeProduct', 'DoesNotShipThere', 'Rejected', 'OutOfStock', 'SandboxScenario']

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

/** Per item, lab code -> reason of every excluded lab. */
function exclusions(allocation: any): Record<string, Record<string, string>> {
  return Object.fromEntries(
    allocation.items.map((item: any) => [
      item.itemId,
      Object.fromEntries(item.labsExcluded.map((lab: any) => [lab.labCode, lab.reason])),
    ]),
  )
}

function planLabs(plan: any): Record<string, string[]> {
  return Object.fromEntries(plan.shipments.map((shipment: any) => [shipment.labCode, shipment.itemIds]))
}

for (const kind of databaseKinds) {
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

    /** Creates a Sandbox order taking `scenario` (the X-Sandbox-Scenario header); returns its id. */
    const createWithScenario = async (payload: Record<string, unknown>, scenario: string) => {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload,
        headers: { 'content-type': 'application/json', 'x-sandbox-scenario': scenario },
      })
      assert.equal(created.statusCode, 200, created.body)
      return json(created).order.id as string
    }

    test('outOfStock: the routing shows the failed allocation, every lab that could make an item OutOfStock', async () => {
      // What an ordinary order of the same items would consider: those labs are the ones out of stock.
      const ordinary = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: twoLabOrder(images.url) }))
      const [ordinaryEstimate] = (await routingOf(`orders/${ordinary.order.id}`)).body.routing.allocations
      const couldMake = ordinaryEstimate.items.map((item: any) => item.labsConsidered.map((lab: any) => lab.labCode))
      assert.ok(couldMake.every((labs: string[]) => labs.length > 0))

      const orderId = await createWithScenario(twoLabOrder(images.url), 'outOfStock')
      const assertOutOfStock = (allocation: any, itemIds: string[]) => {
        assert.equal(allocation.chosenPlan, null)
        assert.equal(allocation.bestUnsplitPlan, null)
        assert.equal(allocation.splitSaving, null)
        assert.deepEqual(allocation.unavailableItemIds, itemIds)
        assertItemsExplained(allocation)
        allocation.items.forEach((item: any, index: number) => {
          assert.equal(item.chosenLabCode, null)
          assert.deepEqual(item.labsConsidered, [])
          const outOfStock = item.labsExcluded.filter((lab: any) => lab.reason === 'OutOfStock')
          assert.deepEqual(
            outOfStock.map((lab: any) => lab.labCode),
            couldMake[index],
          )
        })
      }
      // Before the allocation, the estimate already says what the scenario will do.
      const [estimate] = (await routingOf(`orders/${orderId}`)).body.routing.allocations
      assert.equal(estimate.basis, 'Estimate')
      const created = await driver.document(orderId)
      assertOutOfStock(
        estimate,
        created.items.map((item) => item.id),
      )

      const allocated = await driver.allocate(orderId)
      const order = allocated.document
      assert.equal(order.status.details.allocateProductionLocation, 'Error')
      assert.deepEqual(order.shipments, [])
      const unavailable = order.status.issues
        .filter((issue) => issue.errorCode === 'order.items.ItemUnavailable')
        .map((issue) => issue.objectId)
      assert.equal(unavailable.length, 2)
      const allocations = (await routingOf(`orders/${orderId}`)).body.routing.allocations
      assert.deepEqual(
        allocations.map((allocation: any) => allocation.basis),
        ['Allocation'],
      )
      // The routing matches the order: the items it could not allocate, and no plan since it has no shipments.
      assertOutOfStock(allocations[0], unavailable)
    })

    test('splitShipments: the labs the scenario kept away are SandboxScenario, not Rejected; the plan is the order', async () => {
      const orderId = await createWithScenario(
        sampleOrder({ items: [blackCanvasItem(images.url('a.jpg')), blackCanvasItem(images.url('b.jpg'))] }),
        'splitShipments',
      )
      const [estimate] = (await routingOf(`orders/${orderId}`)).body.routing.allocations
      assert.equal(estimate.basis, 'Estimate')
      assert.equal(estimate.chosenPlan.shipments.length, 2, 'the estimate splits as the scenario will')

      const order = (await driver.allocate(orderId)).document
      const [allocation] = (await routingOf(`orders/${orderId}`)).body.routing.allocations
      assert.equal(allocation.basis, 'Allocation')
      assertItemsExplained(allocation)
      assert.deepEqual(
        planLabs(allocation.chosenPlan),
        Object.fromEntries(
          order.shipments.map((s) => [s.fulfillmentLocation.labCode, s.items.map((entry) => entry.itemId)]),
        ),
      )
      assert.deepEqual(Object.keys(planLabs(allocation.chosenPlan)).sort(), ['nl1', 'uk6'])
      const reasons = exclusions(allocation)
      const [first, second] = order.items.map((item) => item.id) as [string, string]
      // The last item was kept from uk6 (the cheapest lab for both), the first from nl1, where the last then went.
      assert.equal(reasons[second]?.uk6, 'SandboxScenario')
      assert.equal(reasons[first]?.nl1, 'SandboxScenario')
      const all = Object.values(reasons).flatMap((byLab) => Object.values(byLab))
      assert.equal(all.includes('Rejected'), false, 'no lab refused anything')
      // With both labs kept from one item each, no single lab is left for both.
      assert.equal(allocation.bestUnsplitPlan, null)
      assert.equal(allocation.splitSaving, null)
    })

    test('a lab that makes the item but has no rate there by the method is excluded DoesNotShipThere', async () => {
      // To GB, nl1 ships canvases by Standard but not by Budget.
      const orderId = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ shippingMethod: 'Budget', items: [blackCanvasItem(images.url('budget.jpg'))] }),
        }),
      ).order.id
      const order = (await driver.allocate(orderId)).document
      assert.deepEqual(
        order.shipments.map((shipment) => shipment.fulfillmentLocation.labCode),
        ['uk6'],
      )
      const [allocation] = (await routingOf(`orders/${orderId}`)).body.routing.allocations
      assert.equal(allocation.basis, 'Allocation')
      assert.equal(exclusions(allocation)[order.items[0]?.id as string]?.nl1, 'DoesNotShipThere')
      assert.deepEqual(
        allocation.items[0].labsConsidered.map((lab: any) => lab.labCode),
        ['uk6'],
      )

      // The same canvas quoted by Standard: nl1 is considered.
      const quoted = await t.sandbox({
        method: 'POST',
        url: '/v4.0/quotes',
        payload: {
          shippingMethod: 'Standard',
          destinationCountryCode: 'GB',
          items: [{ sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'Black' }, assets: [{}] }],
        },
      })
      const [quote] = json(quoted).quotes
      const [quoteAllocation] = (await routingOf(`quotes/${quote.id}`)).body.routing.allocations
      assert.deepEqual(
        quoteAllocation.items[0].labsConsidered.map((lab: any) => lab.labCode),
        ['nl1', 'uk6'],
      )
    })

    test("another account's order has no routing to show", async () => {
      const created = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: twoLabOrder(images.url) })
      const other = await t.createAccount()
      const { response } = await routingOf(`orders/${json(created).order.id}`, other.sandboxKey)
      assert.equal(response.statusCode, 404)
    })
  })
}
