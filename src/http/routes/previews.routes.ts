// POST /previews (printroute's own, additive to the Prodigi API): what an item will print as and look like, before
// it is ordered (docs/api.md#previews).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { PreviewsService } from '../../services/previews.service.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import { CreatePreviewRequestSchema, PreviewResponseSchema } from '../schemas/preview.schema.ts'

export function registerPreviewRoutes(app: FastifyInstance, previews: PreviewsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/previews',
    {
      schema: {
        operationId: 'createPreview',
        tags: ['previews'],
        summary: 'Preview and mock up an item',
        description:
          'Downloads each asset like an order would and answers, per asset, a reduced image of exactly the print ' +
          'file an order would get, a mockup of the product, the crop in source pixels, the effective resolution ' +
          'and LowResolution warnings. Results are cached for 24 hours by image, SKU, attributes and sizing.',
        body: CreatePreviewRequestSchema,
        response: {
          200: PreviewResponseSchema,
          400: ErrorResponseSchema,
          401: ErrorResponseSchema,
          429: ErrorResponseSchema,
        },
      },
    },
    async (request) => ({
      outcome: 'Created' as const,
      previews: await previews.createPreviews(request.caller.environment, request.body),
      traceParent: request.traceParent,
    }),
  )
}
