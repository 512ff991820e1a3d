// The fulfilment pipeline of one order as pure transitions: each takes the order document and its pipeline
// state, changes them, and returns the jobs the change causes. The pipeline service runs every transition
// inside one transaction that locks the order row, saves both and enqueues the jobs, so a crash at any point
// leaves either the old state with its old jobs or the new state with its new jobs.
//
// Every transition is idempotent: applied twice (a job re-run after a crash), the second application finds
// the work done and changes nothing. Job keys are deterministic for the same reason: enqueuing the same job
// twice is a no-op in the queue.
//
// Stages follow the specification's "Processing sequence": downloadAssets -> allocateProductionLocation ->
// printReadyAssetsPrepared -> inProduction -> shipping, stage InProgress until every shipment has shipped.
import type { ExclusionByHistory } from './allocation.ts'
import type { PrintFileFormat } from './catalogue.types.ts'
import type { BillingState } from './charges.ts'
import { combinedEstimate, type DeliveryEstimate } from './delivery-promise.ts'
import { applyTrackingEvents, type TrackingRefusal, trackingRefusal } from './delivery-tracking.ts'
import type { Environment } from './environment.ts'
import { type JobRequest, jobRequest } from './jobs.ts'
import type {
  DeliveryStatus,
  DetailState,
  Issue,
  Item,
  OrderDocument,
  Recipient,
  Shipment,
  TrackingEvent,
} from './order.ts'
import type { PrintFilePlan } from './print-geometry.ts'
import type { RoutingRound } from './routing.ts'
import type { SandboxScenario } from './sandbox-scenarios.ts'

/** Asset downloads are attempted 10 times (specification, "Issues" and "Limits"). */
export const DOWNLOAD_MAX_ATTEMPTS = 10

export const ISSUE_CODES = {
  notDownloaded: 'order.items.assets.NotDownloaded',
  failedToDownload: 'order.items.assets.FailedToDownloaded',
  itemUnavailable: 'order.items.ItemUnavailable',
  /** Ours: the file downloaded but cannot be made into a print file (unreadable, too large, wrong pages). */
  invalidAsset: 'order.items.assets.InvalidAsset',
  /**
   * Ours, a warning: the image prints below the product's minimum resolution (docs/api.md#resolution-warnings).
   * The order goes on; the merchant may cancel and order again with a larger image.
   */
  lowResolution: 'order.items.assets.LowResolution',
  /** A prepaid order the balance cannot cover waits for a payment (docs/billing.md). */
  paymentAuthorisation: 'RequiresPaymentAuthorisation',
} as const

export interface StoredFile {
  blobKey: string
  contentType: string
  bytes: number
  md5: string
  width: number | null
  height: number | null
}

export type FileKind = 'asset' | 'packingSlip' | 'branding'

export interface PipelineFile {
  kind: FileKind
  url: string
  expectedMd5: string | null
  /** Failed attempts so far. */
  failedAttempts: number
  status: 'pending' | 'downloaded' | 'failed'
  stored: StoredFile | null
}

export interface PrintFile {
  blobKey: string
  width: number
  height: number
  format: string
  /**
   * A reduced JPEG of the print file, for screens (docs/print-files.md, "Previews"): null for PDFs, absent from
   * print files made before previews existed.
   */
  previewBlobKey?: string | null
  /** How a raster print file was made from its source: null for PDFs, absent from older print files. */
  geometry?: PrintFileGeometry | null
  /**
   * What a lab checks the file against (docs/pipeline.md#labs), worked out once when the print file is made;
   * absent from older print files. `sha256` (hex) and `bytes` are of the file's bytes as stored.
   */
  sha256?: string
  bytes?: number
  /** Whole source pixels per printed inch (domain/print-geometry.ts, effectiveDpi); absent for PDFs. */
  dpi?: number
  /** The rendered file's colour space as libvips names it (`srgb`, `cmyk`, `b-w`); absent for PDFs. */
  colourSpace?: string
}

/**
 * The format of the print file an asset becomes: a PDF (a book) is passed on as it is, whatever the lab asked
 * for; an image is rendered in the lab's format, as a JPEG for a lab that asked for PDFs.
 */
