// A printroute for the dashboard's browser tests: both servers listening on 127.0.0.1, the pipeline running
// fast (simulated labs step every 0.2 s), orders placed through the API with the bundled sample images.
import { after } from 'node:test'
import type { Browser } from 'playwright-core'
import { launchBrowser } from './browser.ts'
import type { TestDatabaseKind } from './databases.ts'
import { PHONE_CASE } from './pipeline-driver.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp, type TestAppOptions } from './test-app.ts'

export interface DashboardHarness {
  t: TestApp
  browser: Browser
  urls: { live: string; sandbox: string }
  /** Places a Sandbox order (a phone case from the sample portrait) through the API; returns its id. */
  placeOrder(overrides?: Record<string, unknown>): Promise<string>
  close(): Promise<void>
}

// One Chromium for every harness of a test file (each database kind has its own): starting it costs more
// than most tests, and each test opens its own context, so nothing a test does is seen by the next.
let sharedBrowser: Promise<Browser> | undefined
after(async () => {
  await (await sharedBrowser)?.close()
})

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
  sharedBrowser ??= launchBrowser()
  const browser = await sharedBrowser
  return {
    t,
    browser,
    urls,
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
      await t.close()
    },
  }
}
