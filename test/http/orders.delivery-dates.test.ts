// Delivery estimates and deliverBy on orders through HTTP and the real pipeline on every database backend
// (docs/api.md#delivery-estimates): a date no plan can meet is refused before anything is written (the idempotency key
// stays free); a reachable one is allocated to meet it, every shipment and the order carrying their estimates, computed
// here with the domain's date functions from the test clock; a date that can no longer be met at allocation gets the
// cheapest plan, which the routing says; a Live lab's shipped report recomputes the estimate from the real dispatch
// date while the promise stays; a shipping method change and a cancel keep the order's estimate true.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Catalogue } from '../../src/domain/catalogue.ts'
import { type DeliveryEstimate, estimateAfterDispatch, estimateDelivery } from '../../src/domain/delivery-promise.ts'
import type { ShippingMethod } from '../../src/domain/shipping-methods.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { blackCanvasItem, PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { changedSampleCatalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

/**
 * The sample catalogue with uk6 taking 8 working days over a 10x10 canvas. A black canvas to GB by Standard, from the
 * test clock (Sunday 1 March 2026, 09:00 UTC): uk6, the cheaper lab, delivers by 17 March; nl1, the dearer one, by
 * 13 March.
 */
const slowCanvasAtUk6 = changedSampleCatalogue('slow-uk6-canvas.json', (file) => {
  const uk6 = file.labs.find((lab: { code: string }) => lab.code === 'uk6')
  const canvas = uk6.products.find((entry: { sku: string }) => entry.sku === 'GLOBAL-CAN-10x10')
  canvas.productionDays = 8
})

/** What the domain promises for `sku` made at `labCode` and sent to GB by `method`, received at `received`. */
function expectedEstimate(
  from: Catalogue,
  labCode: string,
  sku: string,
  attributes: Record<string, string>,
  method: ShippingMethod,
  received: Date,
): DeliveryEstimate {
  const variant = from.findVariant(sku, attributes)
  const option = variant && from.labOptions(variant, 'GB', method).find(({ offer }) => offer.lab.code === labCode)
  assert.ok(option, `${labCode} makes ${sku} for GB by ${method}`)
  const estimate = estimateDelivery(
    option.offer.lab.calendar,
    option.offer.productionDays,
    option.rate.transitDays,
    received,
  )
  assert.ok(estimate)
  return estimate
}

const canvasEstimate = (labCode: string, method: ShippingMethod, received: Date) =>
  expectedEstimate(slowCanvasAtUk6, labCode, 'GLOBAL-CAN-10x10', { wrap: 'Black' }, method, received)

/** The estimate keys of a shipment or an order, or undefined for each that is absent. */
const estimateOf = (shaped: any): DeliveryEstimate => ({
  estimatedDispatchDate: shaped.estimatedDispatchDate,
  estimatedDelivery: shaped.estimatedDelivery,
})

