// Claims about shipped work (docs/claims.md): the categories, evidence photos, claims and their listing. The claim is
// domain/claims.ts's ClaimView, keys in its order; the rules a new claim is held to are the claims service's
// (domain/claim-rules.ts), which names each refused field, so the request schema only gives shapes and lengths.
import { Type } from 'typebox'
import {
  CLAIM_CATEGORY_NAMES,
  CLAIM_RESOLUTIONS,
  CLAIM_STATUSES,
  LAB_ANSWERS,
  MAX_CLAIM_DESCRIPTION_LENGTH,
  MAX_EVIDENCE_BYTES,
  MAX_EVIDENCE_PER_ITEM,
  PREFERRED_RESOLUTIONS,
} from '../../domain/claims.ts'
import {
  CaseInsensitiveEnum,
  MoneySchema,
  Nullable,
  named,
  OkOutcome,
  Outcome,
  outcomeResponse,
  StringEnum,
} from './common.schema.ts'

/** Items a claim may name: as many as an order has. */
export const MAX_CLAIM_ITEMS = 100

export const ClaimCategorySchema = named(
  'ClaimCategory',
  Type.Object({
    category: StringEnum(CLAIM_CATEGORY_NAMES),
    description: Type.String(),
    labAtFault: Type.Boolean({ description: 'The lab made the fault: an upheld claim counts against its quality.' }),
    photosRequired: Type.Boolean({ description: `1 to ${MAX_EVIDENCE_PER_ITEM} photos per item are required.` }),
    wholeShipment: Type.Boolean({ description: 'Claimed for a whole parcel (shipmentId), not items.' }),
  }),
)

export const ClaimCategoriesResponseSchema = outcomeResponse('ClaimCategoriesResponse', OkOutcome, {
  categories: Type.Array(ClaimCategorySchema),
})

export const EvidenceSchema = named(
  'ClaimEvidence',
  Type.Object({
    id: Type.String({ description: "Evidence ID, evd_<number>: name it in a claim item's evidence." }),
    contentType: StringEnum(['image/jpeg', 'image/png'] as const),
    width: Type.Integer(),
    height: Type.Integer(),
    bytes: Type.Integer({ description: 'The size kept: the photo re-encoded without its metadata.' }),
    expiresAt: Type.String({ description: 'Deleted then unless a claim uses it (a day after upload).' }),
  }),
)

export const UploadEvidenceResponseSchema = outcomeResponse(
  'UploadEvidenceResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  { evidence: EvidenceSchema },
)

/** The raw photo of POST /claims/evidence, for the OpenAPI document (the route's own parsers read it). */
export const EvidenceUploadBody = {
  description: `The photo itself, image/jpeg or image/png, at most ${MAX_EVIDENCE_BYTES} bytes.`,
  required: true,
  content: {
    'image/jpeg': { schema: { type: 'string', format: 'binary' } },
    'image/png': { schema: { type: 'string', format: 'binary' } },
  },
}

export const EvidenceImageResponse = {
  description: 'The photo as kept (image/jpeg or image/png).',
  content: {
    'image/jpeg': { schema: { type: 'string', format: 'binary' } },
    'image/png': { schema: { type: 'string', format: 'binary' } },
  },
}

export const EvidenceIdParamsSchema = Type.Object({
  evidenceId: Type.String({ maxLength: 40, description: 'Evidence ID, e.g. evd_12.' }),
})

export const ClaimIdParamsSchema = Type.Object({
  claimId: Type.String({ maxLength: 40, description: 'Claim ID, e.g. clm_7.' }),
})

const Description = Type.String({
  minLength: 1,
  maxLength: MAX_CLAIM_DESCRIPTION_LENGTH,
  description: `What is wrong, 1 to ${MAX_CLAIM_DESCRIPTION_LENGTH} characters.`,
})

