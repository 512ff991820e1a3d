// A late delivery's credit on the merchant's order page (docs/billing.md#late-delivery-credits): a Sandbox Express
// order with the scenario lateDelivery is delivered late by the simulated lab, and its page lists the credit beside
// the charges, with its SBX credit note linked to the PDF; the billing page lists the credit note; the quote
// calculator marks the guaranteed methods. Desktop and phone width, checked with axe-core.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { assertAccessible, screenshotForDocs } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('browser')

/** A Sandbox order with the fast simulated labs is delivered within seconds; this is the most a test waits. */
const DELIVERED_WITHIN_MS = 60_000

for (const kind of databaseKinds) {
  describe(`dashboard late-delivery credit (${kind})`, () => {
    let h: DashboardHarness
    before(async () => {
      h = await startDashboardHarness(kind)
    })
    after(async () => {
      await h.close()
    })

    test('the order page lists the credit with its credit note, at desktop and phone width', async () => {
      const orderId = await h.placeOrder({ shippingMethod: 'Express', metadata: { sandboxScenario: 'lateDelivery' } })
      const order = await waitFor(
        `${orderId} credited`,
        async () => {
          const current = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return current.credits?.length > 0 ? current : undefined
        },
        DELIVERED_WITHIN_MS,
      )
      const [credit] = order.credits
      assert.match(credit.creditNote, /^SBX-CN-\d{6}$/)
      for (const viewport of ['desktop', 'phone'] as const) {
        const page = await h.sandboxPage(viewport, `/dashboard/orders/${orderId}`)
        const row = page.locator(`tr[data-credit="${credit.id}"]`)
        assert.equal(await row.count(), 1)
        const text = await row.innerText()
        assert.match(text, /Late delivery \(guaranteed method\)/)
        assert.ok(text.includes(order.shipments[0].id), text)
        assert.ok(text.includes(credit.amount.amount), text)
        const link = row.locator(`a[data-invoice="${credit.creditNote}"]`)
        assert.equal(await link.count(), 1, 'the credit note links to its PDF')
        await assertAccessible(page, `order with a late-delivery credit (${viewport})`)
        await screenshotForDocs(page.locator('section[aria-labelledby="charges-heading"]'), `late-credit-${viewport}`)
      }
      const invoices = await h.sandboxPage('desktop', '/dashboard/billing')
      assert.ok((await invoices.locator('main').innerText()).includes(credit.creditNote), 'the billing page lists it')
    })

    test('the quote calculator says which methods are guaranteed', async () => {
      const basket = 'rows=1&sku1=GLOBAL-CAN-10x10&copies1=1&attr1.wrap=Black&destination=GB'
      const page = await h.sandboxPage('phone', `/dashboard/catalogue/quote?${basket}`)
      const rows = page.locator('table.quotes tbody tr')
      const guaranteed: string[] = []
      for (let index = 0; index < (await rows.count()); index++) {
        const method = rows.nth(index).locator('th')
        const note = method.locator('[data-guarantee]')
        if ((await note.count()) === 0) continue
        assert.equal(await note.innerText(), 'guaranteed: 50% of shipping back if late')
        guaranteed.push((await method.innerText()).split('\n')[0] ?? '')
      }
      assert.deepEqual(guaranteed, ['Express', 'Overnight'])
      await assertAccessible(page, 'quotes with guaranteed methods')
    })
  })
}
