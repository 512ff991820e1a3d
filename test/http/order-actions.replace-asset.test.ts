// POST /v4.0/orders/{id}/actions/replaceAsset (printroute's own, docs/api.md#replace-an-asset): an item held by
// PreflightFailed gets a new file, which is downloaded and preflighted afresh and goes on to the lab; the action is
// refused once the item is with a lab, another account's order is not found, and a bad body names its field. Real
// files on 127.0.0.1, the real fetcher and preflight engine, the pipeline stepped by the driver (no workers).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { isSubmitted } from '../../src/domain/order-actions.ts'
import { ISSUE_CODES } from '../../src/domain/pipeline/pipeline-order.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { bookPdf, encryptedPdf } from '../support/preflight-files.ts'
import { assertErrorBody } from '../support/raw-http.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'
const BOOK_PAGES = 24

for (const kind of databaseKinds) {
  describe(`replaceAsset (${kind})`, () => {
    let t: TestApp
    let files: ImageServer
    let drive: PipelineDriver

    before(async () => {
      t = await startTestApp({ kind })
      files = await startImageServer(
        {
          '/locked.pdf': await encryptedPdf(BOOK_PAGES),
          '/good.pdf': await bookPdf(BOOK_PAGES, { width: 297, height: 297 }, 3, { boxes: true, cmyk: true }),
        },
        null,
      )
      drive = pipelineDriver(t)
    })
    after(async () => {
      await files.close()
      await t.close()
    })

    async function createBookOrder(url: string, key?: string): Promise<string> {
      const items = [
        {
          sku: BOOK,
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ printArea: 'default', url, pageCount: BOOK_PAGES }],
        },
      ]
      const response = await t.sandbox(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ items }),
          headers: { 'content-type': 'application/json' },
        },
        key,
      )
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    const replace = (orderId: string, body: unknown, key?: string) =>
      t.sandbox(
        {
          method: 'POST',
          url: `/v4.0/orders/${orderId}/actions/replaceAsset`,
          payload: body as Record<string, unknown>,
          headers: { 'content-type': 'application/json' },
        },
        key,
      )
    const actionsOf = async (orderId: string) =>
      json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/actions` }))

    test('a PDF that fails preflight, replaced by a good one, reaches the lab; then replacing is refused', async () => {
      const orderId = await createBookOrder(files.url('locked.pdf'))
      const held = await drive.allocate(orderId)
      const item = held.document.items[0]
      assert.ok(item)
      assert.equal(item.status, 'Invalid')
      assert.ok(held.document.status.issues.some((issue) => issue.errorCode === ISSUE_CODES.preflightFailed))
      assert.equal(held.pipeline.phase, 'failed')
      const actions = await actionsOf(orderId)
      assert.deepEqual(actions.replaceAsset, { isAvailable: 'Yes' })
      // The Prodigi keys are all still there, as they were.
      for (const key of ['cancel', 'changeRecipientDetails', 'changeShippingMethod', 'changeMetaData']) {
        assert.ok(actions[key], key)
      }

      const replaced = await replace(orderId, { itemId: item.id, printArea: 'default', url: files.url('good.pdf') })
      assert.equal(replaced.statusCode, 200, replaced.body)
      const answer = json(replaced)
      assert.equal(answer.outcome, 'Updated')
      assert.equal(answer.order.items[0].assets[0].url, files.url('good.pdf'))
      assert.equal(answer.order.items[0].status, 'NotYetDownloaded')
      assert.equal(answer.order.status.details.downloadAssets, 'InProgress')
      assert.ok(
        !answer.order.status.issues.some(
          (issue: { errorCode: string }) => issue.errorCode === ISSUE_CODES.preflightFailed,
        ),
        'the PreflightFailed issue is cleared',
      )
      // The event of the change, printroute's own type.
      const events = json(await t.sandbox({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` }))
      const types = JSON.stringify(events)
      assert.match(types, /order\.items\.assets\.asset#Replaced/)

      // An attempt queued for the old file changes nothing: the replacement has jobs of its own.
      const assetId = item.assets[0]?.id as string
      await t.app.services.pipeline.downloadFile(orderId, assetId, 1)
      assert.equal((await drive.state(orderId)).pipeline.files[assetId]?.status, 'pending')
      // The pipeline's download job (its replacement's) downloads and preflights the new file; the order goes on.
      const downloaded = await drive.download(orderId)
      assert.equal(downloaded.pipeline.files[assetId]?.preflight?.status, 'Passed')
      assert.equal(downloaded.pipeline.files[assetId]?.replacement, 1)
      assert.equal(downloaded.document.items[0]?.status, 'Ok')
      assert.equal(downloaded.document.status.details.downloadAssets, 'Complete')
      await drive.allocate(orderId)
      await drive.render(orderId)
      const submitted = await drive.submit(orderId)
      const shipments = Object.values(submitted.pipeline.shipments)
      assert.equal(shipments.length, 1)
      assert.ok(isSubmitted(shipments[0]?.state), `with the lab: ${shipments[0]?.state}`)
      assert.ok(shipments[0]?.printFiles[assetId], 'the new file is the print file')

      // With a lab now: refused as the actions refuse (HTTP 200, ActionNotAvailable), nothing changed.
      assert.deepEqual((await actionsOf(orderId)).replaceAsset, { isAvailable: 'No' })
      const refused = await replace(orderId, { itemId: item.id, url: files.url('locked.pdf') })
      assert.equal(refused.statusCode, 200, refused.body)
      assert.equal(json(refused).outcome, 'ActionNotAvailable')
      assert.equal((await drive.document(orderId)).items[0]?.assets[0]?.url, files.url('good.pdf'))
    })

    test("another account's order is 404; a bad itemId, printArea or url is 400 naming the field", async () => {
      const orderId = await createBookOrder(files.url('locked.pdf'))
      const held = await drive.allocate(orderId)
      const itemId = held.document.items[0]?.id as string
      const other = await t.createAccount()
      const notFound = await replace(orderId, { itemId, url: files.url('good.pdf') }, other.sandboxKey)
      assertErrorBody(
        { status: notFound.statusCode, headers: notFound.headers, body: notFound.body },
        'EntityNotFound',
        404,
      )

      const cases: [Record<string, unknown>, string, string][] = [
        [{ itemId: 'ori_999999', url: files.url('good.pdf') }, 'itemId', 'InvalidValue'],
        [{ itemId, printArea: 'back', url: files.url('good.pdf') }, 'printArea', 'UnknownPrintArea'],
        [{ itemId, url: 'ftp://127.0.0.1/good.pdf' }, 'url', 'InvalidFormat'],
        [{ itemId }, 'url', 'Required'],
      ]
      for (const [body, field, code] of cases) {
        const response = await replace(orderId, body)
        const error = assertErrorBody(
          { status: response.statusCode, headers: response.headers, body: response.body },
          'ValidationFailed',
          400,
        )
        assert.ok(error.failures?.[field], `${field} named in ${response.body}`)
        assert.equal(error.failures[field][0].code, code, response.body)
      }
      // Nothing changed: still held on the old file.
      assert.equal((await drive.document(orderId)).items[0]?.assets[0]?.url, files.url('locked.pdf'))
    })
  })
}
