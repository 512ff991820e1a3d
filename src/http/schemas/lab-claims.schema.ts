// The lab API's claims (docs/labs.md#claims): the claims against a lab's jobs, their photos, the lab's answer.
import { Type } from 'typebox'
import { CLAIM_CATEGORY_NAMES, CLAIM_RESOLUTIONS, CLAIM_STATUSES, LAB_ANSWERS } from '../../domain/claims.ts'
import {
  LAB_ANSWER_CHOICES,
  LAB_CLAIMS_DEFAULT_TOP,
  LAB_CLAIMS_MAX_TOP,
  MAX_LAB_ANSWER_COMMENT_LENGTH,
  MAX_LAB_ANSWER_EVIDENCE,
} from '../../domain/lab-claims.ts'
import {
  CaseInsensitiveEnum,
  Nullable,
  NullableString,
  named,
  OkOutcome,
  Outcome,
  outcomeResponse,
  SingleLineString,
  StringEnum,
} from './common.schema.ts'

export const LabClaimParams = Type.Object({ claimId: Type.String({ maxLength: 40 }) })
export const LabEvidenceParams = Type.Object({ evidenceId: Type.String({ maxLength: 40 }) })

export const LabClaimsQuery = Type.Object(
  {
    status: Type.Optional(CaseInsensitiveEnum(CLAIM_STATUSES, 'Only claims in this state.')),
    before: Type.Optional(
      SingleLineString({
        maxLength: 40,
        description: "A claim ID (clm_12): the page continues with older claims (the previous page's nextUrl).",
      }),
    ),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: LAB_CLAIMS_MAX_TOP, default: LAB_CLAIMS_DEFAULT_TOP })),
  },
  { additionalProperties: false },
)

export const LabClaimAnswerBody = Type.Object(
  {
    answer: CaseInsensitiveEnum(
      LAB_ANSWER_CHOICES,
      'accept: the lab agrees the fault is its own; dispute: it does not (say why in the comment, show it in photos).',
    ),
    comment: Type.Optional(
      NullableString({ maxLength: MAX_LAB_ANSWER_COMMENT_LENGTH, description: "The lab's words to the operator." }),
    ),
    evidence: Type.Optional(
      Type.Array(SingleLineString({ maxLength: 40 }), {
        maxItems: MAX_LAB_ANSWER_EVIDENCE,
        description: "The lab's own photos (evd_ ids from POST /labs/v1/claims/evidence), 0 to 3, each used once.",
      }),
    ),
  },
  { additionalProperties: false },
)

const LabClaimPhotoSchema = named(
  'LabClaimPhoto',
  Type.Object({
    id: Type.String({ description: 'evd_ id.' }),
    url: Type.String({ description: "The photo (JPEG or PNG), fetched with the lab's key." }),
  }),
)

const LabClaimSchema = named(
  'LabClaim',
  Type.Object({
    id: Type.String({ description: 'clm_ id.' }),
    orderId: Type.String(),
    status: StringEnum(CLAIM_STATUSES),
    shipmentIds: Type.Array(Type.String(), {
      description: "The lab's jobs the claim is about (GET /labs/v1/jobs/{shipmentId}).",
    }),
    items: Type.Array(
      Type.Object({
        itemId: Type.String(),
        shipmentId: Type.String(),
        category: StringEnum(CLAIM_CATEGORY_NAMES),
        description: Type.String({ description: "The merchant's words." }),
        photos: Type.Array(LabClaimPhotoSchema),
      }),
    ),
    resolution: Nullable(StringEnum(CLAIM_RESOLUTIONS, 'How the operator resolved it, once Resolved.')),
    answer: Nullable(
      Type.Object({
        answer: StringEnum(LAB_ANSWERS),
        comment: Nullable(Type.String()),
        answeredAt: Type.String({ format: 'date-time' }),
        photos: Type.Array(LabClaimPhotoSchema),
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    lastUpdated: Type.String({ format: 'date-time' }),
  }),
)

export const LabClaimsResponseSchema = outcomeResponse('LabClaimsResponse', OkOutcome, {
  claims: Type.Array(LabClaimSchema),
  hasMore: Type.Boolean(),
  nextUrl: Nullable(Type.String({ description: 'The next (older) page; null on the last page.' })),
})

export const LabClaimResponseSchema = outcomeResponse('LabClaimResponse', OkOutcome, { claim: LabClaimSchema })

export const LabClaimAnsweredResponseSchema = outcomeResponse(
  'LabClaimAnsweredResponse',
  Outcome('UpdatedOutcome', ['Updated'] as const),
  { claim: LabClaimSchema },
)

export const LabEvidenceResponseSchema = outcomeResponse(
  'LabEvidenceResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  {
    evidence: named(
      'LabEvidence',
      Type.Object({
        id: Type.String({ description: 'evd_ id: name it in an answer within a day, or it is deleted.' }),
        contentType: StringEnum(['image/jpeg', 'image/png'] as const),
        bytes: Type.Integer(),
        width: Type.Integer(),
        height: Type.Integer(),
        url: Type.String(),
      }),
    ),
  },
)
