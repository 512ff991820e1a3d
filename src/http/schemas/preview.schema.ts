// POST /previews (printroute's own, docs/api.md#previews): an order item's shape in (an order's item as it is: the
// fields only orders use are checked, then ignored), a preview and a mockup per asset out; and the LowResolution
// warning, which quotes share.
import { Type } from 'typebox'
import { LOW_RESOLUTION } from '../../domain/resolution.ts'
import { SIZING_MODES } from '../../domain/shipping-methods.ts'
import {
  CaseInsensitiveEnum,
  Nullable,
  NullableString,
  named,
  Outcome,
  outcomeResponse,
  StringEnum,
  UrlString,
} from './common.schema.ts'
import {
  ASSET_MD5_HASH_PATTERN,
  AssetPageCountSchema,
  AssetPrintAreaSchema,
  ItemAttributesSchema,
  ItemSkuSchema,
  ORDER_LIMITS,
  RecipientCostRequestSchema,
} from './order.schema.ts'

export const ResolutionWarningSchema = named(
  'ResolutionWarning',
  Type.Object({
    code: StringEnum([LOW_RESOLUTION] as const, "The image prints below the product's minimum resolution."),
    printArea: Type.String(),
    effectiveDpi: Type.Integer({ description: 'Source pixels per printed inch, the smaller axis, rounded down.' }),
    minimumDpi: Type.Integer({ description: "The product's minimum (the catalogue's minimumDpi, 150 by default)." }),
    message: Type.String(),
  }),
)

/** A quote's warning names the quote item (its id, the same in every quote of the answer). */
export const QuoteWarningSchema = named(
  'QuoteWarning',
  Type.Object({
    code: StringEnum([LOW_RESOLUTION] as const),
    itemId: Type.String({ pattern: '^qit_[0-9a-f]{32}$' }),
    printArea: Type.String(),
    effectiveDpi: Type.Integer(),
    minimumDpi: Type.Integer(),
    message: Type.String(),
  }),
)

/** Fields of an order's item that a preview checks as an order would and then ignores. */
const ORDER_ONLY = 'Accepted so that an order item can be sent as it is; checked as on an order, then ignored.'

export const CreatePreviewRequestSchema = named(
  'CreatePreviewRequest',
  Type.Object(
    {
      merchantReference: Type.Optional(
        NullableString({ maxLength: ORDER_LIMITS.shortText, singleLine: true, description: ORDER_ONLY }),
      ),
      sku: ItemSkuSchema,
      copies: Type.Optional(Type.Integer({ minimum: 1, maximum: ORDER_LIMITS.maxCopies, description: ORDER_ONLY })),
      sizing: CaseInsensitiveEnum(SIZING_MODES),
      recipientCost: Type.Optional(
        Nullable(
          Type.Object(RecipientCostRequestSchema.properties, {
            additionalProperties: false,
            description: ORDER_ONLY,
          }),
        ),
      ),
      attributes: ItemAttributesSchema,
      assets: Type.Array(
        named(
          'PreviewAssetInput',
          Type.Object(
            {
              printArea: AssetPrintAreaSchema,
              url: UrlString('Public http(s) URL of the image, fetched exactly as an order would fetch it.'),
              md5Hash: Type.Optional(NullableString({ pattern: ASSET_MD5_HASH_PATTERN, description: ORDER_ONLY })),
              pageCount: AssetPageCountSchema(
                `${ORDER_ONLY} A page-priced product's page count must be within its limits.`,
              ),
            },
            { additionalProperties: false },
          ),
        ),
        { minItems: 1, maxItems: ORDER_LIMITS.maxAssetsPerItem },
      ),
    },
    { additionalProperties: false },
  ),
)
export type CreatePreviewRequest = Type.Static<typeof CreatePreviewRequestSchema>

const PreviewSchema = named(
  'Preview',
  Type.Object({
    printArea: Type.String(),
    previewUrl: Type.String({ description: 'Signed /files link to a JPEG of the print file, at most 800 px.' }),
    mockupUrl: Type.String({ description: 'Signed /files link to a JPEG of the product, at most 1200 px.' }),
    width: Type.Integer({ description: "The preview's width in pixels (the print area scaled down)." }),
    height: Type.Integer(),
    rotated: Type.Boolean({
      description: 'Whether the image is turned a quarter turn clockwise to suit the print area.',
    }),
    crop: Type.Object(
      { left: Type.Integer(), top: Type.Integer(), width: Type.Integer(), height: Type.Integer() },
      { description: 'The part of the source printed, in source pixels (after EXIF orientation).' },
    ),
    effectiveDpi: Type.Integer(),
    warnings: Type.Array(ResolutionWarningSchema),
    expiresAt: Type.String({ format: 'date-time', description: 'When the links stop working.' }),
  }),
)

export const PreviewResponseSchema = outcomeResponse(
  'PreviewResponse',
  Outcome('PreviewOutcome', ['Created'] as const),
  { previews: Type.Array(PreviewSchema) },
)
