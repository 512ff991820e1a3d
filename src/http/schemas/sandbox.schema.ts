// The Sandbox's own endpoints (docs/sandbox.md): an order's scenario, and advancing an order by the simulated
// labs' steps. Served by the Sandbox server only.
import { Type } from 'typebox'
import { SANDBOX_CLAIM_TARGETS } from '../../domain/claims.ts'
import { ADVANCE_TARGETS, SANDBOX_SCENARIOS } from '../../domain/sandbox-scenarios.ts'
import { ClaimSchema } from './claims.schema.ts'
import {
  CaseInsensitiveEnum,
  Nullable,
  named,
  OkOutcome,
  Outcome,
  outcomeResponse,
  StringEnum,
} from './common.schema.ts'
import { OrderSchema } from './order.schema.ts'

export const AdvanceOrderBodySchema = named(
  'AdvanceOrderRequest',
  Type.Object(
    {
      to: Type.Optional(
        CaseInsensitiveEnum(
          ADVANCE_TARGETS,
          'How far to take the order: every shipment in production, every shipment shipped, the order Complete, or ' +
            'every parcel at the end of its carrier scans (Delivered; Returned for the scenario returned). Absent: one lab step.',
        ),
      ),
    },
    { additionalProperties: false },
  ),
)

export const AdvanceOrderResponseSchema = outcomeResponse(
  'AdvanceOrderResponse',
  Outcome(
    'AdvanceOrderOutcome',
    ['Updated', 'Ok'] as const,
    'Updated when the order moved; Ok when it had already reached `to` (the order unchanged).',
  ),
  { order: OrderSchema },
)

export const SandboxOrderResponseSchema = outcomeResponse('SandboxOrderResponse', OkOutcome, {
  sandboxOrder: named(
    'SandboxOrder',
    Type.Object({
      orderId: Type.String(),
      scenario: Nullable(
        StringEnum(SANDBOX_SCENARIOS, 'The scenario the order was created with (docs/sandbox.md), or null.'),
      ),
      cannotAdvance: Nullable(
        Type.String({ description: 'Why a plain advance would be refused now; null when it would move the order.' }),
      ),
    }),
  ),
})

export const AdvanceClaimBodySchema = named(
  'AdvanceClaimRequest',
  Type.Object(
    {
      to: Type.Optional(
        StringEnum(
          SANDBOX_CLAIM_TARGETS,
          "How the Sandbox's simulated operator decides the claim: Resolved (the merchant's preferredResolution, " +
            'Credit when it named none; the default) or Rejected.',
        ),
      ),
    },
    { additionalProperties: false },
  ),
)

export const AdvanceClaimResponseSchema = outcomeResponse(
  'AdvanceClaimResponse',
  Outcome(
    'AdvanceClaimOutcome',
    ['Updated', 'Ok'] as const,
    'Updated when the claim was decided now; Ok when it already was where `to` asks (the claim unchanged).',
  ),
  { claim: ClaimSchema },
)
