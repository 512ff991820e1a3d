// GET /v4.0/orders/{id}/preflight: each asset of an order with its preflight, Pending until the download, then
// the report the download step made (a warning file and a passing one), with the print area's guide lines where
// the catalogue gives the area a spec. Real files on 127.0.0.1, the real fetcher and engine, the pipeline stepped
// by the driver; another account's order is 404 with the contract's error body.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { tinyJpeg } from '../support/preflight-files.ts'
import { assertErrorBody } from '../support/raw-http.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
/** A rolled canvas: its default print area has a spec (3 mm bleed, 5 mm safe), 2400 px square at 300 dpi. */
const CANVAS = 'GLOBAL-CAN-ROL-SC-8x8'

for (const kind of databaseKinds) {
  describe(`an order's preflight (${kind})`, () => {
    let t: TestApp
    let files: ImageServer
    let drive: PipelineDriver

    before(async () => {
      t = await startTestApp({ kind })
      const big = await sharp({
        create: { width: 2500, height: 2500, channels: 3, background: { r: 40, g: 90, b: 160 } },
      })
        .jpeg()
        .toBuffer()
      files = await startImageServer(
        { '/tiny.jpg': await tinyJpeg(), '/big.jpg': { body: big, type: 'image/jpeg' } },
        null,
      )
      drive = pipelineDriver(t)
    })
    after(async () => {
      await files.close()
      await t.close()
    })

    const preflightOf = (orderId: string, key?: string) =>
      t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/preflight` }, key)

    test('Pending before the download; then a warning file PassedWithWarnings and a good one Passed', async () => {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [
            { sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: files.url('tiny.jpg') }] },
            { sku: CANVAS, copies: 1, sizing: 'fillPrintArea', assets: [{ url: files.url('big.jpg') }] },
          ],
        }),
      })
      assert.equal(created.statusCode, 200, created.body)
      const order = json(created).order
      const pending = await preflightOf(order.id)
      assert.equal(pending.statusCode, 200, pending.body)
      const before = json(pending)
      assert.deepEqual(Object.keys(before), ['outcome', 'preflight', 'traceParent'])
      assert.equal(before.outcome, 'Ok')
      assert.deepEqual(
        before.preflight.map((asset: Record<string, unknown>) => [asset.itemId, asset.assetId, asset.status]),
        order.items.map((item: { id: string; assets: { id: string }[] }) => [item.id, item.assets[0]?.id, 'Pending']),
      )
      assert.deepEqual(before.preflight[0].checks, [])

      await drive.allocate(order.id)
      const [phone, canvas, ...more] = json(await preflightOf(order.id)).preflight
      assert.equal(more.length, 0)
      assert.deepEqual(Object.keys(phone), [
        'itemId',
        'assetId',
        'printArea',
        'status',
        'pageCount',
        'checks',
        'fixes',
        'guides',
        'thumbnails',
      ])
      assert.deepEqual(phone.thumbnails, [], 'an image has no page thumbnails')
      assert.equal(phone.printArea, 'default')
      assert.equal(phone.status, 'PassedWithWarnings')
      assert.equal(phone.pageCount, null)
      assert.deepEqual(
        phone.checks.map((check: { code: string; severity: string }) => [check.code, check.severity]),
        [['ImageTooSmall', 'warning']],
      )
      assert.match(phone.checks[0].measured, /dpi/)
      assert.ok(phone.checks[0].required)
      assert.equal(canvas.status, 'Passed', JSON.stringify(canvas.checks))
      assert.deepEqual(canvas.checks, [])
      // 203.2 mm trim + 2 x 3 mm bleed at 300 dpi; the trim 35 px in (3 mm), the safe area 59 px further (5 mm).
      const guides = canvas.guides
      assert.equal(guides.width, guides.height)
      assert.equal(guides.width, 2400 + 2 * 35)
      assert.deepEqual(guides.trim, { left: 35, top: 35, width: 2400, height: 2400 })
      assert.deepEqual(guides.face, guides.trim, 'a flat product: the face is the trim')
      assert.deepEqual(guides.safe, { left: 35 + 59, top: 35 + 59, width: 2400 - 2 * 59, height: 2400 - 2 * 59 })
    })

    test("another account's order, the other environment's, an unknown one: 404; a malformed id: 400", async () => {
      const created = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: files.url('tiny.jpg') }] }],
          }),
        }),
      ).order
      const other = await t.createAccount()
      const answer = (response: Awaited<ReturnType<typeof preflightOf>>, outcome: string, status: number) =>
        assertErrorBody(
          { status: response.statusCode, headers: response.headers, body: response.body },
          outcome,
          status,
        )
      answer(await preflightOf(created.id, other.sandboxKey), 'EntityNotFound', 404)
      answer(await t.live({ method: 'GET', url: `/v4.0/orders/${created.id}/preflight` }), 'EntityNotFound', 404)
      answer(await preflightOf('ord_999999'), 'EntityNotFound', 404)
      const malformed = answer(await preflightOf('pfl_1'), 'ValidationFailed', 400)
      assert.ok(malformed.failures.orderId, JSON.stringify(malformed))
    })
  })
}
