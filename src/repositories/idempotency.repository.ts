// SQL for idempotent POSTs (migration 0025, docs/api.md#idempotent-requests): claiming a key, storing the answer
// of the request holding it, and forgetting keys past their retention.
import type { Queryable } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'
import { deletedRows } from './row-counts.ts'

export interface IdempotencyKeyOf {
  accountId: number
  environment: Environment
  key: string
}

export interface StoredIdempotentRequest {
  /** The prefix of the API key whose request claimed the key; null for claims made before migration 0029. */
  apiKeyPrefix: string | null
  requestHash: string
  claimToken: string
  claimedAt: Date
  /** Absent while the request holding the claim is in flight. */
  answer?: { statusCode: number; contentType: string; body: string }
}

/** A request's claim of a key: what it asks, its token, when, and the API key making it. */
export interface NewClaim {
  requestHash: string
  claimToken: string
  claimedAt: Date
  apiKeyPrefix: string
}

/**
 * Claims the key for a new request, in a statement of its own so that, on PostgreSQL, two processes racing
 * for one key see exactly one winner. False when the key is already taken (by a finished or running request).
 */
export async function insertClaim(db: Queryable, of: IdempotencyKeyOf, claim: NewClaim): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotent_requests (account_id, environment, idempotency_key, request_hash, claim_token, claimed_at,
                                      api_key_prefix)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (account_id, environment, idempotency_key) DO NOTHING
     RETURNING claim_token`,
    [of.accountId, of.environment, of.key, claim.requestHash, claim.claimToken, claim.claimedAt, claim.apiKeyPrefix],
  )
  return rows.length > 0
}

export async function findIdempotentRequest(
  db: Queryable,
  of: IdempotencyKeyOf,
): Promise<StoredIdempotentRequest | undefined> {
  const rows = await db.query<{
    apiKeyPrefix: string | null
    requestHash: string
    claimToken: string
    claimedAt: Date | string
    statusCode: number | null
    contentType: string | null
    responseBody: string | null
  }>(
    `SELECT api_key_prefix AS "apiKeyPrefix", request_hash AS "requestHash", claim_token AS "claimToken", claimed_at AS "claimedAt",
            status_code AS "statusCode", content_type AS "contentType", response_body AS "responseBody"
       FROM idempotent_requests
      WHERE account_id = $1 AND environment = $2 AND idempotency_key = $3`,
    [of.accountId, of.environment, of.key],
  )
  const row = rows[0]
  if (!row) return undefined
  return {
    apiKeyPrefix: row.apiKeyPrefix,
    requestHash: row.requestHash,
    claimToken: row.claimToken,
    claimedAt: new Date(row.claimedAt),
    ...(row.statusCode === null
      ? {}
      : {
          answer: {
            statusCode: Number(row.statusCode),
            contentType: row.contentType ?? 'application/json; charset=utf-8',
            body: row.responseBody ?? '',
          },
        }),
  }
}

/**
 * Takes over a claim that was abandoned or is past its retention: only if it is still the one that was read
 * (`previousToken`), so of two requests taking over the same claim one wins.
 */
export async function replaceClaim(
  db: Queryable,
  of: IdempotencyKeyOf,
  previousToken: string,
  claim: NewClaim,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE idempotent_requests
        SET request_hash = $5, claim_token = $6, claimed_at = $7, api_key_prefix = $8,
            status_code = NULL, content_type = NULL, response_body = NULL
      WHERE account_id = $1 AND environment = $2 AND idempotency_key = $3 AND claim_token = $4
     RETURNING claim_token`,
    [
      of.accountId,
      of.environment,
      of.key,
      previousToken,
      claim.requestHash,
      claim.claimToken,
      claim.claimedAt,
      claim.apiKeyPrefix,
    ],
  )
  return rows.length > 0
}

/** Stores the answer of the request holding the claim; nothing when another request has taken the claim over. */
export async function storeAnswer(
  db: Queryable,
  of: IdempotencyKeyOf,
  claimToken: string,
  answer: { statusCode: number; contentType: string; body: string },
): Promise<void> {
  await db.query(
    `UPDATE idempotent_requests SET status_code = $5, content_type = $6, response_body = $7
      WHERE account_id = $1 AND environment = $2 AND idempotency_key = $3 AND claim_token = $4`,
    [of.accountId, of.environment, of.key, claimToken, answer.statusCode, answer.contentType, answer.body],
  )
}

/** Frees the key (the request failed in a way a retry should repeat); only while this request holds it. */
export async function deleteClaim(db: Queryable, of: IdempotencyKeyOf, claimToken: string): Promise<void> {
  await db.query(
    `DELETE FROM idempotent_requests
      WHERE account_id = $1 AND environment = $2 AND idempotency_key = $3 AND claim_token = $4`,
    [of.accountId, of.environment, of.key, claimToken],
  )
}

/** Deletes keys claimed before `claimedBefore`; returns how many. */
export async function deleteIdempotentRequestsClaimedBefore(db: Queryable, claimedBefore: Date): Promise<number> {
  return deletedRows(db, 'DELETE FROM idempotent_requests WHERE claimed_at < $1 RETURNING claim_token', [claimedBefore])
}
