// A claim's page of the console (docs/admin.md#claims) in Chromium, signed in through the console itself, at desktop
// and phone width: its photos loaded (served by the console's own route under its content security policy), the lab's
// answer, the decision form; accessible (axe-core) and nothing wider than the screen. A Reprint decided from the form
// lands back on the page with the decision. The queue paged by its cursor, its status, category and lab filters kept
// on every page; its rows as cards at phone width. The screenshots in docs/admin.md come from here
// (`npm run docs:screenshots`).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'
import { CLAIMS_PAGE_SIZE } from '../../src/web/operator/claims.pages.ts'
import {
  acquireBrowser,
  assertAccessible,
  assertImagesLoaded,
  assertWithinViewport,
  newContext,
  screenshotForDocs,
  setViewport,
  type Viewport,
} from '../support/browser.ts'
import { insertClaim } from '../support/claims-lab.fixture.ts'
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

    test('the queue pages by cursor with its filters kept; at desktop and phone width', async () => {
      const claim = (await t.app.services.claimResolution.show(claimId)) as NonNullable<
        Awaited<ReturnType<typeof t.app.services.claimResolution.show>>
      >
      const item = claim.items[0] as { itemId: string; shipmentId: string }
      // More claims than a page holds on the same item (each item's claim closed before the next is made, as a
      // decision closes it), one in six PrintDefect against another lab: the rest fill more than a page too.
      const made: { id: string; category: string; labCode: string }[] = []
      for (let index = 0; index < CLAIMS_PAGE_SIZE + 15; index++) {
        await t.database.db.query('UPDATE claim_items SET open = false')
        const other = index % 6 === 0
        const view = await insertClaim(t.database.db, {
          orderId: claim.orderId,
          labCode: other ? 'us1' : 'uk6',
          items: [{ ...item, category: other ? 'PrintDefect' : 'Damaged', description: `claim ${index}` }],
          at: new Date(Date.parse('2026-03-10T00:00:00Z') + index * 60_000),
        })
        made.push({ id: view.id, category: other ? 'PrintDefect' : 'Damaged', labCode: other ? 'us1' : 'uk6' })
      }

      // Every Pending claim over the pages, each once, in the queue's order (oldest first): the claims made here,
      // and the first one unless a test above decided it.
      const pending = (await t.app.services.claimResolution.list({ status: 'Pending' })).map((entry) => entry.id)
      assert.deepEqual(
        pending.filter((id) => made.some((entry) => entry.id === id)),
        made.map((entry) => entry.id),
      )
      // The first claim is Damaged against uk6 too.
      const wanted = pending.filter(
        (id) =>
          id === claimId ||
          made.some((entry) => entry.id === id && entry.category === 'Damaged' && entry.labCode === 'uk6'),
      )
      assert.ok(wanted.length > CLAIMS_PAGE_SIZE && wanted.length < CLAIMS_PAGE_SIZE * 2)
      const page = await open('/claims?status=Pending', 'desktop')
      try {
        const rows = () =>
          page.locator('tr[data-claim]').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-claim')))
        const first = await rows()
        assert.equal(first.length, CLAIMS_PAGE_SIZE)
        assert.deepEqual(first, pending.slice(0, CLAIMS_PAGE_SIZE))
        await page.getByRole('link', { name: 'Next' }).click()
        await page.waitForURL((url) => url.searchParams.has('after'))
        assert.equal(new URL(page.url()).searchParams.get('status'), 'Pending', 'the status is kept')
        assert.deepEqual(await rows(), pending.slice(CLAIMS_PAGE_SIZE))
        assert.equal(await page.getByRole('link', { name: 'Next' }).count(), 0, 'the last page')

        // Category and lab from the form, kept across pages too.
        await page.getByRole('link', { name: 'First page' }).click()
        await page.getByLabel('Category').selectOption('Damaged')
        await page.getByLabel('Lab').fill('uk6')
        await page.getByRole('button', { name: 'Filter' }).click()
        await page.waitForURL((url) => url.searchParams.get('category') === 'Damaged')
        const seen = await rows()
        await assertAccessible(page, 'claims queue (desktop)')
        await page.getByRole('link', { name: 'Next' }).click()
        await page.waitForURL((url) => url.searchParams.has('after'))
        const next = new URL(page.url()).searchParams
        assert.deepEqual([next.get('status'), next.get('category'), next.get('lab')], ['Pending', 'Damaged', 'uk6'])
        seen.push(...(await rows()))
        assert.deepEqual(seen, wanted, 'the Damaged claims against uk6, each once')
        await screenshotForDocs(page, 'claims-queue', 'admin')

        // A short page at phone width: the other lab's claims after the first page of every Pending one.
        await setViewport(page, 'phone')
        await page.goto(`${live}/admin/claims?status=Pending&lab=us1&after=pending.${pending[CLAIMS_PAGE_SIZE - 1]}`)
        assert.equal(await page.locator('tr[data-claim]').count(), 2)
        await assertWithinViewport(page.locator('tr[data-claim] :is(th, td)'), 'the queue cells')
        const overflow = (await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        )) as number
        assert.ok(overflow <= 1, `the queue is ${overflow} px wider than the screen`)
        await assertAccessible(page, 'claims queue (phone)')
        await screenshotForDocs(page, 'claims-queue-phone', 'admin')
      } finally {
        await page.context().close()
      }
    })
  })
}
