// Delivery estimates and deliverBy on quotes through HTTP on every database backend (docs/api.md#delivery-estimates):
// every quote and shipment carries its estimate, computed from the service's clock with the domain's date functions;
// deliverBy picks the cheapest plan that arrives in time (and the routing says what it cost), or keeps the cheapest
// plan with a DeliveryDateUnreachable issue; past and malformed dates are refused on the field; and an order using
// a quote made for a date must ask the same date, and then gets the quote's allocation.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Catalogue } from '../../src/domain/catalogue.ts'
import { combinedEstimate, type DeliveryEstimate, estimateDelivery } from '../../src/domain/delivery-promise.ts'
import type { ShippingMethod } from '../../src/domain/shipping-methods.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import {
  catalogue,
  changedSampleCatalogue,
  json,
  sampleOrder,
  startTestApp,
  type TestApp,
} from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

/**
 * The sample catalogue with uk6 taking 8 working days over a 10x10 canvas. To GB by Standard, from the test clock
 * (Sunday 1 March 2026, 09:00 UTC): uk6, the cheaper lab, dispatches on 12 March and delivers by 17 March; nl1, the
 * dearer one, dispatches on 5 March and delivers by 13 March.
 */
const slowCanvasAtUk6 = changedSampleCatalogue('slow-uk6-canvas.json', (file) => {
  const uk6 = file.labs.find((lab: { code: string }) => lab.code === 'uk6')
  const canvas = uk6.products.find((entry: { sku: string }) => entry.sku === 'GLOBAL-CAN-10x10')
  canvas.productionDays = 8
})

const blackCanvas = { sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'Black' }, assets: [{}] }

/** What the domain promises for `sku` made at `labCode` and sent to `country` by `method`, received at `received`. */
function expectedEstimate(
  from: Catalogue,
  labCode: string,
  sku: string,
  attributes: Record<string, string>,
  country: string,
  method: ShippingMethod,
  received: Date,
): DeliveryEstimate {
  const variant = from.findVariant(sku, attributes)
  const option = variant && from.labOptions(variant, country, method).find(({ offer }) => offer.lab.code === labCode)
  assert.ok(option, `${labCode} makes ${sku} for ${country} by ${method}`)
  const estimate = estimateDelivery(
    option.offer.lab.calendar,
    option.offer.productionDays,
    option.rate.transitDays,
    received,
  )
  assert.ok(estimate, `the catalogue gives ${labCode} an estimate`)
  return estimate
}

const estimateOf = (shaped: any): DeliveryEstimate => ({
  estimatedDispatchDate: shaped.estimatedDispatchDate,
  estimatedDelivery: shaped.estimatedDelivery,
})

