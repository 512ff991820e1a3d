// GET /orders/{orderId}/print-files (printroute's own, additive to the Prodigi API): each print file of the order
// with its state, the geometry that made it from its source and a link to its preview (docs/print-files.md).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { SIZING_MODES } from '../../domain/shipping-methods.ts'
import type { PrintFilesService } from '../../services/print-files.service.ts'
import { ErrorResponseSchema, Nullable, StringEnum, TraceParent } from '../schemas/common.schema.ts'
import { OrderIdParamsSchema } from '../schemas/order.schema.ts'

const Pixels = Type.Integer({ minimum: 0 })

const SizeSchema = Type.Object({ width: Pixels, height: Pixels })

const MarginsSchema = Type.Object(
  { top: Pixels, right: Pixels, bottom: Pixels, left: Pixels },
  { description: 'fitPrintArea: the white borders of the print file, in print-area pixels.' },
)

const PlacementSchema = Type.Object(
  {
    left: Pixels,
    top: Pixels,
    width: Pixels,
    height: Pixels,
    margins: Nullable(MarginsSchema),
  },
  {
    description:
      'The part of the source that is printed, in source pixels (after EXIF orientation, before the quarter ' +
      'turn): the crop for fillPrintArea, the whole source otherwise.',
  },
)

const PrintFileSchema = Type.Object({
  shipmentId: Type.String(),
  labCode: Type.String(),
  itemId: Type.String(),
  assetId: Type.String(),
  printArea: Type.String(),
  format: Type.String({ description: 'jpeg, png, tiff or pdf (books are passed on as they are).' }),
  status: StringEnum(['pending', 'rendered', 'failed'] as const),
  failureReason: Nullable(Type.String()),
  width: Nullable(Pixels),
  height: Nullable(Pixels),
  sizing: StringEnum(SIZING_MODES),
  rotated: Nullable(Type.Boolean()),
  source: Nullable(SizeSchema),
  placement: Nullable(PlacementSchema),
  previewUrl: Nullable(Type.String()),
})

export const PrintFilesResponseSchema = Type.Object({
  outcome: Type.Literal('Ok'),
  printFiles: Type.Array(PrintFileSchema),
  traceParent: TraceParent,
})

const errors = { 400: ErrorResponseSchema, 401: ErrorResponseSchema, 404: ErrorResponseSchema }

export function registerPrintFileRoutes(app: FastifyInstance, printFiles: PrintFilesService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/orders/:orderId/print-files',
    {
      schema: {
        summary: "The order's print files, their placement on the source and their previews",
        params: OrderIdParamsSchema,
        response: { 200: PrintFilesResponseSchema, ...errors },
      },
    },
    async (request) => ({
      outcome: 'Ok' as const,
      printFiles: await printFiles.listPrintFiles(request.caller, request.params.orderId),
      traceParent: request.traceParent,
    }),
  )
}
