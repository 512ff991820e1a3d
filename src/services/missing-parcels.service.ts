// The missing-parcel rule (docs/claims.md#automatic-rules), when the operator switches it on with
// `--missing-parcel-reprint-days`: a parcel that shipped with tracking and has no Delivered scan that many days after
// its estimated delivery is reported missing by printroute itself and reprinted without review. Each such shipment
// gets a `PackageMissing` claim, made under its order's lock through the one order change (the claim, its items, its
// `#Created` event and a `claim.created` audit entry by actor `system` commit together), then resolved as `Reprint`
// by the claim resolution service, exactly as the operator's decision (the reprint shipment, `claim.resolved`, the
// `#Resolved` event). Once per shipment: the claim is made only while no claim names the shipment or its items,
// checked again under the order's lock, so a second run (or a second worker at the same moment, which waits for the
// lock) finds the claim and leaves the shipment alone. A claim the rule made but could not resolve (no lab can make
// the reprint now) stays Pending for the operator, and is logged.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import {
  type ClaimRequest,
  missingParcelRuleDescription,
  missingParcelRuleDue,
  newClaimView,
  planClaim,
} from '../domain/claim-rules.ts'
import { type ClaimView, DEFAULT_CLAIM_WINDOW_DAYS } from '../domain/claims.ts'
import { dateOfDayNumber } from '../domain/delivery-promise.ts'
import { formatId, parseId } from '../domain/ids.ts'
import { OperatorRefusal } from '../domain/operator-refusal.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import {
  insertClaim,
  listMissingParcelCandidates,
  nextClaimNumber,
  openClaimsOfItems,
  shipmentHasClaims,
} from '../repositories/claims.repository.ts'
import type { ClaimResolutionService } from './claim-resolution.service.ts'
import type { ServiceLogger } from './observability.ts'
import { createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'

export interface MissingParcelsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  events: OrderEventsService
  claimResolution: Pick<ClaimResolutionService, 'resolve'>
  log: ServiceLogger
  /** Days after the estimated delivery a parcel with no Delivered scan is reprinted; absent or 0: never. */
  reprintDays?: number
  /** The claim window (`--claim-window-days`): a parcel whose window closed is left alone. */
  windowDays?: number
}

export interface MissingParcelsService {
  /**
   * One run of the rule (the apply-claim-rules job): every shipment due is claimed for as `PackageMissing` and
   * reprinted, by `system`; how many were reprinted. Nothing when the rule is off.
   */
  applyMissingParcelRule(): Promise<number>
}

/** At most this many parcels are claimed for by one run; the next hourly run takes the rest. */
const RULE_BATCH = 100
const DAY_MS = 24 * 60 * 60 * 1000

export function createMissingParcelsService(deps: MissingParcelsDeps): MissingParcelsService {
  const reprintDays = deps.reprintDays ?? 0
  const windowDays = deps.windowDays ?? DEFAULT_CLAIM_WINDOW_DAYS
  const changer = createOrderChanger(deps)

  /** The claim for the shipment, made under the order's lock; null when it is not (or no longer) due. */
  async function claimUnderLock(order: PipelineOrder, tx: Queryable, shipmentNumber: number) {
    const now = deps.clock.now()
    const shipmentId = formatId('shp', shipmentNumber)
    const shipment = order.document.shipments.find((candidate) => candidate.id === shipmentId)
    const none = { changed: false, view: null }
    if (!shipment || order.document.status.stage === 'Cancelled') return none
    if (!missingParcelRuleDue(shipment, reprintDays, windowDays, now)) return none
    // What makes it once per shipment: another run made its claim before this one got the lock.
    if (await shipmentHasClaims(tx, shipmentNumber)) return none
    const itemNumbers = shipment.items.map((item) => parseId('ori', item.itemId) ?? 0)
    const open = await openClaimsOfItems(tx, itemNumbers)
    const request: ClaimRequest = {
      category: 'PackageMissing',
      shipmentId,
      description: missingParcelRuleDescription(reprintDays),
      preferredResolution: 'Reprint',
    }
    const plan = planClaim(order.document, request, {
      now,
      windowDays,
      evidence: new Map(),
      openClaims: new Map([...open].map(([item, claim]) => [item, formatId('clm', claim)])),
    })
    if (plan.kind !== 'planned') return none
    const id = await nextClaimNumber(tx)
    const view = newClaimView({ id, orderId: order.document.id, claim: plan.claim, shipmentId, now })
    const scope = { accountId: order.accountId, environment: order.environment }
    await insertClaim(tx, scope, {
      id,
      orderNumber: order.orderNumber,
      shipmentNumber,
      labCode: plan.claim.labCode,
      preferredResolution: plan.claim.preferredResolution,
      createdAt: now,
      document: JSON.stringify(view),
      items: plan.claim.items,
      evidenceNumbers: [],
    })
    await appendAuditEvent(
      tx,
      {
        actor: { kind: 'system' },
        action: 'claim.created',
        accountId: order.accountId,
        environment: order.environment,
        target: view.id,
        before: null,
        after: {
          status: view.status,
          order: order.document.id,
          shipmentId,
          category: 'PackageMissing',
          rule: 'missingParcel',
          reprintDays,
        },
      },
      now,
    )
    return {
      changed: false,
      events: [{ kind: 'claimChanged' as const, claimId: view.id, status: 'Created' as const, claim: { ...view } }],
      view: view as ClaimView | null,
    }
  }

  /** Reprints the claim the rule made; false (logged, the claim left Pending for the operator) when refused. */
  async function reprint(view: ClaimView): Promise<boolean> {
    try {
      await deps.claimResolution.resolve(
        {
          claimId: view.id,
          decision: 'Reprint',
          note: `reprinted by the missing-parcel rule: no Delivered scan ${reprintDays} days after the estimated delivery`,
          expectedVersion: 1,
        },
        { kind: 'system' },
      )
      return true
    } catch (error) {
      if (!(error instanceof OperatorRefusal)) throw error
      deps.log.warn(
        { orderId: view.orderId, step: 'claim', claimId: view.id },
        `claim ${view.id} left for the operator: the missing-parcel rule could not reprint ${view.shipmentId} ` +
          `(${error.message})`,
      )
      return false
    }
  }

  return {
    async applyMissingParcelRule() {
      if (reprintDays <= 0) return 0
      const now = deps.clock.now().getTime()
      const today = Math.floor(now / DAY_MS)
      // A parcel is due once its last estimated day plus the rule's days are over, and until the claim window closes
      // (a day either side here; missingParcelRuleDue decides exactly under the lock).
      const candidates = await listMissingParcelCandidates(deps.db, {
        dueFrom: dateOfDayNumber(today - windowDays - 2),
        dueTo: dateOfDayNumber(today - reprintDays - 1),
        limit: RULE_BATCH,
      })
      let reprinted = 0
      for (const { orderNumber, shipmentNumber } of candidates) {
        const changed = await changer.change(orderNumber, (order, tx) => claimUnderLock(order, tx, shipmentNumber))
        const view = changed?.result.view
        if (!view) continue
        deps.log.info(
          { orderId: view.orderId, step: 'claim', claimId: view.id },
          `claim ${view.id} on order ${view.orderId}: parcel ${view.shipmentId} reported missing by the missing-parcel rule`,
        )
        if (await reprint(view)) reprinted += 1
      }
      return reprinted
    },
  }
}
