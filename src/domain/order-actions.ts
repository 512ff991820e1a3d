// The order actions as pure rules (docs/wire-contract.md#order-actions).
//
// One principle decides everything: a shipment can be changed or cancelled until it is handed to its lab
// ("submitted"); after that it is in production and stays as it is. So:
//   - the actions list says cancel / change recipient / change shipping method are available while the order is
//     InProgress (or on hold) and no shipment has been submitted; change metadata always;
//   - a cancel cancels every shipment not yet submitted: all of them -> the order is Cancelled; some -> the order
//     goes on with the rest (outcome FailedToCancel, the cancelled shipments show `cancelled: true`);
//   - on Live, a shipment with its lab that the lab has not started producing (submitted, acknowledged) is not
//     lost to a cancel: the lab is asked to cancel it (domain/lab-cancellation.ts) and the order's outcome follows
//     the lab's answer (the service waits for it a while), so cancel stays available while every shipment with a
//     lab can still be asked;
//   - an update applies to the shipments not yet submitted: all -> Updated, some -> PartiallyUpdated, none ->
//     FailedToUpdate, each shipment reported in `shipmentUpdateResults`.
// The service runs these under the order's row lock, in the same transaction as the pipeline's own steps, so
// an action and a pipeline step on one order never interleave.
import type { Failure, Failures } from './failures.ts'
import { parseId } from './ids.ts'
import type { JobRequest } from './jobs.ts'
import { canAskToCancel, requestCancellation } from './lab-cancellation.ts'
import type { OrderDocument, Recipient, Shipment, Stage } from './order.ts'
import { type AllocatedShipment, addShipment } from './pipeline/allocate-order.ts'
import { refreshOrderEstimate, setShipmentEstimate } from './pipeline/delivery-estimates.ts'
import { downloadJob } from './pipeline/download-file.ts'
import { ISSUE_CODES, type PipelineShipment, type PipelineState } from './pipeline/pipeline-order.ts'

export type Availability = 'Yes' | 'No'

export interface AvailableActions {
  cancel: { isAvailable: Availability }
  changeRecipientDetails: { isAvailable: Availability }
  changeShippingMethod: { isAvailable: Availability }
  changeMetaData: { isAvailable: Availability }
  /** printroute's own (additive): some asset may be replaced now (canReplaceAsset); the service fills it. */
  replaceAsset?: { isAvailable: Availability }
}

export type UpdateOutcome = 'Updated' | 'PartiallyUpdated' | 'FailedToUpdate' | 'ActionNotAvailable'
export type CancelOutcome = 'Cancelled' | 'FailedToCancel' | 'ActionNotAvailable'

export interface ShipmentUpdateResult {
  shipmentId: string
  successful: boolean
}

/** True once the shipment has been handed to its lab (cancelled and rejected ones never count). */
export function isSubmitted(state: PipelineShipment['state'] | undefined): boolean {
  return state === 'submitted' || state === 'acknowledged' || state === 'inProduction' || state === 'shipped'
}

/** True once any shipment of the order has been handed to a lab (rejected ones were taken back). */
export function anyShipmentSubmitted(pipeline: PipelineState): boolean {
  return Object.values(pipeline.shipments).some((shipment) => isSubmitted(shipment.state))
}

/**
 * Whether the order's shipments may be asked to cancel at their labs (Live orders at real labs): then a shipment
 * with its lab that has not started production does not stop a cancel.
 */
export interface CancelOptions {
  asksLabs: boolean
}

export function availableActions(
  stage: Stage,
  pipeline: PipelineState,
  options: CancelOptions = { asksLabs: false },
): AvailableActions {
  const changeable = stage === 'InProgress' && !anyShipmentSubmitted(pipeline)
  // Cancel can still stop the whole order while every shipment with a lab can be asked to cancel.
  const cancellable =
    changeable ||
    (stage === 'InProgress' &&
      options.asksLabs &&
      Object.values(pipeline.shipments).every((shipment) => !isSubmitted(shipment.state) || canAskToCancel(shipment)))
  const yesNo = (available: boolean): Availability => (available ? 'Yes' : 'No')
  return {
    cancel: { isAvailable: yesNo(cancellable) },
    changeRecipientDetails: { isAvailable: yesNo(changeable) },
    // A failed order (assets that never downloaded, a file that cannot print) is not re-planned: cancel it.
    changeShippingMethod: { isAvailable: yesNo(changeable && pipeline.phase !== 'failed') },
    changeMetaData: { isAvailable: 'Yes' },
  }
}

