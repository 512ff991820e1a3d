// Claims for the resolution's tests, made as a merchant makes them: through the claims service (`makeClaim`, with the
// photos its category requires), every rule checked; and the lab's answer on one, as the lab's API writes it.
import type { Queryable } from '../../src/adapters/database.ts'
import {
  type ClaimCategoryName,
  type ClaimView,
  claimCategory,
  type PreferredResolution,
} from '../../src/domain/claims.ts'
import { parseId } from '../../src/domain/ids.ts'
import { photoJpeg } from './claims-h4.fixture.ts'
import type { TestApp } from './test-app.ts'

const number = (prefix: Parameters<typeof parseId>[0], id: string) => {
  const value = parseId(prefix, id)
  if (value === undefined) throw new Error(`not a ${prefix} id: ${id}`)
  return value
}

/** A claim as the merchant makes it: items with their categories, or a missing parcel's shipment. */
export interface ClaimToMake {
  orderId: string
  /** The items claimed (absent for a missing parcel); photos: one made up where the category requires them. */
  items?: { itemId: string; category: ClaimCategoryName; description?: string; photos?: Buffer[] }[]
  /** A PackageMissing claim's shipment (instead of items). */
  missingShipmentId?: string
  preferredResolution?: PreferredResolution
}

/**
 * Makes a Pending claim through the claims service (docs/claims.md), as the test account's merchant (Live): its
 * photos uploaded first, then the claim with every rule checked (shipped items, the window, one open claim per
 * item). The claim's view.
 */
export async function makeClaim(t: TestApp, claim: ClaimToMake): Promise<ClaimView> {
  const scope = { accountId: number('acc', t.account.id), environment: 'live' as const }
  const items = []
  for (const item of claim.items ?? []) {
    const photos = item.photos ?? (claimCategory(item.category)?.photosRequired ? [await photoJpeg()] : [])
    const evidence = []
    for (const photo of photos) evidence.push((await t.app.services.claims.uploadEvidence(scope, photo)).id)
    const description = item.description ?? `${item.category} on ${item.itemId}`
    items.push({ itemId: item.itemId, category: item.category, description, evidence })
  }
  const request = claim.missingShipmentId
    ? { category: 'PackageMissing', shipmentId: claim.missingShipmentId }
    : { items }
  return t.app.services.claims.createClaim(scope, claim.orderId, {
    ...request,
    ...(claim.preferredResolution ? { preferredResolution: claim.preferredResolution } : {}),
  })
}

/** The lab's answer on a claim, as the lab's API would write it. */
export async function answerClaimAsLab(
  db: Queryable,
  claimId: string,
  answer: 'Accepted' | 'Disputed',
  comment: string | null,
  at = new Date(),
): Promise<void> {
  await db.query('UPDATE claims SET lab_answer = $2, lab_comment = $3, lab_answered_at = $4 WHERE id = $1', [
    number('clm', claimId),
    answer,
    comment,
    at,
  ])
}
