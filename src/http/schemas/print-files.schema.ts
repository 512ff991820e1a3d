// GET /orders/{orderId}/print-files: each print file of an order, its geometry and its preview link
// (docs/print-files.md).
import { Type } from 'typebox'
import { SIZING_MODES } from '../../domain/shipping-methods.ts'
import { Nullable, named, OkOutcome, outcomeResponse, StringEnum } from './common.schema.ts'

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

const PrintFileSchema = named(
  'PrintFile',
  Type.Object({
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
  }),
)

export const PrintFilesResponseSchema = outcomeResponse('PrintFilesResponse', OkOutcome, {
  printFiles: Type.Array(PrintFileSchema),
})
