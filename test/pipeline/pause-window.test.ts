// An order held in the account's pause window enters the pipeline only when the window ends: a job
// scheduled in the database for that moment, not a timer in any process's memory.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { solidJpeg, startImageServer } from '../support/image-server.ts'
import { json, sampleOrder, startTestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

test('an on-hold order starts fulfilment when its pause window expires, and not before', async () => {
  const images = await startImageServer({}, await solidJpeg(600, 900, '#336699'))
  const { requests } = images
  const url = images.url('photo.jpg')
  const t = await startTestApp({
    workers: true,
    realClock: true,
    pauseWindowSeconds: 3,
    pipeline: { simulatedLabStepSeconds: 0.05 },
  })
  try {
    const created = json(
      await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [{ sku: 'GLOBAL-FAP-16x24', copies: 1, sizing: 'fillPrintArea', assets: [{ url }] }],
        }),
        headers: { 'content-type': 'application/json' },
      }),
    )
    assert.equal(created.outcome, 'OnHold')
    const orderId = created.order.id
    const held = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })
    assert.equal(held.statusCode, 404)
    assert.ok(json(held).data.onHoldUntil)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    assert.deepEqual(requests, [], 'nothing is downloaded while the order is on hold')

    const deadline = Date.now() + 30_000
    let order: any
    while (Date.now() < deadline) {
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })
      if (response.statusCode === 200 && json(response).order.status.stage === 'Complete') {
        order = json(response).order
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    assert.ok(order, 'the order completes once the window has expired')
    assert.equal(requests.length, 1)
    assert.ok(
      new Date(order.status ? order.lastUpdated : 0).getTime() > new Date(json(held).data.onHoldUntil).getTime(),
    )
  } finally {
    await t.close()
    await images.close()
  }
})
