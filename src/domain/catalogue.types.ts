// Types of the product catalogue, in two halves:
//  1. `CatalogueFile` and its parts: the JSON file exactly as an operator writes it (docs/catalogue.md).
//     Money there is a decimal string ("12.50"), never a JSON number.
//  2. The loaded, indexed objects the rest of the service reads (`Product`, `Variant`, `Lab`, ...).
//     Money there is integer minor units (`bigint`) plus a currency code, the same shape as domain/money.ts.
// Wire shapes (`ProductDetails`) follow docs/wire-contract.md#products key by key.

import type { BookSpec, ColourSpace, LabColour, PrintAreaSpec, RenderingIntent } from './print-specs.ts'
import type { ShippingMethod } from './shipping-methods.ts'

/** Print-file formats a lab can ask for; the renderer writes one of these per shipment item. */
export const PRINT_FILE_FORMATS = ['jpeg', 'png', 'pdf', 'tiff'] as const
export type PrintFileFormat = (typeof PRINT_FILE_FORMATS)[number]

/** The only format version this code reads; bump it when a change would make old files mean something else. */
export const CATALOGUE_FORMAT_VERSION = 1

// ---------------------------------------------------------------------------------------------------------
// 1. The JSON file
// ---------------------------------------------------------------------------------------------------------

export interface CatalogueFile {
  formatVersion: typeof CATALOGUE_FORMAT_VERSION
  /** Free text shown in logs ("printroute sample catalogue"). */
  name: string
  currencies: CurrencyTableEntry
  /** Parcel sizes, smallest first. Every product has one; shipping rates are priced per class. */
  shippingClasses: string[]
  /** Zone name -> the countries in it, or the single rest-of-world zone (every valid country not listed elsewhere). */
  zones: Record<string, ZoneEntry>
  /** Destination country -> tax charged on items and shipping. Countries not listed are charged no tax. */
  taxRates: Record<string, TaxRateEntry>
  products: ProductEntry[]
  labs: LabEntry[]
  /**
   * Colour name -> "#rrggbb": how mockups draw a frame colour or a canvas's colour wrap that the built-in names do
   * not know (or should draw otherwise). Names are compared case-insensitively. Omitted: built-in names only.
   */
  colours?: Record<string, string>
  /**
   * What each destination charges on goods crossing its border (docs/catalogue.md#customs): low-value thresholds,
   * how VAT is collected, duty rates by HS chapter, each rule dated. A destination no rule lists has no known
   * duties: quotes say so and DDP cannot prepay them. Omitted: no rules.
   */
  importRules?: ImportRuleEntry[]
  /**
   * Selling prices (docs/billing.md#price-lists): list name -> how products and shipping are priced to merchants.
   * Omitted: merchants pay the labs' costs.
   */
  priceLists?: Record<string, PriceListEntry>
  /**
   * Shipping method -> its terms (docs/catalogue.md#shipping-guarantees): a guaranteed method's late delivery is
   * credited by itself. Omitted: no method is guaranteed.
   */
  shippingMethods?: Partial<Record<ShippingMethod, ShippingMethodTermsEntry>>
}

/** One shipping method's terms in the catalogue file. */
export interface ShippingMethodTermsEntry {
  /** The method is guaranteed: `creditPercent` ("50") of a late shipment's charged shipping is credited. */
  guarantee?: { creditPercent: string }
}

/**
 * One price list: a rule per product (by SKU, category or "*") and per shipping method (or "*"); or another list
 * (`base`) less a percentage, with rules of its own where it differs.
 */
export interface PriceListEntry {
  /** The list of every account that has none of its own; at most one list says so. */
  default?: true
  /** The list this one takes what it does not price itself from. */
  base?: string
  /** Taken off the base list's product prices ("15"); only with `base`. */
  percentOff?: string
  products?: Record<string, PriceRuleEntry>
  shipping?: Record<string, PriceRuleEntry>
}

/**
 * A selling price: fixed amounts per currency (`prices`, the base currency's required), or the lab's cost plus
 * `markupPercent` and `plus` (base currency), rounded up to end in `roundUpTo`'s cents; `{}` is the cost.
 */
export interface PriceRuleEntry {
  prices?: Record<string, string>
  markupPercent?: string
  plus?: string
  roundUpTo?: string
}

