// The API reference at /docs (swagger-ui from node_modules, no CDN) in a real Chromium: it lists the
// operations of the environment's OpenAPI document, and try-it with a pasted key reads an order. With
// PRINTROUTE_SCREENSHOTS=1 it saves docs/reference/sandbox-reference.png.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { acquireBrowser, newContext } from '../support/browser.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('browser')

let t: TestApp
let base: { live: string; sandbox: string }
let browser: Browser
let releaseBrowser: (() => Promise<void>) | undefined

before(async () => {
  t = await startTestApp()
  base = await listenOnLoopback(t)
  ;({ browser, release: releaseBrowser } = await acquireBrowser())
})
after(async () => {
  await releaseBrowser?.()
  await t?.close()
})

test('/docs lists the operations and try-it with a pasted key gets an order', async () => {
  const orderId = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() })).order.id
  const page = await (await newContext(browser)).newPage()
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  page.on('requestfailed', (request) => problems.push(`failed ${request.url()}`))
  // Everything the page loads comes from this server.
  page.on('request', (request) => {
    if (!request.url().startsWith(base.sandbox)) problems.push(`outside request ${request.url()}`)
  })
  const response = await page.goto(`${base.sandbox}/docs`)
  assert.match(String(response?.headers()['content-security-policy']), /script-src 'self'/)
  const getOrder = page.locator('#operations-orders-getOrder')
  await getOrder.waitFor({ timeout: 20_000 })
  assert.ok((await page.locator('.opblock').count()) >= 20, 'operations listed')

  await page.getByRole('button', { name: 'Authorize' }).first().click()
  await page.locator('.modal-ux input').first().fill(t.account.sandboxKey)
  await page.locator('.auth-btn-wrapper button.authorize').first().click()
  await page.locator('button.btn-done').first().click()

  await getOrder.locator('.opblock-summary').click()
  await getOrder.locator('button.try-out__btn').click()
  await getOrder.locator('input[placeholder="orderId"]').fill(orderId)
  await getOrder.locator('button.execute').click()
  const body = getOrder.locator('.live-responses-table .response .microlight').first()
  await body.waitFor({ timeout: 15_000 })
  const shown = JSON.parse(await body.innerText())
  assert.equal(shown.outcome, 'Ok')
  assert.equal(shown.order.id, orderId)
  assert.deepEqual(problems, [])
  if (process.env.PRINTROUTE_SCREENSHOTS === '1') {
    await page.screenshot({ path: join(import.meta.dirname, '..', '..', 'docs', 'reference', 'sandbox-reference.png') })
  }
})
