// GET /orders/{orderId}/invoices: the invoices and credit notes of an order, each with a signed PDF link
// (docs/billing.md#invoices).
import { Type } from 'typebox'
import { MoneySchema, named, OkOutcome, outcomeResponse, StringEnum } from './common.schema.ts'

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
