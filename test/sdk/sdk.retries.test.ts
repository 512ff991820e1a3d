// The SDK's retries against a small HTTP server on 127.0.0.1 that answers from a script (503 then 200, 429 with
// Retry-After then 200, ...) and counts the requests: which requests are retried, how long it waits, and when
// it gives up.
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import {
  type CreateOrderRequest,
  PrintrouteClient,
  PrintrouteConnectionError,
  PrintrouteError,
} from '../../sdk/src/index.ts'
import { tier } from '../support/tiers.ts'

tier('pure')

interface Answer {
  status: number
  headers?: Record<string, string>
  body?: unknown
  /** Wait this long before answering (to trip the client's timeout). */
  delayMs?: number
}

interface Received {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

const ok = (body: Record<string, unknown> = {}): Answer => ({
  status: 200,
  body: { outcome: 'Ok', traceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', ...body },
})
const failure = (status: number, outcome: string, headers: Record<string, string> = {}): Answer => ({
  status,
  headers,
  body: {
    outcome,
    statusText: `${outcome} from the test server`,
    statusCode: status,
    data: {},
    traceParent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  },
})

const ORDER = { shippingMethod: 'Standard' } as CreateOrderRequest

describe('printroute-client retries', () => {
  let server: Server
  let baseUrl: string
  let script: Answer[] = []
  let received: Received[] = []

  before(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        })
        const answer = script.shift() ?? failure(500, 'InternalServerError')
        const send = () => {
          if (response.destroyed) return
          const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {})
          const type = typeof answer.body === 'string' ? 'text/html' : 'application/json'
          response.writeHead(answer.status, { 'content-type': type, ...answer.headers }).end(body)
        }
        if (answer.delayMs) setTimeout(send, answer.delayMs)
        else send()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )

  function client(options: { maxRetries?: number; timeoutMs?: number; maxRetryDelayMs?: number } = {}) {
    return new PrintrouteClient({ apiKey: 'pr_sandbox_test', baseUrl, retryDelayMs: 50, ...options })
  }
  function expect(...answers: Answer[]) {
    script = answers
    received = []
  }

  test('503 then 200: a read is retried and succeeds; the key and the path are sent each time', async () => {
    expect(failure(503, 'ServiceUnavailable'), ok({ product: { sku: 'A' } }))
    const product = await client().products.get('A/B C')
    assert.deepEqual(product, { sku: 'A' })
    assert.equal(received.length, 2)
    for (const request of received) {
      assert.equal(request.method, 'GET')
      assert.equal(request.url, '/v4.0/products/A%2FB%20C')
      assert.equal(request.headers['x-api-key'], 'pr_sandbox_test')
    }
  })

  test('429 with Retry-After: 1 then 200: waits the second it was told before trying again', async () => {
    expect(failure(429, 'TooManyRequests', { 'retry-after': '1' }), ok({ quotes: [], issues: [] }))
    const started = performance.now()
    await client().quotes.create({ destinationCountryCode: 'GB', items: [] })
    const waited = performance.now() - started
    assert.equal(received.length, 2)
    assert.ok(waited >= 950, `waited ${waited} ms, Retry-After said 1 s`)
    assert.ok(waited < 3000, `waited ${waited} ms`)
    assert.equal(received[1]?.body, received[0]?.body, 'the same request again')
  })

  test('Retry-After as an HTTP date is honoured too', async () => {
    const inOneSecond = new Date(Date.now() + 1500).toUTCString() // HTTP dates have whole seconds
    expect(failure(503, 'ServiceUnavailable', { 'retry-after': inOneSecond }), ok({ orders: [], hasMore: false }))
    const started = performance.now()
    await client().orders.list()
    assert.equal(received.length, 2)
    assert.ok(performance.now() - started >= 400, 'waited for the date')
  })

  test('a create without an idempotency key is never retried: one request, the 503 thrown', async () => {
    expect(failure(503, 'ServiceUnavailable'), ok())
    await assert.rejects(client().orders.create(ORDER), { outcome: 'ServiceUnavailable', statusCode: 503 })
    assert.equal(received.length, 1)
    expect(failure(429, 'TooManyRequests', { 'retry-after': '0' }), ok())
    await assert.rejects(client().orders.create(ORDER), { outcome: 'TooManyRequests', statusCode: 429 })
    assert.equal(received.length, 1)
  })

