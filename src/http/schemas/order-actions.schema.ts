// The order actions: what an order allows now, the four changes, and printroute's replaceAsset (docs/api.md).
import { Type } from 'typebox'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import {
  CaseInsensitiveEnum,
  Nullable,
  named,
  OkOutcome,
  Outcome,
  outcomeResponse,
  UrlString,
} from './common.schema.ts'
import {
  AssetPrintAreaSchema,
  MetadataSchema,
  OrderSchema,
  orderEnvelope,
  RecipientRequestSchema,
} from './order.schema.ts'

const Availability = named(
  'ActionAvailability',
  Type.Object({ isAvailable: Type.Union([Type.Literal('Yes'), Type.Literal('No')]) }),
)

export const ActionsResponseSchema = outcomeResponse('OrderActionsResponse', OkOutcome, {
  cancel: Availability,
  changeRecipientDetails: Availability,
  changeShippingMethod: Availability,
  changeMetaData: Availability,
  // printroute's own, additive: whether some asset may be replaced now (POST .../actions/replaceAsset).
  replaceAsset: Availability,
  // printroute's own, additive: whether a draft may be confirmed or a hold released now (POST .../actions/confirm).
  confirm: Availability,
})

/**
 * Confirmed (a draft started, or a held order released, now or before), OnHold (a draft confirmed in the
 * account's pause window: only its id, as create answers), or ActionNotAvailable (neither a draft nor a held order).
 */
export const ConfirmResponseSchema = Type.Union([
  orderEnvelope('ConfirmOrderResponse', Outcome('ConfirmOutcome', ['Confirmed', 'ActionNotAvailable'] as const)),
  outcomeResponse('ConfirmOnHoldResponse', Outcome('ConfirmOnHoldOutcome', ['OnHold'] as const), {
    order: Type.Object({ id: Type.String() }),
  }),
])

/** Business refusals are answers like successes (HTTP 200 with the order), told apart by the outcome. */
export const CancelResponseSchema = orderEnvelope(
  'CancelOrderResponse',
  Outcome('CancelOutcome', ['Cancelled', 'FailedToCancel', 'ActionNotAvailable'] as const),
)

export const UpdateMetadataResponseSchema = orderEnvelope(
  'UpdateMetadataResponse',
  Outcome('UpdatedOutcome', ['Updated'] as const),
)

export const UpdateResponseSchema = outcomeResponse(
  'OrderUpdateResponse',
  Outcome('UpdateOutcome', ['Updated', 'PartiallyUpdated', 'FailedToUpdate', 'ActionNotAvailable'] as const),
  {
    shipmentUpdateResults: Type.Array(
      named('ShipmentUpdateResult', Type.Object({ shipmentId: Type.String(), successful: Type.Boolean() })),
    ),
    order: OrderSchema,
  },
)

export const WrappedRecipientSchema = Type.Object(
  {
    recipient: RecipientRequestSchema,
    // printroute's own, in the wrapped form only (the flat form is the recipient object itself).
    acceptUnverifiedAddress: Type.Optional(Nullable(Type.Boolean())),
  },
  { additionalProperties: false },
)
export type RecipientBody = Type.Static<typeof RecipientRequestSchema>

export const UpdateShippingMethodBodySchema = named(
  'UpdateShippingMethodRequest',
  Type.Object({ shippingMethod: CaseInsensitiveEnum(SHIPPING_METHODS) }, { additionalProperties: false }),
)

export const UpdateRecipientBodySchema = Type.Unknown({
  description:
    "The recipient object, as in create order; {recipient: {...}} also works, and takes printroute's " +
    'acceptUnverifiedAddress: true beside it to accept an address with a problem that stops delivery ' +
    '(docs/addresses.md).',
})

export const UpdateMetadataBodySchema = named(
  'UpdateMetadataRequest',
  Type.Object({ metadata: MetadataSchema }, { additionalProperties: false }),
)

export const ReplaceAssetBodySchema = named(
  'ReplaceAssetRequest',
  Type.Object(
    {
      itemId: Type.String({
        minLength: 1,
        maxLength: 40,
        description: "The item's id (`ori_...`, as the order's `items[].id` gives it).",
      }),
      printArea: AssetPrintAreaSchema,
      url: UrlString('Public http(s) URL of the new file, fetched and preflighted as an order asset is.'),
    },
    { additionalProperties: false },
  ),
)
export type ReplaceAssetBody = Type.Static<typeof ReplaceAssetBodySchema>

/** Updated, or ActionNotAvailable (allocation began, or the order stopped at another asset's failed file). */
export const ReplaceAssetResponseSchema = orderEnvelope(
  'ReplaceAssetResponse',
  Outcome('ReplaceAssetOutcome', ['Updated', 'ActionNotAvailable'] as const),
)
