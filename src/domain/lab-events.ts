// Which pushes to labs an order change causes, and what a pushed job looks like (docs/pipeline.md#jobs-pushed-to-labs).
// Pure, like domain/order-events.ts: the order-change transaction compares each shipment as it was when the order
// was locked with how it is about to be saved, and writes the events this returns in the same transaction.
import type { ClaimView } from './claims.ts'
import { type CloudEventEnvelope, cloudEventEnvelope } from './cloud-events.ts'
import type { OrderEventKind } from './order-events.ts'
import type { PipelineOrder } from './pipeline/pipeline-order.ts'

/** Why a job changed while its lab has it (`lab.job.changed`). */
export type LabJobChange =
  /** Some of its items left it (e.g. the lab rejected them and they went elsewhere). */
  | 'itemsRemoved'
  /** Its items are different: some came in, or some went and others came. */
  | 'replanned'
  /** printroute's packing slip was made, just after the submission: the job now links it. */
  | 'packingSlipAdded'

export type LabReminderReason = 'notAcknowledged' | 'shipByToday' | 'overdue'
export const LAB_REMINDER_REASONS: readonly LabReminderReason[] = ['notAcknowledged', 'shipByToday', 'overdue']

export type LabEventKind =
  | { kind: 'created' }
  | { kind: 'changed'; change: LabJobChange }
  | { kind: 'cancellationRequested' }
  /** The operator moved the job to another lab (docs/labs.md#work-moved-away): it is cancelled at this lab. */
  | { kind: 'movedAway' }
  | { kind: 'reminder'; reason: LabReminderReason }

/** `com.<vendor>.lab.job.<kind>`, the vendor as in the merchants' callbacks. */
export function labEventType(vendor: string, event: LabEventKind): string {
  return `com.${vendor}.lab.job.${event.kind}`
}

/** Shipment states in which its lab has the job and has not shipped it: what GET /labs/v1/jobs lists. */
export const LAB_OPEN_STATES = ['submitted', 'acknowledged', 'inProduction'] as const

/** What a shipment looked like to its lab, for comparing before and after a change. */
export interface LabShipmentSnapshot {
  labCode: string
  state: string
  itemIds: string[]
  packingSlip: boolean
  /**
   * When the merchant's cancel last asked the lab to cancel the job (the pipeline shipment's
   * `cancellationRequested.at`); null when never asked. A new request after one lapsed has a new time.
   */
  cancellationRequestedAt: string | null
  /** Whether the operator moved the job to another lab (the pipeline shipment's `moved`). */
  movedAway?: boolean
}

/** Every Live shipment of the order as its lab sees it; none for Sandbox (its labs are simulated: nothing pushes). */
export function labShipmentsOf(order: PipelineOrder): Record<string, LabShipmentSnapshot> {
  if (order.environment !== 'live') return {}
  const snapshot: Record<string, LabShipmentSnapshot> = {}
  for (const [shipmentId, shipment] of Object.entries(order.pipeline.shipments)) {
    const onOrder = order.document.shipments.find((candidate) => candidate.id === shipmentId)
    snapshot[shipmentId] = {
      labCode: shipment.labCode,
      state: shipment.state,
      itemIds: (onOrder?.items ?? []).map((entry) => entry.itemId),
      packingSlip: shipment.packingSlipPdf !== undefined,
      cancellationRequestedAt: shipment.cancellationRequested?.at ?? null,
      ...(shipment.moved ? { movedAway: true } : {}),
    }
  }
  return snapshot
}

function isOpen(state: string | undefined): boolean {
  return (LAB_OPEN_STATES as readonly (string | undefined)[]).includes(state)
}

/**
 * The pushes a change causes, shipment by shipment: `created` when a shipment reaches its lab (submitted); while
 * the lab has it (open before and after), `changed` when its items differ (`itemsRemoved` when only some left,
 * `replanned` otherwise) or its packing slip appeared; `cancellationRequested` when a request (a new one after a
 * lapse too) appears on a shipment its lab had; `movedAway` when the operator moved a job its lab had to another
 * lab (the job is then cancelled at this one). Whether the lab has a push endpoint is not decided here.
 */
