// Claims about shipped work (docs/claims.md): what the merchant, the operator and the lab share. Pure: the
// categories, the states, and the claim as the API shows it. The claims service keeps the table's columns and
// the `document` (this shape, as JSON text) together; every part of printroute that shows a claim shows this.

/** A claim's category: what went wrong, whether the lab is at fault, and whether photos must come with it. */
export interface ClaimCategory {
  category: ClaimCategoryName
  description: string
  /** The lab made the fault: a reprint is routed without that lab, and an upheld claim counts against its quality. */
  labAtFault: boolean
  /** One to three photos per item are required (MAX_EVIDENCE_PER_ITEM); otherwise photos are optional. */
  photosRequired: boolean
  /** A claim about a whole parcel (names a shipment, not items). */
  wholeShipment: boolean
}

export const CLAIM_CATEGORY_NAMES = [
  'Damaged',
  'PrintDefect',
  'WrongItem',
  'MissingItem',
  'PackageMissing',
  'LateDelivery',
  'Other',
] as const
export type ClaimCategoryName = (typeof CLAIM_CATEGORY_NAMES)[number]

export const CLAIM_CATEGORIES: readonly ClaimCategory[] = [
  {
    category: 'Damaged',
    description: 'The item arrived damaged (torn, dented, broken, wet).',
    labAtFault: true,
    photosRequired: true,
    wholeShipment: false,
  },
  {
    category: 'PrintDefect',
    description: 'The print is wrong: colours, banding, cropping, smudges, a misprint.',
    labAtFault: true,
    photosRequired: true,
    wholeShipment: false,
  },
  {
    category: 'WrongItem',
    description: 'A different product, size or image arrived.',
    labAtFault: true,
    photosRequired: true,
    wholeShipment: false,
  },
  {
    category: 'MissingItem',
    description: 'The parcel arrived without this item.',
    labAtFault: true,
    photosRequired: false,
    wholeShipment: false,
  },
  {
    category: 'PackageMissing',
    description: 'The parcel never arrived.',
    labAtFault: false,
    photosRequired: false,
    wholeShipment: true,
  },
  {
    category: 'LateDelivery',
    description: 'The parcel arrived after its promised delivery date.',
    labAtFault: false,
    photosRequired: false,
    wholeShipment: false,
  },
  {
    category: 'Other',
    description: 'Anything else; say what in the description.',
    labAtFault: false,
    photosRequired: false,
    wholeShipment: false,
  },
]

export function claimCategory(name: string): ClaimCategory | undefined {
  return CLAIM_CATEGORIES.find((category) => category.category === name)
}

export const CLAIM_STATUSES = ['Pending', 'Resolved', 'Rejected', 'Retracted'] as const
export type ClaimStatus = (typeof CLAIM_STATUSES)[number]

export const CLAIM_RESOLUTIONS = ['Reprint', 'Refund', 'Credit'] as const
export type ClaimResolution = (typeof CLAIM_RESOLUTIONS)[number]

/** What the merchant may ask for. */
export const PREFERRED_RESOLUTIONS = ['Reprint', 'Refund'] as const
export type PreferredResolution = (typeof PREFERRED_RESOLUTIONS)[number]

export const LAB_ANSWERS = ['Accepted', 'Disputed'] as const
export type LabAnswer = (typeof LAB_ANSWERS)[number]

/** Limits (docs/claims.md#limits). */
export const MAX_EVIDENCE_PER_ITEM = 3
export const MAX_EVIDENCE_BYTES = 10 * 1024 * 1024
/** Decoded pixels an evidence photo may have: an image bomb is refused before it is decoded whole. */
export const MAX_EVIDENCE_PIXELS = 50_000_000
export const MAX_CLAIM_DESCRIPTION_LENGTH = 2000
/** Unused evidence is deleted this long after upload. */
export const EVIDENCE_LIFETIME_MS = 24 * 60 * 60 * 1000
/** Days after delivery (or after the estimated delivery, for a missing parcel) a claim may be made, by default. */
export const DEFAULT_CLAIM_WINDOW_DAYS = 30

/** A claimed item as the API shows it. */
export interface ClaimItemView {
  itemId: string
  shipmentId: string
  category: ClaimCategoryName
  description: string
  /** evd_ ids of the photos. */
  evidence: string[]
}

/** The claim as the API shows it (keys in this order on the wire). */
export interface ClaimView {
  id: string
  orderId: string
  status: ClaimStatus
  /** The shipment of a PackageMissing claim; null for item claims. */
  shipmentId: string | null
  items: ClaimItemView[]
  preferredResolution: PreferredResolution | null
  /** Set once Resolved. */
  resolution: {
    type: ClaimResolution
    note: string | null
    resolvedAt: string
    /** The new shipment of a Reprint. */
    reprintShipmentId: string | null
    /** The credit note of a Refund or Credit. */
    creditNote: string | null
    /** The amount refunded or credited, in the order's charge currency. */
    amount: { amount: string; currency: string } | null
  } | null
  /** Set once Rejected. */
  rejection: { reason: string; rejectedAt: string } | null
  /** The lab's answer, once it gave one (what the merchant sees: the answer and the lab's comment). */
  labAnswer: { answer: LabAnswer; comment: string | null; answeredAt: string } | null
  createdAt: string
  lastUpdated: string
}

/** How the Sandbox's simulated operator may decide a claim (POST /v4.0/sandbox/claims/{id}/advance). */
export const SANDBOX_CLAIM_TARGETS = ['Resolved', 'Rejected'] as const
export type SandboxClaimTarget = (typeof SANDBOX_CLAIM_TARGETS)[number]
