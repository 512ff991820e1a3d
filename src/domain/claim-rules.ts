// The rules a merchant's new claim is held to (docs/claims.md#rules), pure: which items and shipments may be claimed
// for, within which window, with which photos, against which lab. The claims service gathers the facts (the order
// under its lock, the evidence named, the items' open claims) and turns a refusal into the 400 naming the field; a
// planned claim is what it writes. Nothing here reads the clock or the database.
import {
  type ClaimCategoryName,
  type ClaimItemView,
  type ClaimStatus,
  type ClaimView,
  claimCategory,
  EVIDENCE_LIFETIME_MS,
  MAX_EVIDENCE_PER_ITEM,
  type PreferredResolution,
} from './claims.ts'
import { addFailure, type Failures, hasFailures } from './failures.ts'
import { formatId, invalidIdFailure, parseId } from './ids.ts'
import type { OrderDocument, Shipment } from './order.ts'

const DAY_MS = 24 * 60 * 60 * 1000

/** POST /v4.0/orders/{id}/claims's body: item claims, or a whole parcel missing (`category` + `shipmentId`). */
export interface ClaimRequest {
  items?: { itemId: string; category: string; description: string; evidence?: string[] }[]
  category?: string
  shipmentId?: string
  description?: string
  preferredResolution?: PreferredResolution
}

/** A photo named by a claim, as the claims service found it among the caller's own evidence. */
export interface EvidenceFact {
  id: number
  /** Already used by a claim (or a lab's answer). */
  used: boolean
  createdAt: Date
}

export interface ClaimFacts {
  now: Date
  windowDays: number
  /** The caller's own merchant evidence among the ids the request names (another account's is simply absent). */
  evidence: ReadonlyMap<number, EvidenceFact>
  /** Item number -> the open claim (clm_ id) that holds it. */
  openClaims: ReadonlyMap<number, string>
}

/** A claim ready to be written: its items with their shipments, the lab, the evidence to attach. */
export interface PlannedClaim {
  shipmentNumber: number | null
  labCode: string
  preferredResolution: PreferredResolution | null
  items: (ClaimItemView & { itemNumber: number; shipmentNumber: number })[]
  evidenceNumbers: number[]
}

export type ClaimPlan =
  | { kind: 'planned'; claim: PlannedClaim }
  | { kind: 'refused'; failures: Failures }
  /** Evidence not found for the caller (another account's, expired, deleted): 404 as if unknown. */
  | { kind: 'evidenceNotFound'; evidenceId: string }

/** The shipment of the order that carried the item and shipped, or why none can be claimed for. */
function shippedShipmentOf(
  order: OrderDocument,
  itemId: string,
): { shipment: Shipment } | { refusal: Failures[string][number] } {
  const carrying = order.shipments.filter((shipment) => shipment.items.some((item) => item.itemId === itemId))
  const shipped = carrying.find((shipment) => shipment.status === 'Shipped' && !shipment.cancelled)
  if (shipped) return { shipment: shipped }
  const cancelled = order.status.stage === 'Cancelled' || carrying.some((shipment) => shipment.cancelled)
  return cancelled
    ? { refusal: { code: 'ShipmentCancelled', providedValue: itemId } }
    : { refusal: { code: 'ShipmentNotShipped', providedValue: itemId, comparisonValue: 'Shipped' } }
}

/** The last moment a claim may be made about the shipment's items: delivery (or dispatch) + the window. */
export function itemClaimDeadline(shipment: Shipment, windowDays: number): Date | null {
  const start = shipment.deliveredAt ?? shipment.dispatchDate
  if (!start) return null
  return new Date(new Date(start).getTime() + windowDays * DAY_MS)
}

/** The end of the day `date` (YYYY-MM-DD or an instant), in UTC: a parcel is missing only once its last day is over. */
function endOfDay(date: string): Date {
  const day = date.slice(0, 10)
  return new Date(new Date(`${day}T00:00:00.000Z`).getTime() + DAY_MS)
}

