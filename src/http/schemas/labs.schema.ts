// The lab API: shipments assigned to a lab and the progress it reports (docs/pipeline.md).
import { Type } from 'typebox'
import { NonBlankString, NullableString, SingleLineString } from './common.schema.ts'

export const ShipmentParams = Type.Object({ shipmentId: Type.String({ maxLength: 40 }) })

export const ShippedBody = Type.Object(
  {
    carrier: Type.Object(
      {
        name: NonBlankString({ maxLength: 100, singleLine: true }),
        service: NonBlankString({ maxLength: 100, singleLine: true }),
      },
      { additionalProperties: false },
    ),
    tracking: Type.Optional(
      Type.Union([
        Type.Object(
          {
            number: NonBlankString({ maxLength: 100, singleLine: true }),
            url: Type.String({ pattern: '^https?://\\S+$', maxLength: 2048 }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    dispatchDate: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
)

export const RejectBody = Type.Object(
  {
    reason: NonBlankString({ maxLength: 500 }),
    unavailableItemIds: Type.Optional(Type.Array(SingleLineString({ maxLength: 40 }), { maxItems: 100 })),
    note: Type.Optional(NullableString({ maxLength: 500 })),
  },
  { additionalProperties: false },
)