/** How VAT (or GST) is collected on a consignment at or under a destination's low-value threshold. */
export const LOW_VALUE_VAT_COLLECTIONS = ['ioss', 'atSale', 'exempt'] as const
export type LowValueVatCollection = (typeof LOW_VALUE_VAT_COLLECTIONS)[number]

/** A product's (or variant's) customs data: what a declaration and the duty computation read. */
export interface CustomsEntry {
  /** Harmonized System code, 6 to 10 digits ("491191"); its first two digits are the chapter duty rates name. */
  hsCode: string
  /** Where the goods are made; omitted: the country of the lab that makes them. */
  originCountryCode?: string
  /** Shipping weight of one copy, packed, in grams. */
  weightGrams: number
}

export interface ImportRuleEntry {
  /** For people and the basis of a quote ("European Union"). */
  name: string
  /** The destination countries the rule applies to; a country is in at most one rule. */
  destinations: string[]
  /** True where goods move between these destinations without customs (the EU single market). */
  customsUnion?: boolean
  /** Currency of the threshold. */
  currency: string
  /**
   * Goods value of a consignment (shipping excluded) at or under which `lowValueVatCollection` applies and no
   * duty is due; omitted: every consignment pays duty and import tax at the border.
   */
  lowValueThreshold?: string
  /** Required with, and only allowed with, `lowValueThreshold`. */
  lowValueVatCollection?: LowValueVatCollection
  /**
   * Import VAT/GST percent charged at the border on goods value plus duty; omitted: the destination's rate in
   * `taxRates` (none where its sales tax is not computed).
   */
  importTaxPercent?: string
  /** HS chapter ("49", two digits) -> duty percent of the goods value; chapters not listed pay `defaultDutyPercent`. */
  dutyPercentByHsChapter: Record<string, string>
  defaultDutyPercent: string
  /** "YYYY-MM-DD": the date the rule took effect in law. */
  effectiveDate: string
  /** Where the rule comes from, for people checking it ("EU Council Directive 2017/2455; TARIC"). */
  source: string
}

export interface CurrencyTableEntry {
  /** The currency every rate is quoted against; its own rate must be "1". */
  base: string
  /** Currency code -> units of that currency per one unit of `base`, a decimal string ("1.3100"). */
  rates: Record<string, string>
}

export type ZoneEntry = { countries: string[] } | { restOfWorld: true }

export interface TaxRateEntry {
  /** "VAT", "GST", "Sales tax". */
  name: string
  /** Percent as a decimal string: "20", "25.5", "0". */
  ratePercent: string
  /** True where tax exists but is not computed (US sales tax): quotes then carry a warning issue. */
  salesTaxNotComputed?: boolean
}

export interface PixelSizeEntry {
  horizontalResolution: number
  verticalResolution: number
}

export interface PrintAreaEntry extends PixelSizeEntry {
  required: boolean
}

export interface ProductEntry {
  /** Unique case-insensitively; letters, digits, `-`, `_` and `.` so it is safe in a URL path. */
  sku: string
  description: string
  /** Free grouping word for people and reports: "canvas", "apparel", "photobook", ... */
  category: string
  /** One of the catalogue's `shippingClasses`. */
  shippingClass: string
  productDimensions: { width: number; height: number; units: string }
  /** Attribute name -> allowed values in display order. Omitted or {} = no attributes. */
  attributes?: Record<string, string[]>
  /** Print area name (lower case) -> whether an asset is required, and the recommended pixel size. */
  printAreas: Record<string, PrintAreaEntry>
  /**
   * Explicit variant list. Omitted = every combination of the attribute values (the cartesian product).
   * Each entry names one value for every attribute and may override print-area pixel sizes.
   */
  variants?: VariantEntry[]
  /** Pixel-size overrides for every variant whose attributes include all of `when` (applied in order). */
  variantOverrides?: VariantOverrideEntry[]
  /** Present when the product is priced by page count (books): the page asset must carry `pageCount`. */
  pagePricing?: PagePricingEntry
  /**
   * The lowest effective resolution, in dots per inch, that prints sharply on this product; a smaller one gets a
   * `LowResolution` warning (previews, quotes with asset URLs, orders). Omitted: DEFAULT_MINIMUM_DPI (150).
   */
  minimumDpi?: number
  /** HS code, origin and weight for customs declarations and duties; omitted: the product is declared without. */
  customs?: CustomsEntry
  /**
   * Print area name -> its physical specification (docs/catalogue.md#print-specifications): trim, bleed, safe
   * area, canvas wrap band, resolution bounds. Each entry gives trimMm, bleedMm and safeMm; variants and
   * overrides may change any field. Omitted: the product's print files keep today's behaviour.
   */
  printAreaSpecs?: Record<string, PrintAreaSpecEntry>
  /** Books (products with pagePricing): the interior's trim, bleed, safe area and page multiple. */
  book?: BookEntry
}

