// The structure of a catalogue file (docs/catalogue.md) as a JSON Schema: types, required and allowed fields,
// enumerations and formats. It is what catalogue.validation.ts checks first, and it is published as
// docs/catalogue.schema.json (scripts/generate-catalogue-schema.ts) so editors can check a file as it is typed.
// What a schema cannot say (references between products, labs, zones, shipping classes and currencies; case-
// insensitive uniqueness; exact decimals of binary numbers) is checked by hand in catalogue.validation.ts.
//
// The reasons a problem line shows come from VS Code's own keywords, so an editor shows the same words:
// `patternErrorMessage` when a string does not match its pattern, `errorMessage` for every other failure of
// the value (type, enumeration, lower bound). An upper bound sits in an `allOf` of its own, so that it names
// the bound ("must be at most 100000") instead of repeating the general reason.

import { type TSchema, Type } from 'typebox'
import {
  CATALOGUE_FORMAT_VERSION,
  LOW_VALUE_VAT_COLLECTIONS,
  PRINT_FILE_FORMATS,
  WEEKDAYS,
} from '../domain/catalogue.types.ts'
import { MONEY_PATTERN, PERCENT_PATTERN, RATE_PATTERN } from '../domain/catalogue-money.ts'
import { ISO_COUNTRY_CODES } from '../domain/country-codes.ts'
import { HS_CHAPTER_PATTERN, HS_CODE_PATTERN, MAX_WEIGHT_GRAMS } from '../domain/customs.ts'
import { MAX_LAB_JOBS_PER_DAY } from '../domain/limits.ts'
import { HEX_COLOUR_PATTERN } from '../domain/mockups.ts'
import { MARKUP_PATTERN, PRICE_LIST_NAME_PATTERN, PRICE_POINT_PATTERN } from '../domain/price-lists.ts'
import { COLOUR_SPACES, RENDERING_INTENTS } from '../domain/print-specs.ts'
import { SHIPPING_METHODS } from '../domain/shipping-methods.ts'

/** Letters, digits, `-`, `_`, `.`: SKUs travel in URL paths (GET /v4.0/products/{sku}). */
const SKU_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
/** Lab codes are shown to merchants as `fulfillmentLocation.labCode`: lower case, like `uk6`, `prodigi_gb2`. */
const LAB_CODE_PATTERN = /^[a-z0-9][a-z0-9_-]*$/
/** Print areas are returned lower case on the wire (docs/api.md), so the catalogue spells them that way. */
const PRINT_AREA_PATTERN = /^[a-z][a-z0-9_-]*$/
const CURRENCY_CODE_PATTERN = /^[A-Z]{3}$/
/** Upper bound for print-area pixel sizes: far above any real print (30x40 in at 300 dpi is 9000x12000). */
export const MAX_RESOLUTION_PX = 100_000
/** Upper bound of a product's minimumDpi: no print process needs more than this. */
const MAX_MINIMUM_DPI = 2400
/** Upper bounds of spine paper figures: far above any real book, low enough to catch a figure in micrometres. */
const MAX_COVER_ALLOWANCE_MM = 50
const MAX_PAGE_THICKNESS_MM = 5
/** Upper bound of production and transit days: two months of working days is beyond any print or parcel. */
export const MAX_PROMISE_DAYS = 60
/** "HH:MM", 24-hour clock. */
const CUT_OFF_TIME_PATTERN = /^([01][0-9]|2[0-3]):[0-5][0-9]$/
/** The shape of a date; catalogue.validation.ts checks it is a real one. */
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/

/** Fields starting with `$` are comments or tooling (`$schema`, `$comment`) and are allowed everywhere. */
export const IGNORED_FIELD_PREFIX = '$'
const IGNORED_FIELDS = { [`^\\${IGNORED_FIELD_PREFIX}`]: {} }

export const SPINE_MILLIMETRES_REASON = {
  coverAllowanceMm: 'must be a non-negative number of millimetres with at most 3 decimals',
  pageThicknessMm: 'must be a positive number of millimetres with at most 3 decimals',
} as const

/** An object with exactly these fields (plus `$` ones); those not wrapped in Type.Optional are required. */
function Fields(properties: Record<string, TSchema>, description?: string) {
  return Type.Object(properties, { additionalProperties: false, patternProperties: IGNORED_FIELDS, description })
}

