// Dashboard sessions (docs/dashboard.md): signing in exchanges an API key for a session token, which the
// browser keeps in an HttpOnly cookie; the key itself is never stored in the browser. A session acts as the
// key it was made from, in that key's environment, until it expires, the user signs out or the key is
// revoked. Changing requests made with a session must also carry its CSRF token.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'
import { formatId } from '../domain/ids.ts'
import { findActiveApiKeyOwner } from '../repositories/accounts.repository.ts'
import {
  deleteExpiredSessions,
  deleteSession,
  findLabSessionOwner,
  findOperatorSessionOwner,
  findSessionOwner,
  insertLabSession,
  insertOperatorSession,
  insertSession,
  type LabSessionOwner,
} from '../repositories/sessions.repository.ts'
import type { Caller } from './accounts.service.ts'
import { hashSecretKey } from './secret-keys.ts'

/** How long a session lasts from sign-in: a working day, then the key is asked for again. */
export const SESSION_LIFETIME_SECONDS = 12 * 3600
const SESSION_TOKEN_BYTES = 32
/** Separates the CSRF token's HMAC from any other use of the session token. */
const CSRF_CONTEXT = 'printroute dashboard csrf v1'

/** A session acts as the key it was made from: `keyPrefix` is that key's. */
export type SessionCaller = Caller

export type SignInResult =
  | { signedIn: true; token: string; csrfToken: string; expiresAt: Date }
  /** `otherEnvironment`: the key is valid, but for the other environment (named). */
  | { signedIn: false; reason: 'unknownKey' }
  /** The key is valid but its account is suspended by the operator. */
  | { signedIn: false; reason: 'accountSuspended' }
  | { signedIn: false; reason: 'otherEnvironment'; keyEnvironment: Environment }

/** The CSRF token of a session: derived from its token, so nothing more is stored and every process agrees. */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update(CSRF_CONTEXT).digest('base64url')
}

/** Whether `candidate` is the CSRF token of the session, compared in constant time. */
export function isCsrfTokenOf(sessionToken: string, candidate: unknown): boolean {
  if (typeof candidate !== 'string') return false
  const expected = Buffer.from(csrfTokenOf(sessionToken))
  const given = Buffer.from(candidate)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** A lab portal session stands for the lab key it was made from: its lab and the key's visible prefix. */
export type LabSessionCaller = LabSessionOwner

/** A console session's operator (docs/admin.md). */
export interface OperatorSessionCaller {
  /** `opr_N`. */
  id: string
  name: string
}

/**
 * Dashboard sessions (signed in with an API key), lab portal sessions (with a lab key) and console sessions
 * (with an operator token), held by a token.
 */
export interface SessionsService {
  /** Opens a session for an active key of `environment`; the token, or why the key was refused. */
  signIn(apiKey: string, environment: Environment): Promise<SignInResult>
  /** The caller a session token stands for in `environment`; undefined when it does not (any more). */
  authenticate(token: string, environment: Environment): Promise<SessionCaller | undefined>
  /** Ends the session of a token (either kind). */
  signOut(token: string): Promise<void>
  /** Opens a lab portal session for an active lab key; its token, or undefined for a key that is not one. */
  signInLab(labKey: string): Promise<{ token: string; expiresAt: Date } | undefined>
  /** The lab a lab portal session token stands for; undefined when it does not (any more). */
  authenticateLab(token: string): Promise<LabSessionCaller | undefined>
  /** Opens a console session for an unrevoked operator's token; the token and operator, or undefined. */
  signInOperator(
    operatorToken: string,
  ): Promise<{ token: string; expiresAt: Date; operator: OperatorSessionCaller } | undefined>
  /** The operator a console session token stands for; undefined when it does not (any more: expired, revoked). */
  authenticateOperator(token: string): Promise<OperatorSessionCaller | undefined>
}

export function createSessionsService(deps: { db: Database; clock: Clock }): SessionsService {
  const { db, clock } = deps
  return {
    async signIn(apiKey: string, environment: Environment): Promise<SignInResult> {
      const keyHash = hashSecretKey(apiKey.trim())
      const now = clock.now()
      const token = randomBytes(SESSION_TOKEN_BYTES).toString('base64url')
      const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000)
      const made = await db.transaction(async (tx) => {
        await deleteExpiredSessions(tx, now)
        return insertSession(tx, { tokenHash: hashSecretKey(token), keyHash, environment, createdAt: now, expiresAt })
      })
      if (made) return { signedIn: true, token, csrfToken: csrfTokenOf(token), expiresAt }
      const owner = await findActiveApiKeyOwner(db, keyHash)
      if (owner?.account.suspendedAt) return { signedIn: false, reason: 'accountSuspended' }
      if (owner && owner.environment !== environment) {
        return { signedIn: false, reason: 'otherEnvironment', keyEnvironment: owner.environment }
      }
      return { signedIn: false, reason: 'unknownKey' }
    },

    /**
     * The caller a session token stands for in `environment`; undefined when it does not (any more). Not
     * cached, unlike keys: one indexed lookup per request, and signing out or revoking the key bites at once.
     */
    async authenticate(token: string, environment: Environment): Promise<SessionCaller | undefined> {
      const owner = await findSessionOwner(db, hashSecretKey(token), clock.now())
      if (!owner || owner.environment !== environment) return undefined
      return {
        accountId: owner.accountId,
        environment: owner.environment,
        keyPrefix: owner.keyPrefix,
        via: 'session',
        pauseWindowSeconds: owner.pauseWindowSeconds,
        billingCurrency: owner.billingCurrency,
        scopes: owner.scopes,
      }
    },

    async signOut(token: string): Promise<void> {
      await deleteSession(db, hashSecretKey(token))
    },

    async signInLab(labKey: string): Promise<{ token: string; expiresAt: Date } | undefined> {
      const now = clock.now()
      const token = randomBytes(SESSION_TOKEN_BYTES).toString('base64url')
      const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000)
      const made = await db.transaction(async (tx) => {
        await deleteExpiredSessions(tx, now)
        return insertLabSession(tx, {
          tokenHash: hashSecretKey(token),
          keyHash: hashSecretKey(labKey.trim()),
          createdAt: now,
          expiresAt,
        })
      })
      return made ? { token, expiresAt } : undefined
    },

    /** Not cached either: signing out or revoking the lab key bites at once. */
    async authenticateLab(token: string): Promise<LabSessionCaller | undefined> {
      return findLabSessionOwner(db, hashSecretKey(token), clock.now())
    },

    async signInOperator(operatorToken: string) {
      const now = clock.now()
      const token = randomBytes(SESSION_TOKEN_BYTES).toString('base64url')
      const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000)
      const owner = await db.transaction(async (tx) => {
        await deleteExpiredSessions(tx, now)
        return insertOperatorSession(tx, {
          tokenHash: hashSecretKey(token),
          operatorTokenHash: hashSecretKey(operatorToken.trim()),
          createdAt: now,
          expiresAt,
        })
      })
      return owner && { token, expiresAt, operator: { id: formatId('opr', owner.operatorId), name: owner.name } }
    },

    /** Not cached: revoking the operator ends its sessions at their next request, in every process. */
    async authenticateOperator(token: string): Promise<OperatorSessionCaller | undefined> {
      const owner = await findOperatorSessionOwner(db, hashSecretKey(token), clock.now())
      return owner && { id: formatId('opr', owner.operatorId), name: owner.name }
    },
  }
}
