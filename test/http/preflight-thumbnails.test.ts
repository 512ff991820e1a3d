// Page thumbnails of preflighted PDFs (docs/print-files.md#page-thumbnails): GET /v4.0/files/preflight/{id}/pages/
// {page}.png and GET /v4.0/orders/{id}/assets/{assetId}/pages/{page}.png. Real PDFs made with pdf-lib, served on
// 127.0.0.1, downloaded by the real fetcher, rendered by pdf.js in the inspector's child process; a hostile file (a
// huge MediaBox, a broken content stream) still gets its report and bounded thumbnails.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFDocument, PDFName, rgb } from 'pdf-lib'
import sharp from 'sharp'
import { parseId } from '../../src/domain/ids.ts'
import { THUMBNAIL_MAX_SIDE } from '../../src/domain/preflight-thumbnails.ts'
import { type ImageServer, type ServedFile, startImageServer } from '../support/image-server.ts'
import { type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { bookPdf, tinyJpeg } from '../support/preflight-files.ts'
import { assertErrorBody } from '../support/raw-http.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'
const TRIM = { width: 297, height: 297 }
const PT_PER_MM = 72 / 25.4

/**
 * Six pages: a huge MediaBox on page 2, a content stream of garbage operators on page 3, good pages round them;
 * with `brokenFlate`, page 3's stream instead claims Flate compression and is not compressed.
 */
async function hostilePdf({ brokenFlate }: { brokenFlate: boolean }): Promise<ServedFile> {
  const document = await PDFDocument.create()
  const side = (TRIM.width + 6) * PT_PER_MM
  for (let index = 0; index < 6; index++) {
    const page = document.addPage([side, side])
    page.drawRectangle({ x: 10, y: 10, width: side / 2, height: side / 2, color: rgb(0.1, 0.3, 0.8) })
  }
  document.getPage(1).setMediaBox(0, 0, 14_400_000, 14_400_000)
  const broken = brokenFlate
    ? document.context.stream('x\u0000\u00ff garbage that does not inflate', { Filter: 'FlateDecode' })
    : document.context.stream(
        'q 1 0 0 1 0 0 cm BT /F9 99 Tf ((( ] Tj ET 0 0 1e30 1e30 re f Q Q Q 1 2 3 4 5 6 cm W n sh',
      )
  document.getPage(2).node.set(PDFName.of('Contents'), document.context.register(broken))
  return { body: Buffer.from(await document.save()), type: 'application/pdf' }
}

/** The pixels of a PNG answer, RGB. */
async function pixelsOf(body: Buffer) {
  const { data, info } = await sharp(body).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const at = (x: number, y: number) => {
    const offset = (y * info.width + x) * 3
    return [data[offset], data[offset + 1], data[offset + 2]] as [number, number, number]
  }
  return { width: info.width, height: info.height, at }
}

/** Whether a pixel is the overlay's trim red (#cf222e), give or take antialiasing. */
const isTrimRed = ([r, g, b]: [number, number, number]) => r > 150 && g < 110 && b < 110

for (const kind of databaseKinds) {
  describe(`page thumbnails (${kind})`, () => {
    let t: TestApp
    let files: ImageServer
    let drive: PipelineDriver

    before(async () => {
      t = await startTestApp({ kind })
      files = await startImageServer(
        {
          '/book.pdf': await bookPdf(24, TRIM, 3, { boxes: true, cmyk: true }),
          '/hostile.pdf': await hostilePdf({ brokenFlate: false }),
          '/broken.pdf': await hostilePdf({ brokenFlate: true }),
          '/tiny.jpg': await tinyJpeg(),
        },
        null,
      )
      drive = pipelineDriver(t)
    })
    after(async () => {
      await files.close()
      await t.close()
    })

    async function preflightOf(url: string, pageCount: number): Promise<Record<string, any>> {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/files/preflight',
        payload: { url, sku: BOOK, pageCount },
      })
      assert.equal(created.statusCode, 200, created.body)
      const id = json(created).preflight.id as string
      await t.app.services.preflight.runPreflight(parseId('pfl', id) as number)
      return json(await t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${id}` })).preflight
    }
    const notFound = (response: Awaited<ReturnType<TestApp['sandbox']>>) =>
      assertErrorBody(
        { status: response.statusCode, headers: response.headers, body: response.body },
        'EntityNotFound',
        404,
      )

    test('a preflight lists its first pages with thumbnails; each is a PNG with the trim drawn where the TrimBox is', async () => {
      const preflight = await preflightOf(files.url('book.pdf'), 24)
      assert.equal(preflight.status, 'Passed', JSON.stringify(preflight.checks))
      const square = { width: THUMBNAIL_MAX_SIDE, height: THUMBNAIL_MAX_SIDE }
      assert.deepEqual(
        preflight.thumbnails,
        [1, 2, 3, 4].map((page) => ({ page, ...square })),
      )
      const answer = await t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${preflight.id}/pages/2.png` })
      assert.equal(answer.statusCode, 200, answer.body)
      assert.equal(answer.headers['content-type'], 'image/png')
      assert.match(String(answer.headers['cache-control']), /^private/)
      const png = await pixelsOf(answer.rawPayload)
      assert.deepEqual([png.width, png.height], [240, 240])
      // The trim is 3 mm in from each edge of a 303 mm page: 2.4 px at 240 px; the middle of the page is not red.
      const trimAt = Math.round((3 / 303) * 240)
      const column = Array.from({ length: 8 }, (_, x) => isTrimRed(png.at(x, 120)))
      assert.ok(column.slice(trimAt - 1, trimAt + 2).some(Boolean), `a trim line near x = ${trimAt}: ${column}`)
      assert.equal(isTrimRed(png.at(120, 120)), false)
      assert.ok(
        isTrimRed(png.at(120, trimAt)) || isTrimRed(png.at(120, trimAt + 1)) || isTrimRed(png.at(120, trimAt - 1)),
      )

      // Not listed, not a page, malformed: 404 with the contract's body.
      notFound(await t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${preflight.id}/pages/5.png` }))
      notFound(await t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${preflight.id}/pages/one.png` }))
      notFound(await t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${preflight.id}/pages/1.jpg` }))
      // Another account's preflight, and the other environment: 404.
      const other = await t.createAccount()
      notFound(
        await t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${preflight.id}/pages/1.png` }, other.sandboxKey),
      )
      notFound(await t.live({ method: 'GET', url: `/v4.0/files/preflight/${preflight.id}/pages/1.png` }))
    })

    test('an image has no page thumbnails', async () => {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/files/preflight',
        payload: { url: files.url('tiny.jpg'), sku: 'GLOBAL-CAN-ROL-SC-8x8' },
      })
      const id = json(created).preflight.id as string
      await t.app.services.preflight.runPreflight(parseId('pfl', id) as number)
      const preflight = json(await t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${id}` })).preflight
      assert.notEqual(preflight.status, 'Running')
      assert.deepEqual(preflight.thumbnails, [])
      notFound(await t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${id}/pages/1.png` }))
    })

    test('a hostile PDF: a huge MediaBox is drawn within the long side, a broken page gets a bounded answer', async () => {
      const preflight = await preflightOf(files.url('hostile.pdf'), 24)
      assert.ok(['Failed', 'PassedWithWarnings'].includes(preflight.status), preflight.status)
      const pages = preflight.thumbnails.map((thumbnail: { page: number }) => thumbnail.page)
      assert.ok(pages.includes(1) && pages.includes(2) && pages.includes(4), JSON.stringify(preflight))
      assert.ok(
        pages.every((page: number) => page >= 1 && page <= 4),
        'only the first pages (no error names a page)',
      )
      const huge = preflight.thumbnails.find((thumbnail: { page: number }) => thumbnail.page === 2)
      assert.deepEqual([huge.width, huge.height], [THUMBNAIL_MAX_SIDE, THUMBNAIL_MAX_SIDE])
      // A stream that cannot be decoded makes the file Unreadable: a report, and no thumbnails.
      const broken = await preflightOf(files.url('broken.pdf'), 24)
      assert.equal(broken.status, 'Failed')
      assert.equal(broken.checks[0].code, 'Unreadable')
      assert.deepEqual(broken.thumbnails, [])
      for (const thumbnail of preflight.thumbnails) {
        assert.ok(Math.max(thumbnail.width, thumbnail.height) <= THUMBNAIL_MAX_SIDE, JSON.stringify(thumbnail))
        const answer = await t.sandbox({
          method: 'GET',
          url: `/v4.0/files/preflight/${preflight.id}/pages/${thumbnail.page}.png`,
        })
        assert.equal(answer.statusCode, 200)
        const png = await pixelsOf(answer.rawPayload)
        assert.deepEqual([png.width, png.height], [thumbnail.width, thumbnail.height])
      }
    })

    test("an order's PDF asset: thumbnails listed in its preflight and served; another order's or account's: 404", async () => {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [
            {
              sku: BOOK,
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ printArea: 'default', url: files.url('book.pdf'), pageCount: 24 }],
            },
          ],
        }),
      })
      assert.equal(created.statusCode, 200, created.body)
      const order = json(created).order
      const assetId = order.items[0].assets[0].id as string
      const before = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}/preflight` })).preflight
      assert.deepEqual(before[0].thumbnails, [])
      notFound(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}/assets/${assetId}/pages/1.png` }))

      await drive.allocate(order.id)
      const [asset] = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}/preflight` })).preflight
      assert.deepEqual(
        asset.thumbnails.map((thumbnail: { page: number }) => thumbnail.page),
        [1, 2, 3, 4],
      )
      const url = `/v4.0/orders/${order.id}/assets/${assetId}/pages/1.png`
      const answer = await t.sandbox({ method: 'GET', url })
      assert.equal(answer.statusCode, 200, answer.body)
      assert.equal(answer.headers['content-type'], 'image/png')
      assert.equal((await pixelsOf(answer.rawPayload)).width, 240)

      const other = await t.createAccount()
      notFound(await t.sandbox({ method: 'GET', url }, other.sandboxKey))
      notFound(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}/assets/${assetId}/pages/9.png` }))
      const another = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            items: [
              {
                sku: 'GLOBAL-CAN-ROL-SC-8x8',
                copies: 1,
                sizing: 'fillPrintArea',
                assets: [{ url: files.url('tiny.jpg') }],
              },
            ],
          }),
        }),
      ).order
      notFound(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${another.id}/assets/${assetId}/pages/1.png` }))
    })

    // Last: it moves the clock past every preflight's lifetime.
    test("a preflight's thumbnails are deleted with it by expire-preflights", async () => {
      const preflight = await preflightOf(files.url('book.pdf'), 24)
      const number = parseId('pfl', preflight.id) as number
      const key = `preflights/${number}.page-1.png`
      assert.ok((await t.app.services.files.get(key)).length > 0)
      // The blob store dates its files by the real time; the test's clock starts in the past.
      t.clock.advanceSeconds(Math.ceil((Date.now() - t.clock.now().getTime()) / 1000) + 7 * 24 * 3600 + 60)
      assert.ok((await t.app.services.preflight.expirePreflights()) >= 1)
      await assert.rejects(t.app.services.files.get(key), /No stored file/)
      notFound(await t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${preflight.id}/pages/1.png` }))
    })
  })
}
