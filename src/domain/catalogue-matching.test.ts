import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testCatalogueFile } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue, parseCatalogue } from '../catalogue/catalogue.loader.ts'
import {
  availableShippingMethods,
  type ItemsToMatch,
  type ItemToMatch,
  matchOrderItems,
  QUOTE_PATHS,
} from './catalogue-matching.ts'
import type { Failures } from './failures.ts'

tier('pure')

const sample = loadCatalogue()
const catalogue = parseCatalogue(testCatalogueFile(), 'test.json')

const canvas = (attributes: Record<string, string> | null = { wrap: 'Black' }): ItemToMatch => ({
  sku: 'TEST-CANVAS',
  copies: 1,
  attributes,
  assets: [{ printArea: 'default' }],
})
const tee = (assets: ItemToMatch['assets'] = [{ printArea: 'front' }]): ItemToMatch => ({
  sku: 'TEST-TEE',
  copies: 2,
  attributes: { color: 'black', size: 's' },
  assets,
})
const book = (assets: ItemToMatch['assets'] = [{ printArea: 'default', pageCount: 30 }]): ItemToMatch => ({
  sku: 'TEST-BOOK',
  copies: 1,
  assets,
})
const phoneCase = (): ItemToMatch => ({ sku: 'TEST-CASE', copies: 1, assets: [{}] })

function order(
  items: ItemToMatch[],
  destinationCountryCode = 'GB',
  shippingMethod: string | null = 'Standard',
): ItemsToMatch {
  return { destinationCountryCode, shippingMethod, items }
}

/** Asserts the failures are exactly `expected` (path -> failures), in the order reported. */
function assertFailures(actual: Failures, expected: Failures): void {
  assert.deepEqual(actual, expected)
}

// ---- matching that succeeds ---------------------------------------------------------------------------------

test('a valid order matches with no failures and resolves the variant', () => {
  const result = matchOrderItems(catalogue, order([canvas(), tee(), book(), phoneCase()]))
  assertFailures(result.failures, {})
  assert.equal(result.items.length, 4)
  assert.deepEqual(
    result.items.map((item) => [item.index, item.sku, item.copies, item.variant.key]),
    [
      [0, 'TEST-CANVAS', 1, 'TEST-CANVAS{wrap=Black,edge=38mm}'],
      [1, 'TEST-TEE', 2, 'TEST-TEE{color=black,size=s}'],
      [2, 'TEST-BOOK', 1, 'TEST-BOOK{}'],
      [3, 'TEST-CASE', 1, 'TEST-CASE{}'],
    ],
  )
  assert.equal(result.destinationCountryCode, 'GB')
  assert.equal(result.shippingMethod, 'Standard')
})

test('SKU, attribute names and values are matched case-insensitively and returned in catalogue spelling', () => {
  const result = matchOrderItems(
    catalogue,
    order([{ sku: 'test-canvas', copies: 1, attributes: { WRAP: 'imagewrap' }, assets: [{}] }]),
  )
  assertFailures(result.failures, {})
  const [item] = result.items
  assert.ok(item)
  assert.equal(item.sku, 'TEST-CANVAS')
  assert.deepEqual(item.attributes, { wrap: 'ImageWrap' })
  assert.deepEqual(item.variant.attributes, { wrap: 'ImageWrap', edge: '38mm' })
  assert.equal(item.product.sku, 'TEST-CANVAS')
})

test('attributes with a single allowed value may be omitted, or given in any case', () => {
  const omitted = matchOrderItems(catalogue, order([canvas({ wrap: 'Black' })]))
  assert.deepEqual(omitted.items[0]?.attributes, { wrap: 'Black' })
  const given = matchOrderItems(catalogue, order([canvas({ EDGE: '38MM', wrap: 'black' })]))
  assertFailures(given.failures, {})
  assert.deepEqual(given.items[0]?.attributes, { wrap: 'Black', edge: '38mm' }, 'product attribute order')
})

test('products without attributes accept no attributes, an empty object or null', () => {
  for (const attributes of [undefined, null, {}]) {
    const result = matchOrderItems(catalogue, order([{ sku: 'TEST-CASE', copies: 1, attributes, assets: [{}] }]))
    assertFailures(result.failures, {})
    assert.deepEqual(result.items[0]?.attributes, {})
  }
})

