// Resolving claims (docs/claims.md#resolutions): the operator's (or a rule's) decision on a Pending claim - Reprint,
// Refund, Credit or Reject - taken in one transaction through the one order change (order-change.ts): the order's
// row lock, then the claim's row lock and its version checked, the order changed (a reprint shipment, or a credit
// note through the billing service's charges), the claim's row and view written and its items closed, the audit
// entry, the `claimChanged` event and the jobs, all committed together. Two decisions on one claim at once: the
// order's lock takes them one after the other, and the second finds the claim decided (or at another version) and
// is refused (OperatorRefusal claim/not-pending or claim/changed): one resolution, one reprint, one credit note.
//
// It also reads claims for the operator: the queue, one claim with its items, photos and the lab's answer.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AuditActor } from '../domain/audit.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import {
  type AppliedReprint,
  applyReprint,
  CLAIM_NOTE_MAX_LENGTH,
  type ClaimDecision,
  type ClaimDetail,
  type ClaimResolutionResult,
  type ClaimSummary,
  claimedAmountMinor,
  isClaimDecision,
  planReprint,
  rejectedView,
  resolvedView,
} from '../domain/claim-resolution.ts'
import { type ClaimView, claimCategory } from '../domain/claims.ts'
import { formatId, parseId } from '../domain/ids.ts'
import type { JobRequest } from '../domain/jobs.ts'
import { formatMinorAsAmount, parseAmountToMinor } from '../domain/money.ts'
import { OperatorRefusal } from '../domain/operator-refusal.ts'
import { CreditAboveRefundable } from '../domain/order-credits.ts'
import type { OrderEventKind } from '../domain/order-events.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import {
  type ClaimItemRecord,
  type ClaimQueueFilter,
  type ClaimRecord,
  listClaimItems,
  listClaimQueue,
  listLabEvidence,
  listUndisputedClaims,
  readClaim,
  readEvidence,
  saveClaimDecision,
} from '../repositories/claim-resolution.repository.ts'
import { drawShipmentIds, readOrder } from '../repositories/orders.repository.ts'
import type { BillingService } from './billing.service.ts'
import type { ServiceLogger } from './observability.ts'
import { createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'
import type { LabRoom } from './pipeline/lab-room.ts'

export type { ClaimDetail, ClaimResolutionResult, ClaimSummary }

/** Who decides: an operator of the console, the command line, or printroute's own rules (`system`). */
export type ClaimDecider = Extract<AuditActor, { kind: 'operator' | 'cli' | 'system' }>

/** A decision as given: the claim, what to do, the note (a rejection's reason), an amount, the version read. */
export interface ResolveClaimInput {
  claimId: string
  decision: string
  note?: string
  /** Refund and Credit: the amount, tax included, in the order's charge currency ("5.00"); absent: the default. */
  amount?: string
  /** The claim's version as the operator read it; absent: no check (the locks still order the decisions). */
  expectedVersion?: number
}

export interface ClaimResolutionService {
  resolve(input: ResolveClaimInput, actor: ClaimDecider): Promise<ClaimResolutionResult>
  list(filter: ClaimQueueFilter, limit?: number): Promise<ClaimSummary[]>
  show(claimId: string): Promise<ClaimDetail | undefined>
  /** A photo of a claim, for the operator; undefined for one that is no claim's. */
  evidence(evidenceId: string): Promise<{ contentType: string; bytes: Buffer } | undefined>
  /**
   * The undisputed-claims rule, when the operator switched it on (`--claim-auto-resolve-days`): every Pending claim
   * that many days old whose lab has not disputed it is resolved as its merchant preferred, by `system`. How many
   * were resolved; a claim the rule cannot resolve (no lab for a reprint, nothing left to refund) stays Pending for
   * the operator, and is logged.
   */
  applyUndisputedRule(): Promise<number>
}

/** At most this many claims are resolved by one run of the rule; the next hourly run takes the rest. */
const RULE_BATCH = 100
const DAY_MS = 24 * 60 * 60 * 1000

export interface ClaimResolutionDeps {
  db: Database
  clock: Clock
  catalogue: Catalogue
  jobs: JobEnqueuer
  events: OrderEventsService
  billing: Pick<BillingService, 'chargeDifference' | 'issueCredit'>
  labRoom: LabRoom
  files: { get(key: string): Promise<Buffer> }
  log: ServiceLogger
  /** Days after which an undisputed Pending claim is resolved as its merchant preferred; absent or 0: never. */
  undisputedDays?: number
}

/** The queue's default and largest page. */
export const CLAIM_QUEUE_LIMIT = 200

interface CheckedDecision {
  claimNumber: number
  claimId: string
  decision: ClaimDecision
  note: string | null
  amountMinor: bigint | undefined
  expectedVersion: number | undefined
}

/** The decision's fields checked in the order both front ends show them: claim, decision, note, amount. */
function checkedDecision(input: ResolveClaimInput): CheckedDecision {
  const claimId = String(input.claimId ?? '')
    .trim()
    .toLowerCase()
  const claimNumber = parseId('clm', claimId)
  if (claimNumber === undefined) throw new OperatorRefusal({ field: 'claim', reason: 'not-an-id' }, claimId)
  const decision = String(input.decision ?? '').trim()
  if (!isClaimDecision(decision)) throw new OperatorRefusal({ field: 'resolution', reason: 'unknown' }, decision)
  const note = typeof input.note === 'string' && input.note.trim() !== '' ? input.note.trim() : null
  if (decision === 'Reject' && note === null) throw new OperatorRefusal({ field: 'note', reason: 'missing' }, '')
  if (note !== null && note.length > CLAIM_NOTE_MAX_LENGTH) {
    throw new OperatorRefusal({ field: 'note', reason: 'too-long' }, `${note.slice(0, 20)}...`)
  }
  let amountMinor: bigint | undefined
  const amount = typeof input.amount === 'string' ? input.amount.trim() : ''
  if ((decision === 'Refund' || decision === 'Credit') && amount !== '') {
    amountMinor = /^\d{1,10}(\.\d{1,2})?$/.test(amount) ? parseAmountToMinor(amount) : undefined
    if (amountMinor === undefined || amountMinor <= 0n) {
      throw new OperatorRefusal({ field: 'amount', reason: 'not-a-positive-amount' }, amount)
    }
  }
  return { claimNumber, claimId, decision, note, amountMinor, expectedVersion: input.expectedVersion }
}

/** How the claim's row names who decided (as the audit trail names actors; printroute's rules are `rule`). */
function resolvedByOf(actor: ClaimDecider): string {
  return actor.kind === 'system' ? 'rule' : actor.kind
}

interface DecisionOutcome {
  view: ClaimView
  reprint: AppliedReprint | null
  creditNote: string | null
  amount: { amount: string; currency: string } | null
  jobs: JobRequest[]
  changed: boolean
  /** A Refund's or Credit's entry in the order's credits[], as an event. */
  creditEvent?: OrderEventKind
}

export function createClaimResolutionService(deps: ClaimResolutionDeps): ClaimResolutionService {
  const { db, clock, catalogue } = deps
  const changer = createOrderChanger(deps)

  async function reprint(
    tx: Queryable,
    order: PipelineOrder,
    claim: ClaimRecord,
    items: ClaimItemRecord[],
    now: Date,
  ): Promise<AppliedReprint> {
    const refuse = (why: string) =>
      new OperatorRefusal({ field: 'claim', reason: 'cannot-reprint' }, claim.view.id, { limit: why })
    if (order.pipeline.phase === 'cancelled' || order.pipeline.phase === 'failed') {
      throw refuse(`order ${order.document.id} is ${order.pipeline.phase}`)
    }
    const reprintOf = formatId('shp', claim.shipmentNumber ?? items[0]?.shipmentNumber ?? 0)
    // A missing parcel is made again whole; otherwise only the claimed items.
    const parcel = claim.shipmentNumber === null ? undefined : order.document.shipments.find((s) => s.id === reprintOf)
    const itemIds = parcel
      ? parcel.items.map((entry) => entry.itemId)
      : items.map((item) => formatId('ori', item.itemNumber))
    const labAtFault = items.some((item) => claimCategory(item.category)?.labAtFault === true)
    const planned = planReprint(catalogue, order, {
      itemIds,
      reprintOf,
      claimId: claim.view.id,
      excludedLab: labAtFault ? claim.labCode : null,
      unavailableLabs: await deps.labRoom.unavailableLabsFor(order, tx),
      now,
    })
    if (!planned.ok) throw refuse(planned.refusal)
    const [shipmentId] = await drawShipmentIds(tx, 1)
    if (!shipmentId) throw new Error('no shipment id drawn')
    await deps.labRoom.countJobsGiven(order, tx, [{ labCode: planned.reprint.allocated.labCode }])
    return applyReprint(catalogue, order, planned.reprint, { shipmentId, reprintOf, claimId: claim.view.id }, now)
  }

  /**
   * Refund or Credit: one credit note, of `amountMinor` or what the items cost, on the charge that took the claimed
   * shipment's money, and an entry in the order's `credits[]` with its `creditIssued` event, as a late delivery's
   * credit has. What may be given back is the domain's one rule (domain/order-credits.ts creditDraft): the default
   * is capped at it, an amount the operator gave above it is refused.
   */
  async function credit(
    tx: Queryable,
    order: PipelineOrder,
    claim: ClaimRecord,
    items: ClaimItemRecord[],
    amountMinor: bigint | undefined,
  ): Promise<{
    jobs: JobRequest[]
    creditNote: string | null
    amount: { amount: string; currency: string }
    event: OrderEventKind
  }> {
    const itemIds = items.map((item) => formatId('ori', item.itemNumber))
    const shipmentId = claim.shipmentNumber === null ? null : formatId('shp', claim.shipmentNumber)
    // The shipment whose charge is credited: the missing parcel's, else the first claimed item's.
    const firstItemShipment = items[0] ? formatId('shp', items[0].shipmentNumber) : null
    const request = {
      reason: 'Claim' as const,
      shipmentId: shipmentId ?? firstItemShipment,
      claimId: claim.view.id,
      ...(amountMinor === undefined
        ? { amountMinor: claimedAmountMinor(order.pipeline.billing, itemIds, shipmentId) }
        : { amountMinor, exact: true }),
    }
    const issued = await deps.billing.issueCredit(tx, order, request).catch((error: unknown) => {
      if (!(error instanceof CreditAboveRefundable)) throw error
      throw new OperatorRefusal(
        { field: 'amount', reason: 'more-than-refundable' },
        formatMinorAsAmount(request.amountMinor),
        {
          limit: `${formatMinorAsAmount(error.refundableMinor)} ${order.pipeline.billing?.currency ?? ''}`.trim(),
        },
      )
    })
    if (!issued) throw new OperatorRefusal({ field: 'order', reason: 'nothing-charged' }, order.document.id)
    return {
      jobs: issued.jobs,
      creditNote: issued.credit.creditNote,
      amount: issued.credit.amount,
      event: issued.event,
    }
  }

  async function decide(
    tx: Queryable,
    order: PipelineOrder,
    checked: CheckedDecision,
    claim: ClaimRecord,
    now: Date,
  ): Promise<DecisionOutcome> {
    const items = await listClaimItems(tx, claim.number)
    if (checked.decision === 'Reject') {
      const view = rejectedView(claim.view, checked.note ?? '', now)
      return { view, reprint: null, creditNote: null, amount: null, jobs: [], changed: false }
    }
    if (checked.decision === 'Reprint') {
      const applied = await reprint(tx, order, claim, items, now)
      const view = resolvedView(claim.view, {
        type: 'Reprint',
        note: checked.note,
        at: now,
        reprintShipmentId: applied.shipmentId,
        creditNote: null,
        amount: null,
      })
      return { view, reprint: applied, creditNote: null, amount: null, jobs: applied.jobs, changed: true }
    }
    const { event: creditEvent, ...credited } = await credit(tx, order, claim, items, checked.amountMinor)
    order.document.lastUpdated = now.toISOString()
    const view = resolvedView(claim.view, {
      type: checked.decision,
      note: checked.note,
      at: now,
      reprintShipmentId: null,
      creditNote: credited.creditNote,
      amount: credited.amount,
    })
    return { ...credited, view, reprint: null, changed: true, creditEvent }
  }

  async function decideUnderLock(
    order: PipelineOrder,
    tx: Queryable,
    checked: CheckedDecision,
    actor: ClaimDecider,
  ): Promise<{ changed: boolean; jobs: JobRequest[]; events: OrderEventKind[]; outcome: DecisionOutcome }> {
    const claim = await readClaim(tx, checked.claimNumber, { lock: true })
    if (!claim) throw new OperatorRefusal({ field: 'claim', reason: 'unknown' }, checked.claimId)
    if (checked.expectedVersion !== undefined && claim.version !== checked.expectedVersion) {
      throw new OperatorRefusal({ field: 'claim', reason: 'changed' }, checked.claimId)
    }
    if (claim.status !== 'Pending') {
      throw new OperatorRefusal({ field: 'claim', reason: 'not-pending' }, checked.claimId, { limit: claim.status })
    }
    const now = clock.now()
    const outcome = await decide(tx, order, checked, claim, now)
    const rejected = checked.decision === 'Reject'
    const saved = await saveClaimDecision(tx, claim.number, claim.version, {
      status: rejected ? 'Rejected' : 'Resolved',
      resolution: rejected ? null : (checked.decision as Exclude<ClaimDecision, 'Reject'>),
      note: checked.note,
      resolvedBy: resolvedByOf(actor),
      at: now,
      reprintShipmentNumber: outcome.reprint ? (parseId('shp', outcome.reprint.shipmentId) ?? null) : null,
      creditNoteNumber: outcome.creditNote,
      view: outcome.view,
    })
    if (!saved) throw new OperatorRefusal({ field: 'claim', reason: 'changed' }, checked.claimId)
    await appendAuditEvent(
      tx,
      {
        actor,
        action: rejected ? 'claim.rejected' : 'claim.resolved',
        accountId: order.accountId,
        environment: order.environment,
        target: claim.view.id,
        before: { status: claim.status, version: claim.version },
        after: {
          status: outcome.view.status,
          order: order.document.id,
          ...(rejected
            ? { reason: checked.note }
            : {
                resolution: checked.decision,
                note: checked.note,
                reprintShipmentId: outcome.reprint?.shipmentId ?? null,
                creditNote: outcome.creditNote,
                amount: outcome.amount,
              }),
        },
      },
      now,
    )
    const event: OrderEventKind = {
      kind: 'claimChanged',
      claimId: claim.view.id,
      status: rejected ? 'Rejected' : 'Resolved',
      claim: outcome.view as unknown as Record<string, unknown>,
    }
    const events = outcome.creditEvent ? [event, outcome.creditEvent] : [event]
    return { changed: outcome.changed, jobs: outcome.jobs, events, outcome }
  }

  function summaryOf(record: ClaimRecord): ClaimSummary {
    return {
      id: record.view.id,
      orderId: record.view.orderId,
      accountId: formatId('acc', record.accountNumber),
      environment: record.environment,
      labCode: record.labCode,
      status: record.status,
      categories: [...new Set(record.view.items.map((item) => item.category))],
      preferredResolution: record.preferredResolution,
      createdAt: record.createdAt.toISOString(),
      version: record.version,
    }
  }

  const service: ClaimResolutionService = {
    async resolve(input, actor) {
      const checked = checkedDecision(input)
      const found = await readClaim(db, checked.claimNumber)
      if (!found) throw new OperatorRefusal({ field: 'claim', reason: 'unknown' }, checked.claimId)
      const changed = await changer.change(found.orderNumber, (order, tx) => decideUnderLock(order, tx, checked, actor))
      if (!changed) throw new OperatorRefusal({ field: 'claim', reason: 'unknown' }, checked.claimId)
      const { outcome } = changed.result
      const result: ClaimResolutionResult = {
        claim: outcome.view,
        orderId: changed.order.document.id,
        reprint: outcome.reprint && {
          shipmentId: outcome.reprint.shipmentId,
          labCode: outcome.reprint.labCode,
          keptAssetIds: outcome.reprint.keptAssetIds,
          rerenderedAssetIds: outcome.reprint.rerenderedAssetIds,
        },
        creditNote: outcome.creditNote,
        amount: outcome.amount,
      }
      deps.log.info(
        { orderId: result.orderId, step: 'claim', claimId: checked.claimId },
        `claim ${checked.claimId} on order ${result.orderId}: ${outcome.view.status} (${checked.decision})` +
          (result.reprint ? `, reprint ${result.reprint.shipmentId} at lab ${result.reprint.labCode}` : '') +
          (result.creditNote ? `, credit note ${result.creditNote}` : ''),
      )
      return result
    },

    async applyUndisputedRule() {
      const days = deps.undisputedDays ?? 0
      if (days <= 0) return 0
      const cutoff = new Date(clock.now().getTime() - days * DAY_MS)
      let resolved = 0
      for (const claimId of await listUndisputedClaims(db, cutoff, RULE_BATCH)) {
        const claim = await readClaim(db, parseId('clm', claimId) ?? 0)
        const preferred = claim?.view.preferredResolution
        if (claim?.status !== 'Pending' || !preferred) continue
        try {
          await service.resolve(
            {
              claimId,
              decision: preferred,
              note: `resolved as the merchant preferred: the lab did not dispute it within ${days} days`,
              expectedVersion: claim.version,
            },
            { kind: 'system' },
          )
          resolved += 1
        } catch (error) {
          // Left for the operator: the claim stays Pending and in the queue.
          if (!(error instanceof OperatorRefusal)) throw error
          deps.log.warn(
            { orderId: claim.view.orderId, step: 'claim', claimId },
            `claim ${claimId} left for the operator: the undisputed-claims rule could not resolve it (${error.message})`,
          )
        }
      }
      return resolved
    },

    async list(filter, limit = CLAIM_QUEUE_LIMIT) {
      const bounded = Math.max(1, Math.min(limit, CLAIM_QUEUE_LIMIT))
      return (await listClaimQueue(db, filter, bounded)).map(summaryOf)
    },

    async show(claimId) {
      const number = parseId('clm', claimId.trim().toLowerCase())
      const record = number === undefined ? undefined : await readClaim(db, number)
      if (!record) return undefined
      const order = await readOrder(db, record.orderNumber)
      const items = await listClaimItems(db, record.number)
      const skuOf = (itemId: string) => order?.document.items.find((item) => item.id === itemId)?.sku ?? null
      return {
        ...summaryOf(record),
        view: record.view,
        items: items.map((item) => {
          const itemId = formatId('ori', item.itemNumber)
          return {
            itemId,
            shipmentId: formatId('shp', item.shipmentNumber),
            sku: skuOf(itemId),
            category: item.category,
            description: item.description,
          }
        }),
        orderStage: order?.document.status.stage ?? null,
        resolvedBy: record.resolvedBy,
        labAnswer: record.labAnswer
          ? {
              answer: record.labAnswer,
              comment: record.labComment,
              answeredAt: record.labAnsweredAt?.toISOString() ?? null,
            }
          : null,
        labEvidence: (await listLabEvidence(db, record.number)).map((id) => formatId('evd', id)),
      }
    },

    async evidence(evidenceId) {
      const number = parseId('evd', evidenceId)
      const record = number === undefined ? undefined : await readEvidence(db, number)
      if (!record || record.claimNumber === null) return undefined
      return { contentType: record.contentType, bytes: await deps.files.get(record.blobKey) }
    },
  }
  return service
}
