// Order actions from an order's page in a real browser: each button is enabled exactly when the API says the
// action is available, asks for confirmation saying what it will do, and shows the outcome.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { assertAccessible, screenshotForDocs } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

for (const kind of databaseKinds) {
  describe(`dashboard order actions (${kind})`, () => {
    let h: DashboardHarness
    before(async () => {
      // No workers: orders stay before their labs, where every action is available (once a shipment is with
      // its lab, only metadata can change; test/http/order-actions.states.test.ts covers each state).
      h = await startDashboardHarness(kind, { workers: false })
    })
    after(() => h.close())

    test('change the shipping method and the metadata, then cancel, all from the page', async () => {
      const orderId = await h.placeOrder({ merchantReference: 'act-on-me' })
      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}`)

      await page.getByRole('link', { name: 'Change shipping method' }).click()
      await page.getByRole('heading', { name: `Change the shipping method of ${orderId}` }).waitFor()
      await page.getByLabel('Shipping method').selectOption('Express')
      await page.getByRole('button', { name: 'Change shipping method' }).click()
      await page.getByRole('status').getByText('The shipping method is now Express.').waitFor()
      assert.equal(
        json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order.shippingMethod,
        'Express',
      )

      await page.getByRole('link', { name: 'Edit metadata' }).click()
      await page.getByLabel('Metadata (JSON object)').fill('{ not json')
      await page.getByRole('button', { name: 'Save metadata' }).click()
      await page.getByRole('alert').getByText('The metadata is not JSON').waitFor()
      await page.getByLabel('Metadata (JSON object)').fill('{"shopOrder": 77, "note": "gift <b>wrap</b>"}')
      await page.getByRole('button', { name: 'Save metadata' }).click()
      await page.getByRole('status').getByText('The metadata is saved.').waitFor()
      assert.match(
        await page.locator('pre.code').innerText(),
        /"note": "gift <b>wrap<\/b>"/,
        'shown as text, not markup',
      )

      await page.getByRole('link', { name: 'Cancel order' }).click()
      await page.getByRole('heading', { name: `Cancel order ${orderId}?` }).waitFor()
      assert.match(await page.locator('main form p').innerText(), /not yet in production/)
      await assertAccessible(page, 'cancel confirmation')
      await screenshotForDocs(page, 'order-cancel')
      await page.getByRole('button', { name: 'Cancel order' }).click()
      await page.getByRole('status').getByText(`Order ${orderId} is cancelled.`).waitFor()
      assert.equal(await page.locator('.page-head .badge').first().innerText(), 'Cancelled')
      // Nothing is available on a cancelled order except metadata: the buttons say so by being disabled.
      assert.equal(await page.getByRole('button', { name: 'Cancel order' }).isDisabled(), true)
      assert.equal(await page.getByRole('button', { name: 'Change shipping method' }).isDisabled(), true)
      assert.equal(await page.getByRole('link', { name: 'Edit metadata' }).count(), 1)
    })

    test('the recipient can be changed within its country; the country field cannot be edited', async () => {
      const orderId = await h.placeOrder({ merchantReference: 'new-address' })
      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}/recipient`)
      assert.equal(await page.getByLabel('Country').getAttribute('readonly'), '')
      await page.getByLabel('Name', { exact: true }).fill('Grace Hopper')
      await page.getByLabel('Address line 1').fill('1 Navy Way')
      await page.getByRole('button', { name: 'Change recipient' }).click()
      await page.getByRole('status').getByText('The recipient is changed.').waitFor()
      const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(order.recipient.name, 'Grace Hopper')
      assert.equal(order.recipient.address.line1, '1 Navy Way')
      assert.equal(order.recipient.address.countryCode, 'GB')

      // An address with problems is kept (the account warns), and the notice names each problem at once.
      await page.goto(`${h.urls.sandbox}/dashboard/orders/${orderId}/recipient`)
      await page.getByLabel('Postal or ZIP code').fill('NOT-A-POSTCODE')
      await page.getByRole('button', { name: 'Change recipient' }).click()
      const notice = page.getByRole('status').getByText(/The recipient is changed, but its address breaks/)
      await notice.waitFor()
      assert.match(await notice.innerText(), /recipient\.address\.postalOrZipCode \(InvalidPostcode\)/)
      const changed = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.deepEqual(
        changed.status.issues.map((issue: { errorCode: string }) => issue.errorCode),
        ['order.recipient.AddressUnverified'],
      )
    })
  })
}