test('print areas are matched case-insensitively, returned lower case, omitted or null means default', () => {
  const result = matchOrderItems(
    catalogue,
    order([
      tee([{ printArea: 'FRONT' }, { printArea: 'Back' }]),
      { ...phoneCase(), assets: [{ printArea: null }] },
      { ...phoneCase(), assets: [{ printArea: 'DEFAULT' }] },
    ]),
  )
  assertFailures(result.failures, {})
  assert.deepEqual(
    result.items.map((item) => item.assets.map((asset) => asset.printArea)),
    [['front', 'back'], ['default'], ['default']],
  )
})

test('optional print areas may be left out; page counts are passed through', () => {
  const result = matchOrderItems(catalogue, order([tee(), book([{ pageCount: 24 }, { printArea: 'spine' }])]))
  assertFailures(result.failures, {})
  assert.deepEqual(result.items[1]?.assets, [
    { printArea: 'default', pageCount: 24 },
    { printArea: 'spine', pageCount: null },
  ])
})

test('the destination and the shipping method are accepted in any letter case and returned canonical', () => {
  const result = matchOrderItems(catalogue, order([canvas()], 'gb', 'standardplus'))
  assertFailures(result.failures, {})
  assert.equal(result.destinationCountryCode, 'GB')
  assert.equal(result.shippingMethod, 'StandardPlus')
})

// ---- SKU ----------------------------------------------------------------------------------------------------

test('an unknown SKU is reported at items[i].sku and the other items are still checked', () => {
  const result = matchOrderItems(
    catalogue,
    order([{ sku: 'TEST-NOPE', copies: 1, assets: [{}] }, canvas({ wrap: 'Pink' })]),
  )
  assertFailures(result.failures, {
    'items[0].sku': [{ code: 'UnknownSku', providedValue: 'TEST-NOPE' }],
    'items[1].attributes.wrap': [
      { code: 'InvalidAttributeValue', providedValue: 'Pink', validValues: ['Black', 'ImageWrap'] },
    ],
  })
  assert.deepEqual(result.items, [])
})

// ---- attributes ---------------------------------------------------------------------------------------------

test('an unknown attribute name is reported under its own path with the valid names', () => {
  const result = matchOrderItems(catalogue, order([canvas({ wrap: 'Black', colour: 'red' })]))
  assertFailures(result.failures, {
    'items[0].attributes.colour': [
      { code: 'UnknownAttribute', providedValue: 'colour', validValues: ['wrap', 'edge'] },
    ],
  })
})

test('attributes given to a product without attributes are unknown', () => {
  const result = matchOrderItems(catalogue, order([{ ...phoneCase(), attributes: { finish: 'gloss' } }]))
  assertFailures(result.failures, {
    'items[0].attributes.finish': [{ code: 'UnknownAttribute', providedValue: 'finish', validValues: [] }],
  })
})

test('an invalid value is reported with the allowed values, including for single-valued attributes', () => {
  const result = matchOrderItems(catalogue, order([canvas({ wrap: 'Black', edge: '19mm' }), canvas({ wrap: '' })]))
  assertFailures(result.failures, {
    'items[0].attributes.edge': [{ code: 'InvalidAttributeValue', providedValue: '19mm', validValues: ['38mm'] }],
    'items[1].attributes.wrap': [
      { code: 'InvalidAttributeValue', providedValue: '', validValues: ['Black', 'ImageWrap'] },
    ],
  })
})

test('the same attribute twice in different letter case with different values is refused', () => {
  const same = matchOrderItems(catalogue, order([canvas({ wrap: 'Black', WRAP: 'black' })]))
  assertFailures(same.failures, {})
  const different = matchOrderItems(catalogue, order([canvas({ wrap: 'Black', WRAP: 'ImageWrap' })]))
  assertFailures(different.failures, {
    'items[0].attributes.WRAP': [
      { code: 'InvalidAttributeValue', providedValue: 'ImageWrap', validValues: ['Black', 'ImageWrap'] },
    ],
  })
})