/** An object used as a map: any keys (those in `keys`, when given), every value a `value`. */
function MapOf(
  value: TSchema,
  options: { keys?: { schema: Record<string, unknown>; reason: string }; nonEmpty?: boolean; description?: string },
) {
  return Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    ...(options.description === undefined ? {} : { description: options.description }),
    // Comment keys do not count: a map of nothing but `$comment` is still empty.
    ...(options.nonEmpty
      ? { minProperties: 1, not: { propertyNames: { pattern: `^\\${IGNORED_FIELD_PREFIX}` } } }
      : {}),
    ...(options.keys === undefined
      ? {}
      : {
          propertyNames: {
            anyOf: [{ pattern: `^\\${IGNORED_FIELD_PREFIX}` }, options.keys.schema],
            errorMessage: options.keys.reason,
          },
        }),
    patternProperties: IGNORED_FIELDS,
    additionalProperties: value,
  })
}

function List(item: TSchema, options: { nonEmpty: boolean; description?: string }) {
  return Type.Array(item, { ...(options.nonEmpty ? { minItems: 1 } : {}), description: options.description })
}

function Text(description?: string) {
  return Type.String({ pattern: '\\S', patternErrorMessage: 'must not be empty or whitespace', description })
}

function Matching(pattern: RegExp, reason: string, description?: string) {
  return Type.String({ pattern: pattern.source, patternErrorMessage: reason, description })
}

function OneOf(values: readonly (string | number)[], description?: string) {
  return Type.Unsafe<string>({ type: 'string', enum: [...values], description })
}

const Money = (description?: string) =>
  Matching(MONEY_PATTERN, 'must be a decimal string with at most 2 decimals like "12.50"', description)

const CountryCode = (description?: string) =>
  Type.Unsafe<string>({
    type: 'string',
    enum: [...ISO_COUNTRY_CODES],
    errorMessage: 'must be an ISO 3166-1 alpha-2 country code in upper case',
    description,
  })

const Resolution = Type.Integer({
  minimum: 1,
  errorMessage: 'must be a positive integer',
  allOf: [{ maximum: MAX_RESOLUTION_PX }],
})
const PositiveInteger = Type.Integer({ minimum: 1, errorMessage: 'must be a positive integer' })

const PixelSize = Fields({ horizontalResolution: Resolution, verticalResolution: Resolution })

const PrintArea = Fields({
  required: Type.Boolean({ description: 'Whether an order must give an asset for this print area.' }),
  horizontalResolution: Resolution,
  verticalResolution: Resolution,
})

const PrintAreaSizes = MapOf(PixelSize, {
  nonEmpty: true,
  description: 'Print area -> recommended pixel size for these variants.',
})

const Percent = (description?: string) =>
  Matching(PERCENT_PATTERN, 'must be a percentage string with at most 2 decimals like "20" or "25.5"', description)

/** A product's or variant's customs data (docs/catalogue.md#customs). */
const Customs = Fields(
  {
    hsCode: Matching(
      HS_CODE_PATTERN,
      'must be an HS code of 6 to 10 digits like "491191"',
      'Harmonized System code, 6 to 10 digits; its first two digits are the chapter duty rates are given for.',
    ),
    originCountryCode: Type.Optional(CountryCode("Where the goods are made; omitted: the making lab's country.")),
    weightGrams: Type.Integer({
      minimum: 1,
      errorMessage: 'must be a positive integer',
      allOf: [{ maximum: MAX_WEIGHT_GRAMS, errorMessage: `must be at most ${MAX_WEIGHT_GRAMS}` }],
      description: 'Shipping weight of one copy, packed, in grams.',
    }),
  },
  'HS code, country of origin and weight: what customs declarations and duties are worked out from.',
)

