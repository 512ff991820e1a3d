// The console's invoices section (src/web/operator/invoices.pages.ts) on its own, signed in as a test
// operator, over a printroute with charged orders: the list across accounts and environments with its filters,
// each PDF, an account's statement as CSV and PDF, and bad filters answered with the field and reason.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import type { Charge } from '../../src/domain/order.ts'
import { consoleInvoicesOf } from '../../src/services/operator/console-sections.ts'
import { registerInvoicesPages } from '../../src/web/operator/invoices.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { documentText } from '../support/pdf-reading.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`console invoices pages (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let pages: AdminPagesHarness
    let shop: TestAccount
    let other: TestAccount
    const charges: Record<string, Charge> = {}

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      const drive = pipelineDriver(t)
      shop = await t.createAccount()
      other = await t.createAccount()
      const order = async (server: 'live' | 'sandbox', key: string) => {
        const response = await t[server](
          {
            method: 'POST',
            url: '/v4.0/orders',
            headers: { 'content-type': 'application/json' },
            payload: sampleOrder({
              items: [
                { sku: PHONE_CASE, copies: 2, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] },
              ],
            }),
          },
          key,
        )
        const orderId = json(response).order.id as string
        const charge = (await drive.allocate(orderId)).document.charges[0] as Charge
        charges[charge.prodigiInvoiceNumber as string] = charge
      }
      await order('live', shop.liveKey)
      await order('sandbox', shop.sandboxKey)
      await order('live', other.liveKey)
      pages = await startAdminPages((scope, console) =>
        registerInvoicesPages(scope, console, consoleInvoicesOf(t.app.services.invoices)),
      )
    })
    after(async () => {
      await pages.close()
      await t.close()
      await images.close()
    })

    const listed = (body: string) => [...body.matchAll(/<tr data-invoice="([^"]+)">/g)].map((match) => match[1])

    test('lists every account and both environments, newest first; filters narrow it', async () => {
      const all = await pages.request('/admin/invoices')
      assert.equal(all.status, 200)
      assert.deepEqual(listed(all.body), ['INV-000002', 'SBX-INV-000001', 'INV-000001'])
      assert.match(all.body, /<label for="invoices-account">/)
      const month = t.clock.now().toISOString().slice(0, 7)
      const shopLive = await pages.request(`/admin/invoices?account=${shop.id}&environment=live&month=${month}`)
      assert.deepEqual(listed(shopLive.body), ['INV-000001'])
      assert.match(
        shopLive.body,
        new RegExp(`statement.csv\\?account=${shop.id}&amp;environment=live&amp;month=${month}`),
      )
      const sandbox = await pages.request('/admin/invoices?environment=sandbox')
      assert.deepEqual(listed(sandbox.body), ['SBX-INV-000001'])
      assert.deepEqual(listed((await pages.request('/admin/invoices?month=2020-01')).body), [])
      // The widest months are read on every database (years 0001 to 9999); year 0 is no month.
      for (const edge of ['0001-01', '9999-12']) {
        const page = await pages.request(`/admin/invoices?month=${edge}`)
        assert.equal(page.status, 200, `${edge}: ${page.body}`)
        assert.deepEqual(listed(page.body), [])
      }
      assert.equal((await pages.request('/admin/invoices?month=0000-01')).status, 400)

      const bad = await pages.request('/admin/invoices?account=shop&month=March')
      assert.equal(bad.status, 400)
      assert.match(bad.body, /account: must be an account ID such as acc_3; month: must be a month as YYYY-MM/)
    })

    test("each document's PDF; unknown numbers are not found", async () => {
      const response = await fetch(`${pages.origin}/admin/invoices/SBX-INV-000001.pdf`)
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('content-type'), 'application/pdf')
      const text = documentText(await PDFDocument.load(new Uint8Array(await response.arrayBuffer())))
      assert.match(text, /^Invoice SBX-INV-000001$/m)
      assert.match(text, /^Sandbox - not a bill$/m)
      assert.equal((await pages.request('/admin/invoices/INV-000999.pdf')).status, 404)
      assert.equal((await pages.request('/admin/invoices/nonsense.pdf')).status, 404)
    })

    test("an account's statement as CSV and PDF, with its total", async () => {
      const month = t.clock.now().toISOString().slice(0, 7)
      const charge = charges['INV-000001'] as Charge
      const csv = await fetch(
        `${pages.origin}/admin/invoices/statement.csv?account=${shop.id}&environment=live&month=${month}`,
      )
      assert.equal(csv.status, 200)
      assert.match(
        csv.headers.get('content-disposition') ?? '',
        /attachment; filename="statement-acc_\d+-\d{4}-\d{2}\.csv"/,
      )
      const rows = (await csv.text()).trimEnd().split('\r\n')
      assert.equal(rows.length, 3)
      assert.match(rows[1] as string, /^INV-000001,Invoice,/)
      assert.equal(
        rows[2],
        `Total,,,,,${charge.totalCost.currency},${charge.totalCost.amount},${charge.totalTax.amount}`,
      )

      const pdf = await fetch(`${pages.origin}/admin/invoices/statement.pdf?account=${shop.id}&month=${month}`)
      assert.equal(pdf.status, 200)
      const text = documentText(await PDFDocument.load(new Uint8Array(await pdf.arrayBuffer())))
      assert.match(text, /^INV-000001$/m)
      assert.doesNotMatch(text, /SBX-INV/)
      assert.match(text, new RegExp(`^${charge.totalCost.amount.replace('.', '\\.')}$`, 'm'))

      const missing = await pages.request(`/admin/invoices/statement.csv?account=${shop.id}`)
      assert.equal(missing.status, 400)
      assert.match(missing.body, /month: is required/)
      assert.equal((await pages.request(`/admin/invoices/statement.csv?account=acc_999&month=${month}`)).status, 404)
      assert.equal((await pages.request(`/admin/invoices/statement.xls?account=${shop.id}&month=${month}`)).status, 400)
    })
  })
}
