// The account's API keys over the API: listed without secrets, issued for the caller's environment and shown
// once, revoked at once (also the key making the request); a Sandbox key cannot touch Live keys, and nobody
// reaches another account's keys.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const JSON_HEADERS = { 'content-type': 'application/json' }
type Server = 'sandbox' | 'live'

function prefixOf(key: string): string {
  return key.slice(0, key.indexOf('_', 3) + 1 + 8)
}

for (const kind of databaseKinds) {
  describe(`account API keys (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    const list = (server: Server, key: string) => t[server]({ method: 'GET', url: '/v4.0/account/keys' }, key)
    const issue = (server: Server, key: string, payload?: unknown) =>
      t[server](
        {
          method: 'POST',
          url: '/v4.0/account/keys',
          ...(payload === undefined ? {} : { payload: payload as string, headers: JSON_HEADERS }),
        },
        key,
      )
    const revoke = (server: Server, key: string, prefix: string, payload?: unknown) =>
      t[server](
        {
          method: 'POST',
          url: `/v4.0/account/keys/${prefix}/revoke`,
          ...(payload === undefined ? {} : { payload: payload as string, headers: JSON_HEADERS }),
        },
        key,
      )
    /** Whether a key is accepted by its server right now. */
    const works = async (server: Server, key: string) =>
      (await t[server]({ method: 'GET', url: '/v4.0/account/settings' }, key)).statusCode === 200

    function assertError(response: { statusCode: number; body: string }, status: number, outcome: string) {
      assert.equal(response.statusCode, status, response.body)
      const body = JSON.parse(response.body)
      assert.equal(body.outcome, outcome)
      assert.equal(body.statusCode, status)
      assert.match(body.traceParent, /^00-/)
      return body
    }

    test("the listing has both environments' keys, newest first, prefixes only", async () => {
      const account: TestAccount = await t.createAccount()
      const other = await t.createAccount()
      const response = await list('sandbox', account.sandboxKey)
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'keys', 'traceParent'])
      assert.equal(body.outcome, 'Ok')
      assert.deepEqual(
        body.keys.map((key: any) => [key.prefix, key.environment, key.revoked]),
        [
          [prefixOf(account.liveKey), 'live', null],
          [prefixOf(account.sandboxKey), 'sandbox', null],
        ],
      )
      for (const key of body.keys) {
        assert.deepEqual(Object.keys(key), ['prefix', 'environment', 'created', 'revoked', 'scopes', 'expiresAt'])
        assert.equal(key.created, t.clock.now().toISOString())
      }
      assert.ok(!response.body.includes(account.liveKey.slice(prefixOf(account.liveKey).length)), 'no key text')
      assert.deepEqual(json(await list('live', account.liveKey)).keys, body.keys, 'the same from Live')
      assert.deepEqual(
        json(await list('sandbox', other.sandboxKey)).keys.map((key: any) => key.prefix),
        [prefixOf(other.liveKey), prefixOf(other.sandboxKey)],
      )
      assertError(await list('sandbox', 'pr_sandbox_wrong'), 401, 'Unauthorized')
      assertError(await t.sandbox({ method: 'DELETE', url: '/v4.0/account/keys' }), 405, 'MethodNotAllowed')
    })

    test("a new key is for the caller's environment, shown once, and works at once", async () => {
      const account = await t.createAccount()
      for (const [server, callerKey] of [
        ['sandbox', account.sandboxKey],
        ['live', account.liveKey],
      ] as const) {
        const response = await issue(server, callerKey, server === 'live' ? {} : undefined)
        assert.equal(response.statusCode, 200, response.body)
        const body = json(response)
        assert.deepEqual(Object.keys(body), ['outcome', 'key', 'traceParent'])
        assert.equal(body.outcome, 'Created')
        assert.deepEqual(Object.keys(body.key), ['key', 'prefix', 'environment', 'created', 'scopes', 'expiresAt'])
        assert.match(body.key.key, new RegExp(`^pr_${server}_[A-Za-z0-9_-]{43}$`))
        assert.equal(body.key.prefix, prefixOf(body.key.key))
        assert.equal(body.key.environment, server)
        assert.equal(body.key.created, t.clock.now().toISOString())
        assert.ok(await works(server, body.key.key))
        assert.ok(!(await works(server === 'live' ? 'sandbox' : 'live', body.key.key)), 'not on the other address')
        const listed = json(await list(server, callerKey)).keys
        assert.deepEqual(listed[0], {
          prefix: body.key.prefix,
          environment: server,
          created: body.key.created,
          revoked: null,
          scopes: null,
          expiresAt: null,
        })
        assert.ok(!JSON.stringify(listed).includes(body.key.key))
      }
      const refused = assertError(
        await issue('sandbox', account.sandboxKey, { environment: 'live' }),
        400,
        'ValidationFailed',
      )
      assert.equal(refused.failures.environment[0].code, 'UnknownField')
      assert.equal(json(await list('sandbox', account.sandboxKey)).keys.length, 4, 'the refused request issued nothing')
    })

    test('a revoked key is refused at once, also the one that revoked itself', async () => {
      const account = await t.createAccount()
      const spare = json(await issue('sandbox', account.sandboxKey)).key
      assert.ok(await works('sandbox', spare.key), 'used once: cached as valid')
      const response = await revoke('sandbox', account.sandboxKey, spare.prefix)
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.equal(body.outcome, 'Updated')
      assert.deepEqual(body.key, {
        prefix: spare.prefix,
        environment: 'sandbox',
        created: spare.created,
        revoked: t.clock.now().toISOString(),
        scopes: null,
        expiresAt: null,
      })
      assert.ok(!(await works('sandbox', spare.key)), 'the cache does not keep it alive')
      const listed = json(await list('sandbox', account.sandboxKey)).keys
      assert.equal(listed.find((key: any) => key.prefix === spare.prefix).revoked, body.key.revoked)
      assertError(await revoke('sandbox', account.sandboxKey, spare.prefix), 404, 'EntityNotFound')

      // The key making the request may revoke itself; the answer still comes, the next request is refused.
      const own = await revoke('live', account.liveKey, prefixOf(account.liveKey), {})
      assert.equal(own.statusCode, 200, own.body)
      assertError(await list('live', account.liveKey), 401, 'Unauthorized')
    })

    test("a Sandbox key revokes only Sandbox keys; a Live key revokes either; another account's keys are not found", async () => {
      const account = await t.createAccount()
      const other = await t.createAccount()
      const refused = assertError(
        await revoke('sandbox', account.sandboxKey, prefixOf(account.liveKey)),
        401,
        'Unauthorized',
      )
      assert.match(refused.statusText, /Live key/)
      assert.ok(await works('live', account.liveKey), 'still valid')

      for (const prefix of [prefixOf(other.sandboxKey), prefixOf(other.liveKey), 'pr_sandbox_NOSUCHKY', 'x']) {
        assertError(await revoke('live', account.liveKey, prefix), 404, 'EntityNotFound')
      }
      assert.ok(await works('sandbox', other.sandboxKey))
      assert.ok(await works('live', other.liveKey))

      const bad = assertError(
        await revoke('live', account.liveKey, prefixOf(account.sandboxKey), { now: true }),
        400,
        'ValidationFailed',
      )
      assert.equal(bad.failures.body[0].code, 'UnknownField')
      assert.ok(await works('sandbox', account.sandboxKey), 'a refused request revokes nothing')
      const tooLong = assertError(await revoke('live', account.liveKey, 'p'.repeat(41)), 400, 'ValidationFailed')
      assert.ok(tooLong.failures.prefix, JSON.stringify(tooLong.failures))

      const revoked = await revoke('live', account.liveKey, prefixOf(account.sandboxKey))
      assert.equal(revoked.statusCode, 200, revoked.body)
      assert.equal(json(revoked).key.environment, 'sandbox')
      assert.ok(!(await works('sandbox', account.sandboxKey)))
    })
  })
}
