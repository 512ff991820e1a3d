// The Billing page's card on file (docs/dashboard.md#billing): a Live prepaid account saves a card through the
// Stripe stand-in's setup page (Save a card, Continue, the provider's Save card, back to Billing), sees it as
// brand ···· last4 with its expiry, and removes it. Desktop (1280) and phone (390) width, checked with axe-core.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { PaymentGateway } from '../../src/domain/payment-gateway.ts'
import { assertAccessible, newContext, screenshotForDocs, setViewport, signIn } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { gatewayOnStandIn, type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

for (const kind of databaseKinds) {
  describe(`dashboard card on file (${kind})`, () => {
    let h: DashboardHarness
    let standIn: StripeStandIn
    let gateway: PaymentGateway
    before(async () => {
      standIn = await startStripeStandIn()
      gateway = gatewayOnStandIn(standIn)
      h = await startDashboardHarness(kind, { paymentGateway: gateway })
    })
    after(async () => {
      await h.close()
      await standIn.close()
    })

    test('a prepaid account saves a card on the provider page, sees it, and removes it', async () => {
      const account = await h.t.createAccount({ billingMode: 'prepaid' })
      const context = await newContext(h.browser, 'desktop')
      try {
        const page = await context.newPage()
        await signIn(page, h.urls.live, account.liveKey)
        await page.goto(`${h.urls.live}/dashboard/billing`)
        const block = page.locator('section.card-on-file')
        assert.match(await block.innerText(), /No card saved/)
        await assertAccessible(page, 'billing without a card')

        await block.getByRole('button', { name: 'Save a card' }).click()
        await page.getByRole('link', { name: 'Continue to the card page' }).click()
        await page.waitForURL((url) => url.href.startsWith(`${standIn.url}/c/pay/`))
        const sessionId = new URL(page.url()).pathname.split('/').at(-1) as string
        await page.getByRole('button', { name: 'Save card' }).click()
        await page.waitForURL(`${h.urls.live}/dashboard/billing?card=saved`)
        assert.match(await page.locator('main').innerText(), /Card saved/)

        // The webhook Stripe sends on completion, handed to the card setup's handler as the dispatcher would.
        const session = standIn.sessions.get(sessionId) as Record<string, unknown>
        const signed = standIn.signedEvent('checkout.session.completed', session)
        const event = gateway.verifyWebhook(signed.payload, signed.header)
        if (event.kind !== 'checkoutCompleted') throw new Error(`not a checkout completion: ${event.kind}`)
        await h.t.app.services.savedCards.completeCardSetup(event)

        for (const viewport of ['desktop', 'phone'] as const) {
          await setViewport(page, viewport)
          await page.goto(`${h.urls.live}/dashboard/billing`)
          const card = page.locator('[data-card]')
          assert.equal(await card.innerText(), 'Visa ···· 4242 expires 12/2034')
          assert.equal(await block.getByRole('button', { name: 'Remove' }).count(), 1)
          await assertAccessible(page, `billing with a card (${viewport})`)
          await screenshotForDocs(block, `card-on-file-${viewport}`)
        }

        await block.getByRole('button', { name: 'Remove' }).click()
        await page.waitForURL(`${h.urls.live}/dashboard/billing`)
        assert.match(await page.locator('main').innerText(), /Card removed/)
        assert.equal(await block.getByRole('button', { name: 'Save a card' }).count(), 1)
      } finally {
        await context.close()
      }
    })

    test('no card block for an invoice account, nor on the Sandbox dashboard', async () => {
      const page = await h.sandboxPage('desktop', '/dashboard/billing')
      assert.equal(await page.locator('section.card-on-file').count(), 0)
      const context = await newContext(h.browser, 'desktop')
      try {
        const live = await context.newPage()
        await signIn(live, h.urls.live, h.t.account.liveKey)
        await live.goto(`${h.urls.live}/dashboard/billing`)
        assert.equal(await live.locator('section.card-on-file').count(), 0)
      } finally {
        await context.close()
      }
    })
  })
}
