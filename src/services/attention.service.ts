// The console's "needs attention" queue (docs/admin.md#needs-attention): Live orders in progress that need someone
// (domain/attention.ts says why), and labs whose push endpoints fail. Bounded: at most ATTENTION_SCAN_LIMIT orders in
// progress are read (least recently changed first, through the partial index of migration 0035), and the labs'
// failing endpoints are as the callbacks page lists them; Live claims waiting for a decision, at most as many. The nav's badge reads the count, kept for a minute.
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import {
  ATTENTION_PAGE_SIZE,
  ATTENTION_SCAN_LIMIT,
  type AttentionReason,
  type AttentionRow,
  claimAttentionRow,
  orderAttentionRows,
  sortAttentionRows,
} from '../domain/attention.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import { utcDate } from '../domain/delivery-promise.ts'
import { listLiveOrdersInProgress } from '../repositories/attention.repository.ts'
import { listFailingEndpoints } from '../repositories/callback-deliveries.repository.ts'
import { listClaimQueue } from '../repositories/claim-resolution.repository.ts'
import { shipByOfShipment } from './labs/labs.service.ts'

/** One page of the queue. */
export interface AttentionPage {
  rows: AttentionRow[]
  skip: number
  hasMore: boolean
  /** Rows of every page, by reason. */
  counts: Record<AttentionReason, number>
  total: number
  /** Whether more orders were in progress than the queue reads at once (then the oldest ATTENTION_SCAN_LIMIT). */
  capped: boolean
}

export interface AttentionService {
  /** A page of the queue, `skip` rows in; `reason` keeps only that reason's rows. */
  list(query: { skip: number; reason?: AttentionReason | null }): Promise<AttentionPage>
  /** How many rows the queue has, for the console's navigation (kept for BADGE_SECONDS). */
  count(): Promise<number>
}

/** How long the navigation's count is kept before it is read again. */
const BADGE_SECONDS = 60
/** The most failing lab endpoints read (the catalogue's labs are far fewer). */
const FAILING_LABS_LIMIT = 200

export function createAttentionService(deps: { db: Database; clock: Clock; catalogue: Catalogue }): AttentionService {
  const { db, clock, catalogue } = deps
  let badge: { count: number; at: number } | null = null

  async function allRows(): Promise<{ rows: AttentionRow[]; capped: boolean }> {
    const now = clock.now()
    const today = utcDate(now)
    const orders = await listLiveOrdersInProgress(db, ATTENTION_SCAN_LIMIT + 1, now)
    const capped = orders.length > ATTENTION_SCAN_LIMIT
    const rows = orders.slice(0, ATTENTION_SCAN_LIMIT).flatMap((order) =>
      orderAttentionRows(order, {
        now,
        today,
        shipByOf: (shipmentId) => shipByOfShipment(catalogue, order, shipmentId),
      }),
    )
    const labs = await listFailingEndpoints(db, { labs: true, limit: FAILING_LABS_LIMIT })
    for (const endpoint of labs) {
      if (!endpoint.labCode || endpoint.environment !== 'live') continue
      const since = endpoint.failingSince.toISOString()
      rows.push({
        key: `labNotAnswering:${endpoint.labCode}`,
        reason: 'labNotAnswering',
        subject: endpoint.labCode,
        labCode: endpoint.labCode,
        accountId: null,
        environment: 'live',
        why: `Lab ${endpoint.labCode}'s push endpoint has failed ${endpoint.failedDeliveries} deliver${endpoint.failedDeliveries === 1 ? 'y' : 'ies'} since ${since} (last: ${endpoint.lastError})`,
        since,
      })
    }
    // Live claims waiting for a decision, the oldest first (Sandbox claims are decided by the Sandbox itself).
    const claims = await listClaimQueue(db, { status: 'Pending', environment: 'live' }, ATTENTION_SCAN_LIMIT)
    for (const claim of claims) {
      rows.push(
        claimAttentionRow({
          id: claim.view.id,
          orderId: claim.view.orderId,
          accountId: `acc_${claim.accountNumber}`,
          labCode: claim.labCode,
          categories: [...new Set(claim.view.items.map((item) => item.category))],
          createdAt: claim.createdAt.toISOString(),
        }),
      )
    }
    return { rows: sortAttentionRows(rows), capped }
  }

  function countsOf(rows: readonly AttentionRow[]): Record<AttentionReason, number> {
    const counts: Record<AttentionReason, number> = {
      issue: 0,
      pastShipBy: 0,
      paymentPending: 0,
      assetFailing: 0,
      labNotAnswering: 0,
      claimWaiting: 0,
    }
    for (const row of rows) counts[row.reason] += 1
    return counts
  }

  return {
    async list(query) {
      const { rows, capped } = await allRows()
      badge = { count: rows.length, at: clock.now().getTime() }
      const kept = query.reason ? rows.filter((row) => row.reason === query.reason) : rows
      const skip = Math.max(0, Math.trunc(query.skip))
      return {
        rows: kept.slice(skip, skip + ATTENTION_PAGE_SIZE),
        skip,
        hasMore: kept.length > skip + ATTENTION_PAGE_SIZE,
        counts: countsOf(rows),
        total: rows.length,
        capped,
      }
    },

    async count() {
      const now = clock.now().getTime()
      if (badge && now - badge.at < BADGE_SECONDS * 1000 && now >= badge.at) return badge.count
      const { rows } = await allRows()
      badge = { count: rows.length, at: now }
      return rows.length
    },
  }
}
