// The order page's preflight in a browser (docs/dashboard.md): an order whose image is too small shows its
// warning beside the print file's preview with the area's guide lines, and a book's PDF its page thumbnails
// (loaded through the API with the session cookie) with their legend; accessible, and fits a 390 px phone.
// The workers run the pipeline; the files come from a 127.0.0.1 server.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { bookPdf, tinyJpeg } from '../support/preflight-files.ts'
import { json, sampleOrder } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

async function assertFitsWidth(page: Page): Promise<void> {
  const widths = (await page.evaluate(
    '({ page: document.documentElement.scrollWidth, screen: window.innerWidth })',
  )) as { page: number; screen: number }
  assert.ok(widths.page <= widths.screen, `the page is ${widths.page} px wide on a ${widths.screen} px screen`)
}

for (const kind of databaseKinds) {
  describe(`dashboard order preflight (${kind})`, () => {
    let h: DashboardHarness
    let files: ImageServer
    before(async () => {
      h = await startDashboardHarness(kind)
      files = await startImageServer(
        {
          '/tiny.jpg': await tinyJpeg(240, 400),
          '/book.pdf': await bookPdf(24, { width: 297, height: 297 }, 3, { boxes: true, cmyk: true }),
        },
        null,
      )
    })
    after(async () => {
      await files.close()
      await h.close()
    })

    test('a warning shows on the order page with the guide lines, on a desktop and on a phone', async () => {
      const created = await h.t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [
            { sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: files.url('tiny.jpg') }] },
            {
              sku: 'BOOK-FE-11_7-SQ-HARD-G',
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ printArea: 'default', url: files.url('book.pdf'), pageCount: 24 }],
            },
          ],
        }),
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id as string
      const path = `/dashboard/orders/${orderId}`
      const page = await h.sandboxPage('desktop', path)
      // The page refreshes itself while the order is in progress; the preview comes with the rendered print file.
      await page.locator('svg.overlay-guides').waitFor({ state: 'attached', timeout: 60_000 })
      await page.getByText('passed with warnings: the file prints').waitFor()
      assert.match(await page.getByRole('table', { name: 'Preflight checks' }).innerText(), /ImageTooSmall/)
      // The book's page thumbnails load (the API's route, read with the session cookie) with their legend.
      const thumbnails = page.locator('.page-thumbnails img')
      await thumbnails.nth(3).waitFor({ timeout: 60_000 })
      await page.waitForFunction(
        '[...document.querySelectorAll(".page-thumbnails img")].every((image) => image.complete)',
      )
      const loaded = (await page.evaluate(
        '[...document.querySelectorAll(".page-thumbnails img")].map((image) => image.naturalWidth)',
      )) as number[]
      assert.deepEqual(loaded, [240, 240, 240, 240])
      assert.ok(await page.locator('.page-thumbnails figcaption .key-bleed').isVisible())
      await assertAccessible(page, 'order page with a preflight warning')
      await page.screenshot({ path: '/tmp/pfpage-order-desktop.png', fullPage: true })

      const phone = await h.sandboxPage('phone', path)
      await phone.getByText('passed with warnings: the file prints').waitFor()
      await phone.locator('.page-thumbnails img').nth(3).waitFor()
      await assertFitsWidth(phone)
      await phone.screenshot({ path: '/tmp/pfpage-order-phone.png', fullPage: true })
    })
  })
}
