// POST /quotes: prices items per shipping method without creating an order (docs/wire-contract.md#quotes), and
// keeps each quote so an order can be charged its prices (docs/api.md#price-locked-quotes);
// GET /quotes/{id}/routing: how a quote's items were allocated to labs.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { PreviewsService } from '../../services/previews.service.ts'
import type { QuotesService } from '../../services/quotes.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import { CreateQuoteRequestSchema, QuoteResponseSchema } from '../schemas/quote.schema.ts'
import { QuoteIdParamsSchema, RoutingResponseSchema } from '../schemas/routing.schema.ts'

export function registerQuoteRoutes(app: FastifyInstance, quotes: QuotesService, previews: PreviewsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/quotes',
    {
      config: { scope: 'quotes' },
      schema: {
        operationId: 'createQuote',
        tags: ['quotes'],
        summary: 'Quote items',
        description:
          'One quote per shipping method: the requested one, or every method that can serve all items to the ' +
          'destination. Allocation and prices are those an order of the same items would get. Outcome Created, ' +
          'or CreatedWithIssues with destinationCountryCode.UsSalesTaxWarning where sales tax is not computed. ' +
          'Each quote has an id: an order created with it as quoteId before expiresAt is charged its prices ' +
          "(usableForOrders: only a quote in the account's billing currency can lock an order). " +
          'Assets with a url are downloaded and checked: LowResolution warnings under `warnings`.',
        body: CreateQuoteRequestSchema,
        response: { 200: QuoteResponseSchema, 400: ErrorResponseSchema, 401: ErrorResponseSchema },
      },
    },
    async (request) => {
      // Live quotes leave out the labs that take no new work now, as an order made now would be allocated.
      const unavailableLabs = await quotes.unavailableLabs(request.caller)
      const prepared = quotes.prepareQuotes({ ...request.caller, unavailableLabs }, request.body)
      // The warnings name the quote's item ids, so the quotes are priced first; a URL that cannot be downloaded
      // makes the answer a 400, so they are stored only after the check, and a refused request stores none.
      const warnings = await previews.quoteWarnings(request.body.items, prepared.result.quotes[0]?.quote.items ?? [])
      const result = await quotes.storeQuotes(request.caller, prepared)
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

  api.get(
    '/quotes/:quoteId/routing',
    {
      config: { scope: 'quotes' },
      schema: {
        operationId: 'getQuoteRouting',
        tags: ['quotes'],
        summary: "Explain a quote's routing",
        description:
          "How the quote's items were allocated to labs, as worked out when the quote was made: per item the " +
          'labs considered with their costs and the labs excluded with the reason, the chosen plan, the cheapest ' +
          'plan from one lab and what the split saved.',
        params: QuoteIdParamsSchema,
        response: {
          200: RoutingResponseSchema,
          400: ErrorResponseSchema,
          401: ErrorResponseSchema,
          404: ErrorResponseSchema,
        },
      },
    },
    async (request) => {
      const routing = await quotes.quoteRouting(request.caller, request.params.quoteId)
      return outcomeReply(request, 'Ok', { routing: { orderId: null, ...routing } })
    },
  )
}
