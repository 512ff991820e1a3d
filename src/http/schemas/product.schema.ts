// Product details on the wire (docs/wire-contract.md#products).
import { Type } from 'typebox'
import { PRODUCT_LIST_DEFAULT_TOP, PRODUCT_LIST_MAX_TOP } from '../../domain/limits.ts'
import { Nullable, named, OkOutcome, outcomeResponse, SingleLineString } from './common.schema.ts'
import { ORDER_LIMITS } from './order.schema.ts'

const PixelSize = Type.Object({ horizontalResolution: Type.Integer(), verticalResolution: Type.Integer() })

const TrimMm = Type.Object(
  { width: Type.Number(), height: Type.Number() },
  { description: 'The finished size after trimming, in millimetres (for a canvas: its face).' },
)

/** printroute's: a print area's physical specification (docs/api.md#print-specifications). */
export const PrintAreaSpecSchema = named(
  'PrintAreaSpec',
  Type.Object(
    {
      trimMm: TrimMm,
      bleedMm: Type.Number({ description: 'Band outside the trim on every side, cut off after printing; 0: none.' }),
      safeMm: Type.Number({ description: 'Band inside the trim on every side where nothing important goes; 0: none.' }),
      wrapMm: Nullable(Type.Number({ description: 'Canvases: the edge band wrapped round the frame; null: flat.' })),
      minDpi: Type.Integer({ description: 'Below this effective resolution preflight warns.' }),
      recommendedDpi: Type.Integer({ description: 'The resolution print files are made at.' }),
    },
    { description: "printroute's: the print area's physical specification (millimetres, dots per inch)." },
  ),
)

/** printroute's: a book's interior (docs/api.md#print-specifications). */
export const BookSpecSchema = named(
  'BookSpec',
  Type.Object(
    {
      trimMm: TrimMm,
      bleedMm: Type.Number(),
      safeMm: Type.Number(),
      minPages: Type.Integer(),
      maxPages: Type.Integer(),
      pageMultiple: Type.Integer({ description: 'The binding takes page counts that are a multiple of this.' }),
    },
    { description: "printroute's: the interior pages' trim, bleed and safe area (mm), page range and multiple." },
  ),
)

export const ProductSchema = named(
  'Product',
  Type.Object({
    sku: Type.String(),
    description: Type.String(),
    productDimensions: Type.Object({ width: Type.Number(), height: Type.Number(), units: Type.String() }),
    attributes: Type.Record(Type.String(), Type.Array(Type.String())),
    printAreas: Type.Record(
      Type.String(),
      Type.Object({
        required: Type.Boolean(),
        spec: Type.Optional(PrintAreaSpecSchema),
      }),
      { description: '`spec` only where the catalogue specifies the area and every variant has the same one.' },
    ),
    variants: Type.Array(
      Type.Object({
        attributes: Type.Record(Type.String(), Type.String()),
        shipsTo: Type.Array(Type.String()),
        printAreaSizes: Type.Record(Type.String(), PixelSize),
        printAreaSpecs: Type.Optional(
          Type.Record(Type.String(), PrintAreaSpecSchema, {
            description: "printroute's: the print areas whose specification differs between the variants.",
          }),
        ),
      }),
    ),
    book: Type.Optional(BookSpecSchema),
    prices: Type.Optional(
      Type.Object(
        {
          priceList: Type.String({ description: "The price list (the account's, else the catalogue's default)." }),
          fromUnitCost: Type.Object(
            { amount: Type.String(), currency: Type.String() },
            {
              description:
                'The lowest selling price of one copy among its variants and the labs that make them, before tax ' +
                "and shipping, in the account's billing currency (books: at their base pages).",
            },
          ),
        },
        {
          description:
            "printroute's: the caller's selling price (docs/billing.md#price-lists); absent when no price list " +
            "applies (the labs' costs).",
        },
      ),
    ),
  }),
)

export const ProductResponseSchema = outcomeResponse('ProductResponse', OkOutcome, {
  product: ProductSchema,
})

/** An entry of GET /v4.0/products (printroute's addition): the details, print areas by name, labs, destinations. */
export const ProductListEntrySchema = named(
  'ProductListEntry',
  Type.Object({
    sku: ProductSchema.properties.sku,
    description: ProductSchema.properties.description,
    productDimensions: ProductSchema.properties.productDimensions,
    attributes: ProductSchema.properties.attributes,
    printAreas: Type.Array(Type.String(), { description: 'The names of the print areas.' }),
    variants: ProductSchema.properties.variants,
    labs: Type.Array(Type.Object({ code: Type.String(), name: Type.String(), countryCode: Type.String() }), {
      description: 'The labs that make some variant, by code.',
    }),
    shipsTo: Type.Array(Type.String(), { description: 'Countries some variant ships to, sorted.' }),
    prices: ProductSchema.properties.prices,
  }),
)

export const ProductListResponseSchema = outcomeResponse('ProductListResponse', OkOutcome, {
  products: Type.Array(ProductListEntrySchema),
  hasMore: Type.Boolean(),
  nextUrl: Nullable(Type.String()),
})

export const ProductSkuParamsSchema = Type.Object({ sku: Type.String({ maxLength: 100 }) })

export const ListProductsQuerySchema = Type.Object(
  {
    search: Type.Optional(
      SingleLineString({
        maxLength: 200,
        description: 'Only products whose SKU, description or an attribute value contains this, in any letter case.',
      }),
    ),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: PRODUCT_LIST_MAX_TOP, default: PRODUCT_LIST_DEFAULT_TOP })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: ORDER_LIMITS.maxSkip, default: 0 })),
  },
  { additionalProperties: false },
)
