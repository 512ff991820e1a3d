// The Sandbox's simulated operator for claims (docs/sandbox.md#claims): POST /v4.0/sandbox/claims/{id}/advance
// decides a Sandbox claim at once, as the operator would in the console, so an integration sees the whole life of a
// claim (its Resolved or Rejected event, a reprint shipment, a credit note in the Sandbox series) without waiting for
// anyone. Resolved takes the merchant's preferred resolution (Credit when it named none); Rejected gives the reason
// below. Through the claim resolution service, like every decision: the same locks, rules and events.
//
// The scenarios claimsResolved and claimsRejected have the simulated operator decide by itself: a claim made on such
// an order causes a simulated-claim-decision job a simulated lab's step later (claims.service.ts), which decides it
// here as advance would, unless the claim was decided or retracted meanwhile.

import type { Database } from '../adapters/database.ts'
import type { ClaimView, SandboxClaimTarget } from '../domain/claims.ts'
import { parseId } from '../domain/ids.ts'
import { claimRefusalWords, OperatorRefusal } from '../domain/operator-refusal.ts'
import { validationFailed } from '../domain/outcomes.ts'
import { simulatedClaimDecision } from '../domain/sandbox-scenarios.ts'
import { readClaim } from '../repositories/claim-resolution.repository.ts'
import { readOrder } from '../repositories/orders.repository.ts'
import type { Caller } from './accounts.service.ts'
import type { ClaimResolutionService } from './claim-resolution.service.ts'
import type { ClaimsService } from './claims.service.ts'
import type { ServiceLogger } from './observability.ts'

/** The reason the simulated operator gives when it rejects a claim. */
export const SANDBOX_REJECTION_REASON = "Rejected by the Sandbox's simulated operator"

export interface SandboxClaimsService {
  /** Decides the caller's Sandbox claim; `changed` is false when it already was where `to` asks. */
  advance(caller: Caller, claimId: string, to?: SandboxClaimTarget): Promise<{ claim: ClaimView; changed: boolean }>
  /**
   * The simulated-claim-decision job: decides a Pending Sandbox claim as its order's scenario says (claimsResolved,
   * claimsRejected); whether it did. Nothing for a claim decided or retracted meanwhile, a Live one, or an order of
   * another scenario; a decision the operator would be refused (no lab for the reprint) is logged and the claim
   * stays Pending for advance.
   */
  decideByScenario(claimId: string): Promise<boolean>
}

export function createSandboxClaimsService(deps: {
  db: Database
  claims: Pick<ClaimsService, 'getClaim'>
  claimResolution: Pick<ClaimResolutionService, 'resolve'>
  log: ServiceLogger
}): SandboxClaimsService {
  return {
    async decideByScenario(claimId) {
      const claim = await readClaim(deps.db, parseId('clm', claimId) ?? 0)
      if (claim?.environment !== 'sandbox' || claim.status !== 'Pending') return false
      const order = await readOrder(deps.db, claim.orderNumber)
      const to = simulatedClaimDecision(order?.sandboxScenario ?? null)
      if (!to) return false
      const decision = to === 'Rejected' ? 'Reject' : (claim.view.preferredResolution ?? 'Credit')
      try {
        await deps.claimResolution.resolve(
          {
            claimId: claim.view.id,
            decision,
            ...(to === 'Rejected' ? { note: SANDBOX_REJECTION_REASON } : {}),
            // Decided or retracted since it was read: the later change is refused, nothing is done twice.
            expectedVersion: claim.version,
          },
          { kind: 'system' },
        )
        return true
      } catch (error) {
        if (!(error instanceof OperatorRefusal)) throw error
        deps.log.warn(
          { orderId: claim.view.orderId, step: 'claim', claimId: claim.view.id },
          `Sandbox claim ${claim.view.id} left Pending: the simulated operator could not decide it (${error.message})`,
        )
        return false
      }
    },

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