const ImportRule = Fields(
  {
    name: Text('For people and the basis of a quote: "European Union".'),
    destinations: Type.Array(CountryCode(), {
      minItems: 1,
      uniqueItems: true,
      description: 'The destination countries the rule applies to; a country is in at most one rule.',
    }),
    customsUnion: Type.Optional(
      Type.Boolean({ description: 'True where goods move between these destinations without customs.' }),
    ),
    currency: Text('Currency of the threshold; one of the currency rate table.'),
    lowValueThreshold: Type.Optional(
      Money('Goods value of a consignment (shipping excluded) at or under which no duty is due.'),
    ),
    lowValueVatCollection: Type.Optional(
      OneOf(
        LOW_VALUE_VAT_COLLECTIONS,
        'How VAT is collected at or under the threshold: "ioss" (EU Import One-Stop Shop, at sale), "atSale" ' +
          '(by the seller at sale), "exempt" (none due). Required with lowValueThreshold.',
      ),
    ),
    importTaxPercent: Type.Optional(
      Percent("Import VAT/GST at the border on goods value plus duty; omitted: the destination's taxRates entry."),
    ),
    dutyPercentByHsChapter: MapOf(Percent(), {
      keys: { schema: { pattern: HS_CHAPTER_PATTERN.source }, reason: 'HS chapter must be two digits like "49"' },
      description: 'HS chapter (two digits) -> duty percent of the goods value.',
    }),
    defaultDutyPercent: Percent('Duty percent of chapters not listed.'),
    effectiveDate: Matching(DATE_PATTERN, 'must be a date like "2021-07-01"', 'When the rule took effect.'),
    source: Text('Where the rule comes from, for people checking it.'),
  },
  "A destination's import rule: thresholds, VAT collection and duty rates, dated.",
)

const AttributeValues = MapOf(Text(), { description: 'Attribute name -> one of its values (any letter case).' })

/** Upper bound of a trim side: 5 m, beyond any print a lab makes (a 30x40 in canvas is 762x1016 mm). */
export const MAX_TRIM_MM = 5000
/** Upper bound of a bleed, safe or wrap band: 200 mm, far above any real band, low enough to catch a trim there. */
export const MAX_BAND_MM = 200
/** Upper bound of a book's page multiple: 64 pages, the largest signature a binder folds. */
export const MAX_PAGE_MULTIPLE = 64

export const PRINT_SPEC_MILLIMETRES_REASON = {
  positive: 'must be a positive number of millimetres with at most 3 decimals',
  nonNegative: 'must be a non-negative number of millimetres with at most 3 decimals',
} as const

function SpecMillimetres(positive: boolean, maximum: number, description?: string) {
  return Type.Number({
    ...(positive ? { exclusiveMinimum: 0 } : { minimum: 0 }),
    errorMessage: positive ? PRINT_SPEC_MILLIMETRES_REASON.positive : PRINT_SPEC_MILLIMETRES_REASON.nonNegative,
    allOf: [{ maximum, errorMessage: `must be at most ${maximum} mm` }],
    description,
  })
}

const Dpi = (description: string) =>
  Type.Integer({
    minimum: 1,
    errorMessage: 'must be a positive integer',
    allOf: [{ maximum: MAX_MINIMUM_DPI, errorMessage: `must be at most ${MAX_MINIMUM_DPI}` }],
    description,
  })

const TrimMm = Fields(
  {
    width: SpecMillimetres(true, MAX_TRIM_MM),
    height: SpecMillimetres(true, MAX_TRIM_MM),
  },
  'The finished size after trimming, in millimetres (for a canvas: its face).',
)

/** The fields of a print area specification; `complete` for the product's own entries (trim, bleed, safe required). */
function PrintAreaSpecFields(complete: boolean) {
  const required = <T extends TSchema>(schema: T) => (complete ? schema : Type.Optional(schema))
  return Fields(
    {
      trimMm: required(TrimMm),
      bleedMm: required(SpecMillimetres(false, MAX_BAND_MM, 'Band outside the trim on every side, cut off; 0: none.')),
      safeMm: required(
        SpecMillimetres(
          false,
          MAX_BAND_MM,
          'Band inside the trim on every side where nothing important goes; 0: none.',
        ),
      ),
      wrapMm: Type.Optional(
        SpecMillimetres(
          true,
          MAX_BAND_MM,
          'Canvases (products with a wrap attribute): the edge band wrapped round the frame, on every side.',
        ),
      ),
      minDpi: Type.Optional(Dpi("Below this effective resolution preflight warns; omitted: the product's minimumDpi.")),
      recommendedDpi: Type.Optional(Dpi('The resolution print files are made at; omitted: 300.')),
    },
    complete
      ? 'The physical print area: trim, bleed, safe area, wrap band, resolution bounds.'
      : "Fields laid over the product's specification of the print area.",
  )
}

