// The payment page of an order awaiting payment (hidden from the OpenAPI document: not part of the API).
import { Type } from 'typebox'
import { TraceParent } from './common.schema.ts'

export const PaymentParamsSchema = Type.Object({ orderId: Type.String({ maxLength: 40 }) })

export const TopUpParamsSchema = Type.Object({ topUpId: Type.String({ maxLength: 40 }) })

/** Where the payer comes back from the provider's page: `result` is what the provider's page said (paid or cancelled). */
export const ReturnQuerySchema = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 100 })),
  result: Type.Optional(Type.String({ maxLength: 20 })),
})

export const PaymentPageQuerySchema = Type.Object({ token: Type.Optional(Type.String({ maxLength: 100 })) })

export const PayRequestSchema = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 100 }),
    amount: Type.String({ pattern: '^\\d{1,12}\\.\\d{2}$', description: 'The amount shown on the page.' }),
    card: Type.Object(
      {
        number: Type.String({ pattern: '^[0-9 -]{12,30}$' }),
        expiry: Type.String({ pattern: '^\\d{2}/\\d{2}$', description: 'MM/YY' }),
        cvc: Type.String({ pattern: '^\\d{3,4}$' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

export const PayResponseSchema = Type.Object({
  outcome: Type.Union([
    Type.Literal('Paid'),
    Type.Literal('Declined'),
    Type.Literal('NothingDue'),
    Type.Literal('AmountChanged'),
  ]),
  message: Type.String(),
  amount: Type.Union([Type.String(), Type.Null()]),
  currency: Type.Union([Type.String(), Type.Null()]),
  traceParent: TraceParent,
})