for (const kind of databaseKinds) {
  describe(`quotes with delivery dates (${kind})`, () => {
    let t: TestApp
    let slow: TestApp
    let images: ImageServer

    before(async () => {
      images = await startImageServer()
      t = await startTestApp({ kind })
      slow = await startTestApp({ kind, catalogue: slowCanvasAtUk6 })
    })
    after(async () => {
      await t.close()
      await slow.close()
      await images.close()
    })

    const quote = (app: TestApp, payload: Record<string, unknown>) =>
      app.sandbox({ method: 'POST', url: '/v4.0/quotes', payload })
    const routingOf = async (app: TestApp, quoteId: string) => {
      const response = await app.sandbox({ method: 'GET', url: `/v4.0/quotes/${quoteId}/routing` })
      assert.equal(response.statusCode, 200, response.body)
      const [allocation] = json(response).routing.allocations
      return allocation
    }

    test('every quote and shipment carries the estimate of the time of the request; a quote the latest of its shipments', async () => {
      const now = t.clock.now()
      const gb = json(await quote(t, { destinationCountryCode: 'GB', items: [blackCanvas] }))
      assert.equal(gb.outcome, 'Created')
      for (const candidate of gb.quotes) {
        const [shipment] = candidate.shipments
        const expected = expectedEstimate(
          catalogue,
          shipment.fulfillmentLocation.labCode,
          'GLOBAL-CAN-10x10',
          { wrap: 'Black' },
          'GB',
          candidate.shipmentMethod,
          now,
        )
        assert.deepEqual(estimateOf(shipment), expected, candidate.shipmentMethod)
        assert.deepEqual(estimateOf(candidate), expected, 'one shipment: the quote has its estimate')
      }
      // Faster methods promise earlier: Overnight's window ends before Budget's.
      const byMethod = Object.fromEntries(gb.quotes.map((c: any) => [c.shipmentMethod, c.estimatedDelivery.to]))
      assert.ok(byMethod.Overnight < byMethod.Budget, JSON.stringify(byMethod))

      // Two shipments (a US lab and a GB lab): the quote's dates are the latest of each.
      const us = json(
        await quote(t, {
          destinationCountryCode: 'US',
          shippingMethod: 'Standard',
          items: [blackCanvas, { sku: 'GLOBAL-TECH-IP11P-FC-CP', copies: 1, assets: [{}] }],
        }),
      )
      const [split] = us.quotes
      assert.equal(split.shipments.length, 2)
      const shipmentEstimates = split.shipments.map((shipment: any) => {
        const sku = shipment.items[0] === split.items[0].id ? 'GLOBAL-CAN-10x10' : 'GLOBAL-TECH-IP11P-FC-CP'
        const attributes: Record<string, string> = sku === 'GLOBAL-CAN-10x10' ? { wrap: 'Black' } : {}
        const expected = expectedEstimate(
          catalogue,
          shipment.fulfillmentLocation.labCode,
          sku,
          attributes,
          'US',
          'Standard',
          now,
        )
        assert.deepEqual(estimateOf(shipment), expected)
        return expected
      })
      assert.notDeepEqual(shipmentEstimates[0], shipmentEstimates[1], 'the two labs promise different dates')
      assert.deepEqual(estimateOf(split), combinedEstimate(shipmentEstimates))
      // The routing's chosen plan and considered labs carry the same estimates.
      const allocation = await routingOf(t, split.id)
      for (const shipment of allocation.chosenPlan.shipments) {
        const quoted = split.shipments.find((s: any) => s.fulfillmentLocation.labCode === shipment.labCode)
        assert.deepEqual(estimateOf(shipment), estimateOf(quoted))
      }
      const canvasItem = allocation.items[0]
      for (const lab of canvasItem.labsConsidered) {
        assert.deepEqual(
          estimateOf(lab),
          expectedEstimate(catalogue, lab.labCode, 'GLOBAL-CAN-10x10', { wrap: 'Black' }, 'US', 'Standard', now),
        )
      }
      assert.equal('deliverBy' in allocation, false, 'a quote without a date has none in its routing')
    })

    test('deliverBy picks the dearer lab that arrives in time; the routing shows TooLate and what the date cost', async () => {
      const now = slow.clock.now()
      const request = { destinationCountryCode: 'GB', shippingMethod: 'Standard', items: [blackCanvas] }
      const cheapest = json(await quote(slow, request)).quotes[0]
      assert.equal(cheapest.shipments[0].fulfillmentLocation.labCode, 'uk6')
      const uk6 = expectedEstimate(slowCanvasAtUk6, 'uk6', 'GLOBAL-CAN-10x10', { wrap: 'Black' }, 'GB', 'Standard', now)
      const nl1 = expectedEstimate(slowCanvasAtUk6, 'nl1', 'GLOBAL-CAN-10x10', { wrap: 'Black' }, 'GB', 'Standard', now)
      assert.deepEqual(estimateOf(cheapest), uk6)
      assert.equal(uk6.estimatedDelivery.to, '2026-03-17')
      assert.equal(nl1.estimatedDelivery.to, '2026-03-13')

      const answer = json(await quote(slow, { ...request, deliverBy: '2026-03-13' }))
      assert.equal(answer.outcome, 'Created')
      assert.deepEqual(answer.issues, [])
      const [fast] = answer.quotes
      assert.deepEqual(fast.shipments[0].fulfillmentLocation, { countryCode: 'NL', labCode: 'nl1' })
      assert.deepEqual(estimateOf(fast), nl1)
      assert.ok(minor(fast.costSummary.totalCost.amount) > minor(cheapest.costSummary.totalCost.amount), 'dearer')

      const allocation = await routingOf(slow, fast.id)
      assert.equal(allocation.deliverBy, '2026-03-13')
      assert.equal(allocation.deliverByMet, true)
      assert.equal(allocation.earliestDeliveryDate, undefined)
      const [item] = allocation.items
      assert.equal(item.chosenLabCode, 'nl1')
      assert.deepEqual(
        item.labsConsidered.map((lab: any) => lab.labCode),
        ['nl1'],
      )
      assert.deepEqual(
        item.labsExcluded.find((lab: any) => lab.labCode === 'uk6'),
        { labCode: 'uk6', reason: 'TooLate', ...uk6 },
      )
      // What meeting the date cost: the chosen plan's total minus the cheapest plan's, both before tax.
      const cheapestAllocation = await routingOf(slow, cheapest.id)
      assert.equal(allocation.deliverByCost.currency, 'GBP')
      assert.equal(
        minor(allocation.deliverByCost.amount),
        minor(allocation.chosenPlan.totalCost.amount) - minor(cheapestAllocation.chosenPlan.totalCost.amount),
      )
      assert.ok(minor(allocation.deliverByCost.amount) > 0n)
      // A date the cheapest plan meets costs nothing.
      const relaxed = json(await quote(slow, { ...request, deliverBy: '2026-03-17' })).quotes[0]
      assert.equal(relaxed.shipments[0].fulfillmentLocation.labCode, 'uk6')
      assert.deepEqual((await routingOf(slow, relaxed.id)).deliverByCost, { amount: '0.00', currency: 'GBP' })
    })

    test('a date no plan meets: the cheapest quote, CreatedWithIssues naming the method and the earliest date', async () => {
      const answer = json(
        await quote(slow, { destinationCountryCode: 'GB', items: [blackCanvas], deliverBy: '2026-03-12' }),
      )
      assert.equal(answer.outcome, 'CreatedWithIssues')
      const standard = answer.quotes.find((candidate: any) => candidate.shipmentMethod === 'Standard')
      assert.equal(standard.shipments[0].fulfillmentLocation.labCode, 'uk6', 'the cheapest plan all the same')
      const issue = answer.issues.find((candidate: any) => candidate.description.includes('Standard'))
      assert.deepEqual(Object.keys(issue), ['errorCode', 'description', 'earliestDeliveryDate'])
      assert.equal(issue.errorCode, 'DeliveryDateUnreachable')
      assert.equal(issue.earliestDeliveryDate, '2026-03-13')
      assert.match(issue.description, /2026-03-12/)
      assert.match(issue.description, /2026-03-13/)
      // One issue per method that cannot make it, each naming its own method; the others are simply quoted.
      const missed = answer.issues.map((candidate: any) => candidate.description.match(/^No (\w+) plan/)?.[1])
      for (const candidate of answer.quotes) {
        const late = candidate.estimatedDelivery.to > '2026-03-12'
        assert.equal(missed.includes(candidate.shipmentMethod), late, candidate.shipmentMethod)
      }
      const allocation = await routingOf(slow, standard.id)
      assert.equal(allocation.deliverBy, '2026-03-12')
      assert.equal(allocation.deliverByMet, false)
      assert.equal(allocation.earliestDeliveryDate, '2026-03-13')
      assert.equal(allocation.deliverByCost, undefined)
      assert.deepEqual(
        allocation.items[0].labsExcluded.filter((lab: any) => lab.reason === 'TooLate'),
        [],
        'nothing is excluded for a date no plan meets',
      )
    })

    test('past, impossible and malformed dates are refused on deliverBy; today is accepted; null is no date', async () => {
      const base = { destinationCountryCode: 'GB', items: [blackCanvas] }
      const refused = async (deliverBy: unknown) => {
        const response = await quote(t, { ...base, deliverBy })
        assert.equal(response.statusCode, 400, response.body)
        const body = json(response)
        assert.equal(body.outcome, 'ValidationFailed')
        assert.deepEqual(Object.keys(body.failures), ['deliverBy'])
        return body.failures.deliverBy
      }
      // The test clock's today (UTC) is 1 March 2026.
      assert.deepEqual(await refused('2026-02-28'), [
        { code: 'MustBeGreaterThanOrEqualTo', providedValue: '2026-02-28', comparisonValue: '2026-03-01' },
      ])
      assert.equal((await refused('2026-3-14'))[0].code, 'InvalidFormat')
      assert.equal((await refused('2026-02-30'))[0].code, 'InvalidFormat')
      assert.equal((await refused('14/03/2026'))[0].code, 'InvalidFormat')
      assert.equal((await refused(20260314))[0].code, 'InvalidType')
      const today = await quote(t, { ...base, deliverBy: '2026-03-01' })
      assert.equal(today.statusCode, 200, today.body)
      assert.equal(json(today).outcome, 'CreatedWithIssues', 'nothing arrives the day it is ordered')
      const none = await quote(t, { ...base, deliverBy: null })
      assert.equal(json(none).outcome, 'Created')
    })

    test('an order using a quote made for a date must ask that date, and gets the quoted allocation', async () => {
      const quoted = json(
        await quote(slow, {
          destinationCountryCode: 'GB',
          shippingMethod: 'Standard',
          items: [blackCanvas],
          deliverBy: '2026-03-13',
        }),
      ).quotes[0]
      assert.equal(quoted.shipments[0].fulfillmentLocation.labCode, 'nl1')
      const order = (overrides: Record<string, unknown>) =>
        sampleOrder({ quoteId: quoted.id, items: [blackCanvasItem(images.url('canvas.jpg'))], ...overrides })
      const create = (payload: Record<string, unknown>) =>
        slow.sandbox({ method: 'POST', url: '/v4.0/orders', payload })
      const without = await create(order({}))
      assert.equal(without.statusCode, 400, without.body)
      assert.deepEqual(json(without).failures.deliverBy, [
        { code: 'DiffersFromQuote', providedValue: null, comparisonValue: '2026-03-13' },
      ])
      const other = await create(order({ deliverBy: '2026-03-20' }))
      assert.deepEqual(json(other).failures.deliverBy, [
        { code: 'DiffersFromQuote', providedValue: '2026-03-20', comparisonValue: '2026-03-13' },
      ])
      // A quote without a date locks orders without one.
      const undated = json(
        await quote(slow, { destinationCountryCode: 'GB', shippingMethod: 'Standard', items: [blackCanvas] }),
      ).quotes[0]
      const dated = await create(order({ quoteId: undated.id, deliverBy: '2026-03-13' }))
      assert.deepEqual(json(dated).failures.deliverBy, [
        { code: 'DiffersFromQuote', providedValue: '2026-03-13', comparisonValue: null },
      ])

      const created = await create(order({ deliverBy: '2026-03-13' }))
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id
      const allocated = (await pipelineDriver(slow).allocate(orderId)).document
      assert.deepEqual(
        allocated.shipments.map((shipment) => shipment.fulfillmentLocation),
        quoted.shipments.map((shipment: any) => shipment.fulfillmentLocation),
      )
      assert.deepEqual(estimateOf(allocated), estimateOf(quoted))
      assert.equal(allocated.charges[0]?.totalCost.amount, quoted.costSummary.totalCost.amount)
    })
  })
}
