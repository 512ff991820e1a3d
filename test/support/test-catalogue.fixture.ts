// A small hand-built catalogue for unit tests: every feature of the format once, few enough facts to reason
// about by hand. `testCatalogueFile()` returns a fresh deep copy, so a test may break one field and parse it.
//
//   TEST-CANVAS  wrap [Black, ImageWrap] + single-valued edge; ImageWrap needs more pixels; class large
//   TEST-TEE     color x size; `front` required, `back` optional; class small
//   TEST-BOOK    page-priced (20 base pages, 20..100); `default` pages + optional `spine`; class small;
//                gb1's paper makes the spine 3.5 mm + 0.12 mm per page
//   TEST-CASE    no attributes; made only by gb1; class small
//   TEST-FRAME   explicit variants: black/small, black/large, white/small (no white/large); class large
//
//   gb1 (GB, GBP) makes everything; ships to uk (all five methods), us (Budget, Standard, Express), eu (Standard)
//   us1 (US, USD) makes TEST-CANVAS in Black only and TEST-TEE in black only; ships to us (all five) and ca
//   (Standard). Nobody ships to the rest-of-world zone (so JP is known but unreachable).

import type { CatalogueFile } from '../../src/domain/catalogue.types.ts'

const UK_COSTS = {
  small: { perShipment: '3.00', perAdditionalItem: '1.00' },
  large: { perShipment: '6.00', perAdditionalItem: '2.00' },
}
const US_COSTS = {
  small: { perShipment: '5.00', perAdditionalItem: '1.50' },
  large: { perShipment: '15.00', perAdditionalItem: '5.00' },
}

