// Drafts on the merchant's dashboard (docs/api.md#drafts-and-holds): the orders list filters to drafts and marks
// them, and a draft's page says "Draft: confirm or cancel" with a Confirm button that starts it. Desktop width,
// checked with axe-core.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { assertAccessible } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

for (const kind of databaseKinds) {
  describe(`dashboard drafts (${kind})`, () => {
    let h: DashboardHarness
    before(async () => {
      h = await startDashboardHarness(kind)
    })
    after(async () => {
      await h.close()
    })

    test('the Drafts filter lists the draft, and its page confirms it', async () => {
      const draftId = await h.placeOrder({ draft: true, merchantReference: 'DRAFT-PAGE' })
      const plainId = await h.placeOrder({ merchantReference: 'NOT-A-DRAFT' })
      const list = await h.sandboxPage('desktop', '/dashboard/orders?status=draft')
      const text = await list.locator('main').innerText()
      assert.ok(text.includes(draftId), text)
      assert.ok(!text.includes(plainId), 'only drafts are listed')
      assert.equal(await list.locator('[data-draft]').count(), 1)
      assert.equal(await list.locator('#filter-status option[value="draft"]').innerText(), 'Drafts')

      const page = await h.sandboxPage('desktop', `/dashboard/orders/${draftId}`)
      const section = page.locator('[data-draft-section]')
      assert.match(await section.innerText(), /Draft: confirm or cancel/)
      await assertAccessible(page, 'a draft order')
      await section.locator('[data-confirm-order]').click()
      await page.waitForURL(`**/dashboard/orders/${draftId}`)
      assert.match(await page.locator('main').innerText(), /Confirmed: the order starts now/)
      assert.equal(await page.locator('[data-draft-section]').count(), 0)
      const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${draftId}` })).order
      assert.equal(order.draft, undefined)
    })
  })
}
