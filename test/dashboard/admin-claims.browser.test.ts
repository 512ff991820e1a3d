// A claim's page of the console (docs/admin.md#claims) in Chromium, signed in through the console itself, at desktop
// and phone width: its photos loaded (served by the console's own route under its content security policy), the lab's
// answer, the decision form; accessible (axe-core) and nothing wider than the screen. A Reprint decided from the form
// lands back on the page with the decision. The screenshots in docs/admin.md come from here (`npm run docs:screenshots`).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'
import {
  acquireBrowser,
  assertAccessible,
  assertImagesLoaded,
  newContext,
  screenshotForDocs,
  type Viewport,
} from '../support/browser.ts'
import { answerClaimAsLab, makeClaim } from '../support/claims-resolve.fixture.ts'
import { shippedOrder } from '../support/shipped-order.ts'
import { listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

const CLI = { kind: 'cli', host: 'ops-host', user: 'ops' } as const

for (const kind of databaseKinds) {
  describe(`a claim's page in the console, in Chromium (${kind})`, () => {
    let t: TestApp
    let browser: Browser
    let release: () => Promise<void>
    let live = ''
    let token = ''
    let claimId = ''

    before(async () => {
      t = await startTestApp({ kind })
      live = (await listenOnLoopback(t)).live
      token = (await t.app.services.operators.createOperator('Dana Ops', CLI)).token
      const shipped = await shippedOrder(
        t,
        sampleOrder({
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
      )
      const photo = (colour: string) =>
        sharp({ create: { width: 640, height: 480, channels: 3, background: colour } })
          .jpeg()
          .toBuffer()
      const claim = await makeClaim(t, {
        orderId: shipped.orderId,
        items: [
          {
            itemId: shipped.itemId,
            category: 'Damaged',
            description: 'The canvas arrived with its top left corner crushed and the frame cracked.',
            photos: [await photo('#b33'), await photo('#369')],
          },
        ],
        preferredResolution: 'Reprint',
      })
      claimId = claim.id
      await answerClaimAsLab(t.database.db, claimId, 'Disputed', 'It left us in perfect shape; the box was crushed.')
      ;({ browser, release } = await acquireBrowser())
    })
    after(async () => {
      await release?.()
      await t.close()
    })

    async function open(path: string, viewport: Viewport): Promise<Page> {
      const context = await newContext(browser, viewport)
      const page = await context.newPage()
      await page.goto(`${live}/admin/sign-in?next=${encodeURIComponent(`/admin${path}`)}`)
      await page.getByLabel('Operator token').fill(token)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL((url) => url.pathname === `/admin${path.split('?')[0]}`)
      return page
    }

    for (const viewport of ['phone', 'desktop'] as const) {
      test(`the claim's page at ${viewport} width: photos, the lab's answer, the decision form`, async () => {
        const page = await open(`/claims/${claimId}`, viewport)
        try {
          assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), `Claim ${claimId}`)
          assert.equal(await assertImagesLoaded(page), 2, 'both photos load')
          assert.match(await page.locator('main').innerText(), /It answered Disputed/)
          await assertAccessible(page, `claim page (${viewport})`)
          const overflow = (await page.evaluate(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          )) as number
          assert.ok(overflow <= 1, `the claim page is ${overflow} px wider than the screen`)
          await screenshotForDocs(page, `claim-${viewport}`, 'admin')
          if (viewport === 'phone') return
          await page.getByRole('radio', { name: /Reprint/ }).check()
          await page.getByLabel(/Note \(shown to the merchant/).fill('Reprinting it at another lab')
          await page.getByRole('button', { name: 'Decide' }).click()
          await page.waitForURL((url) => url.pathname === `/admin/claims/${claimId}`)
          assert.match(await page.locator('main').innerText(), /Resolved Reprint/)
          await assertAccessible(page, 'resolved claim page')
        } finally {
          await page.context().close()
        }
      })
    }
  })
}
