import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { testCatalogueFile, testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { CatalogueFile, LabEntry } from '../domain/catalogue.types.ts'
import { ISO_COUNTRY_CODES } from '../domain/country-codes.ts'
import { estimateDelivery } from '../domain/delivery-promise.ts'
import { SHIPPING_METHODS } from '../domain/shipping-methods.ts'
import { CatalogueError, loadCatalogue, parseCatalogue, SAMPLE_CATALOGUE_PATH } from './catalogue.loader.ts'

tier('pure')

const sample = loadCatalogue()

/** The problems a broken catalogue is refused with (fails the test when it loads). */
function problemsOf(json: unknown): string[] {
  try {
    parseCatalogue(json, 'test.json')
  } catch (error) {
    assert.ok(error instanceof CatalogueError, `expected CatalogueError, got ${String(error)}`)
    return [...error.problems]
  }
  assert.fail('the catalogue loaded, but it should have been refused')
}

/** Asserts that one problem line starts with `path: ` and contains `reason`. */
function assertProblem(problems: string[], path: string, reason: string): void {
  const found = problems.some((problem) => problem.startsWith(`${path}: `) && problem.includes(reason))
  assert.ok(found, `no problem "${path}: ...${reason}..." among:\n${problems.join('\n')}`)
}

function variantOf(catalogue: Catalogue, sku: string, attributes: Record<string, string> = {}) {
  const variant = catalogue.findVariant(sku, attributes)
  assert.ok(variant, `no variant ${sku} ${JSON.stringify(attributes)}`)
  return variant
}

// ---- the bundled sample -------------------------------------------------------------------------------------

test('the bundled sample loads with at least 40 SKUs and 8 labs in 5 countries', () => {
  assert.equal(sample.sourceName, 'sample-catalogue.json')
  assert.ok(sample.products.length >= 40, `${sample.products.length} products`)
  assert.ok(sample.labs.length >= 8, `${sample.labs.length} labs`)
  const countries = new Set(sample.labs.map((lab) => lab.countryCode))
  assert.ok(countries.size >= 5, `labs in ${[...countries].join(', ')}`)
  for (const code of ['uk6', 'prodigi_gb2', 'prodigi_gb3', 'us1', 'us2', 'us7', 'nl1'])
    assert.ok(sample.findLab(code), code)
})

test('the sample covers every product category the brief lists', () => {
  const categories = new Set(sample.products.map((product) => product.category))
  for (const category of [
    'canvas',
    'framed-print',
    'framed-canvas',
    'fine-art-print',
    'photo-print',
    'phone-case',
    'apparel',
    'mug',
    'jigsaw',
    'photobook',
  ]) {
    assert.ok(categories.has(category), category)
  }
  for (const sku of ['GLOBAL-BOX-12X12', 'GLOBAL-CFP-16X20', 'GLOBAL-FRA-CAN-30X40', 'GLOBAL-JIG-500']) {
    assert.ok(sample.findProduct(sku), sku)
  }
})

test('GLOBAL-CAN-10x10 has the facts: wrap values, single-valued attributes, 3054x3054 default, bigger ImageWrap', () => {
  const product = sample.findProduct('GLOBAL-CAN-10x10')
  assert.ok(product)
  assert.deepEqual(product.attributes.wrap, ['Black', 'ImageWrap', 'MirrorWrap', 'White'])
  assert.deepEqual(product.attributes.edge, ['38mm'])
  assert.deepEqual(product.attributes.frame, ['38mm standard stretcher bar'])
  assert.deepEqual(product.attributes.paperType, ['Standard canvas (SC)'])
  assert.deepEqual(product.attributes.substrateWeight, ['400gsm'])
  assert.equal(product.printAreas.default?.required, true)
  assert.equal(product.variants.length, 4)
  const black = variantOf(sample, 'GLOBAL-CAN-10x10', { wrap: 'Black' })
  assert.deepEqual(black.printAreaSizes.default, { horizontalResolution: 3054, verticalResolution: 3054 })
  const imageWrap = variantOf(sample, 'GLOBAL-CAN-10x10', { wrap: 'ImageWrap' })
  assert.ok((imageWrap.printAreaSizes.default?.horizontalResolution ?? 0) > 3054)
})

test('GLOBAL-FAP-16x24, GLOBAL-PHO-4x6 and GLOBAL-CFPM-16X20 have the facts', () => {
  const fineArt = sample.findProduct('GLOBAL-FAP-16x24')
  assert.ok(fineArt)
  assert.deepEqual(fineArt.attributes, {})
  assert.equal(fineArt.variants.length, 1)
  assert.deepEqual(fineArt.variants[0]?.printAreaSizes.default, {
    horizontalResolution: 4800,
    verticalResolution: 7200,
  })

  const photo = sample.findProduct('GLOBAL-PHO-4x6')
  assert.ok(photo)
  assert.deepEqual(photo.attributes.finish, ['lustre', 'gloss'])

  const framed = sample.findProduct('GLOBAL-CFPM-16X20')
  assert.ok(framed)
  assert.deepEqual(framed.attributes.color, [
    'black',
    'brown',
    'dark grey',
    'gold',
    'light grey',
    'natural',
    'silver',
    'white',
  ])
  assert.equal(framed.variants.length, 8)
  for (const variant of framed.variants) {
    assert.deepEqual(variant.printAreaSizes.default, { horizontalResolution: 3600, verticalResolution: 4800 })
  }
})

test('GLOBAL-TEE-BC-3001 has front required, back optional, 8 colours x 8 sizes', () => {
  const tee = sample.findProduct('GLOBAL-TEE-BC-3001')
  assert.ok(tee)
  assert.deepEqual(Object.keys(tee.printAreas), ['front', 'back'])
  assert.equal(tee.printAreas.front?.required, true)
  assert.equal(tee.printAreas.back?.required, false)
  assert.deepEqual(tee.printAreas.front?.size, { horizontalResolution: 4680, verticalResolution: 5790 })
  assert.deepEqual(tee.attributes.color, [
    'black',
    'white',
    'navy blue',
    'asphalt',
    'dark heather grey',
    'athletic grey heather',
    'natural',
    'cream',
  ])
  assert.deepEqual(tee.attributes.size, ['xs', 's', 'm', 'l', 'xl', '2xl', '3xl', '4xl'])
  assert.equal(tee.variants.length, 64)
})

test('GLOBAL-TECH-IP11P-FC-CP has no attributes and is made only in GB', () => {
  const phoneCase = sample.findProduct('global-tech-ip11p-fc-cp')
  assert.ok(phoneCase)
  assert.equal(phoneCase.sku, 'GLOBAL-TECH-IP11P-FC-CP')
  assert.deepEqual(phoneCase.attributes, {})
  const offers = variantOf(sample, 'GLOBAL-TECH-IP11P-FC-CP').offers
  assert.ok(offers.length > 0)
  for (const offer of offers) assert.equal(offer.lab.countryCode, 'GB')
  assert.deepEqual(
    offers.map((offer) => [offer.unitCost.minor, offer.unitCost.currency]),
    offers.map(() => [750n, 'GBP']),
  )
})

test('BOOK-FE-11_7-SQ-HARD-G is page-priced, has a spine print area and a PDF print file', () => {
  const book = sample.findProduct('BOOK-FE-11_7-SQ-HARD-G')
  assert.ok(book)
  assert.ok(book.pagePricing)
  assert.equal(book.pagePricing.pageCountPrintArea, 'default')
  assert.ok(book.printAreas.spine)
  for (const offer of variantOf(sample, book.sku).offers) {
    assert.equal(offer.printFileFormat, 'pdf')
    assert.ok(offer.perAdditionalPageCost)
  }
})

test('not every lab makes every product: a US canvas + phone case order needs a US and a GB lab', () => {
  const canvas = variantOf(sample, 'GLOBAL-CAN-10x10', { wrap: 'Black' })
  const phoneCase = variantOf(sample, 'GLOBAL-TECH-IP11P-FC-CP')
  const canvasLabs = sample.labOptions(canvas, 'US', 'Standard').map((option) => option.offer.lab.code)
  const caseLabs = sample.labOptions(phoneCase, 'US', 'Standard').map((option) => option.offer.lab.code)
  assert.ok(canvasLabs.includes('us1'))
  assert.ok(!caseLabs.some((code) => sample.findLab(code)?.countryCode === 'US'))
  // Overnight needs a domestic lab, and no US lab makes the phone case.
  assert.deepEqual(sample.shippingMethodsFor('US', [canvas, phoneCase]), ['Budget', 'Standard', 'Express'])
  assert.deepEqual(sample.shippingMethodsFor('US', [canvas]), [...SHIPPING_METHODS])
})

test('Overnight is offered only where the lab is domestic to the destination', () => {
  for (const lab of sample.labs) {
    for (const rate of lab.shippingRates.filter((candidate) => candidate.method === 'Overnight')) {
      const zone = sample.zones.find((candidate) => candidate.name === rate.zone)
      assert.deepEqual(zone?.countries, [lab.countryCode], `${lab.code} Overnight to ${rate.zone}`)
    }
  }
})

test('the sample uses the carriers of the facts', () => {
  const carriers = new Set(sample.labs.flatMap((lab) => lab.shippingRates.map((rate) => rate.carrier)))
  for (const carrier of ['Royal Mail', 'Evri', 'DPD Local', 'FedEx', 'USPS', 'UPS', 'DHL Express']) {
    assert.ok(carriers.has(carrier), carrier)
  }
})

test('the US totals for a 10x10 canvas from us1 match the facts', () => {
  const canvas = variantOf(sample, 'GLOBAL-CAN-10x10', { wrap: 'Black' })
  const expected = { Budget: 3695n, Standard: 3900n, Express: 4900n, Overnight: 7195n } as const
  for (const [method, total] of Object.entries(expected)) {
    const option = sample
      .labOptions(canvas, 'US', method as keyof typeof expected)
      .find((candidate) => candidate.offer.lab.code === 'us1')
    assert.ok(option, method)
    const shipping = sample.shipmentCost(option.rate, [{ shippingClass: 'box', copies: 1 }])
    assert.equal(option.offer.unitCost.minor + shipping.minor, total, method)
  }
})

test('every money amount in the sample has its lab currency, and costs are realistic magnitudes', () => {
  for (const product of sample.products) {
    for (const variant of product.variants) {
      assert.ok(variant.offers.length > 0, variant.key)
      for (const offer of variant.offers) {
        assert.equal(offer.unitCost.currency, offer.lab.currency)
        const inGbp = sample.convertMinorUnits(offer.unitCost.minor, offer.lab.currency, 'GBP')
        assert.ok(inGbp >= 50n && inGbp <= 15_000n, `${variant.key} at ${offer.lab.code}: ${inGbp}`)
      }
    }
  }
})

// ---- lookups ------------------------------------------------------------------------------------------------

test('findProduct is case-insensitive and returns the catalogue spelling; unknown SKUs are undefined', () => {
  assert.equal(sample.findProduct('global-fap-16X24')?.sku, 'GLOBAL-FAP-16x24')
  assert.equal(sample.findProduct('GLOBAL-CFPM-16x20')?.sku, 'GLOBAL-CFPM-16X20')
  assert.equal(sample.findProduct('GLOBAL-NOPE'), undefined)
  assert.equal(sample.productDetails('GLOBAL-NOPE'), undefined)
  assert.equal(sample.productDetailsJson('GLOBAL-NOPE'), undefined)
})

test('findVariant matches names and values case-insensitively and fills single-valued attributes', () => {
  const variant = sample.findVariant('global-can-10x10', { WRAP: 'mirrorwrap' })
  assert.equal(variant?.attributes.wrap, 'MirrorWrap')
  assert.equal(variant?.attributes.edge, '38mm')
  assert.equal(sample.findVariant('GLOBAL-CAN-10x10', {}), undefined, 'wrap has four values, so it is required')
  assert.equal(sample.findVariant('GLOBAL-CAN-10x10', { wrap: 'Pink' }), undefined)
  assert.equal(sample.findVariant('GLOBAL-CAN-10x10', { wrap: 'Black', colour: 'red' }), undefined)
})

test('productDetails of GLOBAL-CAN-10x10 has the contract shape and key order', () => {
  const details = sample.productDetails('global-can-10x10')
  assert.ok(details)
  assert.deepEqual(Object.keys(details), [
    'sku',
    'description',
    'productDimensions',
    'attributes',
    'printAreas',
    'variants',
  ])
  assert.equal(details.sku, 'GLOBAL-CAN-10x10')
  assert.deepEqual(details.productDimensions, { width: 10, height: 10, units: 'in' })
  assert.deepEqual(Object.keys(details.productDimensions), ['width', 'height', 'units'])
  assert.deepEqual(details.attributes.wrap, ['Black', 'ImageWrap', 'MirrorWrap', 'White'])
  // Every variant has the same print specification, so it sits on the print area (docs/api.md#print-specifications).
  assert.deepEqual(Object.keys(details.printAreas), ['default'])
  assert.deepEqual(Object.keys(details.printAreas.default ?? {}), ['required', 'spec'])
  assert.equal(details.printAreas.default?.required, true)
  assert.equal(details.variants.length, 4)
  for (const variant of details.variants) {
    assert.deepEqual(Object.keys(variant), ['attributes', 'shipsTo', 'printAreaSizes'])
    assert.deepEqual(Object.keys(variant.attributes), ['wrap', 'edge', 'frame', 'paperType', 'substrateWeight'])
    assert.deepEqual(Object.keys(variant.printAreaSizes.default ?? {}), ['horizontalResolution', 'verticalResolution'])
    assert.deepEqual(variant.shipsTo, [...variant.shipsTo].sort())
    for (const country of ['GB', 'US', 'DE', 'AU', 'JP']) assert.ok(variant.shipsTo.includes(country), country)
    for (const code of variant.shipsTo) assert.match(code, /^[A-Z]{2}$/)
  }
  assert.deepEqual(details.variants[0]?.printAreaSizes, {
    default: { horizontalResolution: 3054, verticalResolution: 3054 },
  })
})

test('productDetails of GLOBAL-TEE-BC-3001 lists front/back and 64 variants in attribute order', () => {
  const details = sample.productDetails('GLOBAL-TEE-BC-3001')
  assert.ok(details)
  assert.deepEqual(Object.keys(details), [
    'sku',
    'description',
    'productDimensions',
    'attributes',
    'printAreas',
    'variants',
  ])
  assert.deepEqual(
    Object.fromEntries(Object.entries(details.printAreas).map(([name, area]) => [name, area.required])),
    { front: true, back: false },
  )
  assert.deepEqual(Object.keys(details.attributes), ['color', 'size'])
  assert.equal(details.variants.length, 64)
  assert.deepEqual(details.variants[0]?.attributes, { color: 'black', size: 'xs' })
  assert.deepEqual(details.variants[1]?.attributes, { color: 'black', size: 's' })
  assert.deepEqual(details.variants[63]?.attributes, { color: 'cream', size: '4xl' })
  assert.deepEqual(Object.keys(details.variants[0]?.printAreaSizes ?? {}), ['front', 'back'])
  const black = details.variants[0]
  const cream = details.variants[63]
  assert.ok(black && cream)
  // Black tees are also made in NL and AU; cream ones only in GB and the US, which do not ship to AU directly
  // from a domestic lab but still reach it from GB.
  assert.ok(black.shipsTo.includes('AU') && cream.shipsTo.includes('AU'))
})

test('productDetails is precomputed, frozen and identical to its JSON form', () => {
  const details = sample.productDetails('GLOBAL-CAN-10x10')
  assert.ok(details)
  assert.equal(sample.productDetails('global-CAN-10x10'), details, 'the same object on every call')
  assert.ok(Object.isFrozen(details) && Object.isFrozen(details.variants[0]?.shipsTo))
  assert.throws(() => {
    details.sku = 'changed'
  }, TypeError)
  assert.equal(sample.productDetailsJson('GLOBAL-CAN-10x10'), JSON.stringify(details))
})

test('the loaded products and labs are immutable', () => {
  const product = sample.findProduct('GLOBAL-CAN-10x10')
  assert.ok(product && Object.isFrozen(product) && Object.isFrozen(product.variants[0]?.offers[0]?.lab))
  assert.ok(Object.isFrozen(sample.products) && Object.isFrozen(sample.labs))
})

test('isKnownCountry: valid ISO codes covered by a zone; the sample has a rest-of-world zone', () => {
  assert.equal(ISO_COUNTRY_CODES.length, 249)
  assert.equal(sample.isKnownCountry('GB'), true)
  assert.equal(sample.isKnownCountry('gb'), true)
  assert.equal(sample.isKnownCountry('JP'), true, 'rest of world')
  assert.equal(sample.isKnownCountry('XX'), false)
  assert.equal(sample.isKnownCountry('UK'), false, 'UK is not an ISO code')
  assert.equal(sample.isKnownCountry('GBR'), false)
  assert.equal(sample.isKnownCountry(''), false)
  assert.equal(sample.zoneFor('JP')?.restOfWorld, true)
  assert.equal(sample.zoneFor('FR')?.name, 'eu')
})

test('without a rest-of-world zone only listed countries are known', () => {
  const file = testCatalogueFile()
  delete file.zones.row
  const catalogue = parseCatalogue(file, 'no-row.json')
  assert.equal(catalogue.isKnownCountry('GB'), true)
  assert.equal(catalogue.isKnownCountry('JP'), false)
})

test('shippingRate looks up lab, method and destination zone', () => {
  const rate = sample.shippingRate('uk6', 'Budget', 'gb')
  assert.ok(rate)
  assert.equal(rate.carrier, 'Royal Mail')
  assert.equal(rate.service, 'Standard')
  assert.equal(rate.tracked, false)
  assert.equal(rate.zone, 'uk')
  assert.deepEqual(rate.costs.envelope?.perShipment, { minor: 150n, currency: 'GBP' })
  assert.equal(sample.shippingRate('uk6', 'Overnight', 'US'), undefined)
  assert.equal(sample.shippingRate('nope', 'Budget', 'GB'), undefined)
  assert.equal(sample.shippingRate('uk6', 'Budget', 'XX'), undefined)
  assert.deepEqual(
    sample.shippingRatesFrom('uk6', 'GB').map((candidate) => candidate.method),
    [...SHIPPING_METHODS],
  )
})

test('tax rates: GB VAT 20%, EU standard rates, US sales tax not computed, others zero', () => {
  assert.deepEqual(sample.taxRate('GB'), {
    countryCode: 'GB',
    name: 'VAT',
    ratePercent: '20',
    basisPoints: 2000,
    salesTaxNotComputed: false,
  })
  assert.equal(sample.taxRate('DE').basisPoints, 1900)
  assert.equal(sample.taxRate('FR').basisPoints, 2000)
  assert.equal(sample.taxRate('FI').basisPoints, 2550)
  assert.equal(sample.taxRate('HU').basisPoints, 2700)
  const us = sample.taxRate('us')
  assert.equal(us.basisPoints, 0)
  assert.equal(us.salesTaxNotComputed, true)
  assert.deepEqual(sample.taxRate('JP'), {
    countryCode: 'JP',
    name: null,
    ratePercent: '0',
    basisPoints: 0,
    salesTaxNotComputed: false,
  })
})

test('currency conversion is exact through the base currency and rounds half-up once', () => {
  const catalogue = parseCatalogue(testCatalogueFile(), 'test.json') // GBP 1, USD 1.25, EUR 1.2
  assert.equal(catalogue.convertMinorUnits(1000n, 'GBP', 'USD'), 1250n)
  assert.equal(catalogue.convertMinorUnits(1250n, 'usd', 'gbp'), 1000n)
  assert.equal(catalogue.convertMinorUnits(1000n, 'USD', 'EUR'), 960n)
  assert.equal(catalogue.convertMinorUnits(777n, 'EUR', 'EUR'), 777n)
  // 2 x 1.25 = 2.5 -> 3; -2.5 -> -3 (half away from zero, so a refund mirrors its charge)
  assert.equal(catalogue.convertMinorUnits(2n, 'GBP', 'USD'), 3n)
  assert.equal(catalogue.convertMinorUnits(-2n, 'GBP', 'USD'), -3n)
  // 1 / 1.25 = 0.8 -> 1; 3 / 1.2 = 2.5 -> 3
  assert.equal(catalogue.convertMinorUnits(1n, 'USD', 'GBP'), 1n)
  assert.equal(catalogue.convertMinorUnits(3n, 'EUR', 'GBP'), 3n)
  assert.deepEqual(catalogue.convertMoney({ minor: 1000n, currency: 'GBP' }, 'eur'), { minor: 1200n, currency: 'EUR' })
  assert.throws(() => catalogue.convertMinorUnits(1n, 'GBP', 'JPY'), RangeError)
  assert.equal(catalogue.isKnownCurrency('usd'), true)
  assert.equal(catalogue.isKnownCurrency('JPY'), false)
  assert.equal(sample.baseCurrency, 'GBP')
  for (const code of ['GBP', 'USD', 'EUR', 'AUD', 'CAD']) assert.ok(sample.isKnownCurrency(code), code)
})

test('shipmentCost: the largest class pays per shipment, every other unit its own class per item', () => {
  const catalogue = parseCatalogue(testCatalogueFile(), 'test.json')
  const rate = catalogue.shippingRate('gb1', 'Standard', 'GB')
  assert.ok(rate)
  // large 6.00 + 2 small x 1.00
  assert.deepEqual(
    catalogue.shipmentCost(rate, [
      { shippingClass: 'small', copies: 2 },
      { shippingClass: 'large', copies: 1 },
    ]),
    { minor: 800n, currency: 'GBP' },
  )
  // 6.00 + 2 more large x 2.00
  assert.deepEqual(catalogue.shipmentCost(rate, [{ shippingClass: 'large', copies: 3 }]).minor, 1000n)
  assert.deepEqual(catalogue.shipmentCost(rate, [{ shippingClass: 'small', copies: 1 }]).minor, 300n)
  assert.deepEqual(catalogue.shipmentCost(rate, []).minor, 0n)
})

test('costPerCopy adds the per-page cost beyond the base pages for page-priced products', () => {
  const catalogue = parseCatalogue(testCatalogueFile(), 'test.json')
  const book = catalogue.findProduct('TEST-BOOK')
  const offer = book?.variants[0]?.offers[0]
  assert.ok(book && offer)
  assert.equal(catalogue.costPerCopy(book, offer, 20).minor, 2000n)
  assert.equal(catalogue.costPerCopy(book, offer, 30).minor, 2500n)
  assert.equal(catalogue.costPerCopy(book, offer, null).minor, 2000n)
  const tee = catalogue.findProduct('TEST-TEE')
  const teeOffer = tee?.variants[0]?.offers[0]
  assert.ok(tee && teeOffer)
  assert.equal(catalogue.costPerCopy(tee, teeOffer, 99).minor, 800n)
})

test('lab offers: restricted attribute values, per-product print file format, sorted by lab code', () => {
  const catalogue = parseCatalogue(testCatalogueFile(), 'test.json')
  const black = catalogue.findVariant('TEST-CANVAS', { wrap: 'Black' })
  const imageWrap = catalogue.findVariant('TEST-CANVAS', { wrap: 'ImageWrap' })
  assert.ok(black && imageWrap)
  assert.deepEqual(
    black.offers.map((offer) => [offer.lab.code, offer.unitCost.minor, offer.unitCost.currency, offer.printFileFormat]),
    [
      ['gb1', 1000n, 'GBP', 'jpeg'],
      ['us1', 1200n, 'USD', 'png'],
    ],
  )
  assert.deepEqual(
    imageWrap.offers.map((offer) => offer.lab.code),
    ['gb1'],
  )
  assert.deepEqual(imageWrap.printAreaSizes.default, { horizontalResolution: 3900, verticalResolution: 3900 })
  assert.equal(catalogue.findVariant('TEST-TEE', { color: 'white', size: 's' })?.offers[0]?.printFileFormat, 'png')
  // explicit variants: only three exist; their own sizes override the product's
  const frame = catalogue.findProduct('TEST-FRAME')
  assert.equal(frame?.variants.length, 3)
  assert.equal(catalogue.findVariant('TEST-FRAME', { color: 'white', size: 'large' }), undefined)
  assert.equal(
    catalogue.findVariant('TEST-FRAME', { color: 'black', size: 'large' })?.printAreaSizes.default
      ?.horizontalResolution,
    4800,
  )
})

test('shipsTo is derived from the labs making the variant and the zones they ship to', () => {
  const catalogue = parseCatalogue(testCatalogueFile(), 'test.json')
  const black = catalogue.findVariant('TEST-CANVAS', { wrap: 'Black' })
  const imageWrap = catalogue.findVariant('TEST-CANVAS', { wrap: 'ImageWrap' })
  assert.deepEqual(black?.shipsTo, ['CA', 'DE', 'FR', 'GB', 'US'])
  assert.deepEqual(imageWrap?.shipsTo, ['DE', 'FR', 'GB', 'US'])
})

// ---- files --------------------------------------------------------------------------------------------------

test('loadCatalogue reads another file, names it in errors, and refuses unreadable or non-JSON files', () => {
  const directory = mkdtempSync(join(tmpdir(), 'printroute-catalogue-'))
  const good = join(directory, 'good.json')
  writeFileSync(good, JSON.stringify(testCatalogueFile()))
  const catalogue = loadCatalogue(good)
  assert.equal(catalogue.sourceName, good)
  assert.equal(catalogue.products.length, 5)

  const missing = join(directory, 'missing.json')
  assert.throws(
    () => loadCatalogue(missing),
    (error: unknown) => {
      assert.ok(error instanceof CatalogueError)
      assert.match(error.message, new RegExp(`^catalogue ${missing}: cannot be read: `))
      return true
    },
  )
  const broken = join(directory, 'broken.json')
  writeFileSync(broken, '{"formatVersion": 1,')
  assert.throws(() => loadCatalogue(broken), /is not valid JSON/)
})

// ---- validation ---------------------------------------------------------------------------------------------

test('CatalogueError names the source, the path and the reason, one problem per line', () => {
  const json = testCatalogueJson()
  json.products[4].variants[1].printAreaSizes.default.horizontalResolution = 0
  json.labs[0].products[0].unitCost = '10.5.0'
  try {
    parseCatalogue(json, 'sample-catalogue.json')
    assert.fail('should have been refused')
  } catch (error) {
    assert.ok(error instanceof CatalogueError)
    assert.equal(error.name, 'CatalogueError')
    assert.ok(error instanceof Error)
    const lines = error.message.split('\n')
    assert.equal(lines.length, 2)
    assert.ok(
      lines[0]?.startsWith(
        'catalogue sample-catalogue.json: products[4] (TEST-FRAME).variants[1].printAreaSizes.default.horizontalResolution: must be a positive integer',
      ),
      lines[0],
    )
    assert.ok(
      lines[1]?.startsWith('catalogue sample-catalogue.json: labs[0] (gb1).products[0].unitCost: must be a decimal'),
    )
    assert.equal(error.problems.length, 2)
  }
})

test('many independent problems are reported together', () => {
  const json = testCatalogueJson()
  json.name = ''
  json.zones.uk.countries = ['gb']
  json.products[1].sku = 'test-canvas'
  json.labs[1].code = 'gb1'
  json.taxRates.XX = { name: 'VAT', ratePercent: '20' }
  const problems = problemsOf(json)
  assertProblem(problems, 'name', 'must not be empty')
  assertProblem(problems, 'zones.uk.countries[0]', 'ISO 3166-1 alpha-2')
  assertProblem(problems, 'products[1] (test-canvas).sku', 'duplicates the SKU of products[0] (TEST-CANVAS)')
  assertProblem(problems, 'labs[1] (gb1).code', 'duplicates the code of labs[0] (gb1)')
  assertProblem(problems, 'taxRates.XX', 'ISO 3166-1')
  assert.ok(problems.length >= 5)
})

test('the document itself: not an object, unknown fields, wrong format version, missing tables', () => {
  assertProblem(problemsOf([]), '(root)', 'must be an object')
  assertProblem(problemsOf(null), '(root)', 'must be an object')
  const json = testCatalogueJson()
  json.formatVersion = 2
  json.extra = true
  json.$comment = 'ignored'
  delete json.labs
  const problems = problemsOf(json)
  assertProblem(problems, 'formatVersion', 'must be 1')
  assertProblem(problems, 'extra', 'unknown field')
  assertProblem(problems, 'labs', 'is required')
  assert.ok(!problems.some((problem) => problem.startsWith('$comment')))
})

test('$ comments are ignored in maps too, so a map of nothing but comments is empty', () => {
  const json = testCatalogueJson()
  json.products[3].printAreas = { $comment: 'to do' }
  json.zones.uk.$comment = 'just GB'
  json.taxRates.$comment = 'EU standard rates'
  assert.deepEqual(problemsOf(json), ['products[3] (TEST-CASE).printAreas: must not be empty'])
})

test('currencies: codes, well-formed positive rates, base rate 1, lab currencies known', () => {
  const json = testCatalogueJson()
  json.currencies.rates.USD = '1,25'
  json.currencies.rates.EUR = '0'
  json.currencies.rates.gbp = '1'
  json.currencies.rates.AUD = '1.1234567'
  json.labs[1].currency = 'CHF'
  const problems = problemsOf(json)
  assertProblem(problems, 'currencies.rates.USD', 'decimal string with at most 6 decimals')
  assertProblem(problems, 'currencies.rates.EUR', 'greater than 0')
  assertProblem(problems, 'currencies.rates.gbp', '3 upper-case letters')
  assertProblem(problems, 'currencies.rates.AUD', 'at most 6 decimals')
  assertProblem(problems, 'labs[1] (us1).currency', 'not in the currency rate table')

  const base = testCatalogueJson()
  base.currencies.rates.GBP = '1.5'
  assertProblem(problemsOf(base), 'currencies.rates.GBP', 'base currency\'s rate must be "1"')
  const missingBase = testCatalogueJson()
  delete missingBase.currencies.rates.GBP
  assertProblem(problemsOf(missingBase), 'currencies.rates', 'must list the base currency GBP')
})

test('rates with up to six decimals are accepted', () => {
  const file = testCatalogueFile()
  file.currencies.rates.USD = '1.254321'
  assert.equal(parseCatalogue(file, 'test.json').convertMinorUnits(1_000_000n, 'GBP', 'USD'), 1_254_321n)
})

test('zones: country codes, one zone per country, one rest-of-world zone', () => {
  const json = testCatalogueJson()
  json.zones.eu.countries = ['DE', 'XX', 'GB', 'fr']
  json.zones.other = { restOfWorld: true }
  json.zones.empty = { countries: [] }
  json.zones.odd = { restOfWorld: false }
  const problems = problemsOf(json)
  assertProblem(problems, 'zones.eu.countries[1]', 'ISO 3166-1 alpha-2 country code in upper case, got "XX"')
  assertProblem(problems, 'zones.eu.countries[2]', 'GB is already in zone uk')
  assertProblem(problems, 'zones.eu.countries[3]', 'got "fr"')
  assertProblem(problems, 'zones.other', 'only one rest-of-world zone')
  assertProblem(problems, 'zones.empty.countries', 'must not be empty')
  assertProblem(problems, 'zones.odd.restOfWorld', 'must be true')
})

test('tax rates: country keys, percent strings up to 100, flags are booleans', () => {
  const json = testCatalogueJson()
  json.taxRates.gb = { name: 'VAT', ratePercent: '20' }
  json.taxRates.DE.ratePercent = 19
  json.taxRates.FR = { name: 'VAT', ratePercent: '120' }
  json.taxRates.US.salesTaxNotComputed = 'yes'
  const problems = problemsOf(json)
  assertProblem(problems, 'taxRates.gb', 'ISO 3166-1')
  assertProblem(problems, 'taxRates.DE.ratePercent', 'must be a string')
  assertProblem(problems, 'taxRates.FR.ratePercent', 'must not exceed 100')
  assertProblem(problems, 'taxRates.US.salesTaxNotComputed', 'must be true or false')
})

test('products: required fields and their types', () => {
  const json = testCatalogueJson()
  delete json.products[0].description
  json.products[0].category = 7
  json.products[0].shippingClass = 'huge'
  json.products[0].productDimensions = { width: -1, height: '10', units: 'in', depth: 3 }
  json.products[1].sku = 'TEST TEE'
  json.products[3].printAreas = {}
  const problems = problemsOf(json)
  assertProblem(problems, 'products[0] (TEST-CANVAS).description', 'is required')
  assertProblem(problems, 'products[0] (TEST-CANVAS).category', 'must be a string')
  assertProblem(problems, 'products[0] (TEST-CANVAS).shippingClass', 'must be one of small, large')
  assertProblem(problems, 'products[0] (TEST-CANVAS).productDimensions.width', 'positive number')
  assertProblem(problems, 'products[0] (TEST-CANVAS).productDimensions.height', 'positive number')
  assertProblem(problems, 'products[0] (TEST-CANVAS).productDimensions.depth', 'unknown field')
  assertProblem(problems, 'products[1] (TEST TEE).sku', 'letters, digits')
  assertProblem(problems, 'products[3] (TEST-CASE).printAreas', 'must not be empty')
})

test('products: attributes need unique names and non-empty unique values', () => {
  const json = testCatalogueJson()
  json.products[1].attributes = { color: ['black', 'Black'], Color: ['red'], size: [] }
  json.products[0].attributes.wrap = 'Black'
  const problems = problemsOf(json)
  assertProblem(problems, 'products[1] (TEST-TEE).attributes.color[1]', 'duplicates value "black"')
  assertProblem(problems, 'products[1] (TEST-TEE).attributes.Color', 'duplicates attribute color')
  assertProblem(problems, 'products[1] (TEST-TEE).attributes.size', 'must not be empty')
  assertProblem(problems, 'products[0] (TEST-CANVAS).attributes.wrap', 'must be an array')
})

test('products: print areas are lower case with required flag and positive pixel sizes', () => {
  const json = testCatalogueJson()
  json.products[1].printAreas.Front = json.products[1].printAreas.front
  json.products[1].printAreas.back.required = 'no'
  json.products[3].printAreas.default.verticalResolution = 12.5
  delete json.products[3].printAreas.default.horizontalResolution
  json.products[2].printAreas.spine.horizontalResolution = 1_000_000
  const problems = problemsOf(json)
  assertProblem(problems, 'products[1] (TEST-TEE).printAreas.Front', 'lower case')
  assertProblem(problems, 'products[1] (TEST-TEE).printAreas.back.required', 'must be true or false')
  assertProblem(problems, 'products[3] (TEST-CASE).printAreas.default.verticalResolution', 'must be a positive integer')
  assertProblem(problems, 'products[3] (TEST-CASE).printAreas.default.horizontalResolution', 'is required')
  assertProblem(problems, 'products[2] (TEST-BOOK).printAreas.spine.horizontalResolution', 'must be at most 100000')
})

test('products: explicit variants name every attribute with valid values, once, and known print areas', () => {
  const json = testCatalogueJson()
  const variants = json.products[4].variants
  variants[0].attributes = { color: 'black' }
  variants[1].attributes.size = 'huge'
  variants[2].attributes = { COLOR: 'Black', size: 'LARGE' }
  variants.push({ attributes: { color: 'white', size: 'small' } })
  variants.push({
    attributes: { color: 'white', size: 'large' },
    printAreaSizes: { lid: { horizontalResolution: 1, verticalResolution: 1 } },
  })
  const problems = problemsOf(json)
  const label = 'products[4] (TEST-FRAME)'
  assertProblem(problems, `${label}.variants[0].attributes`, 'missing size')
  assertProblem(problems, `${label}.variants[1].attributes.size`, '"huge" is not one of small, large')
  assertProblem(problems, `${label}.variants[4].printAreaSizes.lid`, 'unknown print area')
  assert.ok(!problems.some((problem) => problem.startsWith(`${label}.variants[2]`)), 'case-insensitive values are fine')
  assert.ok(!problems.some((problem) => problem.startsWith(`${label}.variants[3]`)))

  const duplicate = testCatalogueJson()
  duplicate.products[4].variants.push({ attributes: { color: 'WHITE', size: 'small' } })
  assertProblem(problemsOf(duplicate), `${label}.variants[3].attributes`, 'duplicates variants[2]')
})

test('products: variant overrides must match some variant and name known attributes and print areas', () => {
  const json = testCatalogueJson()
  json.products[0].variantOverrides.push({
    when: { wrap: 'White' },
    printAreaSizes: { default: { horizontalResolution: 1, verticalResolution: 1 } },
  })
  json.products[0].variantOverrides.push({
    when: { colour: 'red' },
    printAreaSizes: { default: { horizontalResolution: 1, verticalResolution: 1 } },
  })
  json.products[4].variantOverrides = [
    {
      when: { color: 'white', size: 'large' },
      printAreaSizes: { default: { horizontalResolution: 1, verticalResolution: 1 } },
    },
  ]
  const problems = problemsOf(json)
  assertProblem(
    problems,
    'products[0] (TEST-CANVAS).variantOverrides[1].when.wrap',
    '"White" is not one of Black, ImageWrap',
  )
  assertProblem(problems, 'products[0] (TEST-CANVAS).variantOverrides[2].when.colour', 'unknown attribute')
  assertProblem(problems, 'products[4] (TEST-FRAME).variantOverrides[0].when', 'matches no variant')
})

test('products: page pricing needs a known page print area and sane page limits', () => {
  const json = testCatalogueJson()
  json.products[2].pagePricing = { pageCountPrintArea: 'pages', basePages: 20, minimumPages: 20, maximumPages: 100 }
  json.products[3].pagePricing = { basePages: -1, minimumPages: 0, maximumPages: 10 }
  json.labs[0].products[3].perAdditionalPageCost = '0.10'
  const problems = problemsOf(json)
  assertProblem(
    problems,
    'products[2] (TEST-BOOK).pagePricing.pageCountPrintArea',
    "not one of the product's print areas",
  )
  assertProblem(problems, 'products[3] (TEST-CASE).pagePricing.basePages', 'at least 0')
  assertProblem(problems, 'products[3] (TEST-CASE).pagePricing.minimumPages', 'positive integer')

  const inverted = testCatalogueJson()
  inverted.products[2].pagePricing.maximumPages = 10
  assertProblem(problemsOf(inverted), 'products[2] (TEST-BOOK).pagePricing.maximumPages', 'at least minimumPages (20)')
})

test('labs: required fields, lower-case codes, ISO country, print file formats', () => {
  const json = testCatalogueJson()
  json.labs[0].code = 'GB1'
  json.labs[0].countryCode = 'UK'
  json.labs[0].defaultPrintFileFormat = 'gif'
  json.labs[0].products[1].printFileFormat = 'bmp'
  delete json.labs[1].name
  const problems = problemsOf(json)
  assertProblem(problems, 'labs[0] (GB1).code', 'lower-case')
  assertProblem(problems, 'labs[0] (GB1).countryCode', 'got "UK"')
  assertProblem(problems, 'labs[0] (GB1).defaultPrintFileFormat', 'must be one of jpeg, png, pdf, tiff')
  assertProblem(problems, 'labs[0] (GB1).products[1].printFileFormat', 'must be one of jpeg, png, pdf, tiff')
  assertProblem(problems, 'labs[1] (us1).name', 'is required')
})

test('labs: products reference existing SKUs and valid attribute values', () => {
  const json = testCatalogueJson()
  json.labs[0].products.push({ sku: 'TEST-MUG', unitCost: '4.00' })
  json.labs[1].products[0].attributes = { wrap: ['Pink'] }
  json.labs[1].products[1].attributes = { colour: ['black'] }
  const problems = problemsOf(json)
  assertProblem(problems, 'labs[0] (gb1).products[5].sku', 'unknown SKU "TEST-MUG"')
  assertProblem(problems, 'labs[1] (us1).products[0].attributes.wrap[0]', '"Pink" is not one of Black, ImageWrap')
  assertProblem(problems, 'labs[1] (us1).products[1].attributes.colour', 'unknown attribute')
})

test('labs: one price per variant, page costs exactly for page-priced products', () => {
  const json = testCatalogueJson()
  json.labs[0].products.push({ sku: 'test-tee', attributes: { size: ['m'] }, unitCost: '9.00' })
  delete json.labs[0].products[2].perAdditionalPageCost
  const problems = problemsOf(json)
  assertProblem(problems, 'labs[0] (gb1).products[5]', 'is already made by labs[0] (gb1).products[1]')
  assertProblem(problems, 'labs[0] (gb1).products[2].perAdditionalPageCost', 'is required')

  const extra = testCatalogueJson()
  extra.labs[0].products[0].perAdditionalPageCost = '0.10'
  assertProblem(
    problemsOf(extra),
    'labs[0] (gb1).products[0].perAdditionalPageCost',
    'only allowed for products with pagePricing',
  )
})

test('money strings must be well formed: digits, at most two decimals, strings not numbers', () => {
  for (const bad of ['12.345', '-1.00', '1e3', ' 12.00', '12.', '£12']) {
    const json = testCatalogueJson()
    json.labs[0].products[0].unitCost = bad
    assertProblem(problemsOf(json), 'labs[0] (gb1).products[0].unitCost', 'decimal string with at most 2 decimals')
  }
  const numeric = testCatalogueJson()
  numeric.labs[0].shippingRates[0].costs.small.perShipment = 3
  assertProblem(problemsOf(numeric), 'labs[0] (gb1).shippingRates[0].costs.small.perShipment', 'must be a string')
  for (const good of ['12', '12.5', '0.99', '0']) {
    const file = testCatalogueFile()
    const first = file.labs[0]?.products[0]
    assert.ok(first)
    first.unitCost = good
    parseCatalogue(file, 'test.json')
  }
})

test('shipping rates: known methods and zones, one rate per method and zone, every class priced', () => {
  const json = testCatalogueJson()
  json.labs[0].shippingRates[0].method = 'budget'
  json.labs[0].shippingRates[1].zone = 'mars'
  json.labs[0].shippingRates.push({ ...json.labs[0].shippingRates[2] })
  delete json.labs[1].shippingRates[0].costs.large
  json.labs[1].shippingRates[1].costs.huge = { perShipment: '1.00', perAdditionalItem: '1.00' }
  json.labs[1].shippingRates[2].tracked = 'yes'
  const problems = problemsOf(json)
  assertProblem(
    problems,
    'labs[0] (gb1).shippingRates[0].method',
    'must be one of Budget, Standard, StandardPlus, Express, Overnight',
  )
  assertProblem(problems, 'labs[0] (gb1).shippingRates[1].zone', 'unknown zone "mars"')
  assertProblem(problems, 'labs[0] (gb1).shippingRates[9]', 'duplicates the StandardPlus rate to zone uk')
  assertProblem(
    problems,
    'labs[1] (us1).shippingRates[0].costs',
    'must price shipping class large (used by TEST-CANVAS',
  )
  assertProblem(problems, 'labs[1] (us1).shippingRates[1].costs.huge', 'unknown shipping class')
  assertProblem(problems, 'labs[1] (us1).shippingRates[2].tracked', 'must be true or false')
})

test("shipping rates: Overnight only to a zone of just the lab's own country", () => {
  const json = testCatalogueJson()
  json.labs[0].shippingRates.push({
    method: 'Overnight',
    zone: 'us',
    carrier: 'FedEx',
    service: 'FedEx International First',
    tracked: true,
    costs: json.labs[0].shippingRates[0].costs,
  })
  assertProblem(problemsOf(json), 'labs[0] (gb1).shippingRates[9]', 'Overnight is only for domestic delivery')
})

test('every product and every variant must be made by some lab', () => {
  const json = testCatalogueJson()
  json.labs[0].products = json.labs[0].products.filter((entry: { sku: string }) => entry.sku !== 'TEST-CASE')
  json.labs[0].products[0].attributes = { wrap: ['Black'] }
  const problems = problemsOf(json)
  assertProblem(problems, 'products[3] (TEST-CASE)', 'no lab makes this product')
  assertProblem(problems, 'products[0] (TEST-CANVAS)', 'no lab makes variant {wrap=ImageWrap,edge=38mm}')
})

test('a lab needs at least one product and one shipping rate', () => {
  const json = testCatalogueJson()
  json.labs[1].products = []
  json.labs[1].shippingRates = []
  const problems = problemsOf(json)
  assertProblem(problems, 'labs[1] (us1).products', 'must not be empty')
  assertProblem(problems, 'labs[1] (us1).shippingRates', 'must not be empty')
})

test('a broken product is not reported again as an unknown SKU in the labs', () => {
  const json = testCatalogueJson()
  json.products[3].description = 42
  const problems = problemsOf(json)
  assert.deepEqual(problems, ['products[3] (TEST-CASE).description: must be a string, got number 42'])
})

// ---- delivery estimates: calendars, production days, transit days ---------------------------------------------

/** Transit days the test catalogue's gb1 rates get, by "method zone": faster methods never slower. */
const GB1_TRANSIT_DAYS: Record<string, [number, number]> = {
  'Budget uk': [2, 5],
  'Standard uk': [2, 3],
  'StandardPlus uk': [1, 2],
  'Express uk': [1, 1],
  'Overnight uk': [1, 1],
  'Budget us': [6, 12],
  'Standard us': [4, 8],
  'Express us': [2, 4],
  'Standard eu': [3, 6],
}

/** The test catalogue with a calendar for gb1 and transit days on every gb1 rate; us1 has neither. */
function withDeliveryFigures() {
  const json = testCatalogueJson()
  json.labs[0].calendar = {
    timeZone: 'Europe/London',
    workingDays: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
    holidays: ['2026-12-25', '2026-12-28'],
    cutOffTime: '14:00',
    productionDays: { default: 2, categories: { canvas: 3, apparel: 4 } },
  }
  for (const rate of json.labs[0].shippingRates) {
    const days = GB1_TRANSIT_DAYS[`${rate.method} ${rate.zone}`]
    assert.ok(days, `${rate.method} ${rate.zone}`)
    rate.transitDays = { min: days[0], max: days[1] }
  }
  return json
}

/** Asserts the catalogue is refused with exactly these problem lines, in any order. */
function assertProblems(json: unknown, expected: string[]): void {
  assert.deepEqual([...problemsOf(json)].sort(), [...expected].sort())
}

test('a catalogue without any calendar or transit days loads: offers have no production days, rates no transit', () => {
  const catalogue = parseCatalogue(testCatalogueFile(), 'test.json')
  for (const lab of catalogue.labs) {
    assert.equal(lab.calendar, null, lab.code)
    for (const rate of lab.shippingRates) assert.equal(rate.transitDays, null, `${lab.code} ${rate.method}`)
  }
  for (const product of catalogue.products) {
    for (const offer of product.variants.flatMap((variant) => variant.offers)) {
      assert.equal(offer.productionDays, null, `${product.sku} at ${offer.lab.code}`)
    }
  }
})

test('a calendar and transit days load; production days: the lab product own > calendar category > default', () => {
  const json = withDeliveryFigures()
  json.labs[0].products[1].productionDays = 1 // TEST-TEE: apparel has 4 in the calendar
  json.labs[0].products[2].productionDays = 0 // TEST-BOOK: 0 is a figure, not "none"
  const catalogue = parseCatalogue(json, 'test.json')
  const gb1 = catalogue.findLab('gb1')
  assert.deepEqual(gb1?.calendar, {
    timeZone: 'Europe/London',
    workingDays: new Set([1, 2, 3, 4, 5]),
    holidays: new Set(['2026-12-25', '2026-12-28']),
    cutOffMinutes: 14 * 60,
  })
  assert.equal(catalogue.findLab('us1')?.calendar, null)
  const productionDays = (sku: string, labCode: string, attributes: Record<string, string> = {}) =>
    variantOf(catalogue, sku, attributes).offers.find((offer) => offer.lab.code === labCode)?.productionDays
  assert.equal(productionDays('TEST-CANVAS', 'gb1', { wrap: 'Black' }), 3, 'the category canvas')
  assert.equal(productionDays('TEST-TEE', 'gb1', { color: 'black', size: 's' }), 1, 'its own, over apparel 4')
  assert.equal(productionDays('TEST-BOOK', 'gb1'), 0, 'its own 0, over the default')
  assert.equal(productionDays('TEST-CASE', 'gb1'), 2, 'phone-case has no category figure: the default')
  assert.equal(productionDays('TEST-FRAME', 'gb1', { color: 'black', size: 'small' }), 2)
  assert.equal(productionDays('TEST-CANVAS', 'us1', { wrap: 'Black' }), null, 'us1 has no calendar')
  assert.deepEqual(catalogue.shippingRate('gb1', 'Budget', 'GB')?.transitDays, { min: 2, max: 5 })
  assert.deepEqual(catalogue.shippingRate('gb1', 'Express', 'US')?.transitDays, { min: 2, max: 4 })
  assert.equal(catalogue.shippingRate('us1', 'Budget', 'US')?.transitDays, null)
})

test('calendar: unknown time zones, impossible holidays and bad cut-offs are refused', () => {
  const zone = withDeliveryFigures()
  zone.labs[0].calendar.timeZone = 'Europe/Londres'
  assertProblems(zone, [
    'labs[0] (gb1).calendar.timeZone: unknown time zone "Europe/Londres" (an IANA name like "Europe/London")',
  ])

  const holidays = withDeliveryFigures()
  holidays.labs[0].calendar.holidays = ['2026-02-30', '25/12/2026', '2026-12-25']
  assertProblems(holidays, [
    'labs[0] (gb1).calendar.holidays[0]: "2026-02-30" is not a calendar date',
    'labs[0] (gb1).calendar.holidays[1]: must be a date like "2026-12-25", got "25/12/2026"',
  ])

  for (const cutOffTime of ['24:00', '9:00', '14:60', '2pm']) {
    const cutOff = withDeliveryFigures()
    cutOff.labs[0].calendar.cutOffTime = cutOffTime
    assertProblems(cutOff, [
      `labs[0] (gb1).calendar.cutOffTime: must be a time like "14:00" (24-hour HH:MM), got "${cutOffTime}"`,
    ])
  }
})

test('calendar: working days are named, unique and not empty; production days whole, 0 to 60', () => {
  const days = withDeliveryFigures()
  days.labs[0].calendar.workingDays = ['Mon', 'Tue', 'Mon', 'Funday']
  days.labs[0].calendar.productionDays.default = 61
  days.labs[0].calendar.productionDays.categories.canvas = -1
  days.labs[0].products[0].productionDays = 1.5
  assertProblems(days, [
    'labs[0] (gb1).calendar.workingDays[2]: duplicates "Mon" at [0]',
    'labs[0] (gb1).calendar.workingDays[3]: must be one of Mon, Tue, Wed, Thu, Fri, Sat, Sun, got "Funday"',
    'labs[0] (gb1).calendar.productionDays.default: must be at most 60, got number 61',
    'labs[0] (gb1).calendar.productionDays.categories.canvas: must be an integer of at least 0, got number -1',
    'labs[0] (gb1).products[0].productionDays: must be an integer of at least 0, got number 1.5',
  ])

  const empty = withDeliveryFigures()
  empty.labs[0].calendar.workingDays = []
  delete empty.labs[0].calendar.cutOffTime
  assertProblems(empty, [
    'labs[0] (gb1).calendar.cutOffTime: is required',
    'labs[0] (gb1).calendar.workingDays: must not be empty',
  ])
})

test('calendar: production-day categories must be ones the lab makes a product of', () => {
  const json = withDeliveryFigures()
  json.labs[0].calendar.productionDays.categories.mug = 2
  assertProblems(json, [
    'labs[0] (gb1).calendar.productionDays.categories.mug: no product of this lab is in category "mug" (categories: canvas, apparel, photobook, phone-case, framed-print)',
  ])
})

test('production days on a lab product need the lab to have a calendar', () => {
  const json = withDeliveryFigures()
  json.labs[1].products[0].productionDays = 2
  assertProblems(json, ['labs[1] (us1).products[0].productionDays: needs the lab to have a calendar'])
})

test('transit days: min at most max, whole days 0 to 60', () => {
  const inverted = withDeliveryFigures()
  inverted.labs[0].shippingRates[5].transitDays = { min: 13, max: 12 }
  assertProblems(inverted, [
    'labs[0] (gb1).shippingRates[5].transitDays.min: must be at most max (12) on the "Budget" rate to zone "us"',
  ])

  const range = withDeliveryFigures()
  range.labs[0].shippingRates[0].transitDays = { min: -1, max: 61 }
  range.labs[1].shippingRates[0].transitDays = { min: 1 }
  assertProblems(range, [
    'labs[0] (gb1).shippingRates[0].transitDays.min: must be an integer of at least 0, got number -1',
    'labs[0] (gb1).shippingRates[0].transitDays.max: must be at most 60, got number 61',
    'labs[1] (us1).shippingRates[0].transitDays.max: is required',
  ])
})

test('transit days: per lab and zone, a faster method takes no longer than a slower one, at either end', () => {
  // Express to the UK after StandardPlus [1, 2]: both ends too long.
  const express = withDeliveryFigures()
  express.labs[0].shippingRates[3].transitDays = { min: 3, max: 4 }
  assertProblems(express, [
    'labs[0] (gb1).shippingRates[3].transitDays.min: the Express rate to zone uk must not take longer than the slower StandardPlus rate (labs[0] (gb1).shippingRates[2]): min 3 is more than 1',
    'labs[0] (gb1).shippingRates[3].transitDays.max: the Express rate to zone uk must not take longer than the slower StandardPlus rate (labs[0] (gb1).shippingRates[2]): max 4 is more than 2',
  ])

  // One end only, and the bound is the shortest of every slower method, not just the next one: to the US,
  // Standard [4, 13] and Express [2, 13] both exceed Budget's max of 12, though Express is within Standard's.
  const oneEnd = withDeliveryFigures()
  oneEnd.labs[0].shippingRates[6].transitDays = { min: 4, max: 13 }
  oneEnd.labs[0].shippingRates[7].transitDays = { min: 2, max: 13 }
  assertProblems(oneEnd, [
    'labs[0] (gb1).shippingRates[6].transitDays.max: the Standard rate to zone us must not take longer than the slower Budget rate (labs[0] (gb1).shippingRates[5]): max 13 is more than 12',
    'labs[0] (gb1).shippingRates[7].transitDays.max: the Express rate to zone us must not take longer than the slower Budget rate (labs[0] (gb1).shippingRates[5]): max 13 is more than 12',
  ])

  // A method with no transit days is skipped: Overnight is compared with Express, then StandardPlus and the rest.
  const skipped = withDeliveryFigures()
  delete skipped.labs[0].shippingRates[3].transitDays
  skipped.labs[0].shippingRates[4].transitDays = { min: 2, max: 2 }
  assertProblems(skipped, [
    'labs[0] (gb1).shippingRates[4].transitDays.min: the Overnight rate to zone uk must not take longer than the slower StandardPlus rate (labs[0] (gb1).shippingRates[2]): min 2 is more than 1',
  ])

  // Equal figures are fine, and so is the order of the entries in the file: zones are judged apart.
  const equal = withDeliveryFigures()
  equal.labs[0].shippingRates.reverse()
  for (const rate of equal.labs[0].shippingRates) if (rate.zone === 'uk') rate.transitDays = { min: 2, max: 3 }
  parseCatalogue(equal, 'test.json')
})

test('the sample gives every lab a calendar and every rate transit days, faster methods never slower', () => {
  for (const lab of sample.labs) {
    assert.ok(lab.calendar, `${lab.code} has no calendar`)
    for (const rate of lab.shippingRates) assert.ok(rate.transitDays, `${lab.code} ${rate.method} ${rate.zone}`)
  }
  for (const product of sample.products) {
    for (const offer of product.variants.flatMap((variant) => variant.offers)) {
      assert.ok(offer.productionDays !== null, `${product.sku} at ${offer.lab.code}`)
    }
  }
})

// ---- docs/catalogue.md --------------------------------------------------------------------------------------

test('the complete example in docs/catalogue.md loads and means what the text says', () => {
  const markdown = readFileSync(new URL('../../docs/catalogue.md', import.meta.url), 'utf8')
  const example = /```json\n([\s\S]*?)\n```/.exec(markdown)?.[1]
  assert.ok(example, 'no json block in docs/catalogue.md')
  const catalogue = parseCatalogue(JSON.parse(example), 'docs/catalogue.md')
  assert.equal(catalogue.products.length, 3)
  const black = variantOf(catalogue, 'GLOBAL-CAN-10x10', { wrap: 'Black' })
  const imageWrap = variantOf(catalogue, 'GLOBAL-CAN-10x10', { wrap: 'ImageWrap' })
  assert.deepEqual(
    black.offers.map((offer) => offer.lab.code),
    ['uk6', 'us1'],
  )
  assert.ok(black.shipsTo.includes('US') && black.shipsTo.includes('GB') && black.shipsTo.includes('JP'))
  assert.ok(!imageWrap.shipsTo.includes('US') && imageWrap.shipsTo.includes('GB') && imageWrap.shipsTo.includes('JP'))
  assert.equal(imageWrap.printAreaSizes.default?.horizontalResolution, 3954)

  // uk6 has a calendar and transit days: 3 days for the canvas, 4 for the photo book, its own 1 for the case.
  const uk6 = catalogue.findLab('uk6')
  assert.ok(uk6?.calendar)
  const atUk6 = (sku: string, attributes: Record<string, string> = {}) =>
    variantOf(catalogue, sku, attributes).offers.find((offer) => offer.lab.code === 'uk6')?.productionDays
  assert.equal(atUk6('GLOBAL-CAN-10x10', { wrap: 'Black' }), 3)
  assert.equal(atUk6('PHBK_14_SQ_HPC'), 4)
  assert.equal(atUk6('GLOBAL-TECH-IP11P-FC-CP'), 1)
  const budget = catalogue.shippingRate('uk6', 'Budget', 'GB')
  assert.deepEqual(budget?.transitDays, { min: 2, max: 5 })
  // "A canvas ordered on Wednesday 25 November 2026 at 10:00 is dispatched on Monday 30 November and, by Budget
  // within GB (2 to 5 days), arrives between Wednesday 2 and Monday 7 December."
  assert.deepEqual(estimateDelivery(uk6.calendar, 3, budget?.transitDays ?? null, new Date('2026-11-25T10:00:00Z')), {
    estimatedDispatchDate: '2026-11-30',
    estimatedDelivery: { from: '2026-12-02', to: '2026-12-07' },
  })
  // us1 has neither.
  assert.equal(catalogue.findLab('us1')?.calendar, null)
  assert.equal(catalogue.shippingRate('us1', 'Budget', 'US')?.transitDays, null)
  assert.equal(black.offers.find((offer) => offer.lab.code === 'us1')?.productionDays, null)
})

/** The tables of a `### heading` section of docs/catalogue.md: rows of cells, backticks removed, no header. */
function tablesOfSection(heading: string): string[][][] {
  const markdown = readFileSync(new URL('../../docs/catalogue.md', import.meta.url), 'utf8')
  const start = markdown.indexOf(`\n${heading}\n`)
  assert.ok(start >= 0, `no ${heading} in docs/catalogue.md`)
  const end = markdown.indexOf('\n#', start + heading.length + 2)
  const tables: string[][][] = []
  let current: string[][] | undefined
  for (const line of markdown.slice(start, end).split('\n')) {
    if (!line.startsWith('|')) {
      current = undefined
      continue
    }
    const cells = line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim().replaceAll('`', ''))
    if (!current) {
      current = []
      tables.push(current) // the header row is skipped: the rows pushed start after it
      continue
    }
    if (cells.every((cell) => /^-+$/.test(cell))) continue
    current.push(cells)
  }
  return tables
}

