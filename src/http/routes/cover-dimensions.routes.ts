// GET /products/{sku}/cover-dimensions: a book's full-spread cover for a page count (docs/api.md#book-cover-dimensions).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { CoverDimensionsService } from '../../services/cover-dimensions.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import { CoverDimensionsQuerySchema, CoverDimensionsResponseSchema } from '../schemas/cover-dimensions.schema.ts'
import { ProductSkuParamsSchema } from '../schemas/product.schema.ts'

export function registerCoverDimensionsRoutes(app: FastifyInstance, covers: CoverDimensionsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/products/:sku/cover-dimensions',
    {
      config: { scope: 'products:read' },
      schema: {
        operationId: 'getCoverDimensions',
        tags: ['products'],
        summary: "Get a book's cover dimensions",
        description:
          'The full-spread cover (back, spine, front and the bleed round them) of a book with a spine, for a page ' +
          "count: the spine is the paper's of the lab named, else of the lab allocation picks for the destination.",
        params: ProductSkuParamsSchema,
        querystring: CoverDimensionsQuerySchema,
        response: {
          200: CoverDimensionsResponseSchema,
          400: ErrorResponseSchema,
          401: ErrorResponseSchema,
          404: ErrorResponseSchema,
        },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', {
        coverDimensions: covers.coverDimensions({ sku: request.params.sku, ...request.query }),
      }),
  )
}
