// The delivery promise and the parcel's story in a real browser: the quote calculator shows each method's
// estimated delivery and asks for a Deliver by date (an unreachable one is said, a past one is the field's error);
// a Sandbox order's page and the orders table show the promise, then each shipment's carrier scans and the
// delivery, and a late one says it was late. Desktop and phone width, checked with axe-core.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible, screenshotForDocs } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('browser')

/** A Sandbox order with the fast simulated labs is delivered within seconds; this is the most a test waits. */
const DELIVERED_WITHIN_MS = 60_000

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** How the dashboard words a "YYYY-MM-DD" date: `Tue 1 Dec 2026`. Written out here, not imported, so a change shows. */
function inWords(date: string): string {
  const day = new Date(`${date}T00:00:00Z`)
  return `${WEEKDAYS[day.getUTCDay()]} ${day.getUTCDate()} ${MONTHS[day.getUTCMonth()]} ${day.getUTCFullYear()}`
}

function windowInWords(window: { from: string; to: string }): string {
  return window.from === window.to ? inWords(window.from) : `${inWords(window.from)} – ${inWords(window.to)}`
}

/** Today's date in UTC, "YYYY-MM-DD", shifted by `days`. */
function utcDate(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

async function noHorizontalOverflow(page: Page, what: string): Promise<void> {
  const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
  assert.ok(overflow <= 0, `${what} is ${overflow}px wider than the phone`)
}

for (const kind of databaseKinds) {
  describe(`dashboard delivery promise and tracking (${kind})`, () => {
    let h: DashboardHarness
    before(async () => {
      h = await startDashboardHarness(kind)
    })
    after(async () => {
      await h.close()
    })

    test('the quote calculator shows each method’s estimated delivery and takes a Deliver by date', async () => {
      const basket = 'rows=1&sku1=GLOBAL-CAN-10x10&copies1=1&attr1.wrap=Black&destination=GB&shippingMethod=Standard'
      const quoteNow = async () => {
        const answer = await h.t.sandbox({
          method: 'POST',
          url: '/v4.0/quotes',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({
            destinationCountryCode: 'GB',
            shippingMethod: 'Standard',
            items: [
              { sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'Black' }, assets: [{ printArea: 'default' }] },
            ],
          }),
        })
        const [quote] = json(answer).quotes
        assert.ok(quote.estimatedDelivery, 'the sample catalogue gives the quote an estimate')
        return windowInWords(quote.estimatedDelivery)
      }
      // The page asks between these two: across a cut-off the two may differ, and the page's is one of them.
      const earlier = await quoteNow()
      const page = await h.sandboxPage('desktop', `/dashboard/catalogue/quote?${basket}`)
      const later = await quoteNow()
      const row = page.locator('table.quotes tbody tr').first()
      const shown = await row.locator('td').first().innerText()
      assert.ok(shown.includes(earlier) || shown.includes(later), `the estimated delivery cell says ${shown}`)
      assert.match(shown, /dispatched (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d+ \w{3} \d{4}/)
      await assertAccessible(page, 'quote with delivery estimates')
      await screenshotForDocs(page, 'quote-delivery')

      // A date no plan can meet (today: nothing is made and delivered the day it is ordered): still quoted, and
      // the page says the earliest date.
      await page.locator('#quote-deliver-by').fill(utcDate(0))
      await page.getByRole('button', { name: 'Get quote' }).click()
      const unreachable = page.getByRole('status').filter({ hasText: 'Standard' }).first()
      await unreachable.waitFor()
      assert.match(await unreachable.innerText(), /\d{4}/, 'the notice names the earliest date')
      assert.equal(await page.locator('#quote-deliver-by').inputValue(), utcDate(0), 'the date stays in its field')

      // A past date is the field's own error, named beside it.
      await page.locator('#quote-deliver-by').fill(utcDate(-2))
      await page.getByRole('button', { name: 'Get quote' }).click()
      await page.locator('#quote-deliver-by[aria-invalid="true"]').waitFor()
      assert.equal(await page.locator('table.quotes').count(), 0, 'no quote for a past date')
      await assertAccessible(page, 'quote with a past Deliver by date')
    })

    test('an order’s page and the orders table show the promise, the carrier scans and the delivery', async () => {
      const orderId = await h.placeOrder({ merchantReference: 'deliver-me' })
      const delivered = await waitFor(
        `${orderId} delivered`,
        async () => {
          const answer = await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })
          const order = json(answer).order
          return order.deliveredAt ? order : undefined
        },
        DELIVERED_WITHIN_MS,
      )
      const [shipment] = delivered.shipments
      assert.ok(shipment.estimatedDelivery, 'the shipment carries its estimate')

      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}`)
      const facts = page.locator('.delivery-facts')
      // The promise made when the labs were chosen is labelled as such (the routing's chosen plan); once delivered
      // the current estimate gives way to the delivery.
      const routing = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })).routing
      const [promised] = routing.allocations[0].chosenPlan.shipments
      assert.match(
        await facts.locator('[data-estimate="promised"]').innerText(),
        new RegExp(
          `^Promised delivery\\s+${windowInWords(promised.estimatedDelivery)}\\s+estimated when the labs were chosen`,
        ),
      )
      assert.equal(await facts.locator('[data-estimate="expected"]').count(), 0)
      assert.match(await facts.innerText(), /Delivered\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/)
      assert.equal(await facts.getByText('Late').count(), 0, 'delivered on time')
      const shipmentRow = page.locator('section[aria-labelledby="shipments-heading"] tbody tr').first()
      assert.equal(await shipmentRow.locator('td').last().innerText(), 'Delivered')
      const scans = shipmentRow.locator('.tracking-events li')
      assert.equal(await scans.count(), shipment.trackingEvents.length)
      assert.match(await scans.first().innerText(), /In transit/)
      assert.match(await scans.last().innerText(), /Delivered/)
      // The timeline tells the parcel's story from the callbacks' events.
      await assert.doesNotReject(page.locator('.timeline').getByText('A shipment was delivered').first().waitFor())
      await assert.doesNotReject(page.locator('.timeline').getByText('Every shipment delivered').waitFor())
      await assertAccessible(page, 'delivered order')
      await screenshotForDocs(page, 'order-delivered')

      const phone = await h.sandboxPage('phone', `/dashboard/orders/${orderId}`)
      await noHorizontalOverflow(phone, 'the delivered order page')
      await screenshotForDocs(phone, 'order-delivered-phone')

      const orders = await h.sandboxPage('desktop', `/dashboard/orders?q=${orderId}`)
      const row = orders.locator('table.orders tbody tr', { hasText: orderId })
      const cells = await row.locator('td').allInnerTexts()
      assert.ok(
        cells.some((cell) => /^Delivered \d{4}-\d{2}-\d{2}/.test(cell.trim())),
        `the Delivery column: ${cells.join(' | ')}`,
      )
      await assertAccessible(orders, 'orders with delivery')
    })

    test('an order’s page shows the parcels of a shipment sent in several, and the item a lab gave back', async () => {
      // A manual Sandbox order waits with its lab; the lab's item reports go through the pipeline as the lab API's do.
      const print = (copies: number) => ({
        sku: 'GLOBAL-FAP-8x8',
        copies,
        sizing: 'fillPrintArea',
        assets: [{ printArea: 'default', url: `${h.urls.sandbox}/samples/landscape.jpg` }],
      })
      const orderId = await h.placeOrder({
        items: [print(1), print(2), print(3)],
        metadata: { sandboxScenario: 'manual' },
      })
      const atLab = await waitFor('the shipment submitted to its lab', async () => {
        const { pipeline, document } = await pipelineDriver(h.t).state(orderId)
        const shipments = Object.values(pipeline.shipments)
        return shipments.length > 0 && shipments.every((shipment) => shipment.state === 'submitted')
          ? document
          : undefined
      })
      assert.equal(atLab.shipments.length, 1, 'one lab makes the three prints')
      const shipmentId = atLab.shipments[0]?.id as string
      const [first, , third] = atLab.items.map((item) => item.id)
      const pipeline = h.t.app.services.pipeline
      const sent = await pipeline.reportLab(orderId, shipmentId, {
        kind: 'shipped',
        carrier: { name: 'Royal Mail', service: 'Tracked 48' },
        tracking: { number: 'PARCEL-ONE', url: 'https://www.royalmail.com/track?trackNumber=PARCEL-ONE' },
        dispatchDate: new Date(),
        itemIds: [first as string],
      })
      assert.equal(sent.changed, true)
      const given = await pipeline.reportLab(orderId, shipmentId, {
        kind: 'rejected',
        reason: 'one print cannot be made',
        unavailableItemIds: [],
        items: [{ itemId: third as string, reason: 'CannotProduce' }],
      })
      assert.equal(given.changed, true)
      await waitFor('the given-back print at a new shipment', async () => {
        const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
        return order.shipments.length === 2 ? order : undefined
      })

      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}`)
      const parcels = page.locator(`ol.parcels[aria-label="Parcels of ${shipmentId}"] li`)
      assert.equal(await parcels.count(), 1)
      assert.match(await parcels.first().innerText(), new RegExp(`PARCEL-ONE: ${first}`))
      await assert.doesNotReject(
        page.locator('.timeline').getByText(`Shipment ${shipmentId}: parcel 1 dispatched`).first().waitFor(),
      )
      const rerouted = page.locator('ul.rerouted-items li')
      assert.match(
        await rerouted.first().innerText(),
        new RegExp(`Re-routed ${third} from \\S+ \\(${shipmentId}\\): cannot make it`),
      )
      await assertAccessible(page, 'order with parcels and a re-routed item')
    })

    test('a late delivery is marked late on the order page and in the orders table', async () => {
      const orderId = await h.placeOrder({ metadata: { sandboxScenario: 'lateDelivery' } })
      const delivered = await waitFor(
        `${orderId} delivered`,
        async () => {
          const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return order.deliveredAt ? order : undefined
        },
        DELIVERED_WITHIN_MS,
      )
      assert.equal(delivered.deliveredLate, true)
      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}`)
      assert.equal(await page.locator('.delivery-facts .badge', { hasText: 'Late' }).count(), 1)
      const shipmentRow = page.locator('section[aria-labelledby="shipments-heading"] tbody tr').first()
      assert.match(await shipmentRow.locator('td').last().innerText(), /Delivered\s+Late/)
      const orders = await h.sandboxPage('desktop', `/dashboard/orders?q=${orderId}`)
      const row = orders.locator('table.orders tbody tr', { hasText: orderId })
      assert.match(await row.innerText(), /Delivered\s+Late/)
    })

    test('an order placed for a date shows it beside the estimate in the table and on its page', async () => {
      // Two weeks ahead: any sample lab's Standard delivery within the UK meets it.
      const deliverBy = utcDate(14)
      const orderId = await h.placeOrder({ deliverBy, metadata: { sandboxScenario: 'manual' } })
      const allocated = await waitFor(
        `${orderId} allocated`,
        async () => {
          const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return order.estimatedDelivery ? order : undefined
        },
        DELIVERED_WITHIN_MS,
      )
      assert.ok(allocated.estimatedDelivery.to <= deliverBy)
      const orders = await h.sandboxPage('desktop', `/dashboard/orders?q=${orderId}`)
      const row = orders.locator('table.orders tbody tr', { hasText: orderId })
      assert.match(await row.innerText(), new RegExp(`by ${inWords(deliverBy)}`))
      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}`)
      assert.match(await page.locator('.delivery-facts').innerText(), new RegExp(`Deliver by\\s+${inWords(deliverBy)}`))
      // The routing says the date was met, and by which plan; each considered lab shows when it would arrive.
      const routing = page.locator('section[aria-labelledby="routing-heading"]')
      assert.match(await routing.innerText(), new RegExp(`Deliver by ${inWords(deliverBy)}\\s+met`))
      assert.match(await routing.locator('tbody td').nth(3).innerText(), /\d{4}/)
      await assertAccessible(page, 'order placed for a date')
    })
  })
}
