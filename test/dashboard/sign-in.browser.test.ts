// Signing in to the dashboard in a real browser: a good key, a wrong key, a key of the other environment,
// signing out; and what the session cookie may and may not do.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { assertAccessible, newContext, screenshotForDocs, signIn } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { testDatabaseKinds } from '../support/databases.ts'

for (const kind of testDatabaseKinds()) {
  describe(`dashboard sign-in (${kind})`, () => {
    let h: DashboardHarness
    before(async () => {
      h = await startDashboardHarness(kind)
    })
    after(() => h.close())

    test('the sign-in page is accessible, and a wrong key is refused with the reason', async () => {
      const context = await newContext(h.browser)
      const page = await context.newPage()
      await page.goto(`${h.urls.sandbox}/dashboard/orders`)
      assert.match(page.url(), /\/dashboard\/sign-in\?next=%2Fdashboard%2Forders$/)
      await assertAccessible(page, 'sign-in')
      await screenshotForDocs(page, 'sign-in')
      await page.getByLabel('API key').fill('pr_sandbox_not-a-real-key')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await assert.doesNotReject(page.getByRole('alert').getByText('That API key is not valid').waitFor())
      const cookies = await context.cookies()
      assert.equal(cookies.length, 0, 'no session for a wrong key')
      await context.close()
    })

    test('a Live key on the Sandbox dashboard says which dashboard takes it', async () => {
      const context = await newContext(h.browser)
      const page = await context.newPage()
      await page.goto(`${h.urls.sandbox}/dashboard/sign-in`)
      await page.getByLabel('API key').fill(h.t.account.liveKey)
      await page.getByRole('button', { name: 'Sign in' }).click()
      const alert = page.getByRole('alert')
      await alert.waitFor()
      assert.match(await alert.innerText(), /That is a Live key, and this is the Sandbox dashboard/)
      assert.ok((await alert.innerText()).includes(`${h.urls.live}/dashboard/`), 'names the Live dashboard')
      await context.close()
    })

    test('a good key signs in with an HttpOnly SameSite=Strict session; the key is not kept; sign out ends it', async () => {
      const context = await newContext(h.browser)
      const page = await context.newPage()
      await signIn(page, h.urls.sandbox, h.t.account.sandboxKey)
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Orders')
      const cookies = await context.cookies()
      assert.equal(cookies.length, 1)
      const [session] = cookies
      assert.equal(session?.name, 'printroute_sandbox_session')
      assert.equal(session?.httpOnly, true)
      assert.equal(session?.sameSite, 'Strict')
      assert.ok(!session?.value.includes(h.t.account.sandboxKey.slice(11)), 'the cookie is not the key')
      const stored = (await page.evaluate(
        'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie',
      )) as string
      assert.ok(!stored.includes('pr_sandbox_'), 'nothing readable by scripts holds the key')

      // The session works for the API too (GET), but a change needs the CSRF token.
      const cookie = `${session?.name}=${session?.value}`
      const list = await fetch(`${h.urls.sandbox}/v4.0/orders`, { headers: { cookie } })
      assert.equal(list.status, 200)
      const cancel = await fetch(`${h.urls.sandbox}/v4.0/orders/ord_1/actions/cancel`, {
        method: 'POST',
        headers: { cookie },
      })
      assert.equal(cancel.status, 401)
      assert.match(((await cancel.json()) as { statusText: string }).statusText, /X-CSRF-Token/)
      // ... and only on its own environment.
      const other = await fetch(`${h.urls.live}/v4.0/orders`, { headers: { cookie } })
      assert.equal(other.status, 401)

      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(/\/dashboard\/sign-in/)
      await assert.doesNotReject(page.getByRole('status').getByText('You are signed out.').waitFor())
      const after = await fetch(`${h.urls.sandbox}/v4.0/orders`, { headers: { cookie } })
      assert.equal(after.status, 401, 'the signed-out session no longer authenticates')
      await page.goto(`${h.urls.sandbox}/dashboard/orders`)
      assert.match(page.url(), /\/dashboard\/sign-in/)
      await context.close()
    })

    test('a form posted from another site is refused (Origin checked, CSRF token required)', async () => {
      const context = await newContext(h.browser)
      const page = await context.newPage()
      await signIn(page, h.urls.sandbox, h.t.account.sandboxKey)
      const orderId = await h.placeOrder({ merchantReference: 'csrf-check' })
      const [session] = await context.cookies()
      const cookie = `${session?.name}=${session?.value}`
      const forged = await fetch(`${h.urls.sandbox}/dashboard/orders/${orderId}/cancel`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:9' },
        body: '',
        redirect: 'manual',
      })
      assert.equal(forged.status, 403)
      const noToken = await fetch(`${h.urls.sandbox}/dashboard/orders/${orderId}/cancel`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: '_csrf=wrong',
        redirect: 'manual',
      })
      assert.equal(noToken.status, 403)
      const order = await h.t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })
      assert.notEqual(JSON.parse(order.body).order.status.stage, 'Cancelled')
      await context.close()
    })
  })
}
