// The console's "needs attention" queue (docs/admin.md#needs-attention), as pure rules: why a Live order in progress
// needs someone, and how the queue's rows are ordered and paged. services/attention.service.ts reads the orders and
// the labs' push endpoints; web/operator/attention.pages.ts shows the rows, each linking to where it is acted on.
//
// Extension point, claims (not built): an operator taking a row ("I'm on it") would be kept per row `key`
// (`<reason>:<subject>`, stable while the cause lasts) and joined onto the rows by the service after `attentionRows`
// builds them; the page would then show and filter by it. Nothing of it exists yet: no table, no UI.
import type { Environment } from './environment.ts'
import type { PipelineOrder } from './pipeline/pipeline-order.ts'
import { ISSUE_CODES } from './pipeline/pipeline-order.ts'

/** Why a row is in the queue. */
export type AttentionReason =
  /** An order with an issue (not one of the kinds below) and no change for an hour. */
  | 'issue'
  /** A shipment not shipped after its ship-by date (domain/delivery-promise.ts). */
  | 'pastShipBy'
  /** A prepaid order held until its account pays (RequiresPaymentAuthorisation). */
  | 'paymentPending'
  /** An asset that failed to download, or that its preflight failed (PreflightFailed). */
  | 'assetFailing'
  /** A lab's push endpoint whose deliveries fail: the lab is not answering its pushes. */
  | 'labNotAnswering'
  /** A Live claim waiting for the operator's decision (docs/claims.md#resolutions). */
  | 'claimWaiting'

export const ATTENTION_REASONS: readonly AttentionReason[] = [
  'issue',
  'pastShipBy',
  'paymentPending',
  'assetFailing',
  'labNotAnswering',
  'claimWaiting',
]

/** How long an order's issue waits before the queue lists it: time for the pipeline or the merchant to act. */
export const ISSUE_GRACE_SECONDS = 3600
/** The most orders in progress the queue reads at once (least recently changed first): its bound. */
export const ATTENTION_SCAN_LIMIT = 2000
/** Rows per page. */
export const ATTENTION_PAGE_SIZE = 50

/** One row of the queue. */
export interface AttentionRow {
  /** `<reason>:<subject>`: stable while the cause lasts (the key a claim would use). */
  key: string
  reason: AttentionReason
  /** An order ID (`ord_…`), or a lab code for `labNotAnswering`. */
  subject: string
  /** The shipment concerned, for `pastShipBy`. */
  shipmentId?: string
  /** The lab concerned, for `pastShipBy`, `labNotAnswering` and `claimWaiting`. */
  labCode?: string
  /** The claim waiting, for `claimWaiting` (its `subject` is the claim's order). */
  claimId?: string
  accountId: string | null
  environment: Environment
  /** What is wrong, in a sentence. */
  why: string
  /** When it started, as far as printroute knows (ISO instant or date): the queue lists the oldest first. */
  since: string
}

/** Issue codes that are their own reasons; low resolution is a warning the merchant chose to print with. */
const ASSET_ISSUES = new Set<string>([
  ISSUE_CODES.failedToDownload,
  ISSUE_CODES.notDownloaded,
  ISSUE_CODES.preflightFailed,
])
const NOT_AN_ISSUE = new Set<string>([ISSUE_CODES.paymentAuthorisation, ISSUE_CODES.lowResolution])

/** Shipment states that have not shipped and still count: with a lab or about to be. */
const UNSHIPPED = new Set(['allocated', 'submitted', 'acknowledged', 'inProduction'])

/**
 * The rows one Live order in progress gives: each reason at most once per order (per shipment for `pastShipBy`).
 * `shipByOf` gives a shipment's ship-by date (YYYY-MM-DD); `today` is the UTC date.
 */
export function orderAttentionRows(
  order: PipelineOrder,
  input: { now: Date; today: string; shipByOf: (shipmentId: string) => string | undefined },
): AttentionRow[] {
  const { document, pipeline } = order
  const rows: AttentionRow[] = []
  const base = { subject: document.id, accountId: `acc_${order.accountId}`, environment: order.environment }
  const add = (reason: AttentionReason, why: string, since: string, extra: Partial<AttentionRow> = {}) =>
    rows.push({ key: `${reason}:${extra.shipmentId ?? document.id}`, reason, ...base, ...extra, why, since })
  const issues = document.status.issues
  const lastUpdated = document.lastUpdated ?? document.created
  const payment = issues.find((issue) => issue.errorCode === ISSUE_CODES.paymentAuthorisation)
  if (payment)
    add('paymentPending', `Held until account acc_${order.accountId} pays (prepaid balance too low)`, lastUpdated)
  const failedFiles = Object.entries(pipeline.files).filter(
    ([, file]) => file.kind === 'asset' && (file.status === 'failed' || file.preflight?.status === 'Failed'),
  )
  const assetIssues = issues.filter((issue) => ASSET_ISSUES.has(issue.errorCode))
  if (failedFiles.length > 0 || assetIssues.length > 0) {
    const ids = failedFiles.map(([assetId, file]) =>
      file.status === 'failed' ? `${assetId} failed to download` : `${assetId} failed its preflight`,
    )
    const words = ids.length > 0 ? ids.join('; ') : (assetIssues[0]?.description ?? 'an asset failed')
    add('assetFailing', words, lastUpdated)
  }
  const otherIssues = issues.filter((issue) => !ASSET_ISSUES.has(issue.errorCode) && !NOT_AN_ISSUE.has(issue.errorCode))
  const graceOver = Date.parse(lastUpdated) + ISSUE_GRACE_SECONDS * 1000 <= input.now.getTime()
  if (otherIssues.length > 0 && graceOver) {
    const first = otherIssues[0]
    const more = otherIssues.length > 1 ? ` (and ${otherIssues.length - 1} more)` : ''
    add('issue', `${first?.errorCode}: ${first?.description}${more}`, lastUpdated)
  }
  for (const shipment of document.shipments) {
    const held = pipeline.shipments[shipment.id]
    if (!held || !UNSHIPPED.has(held.state)) continue
    const shipBy = input.shipByOf(shipment.id)
    if (shipBy === undefined || shipBy >= input.today) continue
    add(
      'pastShipBy',
      `Shipment ${shipment.id} at lab ${held.labCode} should have shipped by ${shipBy} (${held.state})`,
      shipBy,
      {
        shipmentId: shipment.id,
        labCode: held.labCode,
      },
    )
  }
  return rows
}

/** The row of a Live claim waiting for a decision: since the claim was made. */
export function claimAttentionRow(claim: {
  id: string
  orderId: string
  accountId: string
  labCode: string
  categories: readonly string[]
  createdAt: string
}): AttentionRow {
  return {
    key: `claimWaiting:${claim.id}`,
    reason: 'claimWaiting',
    subject: claim.orderId,
    claimId: claim.id,
    labCode: claim.labCode,
    accountId: claim.accountId,
    environment: 'live',
    why: `Claim ${claim.id} (${claim.categories.join(', ')}) against lab ${claim.labCode}'s work waits for a decision`,
    since: claim.createdAt,
  }
}

/** The queue's rows, oldest first (then by key, so a page never reorders between reads). */
export function sortAttentionRows(rows: AttentionRow[]): AttentionRow[] {
  return rows.sort((a, b) =>
    a.since < b.since ? -1 : a.since > b.since ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  )
}
