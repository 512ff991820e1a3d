// The HTTP surface of callbacks (docs/api.md#callbacks-and-events): account settings (GET/PATCH
// /v4.0/account/settings, per environment), the callback listing, redelivery and the events feed: shapes, scoping and every refusal with
// the contract's error body.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const JSON_HEADERS = { 'content-type': 'application/json' }

function assertError(response: { statusCode: number; body: string }, status: number, outcome: string) {
  assert.equal(response.statusCode, status, response.body)
  const body = JSON.parse(response.body)
  assert.equal(body.outcome, outcome)
  assert.equal(body.statusCode, status)
  assert.equal(typeof body.statusText, 'string')
  assert.match(body.traceParent, /^00-/)
  return body
}

for (const kind of databaseKinds) {
  describe(`account settings and callbacks API (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    const patch = (account: TestAccount, payload: unknown, headers: Record<string, string> = JSON_HEADERS) =>
      t.live({ method: 'PATCH', url: '/v4.0/account/settings', payload: payload as string, headers }, account.liveKey)

    const patchSandbox = (account: TestAccount, payload: unknown) =>
      t.sandbox(
        { method: 'PATCH', url: '/v4.0/account/settings', payload: payload as string, headers: JSON_HEADERS },
        account.sandboxKey,
      )

    test("settings: each environment reads and changes its own callback URL and secret; the pause window is Live's to change", async () => {
      const account = await t.createAccount()
      const read = await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' }, account.sandboxKey)
      assert.equal(read.statusCode, 200)
      const initial = json(read)
      assert.equal(initial.outcome, 'Ok')
      assert.deepEqual(Object.keys(initial.settings), [
        'environment',
        'callbackUrl',
        'pauseWindowSeconds',
        'signingSecret',
        'previousSigningSecretExpiresAt',
        'addressValidation',
        'callbackEvents',
        'sandboxScenario',
      ])
      assert.equal(initial.settings.environment, 'sandbox')
      assert.equal(initial.settings.callbackUrl, null)
      assert.equal(initial.settings.pauseWindowSeconds, 0)
      assert.match(initial.settings.signingSecret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.equal(initial.settings.previousSigningSecretExpiresAt, null)
      const liveInitial = json(await t.live({ method: 'GET', url: '/v4.0/account/settings' }, account.liveKey))
      assert.equal(liveInitial.settings.environment, 'live')
      assert.equal('sandboxScenario' in liveInitial.settings, false, 'the default scenario is a Sandbox setting')
      assert.notEqual(liveInitial.settings.signingSecret, initial.settings.signingSecret, 'one secret per environment')

      const changed = await patch(account, {
        callbackUrl: 'https://shop.example.com/hook?key=1',
        pauseWindowSeconds: 90,
      })
      assert.equal(changed.statusCode, 200, changed.body)
      assert.equal(json(changed).outcome, 'Updated')
      assert.equal(json(changed).settings.callbackUrl, 'https://shop.example.com/hook?key=1')
      assert.equal(json(changed).settings.pauseWindowSeconds, 90)
      assert.equal(json(changed).settings.signingSecret, liveInitial.settings.signingSecret, 'no rotation asked for')
      // Live's callback URL is not Sandbox's; the pause window is the account's, seen from both.
      const sandboxNow = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' }, account.sandboxKey))
      assert.equal(sandboxNow.settings.callbackUrl, null)
      assert.equal(sandboxNow.settings.pauseWindowSeconds, 90)
      await patch(account, { pauseWindowSeconds: 0 })
      const live = json(await t.live({ method: 'GET', url: '/v4.0/account/settings' }, account.liveKey))
      assert.equal(live.settings.callbackUrl, 'https://shop.example.com/hook?key=1', 'fields left out stay')
      assert.equal(live.settings.pauseWindowSeconds, 0)

      // A Sandbox key manages Sandbox's own callback settings...
      const sandboxChanged = await patchSandbox(account, {
        callbackUrl: 'https://staging.example.com/hook',
        rotateSigningSecret: true,
      })
      assert.equal(sandboxChanged.statusCode, 200, sandboxChanged.body)
      assert.equal(json(sandboxChanged).settings.environment, 'sandbox')
      assert.equal(json(sandboxChanged).settings.callbackUrl, 'https://staging.example.com/hook')
      assert.notEqual(json(sandboxChanged).settings.signingSecret, initial.settings.signingSecret)
      // ...and never touches Live's: its URL and secret are as they were.
      const liveAfter = json(await t.live({ method: 'GET', url: '/v4.0/account/settings' }, account.liveKey))
      assert.equal(liveAfter.settings.callbackUrl, 'https://shop.example.com/hook?key=1')
      assert.equal(liveAfter.settings.signingSecret, liveInitial.settings.signingSecret)
      assert.equal(liveAfter.settings.previousSigningSecretExpiresAt, null)
      // The pause window holds Live orders too, so a Sandbox key cannot change it (and nothing else changes).
      const refused = await patchSandbox(account, { callbackUrl: null, pauseWindowSeconds: 600 })
      assertError(refused, 401, 'Unauthorized')
      const unchanged = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' }, account.sandboxKey))
      assert.equal(unchanged.settings.callbackUrl, 'https://staging.example.com/hook')
      assert.equal(unchanged.settings.pauseWindowSeconds, 0)
      const cleared = json(await patch(account, { callbackUrl: null }))
      assert.equal(cleared.settings.callbackUrl, null)
      assert.equal(json(await patch(account, {})).settings.callbackUrl, null)
    })

    test('a new pause window applies to the next order at once', async () => {
      const account = await t.createAccount()
      const order = () =>
        t.sandbox(
          { method: 'POST', url: '/v4.0/orders', payload: sampleOrder(), headers: JSON_HEADERS },
          account.sandboxKey,
        )
      assert.equal(json(await order()).outcome, 'Created')
      await patch(account, { pauseWindowSeconds: 600 })
      assert.equal(json(await order()).outcome, 'OnHold')
    })

    test('rotating the signing secret keeps the old one signing for the overlap', async () => {
      const account = await t.createAccount()
      const before = json(await t.live({ method: 'GET', url: '/v4.0/account/settings' }, account.liveKey))
      const rotated = json(await patch(account, { rotateSigningSecret: true }))
      assert.notEqual(rotated.settings.signingSecret, before.settings.signingSecret)
      assert.equal(
        new Date(rotated.settings.previousSigningSecretExpiresAt).getTime(),
        t.clock.now().getTime() + 86_400_000,
      )
      const short = json(await patch(account, { rotateSigningSecret: true, signingSecretOverlapSeconds: 60 }))
      assert.equal(new Date(short.settings.previousSigningSecretExpiresAt).getTime(), t.clock.now().getTime() + 60_000)
      const none = json(await patch(account, { rotateSigningSecret: true, signingSecretOverlapSeconds: 0 }))
      assert.equal(none.settings.previousSigningSecretExpiresAt, null, 'no overlap: the old secret stops at once')
    })

    test('bad settings are refused with ValidationFailed naming the field, and change nothing', async () => {
      const account = await t.createAccount()
      const cases: [unknown, string, string][] = [
        [{ callbackUrl: 'ftp://shop.example.com/hook' }, 'callbackUrl', 'InvalidFormat'],
        [{ callbackUrl: '' }, 'callbackUrl', 'MustNotBeEmptyOrWhitespace'],
        [{ callbackUrl: `https://example.com/${'a'.repeat(2048)}` }, 'callbackUrl', 'TooLong'],
        [{ pauseWindowSeconds: -1 }, 'pauseWindowSeconds', 'MustBeGreaterThanOrEqualTo'],
        [{ pauseWindowSeconds: 1.5 }, 'pauseWindowSeconds', 'InvalidType'],
        [{ pauseWindowSeconds: '60' }, 'pauseWindowSeconds', 'InvalidType'],
        [{ pauseWindowSeconds: 31 * 86_400 }, 'pauseWindowSeconds', 'MustBeLessThanOrEqualTo'],
        [{ rotateSigningSecret: 'yes' }, 'rotateSigningSecret', 'InvalidType'],
        [{ signingSecretOverlapSeconds: 60 }, 'signingSecretOverlapSeconds', 'RequiresRotateSigningSecret'],
        [{ callbackUrl: null, bogus: 1 }, 'bogus', 'UnknownField'],
        [[], 'body', 'InvalidType'],
      ]
      for (const [payload, field, code] of cases) {
        const body = assertError(await patch(account, payload), 400, 'ValidationFailed')
        assert.equal(
          body.failures[field]?.[0]?.code,
          code,
          `${JSON.stringify(payload).slice(0, 80)}: ${JSON.stringify(body.failures)}`,
        )
      }
      assertError(await patch(account, '', {}), 400, 'ValidationFailed')
      assertError(await patch(account, 'callbackUrl=x', { 'content-type': 'text/plain' }), 415, 'InvalidContentType')
      const unchanged = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' }, account.sandboxKey))
      assert.equal(unchanged.settings.callbackUrl, null)
      assert.equal(unchanged.settings.pauseWindowSeconds, 0)
      assertError(await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' }, null), 401, 'Unauthorized')
      assertError(await t.sandbox({ method: 'DELETE', url: '/v4.0/account/settings' }), 405, 'MethodNotAllowed')
    })

    test('callbacks and events: bad queries are ValidationFailed, unknown or foreign deliveries EntityNotFound', async () => {
      const account = await t.createAccount()
      const other = await t.createAccount()
      await patch(account, { pauseWindowSeconds: 600 })
      await patchSandbox(account, { callbackUrl: 'https://shop.example.com/hook' })
      const created = json(
        await t.sandbox(
          { method: 'POST', url: '/v4.0/orders', payload: sampleOrder(), headers: JSON_HEADERS },
          account.sandboxKey,
        ),
      )
      await t.sandbox({ method: 'POST', url: `/v4.0/orders/${created.order.id}/actions/cancel` }, account.sandboxKey)
      const listed = json(
        await t.sandbox(
          { method: 'GET', url: `/v4.0/Callbacks?OrderId=${created.order.id}&status=Pending` },
          account.sandboxKey,
        ),
      )
      assert.equal(listed.callbacks.length, 1)
      const delivery = listed.callbacks[0]
      assert.deepEqual(Object.keys(delivery), [
        'id',
        'eventId',
        'orderId',
        'type',
        'url',
        'status',
        'nextAttemptAt',
        'redeliveryOf',
        'created',
        'lastUpdated',
        'attempts',
        'webhookId',
      ])
      assert.equal(delivery.webhookId, null, 'a callback URL delivery goes to no webhook endpoint')
      assert.match(delivery.id, /^cbd_\d+$/)
      assert.equal(delivery.orderId, created.order.id)
      assert.equal(delivery.status, 'pending')
      assert.equal(listed.hasMore, false)

      const queries: [string, string, string][] = [
        ['/v4.0/callbacks?status=bogus', 'status', 'InvalidValue'],
        ['/v4.0/callbacks?orderId=12', 'orderId', 'InvalidFormat'],
        ['/v4.0/callbacks?top=0', 'top', 'MustBeGreaterThanOrEqualTo'],
        ['/v4.0/callbacks?top=101', 'top', 'MustBeLessThanOrEqualTo'],
        ['/v4.0/callbacks?colour=red', 'colour', 'UnknownField'],
        ['/v4.0/events?after=ord_1', 'after', 'InvalidFormat'],
        ['/v4.0/events?after=-3', 'after', 'InvalidFormat'],
        ['/v4.0/events?top=abc', 'top', 'InvalidType'],
      ]
      for (const [url, field, code] of queries) {
        const body = assertError(await t.sandbox({ method: 'GET', url }, account.sandboxKey), 400, 'ValidationFailed')
        assert.equal(body.failures[field]?.[0]?.code, code, `${url}: ${JSON.stringify(body.failures)}`)
      }
      const redeliver = (id: string, key: string, payload?: unknown) =>
        t.sandbox(
          {
            method: 'POST',
            url: `/v4.0/callbacks/${id}/redeliver`,
            ...(payload === undefined ? {} : { payload: payload as string, headers: JSON_HEADERS }),
          },
          key,
        )
      assertError(await redeliver('cbd_999999', account.sandboxKey), 404, 'EntityNotFound')
      assertError(await redeliver(delivery.id, other.sandboxKey), 404, 'EntityNotFound')
      assertError(
        await t.live({ method: 'POST', url: `/v4.0/callbacks/${delivery.id}/redeliver` }, account.liveKey),
        404,
        'EntityNotFound',
      )
      assert.equal(
        assertError(await redeliver('evt_1', account.sandboxKey), 400, 'ValidationFailed').failures.id[0].code,
        'InvalidFormat',
      )
      assertError(await redeliver(delivery.id, account.sandboxKey, { now: true }), 400, 'ValidationFailed')
      const again = await redeliver(delivery.id, account.sandboxKey, {})
      assert.equal(again.statusCode, 200, again.body)
      assert.equal(json(again).callback.redeliveryOf, delivery.id)
      assert.equal(json(again).callback.url, 'https://shop.example.com/hook')
      // Another account sees none of it.
      assert.deepEqual(json(await t.sandbox({ method: 'GET', url: '/v4.0/callbacks' }, other.sandboxKey)).callbacks, [])
      assert.deepEqual(json(await t.sandbox({ method: 'GET', url: '/v4.0/events' }, other.sandboxKey)).events, [])
      assertError(await t.sandbox({ method: 'GET', url: '/v4.0/events' }, null), 401, 'Unauthorized')
    })
  })
}
