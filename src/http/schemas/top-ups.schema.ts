// Top-ups of a prepaid balance asked for by the merchant (docs/api.md#top-ups), printroute's own, additive.
import { Type } from 'typebox'
import { Nullable, named, OkOutcome, Outcome, outcomeResponse, StringEnum } from './common.schema.ts'

export const TopUpRequestSchema = Type.Object(
  {
    amount: Type.String({
      maxLength: 20,
      description:
        'What to add to the balance, in the account\'s billing currency, as the API writes money ("250.00"): more ' +
        'than 0, at most 999999.99.',
    }),
  },
  { additionalProperties: false },
)

export const TopUpParamsSchema = Type.Object({ id: Type.String({ maxLength: 40, description: 'top_...' }) })

const TopUpFields = {
  id: Type.String({ description: 'top_...' }),
  amount: Type.String({ description: 'Decimal, two places.' }),
  currency: Type.String({ description: "The account's billing currency (ISO 4217)." }),
  status: StringEnum(
    ['open', 'succeeded', 'expired', 'failed'] as const,
    'open until paid (succeeded: the balance was credited) or until its link expired unpaid.',
  ),
  created: Type.String({ description: 'ISO 8601, UTC.' }),
  expiresAt: Type.String({ description: 'Until when its link takes a payment (24 hours after it was asked for).' }),
  completedAt: Nullable(Type.String({ description: 'When it was paid or expired.' })),
}

export const TopUpSchema = named('TopUp', Type.Object(TopUpFields))

export const CreatedTopUpSchema = named(
  'CreatedTopUp',
  Type.Object({
    ...TopUpFields,
    url: Type.String({
      description:
        'Where to pay it: a printroute link that sends the payer to the card page (given once; keep it private).',
    }),
  }),
)

export const CreatedTopUpResponseSchema = outcomeResponse(
  'CreatedTopUpResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  { topUp: CreatedTopUpSchema },
)

export const TopUpResponseSchema = outcomeResponse('TopUpResponse', OkOutcome, { topUp: TopUpSchema })
