// Claims made straight in the database (migrations/0036_claims.sql) as the claims API will make them, with the
// document a ClaimView exactly (domain/claims.ts): for the labs' side of claims, tested before and beside the
// merchant's API. Also a shipped hand-off (shipment_costs) for a shipment, to count items shipped.
import type { Database } from '../../src/adapters/database.ts'
import type { ClaimCategoryName, ClaimStatus, ClaimView } from '../../src/domain/claims.ts'
import { formatId, parseId } from '../../src/domain/ids.ts'

export interface FixtureClaimItem {
  itemId: string
  shipmentId: string
  category: ClaimCategoryName
  description: string
  /** evd_ ids of the merchant's photos (insertMerchantEvidence). */
  evidence?: string[]
}

function number(prefix: 'ord' | 'ori' | 'shp' | 'evd', id: string): number {
  const value = parseId(prefix, id)
  if (value === undefined) throw new Error(`not a ${prefix} id: ${id}`)
  return value
}

/** A merchant's photo of the order's account, stored under `blobKey` (put the blob there yourself). */
export async function insertMerchantEvidence(
  db: Database,
  orderId: string,
  blobKey: string,
  at: Date,
): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `INSERT INTO claim_evidence (id, account_id, environment, uploaded_by, lab_code, blob_key, content_type, bytes,
                                 width, height, created_at)
     SELECT nextval('claim_evidence_id_seq'), account_id, environment, 'merchant', NULL, $2, 'image/jpeg', 100, 10, 10, $3
       FROM orders WHERE id = $1
     RETURNING id::text`,
    [number('ord', orderId), blobKey, at],
  )
  return formatId('evd', Number(rows[0]?.id))
}

/** A claim against `labCode` on the order, as the claims API would store it; its ClaimView. */
export async function insertClaim(
  db: Database,
  input: {
    orderId: string
    labCode: string
    items: FixtureClaimItem[]
    status?: ClaimStatus
    at: Date
  },
): Promise<ClaimView> {
  const status = input.status ?? 'Pending'
  const [row] = await db.query<{ id: string; account_id: string; environment: string }>(
    `SELECT nextval('claim_id_seq')::text AS id, account_id::text, environment FROM orders WHERE id = $1`,
    [number('ord', input.orderId)],
  )
  if (!row) throw new Error(`no order ${input.orderId}`)
  const at = input.at.toISOString()
  const claim: ClaimView = {
    id: formatId('clm', Number(row.id)),
    orderId: input.orderId,
    status,
    shipmentId: null,
    items: input.items.map((item) => ({
      itemId: item.itemId,
      shipmentId: item.shipmentId,
      category: item.category,
      description: item.description,
      evidence: item.evidence ?? [],
    })),
    preferredResolution: 'Reprint',
    resolution:
      status === 'Resolved'
        ? { type: 'Reprint', note: null, resolvedAt: at, reprintShipmentId: null, creditNote: null, amount: null }
        : null,
    rejection: status === 'Rejected' ? { reason: 'Not a fault', rejectedAt: at } : null,
    labAnswer: null,
    createdAt: at,
    lastUpdated: at,
  }
  await db.query(
    `INSERT INTO claims (id, account_id, environment, order_id, shipment_id, lab_code, preferred_resolution, status,
                         resolution, resolved_by, resolved_at, created_at, updated_at, document)
     VALUES ($1, $2, $3, $4, NULL, $5, 'Reprint', $6, $7, $8, $9, $10, $10, $11)`,
    [
      row.id,
      row.account_id,
      row.environment,
      number('ord', input.orderId),
      input.labCode,
      status,
      status === 'Resolved' ? 'Reprint' : null,
      status === 'Resolved' ? 'operator' : null,
      status === 'Resolved' ? input.at : null,
      input.at,
      JSON.stringify(claim),
    ],
  )
  for (const item of input.items) {
    await db.query(
      `INSERT INTO claim_items (claim_id, order_id, item_id, shipment_id, category, description, open)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        row.id,
        number('ord', input.orderId),
        number('ori', item.itemId),
        number('shp', item.shipmentId),
        item.category,
        item.description,
        status === 'Pending',
      ],
    )
  }
  for (const evidence of input.items.flatMap((item) => item.evidence ?? [])) {
    await db.query('UPDATE claim_evidence SET claim_id = $1 WHERE id = $2', [row.id, number('evd', evidence)])
  }
  return claim
}

/** Moves a claim to another status (the operator's resolution or rejection, as far as quality counts it). */
export async function setClaimStatus(db: Database, claimId: string, status: ClaimStatus, at: Date): Promise<void> {
  await db.query(
    `UPDATE claims SET status = $2, resolved_at = CASE WHEN $2 = 'Resolved' THEN $3::timestamptz END,
            version = version + 1, updated_at = $3
      WHERE id = $1`,
    [parseId('clm', claimId), status, at],
  )
}

/** Records the shipment's hand-off to its lab as shipped at `at` (what the lab's items shipped are counted from). */
export async function insertShippedHandoff(
  db: Database,
  input: { orderId: string; shipmentId: string; labCode: string; at: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO shipment_costs (handoff_key, shipment_id, order_id, account_id, environment, lab_code, kind, handed_at,
                                 lab_currency, production_cost_minor, shipping_cost_minor, price_currency,
                                 price_items_minor, price_shipping_minor, cost_in_price_currency_minor, outcome,
                                 outcome_at)
     SELECT 'fixture:' || $2::bigint, $2::bigint, id, account_id, environment, $3, 'Original', $4, 'GBP', 100, 100, 'GBP', 200, 100,
            200, 'Shipped', $4
       FROM orders WHERE id = $1`,
    [number('ord', input.orderId), number('shp', input.shipmentId), input.labCode, input.at],
  )
}
