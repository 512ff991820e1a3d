// The Check a file page in a real browser: the form posts to POST /v4.0/files/preflight and lands on the
// preflight's page, which refreshes itself until the report is there (workers run the real engine); a bad SKU is
// shown on its field; on a phone the page fits the screen.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

async function assertFitsWidth(page: Page): Promise<void> {
  const widths = (await page.evaluate(
    '({ page: document.documentElement.scrollWidth, screen: window.innerWidth })',
  )) as { page: number; screen: number }
  assert.ok(widths.page <= widths.screen, `the page is ${widths.page} px wide on a ${widths.screen} px screen`)
}

for (const kind of databaseKinds) {
  describe(`dashboard check a file (${kind})`, () => {
    let h: DashboardHarness
    before(async () => {
      h = await startDashboardHarness(kind)
    })
    after(() => h.close())

    async function check(page: Page, sku: string): Promise<void> {
      await page.getByLabel('File URL (PDF or image)').fill(`${h.urls.sandbox}/samples/portrait.jpg`)
      await page.getByLabel('SKU').fill(sku)
      await page.getByRole('button', { name: 'Check the file' }).click()
    }

    test('the form checks a file; its page shows the report once inspected', async () => {
      const page = await h.sandboxPage('desktop', '/dashboard/check-file')
      await check(page, PHONE_CASE)
      await page.waitForURL(/\/dashboard\/check-file\/pfl_\d+$/)
      await page.getByRole('heading', { name: /^Preflight pfl_\d+$/ }).waitFor()
      // The page refreshes itself (htmx) until the job has run.
      await page.getByText(/^(Passed|PassedWithWarnings) · /).waitFor({ timeout: 60_000 })
      await assertAccessible(page, 'check-file report')
      await page.screenshot({ path: '/tmp/pfflow-check-file.png', fullPage: true })
    })

    test('an unknown SKU is named on the form', async () => {
      const page = await h.sandboxPage('desktop', '/dashboard/check-file')
      await check(page, 'NO-SUCH-SKU')
      await page.getByRole('alert').waitFor()
      assert.match(await page.getByRole('alert').innerText(), /SKU|sku/)
    })

    test('on a phone the page fits the screen', async () => {
      const page = await h.sandboxPage('phone', '/dashboard/check-file')
      await assertFitsWidth(page)
      await check(page, PHONE_CASE)
      await page.getByText(/^(Passed|PassedWithWarnings) · /).waitFor({ timeout: 60_000 })
      await assertFitsWidth(page)
      await page.screenshot({ path: '/tmp/pfflow-check-file-phone.png', fullPage: true })
    })
  })
}
