// End to end through the fulfilment pipeline: real generated images served by a local HTTP server, real
// downloads, allocation, sharp rendering, the simulated labs, on every configured database.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { planPrintLayout, printAreaRequestOf } from '../../src/domain/print-geometry.ts'
import { type ImageServer, quadrantPhoto, startImageServer } from '../support/image-server.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

const US_RECIPIENT = {
  name: 'Grace Hopper',
  email: null,
  phoneNumber: null,
  address: {
    line1: '1 Navy Way',
    line2: null,
    postalOrZipCode: '20001',
    countryCode: 'US',
    townOrCity: 'Washington',
    stateOrCounty: 'DC',
  },
}

for (const kind of databaseKinds) {
  // Its tests are orders of their own on one app, so they run at once: two of them mostly wait for ten download
  // attempts to fail, each half a second of job polling apart.
  describe(`fulfilment pipeline end to end (${kind})`, { concurrency: true }, () => {
    let images: ImageServer
    let t: TestApp
    const canvasPhoto: { body: Buffer; type: string } = { body: Buffer.alloc(0), type: 'image/jpeg' }

    before(async () => {
      canvasPhoto.body = await quadrantPhoto(2400, 1600)
      images = await startImageServer(
        {
          '/canvas.jpg': canvasPhoto,
          '/case.jpg': { body: await quadrantPhoto(900, 1600), type: 'image/jpeg' },
          '/not-an-image.jpg': { body: Buffer.from('<html>an error page</html>'), type: 'image/jpeg' },
        },
        null,
      )
      t = await startTestApp({
        kind,
        workers: true,
        realClock: true,
        pipeline: { simulatedLabStepSeconds: 0.1, downloadRetryBaseSeconds: 0.01 },
      })
    })

    after(async () => {
      await t.close()
      await images.close()
    })

    const create = async (order: Record<string, unknown>) => {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: order,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id as string
    }
    const get = async (orderId: string) =>
      json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order

    test('a two-lab order goes from create to Complete with shipments, tracking and print files of the right size', async () => {
      const orderId = await create(
        sampleOrder({
          shippingMethod: 'Standard',
          recipient: US_RECIPIENT,
          items: [
            {
              sku: 'GLOBAL-CAN-10x10',
              copies: 1,
              sizing: 'fillPrintArea',
              attributes: { wrap: 'Black' },
              assets: [{ url: `${images.base}/canvas.jpg?X-Signature=a%2Fb%2Bc%3D` }],
            },
            {
              sku: 'GLOBAL-TECH-IP11P-FC-CP',
              copies: 2,
              sizing: 'fitPrintArea',
              assets: [{ url: `${images.base}/case.jpg` }],
            },
          ],
        }),
      )
      const order = await waitFor(
        'stage Complete',
        async () => {
          const current = await get(orderId)
          if (current.status.stage === 'Complete') return current
          if (current.status.issues.length > 0) throw new Error(JSON.stringify(current.status.issues))
          return undefined
        },
        60_000,
      )
      assert.deepEqual(order.status.details, {
        downloadAssets: 'Complete',
        allocateProductionLocation: 'Complete',
        printReadyAssetsPrepared: 'Complete',
        inProduction: 'Complete',
        shipping: 'Complete',
      })
      assert.deepEqual(order.status.issues, [])
      assert.ok(images.requests.includes('/canvas.jpg?X-Signature=a%2Fb%2Bc%3D'), 'the URL is fetched exactly as given')
      for (const item of order.items) {
        assert.equal(item.status, 'Ok')
        for (const asset of item.assets) {
          assert.equal(asset.status, 'Complete')
          assert.match(asset.thumbnailUrl, /^http:\/\/127\.0\.0\.1:\d+\/files\/thumbnails\//)
        }
      }
      // A canvas from a US lab and the phone case from the only lab that makes it, in GB: two shipments.
      assert.equal(order.shipments.length, 2)
      const labs = order.shipments.map((shipment: any) => shipment.fulfillmentLocation.countryCode).sort()
      assert.deepEqual(labs, ['GB', 'US'])
      for (const shipment of order.shipments) {
        assert.equal(shipment.status, 'Shipped')
        assert.equal(shipment.cancelled, false)
        assert.match(shipment.id, /^shp_\d+$/)
        assert.ok(shipment.dispatchDate)
        assert.ok(shipment.tracking?.number)
        assert.equal(shipment.items.length, 1)
      }
      assert.ok(order.lastUpdated > order.created)

      // The print files have their planned sizes: laid out from the print area's spec where the catalogue gives
      // one (trim and bleed at its dpi; every area of the sample has one), else the variant's print area size.
      const rows = await t.database.db.query<{ pipeline: any }>('SELECT pipeline FROM orders WHERE id = $1', [
        Number(orderId.slice(4)),
      ])
      const pipeline = typeof rows[0]?.pipeline === 'string' ? JSON.parse(rows[0].pipeline) : rows[0]?.pipeline
      for (const shipment of order.shipments) {
        const itemId = shipment.items[0].itemId
        const item = order.items.find((candidate: any) => candidate.id === itemId)
        const variant = catalogue.findVariant(item.sku, item.attributes)
        const area = variant && printAreaRequestOf(variant, 'default', catalogue.colours)
        const layout = area ? planPrintLayout(area) : null
        const pixels = variant?.printAreaSizes.default
        const size = layout ? { horizontalResolution: layout.width, verticalResolution: layout.height } : pixels
        const [assetId, printFile] = Object.entries(pipeline.shipments[shipment.id].printFiles)[0] as [string, any]
        const metadata = await sharp(join(t.filesDir, printFile.blobKey)).metadata()
        assert.equal(metadata.width, size?.horizontalResolution)
        assert.equal(metadata.height, size?.verticalResolution)
        // In the format the lab asks for (the catalogue names it per lab and product).
        const wanted = variant?.offers.find((offer) => offer.lab.code === shipment.fulfillmentLocation.labCode)
        assert.equal(metadata.format, wanted?.printFileFormat)
        assert.equal(pipeline.shipments[shipment.id].formats[assetId], wanted?.printFileFormat)
      }
      // The thumbnail is served by printroute under its signed URL, and only with the signature.
      const thumbnail = new URL(order.items[0].assets[0].thumbnailUrl)
      const served = await t.sandbox({ method: 'GET', url: `${thumbnail.pathname}${thumbnail.search}` }, null)
      assert.equal(served.statusCode, 200)
      assert.equal(served.headers['content-type'], 'image/jpeg')
      const unsigned = await t.sandbox({ method: 'GET', url: thumbnail.pathname }, null)
      assert.equal(unsigned.statusCode, 404)
    })

    test('a missing asset fails after 10 attempts with FailedToDownloaded; the order is not lost', async () => {
      const orderId = await create(
        sampleOrder({
          items: [
            {
              sku: 'GLOBAL-FAP-16x24',
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ url: `${images.base}/missing.jpg` }],
            },
          ],
        }),
      )
      const order = await waitFor(
        'downloadAssets Error',
        async () => {
          const current = await get(orderId)
          return current.status.details.downloadAssets === 'Error' ? current : undefined
        },
        60_000,
      )
      const codes = order.status.issues.map((issue: any) => issue.errorCode)
      assert.equal(codes.filter((code: string) => code === 'order.items.assets.NotDownloaded').length, 10)
      assert.equal(codes.filter((code: string) => code === 'order.items.assets.FailedToDownloaded').length, 1)
      assert.match(order.status.issues[0].description, /^Download attempt 1 of 10 failed .*HTTP 404/)
      assert.equal(order.status.issues[0].objectId, order.items[0].id)
      assert.equal(order.items[0].status, 'Invalid')
      assert.equal(order.items[0].assets[0].status, 'Error')
      assert.equal(order.status.stage, 'InProgress')
      assert.deepEqual(order.shipments, [])
    })

    test('a wrong md5Hash and a file that is no image are failed attempts with their reason', async () => {
      const md5 = createHash('md5').update(canvasPhoto.body).digest('hex')
      const wrong = md5.replace(/^./, md5[0] === 'a' ? 'b' : 'a')
      const orderId = await create(
        sampleOrder({
          items: [
            {
              sku: 'GLOBAL-FAP-16x24',
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ url: `${images.base}/canvas.jpg`, md5Hash: wrong }],
            },
            {
              sku: 'GLOBAL-FAP-16x24',
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ url: `${images.base}/not-an-image.jpg` }],
            },
          ],
        }),
      )
      const order = await waitFor(
        'downloadAssets Error',
        async () => {
          const current = await get(orderId)
          return current.status.details.downloadAssets === 'Error' ? current : undefined
        },
        60_000,
      )
      const descriptions = (itemId: string) =>
        order.status.issues.filter((issue: any) => issue.objectId === itemId).map((issue: any) => issue.description)
      assert.ok(descriptions(order.items[0].id).every((text: string) => /md5/i.test(text)))
      assert.ok(descriptions(order.items[1].id).every((text: string) => /not .*(image|supported)|content/i.test(text)))
      assert.equal(order.items[0].status, 'Invalid')
      assert.equal(order.items[1].status, 'Invalid')
    })
  })
}
