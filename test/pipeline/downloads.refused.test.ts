// Downloads the pipeline refuses: a file over the size limit, and any file from a private address when private
// URLs are not allowed. Each fails its download attempts, and the order says why. The download step runs as its
// job's attempts would run it (the step helper's way, no live queue): what the queue adds, retries with backoff
// until the last attempt, is proved by the pipeline's end-to-end files.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DOWNLOAD_MAX_ATTEMPTS } from '../../src/domain/pipeline/download-file.ts'
import { quadrantPhoto, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAppOptions } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

/**
 * Places a one-poster Sandbox order whose image the app will refuse to download, on an app with `appOptions`, and
 * runs its downloads' attempts until they fail for good. Returns the order and the image server's record of
 * requests.
 */
async function orderWithRefusedDownload(appOptions: TestAppOptions) {
  const images = await startImageServer(
    { '/photo.jpg': { body: await quadrantPhoto(600, 400), type: 'image/jpeg' } },
    null,
  )
  const t = await startTestApp(appOptions)
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
            assets: [{ url: `${images.base}/photo.jpg` }],
          },
        ],
      }),
      headers: { 'content-type': 'application/json' },
    })
    const orderId = json(response).order.id
    // Every attempt its job would make, in turn; an attempt after the file has failed for good does nothing.
    const pipeline = t.app.services.pipeline
    await pipeline.startOrder(orderId)
    const fileKeys = Object.keys((await pipelineDriver(t).state(orderId)).pipeline.files)
    for (let attempt = 1; attempt <= DOWNLOAD_MAX_ATTEMPTS; attempt++) {
      for (const fileKey of fileKeys) await pipeline.downloadFile(orderId, fileKey, attempt)
    }
    const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
    assert.equal(order.status.details.downloadAssets, 'Error')
    return { order, imageRequests: images.requests }
  } finally {
    await t.close()
    await images.close()
  }
}

describe('download limits', () => {
  test('a file over the size limit fails its attempts with the limit named', async () => {
    const { order } = await orderWithRefusedDownload({ maxDownloadBytes: 1000 })
    assert.match(order.status.issues[0].description, /limit/)
    assert.equal(order.status.issues.at(-1).errorCode, 'order.items.assets.FailedToDownloaded')
  })
})

describe('downloads from private addresses', () => {
  test('are refused without --allow-private-urls', async () => {
    const { order, imageRequests } = await orderWithRefusedDownload({ allowPrivateUrls: false })
    assert.match(order.status.issues[0].description, /127\.0\.0\.1/)
    assert.match(
      order.status.issues[0].description,
      /127\.0\.0\.1 is a loopback address; printroute does not download from such addresses unless started with --allow-private-urls/,
      'the issue says how to allow it',
    )
    assert.deepEqual(imageRequests, [], 'nothing was ever sent to the private address')
  })
})
