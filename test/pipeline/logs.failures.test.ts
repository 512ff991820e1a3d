// What the logs say when things fail: a download that keeps failing gets one line per attempt with n/10 and the
// next attempt's time, a warning when the tenth gives up, then the order stopping; a callback refused by its
// receiver gets a line per attempt with the status, the latency and the next attempt. The counters move alike.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createLogger } from '../../src/adapters/logger.ts'
import { startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { captureLogs } from '../support/log-capture.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

describe('a download that keeps failing, in the logs', () => {
  const logs = captureLogs()
  let t: TestApp
  let server: ImageServer
  let url: string

  before(async () => {
    server = await startImageServer({}, null)
    url = server.url('missing.jpg')
    t = await startTestApp({ logger: createLogger({ level: 'info', format: 'json', destination: logs.stream }) })
  })
  after(async () => {
    await t.close()
    await server.close()
  })

  test('ten attempts, each logged with n/10; the last gives up and the order stops', async () => {
    const created = await t.sandbox({
      method: 'POST',
      url: '/v4.0/orders',
      payload: sampleOrder({ items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url }] }] }),
    })
    const orderId = json(created).order.id
    const drive = pipelineDriver(t)
    await t.app.services.pipeline.startOrder(orderId)
    const [fileKey] = Object.keys((await drive.state(orderId)).pipeline.files)
    assert.ok(fileKey)
    for (let attempt = 1; attempt <= 10; attempt++)
      await t.app.services.pipeline.downloadFile(orderId, fileKey, attempt)

    const lines = logs.entries().filter((entry) => entry.orderId === orderId)
    const downloads = lines.filter((entry) => entry.step === 'download')
    assert.deepEqual(
      downloads.map((entry) => entry.attempt),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    )
    for (const entry of downloads) {
      assert.equal(entry.result, 'failed')
      assert.match(
        entry.msg,
        new RegExp(`^download of asset ${fileKey} failed \\(attempt ${entry.attempt}/10\\): .*404`),
      )
    }
    for (const entry of downloads.slice(0, 9)) {
      assert.equal(entry.level, 30)
      assert.ok(!Number.isNaN(Date.parse(entry.nextAttemptAt)), entry.nextAttemptAt)
      assert.ok(entry.msg.endsWith(`next attempt at ${entry.nextAttemptAt}`), entry.msg)
    }
    const last = downloads.at(-1)
    assert.equal(last?.level, 40, 'the tenth failure is a warning')
    assert.equal(last?.nextAttemptAt, null)
    assert.ok(last?.msg.endsWith('gave up'))
    const stopped = lines.at(-1)
    assert.equal(stopped?.step, 'failed')
    assert.deepEqual(stopped?.details, ['downloadAssets'])
    assert.equal(stopped?.level, 40)

    const metrics = await t.app.live.inject({ method: 'GET', url: '/metrics' })
    assert.match(metrics.body, /^printroute_asset_downloads_total\{result="failed"\} 10$/m)
    assert.match(metrics.body, /^printroute_asset_downloads_total\{result="ok"\} 0$/m)
  })
})

describe('a callback refused once, in the logs', () => {
  test('each attempt is logged with its status, latency and what happens next', async () => {
    const logs = captureLogs()
    const images = await startImageServer()
    const receiver = await startCallbackReceiver({ respond: (_callback, index) => (index === 0 ? 503 : 200) })
    const t = await startTestApp({
      logger: createLogger({ level: 'info', format: 'json', destination: logs.stream }),
      callbackRetryScheduleSeconds: [0, 5, 10],
    })
    try {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          callbackUrl: receiver.url(),
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('a.jpg') }] }],
        }),
      })
      const orderId = json(created).order.id
      // Downloading the asset emits downloadAssets#Complete: the first delivery.
      await pipelineDriver(t).allocate(orderId)
      const [delivery] = json(await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}` })).callbacks
      const deliveryNumber = Number(String(delivery.id).replace('cbd_', ''))
      await t.app.services.callbacks.deliver(deliveryNumber, 1)
      await t.app.services.callbacks.deliver(deliveryNumber, 2)
      assert.equal(receiver.received.length, 2)

      const attempts = logs.entries().filter((entry) => entry.step === 'callback')
      assert.equal(attempts.length, 2)
      const [refused, delivered] = attempts
      assert.equal(refused?.orderId, orderId)
      assert.equal(refused?.deliveryId, delivery.id)
      assert.equal(refused?.status, 503)
      assert.equal(refused?.result, 'failed')
      assert.equal(typeof refused?.latencyMs, 'number')
      assert.equal(refused?.nextAttemptAt, new Date(t.clock.now().getTime() + 5000).toISOString())
      assert.match(refused?.msg, /attempt 1\/3: HTTP 503 in \d+ ms; next attempt at /)
      assert.equal(delivered?.status, 200)
      assert.equal(delivered?.result, 'delivered')
      assert.equal(delivered?.nextAttemptAt, null)
      assert.match(delivered?.msg, /attempt 2\/3: HTTP 200 in \d+ ms; delivered$/)

      const metrics = (await t.app.live.inject({ method: 'GET', url: '/metrics' })).body
      assert.match(metrics, /^printroute_callback_deliveries_total\{result="failed"\} 1$/m)
      assert.match(metrics, /^printroute_callback_deliveries_total\{result="delivered"\} 1$/m)
      assert.match(metrics, /^printroute_callback_deliveries_total\{result="gave_up"\} 0$/m)
    } finally {
      await t.close()
      await receiver.close()
      await images.close()
    }
  })
})