test("the sample's delivery figures in docs/catalogue.md are the sample's", () => {
  const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8')) as CatalogueFile
  const [labsTable, categoriesTable, transitTable, reachTable] = tablesOfSection('### Delivery figures')
  const weekdays = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
  const daysOf = (days: string[]) => {
    const [first, last] = [days[0] ?? '', days.at(-1) ?? '']
    const contiguous = weekdays.slice(weekdays.indexOf(first), weekdays.indexOf(last) + 1).join() === days.join()
    return contiguous ? `${first}-${last}` : days.join(', ')
  }
  const calendarOf = (lab: LabEntry) => {
    assert.ok(lab.calendar, `${lab.code} has no calendar`)
    return lab.calendar
  }
  assert.deepEqual(
    labsTable,
    file.labs.map((lab) => {
      const calendar = calendarOf(lab)
      return [
        lab.code,
        calendar.timeZone,
        daysOf(calendar.workingDays),
        calendar.cutOffTime,
        (calendar.holidays ?? []).join(', '),
      ]
    }),
  )
  for (const lab of file.labs) {
    const holidays = calendarOf(lab).holidays ?? []
    assert.ok(
      holidays.every((date) => date <= '2027-12-31'),
      `${lab.code} lists holidays after 2027`,
    )
    assert.ok(
      holidays.some((date) => date.startsWith('2027-12')),
      `${lab.code} stops before the end of 2027`,
    )
  }

  // Categories: one figure each, whichever lab; every category a lab makes is listed, so the default never applies.
  const categories = new Map<string, { days: number; labs: string[] }>()
  for (const lab of file.labs) {
    const calendar = calendarOf(lab)
    assert.equal(calendar.productionDays.default, 2, lab.code)
    const listed = calendar.productionDays.categories ?? {}
    for (const made of lab.products) {
      assert.equal(made.productionDays, undefined, `${lab.code} ${made.sku} sets its own production days`)
      const category = file.products.find((product) => product.sku === made.sku)?.category ?? ''
      assert.ok(Object.hasOwn(listed, category), `${lab.code} has no figure for ${category}`)
    }
    for (const [category, days] of Object.entries(listed)) {
      const entry = categories.get(category) ?? { days, labs: [] }
      assert.equal(entry.days, days, `${category} differs between labs`)
      entry.labs.push(lab.code)
      categories.set(category, entry)
    }
  }
  assert.deepEqual(
    [...(categoriesTable ?? [])].sort(),
    [...categories].map(([category, { days, labs }]) => [category, String(days), labs.join(', ')]).sort(),
  )

  // Transit days: each rate's figures are those of its method at its zone's reach for that lab.
  const methods = ['Budget', 'Standard', 'StandardPlus', 'Express', 'Overnight']
  const transitByReach = new Map((transitTable ?? []).map(([reach, ...figures]) => [reach, figures]))
  const reaches = ['domestic', 'near', 'far', 'farthest']
  assert.deepEqual(
    (reachTable ?? []).map(([code]) => code),
    file.labs.map((lab) => lab.code),
  )
  for (const [code, ...zonesByReach] of reachTable ?? []) {
    const lab = file.labs.find((candidate) => candidate.code === code)
    assert.ok(lab, code)
    const reachOfZone = new Map(
      zonesByReach.flatMap((zones, index) =>
        zones === '-' ? [] : zones.split(', ').map((zone) => [zone, reaches[index] ?? ''] as const),
      ),
    )
    assert.deepEqual(new Set(reachOfZone.keys()), new Set(lab.shippingRates.map((rate) => rate.zone)), code)
    for (const rate of lab.shippingRates) {
      const figure = transitByReach.get(reachOfZone.get(rate.zone) ?? '')?.[methods.indexOf(rate.method)]
      const { min, max } = rate.transitDays ?? {}
      assert.equal(figure, `${min}-${max}`, `${code} ${rate.method} to ${rate.zone}`)
    }
  }
})