test('missing multi-valued attributes are one MissingRequiredAttributes failure listing each with its values', () => {
  const result = matchOrderItems(catalogue, order([{ ...tee(), attributes: {} }, canvas(null)]))
  assertFailures(result.failures, {
    'items[0].attributes': [
      {
        code: 'MissingRequiredAttributes',
        providedValue: {},
        missingItems: {
          attributes: [
            { name: 'color', validValues: ['black', 'white'] },
            { name: 'size', validValues: ['s', 'm'] },
          ],
        },
      },
    ],
    'items[1].attributes': [
      {
        code: 'MissingRequiredAttributes',
        providedValue: {},
        missingItems: { attributes: [{ name: 'wrap', validValues: ['Black', 'ImageWrap'] }] },
      },
    ],
  })
  assert.deepEqual(result.items, [])
})

test('an attribute given with a bad value is reported as invalid, not also as missing', () => {
  const result = matchOrderItems(catalogue, order([{ ...tee(), attributes: { color: 'pink' } }]))
  assertFailures(result.failures, {
    'items[0].attributes.color': [
      { code: 'InvalidAttributeValue', providedValue: 'pink', validValues: ['black', 'white'] },
    ],
    'items[0].attributes': [
      {
        code: 'MissingRequiredAttributes',
        providedValue: { color: 'pink' },
        missingItems: { attributes: [{ name: 'size', validValues: ['s', 'm'] }] },
      },
    ],
  })
})

test('a combination missing from an explicit variant list is refused with the valid combinations', () => {
  const result = matchOrderItems(
    catalogue,
    order([{ sku: 'TEST-FRAME', copies: 1, attributes: { color: 'white', size: 'large' }, assets: [{}] }]),
  )
  assertFailures(result.failures, {
    'items[0].attributes': [
      {
        code: 'InvalidValue',
        providedValue: { color: 'white', size: 'large' },
        validValues: [
          { color: 'black', size: 'small' },
          { color: 'black', size: 'large' },
          { color: 'white', size: 'small' },
        ],
      },
    ],
  })
  const offered = matchOrderItems(
    catalogue,
    order([{ sku: 'TEST-FRAME', copies: 1, attributes: { color: 'White', size: 'Small' }, assets: [{}] }]),
  )
  assertFailures(offered.failures, {})
})

// ---- print areas and assets ---------------------------------------------------------------------------------

test("an unknown print area is reported with the product's print areas; omitted means default", () => {
  const result = matchOrderItems(catalogue, order([tee([{ printArea: 'front' }, { printArea: 'sleeve' }]), tee([{}])]))
  assertFailures(result.failures, {
    'items[0].assets[1].printArea': [
      { code: 'UnknownPrintArea', providedValue: 'sleeve', validValues: ['front', 'back'] },
    ],
    'items[1].assets[0].printArea': [
      { code: 'UnknownPrintArea', providedValue: 'default', validValues: ['front', 'back'] },
    ],
    'items[1].assets': [{ code: 'MissingRequiredPrintArea', providedValue: ['default'], validValues: ['front'] }],
  })
})

test('the same print area twice is DuplicatePrintArea, pointing at the first asset', () => {
  const result = matchOrderItems(
    catalogue,
    order([
      tee([{ printArea: 'front' }, { printArea: 'FRONT' }]),
      { ...phoneCase(), assets: [{}, { printArea: 'default' }] },
    ]),
  )
  assertFailures(result.failures, {
    'items[0].assets[1].printArea': [
      { code: 'DuplicatePrintArea', providedValue: 'FRONT', comparisonValue: 'items[0].assets[0]' },
    ],
    'items[1].assets[1].printArea': [
      { code: 'DuplicatePrintArea', providedValue: 'default', comparisonValue: 'items[1].assets[0]' },
    ],
  })
})

test('required print areas without an asset are one MissingRequiredPrintArea naming them', () => {
  const result = matchOrderItems(catalogue, order([tee([{ printArea: 'back' }]), { ...phoneCase(), assets: [] }]))
  assertFailures(result.failures, {
    'items[0].assets': [{ code: 'MissingRequiredPrintArea', providedValue: ['back'], validValues: ['front'] }],
    'items[1].assets': [{ code: 'MissingRequiredPrintArea', providedValue: [], validValues: ['default'] }],
  })
  // With both tee sides required, one failure lists both.
  const file = testCatalogueFile()
  const back = file.products[1]?.printAreas.back
  assert.ok(back)
  back.required = true
  const strict = parseCatalogue(file, 'two-sided.json')
  assertFailures(matchOrderItems(strict, order([tee([])])).failures, {
    'items[0].assets': [{ code: 'MissingRequiredPrintArea', providedValue: [], validValues: ['front', 'back'] }],
  })
})

