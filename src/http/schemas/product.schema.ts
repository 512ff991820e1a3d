// Product details on the wire (docs/wire-contract.md#products).
import { Type } from 'typebox'
import { Nullable, TraceParent } from './common.schema.ts'

const PixelSize = Type.Object({ horizontalResolution: Type.Integer(), verticalResolution: Type.Integer() })

export const ProductSchema = Type.Object({
  sku: Type.String(),
  description: Type.String(),
  productDimensions: Type.Object({ width: Type.Number(), height: Type.Number(), units: Type.String() }),
  attributes: Type.Record(Type.String(), Type.Array(Type.String())),
  printAreas: Type.Record(Type.String(), Type.Object({ required: Type.Boolean() })),
  variants: Type.Array(
    Type.Object({
      attributes: Type.Record(Type.String(), Type.String()),
      shipsTo: Type.Array(Type.String()),
      printAreaSizes: Type.Record(Type.String(), PixelSize),
    }),
  ),
})

export const ProductResponseSchema = Type.Object({
  outcome: Type.String(),
  product: ProductSchema,
  traceParent: TraceParent,
})

/** An entry of GET /v4.0/products (printroute's addition): the details, print areas by name, labs, destinations. */
export const ProductListEntrySchema = Type.Object({
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
})

export const ProductListResponseSchema = Type.Object({
  outcome: Type.String(),
  products: Type.Array(ProductListEntrySchema),
  hasMore: Type.Boolean(),
  nextUrl: Nullable(Type.String()),
  traceParent: TraceParent,
})
