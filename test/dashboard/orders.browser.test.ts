// The Orders table and an order's page in a real browser: the table lists, filters and searches; an order's
// page shows it moving to Complete while it is open, its images load, and a callback is redelivered from it.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible, assertImagesLoaded, newContext, screenshotForDocs, signIn } from '../support/browser.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { testDatabaseKinds } from '../support/databases.ts'
import { waitFor } from '../support/wait.ts'

/** How long an order may take to complete with the fast simulated labs (it takes a few seconds). */
const COMPLETE_WITHIN_MS = 45_000

async function stageOf(page: Page): Promise<string> {
  return page.locator('.page-head .badge').first().innerText()
}

for (const kind of testDatabaseKinds()) {
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
      const context = await newContext(h.browser)
      const page = await context.newPage()
      await signIn(page, h.urls.sandbox, h.t.account.sandboxKey)
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
      await assertAccessible(page, 'order')
      await screenshotForDocs(page, 'order')

      // On a phone the order page fits the screen: images shrink, tables scroll inside their frames.
      const phone = await newContext(h.browser, 'phone')
      const small = await phone.newPage()
      await signIn(small, h.urls.sandbox, h.t.account.sandboxKey)
      await small.goto(`${h.urls.sandbox}/dashboard/orders/${orderId}`)
      await assertImagesLoaded(small)
      await screenshotForDocs(small, 'order-phone')
      const overflow = (await small.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
      assert.ok(overflow <= 0, `the order page is ${overflow}px wider than the phone`)
      await phone.close()

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
      await context.close()
    })

    test('the orders table lists, filters by status, searches by id and reference, and is accessible', async () => {
      const first = await h.placeOrder({ merchantReference: 'table-alpha' })
      const second = await h.placeOrder({ merchantReference: 'table-beta' })
      const context = await newContext(h.browser)
      const page = await context.newPage()
      await signIn(page, h.urls.sandbox, h.t.account.sandboxKey)
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
      const phone = await newContext(h.browser, 'phone')
      const small = await phone.newPage()
      await signIn(small, h.urls.sandbox, h.t.account.sandboxKey)
      await screenshotForDocs(small, 'orders-phone')
      const overflow = (await small.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`)
      await phone.close()
      await context.close()
    })
  })
}
