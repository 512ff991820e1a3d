// SQL for the labs' side of claims (migrations/0036_claims.sql, 0039_lab_quality.sql): the Live claims against a lab,
// its answer, its photos (claim_evidence rows uploaded by the lab), and the counts its quality rate is computed from
// (upheld claim items beside the items of its shipped hand-offs: joins shipment_costs and orders, so it sits with
// the claims it answers about). The claims service (claims.repository.ts) makes and resolves claims; this file only
// reads them for a lab and writes a lab's answer.
import type { Queryable } from '../adapters/database.ts'
import type { LabAnswer } from '../domain/claims.ts'
import type { LabQualityCounts } from '../domain/lab-quality.ts'

/** A claim as a lab reads it: the stored document (a ClaimView as JSON text) and its version. */
export interface LabClaimRow {
  claimNumber: number
  orderNumber: number
  labCode: string
  status: string
  labAnswer: LabAnswer | null
  version: number
  document: string
}

export interface EvidenceRow {
  evidenceNumber: number
  uploadedBy: 'merchant' | 'lab'
  labCode: string | null
  claimNumber: number | null
  blobKey: string
  contentType: string
  bytes: number
}

const CLAIM_COLUMNS = `id AS "claimNumber", order_id AS "orderNumber", lab_code AS "labCode", status,
  lab_answer AS "labAnswer", version, document`

function toClaimRow(row: LabClaimRow): LabClaimRow {
  return {
    ...row,
    claimNumber: Number(row.claimNumber),
    orderNumber: Number(row.orderNumber),
    version: Number(row.version),
  }
}

/**
 * The lab's Live claims, newest first, `limit` of them, older than claim `before` when given (a cursor: claims made
 * while a lab pages do not shift its pages); `status` narrows them.
 */
export async function listLabClaims(
  db: Queryable,
  input: { labCode: string; before: number | null; limit: number; status: string | null },
): Promise<LabClaimRow[]> {
  const rows = await db.query<LabClaimRow>(
    `SELECT ${CLAIM_COLUMNS} FROM claims
      WHERE lab_code = $1 AND environment = 'live' AND ($2::bigint IS NULL OR id < $2::bigint)
        AND ($3::text IS NULL OR status = $3::text)
      ORDER BY id DESC LIMIT $4`,
    [input.labCode, input.before, input.status, input.limit],
  )
  return rows.map(toClaimRow)
}

/** One of the lab's Live claims; undefined when there is none or it is another lab's. */
export async function findLabClaim(
  db: Queryable,
  labCode: string,
  claimNumber: number,
): Promise<LabClaimRow | undefined> {
  const rows = await db.query<LabClaimRow>(
    `SELECT ${CLAIM_COLUMNS} FROM claims WHERE id = $1 AND lab_code = $2 AND environment = 'live'`,
    [claimNumber, labCode],
  )
  return rows[0] && toClaimRow(rows[0])
}

/** As findLabClaim, the row locked until the transaction ends. */
export async function lockLabClaim(
  tx: Queryable,
  labCode: string,
  claimNumber: number,
): Promise<LabClaimRow | undefined> {
  const rows = await tx.query<LabClaimRow>(
    `SELECT ${CLAIM_COLUMNS} FROM claims WHERE id = $1 AND lab_code = $2 AND environment = 'live' FOR UPDATE`,
    [claimNumber, labCode],
  )
  return rows[0] && toClaimRow(rows[0])
}

/**
 * Writes the lab's answer on the claim read at `version` (columns and document together, the version bumped) and
 * ties its photos to the claim; false when the claim changed since it was read.
 */
export async function saveLabAnswer(
  tx: Queryable,
  input: {
    claimNumber: number
    version: number
    answer: LabAnswer
    comment: string | null
    at: Date
    document: string
    evidenceNumbers: readonly number[]
  },
): Promise<boolean> {
  const updated = await tx.query(
    `UPDATE claims SET lab_answer = $3, lab_comment = $4, lab_answered_at = $5, updated_at = $5,
            version = version + 1, document = $6
      WHERE id = $1 AND version = $2 AND lab_answer IS NULL
      RETURNING id`,
    [input.claimNumber, input.version, input.answer, input.comment, input.at, input.document],
  )
  if (updated.length === 0) return false
  if (input.evidenceNumbers.length > 0) {
    await tx.query(`UPDATE claim_evidence SET claim_id = $1 WHERE id = ANY($2::bigint[]) AND claim_id IS NULL`, [
      input.claimNumber,
      input.evidenceNumbers,
    ])
  }
  return true
}

/** The next evd_ number, drawn before the photo is stored so that its blob can be named by it. */
export async function drawEvidenceNumber(db: Queryable): Promise<number> {
  const rows = await db.query<{ id: string | number }>(`SELECT nextval('claim_evidence_id_seq') AS id`)
  return Number(rows[0]?.id)
}

/** Stores a lab's photo under a number drawn with drawEvidenceNumber. */
export async function insertLabEvidence(
  db: Queryable,
  input: {
    evidenceNumber: number
    labCode: string
    blobKey: string
    contentType: string
    bytes: number
    width: number
    height: number
    at: Date
  },
): Promise<void> {
  await db.query(
    `INSERT INTO claim_evidence (id, account_id, environment, uploaded_by, lab_code, blob_key, content_type, bytes,
                                 width, height, created_at)
     VALUES ($1, NULL, 'live', 'lab', $2, $3, $4, $5, $6, $7, $8)`,
    [
      input.evidenceNumber,
      input.labCode,
      input.blobKey,
      input.contentType,
      input.bytes,
      input.width,
      input.height,
      input.at,
    ],
  )
}

