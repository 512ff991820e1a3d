// The Orders table and an order's page in a real browser: the table lists, filters and searches; an order's
// page shows it moving to Complete while it is open, its images load, and a callback is redelivered from it; an
// order created from a quote shows the quote's routing beside its own; exclusions read in plain words.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible, assertImagesLoaded, assertWithinViewport, screenshotForDocs } from '../support/browser.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('browser')

/** How long an order may take to complete with the fast simulated labs (it takes a few seconds). */
const COMPLETE_WITHIN_MS = 45_000

/** A black-wrap canvas: to GB by Standard, uk6 and nl1 make it and uk6 is the cheaper. */
const CANVAS = { sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'Black' } }

/** Minor units of a wire amount ("12.50" -> 1250n). */
function minor(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.')
  const value = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0'))
  return amount.startsWith('-') ? -value : value
}

async function stageOf(page: Page): Promise<string> {
  return page.locator('.page-head .badge').first().innerText()
}

for (const kind of databaseKinds) {
  describe(`dashboard orders and order page (${kind})`, () => {
    let h: DashboardHarness
    let receiver: CallbackReceiver
    before(async () => {
      h = await startDashboardHarness(kind)
      receiver = await startCallbackReceiver()
    })
    after(async () => {
      await h.close()
      await receiver.close()
    })

    test('an order moves to Complete while its page is open; images load; a callback is redelivered', async () => {
      const page = await h.sandboxPage()
      const orderId = await h.placeOrder({ merchantReference: 'watch-me', callbackUrl: receiver.url() })
      await page.goto(`${h.urls.sandbox}/dashboard/orders/${orderId}`)
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), `Order ${orderId}`)
      // No reload from the test: the page refreshes itself while the order is in progress.
      await page.locator('.page-head .badge', { hasText: 'Complete' }).waitFor({ timeout: COMPLETE_WITHIN_MS })
      assert.equal(await stageOf(page), 'Complete')
      assert.equal(await page.locator('.refresh-note').count(), 0, 'a complete order stops refreshing')

      // Source thumbnail and print-file preview, both real images, with meaningful alt text.
      const images = await assertImagesLoaded(page)
      assert.ok(images >= 2, `expected the source and preview images, found ${images}`)
      const alts = await page.locator('main img').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('alt')))
      assert.ok(
        alts.some((alt) => alt?.startsWith('Source image of')),
        `alts: ${alts.join(' | ')}`,
      )
      assert.ok(
        alts.some((alt) => alt?.startsWith('Preview of the print file')),
        `alts: ${alts.join(' | ')}`,
      )
      // The landscape sample on a portrait phone case: turned, and the crop drawn over the source.
      assert.equal(await page.locator('.overlay-crop').count(), 1)

      // The timeline shows the lifecycle from the order's events, the callbacks table every delivery.
      const timeline = page.locator('.timeline')
      await assert.doesNotReject(timeline.getByText('Stage changed to Complete').waitFor())
      await waitFor('three callbacks', () => (receiver.received.length >= 3 ? true : undefined), 10_000)

      // Routing, from GET /v4.0/orders/{id}/routing: each item's chosen lab marked, the chosen plan named.
      const answer = await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })
      const [allocation] = JSON.parse(answer.body).routing.allocations
      assert.equal(allocation.basis, 'Allocation')
      const routing = page.locator('section[aria-labelledby="routing-heading"]')
      assert.equal(await routing.getByText('chosen', { exact: true }).count(), allocation.items.length)
      const chosenLab = allocation.chosenPlan.shipments[0].labCode
      assert.match(await routing.innerText(), new RegExp(`Chosen plan\\s+${chosenLab} \\(`))
      // Without a quote there is no quote routing and no comparison.
      assert.equal(await routing.locator('.routing-quote, .routing-comparison').count(), 0)
      await assertAccessible(page, 'order')
      await screenshotForDocs(page, 'order')

      // On a phone the order page fits the screen: images shrink, tables scroll inside their frames.
      const small = await h.sandboxPage('phone', `/dashboard/orders/${orderId}`)
      await assertImagesLoaded(small)
      await screenshotForDocs(small, 'order-phone')
      const overflow = (await small.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
      assert.ok(overflow <= 0, `the order page is ${overflow}px wider than the phone`)

      await page.reload()
      const firstRedeliver = page.getByRole('button', { name: /^Redeliver cbd_/ }).first()
      const callbackId = ((await firstRedeliver.getAttribute('aria-label')) ?? '').replace('Redeliver ', '')
      const before = receiver.received.length
      await firstRedeliver.click()
      await page.getByRole('status').getByText(`Callback ${callbackId} is being sent again as`).waitFor()
      await waitFor('the redelivery', () => (receiver.received.length > before ? true : undefined), 10_000)
      const redelivered = receiver.received[receiver.received.length - 1]
      const original = receiver.received.find((callback) => callback.event.id === redelivered?.event.id)
      assert.ok(original && original !== redelivered, 'the same event was sent again')
      await assert.doesNotReject(page.getByText(`again for ${callbackId}`).waitFor())
    })

    /** The order's routing once it is allocated (its first allocation is no longer the estimate). */
    const allocatedRouting = (orderId: string) =>
      waitFor(
        `${orderId} allocated`,
        async () => {
          const answer = await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })
          const routing = JSON.parse(answer.body).routing
          return routing.allocations[0]?.basis === 'Allocation' ? routing : undefined
        },
        COMPLETE_WITHIN_MS,
      )

    test("an order created from a quote shows the quote's routing beside its own, the totals, and the labs that differ", async () => {
      const image = `${h.urls.sandbox}/samples/landscape.jpg`
      const canvas = { ...CANVAS, sizing: 'fillPrintArea', assets: [{ printArea: 'default', url: image }] }
      const quoteOf = async (items: unknown[]) =>
        json(
          await h.t.sandbox({
            method: 'POST',
            url: '/v4.0/quotes',
            payload: { shippingMethod: 'Standard', destinationCountryCode: 'GB', items },
          }),
        ).quotes[0]
      // Two canvases: the quote puts both on uk6; the order's scenario splitShipments sends one from nl1.
      const quote = await quoteOf([
        { ...CANVAS, assets: [{}] },
        { ...CANVAS, assets: [{}] },
      ])
      const orderId = await h.placeOrder({
        quoteId: quote.id,
        items: [canvas, canvas],
        metadata: { sandboxScenario: 'splitShipments' },
      })
      const routing = await allocatedRouting(orderId)
      const quoteRouting = JSON.parse(
        (await h.t.sandbox({ method: 'GET', url: `/v4.0/quotes/${quote.id}/routing` })).body,
      ).routing
      const lockedTotal = quoteRouting.allocations[0].chosenPlan.totalCost
      // The locked total is the quote's items and shipping before tax...
      assert.equal(
        minor(lockedTotal.amount),
        minor(quote.costSummary.items.amount) + minor(quote.costSummary.shipping.amount),
      )
      const routedTotal = routing.allocations[0].chosenPlan.totalCost
      assert.deepEqual(
        routing.allocations[0].chosenPlan.shipments.map((shipment: any) => shipment.labCode),
        ['nl1', 'uk6'],
      )
      // ...and the split costs more at catalogue prices than the one parcel quoted.
      const delta = minor(routedTotal.amount) - minor(lockedTotal.amount)
      assert.ok(delta > 0n, `split ${routedTotal.amount} against quoted ${lockedTotal.amount}`)

      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}`)
      const section = page.locator('section[aria-labelledby="routing-heading"]')
      const comparison = section.getByRole('group', { name: `Quote ${quote.id} and this order` })
      assert.equal(
        await comparison.locator('[data-locked-total]').innerText(),
        `${lockedTotal.amount} ${lockedTotal.currency} the quote’s items and shipping, which the order is charged`,
      )
      assert.equal(
        await comparison.locator('[data-routing-total]').innerText(),
        `${routedTotal.amount} ${routedTotal.currency} as the order was allocated`,
      )
      const deltaAmount = `${delta / 100n}.${String(delta % 100n).padStart(2, '0')}`
      assert.equal(
        await comparison.locator('[data-routing-difference]').innerText(),
        `${deltaAmount} GBP more than the locked total`,
      )
      assert.equal(
        await comparison.locator('.routing-note').innerText(),
        'The order’s labs are not the quote’s: the quote was priced on uk6, the order went to nl1 and uk6.',
      )
      // The quote's routing, labelled as such, before the order's own allocation.
      const headings = await section.locator('h3').allInnerTexts()
      const quoteHeading = headings.findIndex((text) =>
        text.startsWith(`Quote ${quote.id}: the routing the quote was priced on, `),
      )
      const allocationHeading = headings.findIndex((text) => text.startsWith('Allocation, '))
      assert.ok(quoteHeading > 0 && allocationHeading > quoteHeading, headings.join(' | '))
      const quoteArticle = section.locator('.routing-quote')
      assert.match(await quoteArticle.innerText(), /Chosen plan\s+uk6 \(/)
      assert.match(await quoteArticle.innerText(), new RegExp(`Chosen plan\\s+uk6 \\(.*\\): ${lockedTotal.amount} GBP`))
      // The labs the scenario kept away read as such, not as refusals.
      const text = await section.innerText()
      assert.match(text, /uk6 excluded \(kept away by the Sandbox scenario, to split the order\)/)
      assert.doesNotMatch(text, /refused a shipment/)
      // uk6 could take both canvases but was kept from one: no lab is left for both.
      assert.match(text, /Best from one lab\s+none: no lab can take every item \(excluded labs do not count\)/)
      await assertAccessible(page, 'order from a quote')
      await screenshotForDocs(section, 'order-routing-quote')

      // On a phone the comparison and both routings fit: their tables scroll inside their frames.
      const small = await h.sandboxPage('phone', `/dashboard/orders/${orderId}`)
      const overflow = (await small.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
      assert.ok(overflow <= 0, `the order page is ${overflow}px wider than the phone`)

      // The same labs as quoted: both sections, the totals equal, no note.
      const phoneQuote = await quoteOf([{ sku: 'GLOBAL-TECH-IP11P-FC-CP', copies: 1, assets: [{}] }])
      const sameLabs = await h.placeOrder({ quoteId: phoneQuote.id })
      await allocatedRouting(sameLabs)
      await page.goto(`${h.urls.sandbox}/dashboard/orders/${sameLabs}`)
      assert.equal(await section.locator('.routing-quote').count(), 1)
      assert.equal(await section.locator('[data-routing-difference]').innerText(), 'the same as the locked total')
      assert.equal(await section.locator('.routing-note').count(), 0)
    })

    test('an order no lab has in stock: its routing says each lab was out of stock and no plan was chosen', async () => {
      const orderId = await h.placeOrder({ metadata: { sandboxScenario: 'outOfStock' } })
      await waitFor(
        `${orderId} unavailable`,
        async () => {
          const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return order.status.details.allocateProductionLocation === 'Error' ? order : undefined
        },
        COMPLETE_WITHIN_MS,
      )
      const [allocation] = JSON.parse(
        (await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })).body,
      ).routing.allocations
      assert.equal(allocation.basis, 'Allocation')
      const itemId = allocation.items[0].itemId
      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}`)
      const section = page.locator('section[aria-labelledby="routing-heading"]')
      // The phone case is made by prodigi_gb2 only.
      assert.equal(
        (await section.locator('.routing-exclusions li').innerText()).trim(),
        `${itemId}: no lab can take it. prodigi_gb2 excluded (out of stock); ${allocation.items[0].labsExcluded.length - 1} other labs do not make it.`,
      )
      assert.match(await section.innerText(), new RegExp(`Chosen plan\\s+none: ${itemId} could not be allocated`))
      // No lab was left for the item: no table of labs considered, only the list of exclusions.
      assert.equal(await section.locator('table').count(), 0)
      await assertAccessible(page, 'order out of stock')
    })

    test('at phone width the lists keep what a person needs: orders their stage and total, quotes their prices, shipments everything', async () => {
      const orderId = await h.placeOrder({ merchantReference: 'phone-columns' })
      await waitFor(
        `${orderId} charged and complete`,
        async () => {
          const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return order.status.stage === 'Complete' && order.charges.length > 0 ? true : undefined
        },
        COMPLETE_WITHIN_MS,
      )
      const page = await h.sandboxPage('phone', `/dashboard/orders?q=${orderId}`)
      const noSideScroll = async (what: string) => {
        const overflow = (await page.evaluate(
          'Math.max(document.documentElement.scrollWidth - window.innerWidth, ...[...document.querySelectorAll("main .table-wrap")].map((frame) => frame.scrollWidth - frame.clientWidth))',
        )) as number
        assert.ok(overflow <= 0, `${what} scrolls ${overflow} px sideways on a phone`)
      }

      // The orders list: the order, its stage and its total charge; the rest is on the order's page.
      const row = page.locator('table.orders tbody tr', { hasText: orderId })
      await assertWithinViewport(row.locator('th'), 'the order')
      const [stage, total] = [row.locator('td').nth(2), row.locator('td').nth(6)]
      assert.equal(await stage.innerText(), 'Complete')
      assert.match(await total.innerText(), /^\d+\.\d{2} GBP$/)
      await assertWithinViewport(stage, 'the stage')
      await assertWithinViewport(total, 'the total charge')
      assert.equal(await row.locator('td').nth(1).isHidden(), true, 'the created time is left out')
      await noSideScroll('the orders list')
      await assertAccessible(page, 'orders at phone width')

      // Quote results: a card per shipping method, every price named and on screen.
      await page.goto(
        `${h.urls.sandbox}/dashboard/catalogue/quote?rows=1&sku1=GLOBAL-CAN-10x10&copies1=1&attr1.wrap=Black&destination=GB&shippingMethod=Standard`,
      )
      const quote = page.locator('table.quotes tbody tr').first()
      for (const price of ['Items', 'Shipping', 'Tax', 'Total']) {
        const cell = quote.locator(`td[data-label="${price}"]`)
        assert.match(await cell.innerText(), /\d+\.\d{2} GBP/, `${price} is a price`)
        await assertWithinViewport(cell, `the quote's ${price}`)
      }
      await noSideScroll('the quote results')
      await assertAccessible(page, 'quote results at phone width')
      await screenshotForDocs(page, 'quote-phone')

      // An order's shipments: a card each, its status and dates on screen.
      await page.goto(`${h.urls.sandbox}/dashboard/orders/${orderId}`)
      const shipment = page.locator('table.shipments tbody tr').first()
      await assertWithinViewport(
        shipment.locator('td[data-label="Status"], td[data-label="Dates"], td[data-label="Tracking"]'),
        'the shipment',
      )
      await noSideScroll('the order page')
    })

    test('the orders table lists, filters by status, searches by id and reference, and is accessible', async () => {
      const first = await h.placeOrder({ merchantReference: 'table-alpha' })
      const second = await h.placeOrder({ merchantReference: 'table-beta' })
      const page = await h.sandboxPage()
      const table = page.getByRole('table', { name: 'Orders, newest first' })
      await table.waitFor()
      const link = table.getByRole('link', { name: second, exact: true })
      await link.waitFor()
      const rows = await table.locator('tbody tr').count()
      assert.ok(rows >= 2)
      await assertAccessible(page, 'orders')

      await page.getByLabel('Search').fill('table-alpha')
      await page.getByRole('button', { name: 'Filter' }).click()
      await page.waitForURL(/q=table-alpha/)
      assert.deepEqual(await table.locator('tbody th a').allInnerTexts(), [first])

      await page.getByLabel('Search').fill(second)
      await page.getByRole('button', { name: 'Filter' }).click()
      await page.waitForURL(new RegExp(`q=${second}`))
      assert.deepEqual(await table.locator('tbody th a').allInnerTexts(), [second])

      // Filter by status: wait until both are complete, then "Cancelled" shows neither.
      await waitFor(
        'both orders complete',
        async () => {
          const answer = await h.t.sandbox({
            method: 'GET',
            url: `/v4.0/orders?orderIds=${first},${second}&status=complete`,
          })
          return JSON.parse(answer.body).orders.length === 2 ? true : undefined
        },
        COMPLETE_WITHIN_MS,
      )
      await page.goto(`${h.urls.sandbox}/dashboard/orders`)
      await page.getByLabel('Status').selectOption('cancelled')
      await page.getByRole('button', { name: 'Filter' }).click()
      await page.waitForURL(/status=cancelled/)
      await page.getByText('No orders match these filters.').waitFor()
      await page.getByLabel('Status').selectOption('complete')
      await page.getByRole('button', { name: 'Filter' }).click()
      await page.waitForURL(/status=complete/)
      const complete = await page
        .getByRole('table', { name: 'Orders, newest first' })
        .locator('tbody th a')
        .allInnerTexts()
      assert.ok(complete.includes(first) && complete.includes(second))
      await page.goto(`${h.urls.sandbox}/dashboard/orders`)
      await screenshotForDocs(page, 'orders')

      // On a phone the page still works: the table scrolls inside its frame, the page does not.
      const small = await h.sandboxPage('phone')
      await screenshotForDocs(small, 'orders-phone')
      const overflow = (await small.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`)
    })
  })
}