/** The order's shipments that are neither cancelled nor with a lab, and those with a lab. */
export function shipmentsByChangeability(
  order: OrderDocument,
  pipeline: PipelineState,
): { open: Shipment[]; submitted: Shipment[] } {
  const open: Shipment[] = []
  const submitted: Shipment[] = []
  for (const shipment of order.shipments) {
    const state = pipeline.shipments[shipment.id]?.state
    if (isSubmitted(state)) submitted.push(shipment)
    else if (state === 'allocated') open.push(shipment)
  }
  return { open, submitted }
}

export interface CancelResult {
  outcome: CancelOutcome
  changed: boolean
  /** True when the whole order was cancelled (refund everything); otherwise only `cancelledShipmentIds`. */
  wholeOrder: boolean
  cancelledShipmentIds: string[]
  /** Shipments whose labs were asked to cancel by this cancel (a request already open is not asked again). */
  requestedShipmentIds: string[]
  /**
   * Shipments whose labs' answers decide the outcome: every shipment with a lab has an open request. The outcome
   * is FailedToCancel until they all answer `cancelled` (the service waits for that a while).
   */
  awaitedShipmentIds: string[]
}

export function cancelOrder(
  order: OrderDocument,
  pipeline: PipelineState,
  now: Date,
  options: CancelOptions = { asksLabs: false },
): CancelResult {
  const none = (outcome: CancelOutcome): CancelResult => ({
    outcome,
    changed: false,
    wholeOrder: false,
    cancelledShipmentIds: [],
    requestedShipmentIds: [],
    awaitedShipmentIds: [],
  })
  if (order.status.stage !== 'InProgress') return none('ActionNotAvailable')
  const { open, submitted } = shipmentsByChangeability(order, pipeline)
  const askable = options.asksLabs
    ? submitted.filter((shipment) => canAskToCancel(pipeline.shipments[shipment.id]))
    : []
  const requestedShipmentIds = askable
    .filter((shipment) => {
      const state = pipeline.shipments[shipment.id]
      return state !== undefined && requestCancellation(state, now)
    })
    .map((shipment) => shipment.id)
  // Every shipment with a lab can be asked: the labs' answers decide.
  const awaitedShipmentIds = askable.length === submitted.length ? askable.map((shipment) => shipment.id) : []
  if (submitted.length > 0 && open.length === 0) {
    return {
      ...none('FailedToCancel'),
      changed: requestedShipmentIds.length > 0,
      requestedShipmentIds,
      awaitedShipmentIds,
    }
  }
  for (const shipment of open) {
    shipment.status = 'Cancelled'
    shipment.cancelled = true
    // A cancelled shipment is never dispatched: it keeps no estimate (its promise stays in the pipeline state).
    setShipmentEstimate(shipment, null)
    const state = pipeline.shipments[shipment.id]
    if (state) state.state = 'cancelled'
  }
  order.lastUpdated = now.toISOString()
  const cancelledShipmentIds = open.map((shipment) => shipment.id)
  if (submitted.length > 0) {
    refreshOrderEstimate(order, pipeline)
    return {
      outcome: 'FailedToCancel',
      changed: true,
      wholeOrder: false,
      cancelledShipmentIds,
      requestedShipmentIds,
      awaitedShipmentIds,
    }
  }
  order.status.stage = 'Cancelled'
  pipeline.phase = 'cancelled'
  refreshOrderEstimate(order, pipeline)
  return {
    outcome: 'Cancelled',
    changed: true,
    wholeOrder: true,
    cancelledShipmentIds,
    requestedShipmentIds: [],
    awaitedShipmentIds: [],
  }
}

export function updateOutcome(results: readonly ShipmentUpdateResult[]): UpdateOutcome {
  if (results.length === 0 || results.every((result) => result.successful)) return 'Updated'
  return results.some((result) => result.successful) ? 'PartiallyUpdated' : 'FailedToUpdate'
}

/**
 * Replaces the recipient where it can still reach the labs. Returns one result per live shipment; when every
 * shipment is already with its lab nothing changes (FailedToUpdate). A shipment already submitted keeps the
 * recipient it was submitted with (the lab API serves that copy).
 */
