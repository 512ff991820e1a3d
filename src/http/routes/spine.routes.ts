// POST /products/spine: the spine width of a book (docs/wire-contract.md#spine). A static path, so it is matched before
// GET /products/{sku}, and on another method anyway.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { SpineService } from '../../services/spine.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import { SpineRequestSchema, SpineResponseSchema } from '../schemas/spine.schema.ts'

export function registerSpineRoutes(app: FastifyInstance, spine: SpineService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/products/spine',
    {
      config: { scope: 'products:read' },
      schema: {
        operationId: 'getSpineWidth',
        tags: ['products'],
        summary: 'Get the spine width of a book',
        description:
          'The width follows from the page count and the paper of the lab allocation picks for the destination ' +
          '(by shippingMethod when given, else the slowest method that reaches it).',
        body: SpineRequestSchema,
        response: { 200: SpineResponseSchema, 400: ErrorResponseSchema, 401: ErrorResponseSchema },
      },
    },
    async (request) => {
      const width = spine.spineWidth(request.body)
      return outcomeReply(request, 'Ok', {
        success: true,
        message:
          `${width.sku} with ${width.numberOfPages} pages to ${width.destinationCountryCode} ` +
          `(${width.shippingMethod}) is made by ${width.labCode} on ${width.paper}: the spine is ${width.widthMm} mm wide`,
        spineInfo: { widthMm: width.widthMm },
      })
    },
  )
}