/** When a parcel may be reported missing: from the end of its estimated delivery (or its dispatch) to the window's end. */
export function missingParcelWindow(shipment: Shipment, windowDays: number): { from: Date; to: Date } | null {
  const due = shipment.estimatedDelivery?.to ?? shipment.dispatchDate
  if (!due) return null
  const from = endOfDay(due)
  return { from, to: new Date(from.getTime() + windowDays * DAY_MS) }
}

/** The largest `--missing-parcel-reprint-days`: beyond it the claim window (at most a year) has long closed. */
export const MAX_MISSING_PARCEL_REPRINT_DAYS = 60

/**
 * The missing-parcel rule (docs/claims.md#automatic-rules): whether printroute reports this parcel missing by itself
 * now. A shipment that shipped with tracking, is not cancelled and has no `Delivered` (nor `Returned`) scan, `reprintDays` whole days
 * after its estimated delivery was over (missingParcelWindow's `from`), while a merchant could still claim for it
 * (before the window's end): a parcel whose window closed is left alone, as a merchant's claim would be refused.
 */
export function missingParcelRuleDue(shipment: Shipment, reprintDays: number, windowDays: number, now: Date): boolean {
  if (reprintDays <= 0 || shipment.cancelled || shipment.status !== 'Shipped' || !shipment.tracking) return false
  if (shipment.deliveryStatus === 'Delivered' || shipment.deliveredAt) return false
  // A parcel its carrier brought back is not lost: sent again to the same address it would likely come back too.
  if (shipment.deliveryStatus === 'Returned') return false
  const window = missingParcelWindow(shipment, windowDays)
  if (!window) return false
  return now.getTime() >= window.from.getTime() + reprintDays * DAY_MS && now <= window.to
}

/** The description of a claim the missing-parcel rule makes (the merchant sees it on the claim). */
export function missingParcelRuleDescription(reprintDays: number): string {
  return `Reported by printroute: no Delivered scan ${reprintDays} days after the estimated delivery`
}

function checkEvidence(
  ids: readonly string[],
  path: string,
  facts: ClaimFacts,
  failures: Failures,
  seen: Set<number>,
): { numbers: number[]; notFound?: string } {
  const numbers: number[] = []
  for (const [index, id] of ids.entries()) {
    const field = `${path}[${index}]`
    const number = parseId('evd', id)
    if (number === undefined) {
      addFailure(failures, field, invalidIdFailure('evd', id))
      continue
    }
    const fact = facts.evidence.get(number)
    if (!fact || fact.createdAt.getTime() + EVIDENCE_LIFETIME_MS < facts.now.getTime()) return { numbers, notFound: id }
    if (fact.used || seen.has(number)) {
      addFailure(failures, field, { code: 'EvidenceAlreadyUsed', providedValue: id })
      continue
    }
    seen.add(number)
    numbers.push(number)
  }
  return { numbers }
}

function blank(text: string | undefined): boolean {
  return text !== undefined && text.trim() === ''
}

