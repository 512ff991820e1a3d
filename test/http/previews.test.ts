// POST /v4.0/previews: previews and mockups of an item before it is ordered, and LowResolution warnings wherever
// they apply (previews, quotes with asset URLs, orders after download). Real images made with sharp, served on
// 127.0.0.1; the real fetcher, renderer, cache and pipeline steps, on every database backend.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { guideLinesSvg, THUMBNAIL_JPEG_QUALITY } from '../../src/adapters/image-renderer.ts'
import type { parseCatalogue } from '../../src/catalogue/catalogue.loader.ts'
import { type PrintLayout, planPrintLayout, printAreaRequestOf } from '../../src/domain/print-geometry.ts'
import { deleteExpiredPreviews } from '../../src/repositories/previews.repository.ts'
import { openTestDatabase, type TestDatabase } from '../support/databases.ts'
import { detailedPhoto, type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import {
  catalogue,
  changedSampleCatalogue,
  json,
  sampleOrder,
  startTestApp,
  type TestApp,
} from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

type Rgb = { r: number; g: number; b: number }
const GOLD: Rgb = { r: 201, g: 162, b: 39 }
const GREEN: Rgb = { r: 30, g: 200, b: 30 }
const RED: Rgb = { r: 220, g: 30, b: 30 }

async function pixel(image: Buffer, x: number, y: number): Promise<Rgb> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true })
  const index = (Math.round(y) * info.width + Math.round(x)) * info.channels
  return { r: data[index] as number, g: data[index + 1] as number, b: data[index + 2] as number }
}

function assertNear(actual: Rgb, expected: Rgb, where: string, tolerance = 30): void {
  const close = [actual.r - expected.r, actual.g - expected.g, actual.b - expected.b].every(
    (difference) => Math.abs(difference) <= tolerance,
  )
  assert.ok(close, `${where}: expected ~${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`)
}

// The preview is made straight from the source at its reduced size, the print file at full size; reduced here,
// the print file must show the same picture, pixel by pixel. The two are resampled at different scales, so an
// edge may fall up to a pixel apart, and the preview's JPEG (quality 80) adds its noise; what a wrong crop, turn,
// margin or orientation moves is tens of pixels. Two measures, per pixel and channel (0 to 255):
// - tolerant: how far a preview pixel lies outside the range of the reference's 3x3 neighbourhood (an edge one
//   pixel off costs nothing);
// - away from edges: the plain difference, where the reference's 7x7 neighbourhood spans under EDGE_RANGE levels.
// Measured on detailedPhoto in the cases below (sharp 0.35.5, libvips 8.18.7): the previews have at least 99.84%
// of their pixels within 16 (the fitted one; the others 99.99% or more), 41 at worst (the fitted one), and 25 at
// worst away from edges. Shifted by 1% of its width, a preview keeps at most 75% within 16 and is 97 off away
// from edges; by 3%, 74% and 210; an image not turned, or its EXIF orientation ignored, at most 10% within 16.
// The bounds sit between the two, with room on either side for another CPU's rounding.
const TOLERANCE = 16
const SHARE_WITHIN_TOLERANCE = 0.99
const WORST_TOLERANT = 56
const EDGE_RANGE = 48
const WORST_AWAY_FROM_EDGES = 48

interface Comparison {
  withinTolerance: number
  worstTolerant: number
  worstAwayFromEdges: number
}

/**
 * The lowest and highest value of each pixel's channel within `radius` of it (a square, clamped at the borders),
 * for every pixel at once. A square's extremes are the extremes over its rows of each row's, so the image is
 * swept along the rows, then down the columns, instead of every square being read whole (a third of the time).
 */
function neighbourhoodRanges(
  data: Uint8Array,
  { width, height, channels }: { width: number; height: number; channels: number },
  radius: number,
): { low: Uint8Array; high: Uint8Array } {
  /** One sweep: `step` apart in the data, `count` positions along the line, `lines` lines `lineStep` apart. */
  const sweep = (
    lowIn: Uint8Array,
    highIn: Uint8Array,
    step: number,
    count: number,
    lineStep: number,
    lines: number,
  ): [Uint8Array, Uint8Array] => {
    const lowOut = new Uint8Array(data.length)
    const highOut = new Uint8Array(data.length)
    for (let line = 0; line < lines; line++) {
      for (let c = 0; c < channels; c++) {
        const start = line * lineStep + c
        for (let at = 0; at < count; at++) {
          let low = 255
          let high = 0
          const from = Math.max(0, at - radius)
          const to = Math.min(count - 1, at + radius)
          for (let near = from; near <= to; near++) {
            const index = start + near * step
            if ((lowIn[index] as number) < low) low = lowIn[index] as number
            if ((highIn[index] as number) > high) high = highIn[index] as number
          }
          lowOut[start + at * step] = low
          highOut[start + at * step] = high
        }
      }
    }
    return [lowOut, highOut]
  }
  const [rowLow, rowHigh] = sweep(data, data, channels, width, width * channels, height)
  const [low, high] = sweep(rowLow, rowHigh, width * channels, height, channels, width)
  return { low, high }
}

