// SQL of a claim's resolution (migrations/0036_claims.sql, docs/claims.md#resolutions): a claim read (locked for
// its decision), the operator's queue, the decision written with the claim's view and its items closed, and the
// photos the console shows.
import type { Queryable } from '../adapters/database.ts'
import type { ClaimCategoryName, ClaimResolution, ClaimStatus, ClaimView } from '../domain/claims.ts'
import type { Environment } from '../domain/environment.ts'

/** A claim as the resolution reads it: its columns and its view. */
export interface ClaimRecord {
  number: number
  accountNumber: number
  environment: Environment
  orderNumber: number
  /** The shipment of a PackageMissing claim. */
  shipmentNumber: number | null
  labCode: string
  status: ClaimStatus
  preferredResolution: string | null
  resolvedBy: string | null
  labAnswer: string | null
  labComment: string | null
  labAnsweredAt: Date | null
  createdAt: Date
  version: number
  view: ClaimView
}

/** One claimed item: the item, the shipment that carried it, the category and the merchant's words. */
export interface ClaimItemRecord {
  itemNumber: number
  shipmentNumber: number
  category: string
  description: string
}

const CLAIM_COLUMNS = `id, account_id AS "accountNumber", environment, order_id AS "orderNumber",
  shipment_id AS "shipmentNumber", lab_code AS "labCode", status, preferred_resolution AS "preferredResolution",
  resolved_by AS "resolvedBy", lab_answer AS "labAnswer", lab_comment AS "labComment",
  lab_answered_at AS "labAnsweredAt", created_at AS "createdAt", version, document`

interface ClaimRow {
  id: number | string
  accountNumber: number | string
  environment: Environment
  orderNumber: number | string
  shipmentNumber: number | string | null
  labCode: string
  status: ClaimStatus
  preferredResolution: string | null
  resolvedBy: string | null
  labAnswer: string | null
  labComment: string | null
  labAnsweredAt: Date | string | null
  createdAt: Date | string
  version: number | string
  document: string
}

function toRecord(row: ClaimRow): ClaimRecord {
  return {
    number: Number(row.id),
    accountNumber: Number(row.accountNumber),
    environment: row.environment,
    orderNumber: Number(row.orderNumber),
    shipmentNumber: row.shipmentNumber === null ? null : Number(row.shipmentNumber),
    labCode: row.labCode,
    status: row.status,
    preferredResolution: row.preferredResolution,
    resolvedBy: row.resolvedBy,
    labAnswer: row.labAnswer,
    labComment: row.labComment,
    labAnsweredAt: row.labAnsweredAt === null ? null : new Date(row.labAnsweredAt),
    createdAt: new Date(row.createdAt),
    version: Number(row.version),
    view: JSON.parse(row.document) as ClaimView,
  }
}

/** The claim; with `lock`, its row locked until the transaction ends (the decision's). */
export async function readClaim(
  db: Queryable,
  claimNumber: number,
  options: { lock?: boolean } = {},
): Promise<ClaimRecord | undefined> {
  const rows = await db.query<ClaimRow>(
    `SELECT ${CLAIM_COLUMNS} FROM claims WHERE id = $1${options.lock ? ' FOR UPDATE' : ''}`,
    [claimNumber],
  )
  return rows[0] && toRecord(rows[0])
}

export async function listClaimItems(db: Queryable, claimNumber: number): Promise<ClaimItemRecord[]> {
  const rows = await db.query<{
    itemNumber: number | string
    shipmentNumber: number | string
    category: string
    description: string
  }>(
    `SELECT item_id AS "itemNumber", shipment_id AS "shipmentNumber", category, description
       FROM claim_items WHERE claim_id = $1 ORDER BY item_id`,
    [claimNumber],
  )
  return rows.map((row) => ({
    itemNumber: Number(row.itemNumber),
    shipmentNumber: Number(row.shipmentNumber),
    category: row.category,
    description: row.description,
  }))
}

/** The operator's queue's filter: any of them may be absent. */
export interface ClaimQueueFilter {
  status?: ClaimStatus
  environment?: Environment
  accountNumber?: number
  labCode?: string
  /** Claims with at least one item of this category (a missing parcel's is `PackageMissing`). */
  category?: ClaimCategoryName
  /**
   * The cursor: the queue continues after this claim, where it stood when its page was read (`pending`: it was
   * Pending then), so a claim decided meanwhile skips no row (it moves among the decided, after the Pending).
   */
  after?: ClaimQueueCursor
}

/** Where a page of the queue ended: its last claim, and whether that one was Pending (the queue's first part). */
export interface ClaimQueueCursor {
  claimNumber: number
  pending: boolean
}

