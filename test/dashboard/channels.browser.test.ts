// The Channels page in a real browser: a Shopify channel connected through the form (a refused shop domain shown
// beside its field first; making a channel calls no store), a link added, a store order with an item no link maps
// waiting as not connected, the item ignored through the form, and the order released into a printroute order.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { assertAccessible, assertWithinViewport, screenshotForDocs } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { shopifyWebhookHeaders } from '../support/shopify-stand-in.ts'
import { tier } from '../support/tiers.ts'

const SHOP = 'dashboard-test.myshopify.com'
const SECRET = 'shpss_dashboard_secret'
const fixture = readFileSync(new URL('../fixtures/shopify/orders-create.json', import.meta.url), 'utf8')

const databases = tier('browser')

for (const kind of databases) {
  describe(`dashboard channels (${kind})`, () => {
    let h: DashboardHarness
    before(async () => {
      h = await startDashboardHarness(kind)
    })
    after(async () => {
      await h.close()
    })

    /** Waits until the store order's webhook has been mapped by the job worker. */
    async function storeOrderState(externalOrderId: string, state: string): Promise<void> {
      for (;;) {
        const rows = await h.t.database.db.query<{ state: string }>(
          'SELECT state FROM channel_orders WHERE external_order_id = $1',
          [externalOrderId],
        )
        if (rows[0]?.state === state) return
        await new Promise((resolve) => setImmediate(resolve))
      }
    }

    test('a Shopify channel is connected, linked, and its not connected order released', async () => {
      const page = await h.sandboxPage('desktop', '/dashboard/channels')
      await page.getByRole('heading', { name: 'Connect a Shopify store' }).waitFor()
      assert.ok(await page.getByText('write_merchant_managed_fulfillment_orders').isVisible())
      const shopify = page.getByRole('form', { name: 'Connect a Shopify store' })
      await shopify.getByLabel(/^Shop domain/).fill('shop.example.com')
      await shopify.getByLabel(/^Admin API access token/).fill('shpat_dashboard_token')
      await shopify.getByLabel(/^API secret key/).fill(SECRET)
      await shopify.getByRole('button', { name: 'Connect the store' }).click()
      await page.locator('#shopify-shopDomain-error').waitFor()
      assert.match(await page.locator('#shopify-shopDomain-error').innerText(), /myshopify\.com/)

      const again = page.getByRole('form', { name: 'Connect a Shopify store' })
      await again.getByLabel(/^Shop domain/).fill(SHOP)
      await again.getByLabel(/^Admin API access token/).fill('shpat_dashboard_token')
      await again.getByLabel(/^API secret key/).fill(SECRET)
      await again.getByRole('button', { name: 'Connect the store' }).click()
      await page.waitForURL(/\/dashboard\/channels\/chn_\d+$/)
      const channelId = page.url().split('/').at(-1) as string
      await page.getByText(`/channels/v1/${channelId}/shopify`).first().waitFor()

      // The canvas variant linked; the store's mug (MUG-OWN) not yet.
      await page.getByLabel('Store variant id or SKU').fill('808950810')
      await page.getByLabel('Product SKU').fill('GLOBAL-FAP-8x8')
      await page.getByLabel('File URL').fill(`${h.urls.sandbox}/samples/portrait.jpg`)
      await page.getByRole('button', { name: 'Add the link' }).click()
      await page.getByText('Link added.').waitFor()

      const body = fixture
      const received = await h.t.app.sandbox.inject({
        method: 'POST',
        url: `/channels/v1/${channelId}/shopify`,
        headers: shopifyWebhookHeaders(body, SECRET, 'orders/create', 'dashboard-1', SHOP),
        payload: body,
      })
      assert.equal(received.statusCode, 200, received.body)
      // The fixture's order id, read from its text: it is beyond 2^53.
      await storeOrderState(/"id":\s*(\d+)/.exec(fixture)?.[1] ?? '', 'notConnected')
      await page.reload()
      await page.getByRole('heading', { name: /Store order #1001/ }).waitFor()
      assert.match(await page.locator('.pending-order').innerText(), /MUG-OWN/)
      await screenshotForDocs(page, 'channel')
      await assertAccessible(page, 'channel page')

      await page.getByLabel("Match the store's").selectOption('sku')
      await page.getByLabel('Store variant id or SKU').fill('MUG-OWN')
      await page.getByRole('checkbox', { name: /Ignore it/ }).check()
      await page.getByRole('button', { name: 'Add the link' }).click()
      await page.getByText('Link added.').waitFor()
      await page.getByRole('button', { name: /^Release/ }).click()
      await page.getByText(/Store order released: order ord_\d+ created\./).waitFor()
      assert.equal(await page.locator('.pending-order').count(), 0)

      await page.goto(`${h.urls.sandbox}/dashboard/channels`)
      const row = page.getByRole('row', { name: new RegExp(channelId) })
      assert.match(await row.innerText(), /Shopify[\s\S]*dashboard-test\.myshopify\.com[\s\S]*active/)
      await screenshotForDocs(page, 'channels')
    })

    test('at phone width the channels list and a channel page fit the screen', async () => {
      const page = await h.sandboxPage('phone', '/dashboard/channels')
      await assertWithinViewport(page.locator('main table td, main form, main h1'), 'channels page parts')
      await screenshotForDocs(page, 'channels-phone')
      await page.locator('main table a').first().click()
      await page.waitForURL(/\/dashboard\/channels\/chn_\d+$/)
      await assertWithinViewport(page.locator('main dd, main table td:visible, main .card'), 'channel page parts')
      await screenshotForDocs(page, 'channel-phone')
    })
  })
}
