// The account's billing (docs/api.md#account-billing), printroute's own, additive to the Prodigi API:
//   GET /account/billing    billing mode, currency, the prepaid balance or what an invoice account owes, price list
//   GET /account/invoices   the caller's environment's invoices and credit notes, newest first, with PDF links
//   GET /account/statements/{month}   that month's totals per currency, as the operator's statement sums them
// Both read the caller's account only, in the caller's environment (a Sandbox key sees no Live money).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { parseStatementMonth } from '../../domain/invoices.ts'
import { validationFailed } from '../../domain/outcomes.ts'
import type { InvoicesService } from '../../services/invoices.service.ts'
import { nextPageUrl } from '../paging.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import {
  ACCOUNT_INVOICES_DEFAULT_TOP,
  AccountBillingResponseSchema,
  AccountInvoicesQuerySchema,
  AccountInvoicesResponseSchema,
  AccountStatementParamsSchema,
  AccountStatementResponseSchema,
} from '../schemas/invoices.schema.ts'

function refuseMonth(month: string): never {
  throw validationFailed({ month: [{ code: 'InvalidFormat', providedValue: month, comparisonValue: 'YYYY-MM' }] })
}

export function registerAccountBillingRoutes(app: FastifyInstance, invoices: InvoicesService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/account/billing',
    {
      config: { scope: 'account:read' },
      schema: {
        operationId: 'getAccountBilling',
        tags: ['account'],
        summary: "The account's billing: mode, currency, prepaid balance or what is owed, price list",
        response: { 200: AccountBillingResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { billing: await invoices.accountBilling(request.caller) }),
  )

  api.get(
    '/account/invoices',
    {
      config: { scope: 'account:read' },
      schema: {
        operationId: 'listAccountInvoices',
        tags: ['account'],
        summary: "The account's invoices and credit notes in this environment, newest first, with links to their PDFs",
        querystring: AccountInvoicesQuerySchema,
        response: { 200: AccountInvoicesResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const top = request.query.top ?? ACCOUNT_INVOICES_DEFAULT_TOP
      const skip = request.query.skip ?? 0
      const { month } = request.query
      if (month !== undefined && !parseStatementMonth(month)) refuseMonth(month)
      const page = await invoices.listForAccount(request.caller, {
        top,
        skip,
        ...(month !== undefined ? { month } : {}),
      })
      return outcomeReply(request, 'Ok', {
        invoices: page.invoices,
        hasMore: page.hasMore,
        nextUrl: page.hasMore ? nextPageUrl(request, skip, top) : null,
      })
    },
  )

  api.get(
    '/account/statements/:month',
    {
      config: { scope: 'account:read' },
      schema: {
        operationId: 'getAccountStatement',
        tags: ['account'],
        summary: "The account's statement of a month in this environment: its invoices and credit notes, totalled",
        params: AccountStatementParamsSchema,
        response: { 200: AccountStatementResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { month } = request.params
      if (!parseStatementMonth(month)) refuseMonth(month)
      return outcomeReply(request, 'Ok', { statement: await invoices.accountStatement(request.caller, month) })
    },
  )
}