const PrintAreaSpecs = (complete: boolean) =>
  MapOf(PrintAreaSpecFields(complete), {
    description: complete
      ? 'Print area -> its physical specification (docs/catalogue.md#print-specifications).'
      : "Print area -> fields that differ from the product's specification for these variants.",
  })

const Book = Fields(
  {
    trimMm: TrimMm,
    bleedMm: SpecMillimetres(false, MAX_BAND_MM, 'Band outside the page trim on every side; 0: none.'),
    safeMm: SpecMillimetres(false, MAX_BAND_MM, 'Band inside the page trim on every side; 0: none.'),
    pageMultiple: Type.Integer({
      minimum: 1,
      errorMessage: 'must be a positive integer',
      allOf: [{ maximum: MAX_PAGE_MULTIPLE, errorMessage: `must be at most ${MAX_PAGE_MULTIPLE}` }],
      description: 'The binding takes page counts that are a multiple of this (2: a leaf is two pages; 1: any).',
    }),
  },
  "Books (products with pagePricing): the interior pages' trim, bleed and safe area, and the page multiple.",
)

const Product = Fields(
  {
    sku: Matching(SKU_PATTERN, 'must be letters, digits, ".", "-" or "_"', 'Unique case-insensitively.'),
    description: Text(),
    category: Text('Free grouping word: "canvas", "apparel", "photobook", ...'),
    shippingClass: Text("One of the catalogue's shippingClasses."),
    productDimensions: Fields({
      width: Type.Number({ exclusiveMinimum: 0, errorMessage: 'must be a positive number' }),
      height: Type.Number({ exclusiveMinimum: 0, errorMessage: 'must be a positive number' }),
      units: Text(),
    }),
    attributes: Type.Optional(
      MapOf(List(Text(), { nonEmpty: true }), {
        keys: { schema: { pattern: '\\S' }, reason: 'attribute name must not be empty' },
        description: 'Attribute name -> allowed values in display order. Omitted or {} = no attributes.',
      }),
    ),
    printAreas: MapOf(PrintArea, {
      nonEmpty: true,
      keys: {
        schema: { pattern: PRINT_AREA_PATTERN.source },
        reason: 'print area name must be lower case letters, digits, "-" or "_", starting with a letter',
      },
    }),
    variants: Type.Optional(
      List(
        Fields({
          attributes: AttributeValues,
          printAreaSizes: Type.Optional(PrintAreaSizes),
          printAreaSpecs: Type.Optional(PrintAreaSpecs(false)),
          customs: Type.Optional(Customs),
        }),
        {
          nonEmpty: true,
          description: 'Explicit variant list; omitted = every combination of the attribute values.',
        },
      ),
    ),
    variantOverrides: Type.Optional(
      List(
        Fields({
          when: AttributeValues,
          printAreaSizes: Type.Optional(PrintAreaSizes),
          printAreaSpecs: Type.Optional(PrintAreaSpecs(false)),
        }),
        {
          nonEmpty: false,
          description:
            'Pixel-size and print specification overrides (at least one of the two) for every variant whose ' +
            'attributes include all of `when`.',
        },
      ),
    ),
    pagePricing: Type.Optional(
      Fields(
        {
          pageCountPrintArea: Type.Optional(Text('The print area whose asset carries pageCount; default "default".')),
          basePages: Type.Integer({ minimum: 0, errorMessage: 'must be an integer of at least 0' }),
          minimumPages: PositiveInteger,
          maximumPages: PositiveInteger,
        },
        'Present when the product is priced by page count (books).',
      ),
    ),
    minimumDpi: Type.Optional(
      Type.Integer({
        minimum: 1,
        errorMessage: 'must be a positive integer',
        allOf: [{ maximum: MAX_MINIMUM_DPI, errorMessage: `must be at most ${MAX_MINIMUM_DPI}` }],
        description:
          'Lowest effective resolution (dots per inch) that prints sharply; below it previews, quotes and orders ' +
          'carry a LowResolution warning. Omitted: 150.',
      }),
    ),
    customs: Type.Optional(Customs),
    printAreaSpecs: Type.Optional(PrintAreaSpecs(true)),
    book: Type.Optional(Book),
  },
  'A product; its SKU is what orders name.',
)

