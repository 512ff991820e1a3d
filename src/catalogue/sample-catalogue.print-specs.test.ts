// The bundled sample's print specifications against its own pixel sizes (docs/catalogue.md#print-specifications):
// every product specified, and each variant's recommended pixels what its print area measures at the recommended
// resolution: at least the trim, at most the whole print file (trim, wrap band and bleed), within 1% for the
// facts' rounding. A canvas's ImageWrap asset covers the wrap band, its other wraps only the face; a canvas's
// wrap band is its edge depth.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { DEFAULT_RECOMMENDED_DPI } from '../domain/catalogue-print-specs.ts'
import type { PrintAreaSpec } from '../domain/print-specs.ts'
import { loadCatalogue } from './catalogue.loader.ts'

tier('pure')

const sample = loadCatalogue()
const MILLIMETRES_PER_INCH = 25.4
/** The facts round their pixel sizes (3307 px for 11 in at 300 dpi); 1% either way is "about". */
const SLACK = 0.01
/**
 * The one fact off by more: 6000x7200 px for the 16x20 in canvas is 5:6, the canvas 4:5, so no resolution fits both
 * sides within 1%; at its 360 dpi the width is 3% over the face and bleed.
 */
const SLACK_BY_SKU: Record<string, number> = { 'GLOBAL-CAN-16x20': 0.04 }

/** Pixels `millimetres` measure at `dpi`. */
function pixels(millimetres: number, dpi: number): number {
  return (millimetres / MILLIMETRES_PER_INCH) * dpi
}

/** The range of pixels an asset of one axis may have: from the trim to the trim with its bands (wrap when covered). */
function range(trimMm: number, spec: PrintAreaSpec, coversWrap: boolean, slack: number): [number, number] {
  const wrap = coversWrap ? 2 * (spec.wrapMm ?? 0) : 0
  const low = pixels(trimMm + wrap, spec.recommendedDpi) * (1 - slack)
  const high = pixels(trimMm + wrap + 2 * spec.bleedMm, spec.recommendedDpi) * (1 + slack)
  return [low, high]
}

test('every product of the sample is specified: each print area of each variant, or a book its interior', () => {
  for (const product of sample.products) {
    if (product.pagePricing) {
      assert.ok(product.book, `${product.sku} has a book entry`)
      assert.equal(product.book.minPages, product.pagePricing.minimumPages)
      assert.equal(product.book.maxPages, product.pagePricing.maximumPages)
      continue
    }
    for (const variant of product.variants) {
      assert.deepEqual(Object.keys(variant.printAreaSpecs), Object.keys(product.printAreas), variant.key)
    }
  }
})

test("the recommended pixels are the print area's size at the recommended resolution", () => {
  let checked = 0
  for (const product of sample.products) {
    for (const variant of product.variants) {
      for (const [area, spec] of Object.entries(variant.printAreaSpecs)) {
        const size = variant.printAreaSizes[area]
        assert.ok(size, `${variant.key} ${area} has a pixel size`)
        const coversWrap = variant.attributes.wrap === 'ImageWrap'
        const slack = SLACK_BY_SKU[product.sku] ?? SLACK
        const [minWidth, maxWidth] = range(spec.trimMm.width, spec, coversWrap, slack)
        const [minHeight, maxHeight] = range(spec.trimMm.height, spec, coversWrap, slack)
        const where = `${variant.key} ${area}: ${size.horizontalResolution}x${size.verticalResolution} px at ${spec.recommendedDpi} dpi`
        assert.ok(size.horizontalResolution >= minWidth && size.horizontalResolution <= maxWidth, `${where} (width)`)
        assert.ok(size.verticalResolution >= minHeight && size.verticalResolution <= maxHeight, `${where} (height)`)
        assert.ok(spec.minDpi <= spec.recommendedDpi, where)
        assert.equal(spec.minDpi, product.minimumDpi, `${where}: minDpi is the product's minimumDpi`)
        checked++
      }
    }
  }
  assert.ok(checked > 100, `${checked} print areas checked`)
})

test("a canvas's wrap band is its edge depth; flat products have none", () => {
  for (const product of sample.products) {
    const edge = product.attributes.edge?.[0]
    for (const variant of product.variants) {
      for (const spec of Object.values(variant.printAreaSpecs)) {
        if (product.attributes.wrap === undefined) assert.equal(spec.wrapMm, null, variant.key)
        else assert.equal(spec.wrapMm, edge === undefined ? 38 : Number.parseInt(edge, 10), variant.key)
      }
    }
  }
  assert.equal(sample.findVariant('GLOBAL-CAN-10x10', { wrap: 'Black' })?.printAreaSpecs.default?.wrapMm, 38)
})

test("a book's page trim is its page print area's pixels at 300 dpi, and its binding's page multiple divides its range", () => {
  const books = sample.products.filter((product) => product.book)
  assert.equal(books.length, 4)
  for (const product of books) {
    const book = product.book
    const pageArea = product.pagePricing?.pageCountPrintArea
    const size = pageArea === undefined ? undefined : product.printAreas[pageArea]?.size
    assert.ok(book && size, product.sku)
    for (const [trim, px] of [
      [book.trimMm.width, size.horizontalResolution],
      [book.trimMm.height, size.verticalResolution],
    ] as const) {
      const expected = pixels(trim, DEFAULT_RECOMMENDED_DPI)
      assert.ok(Math.abs(px - expected) <= expected * SLACK, `${product.sku}: ${px} px for ${trim} mm`)
    }
    assert.equal(book.minPages % book.pageMultiple, 0, product.sku)
    assert.equal(book.maxPages % book.pageMultiple, 0, product.sku)
    assert.ok(book.bleedMm === 3 && book.safeMm > 0, product.sku)
  }
})
