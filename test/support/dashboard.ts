// A printroute for the dashboard's browser tests: both servers listening on 127.0.0.1, the pipeline running
// fast (simulated labs step every 0.2 s), orders placed through the API with the bundled sample images.
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
  const browser = await launchBrowser()
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
      await browser.close()
      await t.close()
    },
  }
}