export function printFileFormatOf(labFormat: string | undefined, sourceContentType: string): PrintFileFormat {
  if (sourceContentType === 'application/pdf') return 'pdf'
  return labFormat === 'png' || labFormat === 'tiff' ? labFormat : 'jpeg'
}

export interface PrintFileGeometry {
  /** The source's size after EXIF orientation. */
  source: { width: number; height: number }
  plan: PrintFilePlan
}

export type ShipmentState =
  | 'allocated'
  | 'submitted'
  | 'acknowledged'
  | 'inProduction'
  | 'shipped'
  | 'rejected'
  /** Cancelled by the merchant before it reached its lab. */
  | 'cancelled'

export interface PipelineShipment {
  labCode: string
  state: ShipmentState
  /** Asset id -> its print file once rendered (null while pending). */
  printFiles: Record<string, PrintFile | null>
  /** Asset id -> print file format the lab wants. */
  formats: Record<string, string>
  /** Asset id -> why its print file could not be made (absent until one fails). */
  printFileFailures?: Record<string, string>
  /**
   * What the lab was given at submission: a recipient or shipping method changed afterwards (a partial update)
   * does not reach a shipment already with its lab.
   */
  submitted?: {
    recipient: Recipient
    shippingMethod: string
    /** When the shipment was submitted (ISO instant): absent from shipments submitted before it was kept. */
    at?: string
  }
  /**
   * printroute's packing slip, made right after the submission from what the lab was given (domain/packing-slip.ts);
   * absent until then, for shipments submitted before packing slips were made, and when making it failed.
   */
  packingSlipPdf?: { blobKey: string }
  /**
   * The delivery promise made when the shipment was allocated (domain/delivery-promise.ts): the shipment's own
   * estimate moves with the real dispatch date, this stays, so a delivery after its `to` is known to be late.
   */
  promise?: DeliveryEstimate
}

export type PipelinePhase =
  | 'waiting'
  | 'downloading'
  | 'allocating'
  | 'rendering'
  | 'producing'
  | 'complete'
  | 'failed'
  | 'cancelled'

export interface PipelineState {
  phase: PipelinePhase
  /** File key (asset id, `packingSlip`, `branding:<key>`) -> its download. */
  files: Record<string, PipelineFile>
  shipments: Record<string, PipelineShipment>
  /** Item id -> labs that must not be used for it (rejected it or had no stock). */
  excludedLabs: Record<string, string[]>
  /**
   * Item id -> lab code -> why the lab is in `excludedLabs`: `OutOfStock` when the lab named the item unavailable,
   * `Rejected` when it refused the whole shipment. Absent from orders older than routing explanations.
   */
  exclusionReasons?: Record<string, Record<string, ExclusionByHistory>>
  /** How each allocation of the order was reached, oldest first (GET /orders/{id}/routing). */
  routing?: RoutingRound[]
  /** Incremented on every allocation round, so each round's job key is new. */
  allocationRound: number
  /** What the order has been charged and how it is paid; absent until it enters fulfilment (domain/charges.ts). */
  billing?: BillingState
  /**
   * The W3C trace id of the request that created the order, carried to the pipeline by the start job, so every
   * log line of the order's background work can be found from the traceParent its creator was given.
   */
  traceId?: string
}

/** An order as the pipeline, the order actions and payments change it: its row's document and pipeline state. */
export interface PipelineOrder {
  orderNumber: number
  accountId: number
  environment: Environment
  onHoldUntil: Date | null
  /** The Sandbox scenario the order was created with (docs/sandbox.md); null for none and on Live. */
  sandboxScenario: SandboxScenario | null
  document: OrderDocument
  pipeline: PipelineState
}

export interface Transition {
  changed: boolean
  jobs: JobRequest[]
}

const NOTHING: Transition = { changed: false, jobs: [] }

/**
 * The job that puts a new order into the pipeline: now, or when its pause window ends. `traceId` (the creating
 * request's) becomes the order's `pipeline.traceId`.
 */
export function startOrderJob(orderId: string, onHoldUntil: Date | null, traceId?: string): JobRequest {
  return jobRequest('start-order', traceId ? { orderId, traceId } : { orderId }, onHoldUntil ?? undefined)
}

