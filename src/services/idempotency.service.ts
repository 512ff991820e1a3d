// Idempotent POSTs of the merchant API (docs/api.md#idempotent-requests): a request with an Idempotency-Key claims
// the key before its work; its answer is stored; a retry of the same request gets that answer again.
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { AuditActor } from '../domain/audit.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import {
  deleteClaim,
  deleteIdempotentRequestsClaimedBefore,
  findIdempotentRequest,
  type IdempotencyKeyOf,
  insertClaim,
  replaceClaim,
  storeAnswer,
} from '../repositories/idempotency.repository.ts'

/** Longest `Idempotency-Key` accepted (docs/api.md#idempotent-requests). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255
/** How long a key and its stored answer are kept, from the first request. */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60
/**
 * A claim whose request has not answered after this long was abandoned (its process crashed or lost the
 * database): the next request with the key takes it over. Twice the 60-second request timeout, after which no
 * request is still working.
 */
export const ABANDONED_CLAIM_SECONDS = 120

export type { IdempotencyKeyOf }

export interface StoredAnswer {
  statusCode: number
  contentType: string
  body: string
}

export type IdempotencyClaim =
  /** This request holds the key: do the work, then `complete` or `release`. */
  | { kind: 'claimed'; claimToken: string }
  /** The same request was answered before: send this answer again. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** Another request (different method, path or body) used this key. */
  | { kind: 'mismatch' }
  /**
   * Another API key of the account (or a claim from before keys were recorded) holds this key, answered or in
   * flight: its answer is never given to this one. The refusal is in the audit trail.
   */
  | { kind: 'otherApiKey' }
  /** The request that holds the key has not answered yet. */
  | { kind: 'inFlight' }

/** Who makes a request with an Idempotency-Key, and what the request is. */
export interface IdempotencyClaimant {
  /** The API key, or the dashboard session made from one (the same key): the audit trail's actor for a refusal. */
  actor: Extract<AuditActor, { kind: 'key' | 'session' }>
  /** The request as the audit trail names it: `POST /v4.0/account/keys` (the route, never a secret). */
  request: string
}

export interface IdempotencyService {
  /** Claims the key for this request, or says why not: its stored answer, another request's, another API key's. */
  claim(of: IdempotencyKeyOf, requestHash: string, claimant: IdempotencyClaimant): Promise<IdempotencyClaim>
  complete(of: IdempotencyKeyOf, claimToken: string, answer: StoredAnswer): Promise<void>
  release(of: IdempotencyKeyOf, claimToken: string): Promise<void>
  /** Deletes keys past their 24 hours (the expire-idempotent-requests job); returns how many. */
  expireIdempotentRequests(): Promise<number>
}

/**
 * What the table keeps of a key: its SHA-256, never the key itself. With the answer sealed by a key derived from the
 * Idempotency-Key (below), the table alone gives back no answer: a new API key's secret in a stored answer of
 * POST /account/keys stays unreadable to anyone who reads the database but does not hold the client's key.
 */
function storedKeyOf(of: IdempotencyKeyOf): IdempotencyKeyOf {
  return { ...of, key: createHash('sha256').update(`printroute idempotency key\n${of.key}`).digest('hex') }
}

function answerKeyOf(idempotencyKey: string): Buffer {
  return createHash('sha256').update(`printroute idempotent answer\n${idempotencyKey}`).digest()
}

/** The answer's body encrypted (AES-256-GCM) with the key's own secret: `base64(iv | tag | ciphertext)`. */
export function sealAnswerBody(idempotencyKey: string, body: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', answerKeyOf(idempotencyKey), iv)
  const sealed = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')
}

export function openAnswerBody(idempotencyKey: string, stored: string): string {
  const bytes = Buffer.from(stored, 'base64')
  const decipher = createDecipheriv('aes-256-gcm', answerKeyOf(idempotencyKey), bytes.subarray(0, 12))
  decipher.setAuthTag(bytes.subarray(12, 28))
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
}

/**
 * The audit entry of a request refused because another API key holds its Idempotency-Key: a security event (a key
 * asking for what another key was answered), recorded on its own since nothing else is written. It names the
 * request and the key holding the Idempotency-Key, never the Idempotency-Key itself (it opens the stored answer).
 */
