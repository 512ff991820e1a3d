// GET /orders/{orderId}/print-files (printroute's own, additive to the Prodigi API): each print file of the order
// with its state, the geometry that made it from its source and a link to its preview (docs/print-files.md).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { PrintFilesService } from '../../services/print-files.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import { OrderIdParamsSchema } from '../schemas/order.schema.ts'
import { PrintFilesResponseSchema } from '../schemas/print-files.schema.ts'

export function registerPrintFileRoutes(app: FastifyInstance, printFiles: PrintFilesService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/orders/:orderId/print-files',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listPrintFiles',
        tags: ['orders'],
        summary: "The order's print files, their placement on the source and their previews",
        params: OrderIdParamsSchema,
        response: { 200: PrintFilesResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', {
        printFiles: await printFiles.listPrintFiles(request.caller, request.params.orderId),
      }),
  )
}
