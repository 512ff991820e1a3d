// A claim made from the dashboard in a real browser (docs/claims.md): a delivered Sandbox order's page offers
// "Report a problem"; the form takes two items, each with its category and words, refuses the one missing its photo
// next to its photo field, uploads the chosen photo to the evidence endpoint with the session, makes the claim, and
// lands on the claim's page showing the photo; the Claims page lists it; withdrawing it works. A parcel not
// delivered is offered as missing, its refusal shown beside it. Desktop and phone width, checked with axe-core.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { assertAccessible, assertImagesLoaded, assertWithinViewport, screenshotForDocs } from '../support/browser.ts'
import { photoJpeg } from '../support/claims-h4.fixture.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { json, sampleOrder } from '../support/test-app.ts'
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

    test('report a problem with several items and a photo from the order page, see the claim, list it, withdraw it', async () => {
      const item = (asset: string) => ({
        sku: PHONE_CASE,
        copies: 1,
        sizing: 'fillPrintArea',
        assets: [{ printArea: 'default', url: `${h.urls.sandbox}/samples/${asset}` }],
      })
      const orderId = await h.placeOrder({ items: [item('landscape.jpg'), item('landscape.jpg')] })
      const order = await waitFor(
        'the order delivered by the simulated lab',
        async () => {
          const current = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return current.shipments.length > 0 &&
            current.shipments.every((shipment: { deliveryStatus: string }) => shipment.deliveryStatus === 'Delivered')
            ? current
            : undefined
        },
        60_000,
      )
      const [first, second] = order.items.map((entry: { id: string }) => entry.id) as [string, string]
      const photo = join(dir, 'photo.jpg')
      writeFileSync(photo, await photoJpeg())

      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}`)
      await page.getByRole('link', { name: 'Report a problem' }).click()
      await page.waitForURL(/report-problem$/)
      await assertAccessible(page, 'report a problem')
      assert.equal(await page.getByRole('heading', { name: 'A parcel never arrived' }).count(), 0, 'all delivered')
      // Two items, the first Damaged (photos required) without its photo: refused next to its photos.
      await page.selectOption(`#claim-category-${first}`, 'Damaged')
      await page.fill(`#claim-description-${first}`, 'The case is cracked')
      await page.selectOption(`#claim-category-${second}`, 'Other')
      await page.fill(`#claim-description-${second}`, 'The second case smells of glue')
      await page.getByRole('button', { name: 'Report the problem' }).click()
      await page.locator(`#claim-photos-${first}-error`).waitFor()
      assert.match(await page.locator(`#claim-photos-${first}-error`).innerText(), /needs at least 1/)
      assert.equal(await page.inputValue(`#claim-description-${second}`), 'The second case smells of glue')
      await assertAccessible(page, 'report a problem, refused')
      await screenshotForDocs(page, 'claim-report')

      await page.setInputFiles(`#claim-photos-${first}`, photo)
      await page.locator('[data-photo-status]').filter({ hasText: 'ready' }).waitFor()
      await page.getByRole('button', { name: 'Report the problem' }).click()
      await page.waitForURL(/\/dashboard\/claims\/clm_\d+$/)
      const claimId = page.url().split('/').at(-1) as string
      assert.match(await page.locator('main').innerText(), /The case is cracked[\s\S]*smells of glue/)
      assert.equal(await assertImagesLoaded(page), 1, 'the photo is shown')
      await assertAccessible(page, 'a claim')
      await screenshotForDocs(page, 'claim')
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
      assert.deepEqual(
        stored.items.map((entry: { itemId: string; category: string; evidence: string[] }) => [
          entry.itemId,
          entry.category,
          entry.evidence.length,
        ]),
        [
          [first, 'Damaged', 1],
          [second, 'Other', 0],
        ],
      )
    })

    test('a parcel not delivered is offered as missing; a refusal is shown beside it; fits a phone', async () => {
      const response = await h.t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json', 'x-sandbox-scenario': 'returned' },
        payload: sampleOrder({
          items: [
            {
              sku: PHONE_CASE,
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ printArea: 'default', url: `${h.urls.sandbox}/samples/landscape.jpg` }],
            },
          ],
        }),
      })
      assert.equal(response.statusCode, 200, response.body)
      const orderId = json(response).order.id as string
      const shipmentId = await waitFor(
        'the parcel returned to sender',
        async () => {
          const current = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return current.shipments[0]?.deliveryStatus === 'Returned' ? (current.shipments[0].id as string) : undefined
        },
        60_000,
      )
      const page = await h.sandboxPage('desktop', `/dashboard/orders/${orderId}/report-problem`)
      await page.getByRole('heading', { name: 'A parcel never arrived' }).waitFor()
      await page.fill(`#parcel-${shipmentId}`, 'The tracking stopped a week ago')
      await page.getByRole('button', { name: `Report parcel ${shipmentId} missing` }).click()
      // Its estimated delivery is still ahead: the API's refusal, next to the parcel, the words kept.
      await page.locator(`#parcel-${shipmentId}-error`).waitFor()
      assert.match(await page.locator(`#parcel-${shipmentId}-error`).innerText(), /estimated delivery/)
      assert.equal(await page.inputValue(`#parcel-${shipmentId}`), 'The tracking stopped a week ago')
      await assertAccessible(page, 'a missing parcel refused')
      await screenshotForDocs(page, 'claim-missing-parcel')

      const phone = await h.sandboxPage('phone', `/dashboard/orders/${orderId}/report-problem`)
      await assertWithinViewport(
        phone.locator('main :is(select, textarea, input[type="file"], button)'),
        'the report form fields',
      )
      const overflow = (await phone.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number
      assert.ok(overflow <= 1, `the report page is ${overflow} px wider than the screen`)
      await assertAccessible(phone, 'report a problem at phone width')
      await screenshotForDocs(phone, 'claim-report-phone')
    })
  })
}
