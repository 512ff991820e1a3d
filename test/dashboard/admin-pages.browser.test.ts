// Every section of the operator console but accounts (admin.browser.test.ts has those) in Chromium, signed in
// through the console itself, at desktop width: the orders of every account and an order's read-only page (its
// images loaded), the labs with pause and resume (the table whole at 1280 px) and a lab's keys, the catalogue's
// versions and a diff, invoices, callbacks health and the audit trail; accessible (axe-core). At phone width
// each of those pages is opened and checked: accessible, nothing wider than the screen but the tables that scroll
// in their frame. The screenshots in docs/admin.md come from here (`npm run docs:screenshots`).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import {
  acquireBrowser,
  assertAccessible,
  assertImagesLoaded,
  assertWithinViewport,
  newContext,
  screenshotForDocs,
  type Viewport,
} from '../support/browser.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

const CLI = { kind: 'cli', host: 'ops-host', user: 'ops' } as const

for (const kind of databaseKinds) {
  describe(`the console's sections in Chromium (${kind})`, () => {
    let t: TestApp
    let receiver: CallbackReceiver
    let browser: Browser
    let release: () => Promise<void>
    let live = ''
    let token = ''
    let orderId = ''

    before(async () => {
      receiver = await startCallbackReceiver({ respond: () => 500 })
      t = await startTestApp({ kind })
      live = (await listenOnLoopback(t)).live
      token = (await t.app.services.operators.createOperator('Dana Ops', CLI)).token
      // A Live order with its print file made, from printroute's own sample image: a page with real images, and a
      // charge with its invoice.
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json' },
        payload: sampleOrder({
          merchantReference: 'console-browser-1',
          items: [
            {
              sku: 'GLOBAL-CAN-10x10',
              copies: 1,
              sizing: 'fillPrintArea',
              attributes: { wrap: 'Black' },
              assets: [{ url: `${live}/samples/square.jpg` }],
            },
          ],
        }),
      })
      assert.equal(created.statusCode, 200, created.body)
      orderId = json(created).order.id
      await pipelineDriver(t).allocate(orderId)
      await pipelineDriver(t).render(orderId)
      // A failing callback endpoint for the health page.
      const sent = await t.live({
        method: 'POST',
        url: '/v4.0/callbacks/test',
        headers: { 'content-type': 'application/json' },
        payload: { url: receiver.url() },
      })
      assert.equal(sent.statusCode, 200, sent.body)
      // A webhook endpoint disabled for failing: its failed test send, then the state three days of failures leave.
      const webhook = await t.live({
        method: 'POST',
        url: '/v4.0/webhooks',
        headers: { 'content-type': 'application/json' },
        payload: { url: receiver.url('/shop-events') },
      })
      assert.equal(webhook.statusCode, 201, webhook.body)
      const webhookId = json(webhook).webhook.id as string
      assert.equal((await t.live({ method: 'POST', url: `/v4.0/webhooks/${webhookId}/test` })).statusCode, 200)
      await t.database.db.query(
        `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', failing_since = $2,
                disabled_at = $2::timestamptz + interval '3 days'
          WHERE id = $1`,
        [Number(webhookId.slice(4)), new Date('2026-02-26T08:00:00Z')],
      )
      // A storefront channel whose store refused its last fulfilment, for the channels page.
      const channel = await t.live({
        method: 'POST',
        url: '/v4.0/channels',
        headers: { 'content-type': 'application/json' },
        payload: {
          type: 'shopify',
          name: 'Main shop',
          shopDomain: 'console-main-shop.myshopify.com',
          adminAccessToken: 'shpat_console',
          webhookSecret: 'shpss_console',
        },
      })
      assert.equal(channel.statusCode, 201, channel.body)
      await t.database.db.query("UPDATE channels SET status = 'failing', status_reason = $2 WHERE id = $1", [
        Number(json(channel).channel.id.slice(4)),
        'fulfilment failed: Shopify answered HTTP 401: [API] Invalid API key or access token',
      ])
      // A lab with a push endpoint, its long URL the widest thing a labs table row shows.
      await t.app.services.labPushes.configure(
        'uk6',
        { pushUrl: receiver.url('/integrations/printroute/lab-jobs/webhook-receiver/uk6-production-floor') },
        CLI,
      )
      // A second catalogue version, with a lab renamed and a price changed, for the versions list and the diff.
      const first = JSON.parse(await t.app.services.catalogueVersions.export(1))
      first.labs[0].name = `${first.labs[0].name} (Leicester)`
      first.labs[0].products[0].unitCost = '12.90'
      await t.app.services.catalogueVersions.import(JSON.stringify(first, null, 2), 'spring-prices.json', CLI)
      ;({ browser, release } = await acquireBrowser())
    })
    after(async () => {
      await release?.()
      await t.close()
      await receiver.close()
    })

    /** A page signed in to the console at `viewport`, at `path`; closed by the caller through its context. */
    async function open(path: string, viewport: Viewport): Promise<Page> {
      const context = await newContext(browser, viewport)
      const page = await context.newPage()
      await page.goto(`${live}/admin/sign-in?next=${encodeURIComponent(`/admin${path}`)}`)
      await page.getByLabel('Operator token').fill(token)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL((url) => url.pathname === `/admin${path.split('?')[0]}`)
      return page
    }

    /** Nothing on the page is wider than the screen except inside a table's scrolling frame. */
    async function assertFitsWidth(page: Page, label: string) {
      const overflow = (await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number
      assert.ok(overflow <= 1, `${label} is ${overflow} px wider than the screen`)
    }

    /** The console's navigation names every section, and marks the one shown. */
    async function assertNavigation(page: Page, current: string) {
      const links = await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link').allInnerTexts()
      assert.deepEqual(
        links.map((text) => text.trim()),
        [
          'Accounts',
          'Orders',
          'Needs attention',
          'Claims',
          'Labs',
          'Catalogue',
          'Invoices',
          'Revenue',
          'Callbacks',
          'Channels',
          'Audit trail',
          'Operators',
        ],
      )
      assert.equal(await page.locator('nav [aria-current="page"]').innerText(), current)
    }

    test(`the orders list and an order's page (desktop)`, async () => {
      const page = await open('/orders', 'desktop')
      await assertNavigation(page, 'Orders')
      await assertAccessible(page, 'console orders (desktop)')
      await assertFitsWidth(page, 'the orders list')
      await screenshotForDocs(page, 'orders', 'admin')
      await page.getByRole('searchbox', { name: 'Search' }).fill('console-browser')
      await page.getByRole('button', { name: 'Search' }).click()
      await page.waitForURL(/q=console-browser/)
      await page.getByRole('link', { name: orderId }).click()
      await page.waitForURL(new RegExp(`/admin/orders/${orderId}$`))
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Order ${orderId}`)
      assert.ok((await assertImagesLoaded(page)) >= 2, 'the source image and the print file preview')
      // The operator's own actions, each a form of its own: the merchant's controls are not there.
      assert.ok(await page.getByRole('heading', { name: 'Act on this order' }).isVisible())
      assert.ok(await page.getByRole('button', { name: 'Add the note' }).isVisible())
      assert.equal(await page.getByRole('button', { name: 'Change shipping method' }).count(), 0)
      await assertAccessible(page, 'console order (desktop)')
      await assertFitsWidth(page, 'the order page')
      // The charge's invoice opens as a PDF from the console.
      const invoiceLink = page.locator('a[data-invoice]').first()
      const pdf = await page.request.get(new URL((await invoiceLink.getAttribute('href')) as string, live).href)
      assert.equal(pdf.headers()['content-type'], 'application/pdf')
      assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-')
      await screenshotForDocs(page, 'order', 'admin')
      await page.context().close()
    })

    test(`the labs page pauses and resumes a lab; a lab's keys (desktop)`, async () => {
      const page = await open('/labs', 'desktop')
      await assertAccessible(page, 'console labs (desktop)')
      await assertFitsWidth(page, 'the labs page')
      const table = (await page.evaluate(`(() => {
        const wrap = document.querySelector('table.admin-labs').closest('.table-wrap')
        return { scrollWidth: wrap.scrollWidth, clientWidth: wrap.clientWidth }
      })()`)) as { scrollWidth: number; clientWidth: number }
      // At 1280 px the whole table shows: no column, and no Pause or Resume button, is scrolled out of sight.
      assert.ok(
        table.scrollWidth <= table.clientWidth,
        `the labs table is ${table.scrollWidth} px in ${table.clientWidth} px`,
      )
      const pause = await page.getByRole('button', { name: 'Pause uk6' }).boundingBox()
      assert.ok(pause && pause.x + pause.width <= 1280, 'the Pause button is on screen')
      await screenshotForDocs(page, 'labs', 'admin')
      await page.getByRole('button', { name: 'Pause uk6' }).click()
      await page.waitForURL(/\/admin\/labs$/)
      await page.getByRole('button', { name: 'Resume uk6' }).waitFor()
      assert.equal((await t.app.services.labs.capacity('uk6')).paused, true)
      await page.getByRole('button', { name: 'Resume uk6' }).click()
      await page.getByRole('button', { name: 'Pause uk6' }).waitFor()
      assert.equal((await t.app.services.labs.capacity('uk6')).paused, false)

      // The lab's page: a key created (shown once), rotated with an overlap, the old one revoked after asking.
      const lab = 'de1'
      await page.getByRole('link', { name: lab, exact: true }).click()
      await page.waitForURL(new RegExp(`/admin/labs/${lab}$`))
      await page.getByRole('button', { name: 'Create a key' }).click()
      const created = (await page.locator('code.new-key').textContent()) ?? ''
      assert.match(created, /^pr_lab_/)
      await page.getByLabel('Overlap').selectOption({ label: '1 hour' })
      await page.getByRole('button', { name: 'Rotate' }).click()
      await page.getByText('keeps working until').waitFor()
      const rotated = (await page.locator('code.new-key').textContent()) ?? ''
      assert.notEqual(rotated, created)
      await assertAccessible(page, 'console lab page (desktop)')
      await assertFitsWidth(page, "a lab's page")
      await screenshotForDocs(page, 'lab', 'admin')
      const oldPrefix = created.slice(0, 'pr_lab_'.length + 8)
      await page.getByRole('link', { name: `Revoke key ${oldPrefix}` }).click()
      await page.getByRole('heading', { name: `Revoke key ${oldPrefix}… of lab ${lab}?` }).waitFor()
      await assertAccessible(page, 'console lab key revocation (desktop)')
      await page.getByRole('button', { name: 'Revoke key' }).click()
      await page.waitForURL(new RegExp(`/admin/labs/${lab}$`))
      await page.getByText(`Key ${oldPrefix}… is revoked`).waitFor()
      assert.equal(await t.app.services.labs.authenticateLab(created), undefined)
      assert.equal(await t.app.services.labs.authenticateLab(rotated), lab)
      await page.context().close()
    })

    test(`the catalogue's versions and the changes between two (desktop)`, async () => {
      const page = await open('/catalogue', 'desktop')
      await assertAccessible(page, 'console catalogue (desktop)')
      await assertFitsWidth(page, 'the catalogue page')
      assert.match(await page.locator('main').innerText(), /spring-prices\.json/)
      await screenshotForDocs(page, 'catalogue', 'admin')
      await page.goto(`${live}/admin/catalogue/diff?from=1&to=2`)
      // A changed lab shows the field that changed, not its whole record.
      // (At phone width a cell's accessible name starts with its column's label, shown before it.)
      const lab = page.locator('tr', { has: page.locator('td', { hasText: /^uk6$/ }) })
      assert.deepEqual((await lab.getByRole('cell').allInnerTexts()).slice(1), [
        'uk6',
        'name: Wall art lab, Midlands',
        'name: Wall art lab, Midlands (Leicester)',
      ])
      await assertAccessible(page, 'console catalogue diff (desktop)')
      await assertFitsWidth(page, 'the catalogue diff')
      await screenshotForDocs(page, 'catalogue-diff', 'admin')
      await page.context().close()
    })

    test('invoices, callbacks health, channels and the audit trail (desktop)', async () => {
      const page = await open('/invoices', 'desktop')
      assert.match(await page.locator('main').innerText(), /INV-000001/)
      await assertAccessible(page, 'console invoices (desktop)')
      await assertFitsWidth(page, 'the invoices page')
      await screenshotForDocs(page, 'invoices', 'admin')

      await page.goto(`${live}/admin/callbacks`)
      assert.match((await page.locator('[data-last-error]').first().textContent()) ?? '', /HTTP 500/)
      assert.match((await page.locator('table.failing-webhooks [data-disabled-at]').textContent()) ?? '', /Disabled/)
      await assertAccessible(page, 'console callbacks health (desktop)')
      await assertFitsWidth(page, 'the callbacks health page')
      await screenshotForDocs(page, 'callbacks', 'admin')

      await page.goto(`${live}/admin/channels`)
      assert.match(await page.locator('main').innerText(), /console-main-shop\.myshopify\.com[\s\S]*Failing/)
      await assertAccessible(page, 'console channels (desktop)')
      await assertFitsWidth(page, 'the channels page')
      await screenshotForDocs(page, 'channels', 'admin')

      await page.goto(`${live}/admin/audit`)
      assert.match(await page.locator('main').innerText(), /catalogue\.imported/)
      await assertAccessible(page, 'console audit trail (desktop)')
      await assertFitsWidth(page, 'the audit trail page')
      await screenshotForDocs(page, 'audit', 'admin')
      await page.context().close()
    })

    // At 390 px each page the tests above visit, opened straight, checked to fit the screen (the columns an
    // operator needs on screen, the rest in its table's scrolling frame) and by axe; what the pages do is proved
    // at desktop width above. The phone pictures for docs/admin.md are taken here.
    test("the orders list and an order's page fit at phone width", async () => {
      const page = await open('/orders', 'phone')
      await assertAccessible(page, 'console orders (phone)')
      await assertFitsWidth(page, 'the orders list')
      await assertWithinViewport(
        page
          .locator('table.admin-orders tbody tr', { hasText: orderId })
          .locator('th, td:nth-of-type(1), td:nth-of-type(3)'),
        'the order',
      )
      await screenshotForDocs(page, 'orders-phone', 'admin')
      await page.goto(`${live}/admin/orders/${orderId}`)
      await assertImagesLoaded(page)
      await assertAccessible(page, 'console order (phone)')
      await assertFitsWidth(page, 'the order page')
      await page.context().close()
    })

    test('the channels page fits at phone width', async () => {
      const page = await open('/channels', 'phone')
      await assertAccessible(page, 'console channels (phone)')
      await assertFitsWidth(page, 'the channels page')
      await screenshotForDocs(page, 'channels-phone', 'admin')
      await page.context().close()
    })

    test("the labs page, a lab's page and a key's revocation fit at phone width", async () => {
      const page = await open('/labs', 'phone')
      await assertAccessible(page, 'console labs (phone)')
      await assertFitsWidth(page, 'the labs page')
      await assertWithinViewport(
        page.locator('tr[data-lab="uk6"]').locator('th, td:nth-of-type(1), td[data-overdue], button'),
        'the lab',
      )
      await screenshotForDocs(page, 'labs-phone', 'admin')

      // The lab's page as the desktop test leaves it: a new key and its rotation shown.
      await page.goto(`${live}/admin/labs/nl1`)
      await page.getByRole('button', { name: 'Create a key' }).click()
      const created = (await page.locator('code.new-key').textContent()) ?? ''
      await page.getByLabel('Overlap').selectOption({ label: '1 hour' })
      await page.getByRole('button', { name: 'Rotate' }).click()
      await page.getByText('keeps working until').waitFor()
      await assertAccessible(page, 'console lab page (phone)')
      await assertFitsWidth(page, "a lab's page")
      await screenshotForDocs(page, 'lab-phone', 'admin')
      const oldPrefix = created.slice(0, 'pr_lab_'.length + 8)
      await page.getByRole('link', { name: `Revoke key ${oldPrefix}` }).click()
      await page.getByRole('heading', { name: `Revoke key ${oldPrefix}… of lab nl1?` }).waitFor()
      await assertAccessible(page, 'console lab key revocation (phone)')
      await page.context().close()
    })

    test("the catalogue's versions and a diff fit at phone width", async () => {
      const page = await open('/catalogue', 'phone')
      await assertAccessible(page, 'console catalogue (phone)')
      await assertFitsWidth(page, 'the catalogue page')
      await assertWithinViewport(
        page
          .locator('table.catalogue-versions tbody tr')
          .first()
          .locator('td:nth-of-type(1), td:nth-of-type(2), td:nth-of-type(5)'),
        'the catalogue version',
      )
      await screenshotForDocs(page, 'catalogue-phone', 'admin')
      await page.goto(`${live}/admin/catalogue/diff?from=1&to=2`)
      await assertAccessible(page, 'console catalogue diff (phone)')
      await assertFitsWidth(page, 'the catalogue diff')
      await page.context().close()
    })

    test('invoices, callbacks health and the audit trail fit at phone width', async () => {
      const page = await open('/invoices', 'phone')
      await assertAccessible(page, 'console invoices (phone)')
      await assertFitsWidth(page, 'the invoices page')
      await assertWithinViewport(
        page.locator('tr[data-invoice="INV-000001"]').locator('th, td:nth-of-type(3), td:nth-of-type(5)'),
        'the invoice',
      )
      await screenshotForDocs(page, 'invoices-phone', 'admin')

      await page.goto(`${live}/admin/callbacks`)
      await assertAccessible(page, 'console callbacks health (phone)')
      await assertFitsWidth(page, 'the callbacks health page')
      await assertWithinViewport(page.locator('[data-last-error]'), 'the last error')

      await page.goto(`${live}/admin/audit`)
      await assertAccessible(page, 'console audit trail (phone)')
      await assertFitsWidth(page, 'the audit trail page')
      await assertWithinViewport(
        page.locator('table.audit-trail tbody tr').first().locator('td[data-label="Action"], td[data-label="Change"]'),
        'the audit entry',
      )
      await screenshotForDocs(page, 'audit-phone', 'admin')
      await page.context().close()
    })
  })
}
