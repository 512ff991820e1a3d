// Generates src/catalogue/sample-catalogue.json, the catalogue bundled with printroute, from the facts in
// /work/shared/spec/CATALOGUE-FACTS.md (SKUs, attributes, pixel sizes, price magnitudes, carriers).
// The JSON file is committed and is what the loader reads; this script only keeps it consistent.
//
// Re-run after editing:  node scripts/build-sample-catalogue.ts
// (it validates the result with the real loader and refuses to write a catalogue that does not load).
//
// Amounts are integer minor units here too; `scaled` does the only arithmetic, in BigInt.

import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseCatalogue } from '../src/catalogue/catalogue.loader.ts'
import type {
  BookEntry,
  CatalogueFile,
  LabCalendarEntry,
  LabEntry,
  LabProductEntry,
  PrintAreaEntry,
  PrintAreaSpecEntry,
  ProductEntry,
  ShippingCostEntry,
  ShippingRateEntry,
  SpinePaperEntry,
} from '../src/domain/catalogue.types.ts'
import { formatMinor } from '../src/domain/catalogue-money.ts'
import type { ShippingMethod } from '../src/domain/shipping-methods.ts'

const OUTPUT_PATH = fileURLToPath(new URL('../src/catalogue/sample-catalogue.json', import.meta.url))

/** Print resolution the recommended pixel sizes assume (CATALOGUE-FACTS.md: "~300 dpi"). */
const DPI = 300
/** Canvas bleed in pixels: the facts give 3054 px for a 10 in canvas side, i.e. 10 x 300 + 54. */
const CANVAS_BLEED_PX = 54
/** An image-wrapped canvas also prints the 38 mm (1.5 in) sides: 2 x 1.5 in x 300 dpi more per dimension. */
const IMAGE_WRAP_EXTRA_PX = 900
const MILLIMETRES_PER_INCH = 25.4

// ---- money helpers -----------------------------------------------------------------------------------------

/**
 * `minor` x each percent / 100, rounded half-up to the nearest 5 minor units like a price list (12.35, never
 * 12.37). Unscaled prices are kept exactly, so a facts price such as 14.37 stays 14.37.
 */
function scaled(minor: number, ...percents: number[]): number {
  let numerator = BigInt(minor)
  let denominator = 1n
  for (const percent of percents) {
    numerator *= BigInt(percent)
    denominator *= 100n
  }
  if (percents.every((percent) => percent === 100)) return minor
  const fiveMinorUnits = denominator * 5n
  const fives = (numerator * 2n + fiveMinorUnits) / (fiveMinorUnits * 2n)
  return Number(fives * 5n)
}

const amount = (minor: number): string => formatMinor(BigInt(minor))

// ---- the world: currencies, classes, zones, tax ---------------------------------------------------------

/** Units per 1 GBP, indicative late-2026 mid-market rates; operators should refresh them. */
const CURRENCY_RATES: Record<string, string> = {
  GBP: '1',
  USD: '1.3100',
  EUR: '1.1400',
  AUD: '2.0200',
  CAD: '1.8400',
  NZD: '2.3200',
  CHF: '1.0600',
  SEK: '12.5000',
  DKK: '8.5100',
  NOK: '13.4000',
  PLN: '4.8500',
}

const SHIPPING_CLASSES = ['envelope', 'flat', 'parcel', 'tube', 'box', 'large-box'] as const
type ShippingClass = (typeof SHIPPING_CLASSES)[number]

