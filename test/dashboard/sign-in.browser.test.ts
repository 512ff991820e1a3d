// Signing in to the dashboard in a real browser: a good key, a wrong key, a key of the other environment,
// signing out; and what the session cookie may and may not do.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { assertAccessible, newContext, screenshotForDocs, signIn } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

for (const kind of databaseKinds) {
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

    test('a form on another site cannot sign the user out: the session and its cookie stay', async (t) => {
      const context = await newContext(h.browser)
      t.after(() => context.close())
      const page = await context.newPage()
      await signIn(page, h.urls.sandbox, h.t.account.sandboxKey)
      const [session] = await context.cookies()
      assert.ok(session)
      // Another origin of this machine (localhost, where the dashboard is 127.0.0.1: another site to the
      // browser) whose page posts a sign-out form as soon as it loads, with a guessed token.
      const signOutUrl = `${h.urls.sandbox}/dashboard/sign-out`
      const attacker = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        response.end(
          `<!doctype html><form method="post" action="${signOutUrl}"><input type="hidden" name="_csrf" value="guess"></form>` +
            '<script>document.forms[0].submit()</script>',
        )
      })
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
      t.after(() => new Promise<void>((resolve) => attacker.close(() => resolve())))
      const attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`
      const posted = page.waitForResponse((response) => response.url() === signOutUrl)
      await page.goto(attackerUrl)
      const answer = await posted
      assert.equal(answer.request().method(), 'POST')
      assert.equal(answer.status(), 403)
      assert.equal(answer.headers()['set-cookie'], undefined, 'the refusal sets no cookie')

      // Still signed in: the same cookie, the pages and the API.
      const cookies = await context.cookies()
      assert.deepEqual(
        cookies.map((cookie) => [cookie.name, cookie.value]),
        [[session.name, session.value]],
      )
      await page.goto(`${h.urls.sandbox}/dashboard/orders`)
      assert.match(page.url(), /\/dashboard\/orders$/)
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Orders')
      const list = await fetch(`${h.urls.sandbox}/v4.0/orders`, {
        headers: { cookie: `${session.name}=${session.value}` },
      })
      assert.equal(list.status, 200)

      // The page's own button posts the token, and signs out.
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(/\/dashboard\/sign-in/)
      assert.deepEqual(await context.cookies(), [])
      const after = await fetch(`${h.urls.sandbox}/v4.0/orders`, {
        headers: { cookie: `${session.name}=${session.value}` },
      })
      assert.equal(after.status, 401)
    })

    test('a sign-out without the CSRF token is refused and ends nothing', async () => {
      const signedIn = await h.t.sandbox(
        {
          method: 'POST',
          url: '/dashboard/sign-in',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ apiKey: h.t.account.sandboxKey, next: '/dashboard/orders' }).toString(),
        },
        null,
      )
      const token = signedIn.cookies.find((cookie) => cookie.name === 'printroute_sandbox_session')?.value
      assert.ok(token)
      const cookie = `printroute_sandbox_session=${token}`
      for (const payload of ['', '_csrf=wrong', `_csrf=${token}`]) {
        const refused = await h.t.sandbox(
          {
            method: 'POST',
            url: '/dashboard/sign-out',
            headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
            payload,
          },
          null,
        )
        assert.equal(refused.statusCode, 403, payload)
        assert.equal(refused.headers['set-cookie'], undefined)
      }
      const page = await h.t.sandbox({ method: 'GET', url: '/dashboard/orders', headers: { cookie } }, null)
      assert.equal(page.statusCode, 200, 'still signed in')
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