for (const kind of databaseKinds) {
  describe(`orders with delivery dates (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let driver: PipelineDriver

    before(async () => {
      images = await startImageServer()
      t = await startTestApp({ kind, catalogue: slowCanvasAtUk6 })
      driver = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    const canvasOrder = (overrides: Record<string, unknown> = {}) =>
      sampleOrder({ items: [blackCanvasItem(images.url('canvas.jpg'))], ...overrides })
    const create = (payload: Record<string, unknown>) => t.sandbox({ method: 'POST', url: '/v4.0/orders', payload })
    const orderCount = async () => json(await t.sandbox({ method: 'GET', url: '/v4.0/orders?top=100' })).orders.length
    const routingOf = async (orderId: string) => {
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })
      assert.equal(response.statusCode, 200, response.body)
      return json(response).routing.allocations
    }

    test('a date no plan can meet is refused before anything is written; its idempotency key stays free', async () => {
      const before = await orderCount()
      const refused = await create(canvasOrder({ idempotencyKey: 'dated-1', deliverBy: '2026-03-12' }))
      assert.equal(refused.statusCode, 400, refused.body)
      const body = json(refused)
      assert.equal(body.outcome, 'ValidationFailed')
      // nl1's 13 March is the earliest any plan reaches.
      assert.deepEqual(body.failures, {
        deliverBy: [{ code: 'DeliveryDateUnreachable', providedValue: '2026-03-12', comparisonValue: '2026-03-13' }],
      })
      assert.match(body.statusText, /2026-03-13/)
      assert.equal(await orderCount(), before, 'no order was written')

      const accepted = await create(canvasOrder({ idempotencyKey: 'dated-1', deliverBy: '2026-03-13' }))
      assert.equal(accepted.statusCode, 200, accepted.body)
      assert.equal(json(accepted).outcome, 'Created', 'the refused request took no key')
      const order = json(accepted).order
      assert.equal(order.deliverBy, '2026-03-13')
      assert.deepEqual(Object.keys(order).slice(-2), ['metadata', 'deliverBy'], 'no estimate before allocation')
      // A retry answers the order, whatever its date says now: the date is checked after the key.
      const retry = await create(canvasOrder({ idempotencyKey: 'dated-1', deliverBy: '2026-03-12' }))
      assert.equal(json(retry).outcome, 'AlreadyExists')
      assert.equal(json(retry).order.id, order.id)
      assert.equal(await orderCount(), before + 1)
    })

    test('past, impossible and malformed dates are refused on deliverBy', async () => {
      const refused = async (deliverBy: unknown) => {
        const response = await create(canvasOrder({ deliverBy }))
        assert.equal(response.statusCode, 400, response.body)
        assert.deepEqual(Object.keys(json(response).failures), ['deliverBy'])
        return json(response).failures.deliverBy
      }
      assert.deepEqual(await refused('2026-02-28'), [
        { code: 'MustBeGreaterThanOrEqualTo', providedValue: '2026-02-28', comparisonValue: '2026-03-01' },
      ])
      assert.equal((await refused('2026-02-30'))[0].code, 'InvalidFormat')
      assert.equal((await refused('13/03/2026'))[0].code, 'InvalidFormat')
      assert.equal((await refused(''))[0].code, 'MustNotBeEmptyOrWhitespace')
      const none = await create(canvasOrder({ deliverBy: null }))
      assert.equal(none.statusCode, 200, none.body)
      assert.equal('deliverBy' in json(none).order, false)
    })

    test('a reachable date is allocated to meet it: the dearer lab, the estimates on shipments and order', async () => {
      const created = await create(canvasOrder({ deliverBy: '2026-03-13' }))
      const orderId = json(created).order.id
      // Before allocation the routing estimates what allocating now would do, the date included.
      const [estimate] = await routingOf(orderId)
      assert.equal(estimate.basis, 'Estimate')
      assert.equal(estimate.deliverBy, '2026-03-13')
      assert.equal(estimate.items[0].chosenLabCode, 'nl1')

      const allocated = await driver.allocate(orderId)
      const expected = canvasEstimate('nl1', 'Standard', t.clock.now())
      const [shipment] = allocated.document.shipments
      assert.equal(shipment?.fulfillmentLocation.labCode, 'nl1')
      assert.deepEqual(estimateOf(shipment), expected)
      assert.deepEqual(estimateOf(allocated.document), expected)
      assert.ok(expected.estimatedDelivery.to <= '2026-03-13')
      assert.deepEqual(allocated.pipeline.shipments[shipment?.id ?? '']?.promise, expected)
      // As GET serves it: the order's estimate after every other key, the shipment's after `cancelled`.
      const served = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.deepEqual(Object.keys(served).slice(-4), [
        'metadata',
        'deliverBy',
        'estimatedDispatchDate',
        'estimatedDelivery',
      ])
      assert.deepEqual(Object.keys(served.shipments[0]).slice(-3), [
        'cancelled',
        'estimatedDispatchDate',
        'estimatedDelivery',
      ])

      const [round] = await routingOf(orderId)
      assert.equal(round.basis, 'Allocation')
      assert.equal(round.deliverByMet, true)
      assert.deepEqual(
        round.items[0].labsExcluded.find((lab: any) => lab.labCode === 'uk6'),
        { labCode: 'uk6', reason: 'TooLate', ...canvasEstimate('uk6', 'Standard', t.clock.now()) },
      )
      assert.deepEqual(estimateOf(round.chosenPlan.shipments[0]), expected)
      // The charge is the dearer plan's; the routing says by how much it beat the cheapest.
      assert.ok(minor(round.deliverByCost.amount) > 0n)
      assert.equal(minor(round.chosenPlan.totalCost.amount) - minor(round.deliverByCost.amount) > 0n, true)
    })

    test('a shipping method change re-plans with new estimates and promises; a cancel takes the estimates away', async () => {
      const orderId = json(await create(canvasOrder())).order.id
      const allocated = await driver.allocate(orderId)
      const [standard] = allocated.document.shipments
      assert.equal(standard?.fulfillmentLocation.labCode, 'uk6')
      assert.deepEqual(estimateOf(standard), canvasEstimate('uk6', 'Standard', t.clock.now()))

      const changed = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${orderId}/actions/updateShippingMethod`,
        payload: { shippingMethod: 'Express' },
      })
      assert.equal(json(changed).outcome, 'Updated', changed.body)
      const express = canvasEstimate('uk6', 'Express', t.clock.now())
      assert.notDeepEqual(express, estimateOf(standard))
      const order = json(changed).order
      assert.deepEqual(estimateOf(order.shipments[0]), express)
      assert.deepEqual(estimateOf(order), express)
      const state = await driver.state(orderId)
      assert.deepEqual(state.pipeline.shipments[order.shipments[0].id]?.promise, express)

      const cancelled = json(await t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` })).order
      assert.equal(cancelled.status.stage, 'Cancelled')
      for (const key of ['estimatedDispatchDate', 'estimatedDelivery']) {
        assert.equal(key in cancelled, false, key)
        assert.equal(key in cancelled.shipments[0], false, key)
      }
    })

    test("a Live lab's shipped report recomputes the estimate from its dispatch date; the promise stays", async () => {
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
        }),
      })
      const orderId = json(created).order.id
      await driver.allocate(orderId)
      await driver.render(orderId)
      const submitted = await driver.submit(orderId)
      const [shipment] = submitted.document.shipments
      assert.ok(shipment)
      const labCode = shipment.fulfillmentLocation.labCode
      const promised = expectedEstimate(slowCanvasAtUk6, labCode, PHONE_CASE, {}, 'Standard', t.clock.now())
      assert.deepEqual(estimateOf(shipment), promised)

      const { key } = await t.app.services.labs.createLabKey(labCode, TEST_ACTOR)
      const dispatchDate = '2026-03-10T16:30:00Z'
      const shipped = await t.live(
        {
          method: 'POST',
          url: `/labs/v1/jobs/${shipment.id}/shipped`,
          headers: { 'x-api-key': key },
          payload: { carrier: { name: 'Royal Mail', service: 'Tracked 48' }, tracking: null, dispatchDate },
        },
        null,
      )
      assert.equal(json(shipped).outcome, 'Updated', shipped.body)
      const lab = slowCanvasAtUk6.findLab(labCode)
      const rate = slowCanvasAtUk6.shippingRate(labCode, 'Standard', 'GB')
      const afterDispatch = estimateAfterDispatch(
        lab?.calendar ?? null,
        rate?.transitDays ?? null,
        new Date(dispatchDate),
      )
      assert.ok(afterDispatch)
      assert.equal(afterDispatch.estimatedDispatchDate, '2026-03-10')
      assert.notDeepEqual(afterDispatch, promised)
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(order.status.stage, 'Complete')
      assert.deepEqual(estimateOf(order.shipments[0]), afterDispatch)
      assert.deepEqual(estimateOf(order), afterDispatch)
      const state = await driver.state(orderId)
      assert.deepEqual(state.pipeline.shipments[shipment.id]?.promise, promised, 'lateness is judged by the promise')
    })

    // Last: it moves the shared clock three days on.
    test('a date no longer reachable at allocation gets the cheapest plan, and the routing says so', async () => {
      const orderId = json(await create(canvasOrder({ deliverBy: '2026-03-13' }))).order.id
      t.clock.advanceSeconds(3 * 86_400) // Wednesday 4 March: nl1 now delivers by 17 March
      const now = t.clock.now()
      const nl1 = canvasEstimate('nl1', 'Standard', now)
      const uk6 = canvasEstimate('uk6', 'Standard', now)
      assert.ok(nl1.estimatedDelivery.to > '2026-03-13')
      const allocated = await driver.allocate(orderId)
      const [shipment] = allocated.document.shipments
      assert.equal(shipment?.fulfillmentLocation.labCode, 'uk6', 'the cheapest plan')
      assert.deepEqual(estimateOf(shipment), uk6)
      const rounds = await routingOf(orderId)
      const round = rounds.at(-1)
      assert.equal(round.deliverBy, '2026-03-13')
      assert.equal(round.deliverByMet, false)
      assert.equal(
        round.earliestDeliveryDate,
        [nl1.estimatedDelivery.to, uk6.estimatedDelivery.to].sort()[0],
        'the earliest any plan reaches',
      )
      assert.equal(round.deliverByCost, undefined)
    })
  })
}
