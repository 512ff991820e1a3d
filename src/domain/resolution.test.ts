import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import { effectiveDpi, planPrintFile } from './print-geometry.ts'
import { checkResolution, DEFAULT_MINIMUM_DPI } from './resolution.ts'

tier('pure')

const catalogue = loadCatalogue()

test('effective DPI is the resize scale times 300, the smaller axis, whatever the sizing', () => {
  const source = { width: 2400, height: 1200 }
  const target = { targetWidth: 4800, targetHeight: 7200 }
  const plan = (sizing: 'fillPrintArea' | 'fitPrintArea' | 'stretchToPrintArea') =>
    planPrintFile({ sourceWidth: source.width, sourceHeight: source.height, ...target, sizing })
  // Turned to 1200x2400. Fill: resized to 4800x9600 (x4), 75 dpi. Fit: 3600x7200 (x3), 100 dpi. Stretch: 4800x7200,
  // x4 across and x3 down: the worse axis, 75 dpi.
  assert.equal(effectiveDpi(source, plan('fillPrintArea')), 75)
  assert.equal(effectiveDpi(source, plan('fitPrintArea')), 100)
  assert.equal(effectiveDpi(source, plan('stretchToPrintArea')), 75)
})

test('LowResolution below the product minimum, none at or above it', () => {
  const product = catalogue.findProduct('GLOBAL-FAP-16x24')
  if (!product) throw new Error('no product')
  assert.equal(product.minimumDpi, DEFAULT_MINIMUM_DPI)
  const target = { horizontalResolution: 4800, verticalResolution: 7200 }
  const check = (width: number, height: number) =>
    checkResolution({ product, printArea: 'default', target, source: { width, height }, sizing: 'fillPrintArea' })
  const low = check(1200, 1800)
  assert.equal(low.effectiveDpi, 75)
  assert.deepEqual(
    { ...low.warning, message: '' },
    {
      code: 'LowResolution',
      printArea: 'default',
      effectiveDpi: 75,
      minimumDpi: 150,
      message: '',
    },
  )
  assert.match(
    low.warning?.message ?? '',
    /1200 x 1800 px image prints at 75 dpi on print area default of GLOBAL-FAP-16x24/,
  )
  assert.equal(check(2400, 3600).warning, null, 'exactly 150 dpi is enough')
  assert.equal(check(2399, 3600).effectiveDpi, 149)
  assert.notEqual(check(2399, 3600).warning, null)
})