export function updateRecipient(
  order: OrderDocument,
  pipeline: PipelineState,
  recipient: Recipient,
  now: Date,
): { outcome: UpdateOutcome; results: ShipmentUpdateResult[]; changed: boolean } {
  if (order.status.stage !== 'InProgress') return { outcome: 'ActionNotAvailable', results: [], changed: false }
  const { open, submitted } = shipmentsByChangeability(order, pipeline)
  const results = [
    ...open.map((shipment) => ({ shipmentId: shipment.id, successful: true })),
    ...submitted.map((shipment) => ({ shipmentId: shipment.id, successful: false })),
  ].sort(byShipmentId)
  const outcome = updateOutcome(results)
  if (outcome === 'FailedToUpdate') return { outcome, results, changed: false }
  order.recipient = recipient
  order.lastUpdated = now.toISOString()
  return { outcome, results, changed: true }
}

/** Orders shipment results by shipment id (ids grow with creation, so this is the order of the shipments). */
export function byShipmentId(a: ShipmentUpdateResult, b: ShipmentUpdateResult): number {
  return (parseId('shp', a.shipmentId) ?? 0) - (parseId('shp', b.shipmentId) ?? 0)
}

/**
 * Puts re-planned shipments (a new shipping method) in place of the open shipments `replaced`. A planned
 * shipment from the same lab with the same items keeps the old shipment (its id and the print files made or
 * being made for it) and only takes the new carrier and the new plan's estimate (its promise too: the merchant
 * chose another method, so the old promise no longer applies); any other is added as a new shipment whose print
 * files are rendered. The order's estimate follows. Returns the render jobs and, per shipment id in the result,
 * whether it is new.
 */
export function replaceOpenShipments(
  order: OrderDocument,
  pipeline: PipelineState,
  replaced: readonly Shipment[],
  planned: readonly AllocatedShipment[],
  now: Date,
): { jobs: JobRequest[]; keptOrAddedIds: string[]; removedIds: string[] } {
  const jobs: JobRequest[] = []
  const keptOrAddedIds: string[] = []
  const available = new Map(replaced.map((shipment) => [shipment.id, shipment]))
  for (const plan of planned) {
    const planItems = [...plan.itemIds].sort().join(',')
    const same = [...available.values()].find(
      (old) =>
        old.fulfillmentLocation.labCode === plan.labCode &&
        old.items
          .map((entry) => entry.itemId)
          .sort()
          .join(',') === planItems,
    )
    if (same) {
      available.delete(same.id)
      same.carrier = plan.carrier
      setShipmentEstimate(same, plan.estimate ?? null)
      const state = pipeline.shipments[same.id]
      if (state) {
        if (plan.estimate) state.promise = plan.estimate
        else delete state.promise
        // Not yet with its lab: the new method's shipping cost is what the hand-off records.
        if (plan.labCost) state.labCost = plan.labCost
      }
      keptOrAddedIds.push(same.id)
      continue
    }
    jobs.push(...addShipment(order, pipeline, plan))
    keptOrAddedIds.push(plan.id)
  }
  const removedIds = [...available.keys()]
  order.shipments = order.shipments.filter((shipment) => !available.has(shipment.id))
  for (const id of removedIds) delete pipeline.shipments[id]
  refreshOrderEstimate(order, pipeline)
  if (jobs.length > 0) {
    pipeline.phase = 'rendering'
    order.status.details.printReadyAssetsPrepared = 'InProgress'
    if (!anyShipmentSubmitted(pipeline)) order.status.details.inProduction = 'NotStarted'
  }
  order.lastUpdated = now.toISOString()
  return { jobs, keptOrAddedIds, removedIds }
}

/** What replaceAsset is asked: the item (its `ori_` id), the asset's print area on it, the new file's URL. */
export interface ReplaceAssetRequest {
  itemId: string
  printArea: string
  url: string
}

export type ReplaceAssetOutcome = 'Updated' | 'ActionNotAvailable'

export type ReplaceAssetResult =
  | { outcome: ReplaceAssetOutcome; changed: boolean; jobs: JobRequest[]; assetId: string | null }
  /** The request names no item of the order, or no print area of the item: a bad request, nothing changed. */
  | { failures: Failures }

/** The issues a replaced asset leaves behind: its download's and its preflight's, which the new file answers. */
const REPLACED_ASSET_ISSUES: readonly string[] = [
  ISSUE_CODES.notDownloaded,
  ISSUE_CODES.failedToDownload,
  ISSUE_CODES.preflightFailed,
  ISSUE_CODES.lowResolution,
]