const TEST_CATALOGUE: CatalogueFile = {
  formatVersion: 1,
  name: 'unit-test catalogue',
  currencies: { base: 'GBP', rates: { GBP: '1', USD: '1.25', EUR: '1.2' } },
  shippingClasses: ['small', 'large'],
  zones: {
    uk: { countries: ['GB'] },
    us: { countries: ['US'] },
    ca: { countries: ['CA'] },
    eu: { countries: ['DE', 'FR'] },
    row: { restOfWorld: true },
  },
  taxRates: {
    GB: { name: 'VAT', ratePercent: '20' },
    DE: { name: 'VAT', ratePercent: '19' },
    US: { name: 'Sales tax', ratePercent: '0', salesTaxNotComputed: true },
  },
  products: [
    {
      sku: 'TEST-CANVAS',
      description: 'Test canvas',
      category: 'canvas',
      shippingClass: 'large',
      productDimensions: { width: 10, height: 10, units: 'in' },
      attributes: { wrap: ['Black', 'ImageWrap'], edge: ['38mm'] },
      printAreas: { default: { required: true, horizontalResolution: 3000, verticalResolution: 3000 } },
      variantOverrides: [
        {
          when: { wrap: 'ImageWrap' },
          printAreaSizes: { default: { horizontalResolution: 3900, verticalResolution: 3900 } },
        },
      ],
    },
    {
      sku: 'TEST-TEE',
      description: 'Test tee',
      category: 'apparel',
      shippingClass: 'small',
      productDimensions: { width: 12, height: 16, units: 'in' },
      attributes: { color: ['black', 'white'], size: ['s', 'm'] },
      printAreas: {
        front: { required: true, horizontalResolution: 3600, verticalResolution: 4800 },
        back: { required: false, horizontalResolution: 3600, verticalResolution: 4800 },
      },
    },
    {
      sku: 'TEST-BOOK',
      description: 'Test photo book',
      category: 'photobook',
      shippingClass: 'small',
      productDimensions: { width: 210, height: 297, units: 'mm' },
      printAreas: {
        default: { required: true, horizontalResolution: 2480, verticalResolution: 3508 },
        spine: { required: false, horizontalResolution: 300, verticalResolution: 3508 },
      },
      pagePricing: { basePages: 20, minimumPages: 20, maximumPages: 100 },
    },
    {
      sku: 'TEST-CASE',
      description: 'Test phone case',
      category: 'phone-case',
      shippingClass: 'small',
      productDimensions: { width: 71.5, height: 146.7, units: 'mm' },
      printAreas: { default: { required: true, horizontalResolution: 1100, verticalResolution: 2200 } },
    },
    {
      sku: 'TEST-FRAME',
      description: 'Test frame with explicit variants',
      category: 'framed-print',
      shippingClass: 'large',
      productDimensions: { width: 8, height: 10, units: 'in' },
      attributes: { color: ['black', 'white'], size: ['small', 'large'] },
      printAreas: { default: { required: true, horizontalResolution: 2400, verticalResolution: 3000 } },
      variants: [
        { attributes: { color: 'black', size: 'small' } },
        {
          attributes: { color: 'black', size: 'large' },
          printAreaSizes: { default: { horizontalResolution: 4800, verticalResolution: 6000 } },
        },
        { attributes: { color: 'white', size: 'small' } },
      ],
    },
  ],
  labs: [
    {
      code: 'gb1',
      name: 'Test lab GB',
      countryCode: 'GB',
      currency: 'GBP',
      defaultPrintFileFormat: 'jpeg',
      products: [
        { sku: 'TEST-CANVAS', unitCost: '10.00' },
        { sku: 'TEST-TEE', unitCost: '8.00', printFileFormat: 'png' },
        {
          sku: 'TEST-BOOK',
          unitCost: '20.00',
          perAdditionalPageCost: '0.50',
          printFileFormat: 'pdf',
          spine: { paper: 'Test silk 170gsm', coverAllowanceMm: 3.5, pageThicknessMm: 0.12 },
        },
        { sku: 'TEST-CASE', unitCost: '5.00' },
        { sku: 'TEST-FRAME', unitCost: '12.00' },
      ],
      shippingRates: [
        { method: 'Budget', zone: 'uk', carrier: 'Royal Mail', service: 'Standard', tracked: false, costs: UK_COSTS },
        {
          method: 'Standard',
          zone: 'uk',
          carrier: 'Evri',
          service: 'Evri Standard 48',
          tracked: true,
          costs: UK_COSTS,
        },
        {
          method: 'StandardPlus',
          zone: 'uk',
          carrier: 'Royal Mail',
          service: 'Tracked 48',
          tracked: true,
          costs: UK_COSTS,
        },
        {
          method: 'Express',
          zone: 'uk',
          carrier: 'DPD Local',
          service: 'DPD Local Next Day',
          tracked: true,
          costs: UK_COSTS,
        },
        {
          method: 'Overnight',
          zone: 'uk',
          carrier: 'FedEx',
          service: 'FedEx Next Day',
          tracked: true,
          costs: UK_COSTS,
        },
        { method: 'Budget', zone: 'us', carrier: 'USPS', service: 'USPS First Class', tracked: false, costs: US_COSTS },
        {
          method: 'Standard',
          zone: 'us',
          carrier: 'USPS',
          service: 'USPS Priority Mail',
          tracked: true,
          costs: US_COSTS,
        },
        {
          method: 'Express',
          zone: 'us',
          carrier: 'DHL Express',
          service: 'DHL Express Worldwide',
          tracked: true,
          costs: US_COSTS,
        },
        {
          method: 'Standard',
          zone: 'eu',
          carrier: 'Royal Mail',
          service: 'International Tracked',
          tracked: true,
          costs: US_COSTS,
        },
      ],
    },
    {
      code: 'us1',
      name: 'Test lab US',
      countryCode: 'US',
      currency: 'USD',
      defaultPrintFileFormat: 'png',
      products: [
        { sku: 'test-canvas', attributes: { WRAP: ['black'] }, unitCost: '12.00' },
        { sku: 'TEST-TEE', attributes: { color: ['black'] }, unitCost: '9.00' },
      ],
      shippingRates: [
        { method: 'Budget', zone: 'us', carrier: 'USPS', service: 'USPS First Class', tracked: false, costs: US_COSTS },
        {
          method: 'Standard',
          zone: 'us',
          carrier: 'USPS',
          service: 'USPS Priority Mail',
          tracked: true,
          costs: US_COSTS,
        },
        { method: 'StandardPlus', zone: 'us', carrier: 'UPS', service: 'UPS Ground', tracked: true, costs: US_COSTS },
        { method: 'Express', zone: 'us', carrier: 'FedEx', service: 'FedEx 2Day', tracked: true, costs: US_COSTS },
        {
          method: 'Overnight',
          zone: 'us',
          carrier: 'UPS',
          service: 'UPS 1-day Shipping',
          tracked: true,
          costs: US_COSTS,
        },
        {
          method: 'Standard',
          zone: 'ca',
          carrier: 'USPS',
          service: 'USPS Priority Mail International',
          tracked: true,
          costs: US_COSTS,
        },
      ],
    },
  ],
}

/** A fresh, mutable deep copy of the test catalogue file (plain JSON, as `JSON.parse` would give it). */
export function testCatalogueFile(): CatalogueFile {
  return structuredClone(TEST_CATALOGUE)
}

type UntypedJson = Record<string, any>

/** The test catalogue file as untyped JSON, for tests that put wrong types into it. */
export function testCatalogueJson(): UntypedJson {
  return structuredClone(TEST_CATALOGUE) as unknown as UntypedJson
}
