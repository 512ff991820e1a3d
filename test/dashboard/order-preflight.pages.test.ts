// An order's preflight on the dashboard's order page (docs/dashboard.md): each asset shows its report (a small
// image's ImageTooSmall warning with what it measures and what the product needs; a good file "passed"), and a
// rendered print file whose area has a spec shows the trim, face and safe lines over its preview. Rendered pages
// over HTTP, real files on 127.0.0.1, the pipeline stepped by the driver.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { tinyJpeg } from '../support/preflight-files.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
/** A rolled canvas: its default print area has a spec (3 mm bleed, 5 mm safe). */
const CANVAS = 'GLOBAL-CAN-ROL-SC-8x8'

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
        { '/tiny.jpg': await tinyJpeg(), '/big.jpg': { body: big, type: 'image/jpeg' } },
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
  })
}