/** Item claims: every item shipped, within its window, not claimed already, photos as its category asks, one lab. */
function planItemClaim(order: OrderDocument, request: ClaimRequest, facts: ClaimFacts): ClaimPlan {
  const failures: Failures = {}
  const items: PlannedClaim['items'] = []
  const evidenceNumbers: number[] = []
  const seenItems = new Set<number>()
  const seenEvidence = new Set<number>()
  let labCode: string | null = null
  for (const [index, requested] of (request.items ?? []).entries()) {
    const path = `items[${index}]`
    const category = claimCategory(requested.category)
    if (category?.wholeShipment) {
      addFailure(failures, `${path}.category`, {
        code: 'InvalidValue',
        providedValue: requested.category,
        comparisonValue: 'a missing parcel is claimed with category and shipmentId, without items',
      })
    }
    if (blank(requested.description)) {
      addFailure(failures, `${path}.description`, {
        code: 'MustNotBeEmptyOrWhitespace',
        providedValue: requested.description,
      })
    }
    const evidence = requested.evidence ?? []
    if (category?.photosRequired && evidence.length === 0) {
      addFailure(failures, `${path}.evidence`, { code: 'TooFew', providedValue: 0, comparisonValue: 1 })
    }
    if (evidence.length > MAX_EVIDENCE_PER_ITEM) {
      addFailure(failures, `${path}.evidence`, {
        code: 'TooMany',
        providedValue: evidence.length,
        comparisonValue: MAX_EVIDENCE_PER_ITEM,
      })
    }
    const checked = checkEvidence(evidence, `${path}.evidence`, facts, failures, seenEvidence)
    if (checked.notFound) return { kind: 'evidenceNotFound', evidenceId: checked.notFound }
    evidenceNumbers.push(...checked.numbers)

    const itemField = `${path}.itemId`
    const itemNumber = parseId('ori', requested.itemId)
    const item = order.items.find((candidate) => candidate.id.toLowerCase() === requested.itemId.toLowerCase())
    if (itemNumber === undefined || !item) {
      addFailure(failures, itemField, {
        code: 'InvalidValue',
        providedValue: requested.itemId,
        validValues: order.items.map((candidate) => candidate.id),
      })
      continue
    }
    if (seenItems.has(itemNumber)) {
      addFailure(failures, itemField, {
        code: 'InvalidValue',
        providedValue: item.id,
        comparisonValue: 'once per claim',
      })
      continue
    }
    seenItems.add(itemNumber)
    const open = facts.openClaims.get(itemNumber)
    if (open) {
      addFailure(failures, itemField, { code: 'ClaimAlreadyOpen', providedValue: item.id, comparisonValue: open })
      continue
    }
    const found = shippedShipmentOf(order, item.id)
    if ('refusal' in found) {
      addFailure(failures, itemField, found.refusal)
      continue
    }
    const deadline = itemClaimDeadline(found.shipment, facts.windowDays)
    if (deadline && facts.now > deadline) {
      addFailure(failures, itemField, {
        code: 'ClaimWindowClosed',
        providedValue: item.id,
        comparisonValue: deadline.toISOString(),
      })
      continue
    }
    const shipmentLab = found.shipment.fulfillmentLocation.labCode
    if (labCode !== null && shipmentLab !== labCode) {
      // One claim is against one lab (its quality, its answer): items another lab made go in a claim of their own.
      addFailure(failures, itemField, { code: 'LabsDiffer', providedValue: item.id, comparisonValue: labCode })
      continue
    }
    labCode = shipmentLab
    items.push({
      itemId: item.id,
      shipmentId: found.shipment.id,
      category: requested.category as ClaimCategoryName,
      description: requested.description,
      evidence: checked.numbers.map((number) => formatId('evd', number)),
      itemNumber,
      shipmentNumber: parseId('shp', found.shipment.id) ?? 0,
    })
  }
  if (hasFailures(failures) || labCode === null) return { kind: 'refused', failures }
  return {
    kind: 'planned',
    claim: {
      shipmentNumber: null,
      labCode,
      preferredResolution: request.preferredResolution ?? null,
      items,
      evidenceNumbers,
    },
  }
}

