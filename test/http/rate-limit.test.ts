// Rate limits through the real servers (docs/api.md#rate-limits): the RateLimit headers counting down, the 429
// answer with Retry-After, one budget per API key and environment, the budget of requests without a valid key,
// the lab API's and the dashboard sign-in's wrong keys on the same budget, the dashboard's page views, the
// window's reset, no limit at all with `0`, and the count shared by two applications on one PostgreSQL.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { LightMyRequestResponse } from 'fastify'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const PER_MINUTE = (max: number) => ({ max, windowMilliseconds: 60_000 })

function limitHeaders(response: LightMyRequestResponse) {
  return {
    limit: response.headers['ratelimit-limit'],
    remaining: response.headers['ratelimit-remaining'],
    reset: response.headers['ratelimit-reset'],
    retryAfter: response.headers['retry-after'],
  }
}

function assertTooManyRequests(response: LightMyRequestResponse, limit: number, windowSeconds: number) {
  assert.equal(response.statusCode, 429)
  const body = json(response)
  assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
  assert.equal(body.outcome, 'TooManyRequests')
  assert.equal(body.statusCode, 429)
  assert.equal(body.traceParent, response.headers.traceparent)
  const retryAfter = Number(response.headers['retry-after'])
  assert.ok(retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After ${response.headers['retry-after']}`)
  assert.equal(response.headers['ratelimit-reset'], response.headers['retry-after'])
  assert.equal(response.headers['ratelimit-remaining'], '0')
  assert.equal(response.headers['ratelimit-limit'], String(limit))
  assert.deepEqual(body.data, { limit, windowSeconds, retryAfterSeconds: retryAfter })
  assert.match(body.statusText, new RegExp(`more than ${limit} requests in .*; retry in ${retryAfter} seconds`))
  return body
}

async function withApp<T>(options: Parameters<typeof startTestApp>[0], work: (t: TestApp) => Promise<T>): Promise<T> {
  const t = await startTestApp(options)
  try {
    return await work(t)
  } finally {
    await t.close()
  }
}

for (const kind of databaseKinds) {
  describe(`rate limits (${kind})`, () => {
    test('every keyed answer carries the RateLimit headers, counting down; past the limit 429 with Retry-After', async () => {
      await withApp({ kind, rateLimit: PER_MINUTE(3) }, async (t) => {
        const seen = []
        for (let index = 0; index < 3; index++) {
          const response = await t.sandbox({ method: 'GET', url: '/v4.0/orders' })
          assert.equal(response.statusCode, 200)
          seen.push(limitHeaders(response))
        }
        assert.deepEqual(
          seen.map((headers) => [headers.limit, headers.remaining, headers.retryAfter]),
          [
            ['3', '2', undefined],
            ['3', '1', undefined],
            ['3', '0', undefined],
          ],
        )
        for (const headers of seen) assert.ok(Number(headers.reset) >= 1 && Number(headers.reset) <= 60)
        // Error answers of a keyed request count and carry the headers too; this one is past the limit.
        const refused = await t.sandbox({ method: 'GET', url: '/v4.0/orders/ord_999999' })
        assertTooManyRequests(refused, 3, 60)
        // Refused before the body is read: an invalid body is not even looked at.
        const post = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          headers: { 'content-type': 'application/json' },
          payload: '{"not json',
        })
        assertTooManyRequests(post, 3, 60)
      })
    })

    test('one budget per API key: another key, another account, the other environment go on', async () => {
      await withApp({ kind, rateLimit: PER_MINUTE(2) }, async (t) => {
        const secondKey = json(await t.sandbox({ method: 'POST', url: '/v4.0/account/keys' })).key.key as string
        await t.sandbox({ method: 'GET', url: '/v4.0/orders' })
        assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' })).statusCode, 429)
        const other = await t.createAccount()
        for (const [label, response] of [
          ['another key of the account', await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, secondKey)],
          ['another account', await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, other.sandboxKey)],
          ['the Live key of the account', await t.live({ method: 'GET', url: '/v4.0/orders' })],
        ] as const) {
          assert.equal(response.statusCode, 200, label)
          assert.equal(response.headers['ratelimit-remaining'], '1', label)
        }
        assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' })).statusCode, 429)
      })
    })

    test('requests without a valid key share their address budget; valid keys from that address are not refused', async () => {
      await withApp({ kind, rateLimit: PER_MINUTE(2) }, async (t) => {
        const wrong = await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, 'pr_sandbox_wrong')
        assert.equal(wrong.statusCode, 401)
        assert.deepEqual(limitHeaders(wrong), {
          limit: '2',
          remaining: '1',
          reset: wrong.headers['ratelimit-reset'],
          retryAfter: undefined,
        })
        assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, null)).statusCode, 401)
        const flooded = await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, 'pr_sandbox_wrong')
        const body = assertTooManyRequests(flooded, 2, 60)
        assert.match(body.statusText, /without a valid API key/)
        const valid = await t.sandbox({ method: 'GET', url: '/v4.0/orders' })
        assert.equal(valid.statusCode, 200)
        assert.equal(valid.headers['ratelimit-remaining'], '1')
        // The other environment counts its own refusals.
        assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' }, 'pr_live_wrong')).statusCode, 401)
      })
    })

    test('the lab API: wrong lab keys use up the address budget, then 429; a valid lab key goes on', async () => {
      await withApp({ kind, rateLimit: PER_MINUTE(3) }, async (t) => {
        const lab = (key: string | null) =>
          t.app.live.inject({ method: 'GET', url: '/labs/v1/jobs', headers: key === null ? {} : { 'x-api-key': key } })
        const first = await lab('pr_lab_wrong')
        assert.equal(first.statusCode, 401)
        assert.equal(json(first).outcome, 'Unauthorized')
        assert.deepEqual(limitHeaders(first), {
          limit: '3',
          remaining: '2',
          reset: first.headers['ratelimit-reset'],
          retryAfter: undefined,
        })
        assert.equal((await lab(null)).statusCode, 401)
        // A wrong API key on /v4.0 from the same address draws on the same budget.
        assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' }, 'pr_live_wrong')).statusCode, 401)
        for (let index = 0; index < 3; index++) {
          const body = assertTooManyRequests(await lab(`pr_lab_wrong${index}`), 3, 60)
          assert.match(body.statusText, /without a valid API key/)
        }
        assertTooManyRequests(await t.live({ method: 'GET', url: '/v4.0/orders' }, 'pr_live_wrong'), 3, 60)
        const labKey = (await t.app.services.labs.createLabKey(catalogue.labs[0]?.code as string, TEST_ACTOR)).key
        const valid = await lab(labKey)
        assert.equal(valid.statusCode, 200, valid.body)
      })
    })

    test('the dashboard sign-in: wrong keys use up the address budget, then 429 on the sign-in page', async () => {
      await withApp({ kind, rateLimit: PER_MINUTE(3) }, async (t) => {
        const signIn = (apiKey: string) =>
          t.app.sandbox.inject({
            method: 'POST',
            url: '/dashboard/sign-in',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ apiKey, next: '/dashboard/orders' }).toString(),
          })
        const first = await signIn('pr_sandbox_wrong')
        assert.equal(first.statusCode, 401)
        assert.match(first.body, /That API key is not valid/)
        assert.equal(first.headers['ratelimit-remaining'], '2')
        assert.equal((await signIn('pr_sandbox_wrong2')).statusCode, 401)
        assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, 'pr_sandbox_wrong')).statusCode, 401)
        for (let index = 0; index < 3; index++) {
          const refused = await signIn(`pr_sandbox_wrong${index}`)
          assert.equal(refused.statusCode, 429)
          assert.match(String(refused.headers['content-type']), /^text\/html/)
          assert.ok(Number(refused.headers['retry-after']) >= 1, `Retry-After ${refused.headers['retry-after']}`)
          assert.equal(refused.headers['ratelimit-remaining'], '0')
          assert.match(
            refused.body,
            /without a valid API key, has made more than 3 requests in 1m; retry in \d+ seconds/,
          )
          assert.match(refused.body, /<label for="api-key">API key<\/label>/, 'the sign-in form again')
          assert.equal(refused.headers['set-cookie'], undefined)
        }
        // The API answers the same address with its 429 too; a valid key still signs in.
        assertTooManyRequests(await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, 'pr_sandbox_wrong'), 3, 60)
        const valid = await signIn(t.account.sandboxKey)
        assert.equal(valid.statusCode, 303)
        assert.ok(valid.cookies.some((cookie) => cookie.name === 'printroute_sandbox_session'))
      })
    })

    test('open routes are not limited and carry no RateLimit headers', async () => {
      await withApp({ kind, rateLimit: PER_MINUTE(1) }, async (t) => {
        await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, null)
        await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, null)
        for (const url of ['/v4.0/openapi.json', '/samples/', '/healthz', '/dashboard/sign-in']) {
          for (let index = 0; index < 3; index++) {
            const response = await t.app.live.inject({ method: 'GET', url })
            assert.equal(response.statusCode, 200, url)
            assert.equal(response.headers['ratelimit-limit'], undefined, url)
          }
        }
      })
    })

    test('a dashboard page view counts once against the key it signed in with, however many API calls it makes', async () => {
      await withApp({ kind, rateLimit: PER_MINUTE(5) }, async (t) => {
        const created = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          headers: { 'content-type': 'application/json' },
          payload: sampleOrder(),
        })
        const orderId = json(created).order.id as string
        const signIn = await t.app.sandbox.inject({
          method: 'POST',
          url: '/dashboard/sign-in',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ apiKey: t.account.sandboxKey, next: '/dashboard/orders' }).toString(),
        })
        const cookie = signIn.cookies.find((candidate) => candidate.name === 'printroute_sandbox_session')
        assert.ok(cookie)
        const viewOrder = () =>
          t.app.sandbox.inject({
            method: 'GET',
            url: `/dashboard/orders/${orderId}`,
            headers: { cookie: `${cookie.name}=${cookie.value}` },
          })
        // The order page makes five API calls; two views cost two requests (with the create: three of five).
        assert.equal((await viewOrder()).statusCode, 200)
        assert.equal((await viewOrder()).statusCode, 200)
        const after = await t.sandbox({ method: 'GET', url: '/v4.0/orders' })
        assert.equal(after.headers['ratelimit-remaining'], '1')
        await t.sandbox({ method: 'GET', url: '/v4.0/orders' })
        // Used up, by the script and the dashboard together: the page says so instead of failing.
        const refused = await viewOrder()
        assert.match(refused.body, /more than 5 requests in 1m; retry in \d+ seconds/)
      })
    })

    test('after the window the header named, the key may send again', async () => {
      await withApp({ kind, rateLimit: { max: 1, windowMilliseconds: 1_000 } }, async (t) => {
        assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' })).statusCode, 200)
        const refused = await t.sandbox({ method: 'GET', url: '/v4.0/orders' })
        assertTooManyRequests(refused, 1, 1)
        await sleep(Number(refused.headers['retry-after']) * 1000)
        const again = await t.sandbox({ method: 'GET', url: '/v4.0/orders' })
        assert.equal(again.statusCode, 200)
        assert.equal(again.headers['ratelimit-remaining'], '0')
      })
    })

    test('0 (null) turns the limit off: no headers, no 429', async () => {
      await withApp({ kind, rateLimit: null }, async (t) => {
        for (let index = 0; index < 20; index++) {
          const response = await t.sandbox({ method: 'GET', url: '/v4.0/orders' })
          assert.equal(response.statusCode, 200)
          assert.equal(response.headers['ratelimit-limit'], undefined)
        }
        for (let index = 0; index < 20; index++) {
          assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, 'pr_sandbox_wrong')).statusCode, 401)
        }
      })
    })

    // On PostgreSQL the counts live in the database, so several `serve` processes share each key's budget. On
    // PGlite one process owns the database and counts in its memory: a second application (in tests only; a
    // second process cannot open the data directory) has counts of its own.
    test(`two applications on one database ${kind === 'postgres' ? 'share' : 'do not share'} a key's count`, async () => {
      await withApp({ kind, rateLimit: PER_MINUTE(3) }, async (first) => {
        const second = await startTestApp({ kind, rateLimit: PER_MINUTE(3), database: first.database })
        try {
          const key = first.account.sandboxKey
          await first.sandbox({ method: 'GET', url: '/v4.0/orders' })
          await first.sandbox({ method: 'GET', url: '/v4.0/orders' })
          const onSecond = await second.sandbox({ method: 'GET', url: '/v4.0/orders' }, key)
          assert.equal(onSecond.statusCode, 200)
          assert.equal(onSecond.headers['ratelimit-remaining'], kind === 'postgres' ? '0' : '2')
          const third = await first.sandbox({ method: 'GET', url: '/v4.0/orders' })
          assert.equal(third.statusCode, kind === 'postgres' ? 429 : 200)
        } finally {
          await second.close()
        }
      })
    })
  })
}