async function compareToReference(preview: Buffer, reference: Buffer): Promise<Comparison> {
  const [mine, theirs] = await Promise.all(
    [preview, reference].map((image) => sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true })),
  )
  if (!mine || !theirs) throw new Error('no image')
  const { width, height, channels } = theirs.info
  assert.deepEqual([mine.info.width, mine.info.height, mine.info.channels], [width, height, channels])
  const near = neighbourhoodRanges(theirs.data, theirs.info, 1)
  const wide = neighbourhoodRanges(theirs.data, theirs.info, 3)
  let within = 0
  let worstTolerant = 0
  let worstAwayFromEdges = 0
  for (let pixel = 0; pixel < width * height; pixel++) {
    let tolerant = 0
    let plain = 0
    let edge = false
    for (let c = 0; c < channels; c++) {
      const index = pixel * channels + c
      const value = mine.data[index] as number
      const low = near.low[index] as number
      const high = near.high[index] as number
      tolerant = Math.max(tolerant, value > high ? value - high : value < low ? low - value : 0)
      plain = Math.max(plain, Math.abs(value - (theirs.data[index] as number)))
      if ((wide.high[index] as number) - (wide.low[index] as number) >= EDGE_RANGE) edge = true
    }
    if (tolerant <= TOLERANCE) within++
    worstTolerant = Math.max(worstTolerant, tolerant)
    if (!edge) worstAwayFromEdges = Math.max(worstAwayFromEdges, plain)
  }
  return { withinTolerance: within / (width * height), worstTolerant, worstAwayFromEdges }
}

const isSamePicture = (found: Comparison) =>
  found.withinTolerance >= SHARE_WITHIN_TOLERANCE &&
  found.worstTolerant <= WORST_TOLERANT &&
  found.worstAwayFromEdges <= WORST_AWAY_FROM_EDGES

async function assertSamePicture(preview: Buffer, reference: Buffer, what: string): Promise<void> {
  const found = await compareToReference(preview, reference)
  assert.ok(isSamePicture(found), `${what}: ${JSON.stringify(found)}`)
}

/** A picture the test knows to be wrong fails the same bounds: by the share within tolerance alone, too. */
async function assertOtherPicture(image: Buffer, reference: Buffer, what: string): Promise<void> {
  const found = await compareToReference(image, reference)
  assert.ok(
    found.withinTolerance < SHARE_WITHIN_TOLERANCE && !isSamePicture(found),
    `${what}: ${JSON.stringify(found)}`,
  )
}

/** The same image with its content moved left by `share` of its width (the right edge repeated). */
async function shifted(image: Buffer, share: number): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(image).metadata()
  const by = Math.round(width * share)
  return sharp(image)
    .extract({ left: by, top: 0, width: width - by, height })
    .extend({ right: by, extendWith: 'copy' })
    .png()
    .toBuffer()
}

/**
 * The layout of the preview of `sku`'s default print area in the sample catalogue, where every area has a spec: the
 * print file's layout (trim, wrap band, bleed) scaled to at most 800 px a side, each part rounded down
 * (docs/print-files.md, "Bleed and canvas wraps"). The preview is that size, with the guide lines drawn on it.
 */
function previewLayoutOf(sku: string, attributes: Record<string, string> = {}): PrintLayout {
  const variant = catalogue.findVariant(sku, attributes)
  const area = variant && printAreaRequestOf(variant, 'default', catalogue.colours)
  if (!area) throw new Error(`${sku} has no spec for its default print area`)
  return planPrintLayout({ ...area, maxEdge: 800 })
}