/**
 * Whether the asset may be replaced now: the order is InProgress and no lab has been chosen for it yet. That is
 * before the pipeline started (only the URL changes), while the order downloads its files (whatever this one's
 * state: pending, downloaded or failed), or once it stopped at its downloads (a PreflightFailed hold, a download
 * that failed for good). Once allocation began (shipments, print files, charges) it is not: cancel instead.
 */
export function canReplaceAsset(stage: Stage, pipeline: PipelineState, assetId: string): boolean {
  if (stage !== 'InProgress') return false
  if (pipeline.phase === 'waiting') return true
  const file = pipeline.files[assetId]
  return (
    (pipeline.phase === 'downloading' || pipeline.phase === 'failed') &&
    file?.kind === 'asset' &&
    // Stopped at its downloads (details.downloadAssets), never at a later step: no shipment was ever made.
    Object.values(pipeline.shipments).length === 0 &&
    (pipeline.phase === 'downloading' || file.status === 'failed')
  )
}

/** Whether any asset of the order may be replaced now (GET .../actions, `replaceAsset`). */
export function anyAssetReplaceable(order: OrderDocument, pipeline: PipelineState): boolean {
  return order.items.some((item) =>
    item.assets.some((asset) => canReplaceAsset(order.status.stage, pipeline, asset.id)),
  )
}

/**
 * Replaces one asset's URL (the asset printed on `printArea` of item `itemId`). Once the pipeline started, the
 * file is downloaded and preflighted afresh: it is pending again under the asset's next `replacement` (attempts of
 * the old file, queued or running, then change nothing), its item and asset go back to waiting for it, the issues
 * its old file raised go, and an order stopped at its downloads goes on downloading. Before the pipeline started only the URL changes (the start queues it). Any other state of the
 * order or the file: ActionNotAvailable, nothing changed.
 */
export function replaceAsset(
  order: OrderDocument,
  pipeline: PipelineState,
  request: ReplaceAssetRequest,
  now: Date,
): ReplaceAssetResult {
  const item = order.items.find((candidate) => candidate.id === request.itemId)
  if (!item) {
    const failure: Failure = {
      code: 'InvalidValue',
      providedValue: request.itemId,
      validValues: order.items.map((i) => i.id),
    }
    return { failures: { itemId: [failure] } }
  }
  const asset = item.assets.find((candidate) => candidate.printArea.toLowerCase() === request.printArea.toLowerCase())
  if (!asset) {
    const validValues = item.assets.map((candidate) => candidate.printArea)
    return { failures: { printArea: [{ code: 'UnknownPrintArea', providedValue: request.printArea, validValues }] } }
  }
  if (!canReplaceAsset(order.status.stage, pipeline, asset.id)) {
    return { outcome: 'ActionNotAvailable', changed: false, jobs: [], assetId: asset.id }
  }
  const fileKey = asset.id
  asset.url = request.url
  // The merchant's md5 was of the old file: the new one is taken as downloaded.
  asset.md5Hash = null
  order.lastUpdated = now.toISOString()
  if (pipeline.phase === 'waiting') return { outcome: 'Updated', changed: true, jobs: [], assetId: fileKey }
  const old = pipeline.files[fileKey]
  const replacement = (old?.replacement ?? 0) + 1
  pipeline.files[fileKey] = {
    kind: 'asset',
    url: request.url,
    expectedMd5: null,
    failedAttempts: 0,
    status: 'pending',
    stored: null,
    replacement,
  }
  asset.status = 'InProgress'
  asset.thumbnailUrl = null
  item.status = 'NotYetDownloaded'
  item.thumbnailUrl = null
  order.status.issues = order.status.issues.filter(
    (issue) =>
      !(
        issue.objectId === item.id &&
        REPLACED_ASSET_ISSUES.includes(issue.errorCode) &&
        issue.description.toLowerCase().includes(`asset ${fileKey.toLowerCase()}`)
      ),
  )
  if (pipeline.phase === 'failed') {
    pipeline.phase = 'downloading'
    order.status.details.downloadAssets = 'InProgress'
  }
  return {
    outcome: 'Updated',
    changed: true,
    jobs: [downloadJob(order.id, fileKey, 1, undefined, replacement)],
    assetId: fileKey,
  }
}
