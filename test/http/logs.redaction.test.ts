// A redaction grep over a whole run's logs: a client pastes its keys, the lab key, the signing secret and the
// dashboard's session and CSRF tokens wherever they do not belong (paths, query strings, headers of every
// kind, request bodies that fail), the service answers each request and logs it at trace level, and not one
// of those values appears anywhere in what was written, in JSON lines or at a terminal (pretty), while each
// request that carried one is still logged.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createLogger, REDACTED } from '../../src/adapters/logger.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { captureLogs } from '../support/log-capture.ts'
import { catalogue, json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const KEY_PREFIX_LENGTH = (key: string) => key.indexOf('_', 3) + 1 + 8

for (const kind of databaseKinds) {
  for (const format of ['json', 'pretty'] as const) {
    describe(`no secret reaches the ${format} logs of a run full of pasted secrets (${kind})`, () => {
      const logs = captureLogs()
      let t: TestApp

      before(async () => {
        t = await startTestApp({
          kind,
          logger: createLogger({ level: 'trace', format, destination: logs.stream }),
        })
      })
      after(() => t.close())

      test('keys, the lab key, the signing secret, session and CSRF tokens are redacted everywhere', async () => {
        const { sandboxKey, liveKey } = t.account
        const labKey = (await t.app.services.labs.createLabKey(catalogue.labs[0]?.code as string, TEST_ACTOR)).key
        const settings = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings
        const signingSecret = settings.signingSecret as string

        // A dashboard session: its cookie and CSRF token.
        const signIn = await t.sandbox(
          {
            method: 'POST',
            url: '/dashboard/sign-in',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ apiKey: sandboxKey, next: '/dashboard/orders' }).toString(),
          },
          null,
        )
        assert.equal(signIn.statusCode, 303, signIn.body)
        const sessionToken = signIn.cookies.find((cookie) => cookie.name === 'printroute_sandbox_session')?.value
        assert.ok(sessionToken)
        const cookie = `printroute_sandbox_session=${sessionToken}`
        const page = await t.sandbox({ method: 'GET', url: '/dashboard/developers/keys', headers: { cookie } }, null)
        assert.equal(page.statusCode, 200)
        const csrfToken = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1]
        assert.ok(csrfToken)

        const secrets: Record<string, string> = {
          'Sandbox key': sandboxKey,
          'Live key': liveKey,
          'lab key': labKey,
          'signing secret': signingSecret,
          'session token': sessionToken,
          'CSRF token': csrfToken,
        }
        const pasted: { server: 'sandbox' | 'live'; request: Parameters<TestApp['sandbox']>[0]; key?: null }[] = []
        const paste = (server: 'sandbox' | 'live', request: Parameters<TestApp['sandbox']>[0], key?: null) =>
          pasted.push({ server, request, ...(key === null ? { key } : {}) })
        for (const [name, secret] of Object.entries(secrets)) {
          const encoded = encodeURIComponent(secret)
          for (const server of ['sandbox', 'live'] as const) {
            // Where a prefix or an id belongs.
            paste(server, { method: 'POST', url: `/v4.0/account/keys/${encoded}/revoke` })
            paste(server, { method: 'GET', url: `/v4.0/orders/${encoded}` })
            paste(server, { method: 'GET', url: `/v4.0/orders/${encoded}/actions` })
            paste(server, { method: 'GET', url: `/dashboard/developers/keys/${encoded}`, headers: { cookie } }, null)
            paste(server, { method: 'GET', url: `/labs/v1/jobs/${encoded}` }, null)
            // In query strings, named and not.
            paste(server, { method: 'GET', url: `/v4.0/orders?merchantReferences=${encoded}&top=1` })
            paste(server, { method: 'GET', url: `/v4.0/orders?apikey=${encoded}` })
            paste(server, { method: 'GET', url: `/v4.0/products?search=${encoded}&${encoded}` })
            // In every header that carries a credential, and some that do not.
            paste(server, { method: 'GET', url: '/v4.0/orders', headers: { 'x-api-key': secret } }, null)
            paste(server, { method: 'GET', url: '/v4.0/orders', headers: { 'x-api-key': `${secret}x` } }, null)
            paste(server, { method: 'GET', url: '/v4.0/orders', headers: { authorization: `Bearer ${secret}` } }, null)
            paste(
              server,
              { method: 'GET', url: '/v4.0/orders', headers: { cookie: `printroute_${server}_session=${secret}` } },
              null,
            )
            paste(
              server,
              { method: 'POST', url: '/v4.0/orders/ord_1/actions/cancel', headers: { cookie, 'x-csrf-token': secret } },
              null,
            )
            paste(server, {
              method: 'GET',
              url: '/v4.0/orders',
              headers: { 'x-request-id': secret, referer: `http://127.0.0.1/?k=${encoded}` },
            })
            // In bodies that fail: malformed JSON, an invalid field, a form.
            paste(server, {
              method: 'POST',
              url: '/v4.0/orders',
              headers: { 'content-type': 'application/json' },
              payload: `{"merchantReference": ${secret}}`,
            })
            paste(server, {
              method: 'POST',
              url: '/v4.0/orders',
              headers: { 'content-type': 'application/json' },
              payload: JSON.stringify({ merchantReference: secret, idempotencyKey: secret, items: secret }),
            })
            paste(server, {
              method: 'PUT',
              url: '/v4.0/account/settings',
              headers: { 'content-type': 'application/json' },
              payload: JSON.stringify({ callbackUrl: `http://127.0.0.1:1/${secret}?key=${encoded}` }),
            })
            paste(
              server,
              {
                method: 'POST',
                url: '/dashboard/sign-in',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                payload: `apiKey=${encoded}x&next=${encoded}`,
              },
              null,
            )
            paste(server, { method: 'GET', url: `/payments/ord_1?token=${encoded}` }, null)
            paste(
              server,
              { method: 'GET', url: `/files/thumbnails/${encoded}.jpg?expires=1&signature=${encoded}` },
              null,
            )
          }
          assert.ok(secret.length >= 32, `${name} is a whole secret`)
        }
        let answered = 0
        for (const { server, request, key } of pasted) {
          const response = await t[server](request, key)
          assert.ok(
            response.statusCode < 500,
            `${request.method} ${request.url}: ${response.statusCode} ${response.body}`,
          )
          answered++
        }
        // Signing out with the token, as the page does.
        const signOut = await t.sandbox(
          {
            method: 'POST',
            url: '/dashboard/sign-out',
            headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
            payload: `_csrf=${encodeURIComponent(csrfToken)}`,
          },
          null,
        )
        assert.equal(signOut.statusCode, 303)

        const output = logs.text()
        for (const [name, secret] of Object.entries(secrets)) {
          // The whole secret, its random part alone, and its URL-encoded spelling.
          const randomPart = secret.replace(/^(pr_[a-z]+_|whsec_)/, '')
          for (const form of new Set([
            secret,
            randomPart,
            encodeURIComponent(secret),
            encodeURIComponent(randomPart),
          ])) {
            assert.ok(!output.includes(form), `the ${name} (${form.slice(0, 12)}…) appears in the logs`)
          }
          // No more than a key's visible prefix survives.
          if (secret.startsWith('pr_')) assert.ok(!output.includes(secret.slice(0, KEY_PREFIX_LENGTH(secret) + 1)))
        }
        // Every request was logged, and a pasted key is still recognisable by its prefix.
        const liveKeyPrefix = liveKey.slice(0, KEY_PREFIX_LENGTH(liveKey))
        assert.ok(
          output.includes(`/v4.0/account/keys/${liveKeyPrefix}${REDACTED}/revoke`),
          'the revoke request is logged, redacted',
        )
        if (format === 'json') {
          const requestLines = logs.entries().filter((entry) => entry.req && entry.res)
          assert.ok(requestLines.length >= answered, `${requestLines.length} request lines for ${answered} requests`)
        } else {
          assert.ok(output.split('\n').filter((line) => / \d{3} \d+ ms/.test(line)).length >= answered)
        }
      })
    })
  }
}
