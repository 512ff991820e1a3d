// The operator console in a real browser, as an operator uses it: signing in with an operator token (a wrong one
// refused), the accounts list and its search, creating an account (its keys shown once), an account's page with a
// top-up, suspension and reactivation, signing out; accessible (axe-core), and usable at phone width (nothing wider
// than the screen). The screenshots in docs/admin.md come from here (`npm run docs:screenshots`).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import {
  acquireBrowser,
  assertAccessible,
  assertWithinViewport,
  newContext,
  screenshotForDocs,
  type Viewport,
} from '../support/browser.ts'
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

const CLI = { kind: 'cli', host: 'ops-host', user: 'ops' } as const

for (const kind of databaseKinds) {
  describe(`operator console in the browser (${kind})`, () => {
    let t: TestApp
    let browser: Browser
    let release: (() => Promise<void>) | undefined
    let live: string
    let token: string
    let prepaidId: string

    before(async () => {
      t = await startTestApp({ kind, realClock: true })
      live = (await listenOnLoopback(t)).live
      ;({ browser, release } = await acquireBrowser())
      token = (await t.app.services.operators.createOperator('Dana Ops', CLI)).token
      // A few accounts to list: one prepaid with a top-up, one suspended.
      const prepaid = await t.createAccount({ billingMode: 'prepaid' })
      prepaidId = prepaid.id
      await t.app.services.payments.topUp(Number(prepaid.id.slice(4)), 12_000n, 'BACS 1001', CLI)
      const suspended = await t.app.services.accounts.createAccount(
        {
          name: 'Closed Shop Ltd',
          billingCurrency: 'EUR',
          pauseWindowSeconds: 0,
          callbackUrl: 'https://closed.example.com/hooks',
        },
        CLI,
      )
      await t.app.services.accounts.suspendAccount(suspended.account.id, 'Chargebacks', CLI)
    })
    after(async () => {
      await release?.()
      await t?.close()
    })

    /** The page's width as laid out: at phone width nothing may be wider than the screen. */
    const assertFitsWidth = async (page: Page, label: string) => {
      const widths = (await page.evaluate(
        '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
      )) as [number, number]
      const widest = await page.evaluate(
        "[...document.querySelectorAll('main *')].filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth).slice(0, 5).map((element) => element.tagName + '.' + element.className + ' ' + Math.round(element.getBoundingClientRect().right))",
      )
      assert.ok(
        widths[0] <= widths[1],
        `${label}: the page is ${widths[0]}px wide on a ${widths[1]}px screen: ${JSON.stringify(widest)}`,
      )
    }

    async function signedIn(viewport: Viewport = 'desktop'): Promise<Page> {
      const context = await newContext(browser, viewport)
      const page = await context.newPage()
      await page.goto(`${live}/admin/`)
      await page.getByLabel('Operator token').fill(token)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(/\/admin\/accounts$/)
      return page
    }

    test('a wrong token is refused; the right one signs in; sign out ends the session', async () => {
      const context = await newContext(browser)
      const page = await context.newPage()
      await page.goto(`${live}/admin/`)
      await page.waitForURL(/\/admin\/sign-in/)
      await assertAccessible(page, 'the sign-in page')
      await screenshotForDocs(page, 'sign-in', 'admin')
      await page.getByLabel('Operator token').fill('pr_operator_not-a-token')
      await page.getByRole('button', { name: 'Sign in' }).click()
      assert.match(await page.getByRole('alert').innerText(), /not valid: it is unknown or has been revoked/)
      await page.getByLabel('Operator token').fill(token)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(/\/admin\/accounts$/)
      const cookies = await context.cookies()
      const session = cookies.find((cookie) => cookie.name === 'printroute_admin_session')
      assert.ok(session, 'a session cookie')
      assert.deepEqual([session.httpOnly, session.path, session.sameSite], [true, '/admin', 'Strict'])
      assert.ok(!session.value.includes(token.slice(12)))
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(/\/admin\/sign-in/)
      assert.match(await page.getByRole('status').innerText(), /You are signed out/)
      await page.goto(`${live}/admin/accounts`)
      await page.waitForURL(/\/admin\/sign-in\?next=/)
      await context.close()
    })

    test('the accounts list, its search, and creating an account that shows its keys once', async () => {
      const page = await signedIn()
      assert.match(await page.locator('main').innerText(), /Closed Shop Ltd\s+Suspended/)
      await assertAccessible(page, 'the accounts list')
      await screenshotForDocs(page, 'accounts', 'admin')
      await page.getByLabel('Search by account ID or name').fill('closed')
      await page.getByRole('button', { name: 'Search' }).click()
      await page.waitForURL(/\?q=closed/)
      assert.equal(await page.locator('table.accounts tbody tr').count(), 1)

      await page.getByLabel('Name', { exact: true }).fill('Northern Prints')
      await page.getByLabel('Billing mode').selectOption('prepaid')
      await page.getByRole('button', { name: 'Create the account' }).click()
      await page.getByRole('heading', { name: /The new keys of acc_\d+/ }).waitFor()
      const liveKey = await page.locator('code.new-key[data-environment="live"]').innerText()
      assert.match(liveKey, /^pr_live_/)
      assert.match(await page.getByRole('status').innerText(), /Created acc_\d+ \(Northern Prints\)/)
      await assertAccessible(page, 'a new account with its keys')
      await screenshotForDocs(page, 'account-created', 'admin')
      const accountId = /Created (acc_\d+)/.exec(await page.getByRole('status').innerText())?.[1]
      await page.goto(`${live}/admin/accounts/${accountId}`)
      assert.equal(await page.locator('code.new-key').count(), 0, "shown once: the account's page shows prefixes only")
      assert.equal(await page.locator('table.keys tbody tr').count(), 2)
      await page.context().close()
    })

    test("an account's page: a top-up, suspension with a reason, reactivation", async () => {
      const page = await signedIn()
      await page.goto(`${live}/admin/accounts/${prepaidId}`)
      assert.match(await page.locator('main').innerText(), /120\.00 GBP/)
      await page.getByLabel('Amount in GBP').fill('30.00')
      await page.getByLabel(/^Reference/).fill('BACS 1002')
      await page.getByRole('button', { name: 'Top up' }).click()
      assert.match(await page.getByRole('status').innerText(), /the balance is 150\.00 GBP/)
      assert.equal(await page.locator('table.ledger tbody tr').count(), 2)
      await assertAccessible(page, "an account's page")
      await screenshotForDocs(page, 'account', 'admin')

      await page.getByLabel(/^Reason/).fill('Card disputes under review')
      await page.getByRole('button', { name: 'Suspend the account' }).click()
      assert.match(await page.getByRole('status').innerText(), /Suspended acc_\d+: its keys answer 403/)
      assert.match(await page.locator('main').innerText(), /Card disputes under review/)
      await assertAccessible(page, 'a suspended account')
      await screenshotForDocs(page, 'account-suspended', 'admin')
      await page.getByRole('button', { name: 'Reactivate the account' }).click()
      assert.match(await page.getByRole('status').innerText(), /Reactivated/)
      await page.context().close()
    })

    test('at phone width the list and an account fit the screen, accessible', async () => {
      const page = await signedIn('phone')
      await assertFitsWidth(page, 'the accounts list')
      // Each account's id, name, status and balance on screen; billing and creation are on its page.
      const account = page.locator('table.accounts tbody tr', { hasText: prepaidId })
      await assertWithinViewport(
        account.locator('th, td:nth-of-type(1), td:nth-of-type(2), td:nth-of-type(4)'),
        'the account',
      )
      await assertAccessible(page, 'the accounts list at phone width')
      await screenshotForDocs(page, 'accounts-phone', 'admin')
      await page.goto(`${live}/admin/accounts/${prepaidId}`)
      await assertFitsWidth(page, "an account's page")
      // A key's prefix, status and Revoke on screen.
      await assertWithinViewport(
        page.locator('table.keys tbody tr').first().locator('th, td:nth-of-type(3), td:nth-of-type(4) button'),
        'the key',
      )
      await assertAccessible(page, "an account's page at phone width")
      await screenshotForDocs(page, 'account-phone', 'admin')
      await page.context().close()
    })
  })
}
