// The Sandbox's simulated operator for claims (docs/sandbox.md#claims): POST /v4.0/sandbox/claims/{id}/advance
// decides a Sandbox claim at once, as the operator would in the console, so an integration sees the whole life of a
// claim (its Resolved or Rejected event, a reprint shipment, a credit note in the Sandbox series) without waiting for
// anyone. Resolved takes the merchant's preferred resolution (Credit when it named none); Rejected gives the reason
// below. Through the claim resolution service, like every decision: the same locks, rules and events.

import type { ClaimView, SandboxClaimTarget } from '../domain/claims.ts'
import { claimRefusalWords, OperatorRefusal } from '../domain/operator-refusal.ts'
import { validationFailed } from '../domain/outcomes.ts'
import type { Caller } from './accounts.service.ts'
import type { ClaimResolutionService } from './claim-resolution.service.ts'
import type { ClaimsService } from './claims.service.ts'

/** The reason the simulated operator gives when it rejects a claim. */
export const SANDBOX_REJECTION_REASON = "Rejected by the Sandbox's simulated operator"

export interface SandboxClaimsService {
  /** Decides the caller's Sandbox claim; `changed` is false when it already was where `to` asks. */
  advance(caller: Caller, claimId: string, to?: SandboxClaimTarget): Promise<{ claim: ClaimView; changed: boolean }>
}

export function createSandboxClaimsService(deps: {
  claims: Pick<ClaimsService, 'getClaim'>
  claimResolution: Pick<ClaimResolutionService, 'resolve'>
}): SandboxClaimsService {
  return {
    async advance(caller, claimId, to = 'Resolved') {
      // The caller's own claim, or 404 as if unknown.
      const claim = JSON.parse(await deps.claims.getClaim(caller, claimId)) as ClaimView
      if (claim.status === to) return { claim, changed: false }
      if (claim.status !== 'Pending') {
        throw validationFailed(
          { status: [{ code: 'InvalidValue', providedValue: claim.status, validValues: ['Pending'] }] },
          `Claim ${claim.id} is ${claim.status}: only a Pending claim can be decided`,
        )
      }
      const decision = to === 'Rejected' ? 'Reject' : (claim.preferredResolution ?? 'Credit')
      try {
        const result = await deps.claimResolution.resolve(
          { claimId: claim.id, decision, ...(to === 'Rejected' ? { note: SANDBOX_REJECTION_REASON } : {}) },
          { kind: 'system' },
        )
        return { claim: result.claim, changed: true }
      } catch (error) {
        // What the operator would be told (no lab for the reprint, nothing charged to refund), as the API says it.
        if (!(error instanceof OperatorRefusal)) throw error
        const words =
          error.field === 'claim'
            ? claimRefusalWords(error)
            : `${claim.orderId} has nothing charged left to credit (${error.field}: ${error.reason})`
        throw validationFailed(
          { claimId: [{ code: 'InvalidValue', providedValue: claim.id, comparisonValue: words }] },
          `Claim ${claim.id} cannot be decided so: ${words}`,
        )
      }
    },
  }
}
