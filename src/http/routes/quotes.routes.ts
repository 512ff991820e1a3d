// POST /quotes: prices items per shipping method without creating an order (docs/wire-contract.md#quotes).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { PreviewsService } from '../../services/previews.service.ts'
import type { QuotesService } from '../../services/quotes.service.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import { CreateQuoteRequestSchema, QuoteResponseSchema } from '../schemas/quote.schema.ts'

export function registerQuoteRoutes(app: FastifyInstance, quotes: QuotesService, previews: PreviewsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/quotes',
    {
      schema: {
        operationId: 'createQuote',
        tags: ['quotes'],
        summary: 'Quote items',
        description:
          'One quote per shipping method: the requested one, or every method that can serve all items to the ' +
          'destination. Allocation and prices are those an order of the same items would get. Outcome Created, ' +
          'or CreatedWithIssues with destinationCountryCode.UsSalesTaxWarning where sales tax is not computed. ' +
          'Assets with a url are downloaded and checked: LowResolution warnings under `warnings`.',
        body: CreateQuoteRequestSchema,
        response: { 200: QuoteResponseSchema, 400: ErrorResponseSchema, 401: ErrorResponseSchema },
      },
    },
    async (request) => {
      const result = quotes.createQuote(request.caller, request.body)
      const warnings = await previews.quoteWarnings(request.body.items, result.quotes[0]?.items ?? [])
      return {
        outcome: result.outcome,
        quotes: result.quotes,
        issues: result.issues,
        traceParent: request.traceParent,
        // printroute's addition, after the contract's keys (docs/wire-contract.md#key-order).
        ...(warnings ? { warnings } : {}),
      }
    },
  )
}