/** Millimetres, at most 3 decimals (micrometres), so sums on them are exact. */
export interface SizeMmEntry {
  width: number
  height: number
}

/**
 * A print area's physical specification as the file writes it. On the product every entry has `trimMm`,
 * `bleedMm` and `safeMm`; in `variants[]` and `variantOverrides[]` any subset, laid over the product's.
 */
export interface PrintAreaSpecEntry {
  trimMm?: SizeMmEntry
  bleedMm?: number
  safeMm?: number
  /** Canvases: the edge band wrapped round the frame, on every side. Only on products with a `wrap` attribute. */
  wrapMm?: number
  /** Omitted: the product's `minimumDpi` (itself 150 when omitted). */
  minDpi?: number
  /** Omitted: DEFAULT_RECOMMENDED_DPI (300). */
  recommendedDpi?: number
}

/** A book's interior (`Product.book`); its page range is `pagePricing`'s. */
export interface BookEntry {
  trimMm: SizeMmEntry
  bleedMm: number
  safeMm: number
  /** The binding takes page counts that are a multiple of this (2: a leaf is two pages; 1: any). */
  pageMultiple: number
}

export interface VariantEntry {
  attributes: Record<string, string>
  printAreaSizes?: Record<string, PixelSizeEntry>
  /** Laid over the product's (and its overrides') print area specifications for this variant. */
  printAreaSpecs?: Record<string, PrintAreaSpecEntry>
  /** Overrides the product's customs data for this variant. */
  customs?: CustomsEntry
}

/** At least one of `printAreaSizes` and `printAreaSpecs`. */
export interface VariantOverrideEntry {
  when: Record<string, string>
  printAreaSizes?: Record<string, PixelSizeEntry>
  printAreaSpecs?: Record<string, PrintAreaSpecEntry>
}

export interface PagePricingEntry {
  /** The print area whose asset is the page file and carries `pageCount`; default "default". */
  pageCountPrintArea?: string
  /** Pages included in the lab's unit cost; every page beyond costs the lab's `perAdditionalPageCost`. */
  basePages: number
  minimumPages: number
  maximumPages: number
}

export interface LabEntry {
  /** Lower-case code shown in shipments' `fulfillmentLocation.labCode` ("uk6", "prodigi_gb2"). */
  code: string
  name: string
  /** Where the lab ships from (`fulfillmentLocation.countryCode`). */
  countryCode: string
  /** Currency of every cost below. */
  currency: string
  defaultPrintFileFormat: PrintFileFormat
  /**
   * The colour of this lab's print files (docs/print-files.md#colour), for each of its products without a `colour`
   * of its own. Omitted: sRGB, as print files always were.
   */
  defaultColour?: LabColourEntry
  products: LabProductEntry[]
  shippingRates: ShippingRateEntry[]
  /**
   * When the lab works and how long it takes: what delivery estimates are computed from (docs/catalogue.md#labs,
   * domain/delivery-promise.ts). Omitted: shipments from this lab carry no estimate, and an order or quote with a
   * `deliverBy` date cannot use the lab.
   */
  calendar?: LabCalendarEntry
  /**
   * The most jobs (shipments) the lab is given a day, counted in its calendar's time zone (UTC without one), 0 to
   * 10000 (docs/catalogue.md#labs). Omitted: only the capacity the lab reports limits it.
   */
  dailyJobLimit?: number
  /**
   * Upheld claims per 1,000 items shipped over the last 90 days above which Live allocation leaves the lab out
   * (docs/allocation.md#lab-quality), 0 to 1000. Omitted: claims never keep the lab from work.
   */
  qualityThreshold?: number
  /**
   * Where the lab's jobs are pushed (docs/pipeline.md#jobs-pushed-to-labs); the URL the operator sets with
   * `printroute labs configure` wins over it. Omitted: the lab polls, unless the operator sets one.
   */
  push?: { url: string }
}

/** Days of the week as the catalogue spells them, Monday first (ISO 8601 order). */
export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const
export type Weekday = (typeof WEEKDAYS)[number]