const EU_OTHER = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
].concat(['LV', 'MT', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK'])
const EUROPE_NON_EU = [
  'AD',
  'AL',
  'AX',
  'BA',
  'CH',
  'FO',
  'GG',
  'GI',
  'IM',
  'IS',
  'JE',
  'LI',
  'MC',
  'MD',
  'ME',
  'MK',
].concat(['NO', 'RS', 'SM', 'UA', 'VA'])

const ZONES: CatalogueFile['zones'] = {
  uk: { countries: ['GB'] },
  nl: { countries: ['NL'] },
  de: { countries: ['DE'] },
  eu: { countries: EU_OTHER },
  europe: { countries: EUROPE_NON_EU },
  us: { countries: ['US'] },
  ca: { countries: ['CA'] },
  au: { countries: ['AU'] },
  nz: { countries: ['NZ'] },
  'rest-of-world': { restOfWorld: true },
}

/** Standard VAT rates of the EU member states (as published by the European Commission, 2025-2026). */
const EU_VAT_PERCENT: Record<string, string> = {
  AT: '20',
  BE: '21',
  BG: '20',
  CY: '19',
  CZ: '21',
  DE: '19',
  DK: '25',
  EE: '24',
  ES: '21',
  FI: '25.5',
  FR: '20',
  GR: '24',
  HR: '25',
  HU: '27',
  IE: '23',
  IT: '22',
  LT: '21',
  LU: '17',
  LV: '21',
  MT: '18',
  NL: '21',
  PL: '23',
  PT: '23',
  RO: '21',
  SE: '25',
  SI: '22',
  SK: '23',
}

const TAX_RATES: CatalogueFile['taxRates'] = {
  GB: { name: 'VAT', ratePercent: '20' },
  ...Object.fromEntries(
    Object.entries(EU_VAT_PERCENT).map(([country, rate]) => [country, { name: 'VAT', ratePercent: rate }]),
  ),
  // docs/wire-contract.md#quotes: US quotes carry no sales tax and a warning issue.
  US: { name: 'Sales tax', ratePercent: '0', salesTaxNotComputed: true },
  AU: { name: 'GST', ratePercent: '10' },
  NZ: { name: 'GST', ratePercent: '15' },
}

/**
 * What each destination the sample ships to charges at its border (docs/catalogue.md#customs). Thresholds and VAT
 * collection are the law as dated; duty rates are the general (most-favoured-nation) rate of each tariff for the
 * sample's HS chapters, rounded to the chapter, and leave out trade-remedy and origin-specific tariffs. Operators
 * should check them against their own goods. Switzerland, Norway and the rest of the world have no rule: their
 * duties are unknown in advance (quotes say so).
 */
// Selling prices (docs/billing.md#price-lists): two named lists, neither the default, so an account without a list
// pays the labs' costs (the figures the tests and the docs' examples assert) until the operator gives it one.
const PRICE_LISTS: CatalogueFile['priceLists'] = {
  retail: {
    $comment:
      'Not the default: with no default list, accounts without a list pay the labs\' costs. Add "default": true ' +
      'to make it the default (docs/billing.md#price-lists).',
    products: {
      '*': { markupPercent: '40', roundUpTo: '0.99' },
      'GLOBAL-MUG-11OZ': { prices: { GBP: '12.00', USD: '15.00' } },
    },
    shipping: { '*': {}, Express: { markupPercent: '10' } },
  } as NonNullable<CatalogueFile['priceLists']>[string],
  wholesale: { base: 'retail', percentOff: '15' },
}

const IMPORT_RULES: CatalogueFile['importRules'] = [
  {
    name: 'European Union',
    destinations: [...EU_OTHER, 'DE', 'NL'].sort(),
    customsUnion: true,
    currency: 'EUR',
    lowValueThreshold: '150.00',
    lowValueVatCollection: 'ioss',
    dutyPercentByHsChapter: { '39': '6.5', '49': '0', '61': '12', '69': '5', '95': '0' },
    defaultDutyPercent: '0',
    effectiveDate: '2021-07-01',
    source:
      'Council Directive (EU) 2017/2455 and Regulation (EU) 2019/1995 (IOSS, EUR 150); Common Customs Tariff ' +
      '(TARIC) third-country duty',
  },
  {
    name: 'United Kingdom',
    destinations: ['GB'],
    currency: 'GBP',
    lowValueThreshold: '135.00',
    lowValueVatCollection: 'atSale',
    dutyPercentByHsChapter: { '39': '6', '49': '0', '61': '12', '69': '6', '95': '0' },
    defaultDutyPercent: '0',
    effectiveDate: '2021-01-01',
    source: 'HMRC, VAT and overseas goods sold directly to customers in the UK (GBP 135); UK Global Tariff',
  },
  {
    name: 'United States',
    destinations: ['US'],
    currency: 'USD',
    importTaxPercent: '0',
    dutyPercentByHsChapter: { '39': '5.3', '49': '0', '61': '16.5', '69': '9.8', '95': '0' },
    defaultDutyPercent: '0',
    effectiveDate: '2025-08-29',
    source:
      'Executive Order 14324 (duty-free de minimis treatment suspended for every country); HTSUS general rates, ' +
      'additional tariffs by country of origin not included',
  },
  {
    name: 'Canada',
    destinations: ['CA'],
    currency: 'CAD',
    lowValueThreshold: '20.00',
    lowValueVatCollection: 'exempt',
    importTaxPercent: '5',
    dutyPercentByHsChapter: { '39': '6.5', '49': '0', '61': '18', '69': '0', '95': '0' },
    defaultDutyPercent: '0',
    effectiveDate: '2020-07-01',
    source:
      'CBSA D8-2-16 (CAD 20 courier low-value threshold; the CUSMA thresholds for US and Mexican goods are not ' +
      'modelled); Customs Tariff MFN rates; GST 5% (provincial sales taxes not included)',
  },
  {
    name: 'Australia',
    destinations: ['AU'],
    currency: 'AUD',
    lowValueThreshold: '1000.00',
    lowValueVatCollection: 'atSale',
    dutyPercentByHsChapter: { '49': '0' },
    defaultDutyPercent: '5',
    effectiveDate: '2018-07-01',
    source: 'Treasury Laws Amendment (GST Low Value Goods) Act 2017 (AUD 1,000); Customs Tariff Act 1995 general rate',
  },
  {
    name: 'New Zealand',
    destinations: ['NZ'],
    currency: 'NZD',
    lowValueThreshold: '1000.00',
    lowValueVatCollection: 'atSale',
    dutyPercentByHsChapter: { '49': '0', '61': '10' },
    defaultDutyPercent: '0',
    effectiveDate: '2019-12-01',
    source:
      'Taxation (Annual Rates for 2019-20, GST Offshore Supplier Registration) Act 2019 (NZD 1,000); NZ Working Tariff',
  },
]

// ---- products ---------------------------------------------------------------------------------------------

/** Each product with its indicative production cost in GBP and USD minor units (labs scale from these). */
interface SampleProduct {
  entry: ProductEntry
  gbp: number
  usd: number
}

const products: SampleProduct[] = []

function inches(width: number, height: number): ProductEntry['productDimensions'] {
  return { width, height, units: 'in' }
}

function millimetres(width: number, height: number): ProductEntry['productDimensions'] {
  return { width, height, units: 'mm' }
}

function area(required: boolean, horizontalResolution: number, verticalResolution: number): PrintAreaEntry {
  return { required, horizontalResolution, verticalResolution }
}

/**
 * Lowest effective resolution per category where it differs from the default of 150 dpi: a canvas is seen from
 * further away and its weave hides fine detail; photo paper shows every pixel.
 */
const MINIMUM_DPI_BY_CATEGORY: Record<string, number> = {
  canvas: 100,
  'rolled-canvas': 100,
  'framed-canvas': 100,
  'photo-print': 200,
}

/**
 * Customs data per category (docs/catalogue.md#customs): the HS code (6 digits, the level every tariff shares)
 * and the packed weight, a base plus grams per square inch of the product. Origin is the making lab's country,
 * except where the blank is made elsewhere (SAMPLE_ORIGINS).
 */
const CUSTOMS_BY_CATEGORY: Record<string, { hsCode: string; baseGrams: number; gramsPerSquareInch: number }> = {
  // 4911.91: pictures, designs and photographs, printed (framed or not, on paper or canvas).
  canvas: { hsCode: '491191', baseGrams: 300, gramsPerSquareInch: 2 },
  'rolled-canvas': { hsCode: '491191', baseGrams: 150, gramsPerSquareInch: 0.6 },
  'framed-canvas': { hsCode: '491191', baseGrams: 500, gramsPerSquareInch: 3 },
  'framed-print': { hsCode: '491191', baseGrams: 400, gramsPerSquareInch: 2.5 },
  'fine-art-print': { hsCode: '491191', baseGrams: 80, gramsPerSquareInch: 0.35 },
  'photo-print': { hsCode: '491191', baseGrams: 30, gramsPerSquareInch: 0.3 },
  // 4901.99: printed books (other than single sheets, dictionaries and series).
  photobook: { hsCode: '490199', baseGrams: 400, gramsPerSquareInch: 1.5 },
  // 3926.90: other articles of plastics.
  'phone-case': { hsCode: '392690', baseGrams: 60, gramsPerSquareInch: 0 },
  // 6109.10: T-shirts, knitted, of cotton.
  apparel: { hsCode: '610910', baseGrams: 180, gramsPerSquareInch: 0 },
  // 6912.00: ceramic tableware other than porcelain.
  mug: { hsCode: '691200', baseGrams: 450, gramsPerSquareInch: 0 },
  // 9503.00: puzzles (with toys).
  jigsaw: { hsCode: '950300', baseGrams: 300, gramsPerSquareInch: 0.8 },
}

/** Products whose blank is made in another country than the lab printing it: the declared origin. */
const SAMPLE_ORIGINS: Record<string, string> = { 'GLOBAL-TEE-GIL-64000': 'HN' }

const SQUARE_MILLIMETRES_PER_SQUARE_INCH = MILLIMETRES_PER_INCH * MILLIMETRES_PER_INCH

function customsOf(entry: ProductEntry): NonNullable<ProductEntry['customs']> {
  const data = CUSTOMS_BY_CATEGORY[entry.category]
  if (!data) throw new Error(`no customs data for category ${entry.category}`)
  const { width, height, units } = entry.productDimensions
  const squareInches = units === 'mm' ? (width * height) / SQUARE_MILLIMETRES_PER_SQUARE_INCH : width * height
  // Rounded to 10 g, like a packed weight on a price list.
  const weightGrams = Math.round((data.baseGrams + squareInches * data.gramsPerSquareInch) / 10) * 10
  const origin = SAMPLE_ORIGINS[entry.sku]
  return origin === undefined
    ? { hsCode: data.hsCode, weightGrams }
    : { hsCode: data.hsCode, originCountryCode: origin, weightGrams }
}

function add(entry: ProductEntry, gbp: number, usd: number): void {
  const minimumDpi = MINIMUM_DPI_BY_CATEGORY[entry.category]
  const withDpi = minimumDpi === undefined ? entry : { ...entry, minimumDpi }
  products.push({ entry: withPrintSpecs({ ...withDpi, customs: customsOf(entry) }), gbp, usd })
}

// ---- print specifications (docs/catalogue.md#print-specifications) -------------------------------------------

/** Inches in millimetres to the micrometre, as the catalogue writes them (at most 3 decimals). */
function millimetresOf(inches: number): number {
  return Math.round(inches * MILLIMETRES_PER_INCH * 1000) / 1000
}

/**
 * Per category: bleed and safe bands, and where the trim comes from: the product's own dimensions (`product`), or
 * the print area's pixels at 300 dpi (`pixels`: a mount window, a garment's print box, a mug's wrap, a puzzle)
 * where the product's dimensions are of something bigger. Posters and prints bleed 3 mm with a 3-4 mm safe band;
 * a frame's rebate or mount hides about 5 mm; apparel is printed on the garment, so no bleed and no trim to keep
 * clear of. Books get `book` instead (BOOKS).
 */
const PRINT_SPECS_BY_CATEGORY: Record<string, { trim: 'product' | 'pixels'; bleedMm: number; safeMm: number }> = {
  canvas: { trim: 'product', bleedMm: 3, safeMm: 6 },
  'framed-canvas': { trim: 'product', bleedMm: 3, safeMm: 6 },
  'rolled-canvas': { trim: 'product', bleedMm: 3, safeMm: 5 },
  'framed-print': { trim: 'pixels', bleedMm: 3, safeMm: 5 },
  'fine-art-print': { trim: 'product', bleedMm: 3, safeMm: 4 },
  'photo-print': { trim: 'product', bleedMm: 2, safeMm: 3 },
  'phone-case': { trim: 'product', bleedMm: 2, safeMm: 3 },
  apparel: { trim: 'pixels', bleedMm: 0, safeMm: 0 },
  mug: { trim: 'pixels', bleedMm: 2, safeMm: 5 },
  jigsaw: { trim: 'pixels', bleedMm: 3, safeMm: 6 },
}

/**
 * The stretcher bar depth every sample canvas uses (the `edge` attribute says 38mm where the product has one):
 * the band printed round the sides. Its pixels are what ImageWrap's override adds (IMAGE_WRAP_EXTRA_PX).
 */
const CANVAS_WRAP_MM = 38
/**
 * Where the facts' pixel sizes are not at 300 dpi, the resolution they are at: a 16x20 in canvas's 6000x7200 px
 * is 360 dpi over its face and bleed; phone cases print at the case printer's 350 (IP11 Pro) and 375 dpi (IP12),
 * their bands wrapping round the case's sides.
 */
const RECOMMENDED_DPI_BY_SKU: Record<string, number> = {
  'GLOBAL-CAN-16x20': 360,
  'GLOBAL-TECH-IP11P-FC-CP': 350,
  'GLOBAL-TECH-IP12-CS-M': 375,
  'GLOBAL-TECH-IP12-CS-G': 375,
}
const BLEED_MM_BY_SKU: Record<string, number> = { 'GLOBAL-TECH-IP11P-FC-CP': 4 }

/** The product with its print specifications: every print area's, or for a book its `book` (BOOK_SPECS). */
function withPrintSpecs(entry: ProductEntry): ProductEntry {
  // Books are added after BOOK_SPECS exists; reading it for another product would be too early.
  const book = entry.pagePricing ? BOOK_SPECS.get(entry.sku) : undefined
  if (book) return { ...entry, book }
  const rule = PRINT_SPECS_BY_CATEGORY[entry.category]
  if (!rule) throw new Error(`no print specification rule for category ${entry.category}`)
  const { width, height, units } = entry.productDimensions
  const productTrim =
    units === 'mm' ? { width, height } : { width: millimetresOf(width), height: millimetresOf(height) }
  const edge = entry.attributes?.edge?.[0]?.match(/^(\d+)mm$/)?.[1]
  const hasWrap = entry.attributes?.wrap !== undefined
  const recommendedDpi = RECOMMENDED_DPI_BY_SKU[entry.sku]
  const printAreaSpecs: Record<string, PrintAreaSpecEntry> = {}
  for (const [name, area] of Object.entries(entry.printAreas)) {
    const spec: PrintAreaSpecEntry = {
      trimMm:
        rule.trim === 'product'
          ? productTrim
          : {
              width: millimetresOf(area.horizontalResolution / DPI),
              height: millimetresOf(area.verticalResolution / DPI),
            },
      bleedMm: BLEED_MM_BY_SKU[entry.sku] ?? rule.bleedMm,
      safeMm: rule.safeMm,
    }
    if (hasWrap) spec.wrapMm = edge === undefined ? CANVAS_WRAP_MM : Number(edge)
    if (recommendedDpi !== undefined) spec.recommendedDpi = recommendedDpi
    printAreaSpecs[name] = spec
  }
  return { ...entry, printAreaSpecs }
}

function parseSize(size: string): [number, number] {
  const [width, height] = size.toLowerCase().split('x').map(Number)
  if (width === undefined || height === undefined) throw new Error(`bad size ${size}`)
  return [width, height]
}

const CANVAS_WRAPS = ['Black', 'ImageWrap', 'MirrorWrap', 'White']
/** Single-valued canvas attributes from the facts: shown in product details, may be omitted in orders. */
const CANVAS_FIXED_ATTRIBUTES = {
  edge: ['38mm'],
  frame: ['38mm standard stretcher bar'],
  paperType: ['Standard canvas (SC)'],
  substrateWeight: ['400gsm'],
}

// size, GBP, USD, facts-given pixel size if any
const CANVAS_SIZES: [string, number, number, [number, number]?][] = [
  ['8x8', 1250, 1800],
  ['8x10', 1320, 1900],
  ['10x10', 1437, 2000, [3054, 3054]],
  ['12x12', 1620, 2250],
  ['11x14', 1740, 2400],
  ['16x16', 2150, 2950],
  ['16x20', 2430, 3300, [6000, 7200]],
  ['20x20', 2780, 3800],
  ['18x24', 2960, 4000],
  ['24x24', 3390, 4600],
  ['20x30', 3750, 5100],
  ['24x30', 4120, 5600],
  ['24x36', 4680, 6300],
  ['30x40', 5690, 7500],
]

/** Canvases of 20x20 in and up travel in the large box. */
function canvasShippingClass(width: number, height: number): ShippingClass {
  return width * height >= 400 ? 'large-box' : 'box'
}

function canvasPixels(width: number, height: number, given?: [number, number]): [number, number] {
  return given ?? [width * DPI + CANVAS_BLEED_PX, height * DPI + CANVAS_BLEED_PX]
}

function imageWrapOverride([horizontal, vertical]: [number, number]): ProductEntry['variantOverrides'] {
  return [
    {
      when: { wrap: 'ImageWrap' },
      printAreaSizes: {
        default: {
          horizontalResolution: horizontal + IMAGE_WRAP_EXTRA_PX,
          verticalResolution: vertical + IMAGE_WRAP_EXTRA_PX,
        },
      },
    },
  ]
}

for (const [size, gbp, usd, given] of CANVAS_SIZES) {
  const [width, height] = parseSize(size)
  const pixels = canvasPixels(width, height, given)
  add(
    {
      sku: `GLOBAL-CAN-${size}`,
      description: `Standard canvas, ${size} in, 38mm stretcher bar`,
      category: 'canvas',
      shippingClass: canvasShippingClass(width, height),
      productDimensions: inches(width, height),
      attributes: { wrap: CANVAS_WRAPS, ...CANVAS_FIXED_ATTRIBUTES },
      printAreas: { default: area(true, ...pixels) },
      variantOverrides: imageWrapOverride(pixels),
    },
    gbp,
    usd,
  )
}

const ROLLED_CANVAS_SIZES: [string, number, number][] = [
  ['8x8', 600, 800],
  ['12x12', 900, 1200],
  ['16x20', 1400, 1800],
  ['20x30', 1900, 2500],
  ['30x40', 2400, 3200],
]
for (const [size, gbp, usd] of ROLLED_CANVAS_SIZES) {
  const [width, height] = parseSize(size)
  add(
    {
      sku: `GLOBAL-CAN-ROL-SC-${size}`,
      description: `Rolled canvas, standard canvas, ${size} in, unstretched`,
      category: 'rolled-canvas',
      shippingClass: 'tube',
      productDimensions: inches(width, height),
      printAreas: { default: area(true, width * DPI, height * DPI) },
    },
    gbp,
    usd,
  )
}

const FRAME_COLOURS_6 = ['black', 'brown', 'gold', 'natural', 'silver', 'white']
const FRAMED_CANVAS_SIZES: [string, number, number][] = [
  ['16X20', 3800, 5200],
  ['24X36', 5800, 8500],
  ['30X40', 7400, 12100],
]
for (const [size, gbp, usd] of FRAMED_CANVAS_SIZES) {
  const [width, height] = parseSize(size)
  const pixels = canvasPixels(width, height)
  add(
    {
      sku: `GLOBAL-FRA-CAN-${size}`,
      description: `Float-framed canvas, ${size.toLowerCase()} in`,
      category: 'framed-canvas',
      shippingClass: canvasShippingClass(width, height),
      productDimensions: inches(width, height),
      attributes: { color: FRAME_COLOURS_6, wrap: CANVAS_WRAPS },
      printAreas: { default: area(true, ...pixels) },
      variantOverrides: imageWrapOverride(pixels),
    },
    gbp,
    usd,
  )
}

const FRAME_COLOURS_8 = ['black', 'brown', 'dark grey', 'gold', 'light grey', 'natural', 'silver', 'white']
// size, GBP, USD, pixels of the mount window (the image is smaller than the frame)
const MOUNTED_FRAME_SIZES: [string, number, number, [number, number]][] = [
  ['8X10', 1450, 2600, [1800, 2400]],
  ['11X14', 1890, 3600, [2400, 3000]],
  ['16X20', 2725, 5500, [3600, 4800]],
]
for (const [size, gbp, usd, pixels] of MOUNTED_FRAME_SIZES) {
  const [width, height] = parseSize(size)
  add(
    {
      sku: `GLOBAL-CFPM-${size}`,
      description: `Classic frame with mount, ${size.toLowerCase()} in, EMA paper`,
      category: 'framed-print',
      shippingClass: 'box',
      productDimensions: inches(width, height),
      attributes: { color: FRAME_COLOURS_8 },
      printAreas: { default: area(true, ...pixels) },
    },
    gbp,
    usd,
  )
}

const FRAME_SIZES: [string, number, number][] = [
  ['8X10', 1900, 3500],
  ['11X14', 2600, 4800],
  ['16X20', 3600, 6500],
]
for (const [size, gbp, usd] of FRAME_SIZES) {
  const [width, height] = parseSize(size)
  add(
    {
      sku: `GLOBAL-CFP-${size}`,
      description: `Classic frame without mount, ${size.toLowerCase()} in, EMA paper`,
      category: 'framed-print',
      shippingClass: 'box',
      productDimensions: inches(width, height),
      attributes: { color: FRAME_COLOURS_8 },
      printAreas: { default: area(true, width * DPI, height * DPI) },
    },
    gbp,
    usd,
  )
}

const BOX_FRAME_COLOURS = ['black', 'natural', 'white']
const BOX_FRAMES: [string, string, number, number, [number, number]][] = [
  ['GLOBAL-BOX-12X12', 'Box frame, 12x12 in', 1700, 2900, [3600, 3600]],
  ['GLOBAL-BOX-16X20', 'Box frame, 16x20 in', 3000, 5200, [4800, 6000]],
  ['GLOBAL-BOXM-16X20', 'Box frame with mount, 16x20 in', 3300, 5800, [3600, 4800]],
]
for (const [sku, description, gbp, usd, pixels] of BOX_FRAMES) {
  const [width, height] = parseSize(sku.split('-').at(-1) ?? '')
  add(
    {
      sku,
      description,
      category: 'framed-print',
      shippingClass: 'box',
      productDimensions: inches(width, height),
      attributes: { color: BOX_FRAME_COLOURS },
      printAreas: { default: area(true, ...pixels) },
    },
    gbp,
    usd,
  )
}

// size, GBP, USD, facts-given pixels if they differ from size x 300
const FINE_ART_SIZES: [string, number, number, [number, number]?][] = [
  ['8x8', 500, 800],
  ['8x10', 550, 900],
  ['11x14', 700, 1100, [3307, 4192]],
  ['12x12', 750, 1200],
  ['16x20', 1000, 1600],
  ['16x24', 1100, 1800],
  ['24x36', 1500, 2400],
  ['30x40', 1800, 2800],
]
for (const [size, gbp, usd, given] of FINE_ART_SIZES) {
  const [width, height] = parseSize(size)
  const pixels = given ?? [width * DPI, height * DPI]
  add(
    {
      sku: `GLOBAL-FAP-${size}`,
      description: `Fine art print, Enhanced Matte Art 200gsm, ${size} in`,
      category: 'fine-art-print',
      // Up to 12x12 in ships flat in a board-backed envelope; larger prints are rolled in a tube.
      shippingClass: width * height <= 144 ? 'flat' : 'tube',
      productDimensions: inches(width, height),
      printAreas: { default: area(true, pixels[0], pixels[1]) },
    },
    gbp,
    usd,
  )
}

add(
  {
    sku: 'GLOBAL-HPR-A3',
    description: 'Hahnemühle Photo Rag 308gsm fine art print, A3',
    category: 'fine-art-print',
    shippingClass: 'flat',
    productDimensions: millimetres(297, 420),
    printAreas: { default: area(true, 3508, 4961) },
  },
  1400,
  1900,
)
add(
  {
    sku: 'GLOBAL-HPR-20X20',
    description: 'Hahnemühle Photo Rag 308gsm fine art print, 20x20 in',
    category: 'fine-art-print',
    shippingClass: 'tube',
    productDimensions: inches(20, 20),
    printAreas: { default: area(true, 6000, 6000) },
  },
  2600,
  3400,
)
add(
  {
    sku: 'GLOBAL-PAP-10X12',
    description: 'Art print on premium paper, 10x12 in',
    category: 'fine-art-print',
    shippingClass: 'flat',
    productDimensions: inches(10, 12),
    printAreas: { default: area(true, 3000, 3600) },
  },
  700,
  1200,
)

const PHOTO_FINISHES = ['lustre', 'gloss']
const PHOTO_SIZES: [string, number, number, ShippingClass][] = [
  ['4x6', 90, 120, 'envelope'],
  ['5x7', 130, 180, 'envelope'],
  ['8x10', 240, 330, 'flat'],
]
for (const [size, gbp, usd, shippingClass] of PHOTO_SIZES) {
  const [width, height] = parseSize(size)
  add(
    {
      sku: `GLOBAL-PHO-${size}`,
      description: `Photo print, ${size} in`,
      category: 'photo-print',
      shippingClass,
      productDimensions: inches(width, height),
      attributes: { finish: PHOTO_FINISHES },
      printAreas: { default: area(true, width * DPI, height * DPI) },
    },
    gbp,
    usd,
  )
}
add(
  {
    sku: 'GLOBAL-PHO-12X16-PRO-LUS-UK1',
    description: 'Professional lustre photo print, 12x16 in (UK production)',
    category: 'photo-print',
    shippingClass: 'flat',
    productDimensions: inches(12, 16),
    printAreas: { default: area(true, 3600, 4800) },
  },
  950,
  1300,
)
add(
  {
    sku: 'ECO-CAN-16x24',
    description: 'Eco canvas, 16x24 in, recycled stretcher bar',
    category: 'canvas',
    shippingClass: 'box',
    productDimensions: inches(16, 24),
    attributes: { wrap: CANVAS_WRAPS },
    printAreas: { default: area(true, ...canvasPixels(16, 24)) },
    variantOverrides: imageWrapOverride(canvasPixels(16, 24)),
  },
  1900,
  2600,
)

const PHONE_CASES: [string, string, [number, number], [number, number]][] = [
  ['GLOBAL-TECH-IP11P-FC-CP', 'iPhone 11 Pro snap case, full-colour print', [71.4, 144], [1080, 2070]],
  ['GLOBAL-TECH-IP12-CS-M', 'iPhone 12 snap case, matte finish', [71.5, 146.7], [1110, 2220]],
  ['GLOBAL-TECH-IP12-CS-G', 'iPhone 12 snap case, gloss finish', [71.5, 146.7], [1110, 2220]],
]
for (const [sku, description, [width, height], [horizontal, vertical]] of PHONE_CASES) {
  add(
    {
      sku,
      description,
      category: 'phone-case',
      shippingClass: 'envelope',
      productDimensions: millimetres(width, height),
      printAreas: { default: area(true, horizontal, vertical) },
    },
    750,
    1000,
  )
}

const BELLA_CANVAS_COLOURS = [
  'black',
  'white',
  'navy blue',
  'asphalt',
  'dark heather grey',
  'athletic grey heather',
  'natural',
  'cream',
]
const BELLA_CANVAS_SIZES = ['xs', 's', 'm', 'l', 'xl', '2xl', '3xl', '4xl']
/** Sizes that cost the lab more fabric: priced separately in each lab's entries. */
const LARGE_TEE_SIZES = ['2xl', '3xl', '4xl']
/** Tee print areas: `front` carries the design, `back` is an optional extra-cost print (facts: 4680x5790). */
const TEE_PRINT_AREAS = { front: area(true, 4680, 5790), back: area(false, 4680, 5790) }
add(
  {
    sku: 'GLOBAL-TEE-BC-3001',
    description: 'Bella+Canvas 3001 unisex jersey T-shirt, DTG print',
    category: 'apparel',
    shippingClass: 'parcel',
    productDimensions: inches(15.6, 19.3),
    attributes: { color: BELLA_CANVAS_COLOURS, size: BELLA_CANVAS_SIZES },
    printAreas: TEE_PRINT_AREAS,
  },
  850,
  1050,
)
add(
  {
    sku: 'GLOBAL-TEE-GIL-64000',
    description: 'Gildan Softstyle 64000 unisex T-shirt, DTG print',
    category: 'apparel',
    shippingClass: 'parcel',
    productDimensions: inches(15.6, 19.3),
    attributes: { color: ['black', 'white', 'navy blue'], size: ['s', 'm', 'l', 'xl', '2xl'] },
    printAreas: TEE_PRINT_AREAS,
  },
  750,
  900,
)

const MUGS: [string, string, [number, number], number, number][] = [
  ['GLOBAL-MUG-11OZ', 'White ceramic mug, 11oz, wrap-around print', [2700, 1100], 420, 600],
  ['GLOBAL-MUG-15OZ', 'White ceramic mug, 15oz, wrap-around print', [2700, 1200], 520, 750],
]
for (const [sku, description, [horizontal, vertical], gbp, usd] of MUGS) {
  add(
    {
      sku,
      description,
      category: 'mug',
      shippingClass: 'parcel',
      productDimensions: inches(horizontal / DPI, vertical / DPI),
      attributes: { finish: ['gloss'] },
      printAreas: { default: area(true, horizontal, vertical) },
    },
    gbp,
    usd,
  )
}

const JIGSAWS: [string, string, [number, number], number, number][] = [
  ['GLOBAL-JIG-500', 'Jigsaw puzzle, 500 pieces, with printed box lid', [20.5, 15], 1200, 1600],
  ['GLOBAL-JIG-1000', 'Jigsaw puzzle, 1000 pieces, with printed box lid', [27, 19.5], 1600, 2200],
]
for (const [sku, description, [width, height], gbp, usd] of JIGSAWS) {
  add(
    {
      sku,
      description,
      category: 'jigsaw',
      shippingClass: 'parcel',
      productDimensions: inches(width, height),
      // The lid print is optional: without one the lab prints the puzzle image on the lid.
      printAreas: {
        default: area(true, Math.round(width * DPI), Math.round(height * DPI)),
        lid: area(false, 2700, 2100),
      },
    },
    gbp,
    usd,
  )
}

interface SampleBook {
  sku: string
  /**
   * Lay-flat books bind leaf by leaf (pages in twos); a sewn binding folds sheets into signatures of four pages.
   * The page multiple follows (`book.pageMultiple`).
   */
  binding: 'lay-flat' | 'sewn'
  /** The interior's safe band: wider on big pages, where the gutter takes more. */
  safeMm: number
  description: string
  size: [number, number]
  /** The paper finish of a book with a spine (its SKU ends in -G or -M); null: no spine print area. */
  spine: 'gloss' | 'matte' | null
  pages: { basePages: number; minimumPages: number; maximumPages: number }
  gbp: number
  usd: number
  perPageGbp: number
  perPageUsd: number
}
/** Nominal spine image width at 300 dpi; the real width grows with the page count (spine endpoint). */
const SPINE_NOMINAL_WIDTH_PX = 300
const BOOKS: SampleBook[] = [
  {
    sku: 'BOOK-FE-11_7-SQ-HARD-G',
    binding: 'lay-flat',
    safeMm: 10,
    description: 'Fine edition photo book, 297x297 mm square, hardcover, gloss pages',
    size: [297, 297],
    spine: 'gloss',
    pages: { basePages: 20, minimumPages: 20, maximumPages: 200 },
    gbp: 2200,
    usd: 2900,
    perPageGbp: 45,
    perPageUsd: 60,
  },
  {
    sku: 'BOOK-A4-P-HARD-M',
    binding: 'sewn',
    safeMm: 8,
    description: 'A4 portrait photo book, hardcover, matte pages',
    size: [210, 297],
    spine: null,
    pages: { basePages: 24, minimumPages: 24, maximumPages: 200 },
    gbp: 1800,
    usd: 2400,
    perPageGbp: 35,
    perPageUsd: 45,
  },
  {
    sku: 'BOOK-A4-L-HARD-M',
    binding: 'lay-flat',
    safeMm: 8,
    description: 'A4 landscape photo book, hardcover, matte pages',
    size: [297, 210],
    spine: 'matte',
    pages: { basePages: 24, minimumPages: 24, maximumPages: 200 },
    gbp: 1800,
    usd: 2400,
    perPageGbp: 35,
    perPageUsd: 45,
  },
  {
    sku: 'PHBK_14_SQ_HPC',
    binding: 'lay-flat',
    safeMm: 6,
    description: 'Photo book, 14 cm square, hardcover printed cover',
    size: [140, 140],
    spine: null,
    pages: { basePages: 20, minimumPages: 20, maximumPages: 100 },
    gbp: 430,
    usd: 600,
    perPageGbp: 15,
    perPageUsd: 20,
  },
]
/**
 * Each books lab's papers by finish, for the spine width (domain/spine.ts): cover allowance + pages x page
 * thickness. Calibrated on the public example (CATALOGUE-FACTS.md): BOOK-A4-L-HARD-M, 50 pages to the US, spine
 * about 25.4 mm = us7's 5.4 mm + 50 x 0.4 mm. The other labs' papers differ a little, as real stocks do.
 */
const SPINE_PAPERS: Record<string, Record<'gloss' | 'matte', SpinePaperEntry>> = {
  prodigi_gb3: {
    gloss: { paper: '190gsm gloss, lay-flat', coverAllowanceMm: 5, pageThicknessMm: 0.36 },
    matte: { paper: '170gsm matt, lay-flat', coverAllowanceMm: 5, pageThicknessMm: 0.38 },
  },
  us7: {
    gloss: { paper: '100lb gloss text, lay-flat', coverAllowanceMm: 5.4, pageThicknessMm: 0.42 },
    matte: { paper: '80lb matte text, lay-flat', coverAllowanceMm: 5.4, pageThicknessMm: 0.4 },
  },
  de1: {
    gloss: { paper: '200 g/m2 gloss, lay-flat', coverAllowanceMm: 5.6, pageThicknessMm: 0.44 },
    matte: { paper: '170 g/m2 matt, lay-flat', coverAllowanceMm: 5.6, pageThicknessMm: 0.42 },
  },
}
const PAGE_MULTIPLE_BY_BINDING: Record<SampleBook['binding'], number> = { 'lay-flat': 2, sewn: 4 }
/** Every book's interior, by SKU (withPrintSpecs gives it to the product). */
const BOOK_SPECS = new Map<string, BookEntry>(
  BOOKS.map((book) => [
    book.sku,
    {
      trimMm: { width: book.size[0], height: book.size[1] },
      bleedMm: 3,
      safeMm: book.safeMm,
      pageMultiple: PAGE_MULTIPLE_BY_BINDING[book.binding],
    },
  ]),
)
const BOOK_SPINE_FINISH = new Map<string, 'gloss' | 'matte'>()
const BOOK_PER_PAGE = new Map<string, { gbp: number; usd: number }>()
for (const book of BOOKS) {
  const [width, height] = book.size
  const pagePixels = (mm: number) => Math.round((mm / MILLIMETRES_PER_INCH) * DPI)
  const printAreas: Record<string, PrintAreaEntry> = { default: area(true, pagePixels(width), pagePixels(height)) }
  if (book.spine) {
    printAreas.spine = area(false, SPINE_NOMINAL_WIDTH_PX, pagePixels(height))
    BOOK_SPINE_FINISH.set(book.sku, book.spine)
  }
  add(
    {
      sku: book.sku,
      description: book.description,
      category: 'photobook',
      shippingClass: 'parcel',
      productDimensions: millimetres(width, height),
      printAreas,
      pagePricing: { pageCountPrintArea: 'default', ...book.pages },
    },
    book.gbp,
    book.usd,
  )
  BOOK_PER_PAGE.set(book.sku, { gbp: book.perPageGbp, usd: book.perPageUsd })
}

// ---- labs ---------------------------------------------------------------------------------------------------

type CostBase = 'gbp' | 'usd'
type CostTable = Record<ShippingMethod, Record<ShippingClass, [number, number]>>

/** Domestic rates of a GB lab, pence: [per shipment, per additional item]. Royal Mail 1.50 for a phone case, Evri 5.25 for a rolled print, 9.95 for a canvas. */
const GB_DOMESTIC: CostTable = {
  Budget: {
    envelope: [150, 50],
    flat: [350, 100],
    parcel: [450, 150],
    tube: [495, 200],
    box: [795, 300],
    'large-box': [1295, 500],
  },
  Standard: {
    envelope: [250, 75],
    flat: [425, 125],
    parcel: [495, 175],
    tube: [525, 200],
    box: [995, 350],
    'large-box': [1495, 600],
  },
  StandardPlus: {
    envelope: [350, 100],
    flat: [525, 150],
    parcel: [595, 200],
    tube: [650, 250],
    box: [1195, 400],
    'large-box': [1795, 700],
  },
  Express: {
    envelope: [695, 150],
    flat: [795, 200],
    parcel: [895, 250],
    tube: [995, 300],
    box: [1495, 500],
    'large-box': [2295, 800],
  },
  Overnight: {
    envelope: [1295, 200],
    flat: [1395, 250],
    parcel: [1495, 300],
    tube: [1595, 400],
    box: [2195, 600],
    'large-box': [2995, 900],
  },
}
/** Domestic rates of a US lab, cents. A 10x10 canvas (20.00) totals 36.95 / 39.00 / 49.00 / 71.95 (facts). */
const US_DOMESTIC: CostTable = {
  Budget: {
    envelope: [300, 75],
    flat: [595, 150],
    parcel: [595, 150],
    tube: [710, 200],
    box: [1695, 500],
    'large-box': [2590, 900],
  },
  Standard: {
    envelope: [450, 100],
    flat: [685, 175],
    parcel: [795, 200],
    tube: [895, 250],
    box: [1900, 600],
    'large-box': [2990, 1000],
  },
  StandardPlus: {
    envelope: [550, 125],
    flat: [795, 200],
    parcel: [895, 250],
    tube: [1095, 300],
    box: [2195, 700],
    'large-box': [3490, 1100],
  },
  Express: {
    envelope: [1295, 200],
    flat: [1395, 250],
    parcel: [1495, 300],
    tube: [1695, 400],
    box: [2900, 800],
    'large-box': [4490, 1400],
  },
  Overnight: {
    envelope: [2495, 300],
    flat: [2695, 350],
    parcel: [2995, 400],
    tube: [3295, 500],
    box: [5195, 1200],
    'large-box': [7495, 2000],
  },
}

interface Carrier {
  carrier: string
  service: string
}
type CarrierTable = Partial<Record<ShippingMethod, Carrier>>

interface Route {
  zones: string[]
  /** Price relative to the lab's domestic table, in percent. */
  percent: number
  /** How far the parcel goes, which sets its transit days (TRANSIT_DAYS). */
  reach: Reach
  carriers: CarrierTable
}

type Reach = 'domestic' | 'near' | 'far' | 'farthest'

/**
 * Transit days [min, max] by reach and method: working days at the destination from the day after dispatch, as
 * the carriers of each tier usually advertise them (a next-day domestic service is [1, 1]; an untracked
 * international letter post to another continent takes two to three weeks).
 */
const TRANSIT_DAYS: Record<Reach, Partial<Record<ShippingMethod, [number, number]>>> = {
  domestic: { Budget: [2, 5], Standard: [2, 3], StandardPlus: [1, 2], Express: [1, 1], Overnight: [1, 1] },
  near: { Budget: [4, 8], Standard: [3, 6], StandardPlus: [2, 4], Express: [1, 3] },
  far: { Budget: [6, 12], Standard: [4, 8], StandardPlus: [3, 6], Express: [2, 4] },
  farthest: { Budget: [8, 16], Standard: [5, 10], StandardPlus: [4, 8], Express: [3, 5] },
}

/** Production days by product category; a lab's calendar lists those of the categories it makes. */
const PRODUCTION_DAYS_BY_CATEGORY: Record<string, number> = {
  canvas: 3,
  'rolled-canvas': 2,
  'framed-canvas': 4,
  'framed-print': 4,
  'fine-art-print': 2,
  'photo-print': 1,
  'phone-case': 2,
  apparel: 2,
  mug: 2,
  jigsaw: 3,
  photobook: 4,
}

const MONDAY_TO_FRIDAY: LabCalendarEntry['workingDays'] = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri']

/** A lab's time zone, working days, cut-off and public holidays (to the end of 2027; the operator extends them). */
type SampleCalendar = Omit<LabCalendarEntry, 'productionDays'>

const ENGLAND_HOLIDAYS = [
  '2026-12-25',
  '2026-12-28',
  '2027-01-01',
  '2027-03-26',
  '2027-03-29',
  '2027-05-03',
  '2027-05-31',
  '2027-08-30',
  '2027-12-27',
  '2027-12-28',
]
const US_HOLIDAYS = [
  '2026-11-26',
  '2026-12-25',
  '2027-01-01',
  '2027-01-18',
  '2027-05-31',
  '2027-07-05',
  '2027-09-06',
  '2027-11-25',
  '2027-12-24',
  '2027-12-31',
]
const LONDON: SampleCalendar = {
  timeZone: 'Europe/London',
  workingDays: MONDAY_TO_FRIDAY,
  holidays: ENGLAND_HOLIDAYS,
  cutOffTime: '14:00',
}

interface SampleLab {
  code: string
  name: string
  countryCode: string
  currency: string
  defaultPrintFileFormat: LabEntry['defaultPrintFileFormat']
  /** The colour of the lab's print files (docs/print-files.md#colour); omitted: sRGB. */
  defaultColour?: LabEntry['defaultColour']
  /** Which indicative product price the lab starts from, and its factor in percent (currency and margin). */
  costBase: CostBase
  costPercent: number
  domestic: CostTable
  domesticPercent: number
  routes: Route[]
  calendar: SampleCalendar
  products: LabProductEntry[]
}

const ROYAL_MAIL_INTERNATIONAL: CarrierTable = {
  Budget: { carrier: 'Royal Mail', service: 'International Standard' },
  Standard: { carrier: 'Royal Mail', service: 'International Tracked' },
  Express: { carrier: 'DHL Express', service: 'DHL Express Worldwide' },
}
const GB_ROUTES: Route[] = [
  {
    zones: ['uk'],
    percent: 100,
    reach: 'domestic',
    carriers: {
      Budget: { carrier: 'Royal Mail', service: 'Standard' },
      Standard: { carrier: 'Evri', service: 'Evri Standard 48' },
      StandardPlus: { carrier: 'Royal Mail', service: 'Tracked 48' },
      Express: { carrier: 'DPD Local', service: 'DPD Local Next Day' },
      Overnight: { carrier: 'FedEx', service: 'FedEx Next Day' },
    },
  },
  { zones: ['nl', 'de', 'eu', 'europe'], percent: 160, reach: 'near', carriers: ROYAL_MAIL_INTERNATIONAL },
  {
    zones: ['us'],
    percent: 200,
    reach: 'far',
    carriers: {
      Budget: { carrier: 'USPS', service: 'USPS First Class' },
      Standard: { carrier: 'USPS', service: 'USPS Priority Mail' },
      Express: { carrier: 'DHL Express', service: 'DHL Express Worldwide' },
    },
  },
  { zones: ['ca', 'au', 'nz', 'rest-of-world'], percent: 240, reach: 'farthest', carriers: ROYAL_MAIL_INTERNATIONAL },
]
const US_ROUTES: Route[] = [
  {
    zones: ['us'],
    percent: 100,
    reach: 'domestic',
    carriers: {
      Budget: { carrier: 'USPS', service: 'USPS First Class' },
      Standard: { carrier: 'USPS', service: 'USPS Priority Mail' },
      StandardPlus: { carrier: 'UPS', service: 'UPS Ground' },
      Express: { carrier: 'FedEx', service: 'FedEx 2Day' },
      Overnight: { carrier: 'UPS', service: 'UPS 1-day Shipping' },
    },
  },
  {
    zones: ['ca'],
    percent: 160,
    reach: 'near',
    carriers: {
      Budget: { carrier: 'USPS', service: 'USPS First Class International' },
      Standard: { carrier: 'USPS', service: 'USPS Priority Mail International' },
      Express: { carrier: 'DHL Express', service: 'DHL Express Worldwide' },
    },
  },
]
const US_WORLDWIDE_ROUTE: Route = {
  zones: ['rest-of-world'],
  percent: 260,
  reach: 'farthest',
  carriers: {
    Standard: { carrier: 'USPS', service: 'USPS Priority Mail International' },
    Express: { carrier: 'DHL Express', service: 'DHL Express Worldwide' },
  },
}
const NL_ROUTES: Route[] = [
  {
    zones: ['nl'],
    percent: 100,
    reach: 'domestic',
    carriers: {
      Budget: { carrier: 'PostNL', service: 'PostNL Brievenbuspakje' },
      Standard: { carrier: 'DPD NL', service: 'DPD Classic' },
      StandardPlus: { carrier: 'DPD NL', service: 'DPD Home' },
      Express: { carrier: 'DHL Express', service: 'DHL Express Domestic' },
      Overnight: { carrier: 'DPD NL', service: 'DPD Express 12:00' },
    },
  },
  {
    zones: ['de', 'eu'],
    percent: 130,
    reach: 'near',
    carriers: {
      Budget: { carrier: 'PostNL', service: 'PostNL International' },
      Standard: { carrier: 'DPD NL', service: 'DPD Classic Europe' },
      Express: { carrier: 'DHL Express', service: 'DHL Express Worldwide' },
    },
  },
  {
    zones: ['europe', 'uk'],
    percent: 170,
    reach: 'near',
    carriers: {
      Standard: { carrier: 'DPD NL', service: 'DPD Classic Europe' },
      Express: { carrier: 'DHL Express', service: 'DHL Express Worldwide' },
    },
  },
]
const DE_ROUTES: Route[] = [
  {
    zones: ['de'],
    percent: 100,
    reach: 'domestic',
    carriers: {
      Budget: { carrier: 'Deutsche Post', service: 'Warenpost' },
      Standard: { carrier: 'DHL', service: 'DHL Paket' },
      StandardPlus: { carrier: 'DPD', service: 'DPD Classic' },
      Express: { carrier: 'DHL Express', service: 'DHL Express Domestic' },
      Overnight: { carrier: 'UPS', service: 'UPS Express' },
    },
  },
  {
    zones: ['nl', 'eu'],
    percent: 130,
    reach: 'near',
    carriers: {
      Budget: { carrier: 'Deutsche Post', service: 'Warenpost International' },
      Standard: { carrier: 'DHL', service: 'DHL Paket International' },
      Express: { carrier: 'DHL Express', service: 'DHL Express Worldwide' },
    },
  },
  {
    zones: ['europe'],
    percent: 170,
    reach: 'near',
    carriers: {
      Standard: { carrier: 'DHL', service: 'DHL Paket International' },
      Express: { carrier: 'DHL Express', service: 'DHL Express Worldwide' },
    },
  },
]
const AU_ROUTES: Route[] = [
  {
    zones: ['au'],
    percent: 100,
    reach: 'domestic',
    carriers: {
      Budget: { carrier: 'Australia Post', service: 'Parcel Post' },
      Standard: { carrier: 'Australia Post', service: 'Parcel Post Tracked' },
      StandardPlus: { carrier: 'Australia Post', service: 'Parcel Post Signature' },
      Express: { carrier: 'Australia Post', service: 'Express Post' },
      Overnight: { carrier: 'StarTrack', service: 'StarTrack Overnight' },
    },
  },
  {
    zones: ['nz'],
    percent: 150,
    reach: 'far',
    carriers: {
      Budget: { carrier: 'Australia Post', service: 'International Standard' },
      Standard: { carrier: 'Australia Post', service: 'International Standard Tracked' },
      Express: { carrier: 'DHL Express', service: 'DHL Express Worldwide' },
    },
  },
]
const CA_ROUTES: Route[] = [
  {
    zones: ['ca'],
    percent: 100,
    reach: 'domestic',
    carriers: {
      Budget: { carrier: 'Canada Post', service: 'Regular Parcel' },
      Standard: { carrier: 'Canada Post', service: 'Expedited Parcel' },
      StandardPlus: { carrier: 'Canada Post', service: 'Xpresspost' },
      Express: { carrier: 'Purolator', service: 'Purolator Express' },
      Overnight: { carrier: 'Purolator', service: 'Purolator Express 9AM' },
    },
  },
  {
    zones: ['us'],
    percent: 140,
    reach: 'near',
    carriers: {
      Standard: { carrier: 'Canada Post', service: 'Tracked Packet USA' },
      Express: { carrier: 'UPS', service: 'UPS Worldwide Express' },
    },
  },
]

/** Picks products by SKU prefix or exact SKU, in catalogue order. */
function skus(...selectors: string[]): string[] {
  return products
    .map((product) => product.entry.sku)
    .filter((sku) =>
      selectors.some((selector) => (selector.endsWith('*') ? sku.startsWith(selector.slice(0, -1)) : sku === selector)),
    )
}

const CANVAS_UP_TO_24X24 = CANVAS_SIZES.slice(0, 10).map(([size]) => `GLOBAL-CAN-${size}`)
const WALL_ART = [
  'GLOBAL-CAN-8*',
  'GLOBAL-CAN-1*',
  'GLOBAL-CAN-2*',
  'GLOBAL-CAN-30x40',
  'GLOBAL-CAN-ROL-*',
  'GLOBAL-FRA-CAN-*',
  'GLOBAL-CFPM-*',
  'GLOBAL-CFP-*',
  'GLOBAL-BOX*',
  'GLOBAL-FAP-*',
]

interface ProductChoice {
  skus: string[]
  /** Percent of the lab's usual factor: lets two labs making the same thing differ in price. */
  percent?: number
  attributes?: Record<string, string[]>
  printFileFormat?: LabProductEntry['printFileFormat']
  colour?: LabProductEntry['colour']
}

function priced(lab: Omit<SampleLab, 'products'>, choices: ProductChoice[]): LabProductEntry[] {
  const entries: LabProductEntry[] = []
  for (const choice of choices) {
    for (const sku of choice.skus) {
      const product = products.find((candidate) => candidate.entry.sku === sku)
      if (!product) throw new Error(`no sample product ${sku}`)
      const base = lab.costBase === 'gbp' ? product.gbp : product.usd
      const isTee = product.entry.category === 'apparel'
      const restrictions = isTee
        ? [
            // Larger tee sizes cost the lab more: two entries with disjoint size lists, one price each.
            { attributes: { ...choice.attributes, size: sizesOf(product.entry, false) }, extraPercent: 100 },
            { attributes: { ...choice.attributes, size: sizesOf(product.entry, true) }, extraPercent: 125 },
          ]
        : [{ attributes: choice.attributes, extraPercent: 100 }]
      for (const restriction of restrictions) {
        const entry: LabProductEntry = {
          sku,
          unitCost: amount(scaled(base, lab.costPercent, choice.percent ?? 100, restriction.extraPercent)),
        }
        if (restriction.attributes && Object.keys(restriction.attributes).length > 0) {
          entry.attributes = restriction.attributes
        }
        const perPage = BOOK_PER_PAGE.get(sku)
        if (perPage) {
          const perPageBase = lab.costBase === 'gbp' ? perPage.gbp : perPage.usd
          entry.perAdditionalPageCost = amount(scaled(perPageBase, lab.costPercent, choice.percent ?? 100))
        }
        if (choice.printFileFormat) entry.printFileFormat = choice.printFileFormat
        if (choice.colour) entry.colour = choice.colour
        const finish = BOOK_SPINE_FINISH.get(sku)
        if (finish) {
          const paper = SPINE_PAPERS[lab.code]?.[finish]
          if (!paper) throw new Error(`lab ${lab.code} makes ${sku} but SPINE_PAPERS lists no ${finish} paper for it`)
          entry.spine = paper
        }
        entries.push(entry)
      }
    }
  }
  return entries
}

function sizesOf(entry: ProductEntry, large: boolean): string[] {
  return (entry.attributes?.size ?? []).filter((size) => LARGE_TEE_SIZES.includes(size) === large)
}

function lab(details: Omit<SampleLab, 'products'>, choices: ProductChoice[]): SampleLab {
  return { ...details, products: priced(details, choices) }
}

const GB_LAB = {
  countryCode: 'GB',
  currency: 'GBP',
  costBase: 'gbp',
  domestic: GB_DOMESTIC,
  domesticPercent: 100,
  routes: GB_ROUTES,
  calendar: LONDON,
} as const
const US_LAB = {
  countryCode: 'US',
  currency: 'USD',
  costBase: 'usd',
  domestic: US_DOMESTIC,
  domesticPercent: 100,
} as const

const LABS: SampleLab[] = [
  lab({ code: 'uk6', name: 'Wall art lab, Midlands', defaultPrintFileFormat: 'jpeg', costPercent: 100, ...GB_LAB }, [
    { skus: skus(...WALL_ART, 'GLOBAL-HPR-*', 'GLOBAL-PAP-*', 'ECO-CAN-16x24', 'GLOBAL-PHO-12X16-PRO-LUS-UK1') },
    { skus: skus('GLOBAL-PHO-4x6', 'GLOBAL-PHO-5x7', 'GLOBAL-PHO-8x10'), percent: 115 },
  ]),
  lab(
    {
      code: 'prodigi_gb2',
      name: 'Gifts and tech lab, London',
      defaultPrintFileFormat: 'png',
      costPercent: 100,
      ...GB_LAB,
    },
    [
      { skus: skus('GLOBAL-TECH-*', 'GLOBAL-MUG-*', 'GLOBAL-JIG-*') },
      { skus: skus('GLOBAL-PHO-4x6', 'GLOBAL-PHO-5x7', 'GLOBAL-PHO-8x10'), printFileFormat: 'jpeg' },
    ],
  ),
  lab(
    {
      code: 'prodigi_gb3',
      name: 'Apparel and books lab, Manchester',
      defaultPrintFileFormat: 'png',
      costPercent: 100,
      ...GB_LAB,
    },
    [{ skus: skus('GLOBAL-TEE-*') }, { skus: skus('BOOK-*', 'PHBK_*'), printFileFormat: 'pdf' }],
  ),
  lab(
    {
      code: 'us1',
      name: 'Wall art lab, Kansas',
      defaultPrintFileFormat: 'jpeg',
      costPercent: 100,
      ...US_LAB,
      routes: [...US_ROUTES, US_WORLDWIDE_ROUTE],
      calendar: {
        timeZone: 'America/Chicago',
        workingDays: MONDAY_TO_FRIDAY,
        holidays: US_HOLIDAYS,
        cutOffTime: '13:00',
      },
    },
    [{ skus: skus(...WALL_ART) }],
  ),
  lab(
    {
      code: 'us2',
      name: 'Apparel and gifts lab, North Carolina',
      defaultPrintFileFormat: 'png',
      costPercent: 100,
      ...US_LAB,
      routes: US_ROUTES,
      calendar: {
        timeZone: 'America/New_York',
        workingDays: MONDAY_TO_FRIDAY,
        holidays: US_HOLIDAYS,
        cutOffTime: '13:00',
      },
    },
    [{ skus: skus('GLOBAL-TEE-*', 'GLOBAL-MUG-*', 'GLOBAL-JIG-*') }],
  ),
  lab(
    {
      code: 'us7',
      name: 'Photo and books lab, Nevada',
      defaultPrintFileFormat: 'jpeg',
      costPercent: 100,
      ...US_LAB,
      routes: US_ROUTES,
      calendar: {
        timeZone: 'America/Los_Angeles',
        workingDays: MONDAY_TO_FRIDAY,
        holidays: US_HOLIDAYS,
        cutOffTime: '12:00',
      },
    },
    [
      { skus: skus('BOOK-*', 'PHBK_*'), printFileFormat: 'pdf' },
      {
        skus: skus(
          'GLOBAL-PHO-4x6',
          'GLOBAL-PHO-5x7',
          'GLOBAL-PHO-8x10',
          'GLOBAL-FAP-*',
          'GLOBAL-HPR-*',
          'GLOBAL-PAP-*',
        ),
        percent: 95,
      },
    ],
  ),
  lab(
    {
      code: 'nl1',
      name: 'Benelux lab, Eindhoven',
      countryCode: 'NL',
      currency: 'EUR',
      defaultPrintFileFormat: 'jpeg',
      costBase: 'gbp',
      costPercent: 117,
      domestic: GB_DOMESTIC,
      domesticPercent: 115,
      routes: NL_ROUTES,
      calendar: {
        timeZone: 'Europe/Amsterdam',
        workingDays: MONDAY_TO_FRIDAY,
        holidays: [
          '2026-12-25',
          '2027-01-01',
          '2027-03-29',
          '2027-04-27',
          '2027-05-06',
          '2027-05-17',
          '2027-12-25',
          '2027-12-26',
        ],
        cutOffTime: '15:00',
      },
    },
    [
      { skus: CANVAS_UP_TO_24X24 },
      {
        skus: skus(
          'GLOBAL-FAP-*',
          'GLOBAL-CFPM-*',
          'GLOBAL-CFP-*',
          'GLOBAL-PHO-4x6',
          'GLOBAL-PHO-5x7',
          'GLOBAL-PHO-8x10',
        ),
      },
      { skus: ['GLOBAL-TEE-BC-3001'], attributes: { color: ['black', 'white', 'navy blue'] }, printFileFormat: 'png' },
    ],
  ),
  lab(
    {
      code: 'de1',
      name: 'Central Europe lab, Leipzig',
      countryCode: 'DE',
      currency: 'EUR',
      defaultPrintFileFormat: 'tiff',
      // A fine-art and canvas lab printing through a CMYK workflow for coated stock; its mugs and jigsaws go to
      // sublimation printers that take sRGB PNGs.
      defaultColour: { space: 'cmyk', profile: 'printroute-fogra39', intent: 'relative', blackPointCompensation: true },
      costBase: 'gbp',
      costPercent: 115,
      domestic: GB_DOMESTIC,
      domesticPercent: 115,
      routes: DE_ROUTES,
      calendar: {
        // A Saturday shift: production and dispatch six days a week.
        timeZone: 'Europe/Berlin',
        workingDays: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'],
        holidays: [
          '2026-12-25',
          '2026-12-26',
          '2027-01-01',
          '2027-03-26',
          '2027-03-29',
          '2027-05-01',
          '2027-05-06',
          '2027-05-17',
          '2027-10-31',
          '2027-11-17',
          '2027-12-25',
        ],
        cutOffTime: '14:00',
      },
    },
    [
      { skus: skus('GLOBAL-CAN-8*', 'GLOBAL-CAN-1*', 'GLOBAL-CAN-2*', 'GLOBAL-CAN-30x40', 'GLOBAL-FRA-CAN-*') },
      { skus: skus('GLOBAL-FAP-*', 'GLOBAL-HPR-*') },
      { skus: skus('GLOBAL-MUG-*', 'GLOBAL-JIG-*'), printFileFormat: 'png', colour: { space: 'srgb' } },
      { skus: skus('BOOK-*'), printFileFormat: 'pdf' },
    ],
  ),
  lab(
    {
      code: 'au1',
      name: 'Australia lab, Melbourne',
      countryCode: 'AU',
      currency: 'AUD',
      defaultPrintFileFormat: 'jpeg',
      costBase: 'gbp',
      costPercent: 205,
      domestic: GB_DOMESTIC,
      domesticPercent: 200,
      routes: AU_ROUTES,
      calendar: {
        timeZone: 'Australia/Melbourne',
        workingDays: MONDAY_TO_FRIDAY,
        holidays: [
          '2026-12-25',
          '2026-12-28',
          '2027-01-01',
          '2027-01-26',
          '2027-03-08',
          '2027-03-26',
          '2027-03-29',
          '2027-06-14',
          '2027-11-02',
          '2027-12-27',
          '2027-12-28',
        ],
        cutOffTime: '12:00',
      },
    },
    [
      { skus: CANVAS_UP_TO_24X24 },
      { skus: skus('GLOBAL-FAP-*', 'GLOBAL-PHO-4x6', 'GLOBAL-PHO-5x7', 'GLOBAL-PHO-8x10') },
      { skus: ['GLOBAL-CFPM-16X20'], attributes: { color: ['black', 'white', 'natural'] } },
      { skus: ['GLOBAL-TEE-BC-3001'], attributes: { color: ['black', 'white'] }, printFileFormat: 'png' },
    ],
  ),
  lab(
    {
      code: 'ca1',
      name: 'Canada lab, Toronto',
      countryCode: 'CA',
      currency: 'CAD',
      defaultPrintFileFormat: 'jpeg',
      costBase: 'usd',
      costPercent: 138,
      domestic: US_DOMESTIC,
      domesticPercent: 135,
      routes: CA_ROUTES,
      calendar: {
        timeZone: 'America/Toronto',
        workingDays: MONDAY_TO_FRIDAY,
        holidays: [
          '2026-12-25',
          '2026-12-28',
          '2027-01-01',
          '2027-02-15',
          '2027-03-26',
          '2027-05-24',
          '2027-07-01',
          '2027-08-02',
          '2027-09-06',
          '2027-10-11',
          '2027-12-27',
          '2027-12-28',
        ],
        cutOffTime: '14:00',
      },
    },
    [
      { skus: CANVAS_UP_TO_24X24 },
      { skus: skus('GLOBAL-FAP-*', 'GLOBAL-PHO-4x6', 'GLOBAL-PHO-5x7', 'GLOBAL-PHO-8x10') },
    ],
  ),
]

function shippingRates(sampleLab: SampleLab): ShippingRateEntry[] {
  const rates: ShippingRateEntry[] = []
  for (const route of sampleLab.routes) {
    for (const zone of route.zones) {
      for (const [method, carrier] of Object.entries(route.carriers) as [ShippingMethod, Carrier][]) {
        const costs: Record<string, ShippingCostEntry> = {}
        for (const shippingClass of SHIPPING_CLASSES) {
          const [perShipment, perAdditionalItem] = sampleLab.domestic[method][shippingClass]
          costs[shippingClass] = {
            perShipment: amount(scaled(perShipment, route.percent, sampleLab.domesticPercent)),
            perAdditionalItem: amount(scaled(perAdditionalItem, route.percent, sampleLab.domesticPercent)),
          }
        }
        const transit = TRANSIT_DAYS[route.reach][method]
        if (!transit) throw new Error(`TRANSIT_DAYS has no ${method} for reach ${route.reach}`)
        const transitDays = { min: transit[0], max: transit[1] }
        // Budget is the untracked tier (facts: "slowest, usually untracked"); every other tier is tracked.
        rates.push({ method, zone, ...carrier, tracked: method !== 'Budget', costs, transitDays })
      }
    }
  }
  return rates
}

/** The lab's calendar with production days for the categories it makes (2 days for anything else). */
function calendarOf(sampleLab: SampleLab): LabCalendarEntry {
  const made = new Set(
    sampleLab.products.map((entry) => products.find((product) => product.entry.sku === entry.sku)?.entry.category),
  )
  const categories = Object.fromEntries(
    Object.entries(PRODUCTION_DAYS_BY_CATEGORY).filter(([category]) => made.has(category)),
  )
  return { ...sampleLab.calendar, productionDays: { default: 2, categories } }
}

const catalogue: CatalogueFile = {
  formatVersion: 1,
  name: 'printroute sample catalogue (indicative prices from CATALOGUE-FACTS.md)',
  currencies: { base: 'GBP', rates: CURRENCY_RATES },
  shippingClasses: [...SHIPPING_CLASSES],
  zones: ZONES,
  taxRates: TAX_RATES,
  products: products.map((product) => product.entry),
  labs: LABS.map((sampleLab) => ({
    code: sampleLab.code,
    name: sampleLab.name,
    countryCode: sampleLab.countryCode,
    currency: sampleLab.currency,
    defaultPrintFileFormat: sampleLab.defaultPrintFileFormat,
    ...(sampleLab.defaultColour ? { defaultColour: sampleLab.defaultColour } : {}),
    products: sampleLab.products,
    shippingRates: shippingRates(sampleLab),
    calendar: calendarOf(sampleLab),
  })),
  importRules: IMPORT_RULES,
  priceLists: PRICE_LISTS,
  // The two fastest methods are guaranteed (docs/catalogue.md#shipping-guarantees): half the shipping of a late
  // shipment is credited by itself (docs/billing.md#late-delivery-credits).
  shippingMethods: {
    Express: { guarantee: { creditPercent: '50' } },
    Overnight: { guarantee: { creditPercent: '50' } },
  },
}

const json = JSON.parse(JSON.stringify(catalogue)) as unknown
const loaded = parseCatalogue(json, 'sample-catalogue.json (generated)')
writeFileSync(OUTPUT_PATH, `${JSON.stringify(json, null, 2)}\n`)
console.log(`wrote ${OUTPUT_PATH}: ${loaded.products.length} products, ${loaded.labs.length} labs`)