/** Claims for the operator: Pending first, then oldest first; at most `limit`. */
export async function listClaimQueue(db: Queryable, filter: ClaimQueueFilter, limit: number): Promise<ClaimRecord[]> {
  const conditions: string[] = []
  const params: unknown[] = []
  const where = (column: string, value: unknown) => {
    params.push(value)
    conditions.push(`${column} = $${params.length}`)
  }
  if (filter.status) where('status', filter.status)
  if (filter.environment) where('environment', filter.environment)
  if (filter.accountNumber !== undefined) where('account_id', filter.accountNumber)
  if (filter.labCode) where('lab_code', filter.labCode)
  if (filter.category) {
    params.push(filter.category)
    conditions.push(
      `EXISTS (SELECT 1 FROM claim_items WHERE claim_items.claim_id = claims.id AND category = $${params.length})`,
    )
  }
  if (filter.after) {
    // The queue's order as a row value: Pending (0) before the rest (1), then oldest first, then by id.
    params.push(filter.after.pending ? 0 : 1, filter.after.claimNumber)
    const rank = `$${params.length - 1}::int`
    const id = `$${params.length}::bigint`
    conditions.push(
      `(${QUEUE_RANK}, created_at, id) > (${rank}, (SELECT created_at FROM claims AS anchor WHERE anchor.id = ${id}), ${id})`,
    )
  }
  params.push(limit)
  const rows = await db.query<ClaimRow>(
    `SELECT ${CLAIM_COLUMNS} FROM claims${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}
      ORDER BY ${QUEUE_RANK}, created_at, id LIMIT $${params.length}`,
    params,
  )
  return rows.map(toRecord)
}

const QUEUE_RANK = "(CASE WHEN status = 'Pending' THEN 0 ELSE 1 END)"

/** The decision as the claim's row keeps it. */
export interface ClaimDecisionRecord {
  status: 'Resolved' | 'Rejected'
  resolution: ClaimResolution | null
  note: string | null
  resolvedBy: string
  at: Date
  reprintShipmentNumber: number | null
  creditNoteNumber: string | null
  view: ClaimView
}

/**
 * Writes the decision on a claim still at `version` (its row locked by the caller): the columns, the view, the
 * version bumped, and its items closed. False when the claim was at another version (nothing written).
 */
export async function saveClaimDecision(
  tx: Queryable,
  claimNumber: number,
  version: number,
  decision: ClaimDecisionRecord,
): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE claims SET status = $3, resolution = $4, resolution_note = $5, resolved_by = $6, resolved_at = $7,
            reprint_shipment_id = $8, credit_note_number = $9, updated_at = $7, version = version + 1, document = $10
      WHERE id = $1 AND version = $2 RETURNING id`,
    [
      claimNumber,
      version,
      decision.status,
      decision.resolution,
      decision.note,
      decision.resolvedBy,
      decision.at,
      decision.reprintShipmentNumber,
      decision.creditNoteNumber,
      JSON.stringify(decision.view),
    ],
  )
  if (rows.length === 0) return false
  await tx.query('UPDATE claim_items SET open = false WHERE claim_id = $1', [claimNumber])
  return true
}

/** A photo of a claim as the console shows it. */
export interface EvidenceRecord {
  number: number
  claimNumber: number | null
  uploadedBy: 'merchant' | 'lab'
  blobKey: string
  contentType: string
}

export async function readEvidence(db: Queryable, evidenceNumber: number): Promise<EvidenceRecord | undefined> {
  const rows = await db.query<{
    id: number | string
    claimNumber: number | string | null
    uploadedBy: 'merchant' | 'lab'
    blobKey: string
    contentType: string
  }>(
    `SELECT id, claim_id AS "claimNumber", uploaded_by AS "uploadedBy", blob_key AS "blobKey",
            content_type AS "contentType"
       FROM claim_evidence WHERE id = $1`,
    [evidenceNumber],
  )
  const row = rows[0]
  return (
    row && {
      number: Number(row.id),
      claimNumber: row.claimNumber === null ? null : Number(row.claimNumber),
      uploadedBy: row.uploadedBy,
      blobKey: row.blobKey,
      contentType: row.contentType,
    }
  )
}

/** The evd_ numbers of the lab's photos on a claim (its answer's), oldest first. */
export async function listLabEvidence(db: Queryable, claimNumber: number): Promise<number[]> {
  const rows = await db.query<{ id: number | string }>(
    `SELECT id FROM claim_evidence WHERE claim_id = $1 AND uploaded_by = 'lab' ORDER BY id`,
    [claimNumber],
  )
  return rows.map((row) => Number(row.id))
}

/**
 * Pending claims made before `cutoff` that their lab has not disputed and whose merchant said what it preferred: what
 * the undisputed-claims rule resolves (docs/claims.md#automatic-rules), oldest first, at most `limit`.
 */
export async function listUndisputedClaims(db: Queryable, cutoff: Date, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: number | string }>(
    `SELECT id FROM claims
      WHERE status = 'Pending' AND preferred_resolution IS NOT NULL AND lab_answer IS DISTINCT FROM 'Disputed'
        AND created_at < $1
      ORDER BY created_at, id LIMIT $2`,
    [cutoff, limit],
  )
  return rows.map((row) => `clm_${row.id}`)
}