test('a page-priced product needs pageCount on its page asset, within its page limits', () => {
  const result = matchOrderItems(
    catalogue,
    order([
      book([{}]),
      book([{ pageCount: null }]),
      book([{ pageCount: 10 }]),
      book([{ pageCount: 101 }]),
      book([{ pageCount: 20.5 }]),
    ]),
  )
  assertFailures(result.failures, {
    'items[0].assets[0].pageCount': [{ code: 'PageCountRequired', providedValue: null }],
    'items[1].assets[0].pageCount': [{ code: 'PageCountRequired', providedValue: null }],
    'items[2].assets[0].pageCount': [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: 10, comparisonValue: 20 }],
    'items[3].assets[0].pageCount': [{ code: 'MustBeLessThanOrEqualTo', providedValue: 101, comparisonValue: 100 }],
    'items[4].assets[0].pageCount': [{ code: 'InvalidValue', providedValue: 20.5 }],
  })
  const limits = matchOrderItems(catalogue, order([book([{ pageCount: 20 }]), book([{ pageCount: 100 }])]))
  assertFailures(limits.failures, {})
})

test('pageCount is not required on other print areas nor on products not priced by page', () => {
  const result = matchOrderItems(
    catalogue,
    order([book([{ pageCount: 40 }, { printArea: 'spine' }]), { ...phoneCase(), assets: [{ pageCount: 3 }] }]),
  )
  assertFailures(result.failures, {})
  assert.equal(result.items[1]?.assets[0]?.pageCount, 3)
})

// ---- destination --------------------------------------------------------------------------------------------

test('an invalid destination is NotAValidCountryCode and skips the destination checks', () => {
  for (const code of ['XX', 'UK', 'G', 'GBR', '']) {
    const result = matchOrderItems(catalogue, order([canvas()], code, 'Overnight'))
    assertFailures(result.failures, {
      'recipient.address.countryCode': [{ code: 'NotAValidCountryCode', providedValue: code }],
    })
    assert.equal(result.items.length, 1, 'the item itself matched')
  }
})

test('quotes report the destination under destinationCountryCode', () => {
  const result = matchOrderItems(catalogue, order([canvas()], 'XX'), QUOTE_PATHS)
  assertFailures(result.failures, { destinationCountryCode: [{ code: 'NotAValidCountryCode', providedValue: 'XX' }] })
})

test('a variant no lab ships to the destination is NotAvailableForDestination at items[i].sku', () => {
  // CA is served only by us1, which makes the canvas in Black only and no phone cases.
  const result = matchOrderItems(
    catalogue,
    order([canvas({ wrap: 'ImageWrap' }), phoneCase(), canvas({ wrap: 'Black' })], 'CA'),
  )
  assertFailures(result.failures, {
    'items[0].sku': [{ code: 'NotAvailableForDestination', providedValue: 'TEST-CANVAS', comparisonValue: 'CA' }],
    'items[1].sku': [{ code: 'NotAvailableForDestination', providedValue: 'TEST-CASE', comparisonValue: 'CA' }],
  })
  assert.deepEqual(
    result.items.map((item) => item.index),
    [2],
  )
})

test('a valid country no zone reaches (rest of world without labs) is not available for any item', () => {
  const result = matchOrderItems(catalogue, order([phoneCase()], 'jp', 'Standard'))
  assertFailures(result.failures, {
    'items[0].sku': [{ code: 'NotAvailableForDestination', providedValue: 'TEST-CASE', comparisonValue: 'JP' }],
  })
})

test('with attributes still missing, availability considers every variant the item could be', () => {
  // Some canvas (Black) reaches CA, so only the missing wrap is reported...
  const canvasResult = matchOrderItems(catalogue, order([canvas(null)], 'CA'))
  assert.deepEqual(Object.keys(canvasResult.failures), ['items[0].attributes'])
  // ...but no white tee does.
  const teeResult = matchOrderItems(catalogue, order([{ ...tee(), attributes: { color: 'white' } }], 'CA'))
  assert.deepEqual(Object.keys(teeResult.failures), ['items[0].attributes', 'items[0].sku'])
  assert.equal(teeResult.failures['items[0].sku']?.[0]?.code, 'NotAvailableForDestination')
})

// ---- shipping method ----------------------------------------------------------------------------------------