export interface LabCalendarEntry {
  /** IANA time zone of the lab ("Europe/London"): its cut-off, working days and holidays are in this zone. */
  timeZone: string
  /** The days the lab produces and dispatches, e.g. ["Mon", "Tue", "Wed", "Thu", "Fri"]. */
  workingDays: Weekday[]
  /** Dates ("2026-12-25") the lab does not work although they fall on a working day. */
  holidays?: string[]
  /** "HH:MM", lab time: work received before it starts that working day, at or after it the next one. */
  cutOffTime: string
  /** Working days from the start of production to dispatch: the lab's default, and per product category. */
  productionDays: { default: number; categories?: Record<string, number> }
}

/**
 * Transit time of a shipping rate in working days at the destination (Monday to Friday; public holidays of the
 * destination are not counted out), from the day after dispatch: `min` the fastest usual delivery, `max` the
 * latest the promise allows.
 */
export interface TransitDaysEntry {
  min: number
  max: number
}

export interface LabProductEntry {
  sku: string
  /** Restricts the lab to these values (attribute name -> subset of the product's values). Omitted = all. */
  attributes?: Record<string, string[]>
  /** Production cost of one copy, in the lab's currency. */
  unitCost: string
  /** Required for page-priced products: cost of each page beyond the product's `basePages`. */
  perAdditionalPageCost?: string
  /** Overrides the lab's `defaultPrintFileFormat` for this product. */
  printFileFormat?: PrintFileFormat
  /** Overrides the lab's `defaultColour` for this product. */
  colour?: LabColourEntry
  /**
   * Required for, and only allowed on, products with a `spine` print area: the paper this lab makes the book
   * with, from which the spine width follows (POST /v4.0/products/spine, domain/spine.ts).
   */
  spine?: SpinePaperEntry
  /** Overrides the lab calendar's production days (default and category) for this product; needs a calendar. */
  productionDays?: number
}

/**
 * The colour a lab's press wants (domain/print-specs.ts, LabColour): `srgb` alone, or `cmyk` with one of the
 * profiles printroute ships (domain/colour-profiles.ts), the rendering intent and whether black-point compensation
 * applies. Absolute colorimetric takes no compensation (lcms ignores it).
 */
export interface LabColourEntry {
  space: ColourSpace
  profile?: string
  intent?: RenderingIntent
  blackPointCompensation?: boolean
}

/** A lab's book paper: spine width = coverAllowanceMm + pages x pageThicknessMm. Millimetres, up to 3 decimals. */
export interface SpinePaperEntry {
  /** For people and the spine answer's message ("170gsm silk, lay-flat"). */
  paper: string
  /** What the cover boards and binding add whatever the page count. */
  coverAllowanceMm: number
  /** What each page adds (a leaf carries two pages, so this is half a leaf). */
  pageThicknessMm: number
}

export interface ShippingRateEntry {
  method: ShippingMethod
  zone: string
  carrier: string
  service: string
  tracked: boolean
  /** Shipping class -> cost; must price every class of the products this lab makes. */
  costs: Record<string, ShippingCostEntry>
  /** Omitted: shipments by this rate carry no delivery estimate. */
  transitDays?: TransitDaysEntry
}

export interface ShippingCostEntry {
  /** Charged once per shipment, for the shipment's largest shipping class. */
  perShipment: string
  /** Charged for every further unit (copy) in the shipment, at that unit's own class. */
  perAdditionalItem: string
}

// ---------------------------------------------------------------------------------------------------------
// 2. The loaded catalogue
// ---------------------------------------------------------------------------------------------------------

/** Integer minor units (pence, cents) and an ISO 4217 code; structurally the same as domain/money.ts `Money`. */
export interface CatalogueMoney {
  readonly minor: bigint
  readonly currency: string
}

export interface PixelSize {
  readonly horizontalResolution: number
  readonly verticalResolution: number
}

export interface PrintArea {
  /** Lower case, as returned on the wire. */
  readonly name: string
  readonly required: boolean
  /** The product-level recommended size; a variant may differ (see `Variant.printAreaSizes`). */
  readonly size: PixelSize
}

export interface PagePricing {
  readonly pageCountPrintArea: string
  readonly basePages: number
  readonly minimumPages: number
  readonly maximumPages: number
}

export interface ProductDimensions {
  readonly width: number
  readonly height: number
  readonly units: string
}