test('the delivery estimate example of the sample in docs/catalogue.md holds', () => {
  const canvas = variantOf(sample, 'GLOBAL-CAN-10x10', { wrap: 'Black' })
  const offer = canvas.offers.find((candidate) => candidate.lab.code === 'uk6')
  assert.equal(offer?.productionDays, 3)
  const received = new Date('2026-11-25T10:00:00Z')
  const estimate = (method: 'Standard' | 'Express', country: string) =>
    estimateDelivery(
      offer?.lab.calendar ?? null,
      offer?.productionDays ?? null,
      sample.shippingRate('uk6', method, country)?.transitDays ?? null,
      received,
    )
  assert.deepEqual(estimate('Standard', 'GB'), {
    estimatedDispatchDate: '2026-11-30',
    estimatedDelivery: { from: '2026-12-02', to: '2026-12-03' },
  })
  assert.deepEqual(estimate('Express', 'US'), {
    estimatedDispatchDate: '2026-11-30',
    estimatedDelivery: { from: '2026-12-02', to: '2026-12-04' },
  })
})

test('the shipment cost example in docs/catalogue.md holds on the sample', () => {
  const rate = sample.shippingRate('uk6', 'Standard', 'GB')
  assert.ok(rate)
  const canvasClass = sample.findProduct('GLOBAL-CAN-10x10')?.shippingClass
  const printClass = sample.findProduct('GLOBAL-FAP-16x20')?.shippingClass
  assert.equal(canvasClass, 'box')
  assert.equal(printClass, 'tube')
  assert.deepEqual(
    sample.shipmentCost(rate, [
      { shippingClass: printClass, copies: 1 },
      { shippingClass: canvasClass, copies: 2 },
    ]),
    { minor: 1545n, currency: 'GBP' },
  )
})

