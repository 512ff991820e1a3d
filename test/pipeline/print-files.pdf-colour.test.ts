// A book's PDF for a CMYK lab (docs/print-files.md#pdfs-and-colour): with `--ghostscript` the print file is the PDF
// converted to the lab's colour (its own blob under print-files/, its own sha256, `colourSpace: cmyk` on the lab
// job), with no DeviceRGB left; without it, or when the program is missing, the PDF reaches the lab as stored,
// byte for byte. The asset's preflight (RgbInCmykJob) says which, from the setting. The sample's Leipzig lab (CMYK
// FOGRA39) is made the book's only lab. Real Ghostscript: CI installs it (.ci/run); a machine without it fails here.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { inspectPdf } from '../../src/adapters/pdf-inspection.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { bookPdf } from '../support/preflight-files.ts'
import { changedSampleCatalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const GHOSTSCRIPT = process.env.PRINTROUTE_TEST_GHOSTSCRIPT ?? 'gs'
const CMYK_LAB = 'de1'
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'
const BOOK_PAGES = 24

/** The sample catalogue with the book made by the Leipzig lab alone (its default colour is CMYK FOGRA39). */
function catalogue() {
  return changedSampleCatalogue('sample catalogue, books from Leipzig only', (file) => {
    for (const lab of file.labs) {
      if (lab.code === CMYK_LAB) continue
      lab.products = lab.products.filter((product: { sku: string }) => product.sku !== BOOK)
    }
  })
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

async function colourSpacesOf(pdf: Buffer): Promise<Set<string>> {
  const inspection = await inspectPdf(pdf, BOOK_PAGES)
  assert.equal(inspection.kind, 'pdf')
  if (inspection.kind !== 'pdf') return new Set()
  assert.equal(inspection.pageCount, BOOK_PAGES)
  return new Set(inspection.pages.flatMap((page) => page.colourSpaces))
}

const SETUPS = [
  { name: 'with Ghostscript', ghostscript: GHOSTSCRIPT, converts: true },
  { name: 'without Ghostscript', ghostscript: null, converts: false },
  { name: 'with a Ghostscript that is not there', ghostscript: '/nonexistent/gs', converts: false },
] as const

for (const kind of databaseKinds) {
  for (const setup of SETUPS) {
    describe(`a book PDF for a CMYK lab, ${setup.name} (${kind})`, () => {
      let t: TestApp
      let files: ImageServer
      let labKey: string
      before(async () => {
        t = await startTestApp({ kind, catalogue: catalogue(), ghostscript: setup.ghostscript })
        files = await startImageServer(
          { '/book.pdf': await bookPdf(BOOK_PAGES, { width: 297, height: 297 }, 3, { boxes: true }) },
          null,
        )
        labKey = (await t.app.services.labs.createLabKey(CMYK_LAB, TEST_ACTOR)).key
      })
      after(async () => {
        await files.close()
        await t.close()
      })

      test(setup.converts ? 'the lab gets the PDF converted to CMYK' : 'the lab gets the PDF as stored', async () => {
        const payload = sampleOrder({
          recipient: {
            name: 'Ada Lovelace',
            email: 'ada@example.com',
            phoneNumber: '+49 30 555 0100',
            address: {
              line1: '1 Teststrasse',
              line2: null,
              postalOrZipCode: '10115',
              countryCode: 'DE',
              townOrCity: 'Berlin',
              stateOrCounty: null,
            },
          },
          items: [
            {
              sku: BOOK,
              copies: 1,
              sizing: 'fillPrintArea',
              assets: [{ printArea: 'default', url: files.url('book.pdf'), pageCount: BOOK_PAGES }],
            },
          ],
        })
        const created = await t.live({
          method: 'POST',
          url: '/v4.0/orders',
          payload,
          headers: { 'content-type': 'application/json' },
        })
        assert.equal(created.statusCode, 200, created.body)
        const orderId = json(created).order.id
        const drive = pipelineDriver(t)
        const allocated = await drive.allocate(orderId)
        const assetId = allocated.document.items[0]?.assets[0]?.id as string
        const stored = allocated.pipeline.files[assetId]?.stored
        assert.ok(stored)
        const source = await t.app.services.files.get(stored.blobKey)
        assert.ok((await colourSpacesOf(source)).has('DeviceRGB'), 'the stored book is RGB')
        // The asset's preflight warns of the RGB content, and says what happens to it.
        const rgbCheck = allocated.pipeline.files[assetId]?.preflight?.report.checks.find(
          (check) => check.code === 'RgbInCmykJob',
        )
        assert.ok(rgbCheck, 'RgbInCmykJob')
        assert.match(
          rgbCheck.message,
          setup.ghostscript === null
            ? /a PDF goes to the lab unconverted/
            : /printroute converts the PDF to the lab's CMYK when it makes the print file/,
        )

        const rendered = await drive.render(orderId)
        const [shipment] = Object.values(rendered.pipeline.shipments)
        assert.equal(shipment?.labCode, CMYK_LAB)
        const printFile = shipment?.printFiles[assetId]
        assert.ok(printFile, JSON.stringify(shipment?.printFileFailures))
        assert.equal(printFile.format, 'pdf')
        const data = await t.app.services.files.get(printFile.blobKey)
        assert.equal(printFile.sha256, sha256(data))
        assert.equal(printFile.bytes, data.length)
        if (setup.converts) {
          assert.match(printFile.blobKey, /^print-files\/.+\.pdf$/)
          assert.notEqual(printFile.blobKey, stored.blobKey)
          assert.equal(printFile.colourSpace, 'cmyk')
          const spaces = await colourSpacesOf(data)
          assert.ok(!spaces.has('DeviceRGB'), `no DeviceRGB: ${[...spaces]}`)
          assert.ok(spaces.has('DeviceCMYK'), `CMYK: ${[...spaces]}`)
          // The stored source is left as it was.
          assert.deepEqual(await t.app.services.files.get(stored.blobKey), source)
        } else {
          assert.equal(printFile.blobKey, stored.blobKey)
          assert.ok(data.equals(source), 'the same bytes')
          assert.equal(printFile.colourSpace, undefined)
        }

        const submitted = await drive.submit(orderId)
        const shipmentId = submitted.document.shipments[0]?.id
        const listed = await t.app.live.inject({
          method: 'GET',
          url: '/labs/v1/jobs',
          headers: { 'x-api-key': labKey },
        })
        assert.equal(listed.statusCode, 200, listed.body)
        const job = json(listed).jobs.find((candidate: { shipmentId: string }) => candidate.shipmentId === shipmentId)
        assert.ok(job)
        const labFile = job.items[0].printFiles[0]
        assert.equal(labFile.sha256, printFile.sha256)
        assert.equal(labFile.colourSpace, setup.converts ? 'cmyk' : undefined)
        const link = new URL(labFile.url)
        const downloaded = await t.app.live.inject({ method: 'GET', url: `${link.pathname}${link.search}` })
        assert.equal(downloaded.statusCode, 200)
        assert.equal(sha256(downloaded.rawPayload), printFile.sha256)
      })
    })
  }
}
