// POST /v4.0/callbacks/test (docs/callbacks.md#test-callbacks): a signed `com.<vendor>.test` CloudEvent sent at
// once to a real receiver on 127.0.0.1, which verifies it with the environment's own secret (the
// standardwebhooks package, as receivers do); recorded and listed like any delivery, with its one attempt.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const JSON_HEADERS = { 'content-type': 'application/json' }

function verifies(secret: string, received: { headers: Record<string, unknown>; body: string }): boolean {
  try {
    new Webhook(secret).verify(received.body, received.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

for (const kind of databaseKinds) {
  describe(`test callbacks (${kind})`, () => {
    let t: TestApp
    let receiver: CallbackReceiver
    before(async () => {
      t = await startTestApp({ kind, eventVendor: 'acme', realClock: true })
      receiver = await startCallbackReceiver({
        respond: (callback) => (callback.url.startsWith('/broken') ? 503 : 200),
      })
    })
    after(async () => {
      await receiver.close()
      await t.close()
    })

    const secretOf = async (server: 'sandbox' | 'live', key: string): Promise<string> =>
      json(await t[server]({ method: 'GET', url: '/v4.0/account/settings' }, key)).settings.signingSecret

    test('sent to the given URL, signed with the Sandbox secret only, and returned with its attempt', async () => {
      const account = await t.createAccount()
      const url = receiver.url('/sandbox-hook?shop=1')
      const response = await t.sandbox(
        { method: 'POST', url: '/v4.0/callbacks/test', payload: { url }, headers: JSON_HEADERS },
        account.sandboxKey,
      )
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.equal(body.outcome, 'Delivered')
      const callback = body.callback
      assert.match(callback.id, /^cbd_\d+$/)
      assert.match(callback.eventId, /^evt_\d+$/)
      assert.equal(callback.orderId, null)
      assert.equal(callback.type, 'com.acme.test')
      assert.equal(callback.url, url)
      assert.equal(callback.status, 'delivered')
      assert.equal(callback.nextAttemptAt, null)
      assert.equal(callback.attempts.length, 1)
      const [attempt] = callback.attempts
      assert.equal(attempt.attempt, 1)
      assert.equal(attempt.httpStatus, 200)
      assert.equal(attempt.responseSnippet, 'thanks')
      assert.equal(attempt.error, null)
      assert.ok(Number.isInteger(attempt.latencyMs) && attempt.latencyMs >= 0)

      const received = receiver.received.filter((one) => one.url === '/sandbox-hook?shop=1')
      assert.equal(received.length, 1, 'sent once')
      const [sent] = received as [(typeof received)[number]]
      assert.equal(sent.headers['webhook-id'], callback.eventId)
      assert.ok(verifies(await secretOf('sandbox', account.sandboxKey), sent), 'verifies with the Sandbox secret')
      assert.ok(!verifies(await secretOf('live', account.liveKey), sent), 'and not with the Live one')
      assert.deepEqual(Object.keys(sent.event), [
        'specversion',
        'type',
        'source',
        'id',
        'time',
        'datacontenttype',
        'data',
      ])
      assert.equal(sent.event.type, 'com.acme.test')
      assert.equal(sent.event.id, callback.eventId)
      assert.equal(sent.event.data.environment, 'sandbox')
      assert.match(sent.event.data.message, /test callback/)
      assert.match(sent.event.data.traceParent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)

      // Listed like any delivery; not part of the events feed (which carries order events only).
      const listed = json(await t.sandbox({ method: 'GET', url: '/v4.0/callbacks' }, account.sandboxKey))
      assert.deepEqual(listed.callbacks, [callback])
      assert.deepEqual(json(await t.sandbox({ method: 'GET', url: '/v4.0/events' }, account.sandboxKey)).events, [])
      assert.deepEqual(json(await t.live({ method: 'GET', url: '/v4.0/callbacks' }, account.liveKey)).callbacks, [])
    })

    test("without a URL it goes to the environment's callback URL, signed with that environment's secret", async () => {
      const account = await t.createAccount()
      const none = await t.live({ method: 'POST', url: '/v4.0/callbacks/test' }, account.liveKey)
      assert.equal(none.statusCode, 400, none.body)
      assert.equal(json(none).outcome, 'ValidationFailed')
      assert.equal(json(none).failures.url?.[0]?.code, 'Required', none.body)
      const hook = receiver.url('/live-hook')
      await t.live(
        { method: 'PATCH', url: '/v4.0/account/settings', payload: { callbackUrl: hook }, headers: JSON_HEADERS },
        account.liveKey,
      )
      for (const request of [
        { method: 'POST' as const, url: '/v4.0/callbacks/test' },
        { method: 'POST' as const, url: '/v4.0/callbacks/test', payload: {}, headers: JSON_HEADERS },
      ]) {
        const response = await t.live(request, account.liveKey)
        assert.equal(response.statusCode, 200, response.body)
        assert.equal(json(response).callback.url, hook)
        const sent = receiver.received.find((one) => one.headers['webhook-id'] === json(response).callback.eventId)
        assert.ok(sent, 'the receiver got it')
        assert.equal(sent.event.data.environment, 'live')
        assert.ok(verifies(await secretOf('live', account.liveKey), sent))
      }
      // Sandbox has no callback URL of its own: Live's is not used for it.
      const sandbox = await t.sandbox({ method: 'POST', url: '/v4.0/callbacks/test' }, account.sandboxKey)
      assert.equal(json(sandbox).failures?.url?.[0]?.code, 'Required', sandbox.body)
    })

    test('an error answer or no answer is a failed delivery with its one attempt, never retried', async () => {
      const account = await t.createAccount()
      const send = (url: string) =>
        t.sandbox(
          { method: 'POST', url: '/v4.0/callbacks/test', payload: { url }, headers: JSON_HEADERS },
          account.sandboxKey,
        )
      const broken = json(await send(receiver.url('/broken')))
      assert.equal(broken.outcome, 'Failed')
      assert.equal(broken.callback.status, 'failed')
      assert.equal(broken.callback.attempts.length, 1)
      assert.equal(broken.callback.attempts[0].httpStatus, 503)
      assert.equal(broken.callback.attempts[0].error, 'HTTP 503')
      assert.equal(broken.callback.attempts[0].responseSnippet, 'error 503')
      const closed = await startCallbackReceiver()
      const closedUrl = closed.url('/gone')
      await closed.close()
      const unanswered = json(await send(closedUrl))
      assert.equal(unanswered.outcome, 'Failed')
      assert.equal(unanswered.callback.attempts[0].httpStatus, null)
      assert.equal(unanswered.callback.attempts[0].responseSnippet, null)
      assert.equal(typeof unanswered.callback.attempts[0].error, 'string')
      const failed = json(await t.sandbox({ method: 'GET', url: '/v4.0/callbacks?status=failed' }, account.sandboxKey))
      assert.deepEqual(
        failed.callbacks.map((callback: { id: string }) => callback.id),
        [unanswered.callback.id, broken.callback.id],
      )
      assert.equal(receiver.received.filter((one) => one.url === '/broken').length, 1, 'no retry')
    })

    test('a bad URL or body is ValidationFailed naming the field', async () => {
      const cases: [unknown, string, string][] = [
        [{ url: 'ftp://shop.example.com/hook' }, 'url', 'InvalidFormat'],
        [{ url: '' }, 'url', 'MustNotBeEmptyOrWhitespace'],
        [{ url: 42 }, 'url', 'InvalidType'],
        [{ url: receiver.url(), colour: 'red' }, 'colour', 'UnknownField'],
      ]
      for (const [payload, field, code] of cases) {
        const response = await t.sandbox({
          method: 'POST',
          url: '/v4.0/callbacks/test',
          payload: payload as string,
          headers: JSON_HEADERS,
        })
        assert.equal(response.statusCode, 400, response.body)
        assert.equal(json(response).failures[field]?.[0]?.code, code, response.body)
      }
      const anonymous = await t.sandbox({ method: 'POST', url: '/v4.0/callbacks/test' }, null)
      assert.equal(anonymous.statusCode, 401)
    })
  })
}

describe('test callbacks and the address policy', () => {
  test('a private address is refused when private URLs are not allowed, and recorded as failed', async () => {
    const t = await startTestApp({ allowPrivateUrls: false })
    const receiver = await startCallbackReceiver()
    try {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/callbacks/test',
        payload: { url: receiver.url() },
        headers: JSON_HEADERS,
      })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(json(response).outcome, 'Failed')
      assert.match(
        json(response).callback.attempts[0].error,
        /is a loopback address; printroute does not call such addresses unless started with --allow-private-urls .*printroute listen --forward-to/,
      )
      assert.equal(receiver.received.length, 0)
    } finally {
      await receiver.close()
      await t.close()
    }
  })
})