  test('a create with an idempotency key is retried, with the key in the body every time', async () => {
    expect(failure(500, 'InternalServerError'), failure(502, 'BadGateway'), ok({ outcome: 'Created', order: {} }))
    const answer = await client().orders.create(ORDER, { idempotencyKey: 'checkout-42' })
    assert.equal(answer.outcome, 'Created')
    assert.equal(received.length, 3)
    for (const request of received) {
      assert.equal(request.headers['content-type'], 'application/json')
      assert.deepEqual(JSON.parse(request.body), { shippingMethod: 'Standard', idempotencyKey: 'checkout-42' })
    }
  })

  test('a retried POST sends one Idempotency-Key on every attempt, and retries a 409 IdempotencyKeyInUse', async () => {
    expect(failure(503, 'ServiceUnavailable'), failure(409, 'IdempotencyKeyInUse'), ok({ quotes: [], issues: [] }))
    await client().quotes.create({ destinationCountryCode: 'GB', items: [] })
    assert.equal(received.length, 3)
    const key = received[0]?.headers['idempotency-key']
    assert.match(String(key), /^[0-9a-f-]{36}$/)
    for (const request of received) assert.equal(request.headers['idempotency-key'], key)
    // A new call is a new request: a new key.
    expect(ok({ quotes: [], issues: [] }))
    await client().quotes.create({ destinationCountryCode: 'GB', items: [] })
    assert.notEqual(received[0]?.headers['idempotency-key'], key)
    // The caller's own key is sent as it is.
    expect(ok({ outcome: 'Cancelled', order: {} }))
    await client().orders.cancel('ord_7', { idempotencyKey: 'cancel-ord_7' })
    assert.equal(received[0]?.headers['idempotency-key'], 'cancel-ord_7')
    // Reads, POSTs that are not retried and creates (whose key is in the body) carry no header.
    expect(
      ok({ orders: [], hasMore: false }),
      failure(503, 'ServiceUnavailable'),
      ok({ outcome: 'Created', order: {} }),
    )
    await client().orders.list()
    await assert.rejects(client().callbacks.redeliver('cbd_1'), { statusCode: 503 })
    await client().orders.create(ORDER, { idempotencyKey: 'checkout-43' })
    assert.deepEqual(
      received.map((request) => request.headers['idempotency-key']),
      [undefined, undefined, undefined],
    )
    // Without a key, a 409 is not retried.
    expect(failure(409, 'IdempotencyKeyInUse'), ok())
    await assert.rejects(client().callbacks.redeliver('cbd_1'), { statusCode: 409 })
    assert.equal(received.length, 1)
  })

  test('gives up after maxRetries and throws the last answer; 4xx other than 429 is not retried', async () => {
    expect(failure(503, 'A'), failure(503, 'B'), failure(503, 'C'), ok())
    await assert.rejects(client({ maxRetries: 2 }).orders.actions('ord_1'), (error: unknown) => {
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.outcome, 'C')
      assert.equal(error.traceParent, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')
      return true
    })
    assert.equal(received.length, 3)
    expect(failure(404, 'EntityNotFound'), ok())
    await assert.rejects(client().orders.get('ord_1'), { outcome: 'EntityNotFound' })
    assert.equal(received.length, 1)
  })

  test('a Retry-After longer than maxRetryDelayMs is not waited for: the 429 is thrown at once', async () => {
    expect(failure(429, 'TooManyRequests', { 'retry-after': '120' }), ok())
    const started = performance.now()
    await assert.rejects(client({ maxRetryDelayMs: 5000 }).orders.list(), { outcome: 'TooManyRequests' })
    assert.equal(received.length, 1)
    assert.ok(performance.now() - started < 1000)
  })

