// Scoped, expiring API keys: every API route (enumerated from the servers' route tables, so a new route without a
// scope fails here) lets a key with its scope in and refuses every other scope 403 Forbidden naming it; an
// expired key answers 401 saying so; bad scopes and expiries are refused naming the field.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { KEY_SCOPES, type KeyScope } from '../../src/domain/key-scopes.ts'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { routeScopesOf } from '../../src/http/key-scopes.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const JSON_HEADERS = { 'content-type': 'application/json' }

for (const kind of databaseKinds) {
  describe(`scoped API keys (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    const issueScoped = async (environment: 'sandbox' | 'live', scopes: KeyScope[] | null, expiresAt?: Date) =>
      (
        await t.app.services.accounts.createApiKey(t.account.id, environment, TEST_ACTOR, {
          scopes,
          ...(expiresAt ? { expiresAt } : {}),
        })
      ).key

    for (const environment of ['sandbox', 'live'] as const) {
      test(`every ${environment} API route declares a scope; a key is allowed and refused as its scopes say`, async () => {
        const routes = routeScopesOf(t.app[environment]).filter(
          (route) => route.url.startsWith('/v4.0/') && route.auth && route.method !== 'HEAD',
        )
        assert.ok(routes.length >= 30, `the route table has the API routes (${routes.length})`)
        const undeclared = routes.filter((route) => route.scope === undefined)
        assert.deepEqual(undeclared, [], 'every authenticated API route names its scope')
        const keys = new Map<KeyScope, string>()
        for (const scope of KEY_SCOPES) keys.set(scope, await issueScoped(environment, [scope]))
        for (const route of routes) {
          const url = route.url.replace(/:[A-Za-z]+/g, 'x1')
          const withBody = route.method === 'POST' || route.method === 'PATCH'
          for (const scope of KEY_SCOPES) {
            const response = await t[environment](
              { method: route.method as 'GET', url, ...(withBody ? { payload: '{}', headers: JSON_HEADERS } : {}) },
              keys.get(scope),
            )
            const where = `${route.method} ${route.url} with ${scope} (needs ${route.scope}): ${response.body}`
            if (scope === route.scope) {
              // Allowed past the scope check: the route answers for itself (a 404 of the made-up ID, a 400 of
              // the empty body, or a refusal of its own, as issuing a key with more scopes than the caller's).
              assert.notEqual(response.statusCode, 401, where)
              assert.ok(!/does not have the scope/.test(response.body), where)
            } else {
              assert.equal(response.statusCode, 403, where)
              const body = json(response)
              assert.equal(body.outcome, 'Forbidden', where)
              assert.deepEqual(body.data, { scope: route.scope }, where)
              assert.ok(body.statusText.includes(route.scope as string), where)
            }
          }
        }
      })
    }

    test('a key with several scopes may use each; a key without scopes may use everything', async () => {
      const key = await issueScoped('sandbox', ['products:read', 'account:read'])
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/products' }, key)).statusCode, 200)
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' }, key)).statusCode, 200)
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, key)).statusCode, 403)
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' })).statusCode, 200, 'unscoped key')
    })

    test('keys are issued with scopes and expiry over the API and listed with them', async () => {
      const expiresAt = new Date(t.clock.now().getTime() + 3_600_000).toISOString()
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/account/keys',
        payload: JSON.stringify({ scopes: ['quotes', 'orders:read'], expiresAt }),
        headers: JSON_HEADERS,
      })
      assert.equal(response.statusCode, 200, response.body)
      const issued = json(response).key
      assert.deepEqual(issued.scopes, ['orders:read', 'quotes'], 'stored in the documented order')
      assert.equal(issued.expiresAt, expiresAt)
      const listed = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/keys' })).keys.find(
        (key: any) => key.prefix === issued.prefix,
      )
      assert.deepEqual([listed.scopes, listed.expiresAt], [['orders:read', 'quotes'], expiresAt])
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, issued.key)).statusCode, 200)
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/account/keys' }, issued.key)).statusCode, 403)
      const plain = json(await t.sandbox({ method: 'POST', url: '/v4.0/account/keys' })).key
      assert.deepEqual([plain.scopes, plain.expiresAt], [null, null], 'no body: every scope, no expiry')
    })

    test('a scoped key cannot issue a key with scopes it does not have', async () => {
      const key = await issueScoped('sandbox', ['keys:manage', 'orders:read'])
      const refused = await t.sandbox(
        {
          method: 'POST',
          url: '/v4.0/account/keys',
          payload: JSON.stringify({ scopes: ['orders:write'] }),
          headers: JSON_HEADERS,
        },
        key,
      )
      assert.equal(refused.statusCode, 403, refused.body)
      assert.match(json(refused).statusText, /orders:write/)
      const unscoped = await t.sandbox({ method: 'POST', url: '/v4.0/account/keys' }, key)
      assert.equal(unscoped.statusCode, 403, 'an unscoped key is more than it may hand out')
      const within = await t.sandbox(
        {
          method: 'POST',
          url: '/v4.0/account/keys',
          payload: JSON.stringify({ scopes: ['orders:read'] }),
          headers: JSON_HEADERS,
        },
        key,
      )
      assert.equal(within.statusCode, 200, within.body)
    })

    test('a scoped key revokes only keys within its own scopes', async () => {
      const key = await issueScoped('sandbox', ['keys:manage', 'orders:read'])
      const revoke = (prefix: string) => t.sandbox({ method: 'POST', url: `/v4.0/account/keys/${prefix}/revoke` }, key)
      const everything = json(await t.sandbox({ method: 'POST', url: '/v4.0/account/keys' })).key
      const refused = await revoke(everything.prefix)
      assert.equal(refused.statusCode, 403, refused.body)
      assert.match(json(refused).statusText, /cannot revoke a key with scopes it does not have/)
      const stillThere = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/keys' })).keys
      assert.equal(stillThere.find((listed: any) => listed.prefix === everything.prefix)?.revoked, null)
      const reader = await t.app.services.accounts.createApiKey(t.account.id, 'sandbox', TEST_ACTOR, {
        scopes: ['orders:read'],
      })
      const readerPrefix = reader.prefix
      const allowed = await revoke(readerPrefix)
      assert.equal(allowed.statusCode, 200, allowed.body)
      assert.notEqual(json(allowed).key.revoked, null)
    })

    test('an expired key answers 401 saying it expired; its dashboard sign-in is refused', async () => {
      const expiresAt = new Date(t.clock.now().getTime() + 60_000)
      const key = await issueScoped('sandbox', null, expiresAt)
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, key)).statusCode, 200)
      t.clock.advanceSeconds(61)
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, key)
      assert.equal(response.statusCode, 401, response.body)
      const body = json(response)
      assert.equal(body.outcome, 'Unauthorized')
      assert.match(body.statusText, /expired/)
      assert.equal(body.data.expiredAt, expiresAt.toISOString())
      const signIn = await t.app.services.sessions.signIn(key, 'sandbox')
      assert.equal(signIn.signedIn, false)
    })

    test("the dashboard's keys page lists scopes and expiry, and says so to a key without keys:manage", async () => {
      const page = async (key: string, url = '/dashboard/developers/keys') => {
        const signedIn = await t.app.services.sessions.signIn(key, 'sandbox')
        assert.ok(signedIn.signedIn)
        const cookie = `${sessionCookieName('sandbox')}=${signedIn.token}`
        return t.sandbox({ method: 'GET', url, headers: { cookie } }, null)
      }
      const expiresAt = new Date(t.clock.now().getTime() + 86_400_000)
      const reader = await issueScoped('sandbox', ['orders:read'], expiresAt)
      const manager = await issueScoped('sandbox', ['keys:manage'])
      const managed = await page(manager)
      assert.equal(managed.statusCode, 200, managed.body)
      assert.match(managed.body, /Scopes: orders:read; expires/)
      assert.match(managed.body, /Every scope/)
      assert.match(managed.body, /Create a Sandbox key/)
      const refused = await page(reader)
      assert.equal(refused.statusCode, 200, refused.body)
      assert.match(refused.body, /lacks the <code>keys:manage<\/code> scope/)
      assert.doesNotMatch(refused.body, /Create a Sandbox key/)
      const created = await t.app.services.sessions.signIn(manager, 'sandbox')
      assert.ok(created.signedIn)
      const made = await t.sandbox(
        {
          method: 'POST',
          url: '/dashboard/developers/keys',
          payload: `_csrf=${encodeURIComponent(created.csrfToken)}`,
          headers: {
            cookie: `${sessionCookieName('sandbox')}=${created.token}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
        },
        null,
      )
      assert.equal(made.statusCode, 200, made.body)
      assert.match(made.body, /Copy it now/, 'a keys:manage session creates a key with its own scopes')
      const ordersPage = await page(manager, '/dashboard/orders')
      assert.match(ordersPage.body, /lacks the <code>orders:read<\/code> scope/, 'a page the key cannot read says why')
    })

    test('bad scopes and expiries are refused naming the field', async () => {
      const post = (payload: unknown) =>
        t.sandbox({
          method: 'POST',
          url: '/v4.0/account/keys',
          payload: JSON.stringify(payload),
          headers: JSON_HEADERS,
        })
      const unknown = await post({ scopes: ['orders:read', 'orders:delete'] })
      assert.equal(unknown.statusCode, 400, unknown.body)
      assert.deepEqual(json(unknown).failures['scopes[1]'][0].validValues, [...KEY_SCOPES], unknown.body)
      const past = await post({ expiresAt: new Date(t.clock.now().getTime() - 1000).toISOString() })
      assert.equal(past.statusCode, 400, past.body)
      assert.ok(json(past).failures.expiresAt, past.body)
      const notADate = await post({ expiresAt: 'tomorrow' })
      assert.equal(notADate.statusCode, 400, notADate.body)
      assert.ok(json(notADate).failures.expiresAt, notADate.body)
      const empty = await post({ scopes: [] })
      assert.equal(empty.statusCode, 400, empty.body)
      assert.ok(json(empty).failures.scopes, empty.body)
    })
  })
}
