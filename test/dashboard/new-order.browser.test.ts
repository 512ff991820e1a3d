// The New order page in a real browser: a test order placed from the form (product, sample image, recipient)
// that completes while its page is open; one order for a double submit; a refused form shown with its values
// and the API's failures; the two steps without JavaScript; the Live dashboard pointing to Sandbox.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible, assertImagesLoaded, newContext, screenshotForDocs, signIn } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

const T_SHIRT = 'GLOBAL-TEE-BC-3001'

async function fillRecipient(page: Page, name: string): Promise<void> {
  await page.getByLabel('Name', { exact: true }).fill(name)
  await page.getByLabel('Address line 1').fill('14 Test Street')
  await page.getByLabel('Town or city').fill('London')
  await page.getByLabel('Postal or ZIP code').fill('EC1A 1BB')
}

/** The page is no wider than the screen (nothing scrolls sideways but what sits in a scrolling table). */
async function assertFitsWidth(page: Page): Promise<void> {
  const widths = (await page.evaluate(
    '({ page: document.documentElement.scrollWidth, screen: window.innerWidth })',
  )) as { page: number; screen: number }
  assert.ok(widths.page <= widths.screen, `the page is ${widths.page} px wide on a ${widths.screen} px screen`)
}

for (const kind of databaseKinds) {
  describe(`dashboard new order (${kind})`, () => {
    let h: DashboardHarness
    before(async () => {
      h = await startDashboardHarness(kind)
    })
    after(() => h.close())

    test('a test order placed from the form lands on its page and reaches Complete there; a double submit makes one order', async () => {
      const page = await h.sandboxPage()
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New order' }).click()
      await page.getByLabel('Search the catalogue').fill('iphone 11')
      await page.getByRole('button', { name: 'Search' }).click()
      await page.waitForURL(/q=iphone/)
      // htmx swaps in the product's fields when the select changes, and the address says which product.
      await page.getByLabel('Product', { exact: true }).selectOption(PHONE_CASE)
      await page.getByRole('heading', { name: PHONE_CASE }).waitFor()
      assert.match(page.url(), new RegExp(`sku=${PHONE_CASE}`))

      await page.getByRole('radio', { name: /portrait/ }).check()
      await fillRecipient(page, 'Grace Hopper')
      assert.equal(await page.getByLabel('Country').inputValue(), 'GB')
      assert.equal(await page.getByLabel('Shipping method').inputValue(), 'Standard')
      await page.getByLabel('Merchant reference').fill('dashboard-first')
      assert.ok((await assertImagesLoaded(page)) >= 3, 'the sample previews load')
      await assertAccessible(page, 'new-order')
      await screenshotForDocs(page, 'new-order')

      const filled = (await page.evaluate(
        "new URLSearchParams(new FormData(document.querySelector('form.order-form'))).toString()",
      )) as string
      await page.getByRole('button', { name: 'Place test order' }).click()
      await page.waitForURL(/\/dashboard\/orders\/ord_\d+$/)
      const orderId = page.url().split('/').at(-1) as string
      assert.match(
        await page.getByRole('status').first().innerText(),
        /Test order ord_\d+ placed; it will move to Complete/,
      )

      const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(order.items[0].sku, PHONE_CASE)
      assert.equal(order.items[0].assets[0].url, `${h.urls.sandbox}/samples/portrait.jpg`)
      assert.equal(order.recipient.address.countryCode, 'GB')
      assert.equal(order.merchantReference, 'dashboard-first')

      // The page refreshes itself while the order is in progress.
      await page.locator('.page-head').getByText('Complete', { exact: true }).waitFor({ timeout: 30_000 })

      // The same form sent again (a double click, a resent POST) finds the order made the first time.
      const again = await page.request.post(`${h.urls.sandbox}/dashboard/new-order`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        data: filled,
        maxRedirects: 0,
      })
      assert.equal(again.status(), 303)
      assert.equal(again.headers().location, `/dashboard/orders/${orderId}`)
      const listed = json(
        await h.t.sandbox({ method: 'GET', url: '/v4.0/orders?merchantReferences=dashboard-first' }),
      ).orders
      assert.equal(listed.length, 1, 'one order for two submits')
    })

    test('a manual scenario order from the form waits for the Advance button; the default scenario is a setting', async () => {
      const page = await h.sandboxPage('desktop', `/dashboard/new-order?sku=${PHONE_CASE}`)
      await page.getByRole('radio', { name: /square/ }).check()
      await fillRecipient(page, 'Ada Lovelace')
      await page.locator('#sandbox-scenario').selectOption('manual')
      await page.getByRole('button', { name: 'Place test order' }).click()
      await page.waitForURL(/\/dashboard\/orders\/ord_\d+$/)
      const orderId = page.url().split('/').at(-1) as string
      const sandbox = page.getByRole('region', { name: 'Sandbox' })
      assert.equal(await sandbox.locator('[data-scenario]').innerText(), 'manual')
      const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(order.metadata, null, 'the scenario went as the header, not into the metadata')

      // The page refreshes itself while the order is in progress: the form appears once the lab waits.
      await sandbox.getByRole('button', { name: 'Advance' }).waitFor({ timeout: 30_000 })
      await assertAccessible(page, 'order page with advance')
      // Delivered: through the lab's steps and the carrier's scans, after which nothing is left to advance.
      await sandbox.getByLabel('Advance').selectOption('Delivered')
      // The page refreshes itself while the order is in progress; the chosen target survives a refresh.
      await page.evaluate(
        "new Promise((resolve) => document.body.addEventListener('htmx:afterSettle', resolve, { once: true }))",
      )
      assert.equal(await sandbox.getByLabel('Advance').inputValue(), 'Delivered')
      await sandbox.getByRole('button', { name: 'Advance' }).click()
      await page.getByRole('status').getByText(`Order ${orderId} is advanced to Delivered.`).waitFor()
      assert.equal(await page.locator('.page-head .badge').first().innerText(), 'Complete')
      assert.match(await page.locator('#cannot-advance').innerText(), /nothing is left to advance/)

      await page.goto(`${h.urls.sandbox}/dashboard/developers/settings`)
      await page.locator('#sandbox-scenario').selectOption('outOfStock')
      await page.getByRole('button', { name: 'Save default scenario' }).click()
      await page.getByRole('status').getByText('Default scenario saved: outOfStock.').waitFor()
      const saved = json(await h.t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings
      assert.equal(saved.sandboxScenario, 'outOfStock')
      assert.equal(await page.locator('#sandbox-scenario').inputValue(), 'outOfStock')
      await page.locator('#sandbox-scenario').selectOption('')
      await page.getByRole('button', { name: 'Save default scenario' }).click()
      await page.getByRole('status').getByText('Default scenario saved: none.').waitFor()
    })

    test('a refused order is shown on the form with the values kept and each failure next to its field', async () => {
      const page = await h.sandboxPage('phone', `/dashboard/new-order?sku=${T_SHIRT}`)
      await page.getByLabel('color').selectOption('navy blue')
      await page.getByLabel('size').selectOption('m')
      const front = page.getByRole('group', { name: /Print area “front”/ })
      await front.getByRole('radio', { name: 'Image URL' }).check()
      await front.getByLabel(/Image URL for/).fill('not a url')
      await fillRecipient(page, 'Ada Lovelace')
      await page.getByLabel('Merchant reference').fill('kept-reference')
      await assertFitsWidth(page)
      const [response] = await Promise.all([
        page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
        page.getByRole('button', { name: 'Place test order' }).click(),
      ])
      assert.equal(response.status(), 400)

      const summary = page.getByRole('alert')
      await summary.waitFor()
      assert.match(await summary.innerText(), /The order was not placed/)
      assert.match(await summary.innerText(), /items\[0\]\.assets\[0\]\.url/, 'the API’s own words')
      const url = page.getByLabel(/Image URL for “front”/)
      assert.equal(await url.inputValue(), 'not a url')
      assert.equal(await url.getAttribute('aria-invalid'), 'true')
      assert.match(await page.locator('#area-0-url-error').innerText(), /is not valid: http\(s\) URL/)
      assert.equal(await front.getByRole('radio', { name: 'Image URL' }).isChecked(), true)
      assert.equal(await page.getByLabel('color').inputValue(), 'navy blue')
      assert.equal(await page.getByLabel('size').inputValue(), 'm')
      assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Ada Lovelace')
      assert.equal(await page.getByLabel('Merchant reference').inputValue(), 'kept-reference')
      await assertAccessible(page, 'new-order refused')
      await assertFitsWidth(page)

      // The summary's link leads to the field; the corrected form goes through.
      await summary.getByRole('link', { name: /Image for front: URL/ }).click()
      await url.fill(`${h.urls.sandbox}/samples/square.jpg`)
      await page.getByRole('button', { name: 'Place test order' }).click()
      await page.waitForURL(/\/dashboard\/orders\/ord_\d+$/)
      const orderId = page.url().split('/').at(-1) as string
      const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.deepEqual(order.items[0].attributes, { color: 'navy blue', size: 'm' })
      assert.equal(order.merchantReference, 'kept-reference')
    })

    test('address problems are shown beside their fields before anything is placed; the address may be accepted as typed', async () => {
      const page = await h.sandboxPage('desktop', `/dashboard/new-order?sku=${PHONE_CASE}`)
      await fillRecipient(page, 'Mary Jackson desktop')
      await page.getByLabel('Postal or ZIP code').fill('NOT-A-POSTCODE')
      await page.getByLabel('Merchant reference').fill('address-desktop')
      const [response] = await Promise.all([
        page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
        page.getByRole('button', { name: 'Place test order' }).click(),
      ])
      assert.equal(response.status(), 400)
      const summary = page.getByRole('alert')
      await summary.waitFor()
      assert.match(await summary.innerText(), /address breaks its country/)
      const postcode = page.getByLabel('Postal or ZIP code')
      assert.equal(await postcode.inputValue(), 'NOT-A-POSTCODE')
      assert.equal(await postcode.getAttribute('aria-invalid'), 'true')
      assert.match(
        await page.locator('#recipient-postalOrZipCode-error').innerText(),
        /"NOT-A-POSTCODE" is not a postcode of GB \(for example EC1A 1BB\)/,
      )
      assert.equal(await page.getByLabel('Address line 1').getAttribute('aria-invalid'), null)
      const noOrders = json(
        await h.t.sandbox({ method: 'GET', url: '/v4.0/orders?merchantReferences=address-desktop' }),
      )
      assert.deepEqual(noOrders.orders, [], 'nothing is placed while the address has problems')
      await assertAccessible(page, 'new-order address problems (desktop)')
      await assertFitsWidth(page)
      await screenshotForDocs(page, 'new-order-address')

      // Placed with the address as typed: the order is created without issues.
      await page.getByLabel(/Place the order with the address as it is typed/).check()
      await page.getByRole('button', { name: 'Place test order' }).click()
      await page.waitForURL(/\/dashboard\/orders\/ord_\d+$/)
      const orderId = page.url().split('/').at(-1) as string
      const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(order.recipient.address.postalOrZipCode, 'NOT-A-POSTCODE')
      assert.deepEqual(
        order.status.issues.filter((issue: { errorCode: string }) => issue.errorCode.startsWith('order.recipient')),
        [],
      )
    })

    // At 390 px the form with its address problems, checked to fit the screen and by axe; what it does is proved
    // at desktop width above.
    test('the form with its address problems fits at phone width', async () => {
      const page = await h.sandboxPage('phone', `/dashboard/new-order?sku=${PHONE_CASE}`)
      await fillRecipient(page, 'Mary Jackson phone')
      await page.getByLabel('Postal or ZIP code').fill('NOT-A-POSTCODE')
      await page.getByLabel('Merchant reference').fill('address-phone')
      await page.getByRole('button', { name: 'Place test order' }).click()
      await page.locator('#recipient-postalOrZipCode-error').waitFor()
      await assertAccessible(page, 'new-order address problems (phone)')
      await assertFitsWidth(page)
    })

    test('without JavaScript, choosing a product is a step of its own; Live points to Sandbox', async () => {
      const context = await h.browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } })
      const page = await context.newPage()
      await signIn(page, h.urls.sandbox, h.t.account.sandboxKey)
      await page.goto(`${h.urls.sandbox}/dashboard/new-order`)
      assert.equal(await page.getByRole('button', { name: 'Place test order' }).count(), 0)
      await page.getByLabel('Product', { exact: true }).selectOption(PHONE_CASE)
      await page.getByRole('button', { name: 'Choose product' }).click()
      await page.waitForURL(new RegExp(`sku=${PHONE_CASE}`))
      // A required print area starts on the first sample, so a person only has to fill the recipient.
      assert.equal(await page.getByRole('radio', { name: /landscape/ }).isChecked(), true)
      await fillRecipient(page, 'Katherine Johnson')
      await page.getByRole('button', { name: 'Place test order' }).click()
      await page.waitForURL(/\/dashboard\/orders\/ord_\d+$/)
      await context.close()

      const live = await (await newContext(h.browser)).newPage()
      await signIn(live, h.urls.live, h.t.account.liveKey)
      assert.equal(
        await live.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New order' }).count(),
        0,
      )
      await live.goto(`${h.urls.live}/dashboard/new-order`)
      assert.equal(await live.getByRole('heading', { level: 1 }).innerText(), 'Test orders are placed on Sandbox')
      assert.equal(
        await live.getByRole('link', { name: 'Go to the Sandbox dashboard' }).getAttribute('href'),
        `${h.urls.sandbox}/dashboard/new-order`,
      )
      await live.context().close()
    })
  })
}
