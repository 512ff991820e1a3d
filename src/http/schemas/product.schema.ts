// Product details on the wire (CONTRACT.md, "Endpoints the specification leaves open").
import { Type } from 'typebox'
import { TraceParent } from './common.schema.ts'

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
