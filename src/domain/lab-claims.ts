// A claim as the lab it is against sees it (docs/labs.md#claims): the jobs (shipments) it is about, the claimed
// items with the merchant's words and photos, where it stands, and the lab's own answer. Pure: built from the
// claim's stored ClaimView and the lab's photos of it; photo links come from the caller (the lab API's or the
// portal's address of a photo).
import type { ClaimCategoryName, ClaimResolution, ClaimStatus, ClaimView, LabAnswer } from './claims.ts'

/** What the lab sends: accept (the lab agrees it is at fault) or dispute. */
export const LAB_ANSWER_CHOICES = ['accept', 'dispute'] as const
export type LabAnswerChoice = (typeof LAB_ANSWER_CHOICES)[number]

export const LAB_ANSWER_OF_CHOICE: Readonly<Record<LabAnswerChoice, LabAnswer>> = {
  accept: 'Accepted',
  dispute: 'Disputed',
}

/** How many claims a page of GET /labs/v1/claims lists by default, and at most. */
export const LAB_CLAIMS_DEFAULT_TOP = 20
export const LAB_CLAIMS_MAX_TOP = 100

/** A lab's photos per answer: as many as a merchant's per item. */
export const MAX_LAB_ANSWER_EVIDENCE = 3
/** A lab's comment on its answer, at most (as a merchant's description). */
export const MAX_LAB_ANSWER_COMMENT_LENGTH = 2000

export interface LabClaimPhoto {
  /** evd_ id. */
  id: string
  /** Where the lab fetches it (with its key, or in the portal with its session). */
  url: string
}

export interface LabClaimItemView {
  itemId: string
  /** The lab's job the item was made in. */
  shipmentId: string
  category: ClaimCategoryName
  description: string
  photos: LabClaimPhoto[]
}

export interface LabClaimView {
  id: string
  orderId: string
  status: ClaimStatus
  /** The lab's jobs (shipment ids, as GET /labs/v1/jobs/{shipmentId} reads them) the claim is about. */
  shipmentIds: string[]
  items: LabClaimItemView[]
  /** How the operator resolved it, once Resolved (a Reprint comes to a lab as a new job). */
  resolution: ClaimResolution | null
  /** The lab's answer, once it gave one. */
  answer: { answer: LabAnswer; comment: string | null; answeredAt: string; photos: LabClaimPhoto[] } | null
  createdAt: string
  lastUpdated: string
}

/** The lab's view of a claim; `labPhotos` are the evd_ ids of the lab's answer's photos. */
export function labClaimViewOf(
  claim: ClaimView,
  labPhotos: readonly string[],
  photoUrl: (evidenceId: string) => string,
): LabClaimView {
  const photo = (id: string): LabClaimPhoto => ({ id, url: photoUrl(id) })
  const shipmentIds = [
    ...new Set([...(claim.shipmentId ? [claim.shipmentId] : []), ...claim.items.map((item) => item.shipmentId)]),
  ]
  return {
    id: claim.id,
    orderId: claim.orderId,
    status: claim.status,
    shipmentIds,
    items: claim.items.map((item) => ({
      itemId: item.itemId,
      shipmentId: item.shipmentId,
      category: item.category,
      description: item.description,
      photos: item.evidence.map(photo),
    })),
    resolution: claim.resolution?.type ?? null,
    answer: claim.labAnswer
      ? {
          answer: claim.labAnswer.answer,
          comment: claim.labAnswer.comment,
          answeredAt: claim.labAnswer.answeredAt,
          photos: labPhotos.map(photo),
        }
      : null,
    createdAt: claim.createdAt,
    lastUpdated: claim.lastUpdated,
  }
}

/** The claim's document with the lab's answer written in (keys kept in their wire order). */
export function withLabAnswer(
  claim: ClaimView,
  answer: { answer: LabAnswer; comment: string | null },
  at: Date,
): ClaimView {
  const answeredAt = at.toISOString()
  return {
    ...claim,
    labAnswer: { answer: answer.answer, comment: answer.comment, answeredAt },
    lastUpdated: answeredAt,
  }
}

/**
 * What the lab portal's Claims pages need of the labs' claims (services/labs/lab-claims.service.ts implements it):
 * declared here so that the portal, which imports no service, can be given it.
 */
export interface LabClaimsWork {
  list(
    labCode: string,
    page: { before?: string; top?: number },
    photoUrl?: (evidenceId: string) => string,
  ): Promise<{ claims: LabClaimView[]; hasMore: boolean; nextBefore: string | null }>
  get(labCode: string, claimId: string, photoUrl?: (evidenceId: string) => string): Promise<LabClaimView>
  evidence(labCode: string, evidenceId: string): Promise<{ data: Buffer; contentType: string }>
  /** Stores one of the lab's photos for its answer (the lab API's upload); its evd_ id. */
  uploadEvidence(labCode: string, data: Buffer): Promise<{ id: string }>
  answer(
    labCode: string,
    claimId: string,
    input: { answer: LabAnswerChoice; comment?: string | null; evidence?: readonly string[] },
    photoUrl?: (evidenceId: string) => string,
  ): Promise<LabClaimView>
}