const EVIDENCE_COLUMNS = `e.id AS "evidenceNumber", e.uploaded_by AS "uploadedBy", e.lab_code AS "labCode",
  e.claim_id AS "claimNumber", e.blob_key AS "blobKey", e.content_type AS "contentType", e.bytes`

function toEvidenceRow(row: EvidenceRow): EvidenceRow {
  return {
    ...row,
    evidenceNumber: Number(row.evidenceNumber),
    claimNumber: row.claimNumber === null ? null : Number(row.claimNumber),
    bytes: Number(row.bytes),
  }
}

/**
 * A photo the lab may see: its own, or one of a Live claim against it (the merchant's or its answer's); undefined
 * otherwise, exactly as when there is none.
 */
export async function findEvidenceForLab(
  db: Queryable,
  labCode: string,
  evidenceNumber: number,
): Promise<EvidenceRow | undefined> {
  const rows = await db.query<EvidenceRow>(
    `SELECT ${EVIDENCE_COLUMNS} FROM claim_evidence e LEFT JOIN claims c ON c.id = e.claim_id
      WHERE e.id = $1
        AND ((e.uploaded_by = 'lab' AND e.lab_code = $2)
             OR (c.lab_code = $2 AND c.environment = 'live'))`,
    [evidenceNumber, labCode],
  )
  return rows[0] && toEvidenceRow(rows[0])
}

/** These photos if each is the lab's own and still free (no claim uses it), locked until the transaction ends. */
export async function lockFreeLabEvidence(
  tx: Queryable,
  labCode: string,
  evidenceNumbers: readonly number[],
): Promise<EvidenceRow[]> {
  if (evidenceNumbers.length === 0) return []
  const rows = await tx.query<EvidenceRow>(
    `SELECT ${EVIDENCE_COLUMNS} FROM claim_evidence e
      WHERE e.id = ANY($1::bigint[]) AND e.uploaded_by = 'lab' AND e.lab_code = $2
      ORDER BY e.id FOR UPDATE`,
    [evidenceNumbers, labCode],
  )
  return rows.map(toEvidenceRow)
}

/** The lab's photos of each claim (its answer's), by claim number, in upload order. */
export async function labEvidenceOfClaims(
  db: Queryable,
  claimNumbers: readonly number[],
): Promise<Map<number, number[]>> {
  const result = new Map<number, number[]>()
  if (claimNumbers.length === 0) return result
  const rows = await db.query<{ claimNumber: string | number; evidenceNumber: string | number }>(
    `SELECT claim_id AS "claimNumber", id AS "evidenceNumber" FROM claim_evidence
      WHERE claim_id = ANY($1::bigint[]) AND uploaded_by = 'lab' ORDER BY id`,
    [claimNumbers],
  )
  for (const row of rows) {
    const claim = Number(row.claimNumber)
    result.set(claim, [...(result.get(claim) ?? []), Number(row.evidenceNumber)])
  }
  return result
}

/**
 * Every lab's quality counts since `since` (Live only): the claimed items of Resolved claims against it in the
 * `atFaultCategories`, resolved since then, and the items of its hand-offs shipped since then (each shipped
 * hand-off's shipment, its items as the order's document lists them). Labs with neither are absent.
 */
export async function readLabQualityCounts(
  db: Queryable,
  since: Date,
  atFaultCategories: readonly string[],
): Promise<LabQualityCounts[]> {
  const rows = await db.query<{ labCode: string; upheldItems: number; itemsShipped: number }>(
    `WITH upheld AS (
       SELECT c.lab_code, count(*)::int AS items FROM claims c JOIN claim_items i ON i.claim_id = c.id
        WHERE c.environment = 'live' AND c.status = 'Resolved' AND c.resolved_at >= $1
          AND i.category = ANY($2::text[])
        GROUP BY c.lab_code),
     shipped AS (
       SELECT sc.lab_code,
              sum((SELECT count(*) FROM jsonb_array_elements(o.document::jsonb -> 'shipments') AS s,
                                        jsonb_array_elements(s -> 'items') AS item
                    WHERE s ->> 'id' = 'shp_' || sc.shipment_id))::int AS items
         FROM shipment_costs sc JOIN orders o ON o.id = sc.order_id
        WHERE sc.environment = 'live' AND sc.outcome = 'Shipped' AND sc.outcome_at >= $1
        GROUP BY sc.lab_code)
     SELECT COALESCE(u.lab_code, s.lab_code) AS "labCode", COALESCE(u.items, 0) AS "upheldItems",
            COALESCE(s.items, 0) AS "itemsShipped"
       FROM upheld u FULL JOIN shipped s ON s.lab_code = u.lab_code
      ORDER BY 1`,
    [since, atFaultCategories],
  )
  return rows.map((row) => ({
    labCode: row.labCode,
    upheldItems: Number(row.upheldItems),
    itemsShipped: Number(row.itemsShipped),
  }))
}

/** A claim's lab and stored document (any lab, any environment), read in the transaction that made it. */
export async function readClaimForPush(
  tx: Queryable,
  claimNumber: number,
): Promise<{ labCode: string; environment: string; document: string } | undefined> {
  const rows = await tx.query<{ labCode: string; environment: string; document: string }>(
    `SELECT lab_code AS "labCode", environment, document FROM claims WHERE id = $1`,
    [claimNumber],
  )
  return rows[0]
}
