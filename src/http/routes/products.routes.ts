// GET /products/{sku}: product details from the catalogue.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { ProductsService } from '../../services/products.service.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import { ProductResponseSchema } from '../schemas/product.schema.ts'

export function registerProductRoutes(app: FastifyInstance, products: ProductsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/products/:sku',
    {
      schema: {
        summary: 'Get product details',
        description: 'The SKU is matched case-insensitively and returned in the catalogue spelling.',
        params: Type.Object({ sku: Type.String({ maxLength: 100 }) }),
        response: { 200: ProductResponseSchema, 401: ErrorResponseSchema, 404: ErrorResponseSchema },
      },
    },
    async (request) => ({
      outcome: 'Ok',
      product: products.getProduct(request.params.sku),
      traceParent: request.traceParent,
    }),
  )
}
