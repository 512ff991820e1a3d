// POST /previews (printroute's own, additive to the Prodigi API): what an item will print as and look like, before
// it is ordered (docs/api.md#previews).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { PreviewsService } from '../../services/previews.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import { CreatePreviewRequestSchema, PreviewResponseSchema } from '../schemas/preview.schema.ts'

export function registerPreviewRoutes(app: FastifyInstance, previews: PreviewsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/previews',
    {
      config: { scope: 'quotes' },
      schema: {
        operationId: 'createPreview',
        tags: ['previews'],
        summary: 'Preview and mock up an item',
        description:
          'Downloads each asset like an order would and answers, per asset, a reduced image of exactly the print ' +
          'file an order would get, a mockup of the product, the crop in source pixels, the effective resolution ' +
          'and LowResolution warnings. The body is an order item: its order-only fields (copies, ' +
          'merchantReference...) are checked as on an order and ignored. Results are cached for 24 hours by image, ' +
          'SKU, attributes, sizing and the catalogue entry; the links work until expiresAt. Limits: 1 to 20 ' +
          'assets; each image at most the download limit (200 MiB by default) and 150 megapixels ' +
          '(ImageTooLarge); one preview rendered at a time per process; each request counts once against the ' +
          "key's rate limit (600 a minute by default).",
        body: CreatePreviewRequestSchema,
        response: {
          200: PreviewResponseSchema,
          400: ErrorResponseSchema,
          401: ErrorResponseSchema,
          429: ErrorResponseSchema,
        },
      },
    },
    async (request) =>
      outcomeReply(request, 'Created', {
        previews: await previews.createPreviews(request.caller.environment, request.body),
      }),
  )
}
