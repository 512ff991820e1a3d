// GET /v4.0/orders/{id}/print-files: each print file of an order with its state, where its source was cut,
// turned or bordered (in source pixels), and a signed link to an 800 px preview of the rendered pixels. Real
// images from a 127.0.0.1 server, the real pipeline steps, the real renderer, on every database backend.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { planPrintLayout } from '../../src/domain/print-geometry.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { assertErrorBody } from '../support/raw-http.ts'
import { catalogue, json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

type Rgb = readonly [number, number, number]
const RED: Rgb = [220, 30, 30]
const GREEN: Rgb = [30, 200, 30]
const BLUE: Rgb = [30, 30, 220]
const YELLOW: Rgb = [230, 230, 30]

/** Red top-left, green top-right, blue bottom-left, yellow bottom-right (even sides). */
async function quadrants(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const colour = y < height / 2 ? (x < width / 2 ? RED : GREEN) : x < width / 2 ? BLUE : YELLOW
      raw.set(colour, (y * width + x) * 3)
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer()
}

async function assertColourAt(image: Buffer, x: number, y: number, expected: Rgb, where: string): Promise<void> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true })
  const index = (y * info.width + x) * info.channels
  const actual = [data[index], data[index + 1], data[index + 2]] as number[]
  const close = actual.every((value, channel) => Math.abs(value - (expected[channel] as number)) <= 40)
  assert.ok(close, `${where}: expected ~${expected.join(',')}, got ${actual.join(',')}`)
}

/**
 * The phone case's print file (sample catalogue), portrait: its print area has a spec, so the file is laid out
 * from it (docs/print-files.md, "Bleed and canvas wraps"), not made at the 1080 x 2070 px of printAreaSizes.
 */
function phoneCaseFile(): { width: number; height: number } {
  const spec = catalogue.findVariant(PHONE_CASE)?.printAreaSpecs.default
  if (!spec) throw new Error(`${PHONE_CASE} has no spec for its default print area`)
  const { width, height } = planPrintLayout({ spec })
  return { width, height }
}
const AREA = phoneCaseFile()

