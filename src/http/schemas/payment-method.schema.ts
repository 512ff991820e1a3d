// The account's card on file (docs/billing.md#a-card-on-file): GET, DELETE /account/payment-method and
// POST /account/payment-method/setup.
import { Type } from 'typebox'
import { Nullable, named, OkOutcome, outcomeResponse } from './common.schema.ts'

const SavedCardSchema = named(
  'SavedCard',
  Type.Object({
    brand: Nullable(Type.String({ description: "The card's brand as the provider names it (visa, mastercard, ...)." })),
    last4: Nullable(Type.String({ description: 'The last four digits of the card number.' })),
    expiryMonth: Nullable(Type.Integer({ minimum: 1, maximum: 12 })),
    expiryYear: Nullable(Type.Integer()),
    savedAt: Type.String({ format: 'date-time' }),
  }),
)

export const PaymentMethodResponseSchema = outcomeResponse('PaymentMethodResponse', OkOutcome, {
  card: Nullable(SavedCardSchema),
})

export const CardSetupResponseSchema = outcomeResponse('CardSetupResponse', OkOutcome, {
  setup: named(
    'CardSetup',
    Type.Object({
      url: Type.String({
        description: "The payment provider's page where the card is saved: send the cardholder there.",
      }),
      expiresAt: Type.String({ format: 'date-time', description: 'After this the page no longer saves a card.' }),
    }),
  ),
})
