// A claim made from the dashboard in a real browser (docs/claims.md): a delivered Sandbox order's page offers
// "Report a problem"; the form uploads the chosen photo to the evidence endpoint with the session, makes the claim,
// and lands on the claim's page showing the photo; the Claims page lists it; withdrawing it works. Desktop and
// phone width, checked with axe-core.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { assertAccessible, assertImagesLoaded, screenshotForDocs } from '../support/browser.ts'
import { photoJpeg } from '../support/claims-h4.fixture.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('browser')

for (const kind of databaseKinds) {
  describe(`dashboard claims (${kind})`, () => {
    let h: DashboardHarness
    let dir: string
    before(async () => {
      h = await startDashboardHarness(kind)
      dir = mkdtempSync(join(tmpdir(), 'printroute-claim-photo-'))
    })
    after(async () => {
      await h.close()
      rmSync(dir, { recursive: true, force: true })
    })

    test('report a problem with a photo from the order page, see the claim, list it, withdraw it', async () => {
      const orderId = await h.placeOrder()
      await waitFor(
        'the order delivered by the simulated lab',
        async () => {
          const order = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return order.shipments[0]?.deliveryStatus === 'Delivered' ? true : undefined
        },
        60_000,
      )
      const photo = join(dir, 'photo.jpg')
      writeFileSync(photo, await photoJpeg())

      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}`)
      await page.getByRole('link', { name: 'Report a problem' }).click()
      await page.waitForURL(/report-problem$/)
      await assertAccessible(page, 'report a problem')
      await page.selectOption('#claim-category', 'Damaged')
      await page.fill('#claim-description', 'The case is cracked')
      await page.setInputFiles('#claim-photos', photo)
      await page.locator('[data-photo-status]').filter({ hasText: 'ready' }).waitFor()
      await screenshotForDocs(page, 'claim-report')
      await page.screenshot({ path: join(tmpdir(), 'h4-claim-report-desktop.png'), fullPage: true })
      await page.getByRole('button', { name: 'Report the problem' }).click()
      await page.waitForURL(/\/dashboard\/claims\/clm_\d+$/)
      const claimId = page.url().split('/').at(-1) as string
      assert.match(await page.locator('main').innerText(), /The case is cracked/)
      assert.equal(await assertImagesLoaded(page), 1, 'the photo is shown')
      await assertAccessible(page, 'a claim')
      await screenshotForDocs(page, 'claim')
      await page.screenshot({ path: join(tmpdir(), 'h4-claim-desktop.png'), fullPage: true })

      const phone = await h.sandboxPage('phone', `/dashboard/claims/${claimId}`)
      await phone.screenshot({ path: join(tmpdir(), 'h4-claim-phone.png'), fullPage: true })
      await phone.goto(`${h.urls.sandbox}/dashboard/claims`)
      assert.match(await phone.locator('table.claims').innerText(), new RegExp(claimId))
      await assertAccessible(phone, 'claims list at phone width')
      await phone.screenshot({ path: join(tmpdir(), 'h4-claims-phone.png'), fullPage: true })

      await page.getByRole('button', { name: 'Withdraw this claim' }).click()
      await page.waitForURL(new RegExp(`/dashboard/claims/${claimId}$`))
      assert.match(await page.locator('main').innerText(), /withdrawn/)
      const stored = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/claims/${claimId}` })).claim
      assert.equal(stored.status, 'Retracted')
      assert.equal(stored.items[0].evidence.length, 1)
    })
  })
}
