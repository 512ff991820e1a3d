// The Import orders page in a real browser: reached from the orders page, its script sends the chosen CSV file to
// POST /v4.0/orders/imports with the session, the import's page shows the progress bar (refreshing itself while the
// job runs, workers on) and then each row's result; "Create as drafts" sends approval=manual; a file in another
// delimiter is refused beside the form.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { csvLine, importTemplateCsv, TEMPLATE_COLUMNS } from '../../src/domain/order-imports.ts'
import { assertAccessible } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

for (const kind of databaseKinds) {
  describe(`dashboard import orders (${kind})`, () => {
    let h: DashboardHarness
    let dir: string
    before(async () => {
      h = await startDashboardHarness(kind)
      dir = mkdtempSync(join(tmpdir(), 'printroute-import-page-'))
    })
    after(async () => {
      await h.close()
      rmSync(dir, { recursive: true, force: true })
    })

    test('a CSV file uploaded from the orders page imports with a progress bar and a results table', async () => {
      const file = join(dir, 'fair.csv')
      const broken: Record<string, string> = {
        merchantReference: 'BROKEN-1',
        shippingMethod: 'Standard',
        'recipient.name': 'Ada Lovelace',
        'recipient.address.line1': '1 Street',
        'recipient.address.postalOrZipCode': 'EC1A 1BB',
        'recipient.address.countryCode': 'GB',
        'recipient.address.townOrCity': 'London',
        sku: 'NO-SUCH-SKU',
        copies: '1',
        sizing: 'fillPrintArea',
        'assets.default': 'https://images.example.com/canvas.jpg',
      }
      writeFileSync(file, importTemplateCsv() + csvLine(TEMPLATE_COLUMNS.map((column) => broken[column] ?? '')))
      const page = await h.sandboxPage('desktop', '/dashboard/orders')
      await page.getByRole('link', { name: 'Import orders (CSV)' }).click()
      await page.waitForURL(/\/dashboard\/imports$/)
      await page.getByLabel(/^CSV file/).setInputFiles(file)
      await page.getByRole('button', { name: 'Import the orders' }).click()
      await page.waitForURL(/\/dashboard\/imports\/imp_\d+$/)
      // The section refreshes itself (htmx) until the job has read every row.
      await page.getByText('3 of 3 rows read · 1 orders created · 1 rows failed · 0 duplicates skipped').waitFor({
        timeout: 60_000,
      })
      assert.equal(await page.locator('#import-bar').getAttribute('value'), '3')
      const rows = page.getByRole('table').getByRole('row')
      assert.equal(await rows.count(), 4)
      assert.match(await rows.nth(3).innerText(), /BROKEN-1[\s\S]*Failed[\s\S]*sku: UnknownSku \(NO-SUCH-SKU\)/)
      await assertAccessible(page, 'import results')
    })

    test('"Create as drafts" uploads the file with approval=manual', async () => {
      const file = join(dir, 'drafts.csv')
      writeFileSync(file, importTemplateCsv())
      const page = await h.sandboxPage('desktop', '/dashboard/imports')
      await page.getByLabel(/^CSV file/).setInputFiles(file)
      await page.getByLabel(/Create as drafts/).check()
      await page.getByRole('button', { name: 'Import the orders' }).click()
      await page.waitForURL(/\/dashboard\/imports\/imp_\d+$/)
      const id = Number(/imp_(\d+)$/.exec(page.url())?.[1])
      const [row] = await h.t.database.db.query<{ approval: string }>(
        'SELECT approval FROM order_imports WHERE id = $1',
        [id],
      )
      assert.equal(row?.approval, 'manual')
    })

    test('a file in another delimiter is refused beside the form', async () => {
      const file = join(dir, 'semicolons.csv')
      writeFileSync(file, 'merchantReference;sku;copies\r\nA;B;1\r\n')
      const page = await h.sandboxPage('desktop', '/dashboard/imports')
      await page.getByLabel(/^CSV file/).setInputFiles(file)
      await page.getByRole('button', { name: 'Import the orders' }).click()
      await page.getByText(/delimiter: InvalidValue/).waitFor()
      assert.match(page.url(), /\/dashboard\/imports$/)
    })
  })
}
