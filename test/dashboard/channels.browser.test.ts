// The Channels page in a real browser: a Shopify channel connected through the form (a refused shop domain shown
// beside its field first) with its approval and shipping method, its webhooks subscribed by printroute (the store's
// first answer a 500, shown failed with the reason, then Subscribe again), a link added, a
// link of two print areas (a print area the product lacks shown beside its own row first), a store order with an
// item no link maps waiting as not connected, the item ignored through the form, and the order released into a
// printroute order; the channel's settings changed and its secrets rotated from its page; a shipment the store
// refused shown failing and tried again now.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { assertAccessible, assertWithinViewport, screenshotForDocs } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { type ShopifyStandIn, shopifyWebhookHeaders, startShopifyStandIn } from '../support/shopify-stand-in.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const SHOP = 'dashboard-test.myshopify.com'
const SECRET = 'shpss_dashboard_secret'
const fixture = readFileSync(new URL('../fixtures/shopify/orders-create.json', import.meta.url), 'utf8')

const databases = tier('browser')

for (const kind of databases) {
  describe(`dashboard channels (${kind})`, () => {
    let h: DashboardHarness
    let shopify: ShopifyStandIn
    let channelId: string
    before(async () => {
      shopify = await startShopifyStandIn()
      // The store order the first test releases ships by itself (the Sandbox's simulated labs): the store knows its
      // canvas line, and refuses the first call about it, so its fulfilment fails (a refusal is not retried).
      const order = JSON.parse(fixture.replace(/"id":\s*(\d{12,})/g, '"id": "$1"'))
      shopify.addOrder(String(order.id), [{ id: String(order.line_items[0].id), quantity: 1 }])
      shopify.failNext(422)
      h = await startDashboardHarness(kind, { shopifyApiUrl: shopify.origin })
    })
    after(async () => {
      await h.close()
      await shopify.close()
    })

    /** The Shopify stand-in, for the test whose Shopify form is named `shopify`. */
    const standIn = () => shopify

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
      await again.getByLabel('Shipping method of its orders').selectOption('Express')
      standIn().failNextSubscriptions(500)
      await again.getByRole('button', { name: 'Connect the store' }).click()
      await page.waitForURL(/\/dashboard\/channels\/chn_\d+$/)
      channelId = page.url().split('/').at(-1) as string
      await page.getByText(`/channels/v1/${channelId}/shopify`).first().waitFor()
      const facts = await page.locator('dl.facts').innerText()
      assert.match(facts, /Approval\s+Automatic/)
      assert.match(facts, /Shipping method\s+Express/)

      // The subscription job met the store's 500: the page says so and when it tries again, and Subscribe again
      // makes the three now.
      const webhooks = page.locator('.channel-webhooks')
      await waitFor('the webhooks to fail', async () => {
        await page.reload()
        return /Failed/.test(await webhooks.innerText()) ? true : undefined
      })
      assert.match(await webhooks.innerText(), /HTTP 500/)
      // A passing failure: the job queued its own retry a minute on, which Subscribe again supersedes.
      assert.match(await webhooks.innerText(), /printroute tries again at \d{4}-\d\d-\d\d \d\d:\d\d UTC/)
      await screenshotForDocs(webhooks, 'channel-webhooks-failed')
      await assertAccessible(page, 'channel page with failed webhooks')
      await webhooks.getByRole('button', { name: 'Subscribe again' }).click()
      await page.getByText("Subscribing the store's webhooks again.").waitFor()
      await waitFor('the webhooks to be subscribed', async () => {
        await page.reload()
        return /Subscribed/.test(await webhooks.innerText()) ? true : undefined
      })
      assert.equal(standIn().subscriptionCreates.length, 3)
      assert.match(await webhooks.innerText(), /ORDERS_CREATE, ORDERS_CANCELLED, APP_UNINSTALLED, checked \d{4}-/)

      // A link of two print areas: a second row asked for, a print area the product lacks refused beside its row.
      await page.getByLabel('Store variant id or SKU').fill('JIGSAW-500')
      await page.getByLabel('Product SKU').fill('GLOBAL-JIG-500')
      await page.getByLabel('File URL', { exact: true }).fill(`${h.urls.sandbox}/samples/landscape.jpg`)
      await page.getByRole('button', { name: 'Another print area' }).click()
      await page.getByLabel('Print area 2').fill('box')
      await page.getByLabel('File URL 2').fill(`${h.urls.sandbox}/samples/square.jpg`)
      await page.getByRole('button', { name: 'Add the link' }).click()
      await page.locator('#link-print-area-1-error').waitFor()
      await page.getByLabel('Print area 2').fill('lid')
      await page.getByRole('button', { name: 'Add the link' }).click()
      await page.getByText('Link added.').waitFor()
      assert.match(
        await page.getByRole('row', { name: /JIGSAW-500/ }).innerText(),
        /default: .*landscape\.jpg[\s\S]*lid: .*square\.jpg/,
      )
      assert.equal(await page.getByText('Links', { exact: true }).count(), 1, 'one Links heading')

      // The canvas variant linked; the store's mug (MUG-OWN) not yet.
      await page.getByLabel('Store variant id or SKU').fill('808950810')
      await page.getByLabel('Product SKU').fill('GLOBAL-FAP-8x8')
      await page.getByLabel('File URL', { exact: true }).fill(`${h.urls.sandbox}/samples/portrait.jpg`)
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
      assert.match(await row.innerText(), /Shopify[\s\S]*dashboard-test\.myshopify\.com[\s\S]*Active/)
      await screenshotForDocs(page, 'channels')
    })

    test("a channel's settings are changed and its secrets rotated from its page", async () => {
      const page = await h.sandboxPage('desktop', `/dashboard/channels/${channelId}`)
      const edit = page.getByRole('form', { name: 'Settings and secrets' })
      await edit.getByLabel('Approval of its orders').selectOption('delayed')
      await edit.getByLabel('Delay in hours').fill('500')
      await edit.getByRole('button', { name: 'Save the channel' }).click()
      await page.locator('#edit-delayHours-error').waitFor()
      assert.match(await page.locator('#edit-delayHours-error').innerText(), /336/)
      await page.getByLabel('Delay in hours').fill('24')
      await page.getByLabel('Shipping method of its orders').selectOption('Overnight')
      await page.getByLabel('New API secret key').fill('shpss_rotated_secret')
      await page.getByRole('button', { name: 'Save the channel' }).click()
      await page.getByText('Channel saved.').waitFor()
      const facts = await page.locator('dl.facts').innerText()
      assert.match(facts, /Approval\s+Delayed 24 h/)
      assert.match(facts, /Shipping method\s+Overnight/)
      assert.equal(await page.getByLabel('New API secret key').inputValue(), '', 'a secret is never shown back')
      // The rotated secret is the one webhooks are checked with now.
      const body = fixture.replace(/"id":\s*\d+/, '"id": 5999')
      const old = await h.t.app.sandbox.inject({
        method: 'POST',
        url: `/channels/v1/${channelId}/shopify`,
        headers: shopifyWebhookHeaders(body, SECRET, 'orders/create', 'dashboard-old', SHOP),
        payload: body,
      })
      assert.equal(old.statusCode, 401, old.body)
    })

    test('a shipment the store refused shows failing and is tried again now', async () => {
      await waitFor('the released order to ship and its fulfilment to be refused', async () => {
        const rows = await h.t.database.db.query<{ status: string }>('SELECT status FROM channel_fulfilments')
        return rows[0]?.status === 'failed' ? true : undefined
      })
      const page = await h.sandboxPage('desktop', `/dashboard/channels/${channelId}`)
      const failing = page.locator('tr.fulfilment-failing')
      await failing.waitFor()
      assert.match(await failing.innerText(), /Failing[\s\S]*422/)
      await screenshotForDocs(page, 'channel-fulfilments')
      await assertAccessible(page, 'channel page with a failing shipment')
      await failing.getByRole('button', { name: /^Try again now/ }).click()
      await page.getByText(/trying the store again now/).waitFor()
      await waitFor('the store to take it', async () => {
        await page.reload()
        return (await page.locator('tr.fulfilment-failing').count()) === 0 ? true : undefined
      })
      assert.match(await page.getByRole('table', { name: 'Shipments told to the store' }).innerText(), /Told/)
      assert.equal(shopify.fulfilments.length, 1)
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