export function emptyPipeline(): PipelineState {
  return { phase: 'waiting', files: {}, shipments: {}, excludedLabs: {}, allocationRound: 0 }
}

/** The pipeline state stored for an order; `{}` (the column default) means not started. */
export function pipelineOf(stored: unknown): PipelineState {
  const state = stored as Partial<PipelineState> | null
  return state && typeof state.phase === 'string' ? (state as PipelineState) : emptyPipeline()
}

/** Delay before download attempt `nextAttempt` (2..10): base, 2x base, 4x base, ... */
export function downloadRetryDelaySeconds(baseSeconds: number, failedAttempts: number): number {
  return baseSeconds * 2 ** (failedAttempts - 1)
}

function touch(order: OrderDocument, now: Date): void {
  order.lastUpdated = now.toISOString()
}

function setDetail(order: OrderDocument, detail: keyof OrderDocument['status']['details'], state: DetailState) {
  order.status.details[detail] = state
}

function addIssue(order: OrderDocument, objectId: string, errorCode: string, description: string): void {
  const issue: Issue = { objectId, errorCode, description, authorisationDetails: null }
  order.status.issues.push(issue)
}

function findAsset(order: OrderDocument, assetId: string): { item: Item; index: number } | undefined {
  for (const item of order.items) {
    const index = item.assets.findIndex((asset) => asset.id === assetId)
    if (index >= 0) return { item, index }
  }
  return undefined
}

function downloadJob(orderId: string, fileKey: string, attempt: number, startAfter?: Date): JobRequest {
  return jobRequest('download-file', { orderId, fileKey, attempt }, startAfter)
}

/** The order enters the pipeline: every file is queued for download. */
export function startPipeline(order: OrderDocument, pipeline: PipelineState, now: Date): Transition {
  if (pipeline.phase !== 'waiting') return NOTHING
  pipeline.phase = 'downloading'
  for (const item of order.items) {
    for (const asset of item.assets) {
      pipeline.files[asset.id] = newFile('asset', asset.url, asset.md5Hash)
    }
  }
  if (order.packingSlip) pipeline.files.packingSlip = newFile('packingSlip', order.packingSlip.url, null)
  if (order.branding) {
    const seen = new Set<string>()
    for (const [key, entry] of Object.entries(order.branding)) {
      // The colour slip appears under both spellings with the same URL: download it once.
      const name = key === 'packing_slip_color' ? 'packing_slip_colour' : key
      if (!entry || seen.has(name)) continue
      seen.add(name)
      pipeline.files[`branding:${name}`] = newFile('branding', entry.url, null)
    }
  }
  setDetail(order, 'downloadAssets', 'InProgress')
  touch(order, now)
  const jobs = Object.keys(pipeline.files).map((fileKey) => downloadJob(order.id, fileKey, 1))
  // An order without assets (not possible through the API today) goes straight on.
  if (!hasPendingAssets(pipeline)) jobs.push(...finishDownloads(order, pipeline))
  return { changed: true, jobs }
}

