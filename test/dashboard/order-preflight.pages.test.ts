// An order's preflight on the dashboard's order page (docs/dashboard.md): each asset shows its report (a small
// image's ImageTooSmall warning with what it measures and what the product needs; a good file "passed"), and a
// rendered print file whose area has a spec shows the trim, face and safe lines over its preview. Rendered pages
// over HTTP, real files on 127.0.0.1, the pipeline stepped by the driver.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { parseId } from '../../src/domain/ids.ts'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { registerOrdersPages } from '../../src/web/operator/orders.pages.ts'
import { startAdminPages } from '../support/admin-pages.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { bookPdf, tinyJpeg } from '../support/preflight-files.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
/** A rolled canvas: its default print area has a spec (3 mm bleed, 5 mm safe). */
const CANVAS = 'GLOBAL-CAN-ROL-SC-8x8'
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'

for (const kind of databaseKinds) {
  describe(`the order page's preflight (${kind})`, () => {
    let t: TestApp
    let files: ImageServer
    let cookie: string

    before(async () => {
      t = await startTestApp({ kind })
      const { key } = await t.app.services.accounts.createApiKey(t.account.id, 'sandbox', TEST_ACTOR, { scopes: null })
      const signedIn = await t.app.services.sessions.signIn(key, 'sandbox')
      assert.ok(signedIn.signedIn)
      cookie = `${sessionCookieName('sandbox')}=${signedIn.token}`
      const big = await sharp({
        create: { width: 2500, height: 2500, channels: 3, background: { r: 40, g: 90, b: 160 } },
      })
        .jpeg()
        .toBuffer()
      files = await startImageServer(
        {
          '/tiny.jpg': await tinyJpeg(),
          '/big.jpg': { body: big, type: 'image/jpeg' },
          '/book.pdf': await bookPdf(24, { width: 297, height: 297 }, 3, { boxes: true }),
        },
        null,
      )
    })
    after(async () => {
      await files.close()
      await t.close()
    })

    const get = (url: string) => t.sandbox({ method: 'GET', url, headers: { cookie } }, null)

    test('each asset shows its report; a warning with its measures; guide lines over a spec area preview', async () => {
      const created = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            items: [
              { sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: files.url('tiny.jpg') }] },
              { sku: CANVAS, copies: 1, sizing: 'fillPrintArea', assets: [{ url: files.url('big.jpg') }] },
            ],
          }),
        }),
      )
      const orderId = created.order.id as string
      const [phoneAsset, canvasAsset] = created.order.items.map(
        (item: { assets: { id: string }[] }) => item.assets[0]?.id,
      )

      const waiting = await get(`/dashboard/orders/${orderId}`)
      assert.equal(waiting.statusCode, 200, waiting.body)
      assert.equal(waiting.body.match(/data-preflight="Pending"/g)?.length, 2)
      assert.match(waiting.body, /Preflight: <strong>waiting for the download<\/strong>/)

      const drive = pipelineDriver(t)
      await drive.allocate(orderId)
      await drive.render(orderId)
      const page = await get(`/dashboard/orders/${orderId}`)
      assert.equal(page.statusCode, 200, page.body)
      const body = page.body
      // The existing parts are all still there.
      for (const id of ['progress-heading', 'items-heading', 'shipments-heading', 'callbacks-heading']) {
        assert.match(body, new RegExp(`id="${id}"`))
      }
      assert.match(body, /data-preflight="PassedWithWarnings"/)
      assert.match(body, /Preflight: <strong>passed with warnings: the file prints<\/strong>/)
      const table = body.match(
        new RegExp(`<caption id="preflight-checks-${phoneAsset}">Preflight checks</caption>[\\s\\S]*?</table>`),
      )?.[0]
      assert.ok(table, 'the warning asset has a checks table')
      assert.match(
        table,
        /<td data-label="Severity">warning<\/td><td data-label="Code"><code>ImageTooSmall<\/code><\/td>/,
      )
      assert.match(
        table,
        /<td data-label="Page">—<\/td><td data-label="Found">[^<]*dpi[^<]*<\/td><td data-label="Needed">[^<]+<\/td>/,
      )
      assert.doesNotMatch(body, new RegExp(`preflight-checks-${canvasAsset}`), 'a passed file has no checks table')
      assert.match(
        body,
        /data-preflight="Passed"><p class="notice notice-success small" role="status">Preflight: <strong>passed<\/strong>/,
      )

      // Both areas have a spec in the sample catalogue: each preview carries its trim and safe lines (flat
      // products: no face line).
      assert.equal(body.match(/class="overlay overlay-guides"/g)?.length, 2)
      assert.match(body, /<rect class="overlay-trim" x="\d+" y="\d+"/)
      assert.match(body, /<rect class="overlay-safe" /)
      assert.doesNotMatch(body, /class="overlay-face"/)
      assert.match(body, /Lines: <span class="key-trim">trim<\/span>/)
    })

    test('a PDF asset shows its page thumbnails with the legend, on the order page, Check a file and the console', async () => {
      const created = json(
        await t.sandbox({
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
        }),
      )
      const orderId = created.order.id as string
      const assetId = created.order.items[0].assets[0].id as string
      await pipelineDriver(t).allocate(orderId)
      const body = (await get(`/dashboard/orders/${orderId}`)).body
      const sources = [...body.matchAll(/<img src="([^"]+\/pages\/\d+\.png)" width="(\d+)" height="(\d+)"/g)]
      assert.deepEqual(
        sources.map((match) => match[1]),
        [1, 2, 3, 4].map((page) => `/v4.0/orders/${orderId}/assets/${assetId}/pages/${page}.png`),
      )
      assert.match(body, /Page thumbnails \(4 of 24 pages\)\. Lines: <span class="thumbnail-key key-bleed"/)
      assert.match(body, /key-trim" data-colour="#cf222e">trim<\/span>/)
      // The page's own link, read with the page's session cookie, is the PNG.
      const image = await get(sources[0]?.[1] as string)
      assert.equal(image.statusCode, 200)
      assert.equal(image.headers['content-type'], 'image/png')

      // Check a file: the same thumbnails of a stand-alone preflight.
      const preflight = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/files/preflight',
          payload: { url: files.url('book.pdf'), sku: BOOK, pageCount: 24 },
        }),
      ).preflight
      await t.app.services.preflight.runPreflight(parseId('pfl', preflight.id) as number)
      const checked = (await get(`/dashboard/check-file/${preflight.id}`)).body
      assert.match(checked, new RegExp(`<img src="/v4.0/files/preflight/${preflight.id}/pages/1.png" width="240"`))
      assert.match(checked, /Lines: <span class="thumbnail-key key-bleed"/)

      // The console: its own route, since an operator's session is no API key.
      const consolePages = await startAdminPages((scope, console) =>
        registerOrdersPages(scope, console, t.app.services.adminViews.orders),
      )
      try {
        const page = (await consolePages.request(`/admin/orders/${orderId}`)).body
        const path = `/admin/orders/${orderId}/assets/${assetId}/pages/1.png`
        assert.match(page, new RegExp(`<img src="${path}"`))
        const answer = await fetch(`${consolePages.origin}${path}`)
        assert.equal(answer.status, 200)
        assert.equal(answer.headers.get('content-type'), 'image/png')
        assert.equal((await sharp(Buffer.from(await answer.arrayBuffer())).metadata()).width, 240)
        const missing = await fetch(`${consolePages.origin}/admin/orders/${orderId}/assets/${assetId}/pages/9.png`)
        assert.equal(missing.status, 404)
      } finally {
        await consolePages.close()
      }
    })
  })
}
