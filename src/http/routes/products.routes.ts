// GET /products/{sku}: product details from the catalogue; GET /products: the catalogue's products, searched
// and paged (printroute's addition).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { PRODUCT_LIST_DEFAULT_TOP } from '../../domain/limits.ts'
import type { ProductsService } from '../../services/products.service.ts'
import { nextPageUrl } from '../paging.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import {
  ListProductsQuerySchema,
  ProductListResponseSchema,
  ProductResponseSchema,
  ProductSkuParamsSchema,
} from '../schemas/product.schema.ts'

export function registerProductRoutes(app: FastifyInstance, products: ProductsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/products/:sku',
    {
      config: { scope: 'products:read' },
      schema: {
        operationId: 'getProduct',
        tags: ['products'],
        summary: 'Get product details',
        description: 'The SKU is matched case-insensitively and returned in the catalogue spelling.',
        params: ProductSkuParamsSchema,
        response: { 200: ProductResponseSchema, 401: ErrorResponseSchema, 404: ErrorResponseSchema },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', {
        product: products.getProductFor(request.params.sku, request.caller),
      }),
  )

  api.get(
    '/products',
    {
      config: { scope: 'products:read' },
      schema: {
        operationId: 'listProducts',
        tags: ['products'],
        summary: 'List products, by SKU, optionally searched',
        description:
          'Each product with its details, print areas by name, the labs that make it and the countries it ships to.',
        querystring: ListProductsQuerySchema,
        response: { 200: ProductListResponseSchema, 400: ErrorResponseSchema, 401: ErrorResponseSchema },
      },
    },
    async (request) => {
      const top = request.query.top ?? PRODUCT_LIST_DEFAULT_TOP
      const skip = request.query.skip ?? 0
      const page = products.listProducts({ search: request.query.search, top, skip }, request.caller)
      return outcomeReply(request, 'Ok', {
        products: page.products,
        hasMore: page.hasMore,
        nextUrl: page.hasMore ? nextPageUrl(request, skip, top) : null,
      })
    },
  )
}
