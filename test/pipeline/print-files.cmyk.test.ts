// An order routed to a CMYK lab (docs/print-files.md#colour): the sample's Leipzig lab prints fine-art prints as
// TIFFs converted through the shipped FOGRA39 profile, relative colorimetric with black-point compensation. Its
// print file, downloaded through the lab's signed link, is CMYK with that profile embedded, opens at its print
// size, and the lab job carries the manifest it was made from, which makes the same bytes again.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { createImageRenderer, DEFAULT_PROFILES_DIRECTORY } from '../../src/adapters/image-renderer.ts'
import { effectiveDpi, plannedSize, planPrintFile, printAreaRequestOf } from '../../src/domain/print-geometry.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { changedSampleCatalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const CMYK_LAB = 'de1'
const PRINT = 'GLOBAL-FAP-8x8'

/** The sample catalogue with the 8 x 8 in fine-art print made by the Leipzig lab alone, so the order goes there. */
function catalogue() {
  return changedSampleCatalogue('sample catalogue, 8x8 fine-art prints from Leipzig only', (file) => {
    for (const lab of file.labs) {
      if (lab.code === CMYK_LAB) continue
      lab.products = lab.products.filter((product: { sku: string }) => product.sku !== PRINT)
    }
  })
}

/**
 * The print file the pipeline plans for a 1200 px square photo filling the print's default area: laid out from the
 * area's spec in the sample catalogue (trim and bleed at its recommendedDpi), as docs/print-files.md says.
 */
function plannedPrintFile() {
  const loaded = catalogue()
  const variant = loaded.findVariant(PRINT)
  const size = variant?.printAreaSizes.default
  const area = variant && printAreaRequestOf(variant, 'default', loaded.colours)
  if (!size || !area) throw new Error(`${PRINT} has no specified default print area`)
  const source = { width: 1200, height: 1200 }
  const target = { width: size.horizontalResolution, height: size.verticalResolution }
  const plan = planPrintFile({
    sourceWidth: source.width,
    sourceHeight: source.height,
    targetWidth: target.width,
    targetHeight: target.height,
    sizing: 'fillPrintArea',
    area,
  })
  return { target, area, plan, size: plannedSize(plan), sourceDpi: Math.floor(effectiveDpi(source, plan)) }
}

for (const kind of databaseKinds) {
  describe(`a print file for a CMYK lab (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let labKey: string
    before(async () => {
      t = await startTestApp({ kind, catalogue: catalogue() })
      images = await startImageServer({}, await solidJpeg(1200, 1200, { r: 200, g: 80, b: 40 }))
      labKey = (await t.app.services.labs.createLabKey(CMYK_LAB, TEST_ACTOR)).key
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    test('the lab gets a CMYK TIFF with the profile embedded, at its print size, and the manifest on its job', async () => {
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
        items: [{ sku: PRINT, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('print.jpg') }] }],
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
      await drive.allocate(orderId)
      await drive.render(orderId)
      const submitted = await drive.submit(orderId)
      const shipment = submitted.document.shipments[0]
      assert.ok(shipment)
      assert.equal(shipment.fulfillmentLocation.labCode, CMYK_LAB)

      const listed = await t.app.live.inject({ method: 'GET', url: '/labs/v1/jobs', headers: { 'x-api-key': labKey } })
      assert.equal(listed.statusCode, 200, listed.body)
      const job = json(listed).jobs.find((candidate: { shipmentId: string }) => candidate.shipmentId === shipment.id)
      assert.ok(job)
      const printFile = job.items[0].printFiles[0]
      assert.equal(printFile.format, 'tiff')
      assert.equal(printFile.colourSpace, 'cmyk')

      const link = new URL(printFile.url)
      const downloaded = await t.app.live.inject({ method: 'GET', url: `${link.pathname}${link.search}` })
      assert.equal(downloaded.statusCode, 200)
      const bytes = downloaded.rawPayload
      const metadata = await sharp(bytes).metadata()
      assert.equal(metadata.format, 'tiff')
      assert.equal(metadata.space, 'cmyk')
      assert.equal(metadata.channels, 4)
      const profile = readFileSync(join(DEFAULT_PROFILES_DIRECTORY, 'printroute-fogra39.relative-bpc.icc'))
      assert.ok(metadata.icc?.equals(profile), 'the relative colorimetric + BPC FOGRA39 profile is embedded')
      // Laid out from the area's spec: the 8 x 8 in trim (203.2 mm) is 2400 px at the spec's 300 dpi, and 3 mm of
      // bleed round it is round(3 x 300 / 25.4 = 35.43) = 35 px a side: 2470 x 2470 px, written at 300 px per
      // inch. The 1200 px photo fills the whole file (trim and bleed): 300 x 1200 / 2470 = 145.7 source px per inch.
      const planned = plannedPrintFile()
      assert.deepEqual([planned.size.width, planned.size.height, planned.sourceDpi], [2470, 2470, 145])
      assert.deepEqual(
        [metadata.width, metadata.height, metadata.density, metadata.resolutionUnit],
        [planned.size.width, planned.size.height, 300, 'inch'],
      )
      assert.equal(printFile.dpi, 300)
      assert.equal(printFile.sourceDpi, planned.sourceDpi)

      const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')
      assert.equal(printFile.sha256, sha256(bytes))
      const { manifest } = printFile
      assert.equal(manifest.outputSha256, sha256(bytes))
      assert.deepEqual(manifest.colour, {
        space: 'cmyk',
        profile: 'printroute-fogra39',
        profileFile: 'printroute-fogra39.relative-bpc.icc',
        profileSha256: sha256(profile),
        intent: 'relative',
        blackPointCompensation: true,
        // The 1200 px photo enlarged to 2470 px: converted at its own size, before the resize.
        convertedAt: 'source',
      })
      // What was asked: the variant's print area size (left aside by the layout), and the spec it was laid out from.
      assert.deepEqual(manifest.target, {
        width: planned.target.width,
        height: planned.target.height,
        sizing: 'fillPrintArea',
        format: 'tiff',
        dpi: 300,
        area: planned.area,
      })
      assert.deepEqual(manifest.plan, planned.plan)
      assert.deepEqual(manifest.renderer, { sharp: sharp.versions.sharp, libvips: sharp.versions.vips })

      // The stored input and the manifest make the file again, byte for byte (a reprint's check).
      const state = await drive.state(orderId)
      const asset = submitted.document.items[0]?.assets[0]
      assert.ok(asset)
      const stored = state.pipeline.files[asset.id]?.stored
      assert.ok(stored)
      const input = readFileSync(join(t.filesDir, stored.blobKey))
      assert.equal(manifest.inputSha256, sha256(input))
      const again = await createImageRenderer().reproducePrintFile(input, manifest)
      assert.ok(again.data.equals(bytes))
    })
  })
}
