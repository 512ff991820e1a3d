// The lab portal's Claims pages in a real browser: the claims against the lab's work with the merchant's photo (served
// through the portal's session), the lab's quality rate, a claim answered (dispute with a comment and a photo of the
// lab's own, uploaded by the form's script with the session) and shown answered; usable and accessible at desktop and
// phone width, the answer form within a phone's width.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import {
  assertAccessible,
  assertImagesLoaded,
  assertWithinViewport,
  newContext,
  screenshotForDocs,
} from '../support/browser.ts'
import { insertClaim, insertMerchantEvidence } from '../support/claims-lab.fixture.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { solidJpeg } from '../support/image-server.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { json, sampleOrder } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('browser')

const PORTAL = '/labs/portal'
/** Where the screenshots are written to be looked at (not the docs' folder). */
const SHOTS = process.env.PRINTROUTE_CLAIMS_SHOTS

for (const kind of databaseKinds) {
  describe(`lab portal claims (${kind})`, () => {
    let h: DashboardHarness

    let dir: string

    before(async () => {
      h = await startDashboardHarness(kind)
      dir = mkdtempSync(join(tmpdir(), 'printroute-lab-photo-'))
    })
    after(async () => {
      await h.close()
      rmSync(dir, { recursive: true, force: true })
    })

    test('the lab sees its claims with photos and answers one; at desktop and phone width', async () => {
      const response = await h.t.live({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json' },
        payload: sampleOrder({
          items: [0, 1].map(() => ({
            sku: PHONE_CASE,
            copies: 1,
            sizing: 'fillPrintArea',
            assets: [{ printArea: 'default', url: `${h.urls.live}/samples/landscape.jpg` }],
          })),
        }),
      })
      assert.equal(response.statusCode, 200, response.body)
      const orderId = json(response).order.id as string
      const order = await waitFor(
        'the order allocated',
        async () => {
          const current = json(await h.t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return current.shipments[0] ? current : undefined
        },
        60_000,
      )
      const shipment = order.shipments[0]
      const labCode = shipment.fulfillmentLocation.labCode as string
      const labKey = (await h.t.app.services.labs.createLabKey(labCode, TEST_ACTOR)).key
      const photo = await solidJpeg(320, 240, { r: 180, g: 40, b: 40 })
      await h.t.app.services.files.put('claim-evidence/browser-photo', photo.body, 'image/jpeg')
      const evidence = await insertMerchantEvidence(
        h.t.database.db,
        orderId,
        'claim-evidence/browser-photo',
        new Date(),
      )
      const claim = await insertClaim(h.t.database.db, {
        orderId,
        labCode,
        items: [
          {
            itemId: order.items[0].id,
            shipmentId: shipment.id,
            category: 'PrintDefect',
            description: 'The colours are washed out on the left half',
            evidence: [evidence],
          },
        ],
        at: new Date(),
      })
      // Left unanswered: its answer form is looked at on a phone.
      const unanswered = await insertClaim(h.t.database.db, {
        orderId,
        labCode,
        items: [
          {
            itemId: order.items[1].id,
            shipmentId: order.shipments.find((candidate: { items: { itemId: string }[] }) =>
              candidate.items.some((item) => item.itemId === order.items[1].id),
            ).id,
            category: 'Damaged',
            description: 'Scratched across the back',
          },
        ],
        at: new Date(),
      })
      const labPhoto = join(dir, 'packing.jpg')
      writeFileSync(labPhoto, (await solidJpeg(320, 240, { r: 40, g: 120, b: 40 })).body)

      for (const viewport of ['desktop', 'phone'] as const) {
        const context = await newContext(h.browser, viewport)
        const page = await context.newPage()
        await page.goto(`${h.urls.live}${PORTAL}/`)
        await page.getByLabel('Lab key').fill(labKey)
        await page.getByRole('button', { name: 'Sign in' }).click()
        await page.waitForURL(/\/labs\/portal\/jobs/)
        await page.getByRole('link', { name: 'Claims' }).first().click()
        await page.waitForURL(/\/labs\/portal\/claims$/)
        const row = page.locator(`tr[data-claim="${claim.id}"]`)
        await row.waitFor()
        assert.match(await row.innerText(), /PrintDefect/)
        assert.match(await row.innerText(), /washed out/)
        assert.ok((await assertImagesLoaded(page)) >= 1, "the merchant's photo shows")
        assert.match(await page.locator('[data-quality]').innerText(), /per 1,000 items|no items shipped/)
        await assertAccessible(page, `lab portal claims (${viewport})`)
        if (SHOTS) await page.screenshot({ path: `${SHOTS}/claims-${viewport}.png`, fullPage: true })

        await row.getByRole('link', { name: claim.id }).click()
        await page.waitForURL(new RegExp(`/labs/portal/claims/${claim.id}$`))
        if (viewport === 'desktop') {
          await page.getByLabel('Dispute: the fault is not ours').check()
          await page.getByLabel('Comment').fill('The file itself is washed out on that side')
          // The lab's own photo, uploaded by the form's script to the portal with the session.
          await page.getByLabel(/^Photos/).setInputFiles(labPhoto)
          await page.locator('[data-photo-status]').filter({ hasText: '1 photo ready' }).waitFor()
          await screenshotForDocs(page, 'portal-claim-answer', 'labs')
          if (SHOTS) await page.screenshot({ path: `${SHOTS}/claim-${viewport}.png`, fullPage: true })
          await page.getByRole('button', { name: 'Send the answer' }).click()
          await page.getByText('Answered: disputed.').waitFor()
        }
        assert.match(await page.locator('main').innerText(), /Disputed: The file itself is washed out on that side/)
        // The merchant's photo and the lab's own.
        assert.equal(await assertImagesLoaded(page), 2, "the merchant's photo and the lab's")
        await assertAccessible(page, `lab portal claim (${viewport})`)
        if (SHOTS && viewport === 'phone') {
          await page.screenshot({ path: `${SHOTS}/claim-${viewport}.png`, fullPage: true })
        }
        if (viewport === 'phone') {
          await page.goto(`${h.urls.live}${PORTAL}/claims/${unanswered.id}`)
          await assertWithinViewport(
            page.locator('form.claim-answer').locator('textarea, input[type="file"], button'),
            'the answer form',
          )
          await assertAccessible(page, 'lab portal answer form (phone)')
          await screenshotForDocs(page, 'portal-phone-claim-answer', 'labs')
        }
        await context.close()
      }
      const stored = json(
        await h.t.live({ method: 'GET', url: `/labs/v1/claims/${claim.id}`, headers: { 'x-api-key': labKey } }),
      )
      assert.equal(stored.claim.answer.answer, 'Disputed')
      assert.equal(stored.claim.answer.photos.length, 1, "the lab's photo is named in its answer")
    })
  })
}
