// POST /files/preflight and GET /files/preflight/{id} (printroute's own, docs/api.md#preflight): a file checked
// against a product before it is ordered; the same report printroute makes of every order asset.
import { Type } from 'typebox'
import { PREFLIGHT_CODES, PREFLIGHT_STATUSES } from '../../domain/preflight.ts'
import { Nullable, named, Outcome, outcomeResponse, StringEnum, UrlString } from './common.schema.ts'
import { AssetPageCountSchema, AssetPrintAreaSchema, ItemAttributesSchema, ItemSkuSchema } from './order.schema.ts'

export const CreatePreflightRequestSchema = named(
  'CreatePreflightRequest',
  Type.Object(
    {
      url: UrlString('Public http(s) URL of the file (PDF or image), fetched exactly as an order would fetch it.'),
      sku: ItemSkuSchema,
      printArea: AssetPrintAreaSchema,
      pageCount: AssetPageCountSchema("The pages the file should have (books): checked against the product's limits."),
      attributes: ItemAttributesSchema,
    },
    { additionalProperties: false },
  ),
)
export type CreatePreflightRequest = Type.Static<typeof CreatePreflightRequestSchema>

export const PreflightIdParamsSchema = Type.Object({
  preflightId: Type.String({ maxLength: 40, description: 'Preflight ID, e.g. pfl_12.' }),
})

const ThumbnailFile = Type.String({ maxLength: 40, description: '<page>.png, e.g. 1.png.' })

export const PreflightThumbnailParamsSchema = Type.Object({
  preflightId: Type.String({ maxLength: 40, description: 'Preflight ID, e.g. pfl_12.' }),
  file: ThumbnailFile,
})

export const AssetThumbnailParamsSchema = Type.Object({
  orderId: Type.String({ maxLength: 40, description: 'Order ID, e.g. ord_12.' }),
  assetId: Type.String({ maxLength: 40, description: 'Asset ID, e.g. ast_40.' }),
  file: ThumbnailFile,
})

/** A thumbnail's answer: the PNG itself. */
export const PreflightThumbnailResponse = {
  description: 'The thumbnail, image/png.',
  content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
}

export const PreflightThumbnailSchema = named(
  'PreflightThumbnail',
  Type.Object({
    page: Type.Integer({ minimum: 1, description: '1-based PDF page; the thumbnail is pages/<page>.png.' }),
    width: Type.Integer({ minimum: 1, description: 'Pixels.' }),
    height: Type.Integer({ minimum: 1, description: 'Pixels.' }),
  }),
)

const ThumbnailsField = Type.Array(PreflightThumbnailSchema, {
  description:
    "A PDF's pages with a thumbnail (the first 4 and those an error names, 8 at most), with the trim, bleed and " +
    'safe lines drawn on them; empty for an image.',
})

export const PreflightCheckSchema = named(
  'PreflightCheck',
  Type.Object({
    code: StringEnum(PREFLIGHT_CODES, 'Stable code of the finding (docs/errors.md#preflight-checks).'),
    severity: StringEnum(['error', 'warning'] as const, 'error: no lab can print the file; warning: it prints.'),
    page: Type.Optional(Type.Integer({ minimum: 1, description: '1-based PDF page; absent for the whole file.' })),
    message: Type.String(),
    measured: Type.String({ description: 'What the file has.' }),
    required: Type.String({ description: 'What the product needs.' }),
  }),
)

export const PreflightFixSchema = named('PreflightFix', Type.Object({ code: Type.String(), message: Type.String() }))

/** One file's report: the status its checks make, the pages, the findings, the fixes, the SKUs it fits. */
export const PreflightReportFields = {
  status: StringEnum(
    PREFLIGHT_STATUSES,
    'Pending and Running until inspected; then Failed (an error), PassedWithWarnings or Passed.',
  ),
  pageCount: Type.Union([Type.Integer(), Type.Null()], { description: 'Pages of a PDF; null for an image.' }),
  checks: Type.Array(PreflightCheckSchema),
  fixes: Type.Array(PreflightFixSchema),
  validSkus: Type.Array(Type.String(), { description: 'The catalogue SKUs this file fits, sorted.' }),
  thumbnails: ThumbnailsField,
}

export const PreflightSchema = named(
  'Preflight',
  Type.Object({
    id: Type.String({ description: 'pfl_<number>' }),
    ...PreflightReportFields,
    request: Type.Object(
      {
        url: Type.String(),
        sku: Type.String(),
        printArea: Type.String(),
        pageCount: Type.Union([Type.Integer(), Type.Null()]),
        attributes: Type.Record(Type.String(), Type.String()),
      },
      { description: 'What was asked, in the catalogue spelling.' },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    expiresAt: Type.String({ format: 'date-time', description: 'After this the preflight is gone (404).' }),
  }),
)

export const CreatePreflightResponseSchema = outcomeResponse(
  'CreatePreflightResponse',
  Outcome('CreatePreflightOutcome', ['Created'] as const),
  { preflight: PreflightSchema },
)

export const PreflightResponseSchema = outcomeResponse(
  'PreflightResponse',
  Outcome('PreflightOutcome', ['Ok'] as const),
  {
    preflight: PreflightSchema,
  },
)

const Pixels = Type.Integer({ minimum: 0 })
const GuideBoxSchema = Type.Object({ left: Pixels, top: Pixels, width: Pixels, height: Pixels })

const PrintAreaGuidesSchema = Type.Object(
  {
    width: Pixels,
    height: Pixels,
    trim: GuideBoxSchema,
    face: GuideBoxSchema,
    safe: GuideBoxSchema,
  },
  {
    description:
      "The print area's lines on its print file, in print-file pixels (its preview is the same picture reduced): " +
      'the whole file is the bleed, trim is where it is cut, face the front (inside a canvas wrap band; the trim ' +
      'for flat products), safe where nothing important should be cut.',
  },
)

const OrderAssetPreflightSchema = named(
  'OrderAssetPreflight',
  Type.Object({
    itemId: Type.String(),
    assetId: Type.String(),
    printArea: Type.String(),
    status: StringEnum(
      ['Pending', 'Passed', 'PassedWithWarnings', 'Failed', 'NotChecked'] as const,
      'Pending until the asset is downloaded; then Failed (an error: the item is held with ' +
        'order.items.assets.PreflightFailed), PassedWithWarnings or Passed; NotChecked when the file was ' +
        'downloaded without a report (the check could not run, or the order predates preflight).',
    ),
    pageCount: PreflightReportFields.pageCount,
    checks: Type.Array(PreflightCheckSchema),
    fixes: Type.Array(PreflightFixSchema),
    guides: Nullable(PrintAreaGuidesSchema),
    thumbnails: ThumbnailsField,
  }),
)

export const OrderPreflightResponseSchema = outcomeResponse(
  'OrderPreflightResponse',
  Outcome('OrderPreflightOutcome', ['Ok'] as const),
  { preflight: Type.Array(OrderAssetPreflightSchema) },
)
