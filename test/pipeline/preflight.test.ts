// Every order asset is preflighted after its download (docs/pipeline.md#preflight): an error holds the item with
// order.items.assets.PreflightFailed naming the codes (the order stops as for an asset that never downloaded, and
// cancelling ends it); a warning is kept and holds nothing; the Sandbox scenario preflightFails makes the failure
// without a bad file; a book PDF whose pages are trim + bleed with no boxes reaches the lab with TrimBox and
// BleedBox set on printroute's copy, and the report says so. Real files on 127.0.0.1, the real fetcher and engine, the pipeline stepped by the driver.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFArray, PDFDocument, PDFName } from 'pdf-lib'
import { ISSUE_CODES } from '../../src/domain/pipeline/pipeline-order.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { bookPdf, encryptedPdf, tinyJpeg } from '../support/preflight-files.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'
/** The sample book's trim and bleed (sample-catalogue.json). */
const BOOK_TRIM_MM = { width: 297, height: 297 }
const BOOK_BLEED_MM = 3
const PT_PER_MM = 72 / 25.4
const BOOK_PAGES = 24

for (const kind of databaseKinds) {
  describe(`preflight of order assets (${kind})`, () => {
    let t: TestApp
    let files: ImageServer
    let drive: PipelineDriver
    let boxed: Awaited<ReturnType<typeof bookPdf>>

    before(async () => {
      t = await startTestApp({ kind })
      boxed = await bookPdf(BOOK_PAGES, BOOK_TRIM_MM, BOOK_BLEED_MM, { boxes: true })
      files = await startImageServer(
        {
          '/locked.pdf': await encryptedPdf(24),
          '/tiny.jpg': await tinyJpeg(),
          '/unboxed.pdf': await bookPdf(BOOK_PAGES, BOOK_TRIM_MM, BOOK_BLEED_MM, { boxes: false }),
          '/boxed.pdf': boxed,
        },
        null,
      )
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

    const book = (url: string) => ({
      sku: BOOK,
      copies: 1,
      sizing: 'fillPrintArea',
      assets: [{ printArea: 'default', url, pageCount: BOOK_PAGES }],
    })

    /** The order's one print file as the lab gets it, and the asset's preflight. */
    async function printFileOfBook(url: string) {
      const orderId = await create([book(url)])
      const allocated = await drive.allocate(orderId)
      assert.equal(allocated.document.items[0]?.status, 'Ok', JSON.stringify(allocated.document.status.issues))
      const assetId = allocated.document.items[0]?.assets[0]?.id as string
      const rendered = await drive.render(orderId)
      const [shipment] = Object.values(rendered.pipeline.shipments)
      const printFile = shipment?.printFiles[assetId]
      assert.ok(printFile, `the print file is made (${JSON.stringify(shipment?.printFileFailures)})`)
      assert.equal(printFile.format, 'pdf')
      const data = await t.app.services.files.get(printFile.blobKey)
      return { data, preflight: rendered.pipeline.files[assetId]?.preflight, printFile }
    }

    /** Each page's box `name` in mm, rounded to 0.1 mm, as [x0, y0, x1, y1]; null when the page has none. */
    function boxesMm(pdf: PDFDocument, name: 'TrimBox' | 'BleedBox'): (number[] | null)[] {
      return pdf.getPages().map((page) => {
        const box = page.node.get(PDFName.of(name))
        if (!(box instanceof PDFArray)) return null
        const rectangle = name === 'TrimBox' ? page.getTrimBox() : page.getBleedBox()
        const { x, y, width, height } = rectangle
        return [x, y, x + width, y + height].map((pt) => Math.round((pt / PT_PER_MM) * 10) / 10)
      })
    }

    test('a book PDF of trim + bleed pages with no boxes reaches the lab with TrimBox and BleedBox set', async () => {
      const sent = files.url('unboxed.pdf')
      const { data, preflight, printFile } = await printFileOfBook(sent)
      const pdf = await PDFDocument.load(data)
      assert.equal(pdf.getPageCount(), BOOK_PAGES)
      const full = BOOK_TRIM_MM.width + 2 * BOOK_BLEED_MM
      assert.deepEqual(boxesMm(pdf, 'TrimBox'), Array(BOOK_PAGES).fill([3, 3, 300, 300]))
      assert.deepEqual(boxesMm(pdf, 'BleedBox'), Array(BOOK_PAGES).fill([0, 0, full, full]))
      assert.equal(printFile.bytes, data.length, 'the print file listed is the fixed copy')
      assert.deepEqual(
        preflight?.report.fixes.map((fix) => fix.code),
        ['SetTrimBox', 'SetBleedBox'],
      )
      for (const fix of preflight?.report.fixes ?? []) {
        assert.match(fix.message, new RegExp(`done on printroute's copy, ${BOOK_PAGES} pages changed\\.$`))
      }

      // Fixing again changes nothing: the fixed copy, ordered as it is, is kept byte for byte with no fix to do
      // (a retried download fixes the fresh download the same way).
      const again = await startImageServer({ '/fixed.pdf': { body: data, type: 'application/pdf' } }, null)
      try {
        const second = await printFileOfBook(again.url('fixed.pdf'))
        assert.ok(second.data.equals(data), 'the fixed file is kept as it came')
        assert.deepEqual(second.preflight?.report.fixes, [])
      } finally {
        await again.close()
      }
    })

    test('a book PDF that needs no fix reaches the lab byte-identical to the download', async () => {
      const { data, preflight } = await printFileOfBook(files.url('boxed.pdf'))
      assert.deepEqual(preflight?.report.fixes, [])
      assert.ok(data.equals(boxed.body), "the lab gets the merchant's bytes")
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
