// POST /files/preflight and GET /files/preflight/{id} (printroute's own, additive to the Prodigi API): a file
// checked against a product before it is ordered (docs/api.md#preflight); GET /orders/{id}/preflight: the same
// report of each of an order's assets, made after its download.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { ServiceError } from '../../domain/outcomes.ts'
import type { PreflightService } from '../../services/print-files/preflight.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema, ErrorResponses } from '../schemas/common.schema.ts'
import { OrderIdParamsSchema } from '../schemas/order.schema.ts'
import {
  AssetThumbnailParamsSchema,
  CreatePreflightRequestSchema,
  CreatePreflightResponseSchema,
  OrderPreflightResponseSchema,
  PreflightIdParamsSchema,
  PreflightResponseSchema,
  PreflightThumbnailParamsSchema,
  PreflightThumbnailResponse,
} from '../schemas/preflight.schema.ts'

/** The page of a thumbnail's file name, `<page>.png`; anything else is no thumbnail (404). */
function thumbnailPage(file: string): number {
  const match = /^([1-9][0-9]{0,5})\.png$/i.exec(file)
  if (!match) throw new ServiceError('EntityNotFound', `No thumbnail ${file}`)
  return Number(match[1])
}

function sendThumbnail(reply: FastifyReply, png: Buffer) {
  // Private: a thumbnail shows the account's file. Kept a minute in the browser: a report does not change.
  return reply.type('image/png').header('cache-control', 'private, max-age=60').send(png)
}

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

  registerThumbnailRoutes(app, preflight)
}

/** The page thumbnails with the trim, bleed and safe lines (docs/print-files.md#page-thumbnails). */
function registerThumbnailRoutes(app: FastifyInstance, preflight: PreflightService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/files/preflight/:preflightId/pages/:file',
    {
      config: { scope: 'quotes' },
      schema: {
        operationId: 'getPreflightPageThumbnail',
        tags: ['preflight'],
        summary: "A page thumbnail of a preflight's PDF",
        description:
          "PNG of one page listed in the preflight's thumbnails (at most 240 px on the long side), with the trim " +
          '(red), bleed (blue, dashed) and safe area (green, dotted) drawn on it; the file name is <page>.png. ' +
          "Another account's preflight, one past expiresAt, or a page without a thumbnail is 404.",
        params: PreflightThumbnailParamsSchema,
        response: { 200: PreflightThumbnailResponse, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const page = thumbnailPage(request.params.file)
      return sendThumbnail(reply, await preflight.preflightThumbnail(request.caller, request.params.preflightId, page))
    },
  )

  api.get(
    '/orders/:orderId/assets/:assetId/pages/:file',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrderAssetPageThumbnail',
        tags: ['orders'],
        summary: "A page thumbnail of an order asset's PDF",
        description:
          "PNG of one page listed in the asset's preflight thumbnails (GET /orders/{id}/preflight), with the trim, " +
          "bleed and safe lines as a preflight's; the file name is <page>.png. Another account's order, an asset " +
          'of another order, or a page without a thumbnail (or deleted with the asset by the retention) is 404.',
        params: AssetThumbnailParamsSchema,
        response: { 200: PreflightThumbnailResponse, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { orderId, assetId, file } = request.params
      const png = await preflight.assetThumbnail(request.caller, orderId, assetId, thumbnailPage(file))
      return sendThumbnail(reply, png)
    },
  )
}
