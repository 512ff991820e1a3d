// Downloads the pipeline refuses, end to end with real workers: a file over the size limit, and any file from a
// private address when private URLs are not allowed. Each fails its download attempts, and the order says why.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { quadrantPhoto, startImageServer } from '../support/image-server.ts'
import { json, sampleOrder, startTestApp } from '../support/test-app.ts'
import { waitFor } from '../support/wait.ts'

describe('download limits', () => {
  test('a file over the size limit fails its attempts with the limit named', async () => {
    const images = await startImageServer(
      { '/big.jpg': { body: await quadrantPhoto(600, 400), type: 'image/jpeg' } },
      null,
    )
    const t = await startTestApp({
      workers: true,
      realClock: true,
      maxDownloadBytes: 1000,
      pipeline: { downloadRetryBaseSeconds: 0.01 },
    })
    try {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [
            {
              sku: 'GLOBAL-FAP-16x24',
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ url: `${images.base}/big.jpg` }],
            },
          ],
        }),
        headers: { 'content-type': 'application/json' },
      })
      const orderId = json(response).order.id
      const order = await waitFor(
        'downloadAssets Error',
        async () => {
          const current = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return current.status.details.downloadAssets === 'Error' ? current : undefined
        },
        60_000,
      )
      assert.match(order.status.issues[0].description, /limit/)
      assert.equal(order.status.issues.at(-1).errorCode, 'order.items.assets.FailedToDownloaded')
    } finally {
      await t.close()
      await images.close()
    }
  })
})

describe('downloads from private addresses', () => {
  test('are refused without --allow-private-urls', async () => {
    const images = await startImageServer(
      { '/canvas.jpg': { body: await quadrantPhoto(600, 400), type: 'image/jpeg' } },
      null,
    )
    const t = await startTestApp({
      workers: true,
      realClock: true,
      allowPrivateUrls: false,
      pipeline: { downloadRetryBaseSeconds: 0.01 },
    })
    try {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [
            {
              sku: 'GLOBAL-FAP-16x24',
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ url: `${images.base}/canvas.jpg` }],
            },
          ],
        }),
        headers: { 'content-type': 'application/json' },
      })
      const orderId = json(response).order.id
      const order = await waitFor(
        'downloadAssets Error',
        async () => {
          const current = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return current.status.details.downloadAssets === 'Error' ? current : undefined
        },
        60_000,
      )
      assert.match(order.status.issues[0].description, /127\.0\.0\.1/)
      assert.deepEqual(images.requests, [], 'nothing was ever sent to the private address')
    } finally {
      await t.close()
      await images.close()
    }
  })
})
