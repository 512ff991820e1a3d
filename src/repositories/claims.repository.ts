// SQL for claims (migrations/0036_claims.sql): the claims, their items and the evidence photos they name. Written by
// the claims service (a merchant's claim, its retraction, an upload), read scoped to the caller's account and
// environment; unused evidence is deleted by the expire-claim-evidence job. A claim's `document` is the ClaimView as
// JSON text, rewritten with its columns; `version` makes a change name the state it read (optimistic concurrency).
import type { Queryable } from '../adapters/database.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import type { ClaimStatus } from '../domain/claims.ts'

export interface StoredEvidence {
  id: number
  blobKey: string
  contentType: 'image/jpeg' | 'image/png'
  bytes: number
  width: number
  height: number
  createdAt: Date
  /** The claim that uses it; null while unused. */
  claimId: number | null
}

interface EvidenceRow {
  id: number | string
  blob_key: string
  content_type: 'image/jpeg' | 'image/png'
  bytes: number | string
  width: number
  height: number
  created_at: Date | string
  claim_id: number | string | null
}

const EVIDENCE_COLUMNS = 'id, blob_key, content_type, bytes, width, height, created_at, claim_id'

function toEvidence(row: EvidenceRow): StoredEvidence {
  return {
    id: Number(row.id),
    blobKey: row.blob_key,
    contentType: row.content_type,
    bytes: Number(row.bytes),
    width: Number(row.width),
    height: Number(row.height),
    createdAt: new Date(row.created_at),
    claimId: row.claim_id === null ? null : Number(row.claim_id),
  }
}

/** A new evidence number, drawn before its photo is stored under a key naming it. */
export async function nextEvidenceNumber(db: Queryable): Promise<number> {
  const rows = await db.query<{ id: number | string }>("SELECT nextval('claim_evidence_id_seq') AS id")
  return Number(rows[0]?.id)
}

/** A merchant's photo, unused. */
export async function insertMerchantEvidence(
  db: Queryable,
  scope: AccountScope,
  row: Omit<StoredEvidence, 'claimId'>,
): Promise<void> {
  await db.query(
    `INSERT INTO claim_evidence (id, account_id, environment, uploaded_by, lab_code, blob_key, content_type, bytes,
       width, height, created_at, claim_id)
     VALUES ($1, $2, $3, 'merchant', NULL, $4, $5, $6, $7, $8, $9, NULL)`,
    [
      row.id,
      scope.accountId,
      scope.environment,
      row.blobKey,
      row.contentType,
      row.bytes,
      row.width,
      row.height,
      row.createdAt,
    ],
  )
}

/** The caller's own merchant photo; undefined for another account's, another environment's or a lab's. */
export async function findMerchantEvidenceForCaller(
  db: Queryable,
  scope: AccountScope,
  id: number,
): Promise<StoredEvidence | undefined> {
  const rows = await db.query<EvidenceRow>(
    `SELECT ${EVIDENCE_COLUMNS} FROM claim_evidence
      WHERE id = $1 AND account_id = $2 AND environment = $3 AND uploaded_by = 'merchant'`,
    [id, scope.accountId, scope.environment],
  )
  return rows[0] ? toEvidence(rows[0]) : undefined
}

/** The caller's merchant photos among `ids`, locked until the transaction ends (two claims cannot take one photo). */
export async function lockMerchantEvidence(
  tx: Queryable,
  scope: AccountScope,
  ids: readonly number[],
): Promise<StoredEvidence[]> {
  if (ids.length === 0) return []
  const rows = await tx.query<EvidenceRow>(
    `SELECT ${EVIDENCE_COLUMNS} FROM claim_evidence
      WHERE id = ANY($1::bigint[]) AND account_id = $2 AND environment = $3 AND uploaded_by = 'merchant'
      FOR UPDATE`,
    [ids, scope.accountId, scope.environment],
  )
  return rows.map(toEvidence)
}

/** Unused photos uploaded before `cutoff`, oldest first, at most `limit`: what the expiry deletes. */
export async function listUnusedEvidence(
  db: Queryable,
  cutoff: Date,
  limit: number,
): Promise<{ id: number; blobKey: string }[]> {
  const rows = await db.query<{ id: number | string; blob_key: string }>(
    `SELECT id, blob_key FROM claim_evidence WHERE claim_id IS NULL AND created_at < $1 ORDER BY created_at, id LIMIT $2`,
    [cutoff, limit],
  )
  return rows.map((row) => ({ id: Number(row.id), blobKey: row.blob_key }))
}