/** A missing parcel: shipped, not delivered, past its estimated delivery, within the window, none of its items claimed. */
function planMissingParcel(order: OrderDocument, request: ClaimRequest, facts: ClaimFacts): ClaimPlan {
  const failures: Failures = {}
  const shipmentId = request.shipmentId ?? ''
  const refuse = (failure: Failures[string][number]): ClaimPlan => {
    addFailure(failures, 'shipmentId', failure)
    return { kind: 'refused', failures }
  }
  if (blank(request.description)) {
    addFailure(failures, 'description', { code: 'MustNotBeEmptyOrWhitespace', providedValue: request.description })
  }
  const shipment = order.shipments.find((candidate) => candidate.id.toLowerCase() === shipmentId.toLowerCase())
  if (!shipment) {
    return refuse({
      code: 'InvalidValue',
      providedValue: shipmentId,
      validValues: order.shipments.map((candidate) => candidate.id),
    })
  }
  if (shipment.cancelled || shipment.status === 'Cancelled')
    return refuse({ code: 'ShipmentCancelled', providedValue: shipment.id })
  if (shipment.status !== 'Shipped') {
    return refuse({ code: 'ShipmentNotShipped', providedValue: shipment.id, comparisonValue: 'Shipped' })
  }
  if (shipment.deliveryStatus === 'Delivered') return refuse({ code: 'ShipmentDelivered', providedValue: shipment.id })
  const window = missingParcelWindow(shipment, facts.windowDays)
  if (window && facts.now < window.from) {
    return refuse({ code: 'NotYetDue', providedValue: shipment.id, comparisonValue: window.from.toISOString() })
  }
  if (window && facts.now > window.to) {
    return refuse({ code: 'ClaimWindowClosed', providedValue: shipment.id, comparisonValue: window.to.toISOString() })
  }
  const shipmentNumber = parseId('shp', shipment.id) ?? 0
  const items: PlannedClaim['items'] = []
  for (const { itemId } of shipment.items) {
    const itemNumber = parseId('ori', itemId) ?? 0
    const open = facts.openClaims.get(itemNumber)
    if (open) return refuse({ code: 'ClaimAlreadyOpen', providedValue: shipment.id, comparisonValue: open })
    const description = request.description ?? ''
    items.push({
      itemId,
      shipmentId: shipment.id,
      category: 'PackageMissing',
      description,
      evidence: [],
      itemNumber,
      shipmentNumber,
    })
  }
  if (hasFailures(failures)) return { kind: 'refused', failures }
  return {
    kind: 'planned',
    claim: {
      shipmentNumber,
      labCode: shipment.fulfillmentLocation.labCode,
      preferredResolution: request.preferredResolution ?? null,
      items,
      evidenceNumbers: [],
    },
  }
}

/** Checks a new claim against the order as it is now; the claim to write, or why not. */
export function planClaim(order: OrderDocument, request: ClaimRequest, facts: ClaimFacts): ClaimPlan {
  const hasItems = request.items !== undefined
  const hasShipment = request.shipmentId !== undefined
  const failures: Failures = {}
  if (hasItems && hasShipment) {
    addFailure(failures, 'shipmentId', {
      code: 'InvalidValue',
      providedValue: request.shipmentId,
      comparisonValue: 'either items or a shipmentId (a missing parcel), not both',
    })
  } else if (!hasItems && !hasShipment) {
    addFailure(failures, 'items', { code: 'Required', providedValue: null })
  }
  if (request.category !== undefined && !claimCategory(request.category)?.wholeShipment) {
    addFailure(failures, 'category', {
      code: 'InvalidValue',
      providedValue: request.category,
      validValues: ['PackageMissing'],
    })
  } else if (hasShipment && request.category === undefined) {
    addFailure(failures, 'category', { code: 'Required', providedValue: null })
  }
  if (hasItems && request.description !== undefined) {
    addFailure(failures, 'description', {
      code: 'InvalidValue',
      providedValue: request.description,
      comparisonValue: 'item claims describe each item (items[i].description)',
    })
  }
  if (hasFailures(failures)) return { kind: 'refused', failures }
  return hasItems ? planItemClaim(order, request, facts) : planMissingParcel(order, request, facts)
}

/** A new claim as the API shows it. */
export function newClaimView(input: {
  id: number
  orderId: string
  claim: PlannedClaim
  shipmentId: string | null
  now: Date
}): ClaimView {
  const at = input.now.toISOString()
  return {
    id: formatId('clm', input.id),
    orderId: input.orderId,
    status: 'Pending',
    shipmentId: input.shipmentId,
    items: input.claim.items.map(({ itemId, shipmentId, category, description, evidence }) => ({
      itemId,
      shipmentId,
      category,
      description,
      evidence,
    })),
    preferredResolution: input.claim.preferredResolution,
    resolution: null,
    rejection: null,
    labAnswer: null,
    createdAt: at,
    lastUpdated: at,
  }
}

/** Why a claim in `status` cannot be retracted; null when it can (only a Pending claim can). */
export function retractRefusal(status: ClaimStatus): Failures | null {
  if (status === 'Pending') return null
  return { status: [{ code: 'InvalidValue', providedValue: status, validValues: ['Pending'] }] }
}

/** The claim retracted at `now`. */
export function retractedView(view: ClaimView, now: Date): ClaimView {
  return { ...view, status: 'Retracted', lastUpdated: now.toISOString() }
}
