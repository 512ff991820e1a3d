// docs/wire-contract.md#transport and docs/wire-contract.md#errors, proven through the HTTP interface on every database
// backend: trace context on every answer, case-insensitive routes and query names, API keys per environment,
// 404/405/413/415, JSON parsing, the error body shape, the OpenAPI document and the request timeout.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { buildHttpServer, type HttpServices } from '../../src/http/server.ts'
import type { Caller } from '../../src/services/accounts.service.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/

/** The response carries a well-formed traceparent header and the JSON body repeats it; returns it. */
function assertTraced(response: LightMyRequestResponse): string {
  const header = response.headers.traceparent
  assert.equal(typeof header, 'string', 'traceparent header missing')
  assert.match(header as string, TRACEPARENT)
  assert.equal(json(response).traceParent, header)
  return header as string
}

function assertUnauthorized(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 401)
  const body = json(response)
  assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
  assert.equal(body.outcome, 'Unauthorized')
  assert.equal(typeof body.statusText, 'string')
  assert.ok(body.statusText.length > 0)
  assert.equal(body.statusCode, 401)
  assert.deepEqual(body.data, {})
  assertTraced(response)
}

for (const kind of databaseKinds) {
  describe(`transport (${kind})`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    describe('trace context', () => {
      test('every response status carries a traceparent header equal to the body traceParent', async () => {
        const cases: [string, number, () => Promise<LightMyRequestResponse>][] = [
          ['200 list', 200, () => t.sandbox({ method: 'GET', url: '/v4.0/orders' })],
          ['400 bad top', 400, () => t.sandbox({ method: 'GET', url: '/v4.0/orders?top=0' })],
          ['401 no key', 401, () => t.sandbox({ method: 'GET', url: '/v4.0/orders' }, null)],
          ['404 unknown path', 404, () => t.sandbox({ method: 'GET', url: '/v4.0/nothing-here' })],
          ['405 wrong method', 405, () => t.sandbox({ method: 'DELETE', url: '/v4.0/orders' })],
          [
            '415 text body',
            415,
            () =>
              t.sandbox({
                method: 'POST',
                url: '/v4.0/orders',
                payload: 'hello',
                headers: { 'content-type': 'text/plain' },
              }),
          ],
          [
            '413 huge body',
            413,
            () =>
              t.sandbox({
                method: 'POST',
                url: '/v4.0/orders',
                payload: JSON.stringify({ metadata: { blob: 'x'.repeat(1_100_000) } }),
                headers: { 'content-type': 'application/json' },
              }),
          ],
        ]
        for (const [label, status, send] of cases) {
          const response = await send()
          assert.equal(response.statusCode, status, label)
          assertTraced(response)
        }
      })

      test('a valid incoming traceparent keeps its trace id', async () => {
        const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
        const response = await t.sandbox({ method: 'GET', url: '/v4.0/orders', headers: { traceparent: incoming } })
        assert.equal(response.statusCode, 200)
        const traceParent = assertTraced(response)
        assert.equal(traceParent.split('-')[1], '4bf92f3577b34da6a3ce929d0e0e4736')
      })

      test('the incoming trace id is kept on error answers too', async () => {
        const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
        const response = await t.sandbox(
          { method: 'GET', url: '/v4.0/orders', headers: { traceparent: incoming } },
          null,
        )
        assert.equal(response.statusCode, 401)
        assert.equal(assertTraced(response).split('-')[1], '0af7651916cd43dd8448eb211c80319c')
      })

      test('an invalid incoming traceparent is replaced by a fresh valid one', async () => {
        const response = await t.sandbox({
          method: 'GET',
          url: '/v4.0/orders',
          headers: { traceparent: 'not-a-trace' },
        })
        assert.equal(response.statusCode, 200)
        assertTraced(response)
      })

      test('two requests without a traceparent get different trace ids', async () => {
        const first = assertTraced(await t.sandbox({ method: 'GET', url: '/v4.0/orders' }))
        const second = assertTraced(await t.sandbox({ method: 'GET', url: '/v4.0/orders' }))
        assert.notEqual(first.split('-')[1], second.split('-')[1])
      })
    })

    describe('routes and query names', () => {
      test('route matching ignores letter case', async () => {
        const response = await t.sandbox({ method: 'GET', url: '/V4.0/ORDERS' })
        assert.equal(response.statusCode, 200)
        assert.equal(json(response).outcome, 'Ok')
      })

      test('route matching tolerates a trailing slash in any letter case', async () => {
        const response = await t.sandbox({ method: 'GET', url: '/v4.0/Orders/' })
        assert.equal(response.statusCode, 200)
        assert.equal(json(response).outcome, 'Ok')
        const created = await t.sandbox({ method: 'POST', url: '/V4.0/Orders/', payload: sampleOrder() })
        assert.equal(created.statusCode, 200)
        assert.equal(json(created).outcome, 'Created')
      })

      test('query parameter names are case-insensitive', async () => {
        for (let index = 0; index < 3; index++) {
          const created = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() })
          assert.equal(created.statusCode, 200)
        }
        const all = json(await t.sandbox({ method: 'GET', url: '/v4.0/orders?top=100' })).orders as { id: string }[]
        assert.ok(all.length >= 3)

        const paged = await t.sandbox({ method: 'GET', url: '/v4.0/orders?Top=1&SKIP=1' })
        assert.equal(paged.statusCode, 200)
        const pagedBody = json(paged)
        assert.deepEqual(
          pagedBody.orders.map((order: { id: string }) => order.id),
          [all[1]?.id],
        )
        assert.equal(pagedBody.hasMore, true)

        const future = await t.sandbox({ method: 'GET', url: '/v4.0/orders?createdfrom=2030-01-01T00:00:00Z' })
        assert.equal(future.statusCode, 200)
        assert.deepEqual(json(future).orders, [])

        const past = await t.sandbox({ method: 'GET', url: '/v4.0/orders?CREATEDFROM=2020-01-01T00:00:00Z&top=100' })
        assert.equal(past.statusCode, 200)
        assert.equal(json(past).orders.length, all.length)
      })
    })

    describe('API keys', () => {
      test('a missing key answers 401 Unauthorized', async () => {
        assertUnauthorized(await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, null))
      })

      test('an empty key answers 401 Unauthorized', async () => {
        assertUnauthorized(await t.sandbox({ method: 'GET', url: '/v4.0/orders', headers: { 'x-api-key': '' } }))
      })

      test('an unknown key answers 401 Unauthorized', async () => {
        assertUnauthorized(await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, 'pr_sandbox_doesnotexist'))
        assertUnauthorized(await t.live({ method: 'GET', url: '/v4.0/orders' }, 'pr_live_doesnotexist'))
      })

      test('a Live key on the Sandbox address answers 401 saying whose key it is and where it belongs', async () => {
        const refused = await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, t.account.liveKey)
        assertUnauthorized(refused)
        const livePort = new URL(t.app.publicUrl('live')).port
        const sandboxPort = new URL(t.app.publicUrl('sandbox')).port
        assert.notEqual(livePort, sandboxPort)
        assert.equal(
          json(refused).statusText,
          `The X-API-Key is a Live key, and this is the Sandbox address (port ${sandboxPort}): send Live keys to ` +
            `the Live address, ${t.app.publicUrl('live')} (port ${livePort}), or use a Sandbox key here`,
        )
      })

      test('a Sandbox key on the Live address answers 401 naming the Sandbox port', async () => {
        const refused = await t.live({ method: 'GET', url: '/v4.0/orders' }, t.account.sandboxKey)
        assertUnauthorized(refused)
        assert.match(
          json(refused).statusText,
          new RegExp(`^The X-API-Key is a Sandbox key, .* \\(port ${new URL(t.app.publicUrl('sandbox')).port}\\)`),
        )
      })

      test('an unknown or revoked key is not called a key of the other environment', async () => {
        for (const refused of [
          await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, `${t.account.liveKey}x`),
          await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, 'pr_live_doesnotexist'),
        ]) {
          assertUnauthorized(refused)
          assert.equal(json(refused).statusText, 'The X-API-Key is not a valid Sandbox key')
        }
      })

      test('the right key for each environment is accepted', async () => {
        assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' })).statusCode, 200)
        assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' })).statusCode, 200)
      })

      test('the X-API-Key header name is case-insensitive', async () => {
        for (const name of ['X-API-KEY', 'X-Api-Key', 'x-api-key']) {
          const response = await t.sandbox(
            { method: 'GET', url: '/v4.0/orders', headers: { [name]: t.account.sandboxKey } },
            null,
          )
          assert.equal(response.statusCode, 200, name)
        }
      })

      test('a create without a key is refused with 401 and writes nothing', async () => {
        const before = json(await t.sandbox({ method: 'GET', url: '/v4.0/orders?top=100' })).orders.length
        assertUnauthorized(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() }, null))
        const afterwards = json(await t.sandbox({ method: 'GET', url: '/v4.0/orders?top=100' })).orders.length
        assert.equal(afterwards, before)
      })
    })

    describe('unknown endpoints and methods', () => {
      test('a wrong method on a known path answers 405 MethodNotAllowed with an allow header', async () => {
        const response = await t.sandbox({ method: 'DELETE', url: '/v4.0/orders' })
        assert.equal(response.statusCode, 405)
        const body = json(response)
        assert.equal(body.outcome, 'MethodNotAllowed')
        assert.equal(body.statusCode, 405)
        const allow = String(response.headers.allow ?? '')
          .split(',')
          .map((method) => method.trim())
          .sort()
        assert.deepEqual(allow, ['GET', 'POST'])
        assertTraced(response)
      })

      test('PUT on an order answers 405 listing GET', async () => {
        const response = await t.sandbox({ method: 'PUT', url: '/v4.0/orders/ord_1', payload: {} })
        assert.equal(response.statusCode, 405)
        assert.equal(json(response).outcome, 'MethodNotAllowed')
        assert.match(String(response.headers.allow), /\bGET\b/)
      })

      test('an unknown path answers 404 EndpointDoesNotExist', async () => {
        const response = await t.sandbox({ method: 'GET', url: '/v4.0/widgets' })
        assert.equal(response.statusCode, 404)
        const body = json(response)
        assert.equal(body.outcome, 'EndpointDoesNotExist')
        assert.equal(body.statusCode, 404)
        assert.deepEqual(body.data, {})
        assertTraced(response)
      })

      test('an unknown path answers 404 even without a key', async () => {
        const response = await t.sandbox({ method: 'GET', url: '/v4.0/widgets' }, null)
        assert.equal(response.statusCode, 404)
        assert.equal(json(response).outcome, 'EndpointDoesNotExist')
      })

      for (const path of ['/v3.0/orders', '/v2/orders', '/V3.0/Orders/ord_1']) {
        test(`${path} answers 404 EndpointDoesNotExist saying the version is discontinued`, async () => {
          const response = await t.sandbox({ method: 'GET', url: path })
          assert.equal(response.statusCode, 404)
          const body = json(response)
          assert.equal(body.outcome, 'EndpointDoesNotExist')
          assert.match(body.statusText, /discontinued/i)
          assertTraced(response)
        })
      }
    })

    describe('content type and body', () => {
      test('a non-JSON content type with a body answers 415 InvalidContentType', async () => {
        const response = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: 'shippingMethod=Standard',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
        assert.equal(response.statusCode, 415)
        const body = json(response)
        assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
        assert.equal(body.outcome, 'InvalidContentType')
        assert.equal(body.statusCode, 415)
      })

      test('a body without a content type answers 415 InvalidContentType', async () => {
        const response = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: JSON.stringify(sampleOrder()),
        })
        assert.equal(response.statusCode, 415)
        assert.equal(json(response).outcome, 'InvalidContentType')
      })

      test('JSON with a charset parameter is accepted', async () => {
        const response = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: JSON.stringify(sampleOrder()),
          headers: { 'content-type': 'application/json; charset=utf-8' },
        })
        assert.equal(response.statusCode, 200)
        assert.equal(json(response).outcome, 'Created')
      })

      test('a GET with Content-Type application/json and no body is accepted', async () => {
        const response = await t.sandbox({
          method: 'GET',
          url: '/v4.0/orders',
          headers: { 'content-type': 'application/json' },
        })
        assert.equal(response.statusCode, 200)
        assert.equal(json(response).outcome, 'Ok')
      })

      test('malformed JSON answers 400 ValidationFailed with MalformedJson under body', async () => {
        const response = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: '{"shippingMethod": "Standard",',
          headers: { 'content-type': 'application/json' },
        })
        assert.equal(response.statusCode, 400)
        const body = json(response)
        assert.equal(body.outcome, 'ValidationFailed')
        assert.equal(body.failures.body[0].code, 'MalformedJson')
        assertTraced(response)
      })

      test('a body over 1 MiB answers 413 PayloadTooLarge', async () => {
        const response = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: JSON.stringify({ ...sampleOrder(), metadata: { blob: 'x'.repeat(1_048_577) } }),
          headers: { 'content-type': 'application/json' },
        })
        assert.equal(response.statusCode, 413)
        const body = json(response)
        assert.equal(body.outcome, 'PayloadTooLarge')
        assert.equal(body.statusCode, 413)
        assertTraced(response)
      })

      test('a validation error body has the keys outcome, statusText, statusCode, failures, data, traceParent in order', async () => {
        const response = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: {} })
        assert.equal(response.statusCode, 400)
        const body = json(response)
        assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'failures', 'data', 'traceParent'])
        assert.equal(body.outcome, 'ValidationFailed')
        assert.equal(body.statusCode, 400)
        assert.deepEqual(body.data, {})
        assertTraced(response)
      })

      test('an unknown top-level field is rejected as UnknownField naming it', async () => {
        const response = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ colour: 'red' }),
        })
        assert.equal(response.statusCode, 400)
        assert.deepEqual(json(response).failures, { colour: [{ code: 'UnknownField', providedValue: 'red' }] })
      })
    })

    describe('OpenAPI document', () => {
      test('GET /v4.0/openapi.json needs no key and describes the v4.0 paths', async () => {
        const response = await t.sandbox({ method: 'GET', url: '/v4.0/openapi.json' }, null)
        assert.equal(response.statusCode, 200)
        const document = json(response)
        assert.match(String(document.openapi), /^3\.1\./)
        const paths = Object.keys(document.paths ?? {})
        for (const path of ['/v4.0/orders', '/v4.0/orders/{orderId}', '/v4.0/products/{sku}']) {
          assert.ok(paths.includes(path), `${path} missing from ${paths.join(', ')}`)
        }
        assert.match(String(response.headers.traceparent), TRACEPARENT)
      })

      test('the Live server serves its OpenAPI document too', async () => {
        const response = await t.live({ method: 'GET', url: '/v4.0/openapi.json' }, null)
        assert.equal(response.statusCode, 200)
        assert.match(String(json(response).openapi), /^3\.1\./)
      })
    })
  })
}