/** Deletes the photo's row if it is still unused; whether it did (a claim may have taken it meanwhile). */
export async function deleteUnusedEvidence(db: Queryable, id: number): Promise<boolean> {
  const rows = await db.query('DELETE FROM claim_evidence WHERE id = $1 AND claim_id IS NULL RETURNING id', [id])
  return rows.length > 0
}

/** A new claim's number. */
export async function nextClaimNumber(db: Queryable): Promise<number> {
  const rows = await db.query<{ id: number | string }>("SELECT nextval('claim_id_seq') AS id")
  return Number(rows[0]?.id)
}

export interface NewClaimRow {
  id: number
  orderNumber: number
  shipmentNumber: number | null
  labCode: string
  preferredResolution: string | null
  createdAt: Date
  document: string
  items: { itemNumber: number; shipmentNumber: number; category: string; description: string }[]
  evidenceNumbers: readonly number[]
}

/** Writes a Pending claim, its items (open) and attaches its photos, in the caller's transaction. */
export async function insertClaim(tx: Queryable, scope: AccountScope, claim: NewClaimRow): Promise<void> {
  await tx.query(
    `INSERT INTO claims (id, account_id, environment, order_id, shipment_id, lab_code, preferred_resolution, status,
       created_at, updated_at, version, document)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'Pending', $8, $8, 1, $9)`,
    [
      claim.id,
      scope.accountId,
      scope.environment,
      claim.orderNumber,
      claim.shipmentNumber,
      claim.labCode,
      claim.preferredResolution,
      claim.createdAt,
      claim.document,
    ],
  )
  for (const item of claim.items) {
    await tx.query(
      `INSERT INTO claim_items (claim_id, order_id, item_id, shipment_id, category, description, open)
       VALUES ($1, $2, $3, $4, $5, $6, true)`,
      [claim.id, claim.orderNumber, item.itemNumber, item.shipmentNumber, item.category, item.description],
    )
  }
  if (claim.evidenceNumbers.length > 0) {
    await tx.query('UPDATE claim_evidence SET claim_id = $1 WHERE id = ANY($2::bigint[]) AND claim_id IS NULL', [
      claim.id,
      claim.evidenceNumbers,
    ])
  }
}

/** Item number -> the open claim's number, for those of `itemNumbers` that have one. */
export async function openClaimsOfItems(tx: Queryable, itemNumbers: readonly number[]): Promise<Map<number, number>> {
  if (itemNumbers.length === 0) return new Map()
  const rows = await tx.query<{ item_id: number | string; claim_id: number | string }>(
    'SELECT item_id, claim_id FROM claim_items WHERE open AND item_id = ANY($1::bigint[])',
    [itemNumbers],
  )
  return new Map(rows.map((row) => [Number(row.item_id), Number(row.claim_id)]))
}

export interface StoredClaim {
  id: number
  orderNumber: number
  status: ClaimStatus
  version: number
  /** The ClaimView as JSON text. */
  document: string
}

interface ClaimRow {
  id: number | string
  order_id: number | string
  status: ClaimStatus
  version: number
  document: string
}

function toClaim(row: ClaimRow): StoredClaim {
  return {
    id: Number(row.id),
    orderNumber: Number(row.order_id),
    status: row.status,
    version: Number(row.version),
    document: row.document,
  }
}

/** The caller's claim; undefined for another account's or environment's. */
export async function findClaimForCaller(
  db: Queryable,
  scope: AccountScope,
  id: number,
): Promise<StoredClaim | undefined> {
  const rows = await db.query<ClaimRow>(
    'SELECT id, order_id, status, version, document FROM claims WHERE id = $1 AND account_id = $2 AND environment = $3',
    [id, scope.accountId, scope.environment],
  )
  return rows[0] ? toClaim(rows[0]) : undefined
}

/**
 * Changes the claim's status and document if it is still at `version` (what the caller read); false when another
 * change came first. The claim's items stay open only while it is Pending.
 */
