// Book cover dimensions on the wire (docs/api.md#book-cover-dimensions): GET /v4.0/products/{sku}/cover-dimensions
// ?pageCount=N&unit=mm|pt|in (printroute's own) answers `{outcome, coverDimensions: {width, height, spineWidth,
// bleed, safeArea, unit, sku, pageCount, labCode}, traceParent}`.
import { Type } from 'typebox'
import { COVER_UNITS } from '../../domain/cover-dimensions.ts'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import {
  CaseInsensitiveEnum,
  Nullable,
  named,
  OkOutcome,
  outcomeResponse,
  SingleLineString,
  StringEnum,
} from './common.schema.ts'
import { ORDER_LIMITS } from './order.schema.ts'

export const CoverDimensionsQuerySchema = Type.Object(
  {
    pageCount: Type.Integer({
      minimum: 1,
      maximum: ORDER_LIMITS.maxPageCount,
      description: "Pages of the book's interior; within the book's page range.",
    }),
    unit: Type.Optional(
      CaseInsensitiveEnum(COVER_UNITS, 'The unit of every length: mm (0.01), pt (0.01, 72 to the inch) or in (0.001).'),
    ),
    labCode: Type.Optional(
      SingleLineString({
        maxLength: 100,
        description: "The lab whose paper makes the spine (a shipment's fulfillmentLocation.labCode).",
      }),
    ),
    destinationCountryCode: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2}$',
        description: 'Else the destination: the lab is the one allocation picks for it, as for the spine width.',
      }),
    ),
    shippingMethod: Type.Optional(
      CaseInsensitiveEnum(SHIPPING_METHODS, 'With destinationCountryCode: the method the order will use.'),
    ),
  },
  { additionalProperties: false },
)

const Length = (description: string) => Type.Number({ description })

export const CoverDimensionsSchema = named(
  'CoverDimensions',
  Type.Object({
    width: Length('Back, spine and front side by side with the bleed round them: 2 x trim width + spine + 2 x bleed.'),
    height: Length('Trim height + 2 x bleed.'),
    spineWidth: Length("The spine, from the page count and the lab's paper (as POST /v4.0/products/spine gives it)."),
    bleed: Length('The band outside the trim on every side, cut off.'),
    safeArea: Length('The band inside the trim of each cover face where nothing important goes.'),
    unit: StringEnum(COVER_UNITS),
    sku: Type.String(),
    pageCount: Type.Integer(),
    labCode: Nullable(
      Type.String({
        description:
          'The lab whose paper gave the spine; null when none was asked for and every lab making the book has the same.',
      }),
    ),
  }),
)

export const CoverDimensionsResponseSchema = outcomeResponse('CoverDimensionsResponse', OkOutcome, {
  coverDimensions: CoverDimensionsSchema,
})
