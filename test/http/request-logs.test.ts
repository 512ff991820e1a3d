// The request id in request logs is the trace id of the response's traceparent, so a support question quoting a
// traceParent finds the request's lines; lines services write while handling it carry the same id.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createLogger } from '../../src/adapters/logger.ts'
import { captureLogs } from '../support/log-capture.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const INCOMING = `00-${TRACE_ID}-00f067aa0ba902b7-01`

describe('request ids are trace ids', () => {
  const logs = captureLogs()
  let t: TestApp

  before(async () => {
    t = await startTestApp({ logger: createLogger({ level: 'info', format: 'json', destination: logs.stream }) })
  })
  after(() => t.close())

  test('a request with a traceparent logs its trace id as reqId, and the order it creates carries it', async () => {
    const response = await t.sandbox({
      method: 'POST',
      url: '/v4.0/orders',
      payload: sampleOrder(),
      headers: { 'content-type': 'application/json', traceparent: INCOMING },
    })
    assert.equal(response.statusCode, 200)
    const traceParent = json(response).traceParent
    assert.equal(response.headers.traceparent, traceParent)
    assert.equal(traceParent.split('-')[1], TRACE_ID)
    const orderId = json(response).order.id

    // One line per request, saying what was asked and answered.
    const requestLines = logs.entries().filter((entry) => entry.reqId === TRACE_ID)
    assert.equal(requestLines.length, 1, JSON.stringify(requestLines))
    const [line] = requestLines
    assert.match(line?.msg, /^POST \/v4\.0\/orders 200 \d+ ms$/)
    assert.equal(line?.level, 30)
    assert.equal(line?.req?.method, 'POST')
    assert.equal(line?.req?.url, '/v4.0/orders')
    assert.equal(line?.res?.statusCode, 200)
    assert.equal(typeof line?.responseTime, 'number')

    const created = logs.entries().find((entry) => entry.step === 'created' && entry.orderId === orderId)
    assert.ok(created, 'the order service logs the creation')
    assert.equal(created.traceId, TRACE_ID)
    assert.equal(created.environment, 'sandbox')
  })

  test('without a traceparent, reqId is the trace id of the traceparent the response carries', async () => {
    const response = await t.sandbox({ method: 'GET', url: '/v4.0/orders/ord_999999' })
    assert.equal(response.statusCode, 404)
    const traceId = String(response.headers.traceparent).split('-')[1]
    assert.match(traceId ?? '', /^[\da-f]{32}$/)
    assert.notEqual(traceId, TRACE_ID)
    const completed = logs.entries().find((entry) => entry.reqId === traceId)
    assert.equal(completed?.res?.statusCode, 404)
    assert.equal(completed?.msg.startsWith('GET /v4.0/orders/ord_999999 404 '), true, completed?.msg)
    assert.equal(json(response).traceParent, response.headers.traceparent)
  })

  test('health probes and metric scrapes that succeed stay out of the info log', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics']) {
      const response = await t.app.live.inject({ method: 'GET', url })
      assert.equal(response.statusCode, 200)
      const traceId = String(response.headers.traceparent).split('-')[1]
      assert.deepEqual(
        logs.entries().filter((entry) => entry.reqId === traceId),
        [],
        url,
      )
    }
    // Not one of them: logged as usual.
    const wrong = await t.app.live.inject({ method: 'POST', url: '/healthz' })
    assert.equal(wrong.statusCode, 405)
    const traceId = String(wrong.headers.traceparent).split('-')[1]
    assert.equal(logs.entries().find((entry) => entry.reqId === traceId)?.res?.statusCode, 405)
  })
})
