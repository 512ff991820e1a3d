// The console's Revenue section (src/web/operator/revenue.pages.ts) and an order's margin on its console page
// (orders.pages.ts), signed in as a test operator, over a printroute with a charged Live order whose shipment was
// handed to labs (hand-offs written by the fixture): the table, the chart, the CSV, bad filters answered with the
// field and reason, and Sandbox kept out.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge } from '../../src/domain/order.ts'
import { consoleRevenueOf } from '../../src/services/operator/console-sections.ts'
import { registerOrdersPages } from '../../src/web/operator/orders.pages.ts'
import { registerRevenuePages } from '../../src/web/operator/revenue.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { insertHandoff } from '../support/shipment-costs.fixture.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const minorOf = (amount: string) => BigInt(amount.replace('.', ''))
const amountOf = (minor: bigint) => `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`

for (const kind of databaseKinds) {
  describe(`console revenue pages (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let pages: AdminPagesHarness
    let liveOrderId = ''
    let sandboxOrderId = ''
    let untaxed = 0n
    let currency = ''

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      const drive = pipelineDriver(t)
      const accountNumber = parseId('acc', t.account.id) as number
      const place = async (server: 'live' | 'sandbox') => {
        const response = await t[server]({
          method: 'POST',
          url: '/v4.0/orders',
          headers: { 'content-type': 'application/json' },
          payload: sampleOrder({
            items: [{ sku: PHONE_CASE, copies: 2, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
          }),
        })
        const orderId = json(response).order.id as string
        const { document } = await drive.allocate(orderId)
        const shipmentId = document.shipments[0]?.id as string
        await insertHandoff(t.database.db, {
          accountId: accountNumber,
          orderNumber: parseId('ord', orderId) as number,
          shipmentId,
          environment: server,
          labCode: 'LAB-B',
          priceCurrency: (document.charges[0] as Charge).totalCost.currency,
          costInPriceCurrencyMinor: 700n,
          handedAt: new Date('2026-03-01T09:30:00Z'),
        })
        return { orderId, document, shipmentId }
      }
      const liveOrder = await place('live')
      liveOrderId = liveOrder.orderId
      const charge = liveOrder.document.charges[0] as Charge
      currency = charge.totalCost.currency
      untaxed = minorOf(charge.totalCost.amount) - minorOf(charge.totalTax.amount)
      // An earlier hand-off of the same shipment that the lab rejected: listed, owed nothing.
      await insertHandoff(t.database.db, {
        accountId: accountNumber,
        orderNumber: parseId('ord', liveOrderId) as number,
        shipmentId: liveOrder.shipmentId,
        labCode: 'LAB-A',
        outcome: 'Rejected',
        priceCurrency: currency,
        costInPriceCurrencyMinor: 5000n,
        handedAt: new Date('2026-03-01T09:20:00Z'),
      })
      sandboxOrderId = (await place('sandbox')).orderId
      pages = await startAdminPages((scope, console) => {
        const revenue = consoleRevenueOf(t.app.services.revenue)
        registerRevenuePages(scope, console, revenue)
        registerOrdersPages(scope, console, t.app.services.adminViews.orders, { margins: revenue })
      })
    })
    after(async () => {
      await pages.close()
      await t.close()
      await images.close()
    })

    const cells = (body: string, group: string) => {
      const row = new RegExp(`<tr data-group="${group}">(.*?)</tr>`).exec(body)?.[1] ?? ''
      return [...row.matchAll(/<td class="number">([^<]*)<\/td>/g)].map((match) => match[1])
    }

    test('by lab: a table and a chart per currency, the Live figures only, margin = revenue - cost', async () => {
      const page = await pages.request('/admin/revenue?from=2026-03-01&to=2026-04-01&by=lab')
      assert.equal(page.status, 200, page.body)
      assert.match(page.body, /<main data-section="revenue">/)
      assert.match(page.body, new RegExp(`<table class="table admin-revenue" data-currency="${currency}">`))
      const margin = untaxed - 700n
      // Orders, revenue, refunds, net revenue, lab cost, margin (rate checked for its form).
      assert.deepEqual(cells(page.body, 'LAB-B').slice(0, 6), [
        '1',
        amountOf(untaxed),
        '0.00',
        amountOf(untaxed),
        '7.00',
        amountOf(margin),
      ])
      assert.deepEqual(cells(page.body, 'LAB-A').slice(0, 6), ['1', '0.00', '0.00', '0.00', '0.00', '0.00'])
      assert.deepEqual(cells(page.body, 'Total').slice(0, 6), cells(page.body, 'LAB-B').slice(0, 6))
      assert.match(cells(page.body, 'Total')[6] ?? '', /^\d+\.\d%$/)
      assert.match(page.body, /<svg class="revenue-chart" viewBox="0 0 360 \d+" role="img"/)
      assert.match(page.body, /<g data-group="LAB-B">/)
      assert.match(page.body, /href="\/admin\/revenue\.csv\?from=2026-03-01&amp;to=2026-04-01&amp;by=lab"/)
    })

    test('the CSV: the same figures, a row per group and a Total, as a download', async () => {
      const response = await fetch(`${pages.origin}/admin/revenue.csv?from=2026-03-01&to=2026-04-01&by=product`)
      assert.equal(response.status, 200)
      assert.match(response.headers.get('content-type') ?? '', /^text\/csv/)
      assert.equal(
        response.headers.get('content-disposition'),
        'attachment; filename="revenue-product-2026-03-01-2026-04-01.csv"',
      )
      const rows = (await response.text()).split('\r\n')
      assert.equal(rows[0], 'currency,product,orders,revenue,refunds,netRevenue,labCost,margin,marginRate')
      const product = rows[1]?.split(',')
      assert.deepEqual(product?.slice(0, 8), [
        currency,
        PHONE_CASE,
        '1',
        amountOf(untaxed),
        '0.00',
        amountOf(untaxed),
        '7.00',
        amountOf(untaxed - 700n),
      ])
      assert.equal(rows[2]?.split(',')[1], 'Total')
      assert.equal(rows[3], '')
    })

    test('a range with nothing Live says so; bad filters are answered 400 naming the field', async () => {
      const empty = await pages.request('/admin/revenue?from=2026-04-01&to=2026-05-01&by=day')
      assert.equal(empty.status, 200)
      assert.match(empty.body, /No Live invoices, credit notes or hand-offs to labs in this range/)
      const bad = await pages.request('/admin/revenue?from=2026-02-30&to=2026-03-01&by=year')
      assert.equal(bad.status, 400)
      assert.match(bad.notice ?? bad.body, /from: must be a date as YYYY-MM-DD/)
      assert.match(bad.body, /by: must be one of day, week, month, account, lab, product/)
      const long = await pages.request('/admin/revenue.csv?from=2025-01-01&to=2026-03-01&by=day')
      assert.equal(long.status, 400)
      assert.match(long.body, /to: must be at most 366 days after from/)
      // No query at all: this month by day, a form to change it.
      const first = await pages.request('/admin/revenue')
      assert.equal(first.status, 200)
      assert.match(first.body, /<option value="day" selected>/)
    })

    test("an order's console page shows each hand-off's price, lab cost and margin", async () => {
      const page = await pages.request(`/admin/orders/${liveOrderId}`)
      assert.equal(page.status, 200)
      assert.match(page.body, /<h2 id="order-margin">Margin<\/h2>/)
      const rejected = /<tr data-shipment="[^"]+" data-lab="LAB-A">(.*?)<\/tr>/.exec(page.body)?.[1] ?? ''
      assert.match(rejected, /Rejected \(not owed\)/)
      assert.match(rejected, /50\.00 /)
      const shipped = /<tr data-shipment="[^"]+" data-lab="LAB-B">(.*?)<\/tr>/.exec(page.body)?.[1] ?? ''
      assert.match(shipped, /15\.00 \w{3}<\/td><td class="number">7\.00 \w{3}<\/td><td class="number">8\.00 \w{3}/)
      const total = new RegExp(`<tr data-total="${currency}">(.*?)</tr>`).exec(page.body)?.[1] ?? ''
      // The rejected hand-off counts for neither price nor cost.
      assert.match(total, /15\.00 \w{3}<\/td><td class="number">7\.00 \w{3}<\/td><td class="number">8\.00 \w{3}/)
      assert.match(total, /margin rate 53\.3%/)
      // The Sandbox order has its own hand-off: its page shows it too (the report never does).
      const sandboxPage = await pages.request(`/admin/orders/${sandboxOrderId}`)
      assert.match(sandboxPage.body, /data-lab="LAB-B"/)
    })
  })
}
