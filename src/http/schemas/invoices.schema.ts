// GET /orders/{orderId}/invoices: the invoices and credit notes of an order, each with a signed PDF link
// (docs/billing.md#invoices).
import { Type } from 'typebox'
import { MoneySchema, Nullable, named, OkOutcome, outcomeResponse, StringEnum } from './common.schema.ts'

const InvoiceSchema = named(
  'Invoice',
  Type.Object({
    number: Type.String({
      description:
        'Gapless per series: Live invoices INV-000001..., Live credit notes CN-000001..., Sandbox SBX-INV-000001... ' +
        "and SBX-CN-000001.... The charge's prodigiInvoiceNumber holds it.",
    }),
    kind: StringEnum(['Invoice', 'CreditNote'] as const, 'A Refund charge gets a credit note, any other an invoice.'),
    chargeId: Type.String(),
    issuedAt: Type.String({ format: 'date-time' }),
    environment: StringEnum(['live', 'sandbox'] as const),
    currency: Type.String(),
    totalCost: MoneySchema,
    totalTax: MoneySchema,
    pdfUrl: Type.String({
      description:
        "A signed link to the PDF, valid for the file link lifetime (7 days by default) on this environment's " +
        'address; no API key needed. Expired: 410 LinkExpired (list the invoices again for a fresh link).',
    }),
  }),
)

export const InvoicesResponseSchema = outcomeResponse('InvoicesResponse', OkOutcome, {
  invoices: Type.Array(InvoiceSchema),
})

/** Most documents one page of GET /account/invoices holds, and how many it holds by default. */
export const ACCOUNT_INVOICES_MAX_TOP = 100
export const ACCOUNT_INVOICES_DEFAULT_TOP = 25

export const AccountInvoicesQuerySchema = Type.Object(
  {
    month: Type.Optional(
      Type.String({
        maxLength: 7,
        description: 'YYYY-MM: only the documents issued in that month (UTC), as a statement lists them.',
      }),
    ),
    top: Type.Optional(
      Type.Integer({ minimum: 1, maximum: ACCOUNT_INVOICES_MAX_TOP, default: ACCOUNT_INVOICES_DEFAULT_TOP }),
    ),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
)

const AccountInvoiceSchema = named(
  'AccountInvoice',
  Type.Object({
    ...InvoiceSchema.properties,
    orderId: Type.String({ description: 'The order the document was issued for (ord_<number>).' }),
  }),
)

export const AccountInvoicesResponseSchema = outcomeResponse('AccountInvoicesResponse', OkOutcome, {
  invoices: Type.Array(AccountInvoiceSchema),
  hasMore: Type.Boolean(),
  nextUrl: Nullable(Type.String({ description: 'The next (older) page; null on the last page.' })),
})

const AccountBillingSchema = named(
  'AccountBilling',
  Type.Object({
    environment: StringEnum(['live', 'sandbox'] as const, "The caller's environment."),
    billingMode: StringEnum(
      ['invoice', 'prepaid'] as const,
      'How Live charges are settled: invoice (billed afterwards) or prepaid (taken from the balance).',
    ),
    currency: Type.String({ description: 'The billing currency (ISO 4217): orders are charged in it.' }),
    // Prepaid accounts, with a Live key: the balance; null for invoice accounts and on Sandbox.
    balance: Nullable(MoneySchema),
    // Invoice accounts, with a Live key: what the account owes, its Live invoices less credit notes and less what was
    // paid by card for orders its credit limit held (docs/billing.md#credit-limits); null for prepaid accounts and on
    // Sandbox.
    openAmount: Nullable(MoneySchema),
    priceList: Nullable(
      Type.String({ description: "The catalogue price list the account buys on; null: the catalogue's default." }),
    ),
    // Invoice accounts, with a Live key: the most the open amount may reach before a Live order waits for payment;
    // null when the account has no limit, for prepaid accounts and on Sandbox (docs/billing.md#credit-limits).
    creditLimit: Nullable(MoneySchema),
  }),
)

export const AccountBillingResponseSchema = outcomeResponse('AccountBillingResponse', OkOutcome, {
  billing: AccountBillingSchema,
})

export const AccountStatementParamsSchema = Type.Object({
  month: Type.String({ maxLength: 7, description: 'YYYY-MM: the month, in UTC.' }),
})

const StatementTotalsSchema = named(
  'StatementTotals',
  Type.Object({
    currency: Type.String(),
    invoiced: Type.String({ description: "The month's invoices, summed (decimal, two places)." }),
    credited: Type.String({ description: "The month's credit notes, summed (negative or 0.00)." }),
    tax: Type.String({ description: 'The tax in both.' }),
    net: Type.String({ description: 'invoiced + credited.' }),
  }),
)

export const AccountStatementResponseSchema = outcomeResponse('AccountStatementResponse', OkOutcome, {
  statement: named(
    'AccountStatement',
    Type.Object({
      month: Type.String(),
      environment: StringEnum(['live', 'sandbox'] as const, "The caller's environment, whose documents these are."),
      documentCount: Type.Integer({ description: 'The invoices and credit notes issued in the month.' }),
      totals: Type.Array(StatementTotalsSchema, { description: 'One per currency; empty for a month with none.' }),
    }),
  ),
})