test('a method no lab offers for some item is ShippingMethodNotAvailable once, with the methods that work', () => {
  // us1 ships the Black canvas Overnight in the US; only gb1 makes the phone case, and it has no Overnight to US.
  const result = matchOrderItems(
    catalogue,
    order([canvas(), phoneCase(), { ...phoneCase(), copies: 3 }], 'US', 'overnight'),
  )
  assertFailures(result.failures, {
    shippingMethod: [
      {
        code: 'ShippingMethodNotAvailable',
        providedValue: 'overnight',
        validValues: ['Budget', 'Standard', 'Express'],
      },
    ],
  })
  assert.equal(result.items.length, 3, 'the items themselves matched')
})

test('the method check uses the exact variant: StandardPlus to US works for Black canvases only', () => {
  assertFailures(matchOrderItems(catalogue, order([canvas()], 'US', 'StandardPlus')).failures, {})
  assertFailures(matchOrderItems(catalogue, order([canvas({ wrap: 'ImageWrap' })], 'US', 'StandardPlus')).failures, {
    shippingMethod: [
      {
        code: 'ShippingMethodNotAvailable',
        providedValue: 'StandardPlus',
        validValues: ['Budget', 'Standard', 'Express'],
      },
    ],
  })
})

test('validValues names only the methods that serve every item (DE: Standard alone)', () => {
  // To DE only gb1 ships, and only Standard.
  const result = matchOrderItems(catalogue, order([canvas()], 'DE', 'Express'))
  assertFailures(result.failures, {
    shippingMethod: [{ code: 'ShippingMethodNotAvailable', providedValue: 'Express', validValues: ['Standard'] }],
  })
})

test('items that cannot reach the destination are left out of the method check', () => {
  const result = matchOrderItems(catalogue, order([phoneCase(), canvas()], 'CA', 'Budget'))
  assertFailures(result.failures, {
    'items[0].sku': [{ code: 'NotAvailableForDestination', providedValue: 'TEST-CASE', comparisonValue: 'CA' }],
    shippingMethod: [{ code: 'ShippingMethodNotAvailable', providedValue: 'Budget', validValues: ['Standard'] }],
  })
})

test('an unknown shipping method is InvalidValue; no method (a quote for all) skips the check', () => {
  const unknown = matchOrderItems(catalogue, order([canvas()], 'GB', 'Teleport'))
  assertFailures(unknown.failures, {
    shippingMethod: [
      {
        code: 'InvalidValue',
        providedValue: 'Teleport',
        validValues: ['Budget', 'Standard', 'StandardPlus', 'Express', 'Overnight'],
      },
    ],
  })
  assert.equal(unknown.shippingMethod, null)
  for (const shippingMethod of [null, undefined]) {
    const none = matchOrderItems(catalogue, { destinationCountryCode: 'DE', shippingMethod, items: [canvas()] })
    assertFailures(none.failures, {})
    assert.equal(none.shippingMethod, null)
  }
})

test('availableShippingMethods lists the methods serving every matched item', () => {
  const result = matchOrderItems(catalogue, order([canvas(), phoneCase()], 'US', null))
  assert.deepEqual(availableShippingMethods(catalogue, 'US', result.items), ['Budget', 'Standard', 'Express'])
  const canvasOnly = matchOrderItems(catalogue, order([canvas()], 'US', null))
  assert.deepEqual(availableShippingMethods(catalogue, 'us', canvasOnly.items), [
    'Budget',
    'Standard',
    'StandardPlus',
    'Express',
    'Overnight',
  ])
  assert.deepEqual(availableShippingMethods(catalogue, 'DE', canvasOnly.items), ['Standard'])
  assert.deepEqual(availableShippingMethods(catalogue, 'JP', canvasOnly.items), [])
})

// ---- everything at once -------------------------------------------------------------------------------------

