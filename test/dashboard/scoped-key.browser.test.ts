// The dashboard signed in with a read-only key (orders:read, products:read, account:read) in a real browser, at
// desktop width: the order's page and the Developers page show what the key may read, offer nothing it may not
// do, say why in a line, and stay accessible; at phone width both pages stay accessible and within the screen.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import type { KeyScope } from '../../src/domain/key-scopes.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { assertAccessible, newContext, screenshotForDocs, signIn } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { HANG_BOUND_MS, waitFor } from '../support/wait.ts'

const databaseKinds = tier('browser')

const READ_ONLY: KeyScope[] = ['orders:read', 'products:read', 'account:read']

async function noHorizontalScroll(page: Page): Promise<void> {
  const widths = (await page.evaluate(
    '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
  )) as { page: number; viewport: number }
  assert.ok(widths.page <= widths.viewport, `the page is ${widths.page} px wide in a ${widths.viewport} px viewport`)
}

for (const kind of databaseKinds) {
  describe(`dashboard with a read-only key (${kind})`, () => {
    let h: DashboardHarness
    let orderId: string
    let key: string

    before(async () => {
      h = await startDashboardHarness(kind)
      orderId = await h.placeOrder({ merchantReference: 'read-only-1' })
      await waitFor(
        'the order to complete',
        async () => {
          const answer = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` }))
          return answer.order.status.stage === 'Complete' ? true : undefined
        },
        HANG_BOUND_MS,
        250,
      )
      key = (await h.t.app.services.accounts.createApiKey(h.t.account.id, 'sandbox', TEST_ACTOR, { scopes: READ_ONLY }))
        .key
    })
    after(() => h.close())

    test('at desktop width the order and Developers pages offer only what the key may do', async () => {
      const context = await newContext(h.browser, 'desktop')
      try {
        const page = await context.newPage()
        await signIn(page, h.urls.sandbox, key)
        const main = page.getByRole('navigation', { name: 'Main' })
        assert.equal(await main.getByRole('link', { name: 'New order' }).count(), 0, 'no New order link')
        assert.equal(await page.getByRole('link', { name: 'New test order' }).count(), 0)

        await page.getByRole('link', { name: orderId }).click()
        await page.waitForURL(new RegExp(`/dashboard/orders/${orderId}$`))
        await page.getByRole('heading', { name: `Order ${orderId}` }).waitFor()
        for (const action of ['Cancel order', 'Change shipping method', 'Change recipient', 'Edit metadata']) {
          assert.equal(await page.getByRole('link', { name: action }).count(), 0, `no ${action} link`)
          assert.equal(await page.getByRole('button', { name: action }).count(), 0, `no ${action} button`)
        }
        assert.equal(await page.getByRole('button', { name: 'Advance' }).count(), 0, 'no Sandbox advance')
        assert.equal(await page.getByRole('button', { name: /^Redeliver/ }).count(), 0, 'no redeliver')
        await page.getByText('This key cannot create or change orders (it lacks the orders:write scope).').waitFor()
        await page.getByText('This key cannot see or send callbacks (it lacks the webhooks:manage scope).').waitFor()
        await assertAccessible(page, 'order page, read-only key, desktop')
        await noHorizontalScroll(page)
        await screenshotForDocs(page, 'scoped-order')

        await main.getByRole('link', { name: 'Developers' }).click()
        // Developers opens on the first view the key may use: the key cannot see callbacks.
        await page.waitForURL(/\/dashboard\/developers\/events$/)
        const views = page.getByRole('navigation', { name: 'Developers' })
        assert.equal(await views.getByRole('link', { name: 'Callbacks' }).count(), 0)
        assert.equal(await views.getByRole('link', { name: 'API keys' }).count(), 0)
        await views.getByRole('link', { name: 'Settings' }).click()
        await page.waitForURL(/\/dashboard\/developers\/settings$/)
        await page.getByRole('heading', { name: 'Current settings' }).waitFor()
        await page
          .getByText("This key cannot change the account's settings (it lacks the account:manage scope).")
          .waitFor()
        for (const button of ['Save settings', 'Save address checks', 'Send test callback', 'Rotate signing secret']) {
          assert.equal(await page.getByRole('button', { name: button }).count(), 0, `no ${button}`)
        }
        await assertAccessible(page, 'Developers settings, read-only key, desktop')
        await noHorizontalScroll(page)
        await screenshotForDocs(page, 'scoped-developers-settings')
      } finally {
        await context.close()
      }
    })

    // At 390 px the same two pages, each checked to fit the screen and by axe; what they offer is proved at
    // desktop width above. The phone pictures for the docs are taken here.
    test('at phone width the order and Developers settings pages fit the screen', async () => {
      const context = await newContext(h.browser, 'phone')
      try {
        const page = await context.newPage()
        await signIn(page, h.urls.sandbox, key)
        await page.goto(`${h.urls.sandbox}/dashboard/orders/${orderId}`)
        await page.getByText('This key cannot see or send callbacks (it lacks the webhooks:manage scope).').waitFor()
        await assertAccessible(page, 'order page, read-only key, phone')
        await noHorizontalScroll(page)
        await screenshotForDocs(page, 'scoped-order-phone')

        await page.goto(`${h.urls.sandbox}/dashboard/developers/settings`)
        await page.getByRole('heading', { name: 'Current settings' }).waitFor()
        await assertAccessible(page, 'Developers settings, read-only key, phone')
        await noHorizontalScroll(page)
        await screenshotForDocs(page, 'scoped-developers-settings-phone')
      } finally {
        await context.close()
      }
    })
  })
}
