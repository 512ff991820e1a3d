// Credits on an order (docs/billing.md#late-delivery-credits): money given back by a rule rather than an operator's
// hand, each shown on the order's `credits[]`, made as a credit line on one of its charges (domain/charges.ts
// withCredit: a Refund charge and its credit note) and announced by a `creditIssued` event. Pure: the billing
// service draws the ids, issues the charge and its credit note, and settles it (services/billing.service.ts
// issueCredit).
//
// A late delivery on a guaranteed shipping method (docs/catalogue.md#shipping-guarantees) is the first reason; a
// claim's credit (`Claim`, with its claimId) is added the same way: `creditDraft` then `addCredit`.
import type { ShippingGuarantee } from './catalogue.types.ts'
import {
  type BillingState,
  netCharged,
  type PriceLine,
  refundableOfCharge,
  shippingLineKey,
  withCredit,
} from './charges.ts'
import { formatMinorAsAmount, parseAmountToMinor } from './money.ts'
import type { Charge, CreditReason, OrderCredit, OrderDocument } from './order.ts'
import type { OrderEventKind } from './order-events.ts'

export { CREDIT_REASONS, type CreditReason, keepCreditsLast, type OrderCredit } from './order.ts'

/** What a credit is about, before its money is worked out. */
export interface CreditRequest {
  reason: CreditReason
  shipmentId: string | null
  claimId?: string
  /** Asked for, tax included; the draft caps it at what the charge may still give back. */
  amountMinor: bigint
  /**
   * An amount someone chose (the operator's Refund or Credit of a claim): more than the charge may still give back
   * is refused (CreditAboveRefundable) rather than capped. Absent: capped, as a rule's credit is.
   */
  exact?: boolean
}

/** An exact credit above what its charge may still give back: nothing is credited. */
export class CreditAboveRefundable extends Error {
  readonly refundableMinor: bigint
  constructor(requestedMinor: bigint, refundableMinor: bigint) {
    super(
      `a credit of ${formatMinorAsAmount(requestedMinor)} is more than the ${formatMinorAsAmount(refundableMinor)} refundable`,
    )
    this.name = 'CreditAboveRefundable'
    this.refundableMinor = refundableMinor
  }
}

/** A credit ready to be charged: the charge it credits, the amount after the cap, the charged lines with it. */
export interface CreditDraft {
  request: CreditRequest
  chargeId: string
  amountMinor: bigint
  lines: Record<string, PriceLine>
}

const BASIS_POINTS_PER_WHOLE = 10_000n

/**
 * The late-delivery credit of a shipment whose shipping was charged `shippingChargedMinor` (cost plus tax): the
 * guarantee's share of it, rounded half-up to the minor unit once. 0 when the shipping was charged nothing.
 */
export function lateDeliveryCreditMinor(shippingChargedMinor: bigint, basisPoints: number): bigint {
  if (shippingChargedMinor <= 0n || basisPoints <= 0) return 0n
  return (2n * shippingChargedMinor * BigInt(basisPoints) + BASIS_POINTS_PER_WHOLE) / (2n * BASIS_POINTS_PER_WHOLE)
}

/** The order's credits (none: empty). */
export function creditsOf(order: OrderDocument): readonly OrderCredit[] {
  return order.credits ?? []
}

/** Whether a shipment already has its late-delivery credit: it is given once, whatever reports are repeated. */
export function hasLateDeliveryCredit(order: OrderDocument, shipmentId: string): boolean {
  return creditsOf(order).some((credit) => credit.reason === 'LateDelivery' && credit.shipmentId === shipmentId)
}

/**
 * What a guaranteed shipment delivered late is credited, or undefined when nothing is due: the shipment was not
 * delivered late, its method has no guarantee, it already has its credit, or its shipping was charged nothing.
 */
export function lateDeliveryCreditRequest(
  order: OrderDocument,
  billing: BillingState | undefined,
  shipmentId: string,
  guarantee: ShippingGuarantee | undefined,
): CreditRequest | undefined {
  const shipment = order.shipments.find((candidate) => candidate.id === shipmentId)
  if (!guarantee || !billing || shipment?.deliveredLate !== true) return undefined
  if (hasLateDeliveryCredit(order, shipmentId)) return undefined
  const line = billing.lines[shippingLineKey(shipmentId)]
  const charged = line ? BigInt(line.cost) + BigInt(line.tax) : 0n
  const amountMinor = lateDeliveryCreditMinor(charged, guarantee.basisPoints)
  return amountMinor > 0n ? { reason: 'LateDelivery', shipmentId, amountMinor } : undefined
}

/**
 * The charge a credit is made on: the one that charged the shipment's shipping (for a credit of a shipment), else
 * the order's first charge that took money. Undefined when nothing was charged.
 */
export function creditedCharge(order: OrderDocument, shipmentId: string | null): Charge | undefined {
  const took = (charge: Charge) => (parseAmountToMinor(charge.totalCost.amount) ?? 0n) > 0n
  const ofShipment =
    shipmentId === null
      ? undefined
      : order.charges.find(
          (charge) =>
            took(charge) &&
            charge.items.some((item) => item.chargeType === 'Shipping' && item.shipmentId === shipmentId),
        )
  return ofShipment ?? order.charges.find(took)
}

/**
 * The credit as it will be charged: on `creditedCharge`, capped at what that charge may still give back (its total
 * less the credits already made on it, never more than the order still nets), as a credit line of its own
 * (domain/charges.ts withCredit: its tax the order's share of tax, rounded half-up once). Undefined when nothing
 * is left to credit. The one place a credit's amount is checked: an `exact` request above what may be given back
 * throws CreditAboveRefundable instead of being capped.
 */
export function creditDraft(
  order: OrderDocument,
  billing: BillingState,
  request: CreditRequest,
): CreditDraft | undefined {
  const charge = creditedCharge(order, request.shipmentId)
  if (!charge || request.amountMinor <= 0n || netCharged(billing.lines).total <= 0n) return undefined
  const refundable = refundableOfCharge(billing, charge.id, parseAmountToMinor(charge.totalCost.amount) ?? 0n)
  if (request.exact && request.amountMinor > refundable) {
    throw new CreditAboveRefundable(request.amountMinor, refundable)
  }
  const amountMinor = request.amountMinor < refundable ? request.amountMinor : refundable
  if (amountMinor <= 0n) return undefined
  return { request, chargeId: charge.id, amountMinor, lines: withCredit(billing.lines, charge.id, amountMinor) }
}

/** The `credits[]` entry of a charged draft. */
export function creditOf(
  draft: CreditDraft,
  ids: { creditId: string; creditNote: string | null },
  currency: string,
  now: Date,
): OrderCredit {
  const { reason, shipmentId, claimId } = draft.request
  return {
    id: ids.creditId,
    reason,
    shipmentId,
    amount: { amount: formatMinorAsAmount(draft.amountMinor), currency },
    creditNote: ids.creditNote,
    issuedAt: now.toISOString(),
    ...(claimId === undefined ? {} : { claimId }),
  }
}

/**
 * Adds a credit to the order's `credits[]`, the document's last key: created with the first credit (an order
 * without credits has no key, byte for byte as before), and kept last.
 */
export function addCredit(order: OrderDocument, credit: OrderCredit): void {
  const credits = [...creditsOf(order), credit]
  delete order.credits
  order.credits = credits
}

/** The event of a credit: to webhook endpoints and the events feed only, carrying the entry as `data.credit`. */
export function creditIssuedEvent(credit: OrderCredit): OrderEventKind {
  return { kind: 'creditIssued', creditId: credit.id, credit: { ...credit } }
}