test('minimumDpi: the catalogue value, 150 when absent, refused unless a positive integer up to 2400', () => {
  assert.equal(sample.findProduct('GLOBAL-CAN-10x10')?.minimumDpi, 100)
  assert.equal(sample.findProduct('GLOBAL-PHO-4x6')?.minimumDpi, 200)
  assert.equal(sample.findProduct('GLOBAL-FAP-16x24')?.minimumDpi, 150)
  const withDpi = (minimumDpi: unknown) => {
    const file = structuredClone(testCatalogueFile()) as unknown as { products: Record<string, unknown>[] }
    const [first] = file.products
    if (!first) throw new Error('no product')
    first.minimumDpi = minimumDpi
    return file
  }
  assert.equal(parseCatalogue(withDpi(240), 'test.json').products[0]?.minimumDpi, 240)
  assertProblem(problemsOf(withDpi(0)), 'products[0] (TEST-CANVAS).minimumDpi', 'must be a positive integer')
  assertProblem(problemsOf(withDpi(72.5)), 'products[0] (TEST-CANVAS).minimumDpi', 'must be a positive integer')
  assertProblem(problemsOf(withDpi(5000)), 'products[0] (TEST-CANVAS).minimumDpi', 'must be at most 2400')
})

test("colours: frame and canvas wrap colours come from the catalogue's colours or the built-in names, else refused", () => {
  // The sample needs no table: every colour it offers is a built-in name.
  assert.deepEqual(sample.colours, {})
  const withColours = (colours: Record<string, unknown> | undefined, frameColours: string[], wraps: string[]) => {
    const json = testCatalogueJson()
    if (colours !== undefined) json.colours = colours
    json.products[4].attributes.color = frameColours
    json.products[4].variants = frameColours.map((color) => ({ attributes: { color, size: 'small' } }))
    json.products[0].attributes.wrap = wraps
    return json
  }

  // Unknown names are refused, one line each, naming the product, the attribute and the value.
  const refused = problemsOf(withColours(undefined, ['black', 'Oak'], ['Black', 'ImageWrap', 'MirrorWrap', 'Navy']))
  assertProblem(refused, 'products[4] (TEST-FRAME).attributes.color[1]', 'frame colour "Oak" has no colour')
  assertProblem(refused, 'products[4] (TEST-FRAME).attributes.color[1]', `colours ({"Oak":"#rrggbb"})`)
  assertProblem(refused, 'products[0] (TEST-CANVAS).attributes.wrap[3]', 'canvas wrap colour "Navy"')
  assert.equal(refused.length, 2, refused.join('\n'))
  // Attributes that are not drawn as colours are never checked: a tee's colour, a canvas's image wraps.
  assert.ok(!refused.some((problem) => problem.includes('TEST-TEE') || problem.includes('ImageWrap')))

  // Named in the table (any letter case), they load; the table may also redraw a built-in name.
  const loaded = parseCatalogue(
    withColours(
      { oak: '#8B5A2B', NAVY: '#1b2a4a', Black: '#000000', $comment: 'mockup colours' },
      ['Oak'],
      ['Black', 'ImageWrap', 'navy'],
    ),
    'test.json',
  )
  assert.deepEqual(loaded.colours, { oak: '#8b5a2b', navy: '#1b2a4a', black: '#000000' })

  // The table itself: "#rrggbb" values, names unique case-insensitively; a broken entry is reported once.
  const bad = problemsOf(
    withColours({ Oak: 'brown', oak: '#123456', teal: '#12345' }, ['Oak', 'teal'], ['Black', 'ImageWrap']),
  )
  assertProblem(bad, 'colours.Oak', 'must be a colour like "#8b5a2b"')
  assertProblem(bad, 'colours.oak', 'duplicates colour Oak')
  assertProblem(bad, 'colours.teal', 'must be a colour like')
  assert.equal(bad.length, 3, bad.join('\n'))
})

