// The console's card payments (docs/admin.md#payments) in a real browser: an account's Payments block (its card on
// file, its payments through the provider, refunds to the card, disputes) and an order's dispute banner and card
// payments, from seeded rows; read-only, accessible, and within a phone's width. The screenshots in docs/admin.md come
// from here (`npm run docs:screenshots`).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { acquireBrowser, assertAccessible, newContext, screenshotForDocs, type Viewport } from '../support/browser.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

const CLI = { kind: 'cli', host: 'ops-host', user: 'ops' } as const

for (const kind of databaseKinds) {
  describe(`the console's card payments (${kind})`, () => {
    let t: TestApp
    let browser: Browser
    let release: (() => Promise<void>) | undefined
    let live: string
    let token: string
    let accountId: string
    let orderId: string
    let bareAccountId: string

    before(async () => {
      t = await startTestApp({ kind, realClock: true })
      live = (await listenOnLoopback(t)).live
      ;({ browser, release } = await acquireBrowser())
      token = (await t.app.services.operators.createOperator('Dana Ops', CLI)).token
      const account = await t.createAccount({ billingMode: 'prepaid' })
      accountId = account.id
      bareAccountId = (await t.createAccount({ billingMode: 'prepaid' })).id
      const created = await t.live(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder(),
          headers: { 'content-type': 'application/json' },
        },
        account.liveKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      orderId = json(created).order.id
      const accountNumber = Number(accountId.slice(4))
      const orderNumber = Number(orderId.slice(4))
      const db = t.database.db
      await db.query(
        `INSERT INTO account_payment_methods (account_id, provider, customer_id, payment_method_id, brand, last4,
                                              expiry_month, expiry_year, saved_at, updated_at)
         VALUES ($1, 'stripe', 'cus_1', 'pm_1', 'visa', '4242', 4, 2030, '2026-03-02T10:00:00Z', now())`,
        [accountNumber],
      )
      const payment = await db.query<{ id: number }>(
        `INSERT INTO provider_payments (provider, account_id, order_id, purpose, amount_minor, currency, idempotency_key,
                                        payment_id, status, refunded_minor, created_at, completed_at)
         VALUES ('stripe', $1, $2, 'orderPayment', 4560, 'GBP', 'seed-1', 'pi_seed1', 'succeeded', 500,
                 '2026-03-02T10:05:00Z', '2026-03-02T10:06:00Z') RETURNING id::int AS id`,
        [accountNumber, orderNumber],
      )
      await db.query(
        `INSERT INTO provider_payments (provider, account_id, purpose, amount_minor, currency, idempotency_key,
                                        payment_id, status, created_at, completed_at)
         VALUES ('stripe', $1, 'topUp', 10000, 'GBP', 'seed-2', 'pi_seed2', 'succeeded', '2026-03-03T09:00:00Z',
                 '2026-03-03T09:01:00Z')`,
        [accountNumber],
      )
      await db.query(
        `INSERT INTO provider_refunds (payment, account_id, order_id, amount_minor, currency, idempotency_key,
                                       refund_id, status, reason, created_at, completed_at)
         VALUES ($1, $2, $3, 500, 'GBP', 'seed-refund-1', 're_seed1', 'succeeded', 'refund chg_9 of ${orderId}',
                 '2026-03-04T11:00:00Z', '2026-03-04T11:00:05Z')`,
        [payment[0]?.id, accountNumber, orderNumber],
      )
      await db.query(
        `INSERT INTO provider_disputes (provider, dispute_id, payment, account_id, order_id, payment_id, amount_minor,
                                        currency, reason, status, opened_at, updated_at)
         VALUES ('stripe', 'dp_seed1', $1, $2, $3, 'pi_seed1', 4560, 'GBP', 'fraudulent', 'needs_response',
                 '2026-03-05T08:30:00Z', now())`,
        [payment[0]?.id, accountNumber, orderNumber],
      )
    })
    after(async () => {
      await release?.()
      await t?.close()
    })

    async function signedIn(viewport: Viewport): Promise<Page> {
      const context = await newContext(browser, viewport)
      const page = await context.newPage()
      await page.goto(`${live}/admin/`)
      await page.getByLabel('Operator token').fill(token)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(/\/admin\/accounts$/)
      return page
    }

    const fitsWidth = async (page: Page, label: string) => {
      const [scroll, client] = (await page.evaluate(
        '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
      )) as [number, number]
      assert.ok(scroll <= client, `${label}: the page is ${scroll}px wide on a ${client}px screen`)
    }

    for (const viewport of ['desktop', 'phone'] as const) {
      test(`an account's Payments block and an order's dispute banner (${viewport})`, async () => {
        const page = await signedIn(viewport)
        await page.goto(`${live}/admin/accounts/${accountId}`)
        const block = page.locator('[data-payments]')
        assert.match(await block.locator('[data-card-on-file]').innerText(), /visa ending 4242, expires 04\/2030/)
        const payments = await block.getByRole('table', { name: 'Card payments' }).innerText()
        assert.match(payments, /Order payment \(payment page\)\s+45\.60 GBP\s+succeeded\s+5\.00 GBP/)
        assert.match(payments, new RegExp(orderId))
        assert.match(payments, /Top-up\s+100\.00 GBP\s+succeeded/)
        assert.match(
          await block.getByRole('table', { name: 'Refunds to the card' }).innerText(),
          /5\.00 GBP\s+succeeded/,
        )
        assert.match(
          await block.getByRole('table', { name: 'Disputes' }).innerText(),
          /2026-03-05 08:30 UTC\s+—\s+45\.60 GBP\s+fraudulent\s+needs_response/,
        )
        assert.equal(await block.locator('form, button').count(), 0, 'read-only')
        await assertAccessible(page, `the account's payments (${viewport})`)
        if (viewport === 'phone') await fitsWidth(page, "the account's page")
        await block.scrollIntoViewIfNeeded()
        if (viewport === 'desktop') await screenshotForDocs(block, 'account-payments', 'admin')

        await page.goto(`${live}/admin/orders/${orderId}`)
        const banner = page.locator('[data-dispute-banner]')
        assert.match(await banner.innerText(), /took back 45\.60 GBP \(fraudulent\), status needs_response/)
        const orderPayments = await page.locator('[data-payments]').innerText()
        assert.match(orderPayments, /Order payment \(payment page\)\s+45\.60 GBP\s+succeeded/)
        assert.match(orderPayments, /dp_seed1/)
        await assertAccessible(page, `the order's payments (${viewport})`)
        if (viewport === 'phone') await fitsWidth(page, "the order's page")
        if (viewport === 'desktop') await screenshotForDocs(page, 'order-dispute', 'admin')
        await page.context().close()
      })
    }

    test('an account with a payment but no card on file says so; one without any shows no block', async () => {
      const page = await signedIn('desktop')
      await page.goto(`${live}/admin/accounts/${bareAccountId}`)
      assert.equal(await page.locator('[data-payments]').count(), 0, 'nothing paid through the provider: no block')
      await t.database.db.query(
        `INSERT INTO provider_payments (provider, account_id, purpose, amount_minor, currency, idempotency_key, status,
                                        created_at)
         VALUES ('stripe', $1, 'topUp', 2500, 'GBP', 'seed-bare', 'open', now())`,
        [Number(bareAccountId.slice(4))],
      )
      await page.reload()
      const block = page.locator('[data-payments]')
      assert.match(
        await block.innerText(),
        /Card on file: none saved[\s\S]*Top-up\s+25\.00 GBP\s+open[\s\S]*No refunds to a card\.[\s\S]*No disputes\./,
      )
      await page.context().close()
    })
  })
}