function Millimetres(reason: string, minimum: { minimum: number } | { exclusiveMinimum: number }, maximum: number) {
  return Type.Number({
    ...minimum,
    errorMessage: reason,
    allOf: [{ maximum, errorMessage: `must be at most ${maximum} mm` }],
  })
}

/** Production or transit days: a whole number from 0 to MAX_PROMISE_DAYS. */
function Days(description?: string) {
  return Type.Integer({
    minimum: 0,
    errorMessage: 'must be an integer of at least 0',
    allOf: [{ maximum: MAX_PROMISE_DAYS, errorMessage: `must be at most ${MAX_PROMISE_DAYS}` }],
    description,
  })
}

const LabCalendar = Fields(
  {
    timeZone: Text('IANA time zone of the lab, e.g. "Europe/London".'),
    workingDays: Type.Array(OneOf(WEEKDAYS), {
      minItems: 1,
      uniqueItems: true,
      description: 'The weekdays the lab produces and dispatches on: "Mon" ... "Sun".',
    }),
    holidays: Type.Optional(
      List(Matching(DATE_PATTERN, 'must be a date like "2026-12-25"'), {
        nonEmpty: false,
        description: 'Dates (lab time) the lab does not work although they fall on a working day.',
      }),
    ),
    cutOffTime: Matching(
      CUT_OFF_TIME_PATTERN,
      'must be a time like "14:00" (24-hour HH:MM)',
      'Lab time: work received before it starts that working day, at or after it the next working day.',
    ),
    productionDays: Fields({
      default: Days('Working days from the start of production to dispatch.'),
      categories: Type.Optional(MapOf(Days(), { description: 'Product category -> production days.' })),
    }),
  },
  'When the lab works and how long it takes; omitted: its shipments carry no delivery estimate.',
)

/** The colour of a lab's print files (docs/print-files.md#colour); the validation checks how its fields go together. */
const LabColour = (description: string) =>
  Fields(
    {
      space: OneOf(COLOUR_SPACES, 'srgb: as print files always were; cmyk: converted through `profile`.'),
      profile: Type.Optional(Text('cmyk only: the name of a profile printroute ships, e.g. "printroute-fogra39".')),
      intent: Type.Optional(OneOf(RENDERING_INTENTS, 'cmyk only: the rendering intent of the conversion.')),
      blackPointCompensation: Type.Optional(
        Type.Boolean({ description: 'cmyk only: whether black-point compensation applies (not with absolute).' }),
      ),
    },
    description,
  )

const LabProduct = Fields({
  sku: Text('A product SKU (any letter case).'),
  attributes: Type.Optional(
    MapOf(List(Text(), { nonEmpty: true }), {
      nonEmpty: true,
      description: 'Restricts the lab to these values of the product. Omitted = all.',
    }),
  ),
  unitCost: Money("Production cost of one copy, in the lab's currency."),
  perAdditionalPageCost: Type.Optional(Money('Required for page-priced products: cost of each page beyond basePages.')),
  printFileFormat: Type.Optional(OneOf(PRINT_FILE_FORMATS, "Overrides the lab's defaultPrintFileFormat.")),
  colour: Type.Optional(LabColour("Overrides the lab's defaultColour for this product.")),
  spine: Type.Optional(
    Fields(
      {
        paper: Text(),
        coverAllowanceMm: Millimetres(
          SPINE_MILLIMETRES_REASON.coverAllowanceMm,
          { minimum: 0 },
          MAX_COVER_ALLOWANCE_MM,
        ),
        pageThicknessMm: Millimetres(
          SPINE_MILLIMETRES_REASON.pageThicknessMm,
          { exclusiveMinimum: 0 },
          MAX_PAGE_THICKNESS_MM,
        ),
      },
      'Required for, and only allowed on, products with a spine print area: the paper of the book.',
    ),
  ),
  productionDays: Type.Optional(Days("Overrides the lab calendar's production days for this product.")),
})

const ShippingRate = Fields({
  method: OneOf(SHIPPING_METHODS),
  zone: Text('One of the catalogue zones.'),
  carrier: Text(),
  service: Text(),
  tracked: Type.Boolean(),
  costs: MapOf(Fields({ perShipment: Money(), perAdditionalItem: Money() }), {
    nonEmpty: true,
    description: 'Shipping class -> cost; must price every class of the products this lab makes.',
  }),
  transitDays: Type.Optional(
    Fields(
      { min: Days(), max: Days() },
      'Working days at the destination (Monday to Friday) from the day after dispatch to delivery.',
    ),
  ),
})

