// The order actions: what an order allows now, and the four changes (docs/api.md).
import { Type } from 'typebox'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import { CaseInsensitiveEnum, TraceParent } from './common.schema.ts'
import { MetadataSchema, OrderResponseSchema, RecipientRequestSchema } from './order.schema.ts'

const Availability = Type.Object({ isAvailable: Type.Union([Type.Literal('Yes'), Type.Literal('No')]) })

export const ActionsResponseSchema = Type.Object({
  outcome: Type.String(),
  cancel: Availability,
  changeRecipientDetails: Availability,
  changeShippingMethod: Availability,
  changeMetaData: Availability,
  traceParent: TraceParent,
})

export const UpdateResponseSchema = Type.Object({
  outcome: Type.String(),
  shipmentUpdateResults: Type.Array(Type.Object({ shipmentId: Type.String(), successful: Type.Boolean() })),
  order: OrderResponseSchema.properties.order,
  traceParent: TraceParent,
})

export const WrappedRecipientSchema = Type.Object(
  { recipient: RecipientRequestSchema },
  { additionalProperties: false },
)
export type RecipientBody = Type.Static<typeof RecipientRequestSchema>

export const UpdateShippingMethodBodySchema = Type.Object(
  { shippingMethod: CaseInsensitiveEnum(SHIPPING_METHODS) },
  { additionalProperties: false },
)

export const UpdateRecipientBodySchema = Type.Unknown({
  description: 'The recipient object, as in create order; {recipient: {...}} also works.',
})

export const UpdateMetadataBodySchema = Type.Object({ metadata: MetadataSchema }, { additionalProperties: false })