export interface Product {
  /** The catalogue's spelling; lookups are case-insensitive but this is what goes back on the wire. */
  readonly sku: string
  readonly description: string
  readonly category: string
  readonly shippingClass: string
  readonly productDimensions: ProductDimensions
  /** Attribute name -> allowed values, in catalogue order. */
  readonly attributes: Readonly<Record<string, readonly string[]>>
  readonly printAreas: Readonly<Record<string, PrintArea>>
  readonly pagePricing: PagePricing | null
  /** Books whose catalogue entry gives the interior's physical specification; null otherwise. */
  readonly book: BookSpec | null
  /** The catalogue's `minimumDpi`, or DEFAULT_MINIMUM_DPI when it gives none (domain/resolution.ts). */
  readonly minimumDpi: number
  readonly variants: readonly Variant[]
  /** The product's customs data; null where the catalogue gives none. */
  readonly customs: ProductCustoms | null
}

/** `CustomsEntry` loaded; the origin is null where the lab's country applies. */
export interface ProductCustoms {
  readonly hsCode: string
  readonly originCountryCode: string | null
  readonly weightGrams: number
}

/** An `ImportRuleEntry` loaded: percents in basis points, the threshold in minor units. */
export interface ImportRule {
  readonly name: string
  readonly destinations: readonly string[]
  readonly customsUnion: boolean
  readonly currency: string
  /** Null: no low-value treatment, every consignment pays at the border. */
  readonly lowValue: { readonly threshold: CatalogueMoney; readonly vatCollection: LowValueVatCollection } | null
  /** Null: the destination's `taxRates` entry applies at the border. */
  readonly importTaxBasisPoints: number | null
  /** Two-digit chapter -> basis points. */
  readonly dutyBasisPointsByChapter: Readonly<Record<string, number>>
  readonly defaultDutyBasisPoints: number
  readonly effectiveDate: string
  readonly source: string
}

export interface Variant {
  /** The product's canonical SKU. */
  readonly sku: string
  /** Stable readable identity: `GLOBAL-CAN-10x10{edge=38mm,wrap=Black}`; attributes in product order. */
  readonly key: string
  /** One value for every product attribute (single-valued ones included), canonical spelling, product order. */
  readonly attributes: Readonly<Record<string, string>>
  readonly printAreaSizes: Readonly<Record<string, PixelSize>>
  /**
   * Print area name -> its physical specification for this variant (domain/print-specs.ts); only areas the
   * catalogue specifies are present, so an old catalogue gives {} and its print files stay as they were.
   */
  readonly printAreaSpecs: Readonly<Record<string, PrintAreaSpec>>
  /** Labs that make this variant, sorted by lab code. Never empty (the loader refuses orphan variants). */
  readonly offers: readonly LabOffer[]
  /** Countries at least one of those labs ships to, by any method; sorted. */
  readonly shipsTo: readonly string[]
  /** The variant's own customs data, else the product's; null where the catalogue gives none. */
  readonly customs: ProductCustoms | null
}

export interface LabOffer {
  readonly lab: Lab
  /** Production cost of one copy in the lab's currency (base pages included for books). */
  readonly unitCost: CatalogueMoney
  /** Cost per page beyond `pagePricing.basePages`; null for products not priced by page. */
  readonly perAdditionalPageCost: CatalogueMoney | null
  readonly printFileFormat: PrintFileFormat
  /** The colour of this lab's print files for this product; SRGB_COLOUR when the catalogue names none. */
  readonly colour: LabColour
  /** Books with a spine: the lab's paper (see SpinePaper); null for every other product. */
  readonly spine: SpinePaper | null
  /**
   * Working days this lab needs to make the product before dispatch: the lab product's own figure, else its
   * calendar's figure for the product's category, else the calendar's default; null when the lab has no calendar.
   */
  readonly productionDays: number | null
}

/** `SpinePaperEntry` in whole micrometres, so widths are exact integers until they go on the wire. */
export interface SpinePaper {
  readonly paper: string
  readonly coverAllowanceMicrometres: number
  readonly pageThicknessMicrometres: number
}

export interface Lab {
  readonly code: string
  readonly name: string
  readonly countryCode: string
  readonly currency: string
  readonly defaultPrintFileFormat: PrintFileFormat
  readonly shippingRates: readonly ShippingRate[]
  /** Null when the catalogue gives the lab none: its shipments then carry no delivery estimate. */
  readonly calendar: LabCalendar | null
  /** The catalogue's daily job limit of the lab; null when it sets none. */
  readonly dailyJobLimit: number | null
  /** Upheld claims per 1,000 items shipped above which the lab is left out of allocation; null when none is set. */
  readonly qualityThreshold: number | null
  /** The catalogue's push URL of the lab; null when it sets none (the operator's setting may still give one). */
  readonly pushUrl: string | null
}