/** A URL as issues show it: without its query, which may carry a signature or a token. */
function withoutQuery(url: string): string {
  const cut = url.search(/[?#]/)
  return cut === -1 ? url : url.slice(0, cut)
}

function newFile(kind: FileKind, url: string, expectedMd5: string | null): PipelineFile {
  return { kind, url, expectedMd5, failedAttempts: 0, status: 'pending', stored: null }
}

function hasPendingAssets(pipeline: PipelineState): boolean {
  return Object.values(pipeline.files).some((file) => file.kind === 'asset' && file.status === 'pending')
}

function hasFailedAssets(pipeline: PipelineState): boolean {
  return Object.values(pipeline.files).some((file) => file.kind === 'asset' && file.status === 'failed')
}

/** Called when no asset is pending any more: on to allocation, or stop at Error. */
function finishDownloads(order: OrderDocument, pipeline: PipelineState): JobRequest[] {
  if (pipeline.phase !== 'downloading') return []
  if (hasFailedAssets(pipeline)) {
    setDetail(order, 'downloadAssets', 'Error')
    pipeline.phase = 'failed'
    return []
  }
  setDetail(order, 'downloadAssets', 'Complete')
  return beginAllocation(order, pipeline)
}

function beginAllocation(order: OrderDocument, pipeline: PipelineState): JobRequest[] {
  pipeline.phase = 'allocating'
  pipeline.allocationRound += 1
  setDetail(order, 'allocateProductionLocation', 'InProgress')
  return [jobRequest('allocate-order', { orderId: order.id, round: pipeline.allocationRound })]
}

export function recordDownloadSuccess(
  order: OrderDocument,
  pipeline: PipelineState,
  fileKey: string,
  stored: StoredFile,
  thumbnailUrl: string | null,
  now: Date,
  /** The LowResolution warning's text when the image prints below the product's minimum: a non-blocking issue. */
  lowResolution: string | null = null,
): Transition {
  const file = pipeline.files[fileKey]
  if (file?.status !== 'pending' || pipeline.phase === 'cancelled') return NOTHING
  file.status = 'downloaded'
  file.stored = stored
  touch(order, now)
  if (file.kind === 'packingSlip' && order.packingSlip) order.packingSlip.status = 'Success'
  if (file.kind !== 'asset') return { changed: true, jobs: [] }
  const found = findAsset(order, fileKey)
  if (found) {
    const asset = found.item.assets[found.index]
    if (asset) {
      asset.status = 'Complete'
      asset.thumbnailUrl = thumbnailUrl
    }
    if (lowResolution) addIssue(order, found.item.id, ISSUE_CODES.lowResolution, `Asset ${fileKey}: ${lowResolution}`)
    if (found.item.assets.every((candidate) => candidate.status === 'Complete')) {
      found.item.status = 'Ok'
      found.item.thumbnailUrl = found.item.assets[0]?.thumbnailUrl ?? null
    }
  }
  const jobs = hasPendingAssets(pipeline) ? [] : finishDownloads(order, pipeline)
  return { changed: true, jobs }
}

export function recordDownloadFailure(
  order: OrderDocument,
  pipeline: PipelineState,
  fileKey: string,
  attempt: number,
  reason: string,
  retryBaseSeconds: number,
  now: Date,
  /** `final`: the failure cannot go away by waiting (a sample printroute does not have): no more attempts. */
  options: { final?: boolean } = {},
): Transition {
  const file = pipeline.files[fileKey]
  // Each attempt is recorded once; a re-run of an attempt already recorded changes nothing.
  if (file?.status !== 'pending' || attempt <= file.failedAttempts || pipeline.phase === 'cancelled') return NOTHING
  file.failedAttempts = attempt
  touch(order, now)
  const found = file.kind === 'asset' ? findAsset(order, fileKey) : undefined
  const objectId = found ? found.item.id : order.id
  const what =
    file.kind === 'asset'
      ? `asset ${fileKey}`
      : file.kind === 'packingSlip'
        ? 'the packing slip'
        : fileKey.replace('branding:', 'branding ')
  addIssue(
    order,
    objectId,
    ISSUE_CODES.notDownloaded,
    `Download attempt ${attempt} of ${DOWNLOAD_MAX_ATTEMPTS} failed for ${what} (${withoutQuery(file.url)}): ${reason}` +
      (options.final ? ' (not retried)' : ''),
  )
  if (attempt < DOWNLOAD_MAX_ATTEMPTS && !options.final) {
    const delay = downloadRetryDelaySeconds(retryBaseSeconds, attempt)
    return {
      changed: true,
      jobs: [downloadJob(order.id, fileKey, attempt + 1, new Date(now.getTime() + delay * 1000))],
    }
  }
  file.status = 'failed'
  if (file.kind === 'packingSlip' && order.packingSlip) order.packingSlip.status = 'Error'
  if (file.kind !== 'asset') return { changed: true, jobs: [] }
  addIssue(
    order,
    objectId,
    ISSUE_CODES.failedToDownload,
    `Asset ${fileKey} (${withoutQuery(file.url)}) failed to download after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${reason}`,
  )
  if (found) {
    const asset = found.item.assets[found.index]
    if (asset) asset.status = 'Error'
    found.item.status = 'Invalid'
  }
  const jobs = hasPendingAssets(pipeline) ? [] : finishDownloads(order, pipeline)
  return { changed: true, jobs }
}

/** A shipment decided by allocation, ready to be written onto the order. */
export interface AllocatedShipment {
  id: string
  labCode: string
  labCountryCode: string
  carrier: { name: string; service: string }
  itemIds: string[]
  /** Item id -> print file format the lab wants. */
  formats: Record<string, string>
  /** The allocation's delivery estimate for the shipment (null or absent: the catalogue gives none). */
  estimate?: DeliveryEstimate | null
}

// ---------------------------------------------------------------------------------------------------------
// Delivery estimates on the order (docs/api.md#delivery-estimates)
// ---------------------------------------------------------------------------------------------------------

/** Shipment keys the wire order puts after the estimate (delivery tracking's). */
const SHIPMENT_KEYS_AFTER_ESTIMATE = ['deliveryStatus', 'trackingEvents', 'deliveredAt', 'deliveredLate'] as const
/** Order keys the wire order puts after the estimate. */
const ORDER_KEYS_AFTER_ESTIMATE = ['deliveredAt', 'deliveredLate'] as const

type Estimated = Pick<Shipment, 'estimatedDispatchDate' | 'estimatedDelivery'>

/**
 * Sets (or, for null, removes) the estimate keys of a shipment or an order in their place of the wire order: the
 * keys that follow them are taken out and put back after them, so the stored text stays in contract order.
 */
function setEstimate<T extends Estimated>(
  target: T,
  estimate: DeliveryEstimate | null,
  keysAfter: readonly (keyof T & string)[],
): void {
  const following = keysAfter.filter((key) => Object.hasOwn(target, key)).map((key) => [key, target[key]] as const)
  for (const [key] of following) delete target[key]
  delete target.estimatedDispatchDate
  delete target.estimatedDelivery
  if (estimate) {
    target.estimatedDispatchDate = estimate.estimatedDispatchDate
    target.estimatedDelivery = { from: estimate.estimatedDelivery.from, to: estimate.estimatedDelivery.to }
  }
  for (const [key, value] of following) target[key] = value
}

/** Sets (null: removes) a shipment's `estimatedDispatchDate` and `estimatedDelivery`. */
export function setShipmentEstimate(shipment: Shipment, estimate: DeliveryEstimate | null): void {
  setEstimate(shipment, estimate, SHIPMENT_KEYS_AFTER_ESTIMATE)
}

/** A shipment's estimate as the order shows it; null when it has none. */
export function shipmentEstimate(shipment: Shipment): DeliveryEstimate | null {
  const { estimatedDispatchDate, estimatedDelivery } = shipment
  return estimatedDispatchDate && estimatedDelivery ? { estimatedDispatchDate, estimatedDelivery } : null
}

/**
 * The order's estimate made true again after its shipments changed: the latest of its live (not cancelled)
 * shipments' estimates. None while an item waits for a lab (a refused shipment's items before their new
 * allocation), when a live shipment has no estimate, when none is live, or once the order is cancelled.
 */
export function refreshOrderEstimate(order: OrderDocument, pipeline: PipelineState): void {
  const live = order.shipments.filter((shipment) => !shipment.cancelled)
  const known =
    order.status.stage !== 'Cancelled' && live.length > 0 && itemsAwaitingAllocation(order, pipeline).length === 0
  setEstimate(order, known ? combinedEstimate(live.map(shipmentEstimate)) : null, ORDER_KEYS_AFTER_ESTIMATE)
}

/** Items that still need a lab: not in any live (not rejected) shipment. */
export function itemsAwaitingAllocation(order: OrderDocument, pipeline: PipelineState): Item[] {
  const allocated = new Set<string>()
  for (const shipment of order.shipments) {
    const state = pipeline.shipments[shipment.id]?.state
    if (state && state !== 'rejected') for (const entry of shipment.items) allocated.add(entry.itemId)
  }
  return order.items.filter((item) => !allocated.has(item.id))
}

export function applyAllocation(
  order: OrderDocument,
  pipeline: PipelineState,
  round: number,
  shipments: AllocatedShipment[],
  unavailableItemIds: string[],
  now: Date,
): Transition {
  if (pipeline.phase !== 'allocating' || round !== pipeline.allocationRound) return NOTHING
  touch(order, now)
  if (unavailableItemIds.length > 0) {
    for (const itemId of unavailableItemIds) {
      const item = order.items.find((candidate) => candidate.id === itemId)
      addIssue(
        order,
        itemId,
        ISSUE_CODES.itemUnavailable,
        `No lab can currently make ${item?.sku ?? 'this item'} and ship it to ${order.recipient.address.countryCode} by ${order.shippingMethod}; please contact customer services`,
      )
    }
    setDetail(order, 'allocateProductionLocation', 'Error')
    pipeline.phase = 'failed'
    refreshOrderEstimate(order, pipeline)
    return { changed: true, jobs: [] }
  }
  const jobs: JobRequest[] = []
  for (const planned of shipments) jobs.push(...addShipment(order, pipeline, planned))
  refreshOrderEstimate(order, pipeline)
  setDetail(order, 'allocateProductionLocation', 'Complete')
  setDetail(order, 'printReadyAssetsPrepared', 'InProgress')
  pipeline.phase = 'rendering'
  return { changed: true, jobs }
}

/**
 * Adds an allocated shipment to the order and the pipeline; its print-file render jobs. The allocation's estimate
 * becomes the shipment's and its `promise` (the order's own estimate is the caller's to refresh).
 */
export function addShipment(order: OrderDocument, pipeline: PipelineState, planned: AllocatedShipment): JobRequest[] {
  const shipment: Shipment = {
    id: planned.id,
    dispatchDate: null,
    carrier: planned.carrier,
    fulfillmentLocation: { countryCode: planned.labCountryCode, labCode: planned.labCode },
    tracking: null,
    items: planned.itemIds.map((itemId) => ({ itemId })),
    status: 'Processing',
    cancelled: false,
  }
  setShipmentEstimate(shipment, planned.estimate ?? null)
  order.shipments.push(shipment)
  const printFiles: Record<string, PrintFile | null> = {}
  const formats: Record<string, string> = {}
  for (const itemId of planned.itemIds) {
    const item = order.items.find((candidate) => candidate.id === itemId)
    for (const asset of item?.assets ?? []) {
      printFiles[asset.id] = null
      formats[asset.id] = planned.formats[itemId] ?? 'jpeg'
    }
  }
  pipeline.shipments[planned.id] = {
    labCode: planned.labCode,
    state: 'allocated',
    printFiles,
    formats,
    ...(planned.estimate ? { promise: planned.estimate } : {}),
  }
  return Object.keys(printFiles).map((assetId) =>
    jobRequest('render-print-file', { orderId: order.id, shipmentId: planned.id, assetId }),
  )
}

/**
 * The shipment, while it is allocated and still waits for this asset's print file; undefined otherwise (the
 * shipment was cancelled or re-planned, or the print file is already there): a late render job changes nothing.
 */
function shipmentAwaitingPrintFile(
  pipeline: PipelineState,
  shipmentId: string,
  assetId: string,
): PipelineShipment | undefined {
  const shipment = pipeline.shipments[shipmentId]
  if (shipment?.state !== 'allocated' || !(assetId in shipment.printFiles) || shipment.printFiles[assetId]) {
    return undefined
  }
  return shipment
}

export function recordPrintFile(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  assetId: string,
  printFile: PrintFile,
  now: Date,
): Transition {
  const shipment = shipmentAwaitingPrintFile(pipeline, shipmentId, assetId)
  if (!shipment) return NOTHING
  shipment.printFiles[assetId] = printFile
  touch(order, now)
  const waiting = Object.values(pipeline.shipments).filter((candidate) => candidate.state === 'allocated')
  if (waiting.some((candidate) => Object.values(candidate.printFiles).some((file) => file === null))) {
    return { changed: true, jobs: [] }
  }
  setDetail(order, 'printReadyAssetsPrepared', 'Complete')
  pipeline.phase = 'producing'
  return { changed: true, jobs: submissionJobs(order, pipeline) }
}

/** True while a prepaid order's charges are not paid: it is not handed to any lab until they are. */
export function isAwaitingPayment(pipeline: PipelineState): boolean {
  return pipeline.billing !== undefined && BigInt(pipeline.billing.unpaid) > 0n
}

/**
 * The jobs that hand the order's ready shipments to their labs: none before every print file is made
 * (phase `producing`) or while the order waits for payment. Called when the last print file is made and again
 * when a payment arrives; submitting twice is harmless (deterministic job key, `recordSubmitted` is idempotent).
 */
export function submissionJobs(order: OrderDocument, pipeline: PipelineState): JobRequest[] {
  if (pipeline.phase !== 'producing' || isAwaitingPayment(pipeline)) return []
  const jobs: JobRequest[] = []
  for (const [id, candidate] of Object.entries(pipeline.shipments)) {
    if (candidate.state !== 'allocated') continue
    jobs.push(jobRequest('submit-shipment', { orderId: order.id, shipmentId: id }))
  }
  if (jobs.length > 0) setDetail(order, 'inProduction', 'InProgress')
  return jobs
}

export function recordPrintFileFailure(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  assetId: string,
  reason: string,
  now: Date,
): Transition {
  const shipment = shipmentAwaitingPrintFile(pipeline, shipmentId, assetId)
  if (!shipment) return NOTHING
  if (shipment.printFileFailures?.[assetId] !== undefined) return NOTHING
  shipment.printFileFailures = { ...shipment.printFileFailures, [assetId]: reason }
  // The order already stopped on another print file: its issue said so; this reason is kept all the same.
  if (pipeline.phase === 'failed') return { changed: true, jobs: [] }
  const found = findAsset(order, assetId)
  touch(order, now)
  addIssue(
    order,
    found?.item.id ?? order.id,
    ISSUE_CODES.invalidAsset,
    `Asset ${assetId} cannot be made into a print file: ${reason}`,
  )
  if (found) {
    const asset = found.item.assets[found.index]
    if (asset) asset.status = 'Error'
    found.item.status = 'Invalid'
  }
  setDetail(order, 'printReadyAssetsPrepared', 'Error')
  pipeline.phase = 'failed'
  return { changed: true, jobs: [] }
}

/** The shipment is with its lab. */
export function recordSubmitted(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  now: Date,
): Transition {
  const shipment = pipeline.shipments[shipmentId]
  // A shipment cancelled (or re-planned) since its submit job was queued is not submitted: the state check and
  // the action's change both happen under the order's row lock, so exactly one of them wins.
  if (shipment?.state !== 'allocated' || isAwaitingPayment(pipeline)) return NOTHING
  shipment.state = 'submitted'
  shipment.submitted = {
    recipient: structuredClone(order.recipient),
    shippingMethod: order.shippingMethod,
    at: now.toISOString(),
  }
  touch(order, now)
  return { changed: true, jobs: [] }
}

export type LabReport =
  | { kind: 'acknowledged' }
  | { kind: 'inProduction' }
  | {
      kind: 'shipped'
      carrier: { name: string; service: string } | null
      tracking: { number: string; url: string } | null
      dispatchDate: Date
      itemIds?: string[]
    }
  | {
      kind: 'rejected'
      reason: string
      unavailableItemIds: string[]
      items?: { itemId: string; reason: 'OutOfStock' | 'FileDefect' | 'CannotProduce'; description?: string }[]
    }
  | { kind: 'printed'; itemIds: string[] }
  /**
   * Carrier scans of a shipped shipment (domain/delivery-tracking.ts). `fromStatus` (the simulated labs): applied
   * only while the shipment's `deliveryStatus` is still that (null: no scan yet), so a step run twice at once, or
   * by a timer and an advance together, reports its scan once.
   */
  | { kind: 'tracking'; events: TrackingEvent[]; fromStatus?: DeliveryStatus | null }

const PROGRESS: Record<ShipmentState, number> = {
  allocated: 0,
  submitted: 1,
  acknowledged: 2,
  inProduction: 3,
  shipped: 4,
  rejected: 4,
  cancelled: 4,
}

/** What a lab report did; a tracking report that cannot apply also says why (the lab API answers with it). */
export interface LabReportTransition extends Transition {
  refusal?: TrackingRefusal
}

/**
 * A lab reports on a shipment it holds. Reports that would move a shipment backwards are ignored. With a `shipped`
 * report, `afterDispatch` is the shipment's estimate from its real dispatch date (`estimateAfterDispatch`; null: the
 * catalogue gives none), which replaces the allocation's; the promise stays.
 */
export function recordLabReport(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  report: LabReport,
  now: Date,
  afterDispatch?: DeliveryEstimate | null,
): LabReportTransition {
  const shipment = pipeline.shipments[shipmentId]
  const onOrder = order.shipments.find((candidate) => candidate.id === shipmentId)
  if (report.kind === 'tracking') {
    // Only a parcel that has left the lab has a carrier. Decided here, under the order's lock, whatever a check
    // made before the lock found.
    const refusal = trackingRefusal(shipment?.state, onOrder, report.events)
    if (refusal) return { changed: false, jobs: [], refusal }
    if (!onOrder) return NOTHING
    // A simulated lab's scan applies only from the status its step was decided on (a step run twice reports once).
    if (report.fromStatus !== undefined && (onOrder.deliveryStatus ?? null) !== report.fromStatus) return NOTHING
    if (!applyTrackingEvents(order, onOrder, report.events, shipment?.promise)) return NOTHING
    touch(order, now)
    return { changed: true, jobs: [] }
  }
  if (!shipment || !onOrder || PROGRESS[shipment.state] < 1) return NOTHING
  if (shipment.state === 'shipped' || shipment.state === 'rejected' || shipment.state === 'cancelled') return NOTHING
  switch (report.kind) {
    // Typed ahead of its recording (item-by-item reports): until then a printed report changes nothing.
    case 'printed':
      return NOTHING
    case 'acknowledged':
    case 'inProduction': {
      if (PROGRESS[report.kind] <= PROGRESS[shipment.state]) return NOTHING
      shipment.state = report.kind
      touch(order, now)
      return { changed: true, jobs: [] }
    }
    case 'shipped': {
      shipment.state = 'shipped'
      onOrder.status = 'Shipped'
      onOrder.dispatchDate = report.dispatchDate.toISOString()
      if (report.carrier) onOrder.carrier = report.carrier
      onOrder.tracking = report.tracking
      if (afterDispatch !== undefined) setShipmentEstimate(onOrder, afterDispatch)
      touch(order, now)
      const live = Object.values(pipeline.shipments).filter(
        (candidate) => candidate.state !== 'rejected' && candidate.state !== 'cancelled',
      )
      const allShipped =
        live.every((candidate) => candidate.state === 'shipped') &&
        itemsAwaitingAllocation(order, pipeline).length === 0
      if (allShipped) {
        setDetail(order, 'inProduction', 'Complete')
        setDetail(order, 'shipping', 'Complete')
        order.status.stage = 'Complete'
        pipeline.phase = 'complete'
      } else {
        setDetail(order, 'shipping', 'InProgress')
      }
      refreshOrderEstimate(order, pipeline)
      return { changed: true, jobs: [] }
    }
    case 'rejected': {
      // The work goes to the next-best lab from the kept copies of the assets.
      shipment.state = 'rejected'
      order.shipments = order.shipments.filter((candidate) => candidate.id !== shipmentId)
      const itemIds = onOrder.items.map((entry) => entry.itemId)
      const outOfStock = report.unavailableItemIds.length > 0
      const excludedFor = outOfStock ? report.unavailableItemIds : itemIds
      pipeline.exclusionReasons ??= {}
      for (const itemId of excludedFor) {
        const excluded = pipeline.excludedLabs[itemId] ?? []
        if (!excluded.includes(shipment.labCode)) excluded.push(shipment.labCode)
        pipeline.excludedLabs[itemId] = excluded
        const reasons = pipeline.exclusionReasons[itemId] ?? {}
        reasons[shipment.labCode] = outOfStock ? 'OutOfStock' : 'Rejected'
        pipeline.exclusionReasons[itemId] = reasons
      }
      touch(order, now)
      refreshOrderEstimate(order, pipeline)
      if (pipeline.phase === 'failed') return { changed: true, jobs: [] }
      return { changed: true, jobs: beginAllocation(order, pipeline) }
    }
  }
}