const Lab = Fields({
  code: Matching(LAB_CODE_PATTERN, 'must be lower-case letters, digits, "-" or "_"'),
  name: Text(),
  countryCode: CountryCode('Where the lab ships from.'),
  currency: Text('Currency of every cost of this lab; one of the currency rate table.'),
  defaultPrintFileFormat: OneOf(PRINT_FILE_FORMATS),
  defaultColour: Type.Optional(
    LabColour("The colour of the lab's print files for products without their own; omitted: srgb."),
  ),
  products: List(LabProduct, { nonEmpty: true }),
  shippingRates: List(ShippingRate, { nonEmpty: true }),
  calendar: Type.Optional(LabCalendar),
  dailyJobLimit: Type.Optional(
    Type.Integer({
      minimum: 0,
      errorMessage: 'must be an integer of at least 0',
      allOf: [{ maximum: MAX_LAB_JOBS_PER_DAY, errorMessage: `must be at most ${MAX_LAB_JOBS_PER_DAY}` }],
      description:
        'The most jobs (shipments) the lab is given a day, in its calendar time zone (UTC without a calendar); ' +
        'omitted: no limit but what the lab reports through the lab API.',
    }),
  ),
  qualityThreshold: Type.Optional(
    Type.Number({
      minimum: 0,
      errorMessage: 'must be a number of at least 0',
      allOf: [{ maximum: 1000, errorMessage: 'must be at most 1000' }],
      description:
        'Upheld claims per 1,000 items shipped (over the last 90 days) above which Live allocation leaves the lab ' +
        'out (QualityBelowThreshold) until its rate falls back; omitted: claims never keep the lab from work.',
    }),
  ),
  push: Type.Optional(
    Fields(
      {
        url: Text(
          "Where the lab's jobs are pushed (POSTed, signed, as they change: docs/pipeline.md#jobs-pushed-to-labs); " +
            'the URL set with `printroute labs configure --push-url` wins over it. Never put the secret here.',
        ),
      },
      'Push the lab its jobs as well as letting it poll them; omitted: the lab polls.',
    ),
  ),
})

/** What a shipping method promises beyond its rates (docs/catalogue.md#shipping-guarantees). */
const ShippingMethodTerms = Fields(
  {
    guarantee: Type.Optional(
      Fields(
        {
          creditPercent: Percent(
            "The share of a shipment's charged shipping credited by itself when it is delivered after its promised " +
              'date (docs/billing.md#late-delivery-credits); more than 0, at most 100.',
          ),
        },
        'The method is guaranteed: a late delivery is credited.',
      ),
    ),
  },
  "One shipping method's terms.",
)

const PricePercent = (reason: string, description: string) => Matching(MARKUP_PATTERN, reason, description)

const PriceRule = Fields(
  {
    prices: Type.Optional(
      MapOf(Money(), {
        nonEmpty: true,
        keys: {
          schema: { pattern: CURRENCY_CODE_PATTERN.source },
          reason: 'currency code must be 3 upper-case letters',
        },
        description:
          'Currency -> the selling price of one copy (of one shipment, for shipping); the base currency is ' +
          'required, any other currency is converted from it.',
      }),
    ),
    markupPercent: Type.Optional(
      PricePercent(
        'must be a percentage string with at most 2 decimals like "40"',
        'Added to the lab cost, in percent.',
      ),
    ),
    plus: Type.Optional(Money('Added after the markup, in the base currency.')),
    roundUpTo: Type.Optional(
      Matching(
        PRICE_POINT_PATTERN,
        'must be a price point like "0.99" or "0.50"',
        'Rounds the price up to the next amount ending in these cents.',
      ),
    ),
  },
  'Fixed `prices`, or the lab cost plus markupPercent and plus, rounded up to roundUpTo ({} is the cost).',
)

