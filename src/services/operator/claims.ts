// The operator's claims (docs/claims.md#resolutions, docs/admin.md#claims): the queue, one claim, and its
// resolution - Reprint, Refund, Credit or Reject - one function each, called by the command line
// (operator.service.ts: `printroute claims list|show|resolve`) and the console's claims section
// (web/operator/claims.pages.ts) alike. The rules are the claim resolution service's; refusals are OperatorRefusals
// each front end words.
import { CLAIM_STATUSES, type ClaimStatus } from '../../domain/claims.ts'
import { parseId } from '../../domain/ids.ts'
import { OperatorRefusal } from '../../domain/operator-refusal.ts'
import type {
  ClaimDecider,
  ClaimDetail,
  ClaimResolutionResult,
  ClaimResolutionService,
  ClaimSummary,
} from '../claim-resolution.service.ts'
import type { OperatorContext } from './context.ts'
import { refused } from './context.ts'

export type { ClaimDetail, ClaimResolutionResult, ClaimSummary }

/** What the claims actions run on: the claim resolution service (built when first needed) and who acts. */
export type ClaimsDeps = Pick<OperatorContext, 'claims' | 'actor'>

/** The queue's filters as the operator gives them; each may be absent. */
export interface ClaimQueueRequest {
  status?: string
  account?: string
  lab?: string
}

/** A claim's decision as the operator gives it: the version is the console's (the claim as its page showed it). */
export interface ClaimDecisionRequest {
  claim: string
  resolution: string
  note?: string
  amount?: string
  version?: string | number
}

function deciderOf(deps: ClaimsDeps): ClaimDecider {
  const actor = deps.actor
  if (actor.kind !== 'operator' && actor.kind !== 'cli' && actor.kind !== 'system') {
    throw new Error(`a claim decided by ${actor.kind}`)
  }
  return actor
}

/** The queue's filters checked: a status of the claims' statuses, an account ID; refused otherwise. */
export function claimQueueFilterOf(input: ClaimQueueRequest): {
  status?: ClaimStatus
  accountNumber?: number
  labCode?: string
} {
  const status = typeof input.status === 'string' ? input.status.trim() : ''
  const account = typeof input.account === 'string' ? input.account.trim() : ''
  const lab = typeof input.lab === 'string' ? input.lab.trim() : ''
  const known = CLAIM_STATUSES.find((candidate) => candidate.toLowerCase() === status.toLowerCase())
  if (status !== '' && !known) throw refused(`--status must be one of ${CLAIM_STATUSES.join(', ')}, got "${status}"`)
  const accountNumber = account === '' ? undefined : parseId('acc', account.toLowerCase())
  if (account !== '' && accountNumber === undefined) {
    throw new OperatorRefusal({ field: 'account', reason: 'not-an-id' }, account)
  }
  return {
    ...(known ? { status: known } : {}),
    ...(accountNumber !== undefined ? { accountNumber } : {}),
    ...(lab !== '' ? { labCode: lab } : {}),
  }
}

/** Claims, Pending first, then oldest first (at most 200). */
export async function listClaims(deps: ClaimsDeps, input: ClaimQueueRequest): Promise<ClaimSummary[]> {
  return (await deps.claims()).list(claimQueueFilterOf(input))
}

/** One claim with its items, photos and the lab's answer; refused for an unknown claim. */
export async function showClaim(deps: ClaimsDeps, input: { claim: string }): Promise<ClaimDetail> {
  const claim = typeof input.claim === 'string' ? input.claim.trim() : ''
  if (parseId('clm', claim.toLowerCase()) === undefined) {
    throw new OperatorRefusal({ field: 'claim', reason: 'not-an-id' }, claim)
  }
  const detail = await (await deps.claims()).show(claim)
  if (!detail) throw new OperatorRefusal({ field: 'claim', reason: 'unknown' }, claim)
  return detail
}

/** Decides a Pending claim: Reprint, Refund, Credit (an amount, else what the items cost) or Reject (a note). */
export async function resolveClaim(deps: ClaimsDeps, input: ClaimDecisionRequest): Promise<ClaimResolutionResult> {
  const version = input.version === undefined || input.version === '' ? undefined : Number(input.version)
  return (await deps.claims()).resolve(
    {
      claimId: typeof input.claim === 'string' ? input.claim : '',
      decision: typeof input.resolution === 'string' ? input.resolution : '',
      ...(typeof input.note === 'string' ? { note: input.note } : {}),
      ...(typeof input.amount === 'string' ? { amount: input.amount } : {}),
      ...(version !== undefined && Number.isInteger(version) ? { expectedVersion: version } : {}),
    },
    deciderOf(deps),
  )
}

export type { ClaimResolutionService }