async function recordRefusal(
  db: Database,
  at: Date,
  of: IdempotencyKeyOf,
  claimant: IdempotencyClaimant,
  stored: { apiKeyPrefix: string | null; answer?: unknown },
): Promise<void> {
  await appendAuditEvent(
    db,
    {
      actor: claimant.actor,
      action: 'idempotencyKey.refused',
      accountId: of.accountId,
      environment: of.environment,
      target: stored.apiKeyPrefix,
      after: {
        request: claimant.request,
        reason: 'AnotherApiKey',
        heldBy: stored.apiKeyPrefix,
        answered: stored.answer !== undefined,
      },
    },
    at,
  )
}

/** What makes two requests "the same": method, path and body (the body's bytes as JSON). */
/**
 * What a request is aimed at, for its hash: the route as registered with its parameters and query, not the raw URL.
 * Routes match case-insensitively and with or without a trailing slash, so `/v4.0/Quotes/` is the same request as
 * `/v4.0/quotes`, while a parameter's value (a key prefix is case-sensitive) stays exactly as sent.
 */
export function idempotentRequestTarget(route: string, params: unknown = {}, query: unknown = {}): string {
  return `${route} ${JSON.stringify(params ?? {})} ${JSON.stringify(query ?? {})}`
}

export function idempotentRequestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${path}\n${body === undefined ? '' : JSON.stringify(body)}`)
    .digest('hex')
}

export function createIdempotencyService(deps: {
  db: Database
  clock: Clock
  abandonedClaimSeconds?: number
}): IdempotencyService {
  const { db, clock } = deps
  const abandonedMs = (deps.abandonedClaimSeconds ?? ABANDONED_CLAIM_SECONDS) * 1000
  const retentionMs = IDEMPOTENCY_RETENTION_SECONDS * 1000

  return {
    async claim(requested, requestHash, claimant) {
      const of = storedKeyOf(requested)
      const apiKeyPrefix = claimant.actor.keyPrefix
      // Two rounds at most: a claim read and then gone (expired and deleted meanwhile) is claimed afresh once.
      for (let round = 0; round < 2; round++) {
        const now = clock.now()
        const claimToken = randomUUID()
        const claim = { requestHash, claimToken, claimedAt: now, apiKeyPrefix }
        if (await insertClaim(db, of, claim)) return { kind: 'claimed', claimToken }
        const stored = await findIdempotentRequest(db, of)
        if (!stored) continue
        const age = now.getTime() - stored.claimedAt.getTime()
        // Past its retention the key is free, whatever it was used for (the job may not have deleted it yet).
        const expired = age >= retentionMs
        // The key, its answer and its claim belong to the API key that made the request, not to whoever has the
        // same scopes: the answer may hold a secret (a new API key) that another key was not given.
        if (!expired && stored.apiKeyPrefix !== apiKeyPrefix) {
          await recordRefusal(db, clock.now(), requested, claimant, stored)
          return { kind: 'otherApiKey' }
        }
        if (!expired && stored.requestHash !== requestHash) return { kind: 'mismatch' }
        if (!expired && stored.answer) {
          return {
            kind: 'replay',
            answer: { ...stored.answer, body: openAnswerBody(requested.key, stored.answer.body) },
          }
        }
        if (!expired && age < abandonedMs) return { kind: 'inFlight' }
        if (await replaceClaim(db, of, stored.claimToken, claim)) return { kind: 'claimed', claimToken }
        // Another request took it over first: it is in flight now.
        return { kind: 'inFlight' }
      }
      return { kind: 'inFlight' }
    },
    async complete(of, claimToken, answer) {
      await storeAnswer(db, storedKeyOf(of), claimToken, { ...answer, body: sealAnswerBody(of.key, answer.body) })
    },
    async release(of, claimToken) {
      await deleteClaim(db, storedKeyOf(of), claimToken)
    },
    async expireIdempotentRequests() {
      return deleteIdempotentRequestsClaimedBefore(db, new Date(clock.now().getTime() - retentionMs))
    },
  }
}