export function labEventsOf(
  before: Record<string, LabShipmentSnapshot>,
  after: Record<string, LabShipmentSnapshot>,
): { shipmentId: string; labCode: string; event: LabEventKind }[] {
  const events: { shipmentId: string; labCode: string; event: LabEventKind }[] = []
  for (const [shipmentId, now] of Object.entries(after)) {
    const was = before[shipmentId]
    const push = (event: LabEventKind) => events.push({ shipmentId, labCode: now.labCode, event })
    if (now.state === 'submitted' && !isOpen(was?.state) && was?.state !== 'shipped') {
      push({ kind: 'created' })
      continue
    }
    if (!was || was.labCode !== now.labCode || !isOpen(was.state)) continue
    if (now.movedAway === true && was.movedAway !== true) {
      push({ kind: 'movedAway' })
      continue
    }
    if (isOpen(now.state)) {
      const kept = new Set(now.itemIds)
      const sameItems = was.itemIds.length === now.itemIds.length && was.itemIds.every((id) => kept.has(id))
      if (!sameItems) {
        const onlyRemoved = now.itemIds.every((id) => was.itemIds.includes(id))
        push({ kind: 'changed', change: onlyRemoved ? 'itemsRemoved' : 'replanned' })
      }
      if (now.packingSlip && !was.packingSlip) push({ kind: 'changed', change: 'packingSlipAdded' })
    }
    if (now.cancellationRequestedAt !== null && now.cancellationRequestedAt !== was.cancellationRequestedAt) {
      push({ kind: 'cancellationRequested' })
    }
  }
  return events
}

/** A pushed job's CloudEvent: the callbacks' envelope, the job (and why it is pushed) as data, the shipment as subject. */
export interface LabCloudEvent extends CloudEventEnvelope {
  data: { job: unknown; change?: LabJobChange; reason?: LabReminderReason }
  subject: string
}

export function buildLabCloudEvent(input: {
  id: string
  type: string
  source: string
  time: Date
  event: LabEventKind
  job: { shipmentId: string }
}): LabCloudEvent {
  const { event } = input
  return {
    ...cloudEventEnvelope(input),
    data: {
      job: input.job,
      ...(event.kind === 'changed' ? { change: event.change } : {}),
      ...(event.kind === 'reminder' ? { reason: event.reason } : {}),
    },
    subject: input.job.shipmentId,
  }
}

/** `com.<vendor>.lab.claim.created`: a claim was made against the lab's work (docs/labs.md#claims). */
export function labClaimCreatedType(vendor: string): string {
  return `com.${vendor}.lab.claim.created`
}

/** A claim made against the lab's work, pushed: the claim as GET /labs/v1/claims/{id} shows it, the claim as subject. */
export interface LabClaimCloudEvent extends CloudEventEnvelope {
  data: { claim: unknown }
  subject: string
}

export function buildLabClaimCloudEvent(input: {
  id: string
  type: string
  source: string
  time: Date
  claim: { id: string }
}): LabClaimCloudEvent {
  return { ...cloudEventEnvelope(input), data: { claim: input.claim }, subject: input.claim.id }
}

/**
 * The claims a change made (its `claimChanged` events of status Created) against Live shipments, each with the lab
 * of the shipments it names (the order's pipeline shipments: the lab that made the work), once per lab. A claim
 * event without its claim is given with `claim` undefined: the caller reads it.
 */
export function labClaimsCreatedBy(
  order: PipelineOrder,
  events: readonly OrderEventKind[],
): { labCode: string; claimId: string; claim: ClaimView | undefined }[] {
  if (order.environment !== 'live') return []
  const created: { labCode: string; claimId: string; claim: ClaimView | undefined }[] = []
  for (const event of events) {
    if (event.kind !== 'claimChanged' || event.status !== 'Created') continue
    const claim = event.claim as ClaimView | undefined
    const shipmentIds = claim
      ? [...(claim.shipmentId ? [claim.shipmentId] : []), ...claim.items.map((item) => item.shipmentId)]
      : []
    const labs = new Set(shipmentIds.flatMap((id) => order.pipeline.shipments[id]?.labCode ?? []))
    // Without the claim (or its shipments on the order) the lab is not known here: the caller looks it up.
    if (labs.size === 0) created.push({ labCode: '', claimId: event.claimId, claim })
    for (const labCode of labs) created.push({ labCode, claimId: event.claimId, claim })
  }
  return created
}