for (const kind of databaseKinds) {
  describe(`previews and resolution warnings (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer(
        {
          '/landscape.jpg': { body: await detailedPhoto(600, 400), type: 'image/jpeg' },
          '/square.jpg': { body: await detailedPhoto(600, 600), type: 'image/jpeg' },
          '/wide.jpg': { body: await detailedPhoto(900, 700), type: 'image/jpeg' },
          // Stored landscape, shown portrait (EXIF orientation 8); and the same pixels without the orientation.
          '/oriented.jpg': { body: await detailedPhoto(600, 400, 8), type: 'image/jpeg' },
          '/unoriented.jpg': { body: await detailedPhoto(600, 400), type: 'image/jpeg' },
          '/sharp.jpg': await solidJpeg(1200, 2200, { r: 40, g: 120, b: 200 }),
          '/red.jpg': await solidJpeg(300, 400, RED),
          '/green.jpg': await solidJpeg(40, 400, GREEN),
          '/document.pdf': { body: Buffer.from('%PDF-1.4\n%%EOF\n'), type: 'application/pdf' },
          // A whole header and half the pixels: the header reads, decoding fails.
          '/truncated.jpg': { body: (await solidJpeg(300, 400, RED)).body.subarray(0, 700), type: 'image/jpeg' },
        },
        null,
      )
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t?.close()
      await images?.close()
    })

    const preview = (body: Record<string, unknown>) =>
      t.sandbox({ method: 'POST', url: '/v4.0/previews', payload: body })

    /** The file behind a signed /files link, read through the Sandbox server like any client would. */
    async function fetchLink(link: string): Promise<{ statusCode: number; body: Buffer }> {
      const url = new URL(link)
      const response = await t.app.sandbox.inject({ method: 'GET', url: `${url.pathname}${url.search}` })
      return { statusCode: response.statusCode, body: response.rawPayload }
    }

    async function fileOf(link: string): Promise<Buffer> {
      const file = await fetchLink(link)
      assert.equal(file.statusCode, 200, `GET ${link}`)
      return file.body
    }

    test('the preview is the print file the pipeline renders for the same item, reduced, pixel for pixel', async () => {
      const item = { sku: PHONE_CASE, sizing: 'fillPrintArea', assets: [{ url: images.url('landscape.jpg') }] }
      const response = await preview(item)
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.equal(body.outcome, 'Created')
      assert.match(body.traceParent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
      assert.equal(body.previews.length, 1)
      const [made] = body.previews
      // The phone case's file is laid out from its spec: 984 x 1984 px of trim and 55 px of bleed at 350 dpi,
      // 1094 x 2094; its preview at 800 / 2094: trim 375 x 757 (375.9, 757.97) and bleed 21 (21.01), 417 x 799.
      const layout = previewLayoutOf(PHONE_CASE)
      assert.deepEqual([layout.width, layout.height, layout.face.width, layout.bleed], [417, 799, 375, 21])
      // 600x400 landscape into the 1094x2094 portrait file: turned, resized to 1396x2094, 151 columns cut on each
      // side: source rows 43..357 of all 600 columns. The warning is the catalogue's pixel size's (resolution.ts):
      // 1080x2070 at 300 dpi, 300 x min(400/1380, 600/2070) = 86.96 dpi.
      assert.deepEqual(
        { ...made, previewUrl: null, mockupUrl: null, expiresAt: null },
        {
          printArea: 'default',
          previewUrl: null,
          mockupUrl: null,
          width: layout.width,
          height: layout.height,
          rotated: true,
          crop: { left: 0, top: 43, width: 600, height: 314 },
          effectiveDpi: 86,
          warnings: [
            {
              code: 'LowResolution',
              printArea: 'default',
              effectiveDpi: 86,
              minimumDpi: 150,
              message: made.warnings[0]?.message,
            },
          ],
          expiresAt: null,
        },
      )
      assert.match(made.warnings[0].message, /86 dpi .* below the 150 dpi/)
      assert.equal(made.expiresAt, new Date(t.clock.now().getTime() + 24 * 3600 * 1000).toISOString())
      const previewImage = await fileOf(made.previewUrl)
      assert.deepEqual(
        await sharp(previewImage)
          .metadata()
          .then((meta) => [meta.format, meta.width, meta.height]),
        ['jpeg', layout.width, layout.height],
      )

      // The same item ordered: the pipeline renders its print file; its placement is the preview's crop.
      const { reduced, listed, rendered } = await orderedPrintFile(item, layout)
      await assertSamePicture(previewImage, reduced, 'the preview')
      // The comparison can tell: the crop 3% (or even 1%) off, or the image not turned, fail its bounds.
      await assertOtherPicture(await shifted(previewImage, 0.03), reduced, 'the crop 3% off')
      await assertOtherPicture(await shifted(previewImage, 0.01), reduced, 'the crop 1% off')
      const unturned = await sharp(await detailedPhoto(600, 400))
        .resize({ width: layout.width, height: layout.height, fit: 'cover' })
        .png()
        .toBuffer()
      await assertOtherPicture(unturned, reduced, 'the image not turned')
      assert.deepEqual([listed.rotated, listed.placement], [true, { ...made.crop, margins: null }])

      // The order carries the same warning as an issue once the image is downloaded, and goes on regardless.
      const issues = rendered.document.status.issues
      assert.deepEqual(
        issues.map((issue) => [issue.objectId, issue.errorCode]),
        [[rendered.document.items[0]?.id, 'order.items.assets.LowResolution']],
      )
      assert.match(issues[0]?.description ?? '', /86 dpi .* below the 150 dpi/)
      assert.equal(rendered.document.status.details.printReadyAssetsPrepared, 'Complete')
      assert.equal(rendered.pipeline.phase, 'producing')
    })

    /**
     * The print file the pipeline renders for `item` ordered alone, reduced to the preview's `layout` with the
     * preview's guide lines drawn over it (what the preview shows: the file as printed, and where it is cut), as the
     * API lists it, and the order's state once rendered. The reference is encoded as the preview is (JPEG at the
     * previews' quality, full-resolution colour): a one-pixel coloured line rings in a JPEG, by up to 61 levels next
     * to the line measured against a PNG reference; encoded alike, no pixel of the phone case's preview is more
     * than 40 outside its reference's 3x3 neighbourhood.
     */
    async function orderedPrintFile(item: Record<string, unknown>, layout: PrintLayout) {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ items: [{ ...item, copies: 1 }] }),
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id
      await drive.allocate(orderId)
      const rendered = await drive.render(orderId)
      const printFile = Object.values(Object.values(rendered.pipeline.shipments)[0]?.printFiles ?? {})[0]
      if (!printFile) throw new Error('no print file')
      const full = await t.app.services.files.get(printFile.blobKey)
      const listed = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/print-files` })).printFiles[0]
      return {
        reduced: await sharp(
          await sharp(full).resize({ width: layout.width, height: layout.height, fit: 'fill' }).png().toBuffer(),
        )
          .composite([{ input: Buffer.from(guideLinesSvg(layout)), left: 0, top: 0 }])
          .jpeg({ quality: THUMBNAIL_JPEG_QUALITY, chromaSubsampling: '4:4:4' })
          .toBuffer(),
        listed,
        rendered,
      }
    }

    test('fitted with margins, an image-wrapped canvas, an EXIF-oriented image: each preview is its print file reduced', async () => {
      const cases = [
        {
          what: 'fitted: white margins above and below',
          item: { sku: PHONE_CASE, sizing: 'fitPrintArea', assets: [{ url: images.url('square.jpg') }] },
          layout: previewLayoutOf(PHONE_CASE),
          // 600x600 fitted into the 1094x2094 file (trim and bleed): 1094x1094 with 500 px of margin above and below.
          expected: { rotated: false, crop: { left: 0, top: 0, width: 600, height: 600 } },
          margins: { top: 500, bottom: 500, left: 0, right: 0 },
        },
        {
          what: 'an image-wrapped canvas: the print area is the front with its wrap and bleed around it',
          item: {
            sku: 'GLOBAL-CAN-8x8',
            attributes: { wrap: 'ImageWrap' },
            sizing: 'fillPrintArea',
            assets: [{ url: images.url('wide.jpg') }],
          },
          layout: previewLayoutOf('GLOBAL-CAN-8x8', { wrap: 'ImageWrap' }),
          // 900x700 filling the whole 3368x3368 file (the 2400 px front, 449 px of wrap and 35 px of bleed a side,
          // at 300 dpi): resized to 4330x3368, the middle 3368 columns from 481: source columns 99.98 to 800.02, so
          // every source column that shows at all, 99 to 801. Previewed at 800 / 3368: 570 + 2 x (106 + 8) = 798.
          expected: { rotated: false, crop: { left: 99, top: 0, width: 702, height: 700 } },
          margins: null,
        },
        {
          what: 'an EXIF-oriented image: upright 400x600, so not turned',
          item: { sku: PHONE_CASE, sizing: 'fillPrintArea', assets: [{ url: images.url('oriented.jpg') }] },
          layout: previewLayoutOf(PHONE_CASE),
          // 400x600 upright filling 1094x2094: x 3.49, so 313 of its 400 columns (43.3 to 356.7: 43 to 357).
          expected: { rotated: false, crop: { left: 43, top: 0, width: 314, height: 600 } },
          margins: null,
        },
      ]
      const references = new Map<string, Buffer>()
      assert.deepEqual([cases[1]?.layout.width, cases[1]?.layout.height], [798, 798])
      for (const { what, item, layout, expected, margins } of cases) {
        const response = await preview(item)
        assert.equal(response.statusCode, 200, response.body)
        const [made] = json(response).previews
        const { width, height, rotated, crop } = made
        assert.deepEqual(
          { width, height, rotated, crop },
          { width: layout.width, height: layout.height, ...expected },
          what,
        )
        const { reduced, listed } = await orderedPrintFile(item, layout)
        assert.deepEqual([listed.rotated, listed.placement], [rotated, { ...crop, margins }], what)
        const previewImage = await fileOf(made.previewUrl)
        await assertSamePicture(previewImage, reduced, what)
        await assertOtherPicture(await shifted(previewImage, 0.03), reduced, `${what}, 3% off`)
        references.set(what, reduced)
      }
      // The same pixels without their orientation are another picture (turned, and cropped otherwise).
      const unoriented = json(
        await preview({ sku: PHONE_CASE, sizing: 'fillPrintArea', assets: [{ url: images.url('unoriented.jpg') }] }),
      ).previews[0]
      assert.equal(unoriented.rotated, true)
      const reference = references.get(cases[2]?.what ?? '')
      if (!reference) throw new Error('no reference')
      await assertOtherPicture(await fileOf(unoriented.previewUrl), reference, 'the orientation ignored')
    })

    test('an image sharp enough has no warning, and neither has its order', async () => {
      const item = { sku: PHONE_CASE, sizing: 'fitPrintArea', assets: [{ url: images.url('sharp.jpg') }] }
      const made = json(await preview(item)).previews[0]
      // Fitted: 1200x2200 into 1080x2070 gives 1080x1980 (x 0.9), so 300 / 0.9 = 333 dpi.
      assert.deepEqual([made.effectiveDpi, made.warnings, made.rotated], [333, [], false])
      assert.deepEqual(made.crop, { left: 0, top: 0, width: 1200, height: 2200 })
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ items: [{ ...item, copies: 1 }] }),
      })
      const allocated = await drive.allocate(json(created).order.id)
      assert.deepEqual(allocated.document.status.issues, [])
    })

    test('mockups: a framed print in its frame colour, canvases with their edges, a framed canvas, a photo print, a book with its spine', async () => {
      const mockupOf = async (body: Record<string, unknown>) => {
        const response = await preview(body)
        assert.equal(response.statusCode, 200, response.body)
        const previews = json(response).previews
        return Promise.all(
          previews.map(async (entry: { mockupUrl: string }) => {
            const data = await fileOf(entry.mockupUrl)
            const meta = await sharp(data).metadata()
            assert.equal(meta.format, 'jpeg')
            assert.ok(Math.max(meta.width ?? 0, meta.height ?? 0) <= 1200, `${meta.width}x${meta.height}`)
            return { data, width: meta.width ?? 0, height: meta.height ?? 0 }
          }),
        )
      }
      const red = [{ url: images.url('red.jpg') }]

      const [framed] = await mockupOf({
        sku: 'GLOBAL-CFPM-8X10',
        attributes: { color: 'gold' },
        sizing: 'fillPrintArea',
        assets: red,
      })
      if (!framed) throw new Error('no mockup')
      // 8x10 in frame around a 6x8 in mount window. The preview is the print file's layout, the 6x8 in trim (1800 x
      // 2400 px) and 3 mm of bleed (35 px) at 800 / 2470: 582 x 777 and 11 px, 604 x 799; the window shows the trim
      // (the bleed is cut off the finished print). 604 / 1800 x 300 = 100.7 px per inch: mount and frame 101 px, a
      // 51 px wall: 1088 x 1283, reduced to fit 1200 (1018 x 1200).
      const framedLayout = previewLayoutOf('GLOBAL-CFPM-8X10', { color: 'gold' })
      assert.deepEqual([framedLayout.width, framedLayout.height], [604, 799])
      assert.deepEqual([framedLayout.face.width, framedLayout.face.height], [582, 777])
      assert.deepEqual([framed.width, framed.height], [1018, 1200])
      const scale = 1200 / 1283
      assertNear(await pixel(framed.data, 100 * scale, framed.height / 2), GOLD, 'gold frame')
      assertNear(await pixel(framed.data, framed.width / 2, framed.height / 2), RED, 'the print')

      const [canvas] = await mockupOf({
        sku: 'GLOBAL-CAN-8x8',
        attributes: { wrap: 'Black' },
        sizing: 'fillPrintArea',
        assets: red,
      })
      if (!canvas) throw new Error('no mockup')
      // The layout's face and wrap band, exactly: the 3368 px square file (2400 px front, 449 px band, 35 px bleed)
      // at 800 / 3368 is a 570 px front and a 106 px band (8 px of bleed); the mockup shows the front, one band as
      // the edge, and half a band of wall (53 px).
      const canvasLayout = previewLayoutOf('GLOBAL-CAN-8x8', { wrap: 'Black' })
      assert.deepEqual([canvasLayout.face.width, canvasLayout.wrap, canvasLayout.bleed], [570, 106, 8])
      assert.deepEqual([canvas.width, canvas.height], [570 + 106 + 2 * 53, 570 + 106 + 2 * 53])
      assertNear(await pixel(canvas.data, 53 + 570 + 30, 53 + 285), { r: 16, g: 16, b: 16 }, 'black edge')

      const [mirrored] = await mockupOf({
        sku: 'GLOBAL-CAN-8x8',
        attributes: { wrap: 'MirrorWrap' },
        sizing: 'fillPrintArea',
        assets: red,
      })
      if (!mirrored) throw new Error('no mockup')
      // The same geometry; the edges repeat the red front, shaded (0.78 on the right, 0.62 below).
      assert.deepEqual([mirrored.width, mirrored.height], [canvas.width, canvas.height])
      assertNear(await pixel(mirrored.data, 53 + 570 + 30, 53 + 285), { r: 172, g: 23, b: 23 }, 'mirrored right edge')
      assertNear(await pixel(mirrored.data, 53 + 285, 53 + 570 + 30), { r: 136, g: 19, b: 19 }, 'mirrored bottom edge')

      const [framedCanvas] = await mockupOf({
        sku: 'GLOBAL-FRA-CAN-16X20',
        attributes: { color: 'natural', wrap: 'ImageWrap' },
        sizing: 'fillPrintArea',
        assets: red,
      })
      if (!framedCanvas) throw new Error('no mockup')
      // 5768x6968 (the 16x20 in front 4800x6000, 449 px of wrap and 35 of bleed) at 800 / 6968: 661x798, the front
      // 551x688; the frame from the variant's 5754 px area: 661 / 5754 x 300 = 34.5 px per inch, 34 px of frame, a
      // 17 px wall: 653x790, the wrap hidden.
      const framedCanvasLayout = previewLayoutOf('GLOBAL-FRA-CAN-16X20', { color: 'natural', wrap: 'ImageWrap' })
      assert.deepEqual(
        [
          framedCanvasLayout.width,
          framedCanvasLayout.height,
          framedCanvasLayout.face.width,
          framedCanvasLayout.face.height,
        ],
        [661, 798, 551, 688],
      )
      assert.deepEqual([framedCanvas.width, framedCanvas.height], [551 + 68 + 34, 688 + 68 + 34])
      assertNear(await pixel(framedCanvas.data, 17 + 17, 395), { r: 222, g: 184, b: 135 }, 'natural frame')
      assertNear(await pixel(framedCanvas.data, 17 + 34 + 3, 395), RED, 'the front right inside the frame')

      const [photo] = await mockupOf({
        sku: 'GLOBAL-PHO-4x6',
        attributes: { finish: 'lustre' },
        sizing: 'fillPrintArea',
        assets: red,
      })
      if (!photo) throw new Error('no mockup')
      // The 4x6 in trim (1200x1800 px) and 2 mm of bleed (24 px) at 800 / 1848: a 539x799 preview (519x779 and
      // 10 px); the print shows its trim (the bleed is cut off), with a 32 px white border, a 64 px wall around it.
      const photoLayout = previewLayoutOf('GLOBAL-PHO-4x6', { finish: 'lustre' })
      assert.deepEqual([photoLayout.width, photoLayout.height], [539, 799])
      assert.deepEqual([photoLayout.face.width, photoLayout.face.height], [519, 779])
      assert.deepEqual([photo.width, photo.height], [519 + 64 + 128, 779 + 64 + 128])
      assertNear(await pixel(photo.data, 64 + 16, photo.height / 2), { r: 255, g: 255, b: 255 }, 'white border')

      const book = await mockupOf({
        sku: 'BOOK-A4-L-HARD-M',
        sizing: 'fillPrintArea',
        assets: [
          { printArea: 'default', url: images.url('red.jpg') },
          { printArea: 'spine', url: images.url('green.jpg') },
        ],
      })
      assert.equal(book.length, 2)
      const [cover] = book
      if (!cover) throw new Error('no mockup')
      // Cover 800x566, spine 300/3508 of it: 68 px, a 32 px wall.
      assert.deepEqual([cover.width, cover.height], [68 + 800 + 64, 566 + 64])
      assertNear(await pixel(cover.data, 32 + 20, cover.height / 2), { r: 26, g: 170, b: 26 }, 'green spine')
      assertNear(await pixel(cover.data, 32 + 68 + 400, cover.height / 2), RED, 'red cover')
    })

    test('quotes warn about low-resolution asset URLs, and answer as before without them', async () => {
      const quote = (assets: Record<string, unknown>[]) =>
        t.sandbox({
          method: 'POST',
          url: '/v4.0/quotes',
          payload: { destinationCountryCode: 'GB', items: [{ sku: PHONE_CASE, copies: 1, assets }] },
        })
      const plain = await quote([{ printArea: 'default' }])
      assert.equal(plain.statusCode, 200, plain.body)
      assert.equal('warnings' in json(plain), false)

      // Two items, the image on the second: the warning names that item.
      const warned = await t.sandbox({
        method: 'POST',
        url: '/v4.0/quotes',
        payload: {
          destinationCountryCode: 'GB',
          items: [
            { sku: PHONE_CASE, copies: 1, assets: [{}] },
            { sku: PHONE_CASE, copies: 2, assets: [{ url: images.url('landscape.jpg') }] },
          ],
        },
      })
      assert.equal(warned.statusCode, 200, warned.body)
      const body = json(warned)
      assert.deepEqual(Object.keys(body), ['outcome', 'quotes', 'issues', 'traceParent', 'warnings'])
      assert.deepEqual(
        body.warnings.map((warning: Record<string, unknown>) => ({ ...warning, message: null })),
        [
          {
            code: 'LowResolution',
            itemId: body.quotes[0].items[1].id,
            printArea: 'default',
            effectiveDpi: 86,
            minimumDpi: 150,
            message: null,
          },
        ],
      )
      const sharpEnough = json(await quote([{ url: images.url('sharp.jpg') }]))
      assert.deepEqual(sharpEnough.warnings, [])

      const missing = await quote([{ url: images.url('missing.jpg') }])
      assert.equal(missing.statusCode, 400, missing.body)
      assert.equal(json(missing).failures['items[0].assets[0].url'][0].code, 'NotDownloaded')

      // printroute's own /samples/ naming no sample: refused on the field with the samples, nothing fetched.
      const unknownSample = `${t.app.publicUrl('sandbox')}/samples/nope.jpg`
      const noSample = await quote([{ url: unknownSample }])
      assert.equal(noSample.statusCode, 400, noSample.body)
      const [failure] = json(noSample).failures['items[0].assets[0].url']
      assert.equal(failure.code, 'InvalidValue')
      assert.equal(failure.providedValue, unknownSample)
      assert.match(failure.comparisonValue, /^printroute has no sample nope\.jpg; its samples are landscape\.jpg/)
      assert.ok(failure.validValues.includes(`${t.app.publicUrl('sandbox')}/samples/portrait.jpg`))
    })

    test('refusals name the field: unknown SKU, a URL that does not download, a PDF, an unknown field', async () => {
      const failuresOf = async (body: Record<string, unknown>) => {
        const response = await preview(body)
        assert.equal(response.statusCode, 400, response.body)
        assert.equal(json(response).outcome, 'ValidationFailed')
        return json(response).failures
      }
      const asset = (name: string) => [{ url: images.url(name) }]
      assert.equal(
        (await failuresOf({ sku: 'NOPE', sizing: 'fillPrintArea', assets: asset('red.jpg') })).sku[0].code,
        'UnknownSku',
      )
      const typo = await preview({ sku: `${PHONE_CASE}X`, sizing: 'fillPrintArea', assets: asset('red.jpg') })
      assert.equal(json(typo).failures.sku[0].code, 'UnknownSku')
      assert.equal(json(typo).data.nearestSkus.sku[0], PHONE_CASE, 'the nearest SKU is named in data')
      const noSample = await failuresOf({
        sku: PHONE_CASE,
        sizing: 'fillPrintArea',
        assets: [{ url: `${t.app.publicUrl('live')}/samples/nope.jpg` }],
      })
      assert.equal(noSample['assets[0].url'][0].code, 'InvalidValue')
      assert.match(noSample['assets[0].url'][0].comparisonValue, /no sample nope\.jpg; its samples are/)
      const missing = await failuresOf({ sku: PHONE_CASE, sizing: 'fillPrintArea', assets: asset('missing.jpg') })
      assert.equal(missing['assets[0].url'][0].code, 'NotDownloaded')
      assert.match(missing['assets[0].url'][0].comparisonValue, /404/)
      const pdf = await failuresOf({ sku: PHONE_CASE, sizing: 'fillPrintArea', assets: asset('document.pdf') })
      assert.equal(pdf['assets[0].url'][0].code, 'NotAnImage')
      const truncated = await failuresOf({ sku: PHONE_CASE, sizing: 'fillPrintArea', assets: asset('truncated.jpg') })
      assert.equal(truncated['assets[0].url'][0].code, 'NotAnImage')
      const area = await failuresOf({
        sku: PHONE_CASE,
        sizing: 'fillPrintArea',
        assets: [{ printArea: 'back', url: images.url('red.jpg') }],
      })
      assert.equal(area['assets[0].printArea'][0].code, 'UnknownPrintArea')
      // An order's own fields are no item's.
      const unknown = await failuresOf({
        sku: PHONE_CASE,
        sizing: 'fillPrintArea',
        shippingMethod: 'Budget',
        assets: asset('red.jpg'),
      })
      assert.equal(unknown.shippingMethod[0].code, 'UnknownField')
    })

    test("an order's item is previewed as it is: the fields only orders use are checked as on an order, then ignored", async () => {
      const bare = {
        sku: 'GLOBAL-PHO-4x6',
        sizing: 'fillPrintArea',
        attributes: { finish: 'gloss' },
        assets: [{ url: images.url('red.jpg') }],
      }
      const redJpeg = await fetch(images.url('red.jpg')).then(async (response) =>
        Buffer.from(await response.arrayBuffer()),
      )
      const item = {
        merchantReference: 'item-1',
        sku: 'global-pho-4x6',
        copies: 3,
        sizing: 'FillPrintArea',
        recipientCost: { amount: '4.5', currency: 'gbp' },
        attributes: { finish: 'gloss' },
        assets: [
          {
            printArea: 'default',
            url: images.url('red.jpg'),
            md5Hash: createHash('md5').update(redJpeg).digest('hex'),
            pageCount: null,
          },
        ],
      }
      // The same item ordered is a valid order: the body is exactly an order's item.
      const ordered = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder({ items: [item] }) })
      assert.equal(ordered.statusCode, 200, ordered.body)

      const plain = await preview(bare)
      const whole = await preview(item)
      assert.equal(whole.statusCode, 200, whole.body)
      // Nothing the extra fields say changes the answer: the same cache entry, the same links.
      assert.deepEqual(json(whole).previews, json(plain).previews)

      // Checked as on an order: each bad value is refused under its own name.
      const refused = await preview({
        ...item,
        merchantReference: 'two\nlines',
        copies: 0,
        recipientCost: { amount: '4.555', currency: 'GBP' },
        assets: [{ ...item.assets[0], md5Hash: 'not-an-md5', pageCount: 0 }],
      })
      assert.equal(refused.statusCode, 400, refused.body)
      const failures = json(refused).failures
      for (const path of [
        'merchantReference',
        'copies',
        'recipientCost.amount',
        'assets[0].md5Hash',
        'assets[0].pageCount',
      ]) {
        assert.ok(failures[path], `a failure under ${path}: ${JSON.stringify(failures)}`)
      }
      // A book's page count need not be given, but one given is held to the product's limits, as an order's.
      const book = (pageCount: number | null) =>
        preview({
          sku: 'BOOK-A4-L-HARD-M',
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ printArea: 'default', url: images.url('red.jpg'), pageCount }],
        })
      assert.equal((await book(null)).statusCode, 200)
      assert.equal((await book(40)).statusCode, 200)
      const tooFew = await book(2)
      assert.equal(tooFew.statusCode, 400, tooFew.body)
      assert.equal(json(tooFew).failures['assets[0].pageCount'][0].code, 'MustBeGreaterThanOrEqualTo')
    })

    // Last: it moves the clock past every entry's expiry.
    test('cached by image and item for 24 hours, then the links expire and the expiry job removes the files', async () => {
      const item = {
        sku: 'GLOBAL-PHO-4x6',
        attributes: { finish: 'gloss' },
        sizing: 'fillPrintArea',
        assets: [{ url: images.url('red.jpg') }],
      }
      const first = json(await preview(item)).previews[0]
      const rows = async () =>
        Number((await t.database.db.query<{ count: string }>('SELECT count(*) AS count FROM preview_cache'))[0]?.count)
      const before = await rows()
      const again = json(await preview(item)).previews[0]
      assert.equal(await rows(), before, 'no new entry')
      const keyOf = (link: string) => new URL(link).pathname
      assert.equal(keyOf(again.previewUrl), keyOf(first.previewUrl))
      assert.equal(again.expiresAt, first.expiresAt)
      // Another sizing is another entry.
      const fitted = json(await preview({ ...item, sizing: 'fitPrintArea' })).previews[0]
      assert.notEqual(keyOf(fitted.previewUrl), keyOf(first.previewUrl))

      t.clock.advanceSeconds(24 * 3600 + 1)
      assert.equal((await fetchLink(first.mockupUrl)).statusCode, 410)
      const blobKeyOf = (link: string) => decodeURIComponent(keyOf(link).replace(/^\/files\//, ''))

      // Asked again before the expiry job ran: made again under new file names; the expired entry's files go.
      const remade = json(await preview(item)).previews[0]
      assert.notEqual(keyOf(remade.previewUrl), keyOf(first.previewUrl))
      assert.equal((await fetchLink(remade.previewUrl)).statusCode, 200)
      assert.equal(await t.app.services.files.exists(blobKeyOf(first.previewUrl)), false)
      assert.equal(await t.app.services.files.exists(blobKeyOf(first.mockupUrl)), false)

      // The expiry job takes the expired rows, then deletes their files; a render of the same entry in between
      // writes files of its own, which those deletes cannot reach (they would with names fixed per entry).
      const expiredKeys = await deleteExpiredPreviews(t.database.db, t.clock.now())
      assert.ok(expiredKeys.includes(blobKeyOf(fitted.previewUrl)), 'the fitted entry had expired')
      const refitted = json(await preview({ ...item, sizing: 'fitPrintArea' })).previews[0]
      for (const key of expiredKeys) await t.app.services.files.delete(key)
      assert.equal((await fetchLink(refitted.previewUrl)).statusCode, 200)
      assert.equal((await fetchLink(refitted.mockupUrl)).statusCode, 200)
      assert.equal(await t.app.services.files.exists(blobKeyOf(fitted.previewUrl)), false)

      // Nothing left to expire; the job removes each entry with its files once it has expired.
      assert.equal(await t.app.services.previews.expirePreviews(), 0)
      assert.equal(await rows(), 2)
      t.clock.advanceSeconds(24 * 3600 + 1)
      assert.equal(await t.app.services.previews.expirePreviews(), 4)
      assert.equal(await rows(), 0)
      assert.equal(await t.app.services.files.exists(blobKeyOf(remade.previewUrl)), false)
      assert.equal(await t.app.services.files.exists(blobKeyOf(refitted.mockupUrl)), false)
    })
  })

  describe(`previews follow the catalogue they are made with (${kind})`, () => {
    let database: TestDatabase
    let filesDir: string
    let images: ImageServer
    before(async () => {
      database = await openTestDatabase(kind)
      filesDir = mkdtempSync(join(tmpdir(), 'printroute-files-'))
      images = await startImageServer({ '/red.jpg': await solidJpeg(300, 400, RED) }, null)
    })
    after(async () => {
      await images?.close()
      await database?.close()
      if (filesDir) rmSync(filesDir, { recursive: true, force: true })
    })

    /**
     * The sample catalogue without print specifications, so its print areas' pixel sizes make the previews (a
     * specified area is laid out from its spec instead); with `change` made to it.
     */
    function withoutSpecs(name: string, change: (file: any) => void = () => {}) {
      return changedSampleCatalogue(name, (file) => {
        for (const product of file.products) delete product.printAreaSpecs
        change(file)
      })
    }

    /** The catalogue without specs with GLOBAL-PHO-4x6 changed (another print area size, a lower minimumDpi) and an Oak frame. */
    function changedCatalogue(oak: string) {
      return withoutSpecs(`catalogue with Oak ${oak}`, (file) => {
        const product = (sku: string) => file.products.find((entry: { sku: string }) => entry.sku === sku)
        const photo = product('GLOBAL-PHO-4x6')
        photo.minimumDpi = 50
        photo.printAreas.default = { required: true, horizontalResolution: 1200, verticalResolution: 1600 }
        product('GLOBAL-CFPM-8X10').attributes.color.push('Oak')
        file.colours = { Oak: oak }
      })
    }

    /** Runs `use` on an application with `catalogue` on the shared database (a restart with another file). */
    async function withApp<R>(
      catalogue: ReturnType<typeof parseCatalogue> | undefined,
      use: (t: TestApp) => Promise<R>,
    ) {
      const t = await startTestApp({ kind, database, filesDir, ...(catalogue ? { catalogue } : {}) })
      try {
        return await use(t)
      } finally {
        await t.close()
      }
    }

    async function previewOn(t: TestApp, body: Record<string, unknown>) {
      const response = await t.sandbox({ method: 'POST', url: '/v4.0/previews', payload: body })
      assert.equal(response.statusCode, 200, response.body)
      const [made] = json(response).previews
      const link = new URL(made.mockupUrl)
      const mockup = await t.app.sandbox.inject({ method: 'GET', url: `${link.pathname}${link.search}` })
      assert.equal(mockup.statusCode, 200)
      return { ...made, mockup: mockup.rawPayload }
    }

    const photoItem = () => ({
      sku: 'GLOBAL-PHO-4x6',
      attributes: { finish: 'gloss' },
      sizing: 'fillPrintArea',
      assets: [{ url: images.url('red.jpg') }],
    })
    const oakItem = () => ({ ...photoItem(), sku: 'GLOBAL-CFPM-8X10', attributes: { color: 'oak' } })
    /** The middle of the mockup's left frame moulding (see the gold frame above: 100 px of 1300 from the left). */
    const frameColourOf = async (mockup: Buffer) => {
      const { height } = await sharp(mockup).metadata()
      return pixel(mockup, (100 * 1200) / 1300, (height ?? 0) / 2)
    }

    test('a catalogue change to a print area size, a minimumDpi, a colour or a print specification makes a new entry, not the cached answer', async () => {
      const sample = await withApp(withoutSpecs('sample without specs'), (t) => previewOn(t, photoItem()))
      // 300x400 filling 1200x1800 (4x6 in): 66 dpi, below the photo print's 200.
      assert.deepEqual(
        [sample.width, sample.height, sample.effectiveDpi, sample.warnings.map((w: { code: string }) => w.code)],
        [533, 800, 66, ['LowResolution']],
      )

      const changed = await withApp(changedCatalogue('#8b5a2b'), async (t) => ({
        photo: await previewOn(t, photoItem()),
        oak: await previewOn(t, oakItem()),
      }))
      // 1200x1600 at 75 dpi, above the new minimum of 50: the geometry and the warnings of this catalogue.
      assert.deepEqual(
        [changed.photo.width, changed.photo.height, changed.photo.effectiveDpi, changed.photo.warnings],
        [600, 800, 75, []],
      )
      assert.notEqual(new URL(changed.photo.previewUrl).pathname, new URL(sample.previewUrl).pathname)
      // A colour only this catalogue has: the frame is drawn in it.
      assertNear(await frameColourOf(changed.oak.mockup), { r: 0x8b, g: 0x5a, b: 0x2b }, 'oak frame', 12)

      // The same names, Oak drawn otherwise: a new mockup for the frame; the photo print is served from the cache.
      const recoloured = await withApp(changedCatalogue('#3b6e8f'), async (t) => ({
        photo: await previewOn(t, photoItem()),
        oak: await previewOn(t, oakItem()),
      }))
      assertNear(await frameColourOf(recoloured.oak.mockup), { r: 0x3b, g: 0x6e, b: 0x8f }, 'recoloured oak', 12)
      assert.notEqual(new URL(recoloured.oak.mockupUrl).pathname, new URL(changed.oak.mockupUrl).pathname)
      assert.equal(new URL(recoloured.photo.previewUrl).pathname, new URL(changed.photo.previewUrl).pathname)

      // Print specifications are part of the key: the sample as shipped lays the photo print out from its spec (the
      // 4x6 in trim with 2 mm of bleed, 1248x1848 px, at 800 / 1848: 519 + 2 x 10 by 779 + 2 x 10), a new entry; and
      // 4 mm of bleed instead (47 px: 1294x1894, at 800 / 1894: 506 + 2 x 19 by 760 + 2 x 19) another one.
      const specified = await withApp(undefined, (t) => previewOn(t, photoItem()))
      assert.deepEqual([specified.width, specified.height], [539, 799])
      assert.notEqual(new URL(specified.previewUrl).pathname, new URL(sample.previewUrl).pathname)
      const rebled = await withApp(
        changedSampleCatalogue('photo print with 4 mm bleed', (file) => {
          const photo = file.products.find((entry: { sku: string }) => entry.sku === 'GLOBAL-PHO-4x6')
          photo.printAreaSpecs.default.bleedMm = 4
        }),
        (t) => previewOn(t, photoItem()),
      )
      assert.deepEqual([rebled.width, rebled.height], [544, 798])
      assert.notEqual(new URL(rebled.previewUrl).pathname, new URL(specified.previewUrl).pathname)
    })
  })
}