  test('order actions are retried (they set a state); a redelivery is not (each makes a delivery)', async () => {
    expect(failure(503, 'ServiceUnavailable'), ok({ outcome: 'Cancelled', order: {} }))
    assert.equal((await client().orders.cancel('ord_7')).outcome, 'Cancelled')
    assert.deepEqual(
      received.map((request) => `${request.method} ${request.url} ${request.body}`),
      Array(2).fill('POST /v4.0/orders/ord_7/actions/cancel '),
    )
    expect(failure(503, 'ServiceUnavailable'), ok())
    await assert.rejects(client().callbacks.redeliver('cbd_1'), { statusCode: 503 })
    assert.equal(received.length, 1)
  })

  test('no answer within timeoutMs: retried, then a PrintrouteConnectionError ClientTimeout', async () => {
    expect({ ...ok(), delayMs: 400 }, { ...ok(), delayMs: 400 })
    await assert.rejects(client({ timeoutMs: 100, maxRetries: 1 }).orders.get('ord_1'), (error: unknown) => {
      assert.ok(error instanceof PrintrouteConnectionError)
      assert.equal(error.outcome, 'ClientTimeout')
      return true
    })
    assert.equal(received.length, 2)
  })

  test('an answer that is not printroute JSON (a proxy page) is UnexpectedResponse with its status', async () => {
    expect({ status: 502, body: '<html>Bad gateway</html>' }, { status: 502, body: '<html>Bad gateway</html>' })
    await assert.rejects(client({ maxRetries: 1 }).orders.get('ord_1'), {
      outcome: 'UnexpectedResponse',
      statusCode: 502,
    })
    assert.equal(received.length, 2)
  })

  test("the caller's AbortSignal stops the call, also while it waits to retry", async () => {
    expect(failure(503, 'ServiceUnavailable', { 'retry-after': '5' }), ok())
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('user gave up')), 100)
    await assert.rejects(client().orders.list({}, { signal: controller.signal }), /user gave up/)
    assert.equal(received.length, 1)
  })

  test('query filters: arrays as repeated parameters, absent ones left out; a traceparent passed on', async () => {
    expect(ok({ orders: [], hasMore: false, nextUrl: null }))
    const traceParent = '00-11111111111111111111111111111111-2222222222222222-01'
    await client().orders.list(
      { orderIds: ['ord_1', 'ord_2'], status: 'inProgress', top: 5, search: undefined },
      { traceParent },
    )
    assert.equal(received[0]?.url, '/v4.0/orders?orderIds=ord_1&orderIds=ord_2&status=inProgress&top=5')
    assert.equal(received[0]?.headers.traceparent, traceParent)
  })

  test('a raw-body upload (a photo) is retried like other POSTs: the same bytes, type and Idempotency-Key', async () => {
    expect(failure(503, 'ServiceUnavailable'), { status: 201, body: { outcome: 'Created', evidence: { id: 'evd_1' } } })
    const evidence = await client().claims.uploadEvidence(new TextEncoder().encode('PNGBYTES'), 'image/png')
    assert.equal(evidence.id, 'evd_1')
    assert.equal(received.length, 2)
    for (const request of received) {
      assert.equal(request.method, 'POST')
      assert.equal(request.url, '/v4.0/claims/evidence')
      assert.equal(request.headers['content-type'], 'image/png')
      assert.equal(request.body, 'PNGBYTES')
    }
    assert.ok(received[0]?.headers['idempotency-key'])
    assert.equal(received[1]?.headers['idempotency-key'], received[0]?.headers['idempotency-key'])
  })

  test('a CSV answer comes back as its text; a refusal of it is still a PrintrouteError', async () => {
    expect({ status: 200, body: 'row,merchantReference\r\n' })
    assert.equal(await client().orders.imports.results('imp_1'), 'row,merchantReference\r\n')
    assert.equal(received[0]?.url, '/v4.0/orders/imports/imp_1/results.csv')
    assert.match(String(received[0]?.headers.accept), /text\/csv/)
    expect(failure(404, 'EntityNotFound'))
    await assert.rejects(client().orders.imports.results('imp_2'), (error) => {
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.outcome, 'EntityNotFound')
      return true
    })
  })
})