describe('request timeout', () => {
  const caller: Caller = {
    accountId: 1,
    environment: 'sandbox',
    keyPrefix: 'pr_sandbox_test',
    via: 'key',
    pauseWindowSeconds: 0,
    billingCurrency: 'GBP',
  }
  let server: Awaited<ReturnType<typeof buildHttpServer>>

  before(async () => {
    const services = {
      accounts: { identify: async () => caller },
      orders: { getOrder: () => new Promise(() => {}) },
      products: { getProduct: () => undefined },
      labs: null,
      files: { store: {}, links: {}, now: () => new Date() },
    } as unknown as HttpServices
    server = await buildHttpServer({ environment: 'sandbox', services, logger: false, requestTimeoutMs: 200 })
  })
  after(async () => {
    await server.close()
  })

  test('a request not answered in time gets 500 TimedOut with its traceParent', async () => {
    const started = Date.now()
    const response = await server.inject({
      method: 'GET',
      url: '/v4.0/orders/ord_1',
      headers: { 'x-api-key': 'any', traceparent: '00-11111111111111111111111111111111-2222222222222222-01' },
    })
    const elapsed = Date.now() - started
    assert.equal(response.statusCode, 500)
    const body = json(response)
    assert.equal(body.outcome, 'TimedOut')
    assert.equal(body.statusCode, 500)
    assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
    const traceParent = assertTraced(response)
    assert.equal(traceParent.split('-')[1], '11111111111111111111111111111111')
    assert.ok(elapsed >= 150, `answered after ${elapsed} ms, before the timeout`)
    assert.ok(elapsed < 5_000, `answered after ${elapsed} ms`)
  })
})
