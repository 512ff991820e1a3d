// Book spine width on the wire (docs/wire-contract.md#spine): body `{sku, destinationCountryCode, state?,
// numberOfPages}` plus printroute's optional `shippingMethod`; answer `{outcome, success, message,
// spineInfo:{widthMm}, traceParent}` (the specification's Book spine info inside the usual envelope).
import { Type } from 'typebox'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import {
  CaseInsensitiveEnum,
  NonBlankString,
  Nullable,
  NullableString,
  named,
  OkOutcome,
  outcomeResponse,
} from './common.schema.ts'
import { ORDER_LIMITS } from './order.schema.ts'

export const SpineRequestSchema = named(
  'SpineRequest',
  Type.Object(
    {
      sku: NonBlankString({ maxLength: 100, singleLine: true, description: 'A book with a spine print area.' }),
      destinationCountryCode: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter ISO 3166-1 code.' }),
      state: Type.Optional(
        NullableString({
          maxLength: ORDER_LIMITS.shortText,
          description: 'Accepted for compatibility; labs serve whole countries, so it does not change the answer.',
        }),
      ),
      numberOfPages: Type.Integer({
        minimum: 1,
        maximum: ORDER_LIMITS.maxPageCount,
        description: "Pages of the book; within the product's page range.",
      }),
      shippingMethod: Type.Optional(
        Nullable(
          CaseInsensitiveEnum(
            SHIPPING_METHODS,
            'printroute extension: the method the order will use (which can change the lab, hence the paper); ' +
              'omitted: the slowest method that reaches the destination.',
          ),
        ),
      ),
    },
    { additionalProperties: false },
  ),
)
export type SpineRequest = Type.Static<typeof SpineRequestSchema>

export const SpineResponseSchema = outcomeResponse('SpineResponse', OkOutcome, {
  success: Type.Boolean(),
  message: Type.String(),
  spineInfo: Type.Object({ widthMm: Type.Number({ description: 'Spine width in millimetres.' }) }),
})