/** `LabCalendarEntry` loaded: what domain/delivery-promise.ts computes dates from. */
export interface LabCalendar {
  readonly timeZone: string
  /** ISO weekday numbers, 1 = Monday ... 7 = Sunday. */
  readonly workingDays: ReadonlySet<number>
  /** "YYYY-MM-DD" dates. */
  readonly holidays: ReadonlySet<string>
  /** Minutes after local midnight: "14:30" = 870. */
  readonly cutOffMinutes: number
}

/** Working days at the destination, Monday to Friday, counted from the day after dispatch. */
export interface TransitDays {
  readonly min: number
  readonly max: number
}

export interface ShippingCost {
  readonly perShipment: CatalogueMoney
  readonly perAdditionalItem: CatalogueMoney
}

/** A guaranteed shipping method's promise (docs/catalogue.md#shipping-guarantees). */
export interface ShippingGuarantee {
  /** As written in the catalogue ("50"). */
  readonly creditPercent: string
  /** Hundredths of a percent of a late shipment's charged shipping credited: 50% = 5000. */
  readonly basisPoints: number
}

export interface ShippingRate {
  readonly labCode: string
  readonly method: ShippingMethod
  readonly zone: string
  readonly carrier: string
  readonly service: string
  readonly tracked: boolean
  /** Shipping class -> cost, in the lab's currency. */
  readonly costs: Readonly<Record<string, ShippingCost>>
  /** Null when the catalogue gives the rate none: its shipments then carry no delivery estimate. */
  readonly transitDays: TransitDays | null
}

export interface Zone {
  readonly name: string
  /** Sorted. For the rest-of-world zone: every valid country no other zone lists. */
  readonly countries: readonly string[]
  readonly restOfWorld: boolean
}

export interface TaxRate {
  readonly countryCode: string
  /** "VAT", "GST", "Sales tax"; null for a country the catalogue lists no tax for. */
  readonly name: string | null
  /** As written in the catalogue ("20", "25.5"); "0" for unlisted countries. */
  readonly ratePercent: string
  /** Hundredths of a percent: 20% = 2000, 25.5% = 2550. */
  readonly basisPoints: number
  readonly salesTaxNotComputed: boolean
}

// ---------------------------------------------------------------------------------------------------------
// Wire shape of GET /v4.0/products/{sku} (`product` member); key order matters to clients that diff bodies.
// Typed as plain (mutable) JSON so it fits the HTTP response schema, but the objects are deep-frozen at runtime:
// they are shared by every request.
// ---------------------------------------------------------------------------------------------------------

export interface ProductDetails {
  /**
   * printroute's: the caller's selling price of one copy (docs/billing.md#price-lists); only on GET
   * /v4.0/products/{sku} for a caller a price list applies to.
   */
  prices?: { priceList: string; fromUnitCost: { amount: string; currency: string } }
  sku: string
  description: string
  productDimensions: { width: number; height: number; units: string }
  attributes: Record<string, string[]>
  printAreas: Record<string, ProductDetailsPrintArea>
  variants: ProductDetailsVariant[]
  /** printroute's: only on books whose catalogue entry gives `book`. */
  book?: PrintSpecWire['book']
}

/** `spec` (printroute's) only when the catalogue specifies the area and every variant has the same specification. */
export interface ProductDetailsPrintArea {
  required: boolean
  spec?: PrintSpecWire['area']
}

export interface ProductDetailsVariant {
  attributes: Record<string, string>
  shipsTo: string[]
  printAreaSizes: Record<string, { horizontalResolution: number; verticalResolution: number }>
  /** printroute's: only the print areas whose specification differs between the product's variants. */
  printAreaSpecs?: Record<string, PrintSpecWire['area']>
}

/** The wire form of the print specifications (docs/api.md#print-specifications): plain JSON, keys in this order. */
export interface PrintSpecWire {
  area: {
    trimMm: { width: number; height: number }
    bleedMm: number
    safeMm: number
    wrapMm: number | null
    minDpi: number
    recommendedDpi: number
  }
  book: {
    trimMm: { width: number; height: number }
    bleedMm: number
    safeMm: number
    minPages: number
    maxPages: number
    pageMultiple: number
  }
}
