// Claims made by hand for the resolution's tests (until the merchant's claims API builds them): a claim row, its
// items and, if asked, photos, exactly as migrations/0036_claims.sql keeps them, with the claim's view
// (domain/claims.ts ClaimView, keys in the wire order) in `document`.
import type { Queryable } from '../../src/adapters/database.ts'
import type { ClaimCategoryName, ClaimView, PreferredResolution } from '../../src/domain/claims.ts'
import type { Environment } from '../../src/domain/environment.ts'
import { parseId } from '../../src/domain/ids.ts'

export interface FixtureClaimItem {
  itemId: string
  shipmentId: string
  category: ClaimCategoryName
  description?: string
  /** Photos (JPEG bytes) stored for the item. */
  photos?: Buffer[]
}

export interface FixtureClaim {
  orderId: string
  accountId: string
  environment: Environment
  labCode: string
  items: FixtureClaimItem[]
  /** A PackageMissing claim's shipment. */
  shipmentId?: string
  preferredResolution?: PreferredResolution
  createdAt?: Date
}

const number = (prefix: Parameters<typeof parseId>[0], id: string) => {
  const value = parseId(prefix, id)
  if (value === undefined) throw new Error(`not a ${prefix} id: ${id}`)
  return value
}

/** Inserts a Pending claim and its items (and photos put in `files`); the claim's view. */
export async function insertClaim(
  db: Queryable,
  files: { put(key: string, source: Buffer, contentType: string): Promise<void> },
  claim: FixtureClaim,
): Promise<ClaimView> {
  const at = claim.createdAt ?? new Date()
  const [row] = await db.query<{ id: number | string }>("SELECT nextval('claim_id_seq') AS id")
  const claimNumber = Number(row?.id)
  const claimId = `clm_${claimNumber}`
  const accountNumber = number('acc', claim.accountId)
  const items: ClaimView['items'] = []
  for (const item of claim.items) {
    const evidence: string[] = []
    for (const photo of item.photos ?? []) {
      const [drawn] = await db.query<{ id: number | string }>("SELECT nextval('claim_evidence_id_seq') AS id")
      const evidenceNumber = Number(drawn?.id)
      const blobKey = `claim-evidence/evd_${evidenceNumber}.jpg`
      await files.put(blobKey, photo, 'image/jpeg')
      await db.query(
        `INSERT INTO claim_evidence (id, account_id, environment, uploaded_by, lab_code, blob_key, content_type, bytes,
                                     width, height, created_at, claim_id)
         VALUES ($1, $2, $3, 'merchant', NULL, $4, 'image/jpeg', $5, 8, 8, $6, $7)`,
        [evidenceNumber, accountNumber, claim.environment, blobKey, photo.length, at, claimNumber],
      )
      evidence.push(`evd_${evidenceNumber}`)
    }
    items.push({
      itemId: item.itemId,
      shipmentId: item.shipmentId,
      category: item.category,
      description: item.description ?? `${item.category} on ${item.itemId}`,
      evidence,
    })
  }
  const view: ClaimView = {
    id: claimId,
    orderId: claim.orderId,
    status: 'Pending',
    shipmentId: claim.shipmentId ?? null,
    items,
    preferredResolution: claim.preferredResolution ?? null,
    resolution: null,
    rejection: null,
    labAnswer: null,
    createdAt: at.toISOString(),
    lastUpdated: at.toISOString(),
  }
  await db.query(
    `INSERT INTO claims (id, account_id, environment, order_id, shipment_id, lab_code, preferred_resolution, status,
                         created_at, updated_at, version, document)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'Pending', $8, $8, 1, $9)`,
    [
      claimNumber,
      accountNumber,
      claim.environment,
      number('ord', claim.orderId),
      claim.shipmentId ? number('shp', claim.shipmentId) : null,
      claim.labCode,
      claim.preferredResolution ?? null,
      at,
      JSON.stringify(view),
    ],
  )
  for (const item of items) {
    await db.query(
      `INSERT INTO claim_items (claim_id, order_id, item_id, shipment_id, category, description, open)
       VALUES ($1, $2, $3, $4, $5, $6, true)`,
      [
        claimNumber,
        number('ord', claim.orderId),
        number('ori', item.itemId),
        number('shp', item.shipmentId),
        item.category,
        item.description,
      ],
    )
  }
  return view
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
