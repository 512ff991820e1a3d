// The Catalogue page in a real browser: a search narrows the products, each shown with its options, print
// areas and recommended pixel sizes, variants, destinations and labs; the quote calculator prices a basket
// (asking for a product's options once it knows the product) exactly as POST /v4.0/quotes does.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible, screenshotForDocs } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { catalogue, json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

async function assertFitsWidth(page: Page): Promise<void> {
  const widths = (await page.evaluate(
    '({ page: document.documentElement.scrollWidth, screen: window.innerWidth })',
  )) as { page: number; screen: number }
  assert.ok(widths.page <= widths.screen, `the page is ${widths.page} px wide on a ${widths.screen} px screen`)
}

for (const kind of databaseKinds) {
  describe(`dashboard catalogue (${kind})`, () => {
    let h: DashboardHarness
    before(async () => {
      h = await startDashboardHarness(kind)
    })
    after(() => h.close())

    test('a search narrows the products; each shows options, print areas, variants with pixel sizes, destinations and labs', async () => {
      const page = await h.sandboxPage()
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Catalogue' }).click()
      await page.waitForURL(/\/dashboard\/catalogue$/)
      const products = page.getByRole('article')
      assert.equal(await products.count(), 20, 'a page of products')
      assert.equal(catalogue.products.length > 20, true)
      await page.getByRole('navigation', { name: 'Pages of products' }).getByRole('link', { name: 'Next' }).waitFor()

      await page.getByLabel('Search', { exact: true }).fill('iPhone 11')
      await page.getByRole('button', { name: 'Search', exact: true }).click()
      await page.waitForURL(/q=iPhone/)
      assert.equal(await products.count(), 1)
      const phoneCase = page.getByRole('article', { name: PHONE_CASE })
      const text = await phoneCase.innerText()
      assert.match(text, /iPhone 11 Pro snap case/)
      assert.match(text, /default \(1080 × 2070 px\)/, 'the print area with its recommended size')
      assert.match(text, /\(prodigi_gb2, United Kingdom\)/, 'the lab that makes it')
      const variants = phoneCase.getByRole('table', { name: `Variants of ${PHONE_CASE}` })
      assert.match(await variants.innerText(), /1080 × 2070 px/)
      await assertAccessible(page, 'catalogue')
      await screenshotForDocs(page, 'catalogue')
      await phoneCase.getByText(/^\d+ countries$/).click()
      assert.match(await phoneCase.locator('.country-codes').innerText(), /\bGB\b.*\bUS\b/s)

      // A product with many variants folds them; their options and sizes are all there.
      await page.getByLabel('Search', { exact: true }).fill('bella')
      await page.getByRole('button', { name: 'Search', exact: true }).click()
      await page.waitForURL(/q=bella/)
      const tee = page.getByRole('article', { name: 'GLOBAL-TEE-BC-3001' })
      await tee.getByText(/^64 variants/).click()
      assert.equal(await tee.getByRole('table').getByRole('row').count(), 65)
      assert.match(await tee.getByRole('row', { name: /navy blue · xl/ }).innerText(), /4680 × 5790 px/)

      await page.getByLabel('Search', { exact: true }).fill('no such product anywhere')
      await page.getByRole('button', { name: 'Search', exact: true }).click()
      await page.getByText('No product matches “no such product anywhere”.').waitFor()
      assert.equal(await products.count(), 0)
    })

    test('a quote for a basket shows the prices per shipping method, as the API quotes them', async () => {
      const page = await h.sandboxPage('desktop', `/dashboard/catalogue?q=canvas`)
      await page.getByRole('article', { name: 'GLOBAL-CAN-8x8' }).getByRole('link', { name: /Quote/ }).click()
      await page.waitForURL(/\/dashboard\/catalogue\/quote\?sku1=GLOBAL-CAN-8x8$/)

      const row1 = page.getByRole('group', { name: 'Row 1' })
      const row2 = page.getByRole('group', { name: 'Row 2' })
      assert.equal(await row1.getByLabel('SKU').inputValue(), 'GLOBAL-CAN-8x8')
      // The product is known, so its one choice is offered; leaving it out is refused, next to the field.
      await row2.getByLabel('SKU').fill('GLOBAL-FAP-8x8')
      await row2.getByLabel('Copies').fill('2')
      await page.getByLabel('Country').selectOption('DE')
      await page.getByRole('button', { name: 'Get quote' }).click()
      const alert = page.getByRole('alert')
      await alert.waitFor()
      assert.match(await alert.innerText(), /Row 1, wrap needs a value for: wrap/)
      assert.equal(await row1.getByLabel('wrap').getAttribute('aria-invalid'), 'true')
      assert.equal(await row2.getByLabel('Copies').inputValue(), '2', 'the basket is kept')

      await row1.getByLabel('wrap').selectOption('MirrorWrap')
      await page.getByRole('button', { name: 'Get quote' }).click()
      const quotes = page.getByRole('table', { name: /Quotes to Germany/ })
      await quotes.waitFor()
      const expected = json(
        await h.t.sandbox({
          method: 'POST',
          url: '/v4.0/quotes',
          headers: { 'content-type': 'application/json' },
          payload: {
            destinationCountryCode: 'DE',
            items: [
              {
                sku: 'GLOBAL-CAN-8x8',
                copies: 1,
                attributes: { wrap: 'MirrorWrap' },
                assets: [{ printArea: 'default' }],
              },
              { sku: 'GLOBAL-FAP-8x8', copies: 2, assets: [{ printArea: 'default' }] },
            ],
          },
        }),
      )
      assert.equal(await quotes.getByRole('row').count(), 1 + expected.quotes.length)
      for (const quote of expected.quotes) {
        const row = await quotes.getByRole('row', { name: new RegExp(`^${quote.shipmentMethod}\\b`) }).innerText()
        const total = `${quote.costSummary.totalCost.amount} ${quote.costSummary.totalCost.currency}`
        assert.ok(row.includes(total), `${quote.shipmentMethod} costs ${total}: ${row}`)
        for (const shipment of quote.shipments) assert.ok(row.includes(shipment.carrier.service))
      }
      await assertAccessible(page, 'catalogue-quote')
      await screenshotForDocs(page, 'catalogue-quote')

      // Another row, then only one method.
      await page.getByRole('button', { name: 'Add a row' }).click()
      await page.getByRole('group', { name: 'Row 4' }).waitFor()
      await page.getByLabel('Shipping method').selectOption('Express')
      await page.getByRole('button', { name: 'Get quote' }).click()
      await quotes.waitFor()
      assert.equal(await quotes.getByRole('row').count(), 2)
      assert.match(await quotes.getByRole('row').nth(1).innerText(), /^Express/)
    })

    test('on a phone the catalogue and the quote fit the screen', async () => {
      const page = await h.sandboxPage('phone', `/dashboard/catalogue?q=frame`)
      await assertFitsWidth(page)
      await page.goto(
        `${h.urls.sandbox}/dashboard/catalogue/quote?sku1=GLOBAL-FAP-8x8&destination=US&shippingMethod=Standard`,
      )
      await page.getByRole('table', { name: /Quotes to United States/ }).waitFor()
      // US sales tax is not computed: the API says so, and so does the page.
      assert.match(await page.getByRole('status').first().innerText(), /tax/i)
      await assertFitsWidth(page)
      await assertAccessible(page, 'catalogue-quote on a phone')
    })
  })
}