const PriceList = Fields(
  {
    default: Type.Optional(Type.Literal(true, { errorMessage: 'must be true when present' })),
    base: Type.Optional(Text('The list this one takes what it does not price itself from.')),
    percentOff: Type.Optional(
      PricePercent(
        'must be a percentage string with at most 2 decimals like "15"',
        "Taken off the base list's product prices.",
      ),
    ),
    products: Type.Optional(MapOf(PriceRule, { description: 'SKU, category or "*" -> rule.' })),
    shipping: Type.Optional(MapOf(PriceRule, { description: 'Shipping method or "*" -> rule.' })),
  },
  'A price list (docs/billing.md#price-lists).',
)

export const CatalogueSchema = Fields(
  {
    // Any other value is a format this code cannot read, whatever its type: one reason, "must be 1".
    formatVersion: Type.Unsafe<typeof CATALOGUE_FORMAT_VERSION>({ const: CATALOGUE_FORMAT_VERSION }),
    name: Text('Free text shown in logs.'),
    currencies: Fields({
      base: Matching(CURRENCY_CODE_PATTERN, 'must be a 3-letter upper-case code'),
      rates: MapOf(Matching(RATE_PATTERN, 'must be a decimal string with at most 6 decimals'), {
        nonEmpty: true,
        keys: {
          schema: { pattern: CURRENCY_CODE_PATTERN.source },
          reason: 'currency code must be 3 upper-case letters',
        },
        description: 'Currency code -> units of that currency per one unit of base ("1.3100").',
      }),
    }),
    shippingClasses: List(Text(), { nonEmpty: true, description: 'Parcel sizes, smallest first.' }),
    zones: MapOf(
      Fields({
        countries: Type.Optional(List(CountryCode(), { nonEmpty: true })),
        restOfWorld: Type.Optional(Type.Literal(true, { errorMessage: 'must be true when present' })),
      }),
      { nonEmpty: true, description: 'Zone name -> its countries, or the single rest-of-world zone.' },
    ),
    taxRates: MapOf(
      Fields({
        name: Text('"VAT", "GST", "Sales tax".'),
        ratePercent: Matching(
          PERCENT_PATTERN,
          'must be a percentage string with at most 2 decimals like "20" or "25.5"',
        ),
        salesTaxNotComputed: Type.Optional(Type.Boolean()),
      }),
      {
        keys: {
          schema: { enum: [...ISO_COUNTRY_CODES] },
          reason: 'key must be an ISO 3166-1 alpha-2 country code in upper case',
        },
        description: 'Destination country -> tax. Countries not listed are charged no tax.',
      },
    ),
    products: List(Product, { nonEmpty: true }),
    labs: List(Lab, { nonEmpty: true }),
    colours: Type.Optional(
      MapOf(Matching(HEX_COLOUR_PATTERN, 'must be a colour like "#8b5a2b" (# and six hex digits)'), {
        keys: { schema: { pattern: '\\S' }, reason: 'colour name must not be empty' },
        description:
          'Colour name (any letter case) -> "#rrggbb": how mockups draw a frame colour or canvas wrap colour of ' +
          'that name. Needed for every frame colour and canvas wrap colour outside the built-in names.',
      }),
    ),
    importRules: Type.Optional(
      List(ImportRule, {
        nonEmpty: false,
        description: 'Per destination: low-value thresholds, how VAT is collected, duty rates; each rule dated.',
      }),
    ),
    shippingMethods: Type.Optional(
      MapOf(ShippingMethodTerms, {
        keys: {
          schema: { enum: [...SHIPPING_METHODS] },
          reason: `key must be a shipping method (${SHIPPING_METHODS.join(', ')})`,
        },
        description: 'Shipping method -> its terms: a guarantee credited on late delivery. Omitted: no guarantees.',
      }),
    ),
    priceLists: Type.Optional(
      MapOf(PriceList, {
        keys: {
          schema: { pattern: PRICE_LIST_NAME_PATTERN.source },
          reason: 'list name must be letters, digits, "-" or "_"',
        },
        description: 'Selling prices: list name -> its rules (docs/billing.md#price-lists). Omitted: the costs.',
      }),
    ),
  },
  'A printroute product catalogue (docs/catalogue.md).',
)

/** The text of docs/catalogue.schema.json (`npm run docs:catalogue-schema` rewrites the file from it). */
export function catalogueSchemaJson(): string {
  const document = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'printroute catalogue',
    ...JSON.parse(JSON.stringify(CatalogueSchema)),
  }
  return `${JSON.stringify(document, null, 2)}\n`
}
