// Every order asset is preflighted after its download (docs/pipeline.md#preflight): an error holds the item with
// order.items.assets.PreflightFailed naming the codes (the order stops as for an asset that never downloaded, and
// cancelling ends it); a warning is kept and holds nothing; the Sandbox scenario preflightFails makes the failure
// without a bad file. Real files on 127.0.0.1, the real fetcher and engine, the pipeline stepped by the driver.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ISSUE_CODES } from '../../src/domain/pipeline/pipeline-order.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { encryptedPdf, tinyJpeg } from '../support/preflight-files.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'

for (const kind of databaseKinds) {
  describe(`preflight of order assets (${kind})`, () => {
    let t: TestApp
    let files: ImageServer
    let drive: PipelineDriver

    before(async () => {
      t = await startTestApp({ kind })
      files = await startImageServer({ '/locked.pdf': await encryptedPdf(24), '/tiny.jpg': await tinyJpeg() }, null)
      drive = pipelineDriver(t)
    })
    after(async () => {
      await files.close()
      await t.close()
    })

    async function create(items: unknown[], headers: Record<string, string> = {}): Promise<string> {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ items }),
        headers: { 'content-type': 'application/json', ...headers },
      })
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    const phoneCase = (url: string) => ({ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url }] })

    test('a file no lab can print holds its item with PreflightFailed; cancelling ends the order', async () => {
      const orderId = await create([
        {
          sku: BOOK,
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ printArea: 'default', url: files.url('locked.pdf'), pageCount: 24 }],
        },
      ])
      const held = await drive.allocate(orderId)
      const item = held.document.items[0]
      assert.ok(item)
      assert.equal(item.status, 'Invalid')
      assert.equal(item.assets[0]?.status, 'Error')
      const issue = held.document.status.issues.find((candidate) => candidate.errorCode === ISSUE_CODES.preflightFailed)
      assert.ok(issue, JSON.stringify(held.document.status.issues))
      assert.equal(issue.objectId, item.id)
      assert.match(issue.description, /^Asset ast_\d+ failed preflight \(Encrypted\): /)
      assert.deepEqual(Object.keys(issue), ['objectId', 'errorCode', 'description', 'authorisationDetails'])
      assert.equal(held.document.status.details.downloadAssets, 'Error')
      assert.deepEqual(held.document.shipments, [], 'the item never reaches a lab')
      assert.equal(held.pipeline.phase, 'failed')
      const assetId = item.assets[0]?.id as string
      assert.equal(held.pipeline.files[assetId]?.preflight?.status, 'Failed')

      const cancelled = await t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` })
      assert.equal(cancelled.statusCode, 200, cancelled.body)
      assert.equal((await drive.document(orderId)).status.stage, 'Cancelled')
    })

    test('a warning is kept on the asset and holds nothing', async () => {
      const orderId = await create([phoneCase(files.url('tiny.jpg'))])
      const allocated = await drive.allocate(orderId)
      assert.equal(allocated.document.items[0]?.status, 'Ok')
      assert.equal(allocated.document.status.details.downloadAssets, 'Complete')
      assert.equal(allocated.document.shipments.length, 1)
      assert.ok(!allocated.document.status.issues.some((issue) => issue.errorCode === ISSUE_CODES.preflightFailed))
      const assetId = allocated.document.items[0]?.assets[0]?.id as string
      const preflight = allocated.pipeline.files[assetId]?.preflight
      assert.equal(preflight?.status, 'PassedWithWarnings')
      assert.deepEqual(
        preflight?.report.checks.map((check) => [check.code, check.severity]),
        [['ImageTooSmall', 'warning']],
      )
    })

    test('the Sandbox scenario preflightFails holds a good file with Unreadable', async () => {
      const orderId = await create([phoneCase(files.url('tiny.jpg'))], { 'x-sandbox-scenario': 'preflightFails' })
      const held = await drive.allocate(orderId)
      assert.equal(held.document.items[0]?.status, 'Invalid')
      const issue = held.document.status.issues.find((candidate) => candidate.errorCode === ISSUE_CODES.preflightFailed)
      assert.match(issue?.description ?? '', /failed preflight \(Unreadable\): .*Sandbox scenario preflightFails/)
      assert.deepEqual(held.document.shipments, [])
    })
  })
}
