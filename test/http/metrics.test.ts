// GET /metrics in the Prometheus text format: after an order runs through the real pipeline the counters and
// histograms have moved, the request histogram is labelled by route pattern (never by raw URL), the job queue
// gauge counts real jobs; a metrics token guards the endpoint; a metrics port moves it to a server of its own.
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { JOB_NAMES } from '../../src/domain/jobs.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

/** The value of one sample (`name{labels} value`) of a scrape, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue
    const labelText = line.slice(name.length).split(' ')[0] ?? ''
    const present = Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]))
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(line.split(' ').at(-1))
  }
  return undefined
}

function routeLabels(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/^printroute_http_request_duration_seconds_count\{[^}]*route="([^"]*)"/gm)].map(
      (m) => m[1] ?? '',
    ),
  )
}

const phoneOrder = (url: string, callbackUrl: string | null = null) =>
  sampleOrder({
    callbackUrl,
    items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ printArea: 'default', url }] }],
  })

for (const kind of databaseKinds) {
  describe(`metrics after a whole pipeline (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let receiver: CallbackReceiver

    before(async () => {
      images = await startImageServer()
      receiver = await startCallbackReceiver()
      t = await startTestApp({
        kind,
        workers: true,
        realClock: true,
        pipeline: { downloadRetryBaseSeconds: 0.05, simulatedLabStepSeconds: 0.1 },
      })
    })
    after(async () => {
      await t.close()
      await receiver.close()
      await images.close()
    })

    test('counters, histograms and the job queue gauge move with a real order', async () => {
      const scrape = async () => {
        const response = await t.app.live.inject({ method: 'GET', url: '/metrics' })
        assert.equal(response.statusCode, 200)
        assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/)
        return response.body
      }
      const first = await scrape()
      assert.equal(sample(first, 'printroute_orders_created_total', { environment: 'sandbox' }), 0)
      assert.equal(sample(first, 'printroute_asset_downloads_total', { result: 'ok' }), 0)
      assert.equal(sample(first, 'printroute_callback_deliveries_total', { result: 'delivered' }), 0)
      assert.equal(sample(first, 'printroute_job_queue_depth', { name: 'download-file', state: 'queued' }), 0)
      assert.notEqual(sample(first, 'process_cpu_user_seconds_total'), undefined, 'default process metrics')
      assert.notEqual(sample(first, 'nodejs_heap_size_used_bytes'), undefined, 'default Node.js metrics')

      // An order in a pause window: its start job waits in the queue, deferred.
      const held = await t.createAccount({ pauseWindowSeconds: 3600 })
      const onHold = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload: phoneOrder(images.url('held.jpg')) },
        held.sandboxKey,
      )
      assert.equal(json(onHold).outcome, 'OnHold')
      const withHeld = await scrape()
      assert.equal(sample(withHeld, 'printroute_job_queue_depth', { name: 'start-order', state: 'deferred' }), 1)

      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: phoneOrder(images.url('case.jpg'), receiver.url()),
      })
      const orderId = json(created).order.id
      await waitFor('the order to complete', async () => {
        const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
        return order.status.stage === 'Complete' ? order : undefined
      })
      await waitFor('a delivered callback', async () => {
        const text = await scrape()
        return (sample(text, 'printroute_callback_deliveries_total', { result: 'delivered' }) ?? 0) > 0
          ? text
          : undefined
      })
      // A step is timed when it returns, which may be after the work it committed has moved the order on (the
      // submit step makes the packing slip after its commit, while the simulated lab already reports).
      const steps = ['start', 'download', 'allocate', 'render', 'submit', 'lab-report']
      const stepCount = (scraped: string, step: string) =>
        sample(scraped, 'printroute_pipeline_step_duration_seconds_count', { step }) ?? 0
      await waitFor('every step timed', async () => {
        const scraped = await scrape()
        return steps.every((step) => stepCount(scraped, step) >= 1) || undefined
      })
      const text = await scrape()

      assert.equal(sample(text, 'printroute_orders_created_total', { environment: 'sandbox' }), 2)
      assert.equal(sample(text, 'printroute_orders_created_total', { environment: 'live' }), 0)
      assert.equal(sample(text, 'printroute_asset_downloads_total', { result: 'ok' }), 1)
      for (const step of steps) {
        assert.ok(stepCount(text, step) >= 1, `step ${step} timed ${stepCount(text, step)} times`)
      }
      assert.equal(
        sample(text, 'printroute_http_request_duration_seconds_count', {
          environment: 'sandbox',
          route: '/v4.0/orders',
          method: 'POST',
          status: '200',
        }),
        2,
      )
      const routes = routeLabels(text)
      assert.ok(routes.has('/v4.0/orders/:orderId'), [...routes].join(', '))
      assert.ok(![...routes].some((route) => route.includes('ord_')), 'no raw URL becomes a label')
      for (const name of JOB_NAMES) {
        for (const state of ['queued', 'deferred', 'active']) {
          assert.notEqual(sample(text, 'printroute_job_queue_depth', { name, state }), undefined, `${name} ${state}`)
        }
      }
    })

    test('an unknown path is counted under one label, whatever the path', async () => {
      for (const path of ['/nothing/here', '/nothing/else']) {
        assert.equal((await t.app.sandbox.inject({ method: 'GET', url: path })).statusCode, 404)
      }
      const text = (await t.app.live.inject({ method: 'GET', url: '/metrics' })).body
      const routes = routeLabels(text)
      assert.ok(routes.has('(unmatched)'))
      assert.ok(![...routes].some((route) => route.includes('nothing')), [...routes].join(', '))
    })

    test('/metrics is served on the Live port only', async () => {
      assert.equal((await t.app.sandbox.inject({ method: 'GET', url: '/metrics' })).statusCode, 404)
      assert.equal(t.app.metricsServer, null)
    })
  })
}

describe('the metrics token and the metrics port', () => {
  test('with a token, scrapes need Authorization: Bearer <token>; others get 401 in the error format', async () => {
    const t = await startTestApp({ metrics: { token: 'metrics-secret-1' } })
    try {
      const scrape = (authorization?: string) =>
        t.app.live.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} })
      for (const authorization of [undefined, 'Bearer wrong', 'Basic bWV0cmljcy1zZWNyZXQtMQ==', 'metrics-secret-1']) {
        const refused = await scrape(authorization)
        assert.equal(refused.statusCode, 401, String(authorization))
        assert.deepEqual(Object.keys(json(refused)), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
        assert.equal(json(refused).outcome, 'Unauthorized')
        assert.equal(json(refused).traceParent, refused.headers.traceparent)
        assert.match(String(refused.headers['www-authenticate']), /^Bearer/)
      }
      const accepted = await scrape('Bearer metrics-secret-1')
      assert.equal(accepted.statusCode, 200)
      assert.match(accepted.body, /printroute_orders_created_total/)
    } finally {
      await t.close()
    }
  })

  test('with a port, the metrics (and health) move to a server of their own, which listens where told', async () => {
    const t = await startTestApp({ metrics: { port: 0, token: 'metrics-secret-2' } })
    try {
      assert.equal((await t.app.live.inject({ method: 'GET', url: '/metrics' })).statusCode, 404)
      const server = t.app.metricsServer
      assert.ok(server, 'metricsServer is built')
      await server.listen({ host: '127.0.0.1', port: 0 })
      const { port } = server.server.address() as AddressInfo
      const base = `http://127.0.0.1:${port}`
      assert.equal((await fetch(`${base}/metrics`)).status, 401)
      const scraped = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer metrics-secret-2' } })
      assert.equal(scraped.status, 200)
      assert.match(await scraped.text(), /printroute_job_queue_depth\{name="start-order",state="queued"\} 0/)
      const ready = await fetch(`${base}/readyz`)
      assert.equal(ready.status, 200)
      assert.equal(((await ready.json()) as { outcome: string }).outcome, 'Ok')
      const unknown = await fetch(`${base}/v4.0/orders`)
      assert.equal(unknown.status, 404)
      assert.equal(((await unknown.json()) as { outcome: string }).outcome, 'EndpointDoesNotExist')
      assert.equal((await fetch(`${base}/metrics`, { method: 'POST' })).status, 405)
    } finally {
      await t.close()
    }
  })
})