export const CreateClaimRequestSchema = named(
  'CreateClaimRequest',
  Type.Object(
    {
      items: Type.Optional(
        Type.Array(
          Type.Object(
            {
              itemId: Type.String({ maxLength: 40, description: 'The order item, ori_<number>.' }),
              category: CaseInsensitiveEnum(CLAIM_CATEGORY_NAMES.filter((name) => name !== 'PackageMissing')),
              description: Description,
              evidence: Type.Optional(
                Type.Array(Type.String({ maxLength: 40 }), {
                  maxItems: MAX_EVIDENCE_PER_ITEM,
                  description: `Uploaded photos (evd_ ids), at most ${MAX_EVIDENCE_PER_ITEM}; required by some categories.`,
                }),
              ),
            },
            { additionalProperties: false },
          ),
          { minItems: 1, maxItems: MAX_CLAIM_ITEMS, description: 'Item claims: the items of one lab, each once.' },
        ),
      ),
      category: Type.Optional(
        CaseInsensitiveEnum(['PackageMissing'] as const, 'A missing parcel: with shipmentId, without items.'),
      ),
      shipmentId: Type.Optional(Type.String({ maxLength: 40, description: 'The missing parcel, shp_<number>.' })),
      description: Type.Optional(Description),
      preferredResolution: Type.Optional(CaseInsensitiveEnum(PREFERRED_RESOLUTIONS, 'What the merchant asks for.')),
    },
    { additionalProperties: false },
  ),
)

const ClaimItemSchema = named(
  'ClaimItem',
  Type.Object({
    itemId: Type.String(),
    shipmentId: Type.String(),
    category: StringEnum(CLAIM_CATEGORY_NAMES),
    description: Type.String(),
    evidence: Type.Array(Type.String(), {
      description: 'The photos, evd_ ids (GET /v4.0/claims/evidence/{id}/image).',
    }),
  }),
)

export const ClaimSchema = named(
  'Claim',
  Type.Object({
    id: Type.String({ description: 'Claim ID, clm_<number>.' }),
    orderId: Type.String(),
    status: StringEnum(CLAIM_STATUSES),
    shipmentId: Nullable(Type.String({ description: 'The parcel of a PackageMissing claim; null for item claims.' })),
    items: Type.Array(ClaimItemSchema),
    preferredResolution: Nullable(StringEnum(PREFERRED_RESOLUTIONS)),
    resolution: Nullable(
      Type.Object({
        type: StringEnum(CLAIM_RESOLUTIONS),
        note: Nullable(Type.String()),
        resolvedAt: Type.String(),
        reprintShipmentId: Nullable(Type.String()),
        creditNote: Nullable(Type.String()),
        amount: Nullable(MoneySchema),
      }),
    ),
    rejection: Nullable(Type.Object({ reason: Type.String(), rejectedAt: Type.String() })),
    labAnswer: Nullable(
      Type.Object({ answer: StringEnum(LAB_ANSWERS), comment: Nullable(Type.String()), answeredAt: Type.String() }),
    ),
    createdAt: Type.String(),
    lastUpdated: Type.String(),
  }),
)

export const CreateClaimResponseSchema = outcomeResponse(
  'CreateClaimResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  { claim: ClaimSchema },
)

export const ClaimResponseSchema = outcomeResponse('ClaimResponse', OkOutcome, { claim: ClaimSchema })

export const RetractClaimResponseSchema = outcomeResponse(
  'RetractClaimResponse',
  Outcome('UpdatedOutcome', ['Updated'] as const),
  { claim: ClaimSchema },
)

export const CLAIM_LIST_MAX_TOP = 100
export const CLAIM_LIST_DEFAULT_TOP = 10

export const ListClaimsQuerySchema = Type.Object(
  {
    status: Type.Optional(CaseInsensitiveEnum(CLAIM_STATUSES, 'Only claims in this status.')),
    orderId: Type.Optional(Type.String({ maxLength: 40, description: 'Only claims on this order.' })),
    createdFrom: Type.Optional(Type.String({ format: 'date-time', description: 'Only claims made at or after.' })),
    createdTo: Type.Optional(Type.String({ format: 'date-time', description: 'Only claims made before.' })),
    before: Type.Optional(
      Type.String({ maxLength: 40, description: "A claim ID: the page continues with older claims (nextUrl's)." }),
    ),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: CLAIM_LIST_MAX_TOP, default: CLAIM_LIST_DEFAULT_TOP })),
  },
  { additionalProperties: false },
)

export const ListClaimsResponseSchema = outcomeResponse('ListClaimsResponse', OkOutcome, {
  claims: Type.Array(ClaimSchema),
  hasMore: Type.Boolean(),
  nextUrl: Nullable(Type.String({ description: 'The next (older) page; null on the last.' })),
})