test('every problem of every item is reported in one pass', () => {
  const result = matchOrderItems(
    catalogue,
    order(
      [
        { sku: 'NOPE', copies: 1, assets: [] },
        {
          sku: 'test-tee',
          copies: 1,
          attributes: { colour: 'black' },
          assets: [{ printArea: 'front' }, { printArea: 'front' }],
        },
        book([{ printArea: 'cover' }]),
        canvas(),
      ],
      'US',
      'Overnight',
    ),
  )
  assertFailures(result.failures, {
    'items[0].sku': [{ code: 'UnknownSku', providedValue: 'NOPE' }],
    'items[1].attributes.colour': [
      { code: 'UnknownAttribute', providedValue: 'colour', validValues: ['color', 'size'] },
    ],
    'items[1].attributes': [
      {
        code: 'MissingRequiredAttributes',
        providedValue: { colour: 'black' },
        missingItems: {
          attributes: [
            { name: 'color', validValues: ['black', 'white'] },
            { name: 'size', validValues: ['s', 'm'] },
          ],
        },
      },
    ],
    'items[1].assets[1].printArea': [
      { code: 'DuplicatePrintArea', providedValue: 'front', comparisonValue: 'items[1].assets[0]' },
    ],
    'items[2].assets[0].printArea': [
      { code: 'UnknownPrintArea', providedValue: 'cover', validValues: ['default', 'spine'] },
    ],
    'items[2].assets': [{ code: 'MissingRequiredPrintArea', providedValue: ['cover'], validValues: ['default'] }],
    shippingMethod: [
      {
        code: 'ShippingMethodNotAvailable',
        providedValue: 'Overnight',
        validValues: ['Budget', 'Standard', 'Express'],
      },
    ],
  })
  assert.deepEqual(
    result.items.map((item) => item.index),
    [3],
  )
})

// ---- on the bundled sample catalogue ------------------------------------------------------------------------

test('sample: a GB canvas order with only the wrap given matches the 38mm canvas', () => {
  const result = matchOrderItems(sample, {
    destinationCountryCode: 'GB',
    shippingMethod: 'Overnight',
    items: [
      { sku: 'global-can-10x10', copies: 1, attributes: { wrap: 'imagewrap' }, assets: [{ printArea: 'default' }] },
    ],
  })
  assertFailures(result.failures, {})
  assert.equal(result.items[0]?.sku, 'GLOBAL-CAN-10x10')
  assert.deepEqual(result.items[0]?.attributes, { wrap: 'ImageWrap' })
  assert.equal(result.items[0]?.variant.attributes.substrateWeight, '400gsm')
})

test('sample: canvas + phone case to the US cannot go Overnight', () => {
  const result = matchOrderItems(sample, {
    destinationCountryCode: 'US',
    shippingMethod: 'Overnight',
    items: [
      { sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'Black' }, assets: [{}] },
      { sku: 'GLOBAL-TECH-IP11P-FC-CP', copies: 1, assets: [{}] },
    ],
  })
  assertFailures(result.failures, {
    shippingMethod: [
      {
        code: 'ShippingMethodNotAvailable',
        providedValue: 'Overnight',
        validValues: ['Budget', 'Standard', 'Express'],
      },
    ],
  })
})

test('sample: a tee needs colour and size and a front print; a photobook needs a page count', () => {
  const result = matchOrderItems(sample, {
    destinationCountryCode: 'DE',
    shippingMethod: 'Standard',
    items: [
      { sku: 'GLOBAL-TEE-BC-3001', copies: 1, attributes: { color: 'Navy Blue' }, assets: [{ printArea: 'back' }] },
      { sku: 'BOOK-FE-11_7-SQ-HARD-G', copies: 1, assets: [{ printArea: 'default' }, { printArea: 'spine' }] },
    ],
  })
  assertFailures(result.failures, {
    'items[0].attributes': [
      {
        code: 'MissingRequiredAttributes',
        providedValue: { color: 'Navy Blue' },
        missingItems: { attributes: [{ name: 'size', validValues: ['xs', 's', 'm', 'l', 'xl', '2xl', '3xl', '4xl'] }] },
      },
    ],
    'items[0].assets': [{ code: 'MissingRequiredPrintArea', providedValue: ['back'], validValues: ['front'] }],
    'items[1].assets[0].pageCount': [{ code: 'PageCountRequired', providedValue: null }],
  })
})

test('sample: a phone case ships worldwide from GB, by Budget, Standard and Express', () => {
  const result = matchOrderItems(sample, {
    destinationCountryCode: 'JP',
    shippingMethod: null,
    items: [{ sku: 'GLOBAL-TECH-IP12-CS-M', copies: 1, assets: [{}] }],
  })
  assertFailures(result.failures, {})
  assert.deepEqual(availableShippingMethods(sample, 'JP', result.items), ['Budget', 'Standard', 'Express'])
})