test("labs: dailyJobLimit is a whole number from 0 to 10000, loaded as the lab's limit; omitted, none", () => {
  const json = testCatalogueJson()
  assert.equal(parseCatalogue(json, 'test.json').labs[0]?.dailyJobLimit, null)
  json.labs[0].dailyJobLimit = 0
  assert.equal(parseCatalogue(json, 'test.json').labs[0]?.dailyJobLimit, 0, '0: no jobs at all')
  for (const [value, reason] of [
    [-1, 'must be an integer of at least 0'],
    [2.5, 'must be an integer of at least 0'],
    [10_001, 'must be at most 10000'],
    ['5', 'must be an integer of at least 0'],
  ] as const) {
    json.labs[0].dailyJobLimit = value
    const problems = problemsOf(json)
    assert.ok(
      problems.some((problem) => /^labs\[0\][^:]*\.dailyJobLimit: /.test(problem) && problem.includes(reason)),
      `${JSON.stringify(value)}: ${problems.join('\n')}`,
    )
  }
})

test("labs: push.url is a URL printroute could call, loaded as the lab's push URL; omitted, none", () => {
  const json = testCatalogueJson()
  assert.equal(parseCatalogue(json, 'test.json').labs[0]?.pushUrl, null)
  json.labs[0].push = { url: 'https://lab.example/pushes?from=printroute' }
  assert.equal(parseCatalogue(json, 'test.json').labs[0]?.pushUrl, 'https://lab.example/pushes?from=printroute')
  for (const [value, reason] of [
    ['ftp://lab.example/x', 'the scheme must be http or https'],
    ['https://user:pw@lab.example/x', 'user name or password'],
    ['', 'must not be empty'],
  ] as const) {
    json.labs[0].push = { url: value }
    const problems = problemsOf(json)
    assert.ok(
      problems.some((problem) => /^labs\[0\][^:]*\.push\.url: /.test(problem) && problem.includes(reason)),
      `${JSON.stringify(value)}: ${problems.join('\n')}`,
    )
  }
  json.labs[0].push = { url: 'https://lab.example/x', secret: 'whsec_no' }
  assert.ok(
    problemsOf(json).some((problem) => /^labs\[0\][^:]*\.push/.test(problem)),
    'a secret has no place in the catalogue file',
  )
})
