// Developers -> Webhooks in a real browser: an endpoint created through the form with an event-type and a
// metadata filter, its signing secret shown once, a test sent to a real receiver on 127.0.0.1 (signed with that
// secret), disabled and enabled again, and deleted after its confirmation. axe-core finds no serious violation
// on any of its pages. The scenario runs at desktop width; at 390 px its pages are checked to fit, and by axe.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { assertAccessible, screenshotForDocs } from '../support/browser.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

async function noHorizontalScroll(page: Page): Promise<void> {
  const widths = (await page.evaluate(
    '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
  )) as { page: number; viewport: number }
  assert.ok(widths.page <= widths.viewport, `the page is ${widths.page} px wide in a ${widths.viewport} px viewport`)
}

for (const kind of databaseKinds) {
  describe(`dashboard Developers -> Webhooks (${kind})`, () => {
    let h: DashboardHarness
    let receiver: CallbackReceiver

    before(async () => {
      receiver = await startCallbackReceiver()
      h = await startDashboardHarness(kind)
    })
    after(async () => {
      await h.close()
      await receiver.close()
    })

    test('create with a filter, secret once, test send, disable, enable, delete (desktop)', async () => {
      const page = await h.sandboxPage('desktop', '/dashboard/developers/webhooks')
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
      await assertAccessible(page, 'developers-webhooks (desktop)')

      const url = receiver.url('/shop')
      await page.getByLabel('URL', { exact: true }).fill(url)
      await page.getByLabel('Description').fill('The shop: shipments of EU orders')
      await page.getByLabel('A shipment was shipped').check()
      await page.getByLabel('Other types and prefixes').fill('com.printroute.order.status.delivery*')
      await page.getByLabel('Metadata filter').fill('channel=shop-eu')
      await page.getByRole('button', { name: 'Add endpoint' }).click()
      const secretBox = page.locator('#new-signing-secret')
      await secretBox.waitFor()
      const secret = (await secretBox.textContent()) ?? ''
      assert.match(secret, /^whsec_/)
      const row = page.locator('tr[data-webhook]').last()
      const id = (await row.getAttribute('data-webhook')) ?? ''
      const { webhook } = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/webhooks/${id}` }))
      assert.equal(webhook.url, url)
      assert.deepEqual(webhook.eventTypes, [
        'com.printroute.order.shipments.shipment#Shipped',
        'com.printroute.order.status.delivery*',
      ])
      assert.deepEqual(webhook.metadataFilter, { channel: 'shop-eu' })
      await assertAccessible(page, 'developers-webhooks with the new secret (desktop)')
      await screenshotForDocs(page, 'developers-webhooks')

      // Shown once: the list again has only the secret's first characters.
      await page.goto(`${h.urls.sandbox}/dashboard/developers/webhooks`)
      assert.equal(await page.locator('#new-signing-secret').count(), 0)
      assert.equal(await page.getByText(secret).count(), 0)

      await page.getByRole('link', { name: id, exact: true }).click()
      await page.getByRole('heading', { name: `Webhook endpoint ${id}` }).waitFor()
      const received = receiver.received.length
      await page.getByRole('button', { name: 'Send test' }).click()
      await page
        .getByRole('status')
        .getByText(/delivered: HTTP 200/)
        .waitFor()
      const test = receiver.received[received]
      assert.ok(test, 'the receiver got the test')
      assert.equal(test.url, '/shop')
      assert.equal(test.event.type, 'com.printroute.test')
      // Signed with the endpoint's own secret, the one the page showed.
      new Webhook(secret).verify(test.body, {
        'webhook-id': String(test.headers['webhook-id']),
        'webhook-timestamp': String(test.headers['webhook-timestamp']),
        'webhook-signature': String(test.headers['webhook-signature']),
      })
      await page.locator('table.callbacks').getByText('Test callback').first().waitFor()

      await page.getByRole('button', { name: 'Disable' }).click()
      await page.getByRole('status').getByText('is disabled').waitFor()
      assert.equal(json(await h.t.sandbox({ method: 'GET', url: `/v4.0/webhooks/${id}` })).webhook.enabled, false)
      await page.getByRole('button', { name: 'Enable' }).click()
      await page.getByRole('status').getByText('is enabled').waitFor()
      assert.equal(json(await h.t.sandbox({ method: 'GET', url: `/v4.0/webhooks/${id}` })).webhook.enabled, true)
      await assertAccessible(page, 'developers-webhook (desktop)')
      await screenshotForDocs(page, 'developers-webhook')

      await page.getByRole('link', { name: 'Delete' }).click()
      await page.getByRole('heading', { name: `Delete webhook endpoint ${id}?` }).waitFor()
      await assertAccessible(page, 'developers-webhook delete confirmation (desktop)')
      await page.getByRole('button', { name: 'Delete endpoint' }).click()
      await page.getByRole('status').getByText(`Endpoint ${id}`).waitFor()
      assert.match(page.url(), /\/dashboard\/developers\/webhooks$/)
      assert.equal((await h.t.sandbox({ method: 'GET', url: `/v4.0/webhooks/${id}` })).statusCode, 404)
      assert.equal(await page.locator(`tr[data-webhook="${id}"]`).count(), 0)
    })

    // At 390 px the same pages, reached the same way, each checked to fit the screen and by axe; what they do is
    // proved at desktop width above. The phone pictures for the docs are taken here.
    test('the list, the new secret, an endpoint and its delete confirmation fit at 390 px (phone)', async () => {
      const page = await h.sandboxPage('phone', '/dashboard/developers/webhooks')
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
      await assertAccessible(page, 'developers-webhooks (phone)')

      await page.getByLabel('URL', { exact: true }).fill(receiver.url('/shop-phone'))
      await page.getByLabel('Description').fill('The shop: shipments of EU orders')
      await page.getByLabel('A shipment was shipped').check()
      await page.getByLabel('Other types and prefixes').fill('com.printroute.order.status.delivery*')
      await page.getByLabel('Metadata filter').fill('channel=shop-eu')
      await page.getByRole('button', { name: 'Add endpoint' }).click()
      await page.locator('#new-signing-secret').waitFor()
      const id = (await page.locator('tr[data-webhook]').last().getAttribute('data-webhook')) ?? ''
      await assertAccessible(page, 'developers-webhooks with the new secret (phone)')
      await noHorizontalScroll(page)
      await screenshotForDocs(page, 'developers-webhooks-phone')

      await page.goto(`${h.urls.sandbox}/dashboard/developers/webhooks`)
      await page.getByRole('link', { name: id, exact: true }).click()
      await page.getByRole('heading', { name: `Webhook endpoint ${id}` }).waitFor()
      // The endpoint's page as the scenario leaves it: its test callback listed, enabled again.
      await page.getByRole('button', { name: 'Send test' }).click()
      await page
        .getByRole('status')
        .getByText(/delivered: HTTP 200/)
        .waitFor()
      await page.locator('table.callbacks').getByText('Test callback').first().waitFor()
      await page.getByRole('button', { name: 'Disable' }).click()
      await page.getByRole('status').getByText('is disabled').waitFor()
      await page.getByRole('button', { name: 'Enable' }).click()
      await page.getByRole('status').getByText('is enabled').waitFor()
      await assertAccessible(page, 'developers-webhook (phone)')
      await noHorizontalScroll(page)
      await screenshotForDocs(page, 'developers-webhook-phone')

      await page.getByRole('link', { name: 'Delete' }).click()
      await page.getByRole('heading', { name: `Delete webhook endpoint ${id}?` }).waitFor()
      await assertAccessible(page, 'developers-webhook delete confirmation (phone)')
      await page.getByRole('button', { name: 'Delete endpoint' }).click()
      await page.getByRole('status').getByText(`Endpoint ${id}`).waitFor()
    })
  })
}
