// Dashboard sessions through the real server (inject): what signing in makes, what a session may do on the
// API, and every way it ends (sign out, expiry, the key revoked); where sign-in may send the browser.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { SESSION_LIFETIME_SECONDS } from '../../src/services/sessions.service.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

for (const kind of databaseKinds) {
  describe(`dashboard sessions (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    async function signIn(apiKey: string, next = '/dashboard/orders') {
      return t.app.sandbox.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ apiKey, next }).toString(),
      })
    }
    function sessionCookie(response: Awaited<ReturnType<typeof signIn>>): string {
      const cookie = response.cookies.find((candidate) => candidate.name === 'printroute_sandbox_session')
      assert.ok(cookie, 'a session cookie was set')
      return `${cookie.name}=${cookie.value}`
    }
    const listOrders = (cookie: string) =>
      t.app.sandbox.inject({ method: 'GET', url: '/v4.0/orders', headers: { cookie } })

    test('a session lasts 12 hours, then the API refuses it and the dashboard asks to sign in again', async () => {
      const cookie = sessionCookie(await signIn(t.account.sandboxKey))
      assert.equal((await listOrders(cookie)).statusCode, 200)
      t.clock.advanceSeconds(SESSION_LIFETIME_SECONDS - 1)
      assert.equal((await listOrders(cookie)).statusCode, 200)
      t.clock.advanceSeconds(1)
      const expired = await listOrders(cookie)
      assert.equal(expired.statusCode, 401)
      assert.match(json(expired).statusText, /dashboard session has ended/)
      const page = await t.app.sandbox.inject({ method: 'GET', url: '/dashboard/orders', headers: { cookie } })
      assert.equal(page.statusCode, 303)
      assert.match(page.headers.location as string, /^\/dashboard\/sign-in\?next=/)
    })

    test('revoking the key ends its sessions at once; other keys sessions go on', async () => {
      const extra = json(await t.sandbox({ method: 'POST', url: '/v4.0/account/keys' })).key
      const doomed = sessionCookie(await signIn(extra.key))
      const kept = sessionCookie(await signIn(t.account.sandboxKey))
      assert.equal((await listOrders(doomed)).statusCode, 200)
      const revoked = await t.sandbox({ method: 'POST', url: `/v4.0/account/keys/${extra.prefix}/revoke` })
      assert.equal(revoked.statusCode, 200)
      assert.equal((await listOrders(doomed)).statusCode, 401)
      assert.equal((await listOrders(kept)).statusCode, 200)
    })

    test('a session changes data only with its CSRF token, and only in its environment', async () => {
      const response = await signIn(t.account.sandboxKey)
      const cookie = sessionCookie(response)
      const page = await t.app.sandbox.inject({ method: 'GET', url: '/dashboard/orders', headers: { cookie } })
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1]
      assert.ok(csrf)
      const create = (headers: Record<string, string>) =>
        t.app.sandbox.inject({ method: 'POST', url: '/v4.0/account/keys', headers: { cookie, ...headers } })
      assert.equal((await create({})).statusCode, 401)
      assert.equal((await create({ 'x-csrf-token': `${csrf}x` })).statusCode, 401)
      assert.equal((await create({ 'x-csrf-token': csrf })).statusCode, 200)
      const live = await t.app.live.inject({ method: 'GET', url: '/v4.0/orders', headers: { cookie } })
      assert.equal(live.statusCode, 401, 'no Live cookie: the Sandbox session is not sent for Live')
      const crossed = await t.app.live.inject({
        method: 'GET',
        url: '/v4.0/orders',
        headers: { cookie: cookie.replace('printroute_sandbox_session', 'printroute_live_session') },
      })
      assert.equal(crossed.statusCode, 401, 'a Sandbox session under the Live name is refused')
    })

    test('sign-in sends the browser only to dashboard paths; sign-out ends the session', async () => {
      for (const next of ['//127.0.0.1:9/x', 'http://127.0.0.1:9/', '/v4.0/orders', '/dashboard/\\\\x']) {
        const response = await signIn(t.account.sandboxKey, next)
        assert.equal(response.statusCode, 303)
        assert.equal(response.headers.location, '/dashboard/orders', `next=${next}`)
      }
      const response = await signIn(t.account.sandboxKey, '/dashboard/orders?status=complete')
      assert.equal(response.headers.location, '/dashboard/orders?status=complete')
      const cookie = sessionCookie(response)
      const page = await t.app.sandbox.inject({ method: 'GET', url: '/dashboard/orders', headers: { cookie } })
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] as string
      const out = await t.app.sandbox.inject({
        method: 'POST',
        url: '/dashboard/sign-out',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `_csrf=${encodeURIComponent(csrf)}`,
      })
      assert.equal(out.statusCode, 303)
      assert.equal((await listOrders(cookie)).statusCode, 401)
    })

    test('the cookie is HttpOnly and SameSite=Strict, and Secure when the public address is https', async () => {
      const plain = (await signIn(t.account.sandboxKey)).cookies[0]
      assert.equal(plain?.httpOnly, true)
      assert.equal(plain?.sameSite, 'Strict')
      assert.equal(plain?.secure, undefined)
      const before = t.app.publicUrl('sandbox')
      t.app.setPublicUrl('sandbox', 'https://127.0.0.1:9')
      try {
        assert.equal((await signIn(t.account.sandboxKey)).cookies[0]?.secure, true)
      } finally {
        t.app.setPublicUrl('sandbox', before)
      }
    })

    test('order pages under a path that is not an order ID answer the not-found page', async () => {
      const cookie = sessionCookie(await signIn(t.account.sandboxKey))
      for (const path of [
        '/dashboard/orders/ord_x',
        '/dashboard/orders/ord_0/cancel',
        '/dashboard/orders/123/metadata',
      ]) {
        const page = await t.app.sandbox.inject({ method: 'GET', url: path, headers: { cookie } })
        assert.equal(page.statusCode, 404, path)
        assert.match(page.body, /is not an order ID/, path)
      }
    })

    test('wrong keys and other-environment keys get no session and a reason', async () => {
      const wrong = await signIn('pr_sandbox_nope')
      assert.equal(wrong.statusCode, 401)
      assert.equal(wrong.cookies.length, 0)
      assert.match(wrong.body, /That API key is not valid/)
      const live = await signIn(t.account.liveKey)
      assert.equal(live.statusCode, 401)
      assert.match(live.body, /That is a Live key, and this is the Sandbox dashboard/)
      const liveUrl = t.app.publicUrl('live')
      assert.ok(
        live.body.includes(`use the Live dashboard at ${liveUrl}/dashboard/ (port ${new URL(liveUrl).port})`),
        live.body,
      )
      const empty = await signIn('   ')
      assert.equal(empty.statusCode, 400)
      assert.match(empty.body, /Enter an API key/)
    })
  })
}
