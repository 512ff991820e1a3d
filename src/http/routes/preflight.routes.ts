// POST /files/preflight and GET /files/preflight/{id} (printroute's own, additive to the Prodigi API): a file
// checked against a product before it is ordered (docs/api.md#preflight); GET /orders/{id}/preflight: the same
// report of each of an order's assets, made after its download.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { PreflightService } from '../../services/print-files/preflight.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema, ErrorResponses } from '../schemas/common.schema.ts'
import { OrderIdParamsSchema } from '../schemas/order.schema.ts'
import {
  CreatePreflightRequestSchema,
  CreatePreflightResponseSchema,
  OrderPreflightResponseSchema,
  PreflightIdParamsSchema,
  PreflightResponseSchema,
} from '../schemas/preflight.schema.ts'

export function registerPreflightRoutes(app: FastifyInstance, preflight: PreflightService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/files/preflight',
    {
      config: { scope: 'quotes' },
      schema: {
        operationId: 'createPreflight',
        tags: ['preflight'],
        summary: 'Preflight a file',
        description:
          'Downloads the file like an order would (same address rules and size limit, 200 MiB by default) and ' +
          'answers at once with the preflight, Pending; GET it until its status is Passed, PassedWithWarnings or ' +
          'Failed. An unknown sku, a print area the product does not have, a page count outside its limits or a ' +
          'URL that cannot be downloaded is 400 naming the field. Kept 7 days.',
        body: CreatePreflightRequestSchema,
        response: {
          200: CreatePreflightResponseSchema,
          400: ErrorResponseSchema,
          401: ErrorResponseSchema,
          429: ErrorResponseSchema,
        },
      },
    },
    async (request) =>
      outcomeReply(request, 'Created', { preflight: await preflight.createPreflight(request.caller, request.body) }),
  )

  api.get(
    '/files/preflight/:preflightId',
    {
      config: { scope: 'quotes' },
      schema: {
        operationId: 'getPreflight',
        tags: ['preflight'],
        summary: 'Get a preflight',
        description:
          "The preflight's status and, once inspected, its report: pageCount, checks (codes in docs/errors.md), " +
          "fixes and validSkus. Another account's preflight, or one past expiresAt, is 404.",
        params: PreflightIdParamsSchema,
        response: { 200: PreflightResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', {
        preflight: await preflight.getPreflight(request.caller, request.params.preflightId),
      }),
  )

  api.get(
    '/orders/:orderId/preflight',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrderPreflight',
        tags: ['orders'],
        summary: "The preflight of each of the order's assets",
        description:
          "Each asset of each item, in the order's order, with its preflight: Pending until downloaded, then the " +
          "report's status, pageCount, checks and fixes, and the print area's guide lines (null without a spec). " +
          "Another account's order is 404.",
        params: OrderIdParamsSchema,
        response: { 200: OrderPreflightResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', {
        preflight: await preflight.orderPreflight(request.caller, request.params.orderId),
      }),
  )
}
