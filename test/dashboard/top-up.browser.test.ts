// The Billing page's Top up (docs/dashboard.md#billing): a Live prepaid account types an amount, is sent to Stripe
// Checkout (the stand-in's page), pays, comes back to printroute's page, and the balance shows the top-up once the
// webhook's job has counted it. Desktop and phone width, checked with axe-core.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { STRIPE_WEBHOOK_PATH } from '../../src/http/routes/payment-webhooks.routes.ts'
import { assertAccessible, newContext, screenshotForDocs, setViewport, signIn } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { gatewayOnStandIn, type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('browser')

for (const kind of databaseKinds) {
  describe(`dashboard top-up (${kind})`, () => {
    let h: DashboardHarness
    let standIn: StripeStandIn
    // Where the stand-in's Pay button sends the webhook: the Live port, known once the harness listens.
    const standInOptions: { webhookEndpoint?: string } = {}
    before(async () => {
      standIn = await startStripeStandIn(standInOptions)
      const paymentGateway = gatewayOnStandIn(standIn)
      h = await startDashboardHarness(kind, { paymentGateway })
      standInOptions.webhookEndpoint = `${h.urls.live}${STRIPE_WEBHOOK_PATH}`
    })
    after(async () => {
      await h.close()
      await standIn.close()
    })

    test('a prepaid account tops up on Stripe Checkout from the Billing page; the balance shows it', async () => {
      const account = await h.t.createAccount({ billingMode: 'prepaid' })
      const context = await newContext(h.browser)
      try {
        const page = await context.newPage()
        await signIn(page, h.urls.live, account.liveKey)
        for (const viewport of ['desktop', 'phone'] as const) {
          await setViewport(page, viewport)
          await page.goto(`${h.urls.live}/dashboard/billing`)
          const form = page.locator('section.top-up')
          assert.equal(await form.count(), 1, 'a Live prepaid account is offered Top up')
          await page.getByLabel('Amount (GBP)').fill('250.00')
          await assertAccessible(page, `billing with Top up (${viewport})`)
          await screenshotForDocs(page, `billing-top-up-${viewport}`)
        }
        await setViewport(page, 'desktop')
        await page.getByRole('button', { name: 'Top up' }).click()
        const pay = page.getByRole('link', { name: 'Pay 250.00 GBP by card' })
        await assertAccessible(page, 'top-up ready to pay')
        await screenshotForDocs(page, 'billing-top-up-ready-desktop')
        await pay.click()
        // printroute's link sends the payer on to Checkout.
        await page.waitForURL(`${standIn.url}/c/pay/**`)
        await page.getByRole('button', { name: /Pay 25000 gbp/ }).click()
        await page.waitForURL(`${h.urls.live}/payments/top-ups/**`)
        assert.match(await page.locator('body').innerText(), /Paid: 250\.00 GBP was added|being confirmed/)
        // The webhook's job counts it: the API shows the balance, then the page does.
        await waitFor(
          'the top-up counted',
          async () => {
            const answer = await h.t.live({ method: 'GET', url: '/v4.0/account/billing' }, account.liveKey)
            return json(answer).billing.balance?.amount === '250.00' ? true : undefined
          },
          30_000,
        )
        await page.goto(`${h.urls.live}/dashboard/billing`)
        const balance = await page.locator('[data-balance]').innerText()
        assert.match(balance, /250\.00/)
        // The Sandbox dashboard offers no Top up: the Sandbox never bills.
        const sandbox = await h.sandboxPage('desktop', '/dashboard/billing')
        assert.equal(await sandbox.locator('section.top-up').count(), 0)
      } finally {
        await context.close()
      }
    })
  })
}
