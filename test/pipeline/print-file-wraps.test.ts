// A canvas whose print area has a spec gets the print file its wrap asks for: a MirrorWrap and a Black order of
// the same image make different files, both of the planned layout's size (face + 2 x band + 2 x bleed), through
// the real pipeline steps and renderer. The catalogue loader cannot declare specs yet, so the test gives the
// sample catalogue's canvas a spec by wrapping the loaded model (withPrintAreaSpec below).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import type { Catalogue } from '../../src/domain/catalogue.ts'
import type { Variant } from '../../src/domain/catalogue.types.ts'
import { planPrintLayout } from '../../src/domain/print-geometry.ts'
import type { PrintAreaSpec } from '../../src/domain/print-specs.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

/** The 10 x 10 in canvas on 38 mm bars with 3 mm bleed, at 100 dpi to keep the render quick. */
const SPEC: PrintAreaSpec = {
  trimMm: { width: 254, height: 254 },
  bleedMm: 3,
  safeMm: 6,
  wrapMm: 38,
  minDpi: 50,
  recommendedDpi: 100,
}
const SKU = 'GLOBAL-CAN-10x10'

/** The loaded catalogue with `spec` on the default print area of every variant of `sku`. */
function withPrintAreaSpec(base: Catalogue, sku: string, spec: PrintAreaSpec): Catalogue {
  const specified = new Map<Variant, Variant>()
  const withSpec = (variant: Variant | undefined) => {
    if (!variant || variant.sku !== sku) return variant
    const made = specified.get(variant) ?? { ...variant, printAreaSpecs: { default: spec } }
    specified.set(variant, made)
    return made
  }
  return new Proxy(base, {
    get(target, property) {
      if (property === 'findVariant') {
        return (name: string, attributes?: Record<string, string>) => withSpec(target.findVariant(name, attributes))
      }
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** A picture with something in every corner and edge, so a mirror and a colour band differ. */
async function picture(): Promise<Buffer> {
  const width = 600
  const height = 600
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw.set([(x * 3) & 255, (y * 2) & 255, 128], (y * width + x) * 3)
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer()
}

for (const kind of databaseKinds) {
  describe(`print files of canvases with a print-area spec (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    before(async () => {
      t = await startTestApp({ kind, catalogue: withPrintAreaSpec(catalogue, SKU, SPEC) })
      images = await startImageServer({ '/canvas.jpg': { body: await picture(), type: 'image/jpeg' } })
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    async function printFileOf(wrap: string) {
      const item = {
        sku: SKU,
        copies: 1,
        sizing: 'fillPrintArea',
        attributes: { wrap },
        assets: [{ url: images.url('canvas.jpg') }],
      }
      const response = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder({ items: [item] }) })
      assert.equal(response.statusCode, 200, response.body)
      const orderId = json(response).order.id as string
      const drive = pipelineDriver(t)
      await drive.allocate(orderId)
      const pending = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/print-files` })).printFiles
      const state = await drive.render(orderId)
      const [shipment] = Object.values(state.pipeline.shipments)
      const [file] = Object.values(shipment?.printFiles ?? {})
      assert.ok(file, `${wrap}: the print file is made (${JSON.stringify(shipment?.printFileFailures)})`)
      return { file, pending: pending[0], data: await t.app.services.files.get(file.blobKey) }
    }

    test('MirrorWrap and Black make different files, both of the planned size; the pending listing says it', async () => {
      const mirror = await printFileOf('MirrorWrap')
      const black = await printFileOf('Black')
      const layout = planPrintLayout({ spec: SPEC, wrap: 'MirrorWrap' })
      // 254 mm is 1000 px at 100 dpi, 38 mm 150 px, 3 mm 12 px: 1000 + 2 x 162.
      assert.deepEqual([layout.width, layout.height, layout.wrap, layout.bleed], [1324, 1324, 150, 12])
      for (const made of [mirror, black]) {
        assert.deepEqual([made.file.width, made.file.height], [1324, 1324])
        assert.deepEqual([made.pending.width, made.pending.height], [1324, 1324], 'pending: the layout size')
        const meta = await sharp(made.data).metadata()
        assert.deepEqual([meta.width, meta.height], [1324, 1324])
        assert.ok(made.file.geometry?.plan.layout, 'the plan kept with the print file has its layout')
      }
      assert.notEqual(mirror.file.sha256, black.file.sha256)
      assert.equal(mirror.file.geometry?.plan.layout?.edges.kind, 'mirror')
      assert.deepEqual(black.file.geometry?.plan.layout?.edges, {
        kind: 'colour',
        name: 'Black',
        rgb: { r: 0, g: 0, b: 0 },
      })
      // The band: black on the Black canvas, the picture's own (mirrored) colours on the MirrorWrap one.
      const band = async (data: Buffer) => {
        const strip = await sharp(data).extract({ left: 0, top: 400, width: 150, height: 200 }).png().toBuffer()
        return (await sharp(strip).stats()).channels.map((channel) => channel.mean)
      }
      const blackBand = await band(black.data)
      assert.ok(
        blackBand.every((mean) => mean < 3),
        `black band: ${blackBand}`,
      )
      assert.ok(
        (await band(mirror.data)).some((mean) => mean > 60),
        'mirrored band',
      )
      // The faces are the same picture: within JPEG noise of each other.
      const face = (data: Buffer) =>
        sharp(data).extract({ left: 162, top: 162, width: 1000, height: 1000 }).raw().toBuffer()
      const [a, b] = await Promise.all([face(mirror.data), face(black.data)])
      let difference = 0
      for (let i = 0; i < a.length; i++) difference += Math.abs((a[i] as number) - (b[i] as number))
      assert.ok(difference / a.length < 2, `faces alike (mean difference ${difference / a.length})`)
      // Effective dpi at the spec's resolution: 600 source px over the 1000 px face at 100 dpi.
      assert.equal(mirror.file.dpi, 60)
    })
  })
}