export async function changeClaimStatus(
  tx: Queryable,
  change: { id: number; version: number; status: ClaimStatus; document: string; at: Date },
): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE claims SET status = $3, document = $4, updated_at = $5, version = version + 1
      WHERE id = $1 AND version = $2 RETURNING id`,
    [change.id, change.version, change.status, change.document, change.at],
  )
  if (rows.length === 0) return false
  await tx.query('UPDATE claim_items SET open = $2 WHERE claim_id = $1', [change.id, change.status === 'Pending'])
  return true
}

export interface ClaimListQuery {
  status: ClaimStatus | null
  orderNumber: number | null
  createdFrom: Date | null
  createdTo: Date | null
  /** Only claims older than this claim number (the cursor); null: from the newest. */
  before: number | null
  top: number
}

/** The caller's claims, newest first: a page of `top` documents, and whether more follow. */
export async function listClaimsForCaller(
  db: Queryable,
  scope: AccountScope,
  query: ClaimListQuery,
): Promise<{ documents: string[]; lastId: number | null; hasMore: boolean }> {
  const rows = await db.query<{ id: number | string; document: string }>(
    `SELECT id, document FROM claims
      WHERE account_id = $1 AND environment = $2
        AND ($3::text IS NULL OR status = $3)
        AND ($4::bigint IS NULL OR order_id = $4)
        AND ($5::timestamptz IS NULL OR created_at >= $5)
        AND ($6::timestamptz IS NULL OR created_at < $6)
        AND ($7::bigint IS NULL OR id < $7)
      ORDER BY id DESC LIMIT $8`,
    [
      scope.accountId,
      scope.environment,
      query.status,
      query.orderNumber,
      query.createdFrom,
      query.createdTo,
      query.before,
      query.top + 1,
    ],
  )
  const page = rows.slice(0, query.top)
  const last = page.at(-1)
  return {
    documents: page.map((row) => row.document),
    lastId: last ? Number(last.id) : null,
    hasMore: rows.length > query.top,
  }
}

/** A shipment the missing-parcel rule looks at: its order and its environment. */
export interface MissingParcelCandidate {
  orderNumber: number
  shipmentNumber: number
}

/**
 * Shipments the missing-parcel rule (docs/claims.md#automatic-rules) may report: with their lab as `shipped`, of an
 * order not cancelled, its shipment `Shipped` (not cancelled) with a tracking number and no `Delivered` or
 * `Returned` status, whose estimated
 * delivery's last day (its dispatch date without an estimate) is from `dueFrom` to `dueTo` (YYYY-MM-DD, both
 * inclusive), and that no claim ever named (claim_items: a missing parcel's claim has a row per item too) (a merchant's claim on any of its items, or a missing parcel's, in any
 * state, says someone already looked at it). Oldest shipments first, at most `limit`. The service checks each again
 * under its order's lock: this only finds them.
 */
export async function listMissingParcelCandidates(
  db: Queryable,
  query: { dueFrom: string; dueTo: string; limit: number },
): Promise<MissingParcelCandidate[]> {
  const rows = await db.query<{ order_id: number | string; shipment_id: number | string }>(
    `SELECT j.order_id, j.shipment_id
       FROM lab_jobs j
       JOIN orders o ON o.id = j.order_id
       CROSS JOIN LATERAL jsonb_array_elements(o.document::jsonb -> 'shipments') AS s(shipment)
      WHERE j.state = 'shipped'
        AND o.stage <> 'Cancelled'
        AND s.shipment ->> 'id' = 'shp_' || j.shipment_id::text
        AND s.shipment ->> 'status' = 'Shipped'
        AND COALESCE(s.shipment ->> 'cancelled', 'false') = 'false'
        AND COALESCE(s.shipment ->> 'deliveryStatus', '') NOT IN ('Delivered', 'Returned')
        AND COALESCE(s.shipment -> 'tracking' ->> 'number', '') <> ''
        AND left(COALESCE(s.shipment -> 'estimatedDelivery' ->> 'to', s.shipment ->> 'dispatchDate'), 10)
            BETWEEN $1 AND $2
        AND NOT EXISTS (SELECT 1 FROM claim_items ci WHERE ci.shipment_id = j.shipment_id)
      ORDER BY j.shipment_id
      LIMIT $3`,
    [query.dueFrom, query.dueTo, query.limit],
  )
  return rows.map((row) => ({ orderNumber: Number(row.order_id), shipmentNumber: Number(row.shipment_id) }))
}

/** Whether any claim, in any state, names the shipment or one of its items (claim_items keep the shipment). */
export async function shipmentHasClaims(db: Queryable, shipmentNumber: number): Promise<boolean> {
  // A missing parcel's claim has a claim_items row per item of the parcel, so claim_items answers for both.
  const rows = await db.query('SELECT 1 FROM claim_items WHERE shipment_id = $1 LIMIT 1', [shipmentNumber])
  return rows.length > 0
}