for (const kind of databaseKinds) {
  describe(`print files and previews (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver

    before(async () => {
      t = await startTestApp({ kind })
      await listenOnLoopback(t)
      images = await startImageServer({
        '/landscape.jpg': { body: await quadrants(600, 400), type: 'image/jpeg' },
        '/broken.pdf': { body: Buffer.from('%PDF-1.4\nnot really a PDF\n'), type: 'application/pdf' },
      })
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    async function create(items: Record<string, unknown>[], key?: string): Promise<string> {
      const response = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder({ items }) }, key)
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    const printFilesOf = async (orderId: string, key?: string | null) =>
      t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/print-files` }, key)

    const phoneCase = (sizing: string, name: string) => ({
      sku: PHONE_CASE,
      copies: 1,
      sizing,
      assets: [{ url: images.url(name) }],
    })

    test('pending once allocated, then rendered: the crop of a turned source in source pixels, a preview link', async () => {
      const orderId = await create([
        phoneCase('fillPrintArea', 'landscape.jpg'),
        phoneCase('fitPrintArea', 'portrait.jpg'),
      ])
      const before = await printFilesOf(orderId)
      assert.equal(before.statusCode, 200, before.body)
      assert.deepEqual(json(before).printFiles, [], 'nothing before allocation')

      const allocated = await drive.allocate(orderId)
      const [fill, fit] = allocated.document.items
      const pending = json(await printFilesOf(orderId)).printFiles
      assert.equal(pending.length, 2)
      assert.deepEqual(AREA, { width: 1094, height: 2094 })
      const shipmentOf = (itemId: string) =>
        allocated.document.shipments.find((shipment) => shipment.items.some((entry) => entry.itemId === itemId))
      assert.deepEqual(pending[0], {
        shipmentId: shipmentOf(fill?.id as string)?.id,
        labCode: shipmentOf(fill?.id as string)?.fulfillmentLocation.labCode,
        itemId: fill?.id,
        assetId: fill?.assets[0]?.id,
        printArea: 'default',
        format: 'png', // the phone case lab's format
        status: 'pending',
        failureReason: null,
        // The layout's size already while pending: 71.4 x 144 mm at 350 dpi is 984 x 1984 px (983.9 and 1984.3
        // rounded), with 4 mm of bleed, 55 px (55.1), on every side: 1094 x 2094.
        width: AREA.width,
        height: AREA.height,
        sizing: 'fillPrintArea',
        rotated: null,
        source: null,
        placement: null,
        previewUrl: null,
      })

      await drive.render(orderId)
      const response = await printFilesOf(orderId)
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.equal(body.outcome, 'Ok')
      assert.match(body.traceParent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
      const [filled, fitted] = body.printFiles
      // 600x400 landscape into the 1094x2094 portrait file (a flat print's image box is the whole file, bleed
      // included): turned clockwise to 400x600, resized to 1396x2094 (x 3.49), 302 columns too many: 151 cut on
      // each side = 43.27 turned columns = 43.27 source rows at the top and at the bottom. Whole pixels around the
      // kept rows 43.27..356.73: rows 43..357, all 600 columns.
      assert.deepEqual(
        { ...filled, previewUrl: null },
        {
          ...pending[0],
          status: 'rendered',
          rotated: true,
          source: { width: 600, height: 400 },
          placement: { left: 0, top: 43, width: 600, height: 314, margins: null },
        },
      )
      // 300x500 portrait into 1094x2094, fitted: not turned, resized to 1094x1823 (500 x 1094 / 300 = 1823.3),
      // 271 white rows: 135 above, the odd one below (136); the whole source is printed.
      assert.equal(fitted.itemId, fit?.id)
      assert.deepEqual(
        [fitted.status, fitted.sizing, fitted.rotated, fitted.source, fitted.placement],
        [
          'rendered',
          'fitPrintArea',
          false,
          { width: 300, height: 500 },
          { left: 0, top: 0, width: 300, height: 500, margins: { top: 135, right: 0, bottom: 136, left: 0 } },
        ],
      )

      // The preview: a signed link on the Sandbox address to a JPEG of at most 800 px in the print area's shape,
      // showing the turned source (its left edge on top: blue | red over yellow | green).
      assert.match(filled.previewUrl, /\/files\/previews\/ord_\d+\/shp_\d+\/ast_\d+\.jpg\?expires=\d+&signature=/)
      const served = await fetch(filled.previewUrl)
      assert.equal(served.status, 200)
      const preview = Buffer.from(await served.arrayBuffer())
      const metadata = await sharp(preview).metadata()
      assert.equal(metadata.format, 'jpeg')
      const { width, height } = metadata as { width: number; height: number }
      assert.ok(Math.max(width, height) <= 800, `${width}x${height}`)
      assert.equal(height, 800)
      // The same shape as the print file, to the rounding of one side (1094/2094 x 800 = 417.95).
      assert.ok(Math.abs(width * AREA.height - height * AREA.width) <= AREA.height / 2, `${width}x${height}`)
      await assertColourAt(preview, 100, 200, BLUE, 'top left')
      await assertColourAt(preview, width - 100, 200, RED, 'top right')
      await assertColourAt(preview, 100, 600, YELLOW, 'bottom left')
      await assertColourAt(preview, width - 100, 600, GREEN, 'bottom right')
      const fittedPreview = await sharp(Buffer.from(await (await fetch(fitted.previewUrl)).arrayBuffer())).metadata()
      assert.deepEqual([fittedPreview.width, fittedPreview.height], [width, height])
    })

    test('a file that cannot be read is held at its download: no print file is made, the issue says why', async () => {
      // Every asset is preflighted when it is downloaded: an unreadable PDF holds its item before any print file.
      const orderId = await create([phoneCase('fillPrintArea', 'broken.pdf')])
      await drive.allocate(orderId)
      assert.deepEqual(json(await printFilesOf(orderId)).printFiles, [])
      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      const codes = order.status.issues.map((issue: { errorCode: string }) => issue.errorCode)
      assert.ok(codes.includes('order.items.assets.PreflightFailed'), JSON.stringify(order.status.issues))
    })

    test('an order on hold in its pause window has no print files yet', async () => {
      const paused = await t.createAccount({ pauseWindowSeconds: 3600 })
      const orderId = await create([phoneCase('fillPrintArea', 'portrait.jpg')], paused.sandboxKey)
      const response = await printFilesOf(orderId, paused.sandboxKey)
      assert.equal(response.statusCode, 200, response.body)
      assert.deepEqual(json(response).printFiles, [])
    })

    test("another account's order, the other environment's, an unknown one: 404; a malformed id: 400", async () => {
      const orderId = await create([phoneCase('fillPrintArea', 'portrait.jpg')])
      const other = await t.createAccount()
      for (const response of [
        await printFilesOf(orderId, other.sandboxKey),
        await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}/print-files` }),
        await printFilesOf('ord_999999'),
      ]) {
        const answer = { status: response.statusCode, headers: response.headers, body: response.body }
        assertErrorBody(answer, 'EntityNotFound', 404)
      }
      const malformed = await printFilesOf('nope')
      const body = assertErrorBody(
        { status: malformed.statusCode, headers: malformed.headers, body: malformed.body },
        'ValidationFailed',
        400,
      )
      assert.equal(body.failures.orderId[0].code, 'InvalidFormat')
      assert.equal((await printFilesOf(orderId, null)).statusCode, 401)
    })
  })
}
