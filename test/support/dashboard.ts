// A printroute for the dashboard's browser tests: both servers listening on 127.0.0.1, the pipeline running
// fast (simulated labs step every 0.2 s), orders placed through the API with the bundled sample images.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { acquireBrowser, newContext, setViewport, signIn, type Viewport } from './browser.ts'
import type { TestDatabaseKind } from './databases.ts'
import { PHONE_CASE } from './pipeline-driver.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp, type TestAppOptions } from './test-app.ts'

export interface DashboardHarness {
  t: TestApp
  browser: Browser
  urls: { live: string; sandbox: string }
  /** Places a Sandbox order (a phone case from the sample portrait) through the API; returns its id. */
  placeOrder(overrides?: Record<string, unknown>): Promise<string>
  /**
   * A page signed in to the Sandbox dashboard with the account's Sandbox key, at `viewport` (desktop unless
   * said), on the Sandbox's `path` (the orders page, where signing in lands, unless said). The harness signs in
   * once, in a browser context of its own, and keeps one page per viewport for its tests: a new context with
   * its page and sign-in cost about 3 CPU-seconds, more than most of these tests' steps, and the browser tests
   * are the largest part of the suite's CPU (docs/benchmarks.md). So its tests share the session and its
   * cookies; a test that must start signed out, signs in with another key or on Live, signs out, or turns
   * JavaScript off opens a context of its own (`newContext`).
   */
  sandboxPage(viewport?: Viewport, path?: string): Promise<Page>
  close(): Promise<void>
}

/** Where signing in lands. */
const ORDERS_PATH = '/dashboard/orders'

export async function startDashboardHarness(
  kind: TestDatabaseKind,
  options: TestAppOptions = {},
): Promise<DashboardHarness> {
  const t = await startTestApp({
    kind,
    workers: true,
    realClock: true,
    pipeline: { simulatedLabStepSeconds: 0.2, downloadRetryBaseSeconds: 0.05 },
    ...options,
  })
  const urls = await listenOnLoopback(t)
  // One Chromium for every harness of the process (each database kind has its own harness): starting it costs
  // more than most tests.
  const { browser, release } = await acquireBrowser()
  let session: BrowserContext | undefined
  const sandboxPages = new Map<Viewport, Page>()
  return {
    t,
    browser,
    urls,
    async sandboxPage(viewport = 'desktop', path = ORDERS_PATH) {
      session ??= await newContext(browser)
      let page = sandboxPages.get(viewport)
      if (page === undefined) {
        page = await session.newPage()
        await setViewport(page, viewport)
        const signedIn = sandboxPages.size > 0
        sandboxPages.set(viewport, page)
        if (!signedIn) {
          await signIn(page, urls.sandbox, t.account.sandboxKey)
          if (path === ORDERS_PATH) return page
        }
      }
      // Straight to the test's page: each navigation, with its page's scripts and styles, costs the browser a
      // few tenths of a CPU-second.
      await page.goto(`${urls.sandbox}${path}`)
      return page
    },
    async placeOrder(overrides = {}) {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json' },
        payload: sampleOrder({
          items: [
            {
              sku: PHONE_CASE,
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ printArea: 'default', url: `${urls.sandbox}/samples/landscape.jpg` }],
            },
          ],
          ...overrides,
        }),
      })
      if (response.statusCode !== 200) throw new Error(`order refused: ${response.body}`)
      return json(response).order.id as string
    },
    async close() {
      await session?.close()
      await release()
      await t.close()
    },
  }
}
