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
import type { ExclusionByHistory, ItemRejectionReason } from './allocation.ts'
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
  Parcel,
  Recipient,
  Shipment,
  TrackingEvent,
} from './order.ts'
import type { PrintFilePlan } from './print-geometry.ts'
import type { ReroutedItem, RoutingRound } from './routing.ts'
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
  /**
   * Ours, a warning: the recipient's address breaks its country's rules (docs/addresses.md), one issue per
   * problem. The order goes on; the merchant may correct it with updateRecipient.
   */
  addressUnverified: 'order.recipient.AddressUnverified',
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

/** Where one item of a shipment is at its lab: `rejected` items left the shipment for another allocation. */
export type LabItemState = 'open' | 'printed' | 'shipped' | 'rejected'

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
   * Item id -> how far the lab got with the item, reported item by item (docs/pipeline.md#lab-reports); an item not
   * here is open (or, in a shipment shipped whole before item reports existed, shipped). Absent until the first.
   */
  itemStates?: Record<string, Exclude<LabItemState, 'open'>>
  /**
   * The delivery promise made when the shipment was allocated (domain/delivery-promise.ts): the shipment's own
   * estimate moves with the real dispatch date, this stays, so a delivery after its `to` is known to be late.
   */
  promise?: DeliveryEstimate
  /**
   * printroute asked the lab to cancel the shipment (the merchant cancelled the order while the lab had not
   * started production) and, once given, the lab's answer (domain/lab-cancellation.ts); absent when never asked.
   */
  cancellationRequested?: CancellationRequest
  /**
   * The carrier and service the shipment was priced with, kept when the lab rejected the whole shipment (it then
   * leaves the order's shipments, and the lab API still shows the job as it was given).
   */
  carrier?: { name: string; service: string }
}

/** A request to a lab to cancel a shipment it holds, and how it was answered (docs/pipeline.md#cancellation). */
export interface CancellationRequest {
  /** When printroute asked (ISO instant). */
  at: string
  /** The lab's answer; absent while the request is open. A report of production or shipping answers `tooLate`. */
  answer?: CancellationAnswer
  /** When the answer came (ISO instant). */
  answeredAt?: string
  /** How the request was closed when not by the lab's answer: it reported production or shipping, or rejected. */
  closedBy?: 'progress' | 'rejection'
}

export type CancellationAnswer = 'cancelled' | 'tooLate'

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
  /**
   * Items a lab gave back that wait for their next allocation round, which names them in its routing
   * (`reroutedItems`) and takes them from here. Absent when none wait.
   */
  reroutes?: ReroutedItem[]
  /** How each allocation of the order was reached, oldest first (GET /orders/{id}/routing). */
  routing?: RoutingRound[]
  /** Incremented on every allocation round, so each round's job key is new. */
  allocationRound: number
  /**
   * The catalogue version of the latest round that gave shipments to labs (docs/catalogue.md#versions): work on
   * those shipments reads that version, even after another is activated. Absent before, and for a catalogue not
   * stored as a version.
   */
  catalogueVersion?: number
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
const SHIPMENT_KEYS_AFTER_ESTIMATE = [
  'parcels',
  'deliveryStatus',
  'trackingEvents',
  'deliveredAt',
  'deliveredLate',
] as const
/** Shipment keys the wire order puts after `parcels` (delivery tracking's). */
const SHIPMENT_KEYS_AFTER_PARCELS = ['deliveryStatus', 'trackingEvents', 'deliveredAt', 'deliveredLate'] as const
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

/** Sets a shipment's `parcels` in its place of the wire order (after the estimate, before delivery tracking). */
function setParcels(shipment: Shipment, parcels: Parcel[]): void {
  const following = SHIPMENT_KEYS_AFTER_PARCELS.filter((key) => Object.hasOwn(shipment, key)).map(
    (key) => [key, shipment[key]] as const,
  )
  for (const [key] of following) delete shipment[key]
  shipment.parcels = parcels
  for (const [key, value] of following) Object.assign(shipment, { [key]: value })
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
  // A lab gave items back while this shipment was rendering: the submission waits for that round's shipments, which
  // submit this one too when their own print files are made.
  if (pipeline.phase === 'allocating') return { changed: true, jobs: [] }
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

/** One item a lab gives back, and why (docs/pipeline.md#lab-reports); a `FileDefect` says what is wrong. */
export interface RejectedItem {
  itemId: string
  reason: ItemRejectionReason
  description?: string
}

export type LabReport =
  | { kind: 'acknowledged' }
  | { kind: 'inProduction' }
  /** These items are printed (empty: every open item of the shipment). */
  | { kind: 'printed'; itemIds: string[] }
  | {
      kind: 'shipped'
      carrier: { name: string; service: string } | null
      tracking: { number: string; url: string } | null
      /**
       * When the parcel left; absent: the time the report is recorded, and a report without one repeats any parcel of
       * the same items, carrier and tracking (a lab's retry of a report without a date is the same report).
       */
      dispatchDate?: Date
      /** The items of this parcel; absent: every item of the shipment not yet shipped. */
      itemIds?: string[]
    }
  /**
   * With `items`: only those items leave the shipment and are allocated again. Without: the whole shipment (its
   * items not yet shipped), the lab excluded for `unavailableItemIds` (out of stock) or, when none, for every item.
   */
  | { kind: 'rejected'; reason: string; unavailableItemIds: string[]; items?: RejectedItem[] }
  /**
   * Carrier scans of a shipped shipment (domain/delivery-tracking.ts). `fromStatus` (the simulated labs): applied
   * only while the shipment's `deliveryStatus` is still that (null: no scan yet), so a step run twice at once, or
   * by a timer and an advance together, reports its scan once.
   */
  | { kind: 'tracking'; events: TrackingEvent[]; fromStatus?: DeliveryStatus | null }
  /** The lab's answer to a cancellation request: applied by domain/lab-cancellation.ts, not recordLabReport. */
  | { kind: 'cancellation'; answer: CancellationAnswer }

const PROGRESS: Record<ShipmentState, number> = {
  allocated: 0,
  submitted: 1,
  acknowledged: 2,
  inProduction: 3,
  shipped: 4,
  rejected: 4,
  cancelled: 4,
}

/**
 * Why an item report cannot apply: an item id the shipment does not hold (`InvalidValue`), or an item already in a
 * different parcel or shipped and now rejected (`ItemAlreadyShipped`). `field` names the report's field
 * (`itemIds[1]`, `items[0].itemId`), as the lab API's 400 answer does.
 */
export interface ItemReportRefusal {
  code: 'InvalidValue' | 'ItemAlreadyShipped'
  field: string
  itemId: string
  shipmentId: string
  /**
   * A whole-shipment `shipped` report after every item has shipped, differing from the parcels reported: the
   * field's value as reported and as shipped (`field` is then a parcel field: `tracking.number`, `carrier.name`...).
   */
  parcel?: { provided: string | null; shipped: string | null }
}

/** What a lab report did; a report that cannot apply also says why (the lab API answers with it). */
export interface LabReportTransition extends Transition {
  refusal?: TrackingRefusal
  itemRefusal?: ItemReportRefusal
}

/** Where one item of a shipment is at its lab (the lab API's job view shows it). */
export function labItemState(pipeline: PipelineState, shipmentId: string, itemId: string): LabItemState {
  const shipment = pipeline.shipments[shipmentId]
  const reported = shipment?.itemStates?.[itemId]
  if (reported) return reported
  return shipment?.state === 'shipped' ? 'shipped' : 'open'
}

/** The parcel an item of the shipment went in; undefined while it has not shipped. */
function parcelOf(onOrder: Shipment, itemId: string): Parcel | undefined {
  return onOrder.parcels?.find((parcel) => parcel.items.some((entry) => entry.itemId === itemId))
}

/** A parcel as a `shipped` report describes it: `dispatchDate` null when the report gave none (then: now). */
type ReportedParcel = Omit<Parcel, 'items' | 'dispatchDate'> & { dispatchDate: string | null }

/**
 * The report field where a reported parcel differs from one already recorded (undefined: the same parcel). The
 * tracking URL counts: a lab that re-sends a tracking number with another URL is changing what the merchant was
 * shown, not repeating itself. A report without a dispatch date differs in no date: its retry, sent later, is the
 * same report.
 */
function parcelDifference(recorded: Omit<Parcel, 'items'>, reported: ReportedParcel): string | undefined {
  if ((recorded.tracking === null) !== (reported.tracking === null)) return 'tracking'
  if (recorded.tracking?.number !== reported.tracking?.number) return 'tracking.number'
  if (recorded.tracking?.url !== reported.tracking?.url) return 'tracking.url'
  if (recorded.carrier.name !== reported.carrier.name) return 'carrier.name'
  if (recorded.carrier.service !== reported.carrier.service) return 'carrier.service'
  if (reported.dispatchDate !== null && recorded.dispatchDate !== reported.dispatchDate) return 'dispatchDate'
  return undefined
}

function sameParcel(recorded: Omit<Parcel, 'items'>, reported: ReportedParcel): boolean {
  return parcelDifference(recorded, reported) === undefined
}

/**
 * The parcels a shipment has shipped in; a shipment shipped before parcels were kept shows its one parcel as its
 * own carrier, tracking and dispatch date.
 */
function shippedParcels(onOrder: Shipment): Omit<Parcel, 'items'>[] {
  if (onOrder.parcels && onOrder.parcels.length > 0) return onOrder.parcels
  if (onOrder.dispatchDate === null) return []
  return [{ carrier: onOrder.carrier, tracking: onOrder.tracking, dispatchDate: onOrder.dispatchDate }]
}

/**
 * Where a whole-shipment `shipped` report (no `itemIds`) differs once every item has shipped: it can only repeat a
 * parcel already reported. Compared with the parcel of the same tracking number (else the last parcel, which the
 * shipment shows), so the field named is the one the lab changed.
 */
function repeatDifference(
  onOrder: Shipment,
  described: ReportedParcel,
): { field: string; values: { provided: string | null; shipped: string | null } } | undefined {
  const parcels = shippedParcels(onOrder)
  if (parcels.length === 0 || parcels.some((parcel) => sameParcel(parcel, described))) return undefined
  const sameNumber = parcels.find(
    (parcel) => (parcel.tracking?.number ?? null) === (described.tracking?.number ?? null),
  )
  const shipped = sameNumber ?? (parcels.at(-1) as Omit<Parcel, 'items'>)
  const field = parcelDifference(shipped, described) as string
  return { field, values: { provided: parcelField(described, field), shipped: parcelField(shipped, field) } }
}

/** A parcel's value at a report field (`tracking.url`), as text; null when it has none. */
function parcelField(parcel: ReportedParcel, field: string): string | null {
  switch (field) {
    case 'tracking':
      return parcel.tracking ? parcel.tracking.number : null
    case 'tracking.number':
      return parcel.tracking?.number ?? null
    case 'tracking.url':
      return parcel.tracking?.url ?? null
    case 'carrier.name':
      return parcel.carrier.name
    case 'carrier.service':
      return parcel.carrier.service
    default:
      return parcel.dispatchDate
  }
}

/** The parcel a `shipped` report describes, before its items (the shipment's carrier when the report names none). */
function parcelOfReport(onOrder: Shipment, report: Extract<LabReport, { kind: 'shipped' }>): ReportedParcel {
  return {
    carrier: report.carrier ?? onOrder.carrier,
    tracking: report.tracking,
    dispatchDate: report.dispatchDate ? report.dispatchDate.toISOString() : null,
  }
}

/**
 * Why an item report (`printed`, `shipped`, `rejected` with `items`) cannot apply to the shipment as it is; undefined
 * when it can (a repeat can: it changes nothing). Decided again under the order's lock by `recordLabReport`.
 */
export function itemReportRefusal(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  report: LabReport,
): ItemReportRefusal | undefined {
  const onOrder = order.shipments.find((candidate) => candidate.id === shipmentId)
  const shipment = pipeline.shipments[shipmentId]
  if (!onOrder || !shipment) return undefined
  const held = new Set(onOrder.items.map((entry) => entry.itemId))
  const refuse = (code: ItemReportRefusal['code'], field: string, itemId: string): ItemReportRefusal => ({
    code,
    field,
    itemId,
    shipmentId,
  })
  switch (report.kind) {
    case 'printed': {
      const index = report.itemIds.findIndex((itemId) => !held.has(itemId))
      return index < 0 ? undefined : refuse('InvalidValue', `itemIds[${index}]`, report.itemIds[index] as string)
    }
    case 'shipped': {
      const parcel = parcelOfReport(onOrder, report)
      if (report.itemIds === undefined) {
        // Without items the report is a parcel of every item not yet shipped; with none left, a repeat or nothing.
        if (onOrder.items.some((entry) => labItemState(pipeline, shipmentId, entry.itemId) !== 'shipped'))
          return undefined
        const difference = repeatDifference(onOrder, parcel)
        if (!difference) return undefined
        return { ...refuse('ItemAlreadyShipped', difference.field, ''), parcel: difference.values }
      }
      for (const [index, itemId] of report.itemIds.entries()) {
        if (!held.has(itemId)) return refuse('InvalidValue', `itemIds[${index}]`, itemId)
        const shippedIn = parcelOf(onOrder, itemId)
        if (shippedIn && !sameParcel(shippedIn, parcel))
          return refuse('ItemAlreadyShipped', `itemIds[${index}]`, itemId)
      }
      return undefined
    }
    case 'rejected': {
      for (const [index, { itemId }] of (report.items ?? []).entries()) {
        const field = `items[${index}].itemId`
        // An item this shipment already gave back: a repeat.
        if (shipment.itemStates?.[itemId] === 'rejected') continue
        if (!held.has(itemId)) return refuse('InvalidValue', field, itemId)
        if (labItemState(pipeline, shipmentId, itemId) === 'shipped') return refuse('ItemAlreadyShipped', field, itemId)
      }
      return undefined
    }
    default:
      return undefined
  }
}

/**
 * A lab reports on a shipment it holds. Reports that would move a shipment (or an item) backwards are ignored; a
 * report the shipment cannot take (an item it does not hold, an item shipped in another parcel) changes nothing
 * and says why in `itemRefusal`. With a `shipped` report, `afterDispatch` is the shipment's estimate from its real
 * dispatch date (`estimateAfterDispatch`; null: the catalogue gives none), which replaces the allocation's once the
 * last parcel has shipped; the promise stays.
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
  const itemRefusal = itemReportRefusal(order, pipeline, shipmentId, report)
  if (itemRefusal) return { changed: false, jobs: [], itemRefusal }
  if (shipment.state === 'shipped' || shipment.state === 'rejected' || shipment.state === 'cancelled') return NOTHING
  switch (report.kind) {
    case 'cancellation':
      // Answers to cancellation requests are applied by recordCancellationAnswer (domain/lab-cancellation.ts).
      return NOTHING
    case 'acknowledged':
    case 'inProduction': {
      if (PROGRESS[report.kind] <= PROGRESS[shipment.state]) return NOTHING
      shipment.state = report.kind
      touch(order, now)
      return { changed: true, jobs: [] }
    }
    case 'printed': {
      const itemIds = report.itemIds.length > 0 ? report.itemIds : onOrder.items.map((entry) => entry.itemId)
      let changed = startProduction(shipment)
      for (const itemId of itemIds) {
        if (labItemState(pipeline, shipmentId, itemId) !== 'open') continue
        shipment.itemStates = { ...shipment.itemStates, [itemId]: 'printed' }
        changed = true
      }
      if (!changed) return NOTHING
      touch(order, now)
      return { changed: true, jobs: [] }
    }
    case 'shipped':
      return recordParcel(order, pipeline, shipment, onOrder, report, now, afterDispatch)
    case 'rejected':
      return recordRejection(order, pipeline, shipmentId, report, now)
  }
}

/** A shipment with an item printed or shipped is in production, if it was not already; whether it moved. */
function startProduction(shipment: PipelineShipment): boolean {
  if (PROGRESS[shipment.state] >= PROGRESS.inProduction) return false
  shipment.state = 'inProduction'
  return true
}

/**
 * One parcel of the shipment left the lab: its items are shipped. The shipment's own carrier, tracking and dispatch
 * date are its first parcel's while items remain, and the last parcel's once every item has shipped (the delivery
 * estimate follows that dispatch). A parcel with the same carrier, tracking and dispatch date as one already reported
 * is that parcel: its new items join it, and a repeat changes nothing.
 */
function recordParcel(
  order: OrderDocument,
  pipeline: PipelineState,
  shipment: PipelineShipment,
  onOrder: Shipment,
  report: Extract<LabReport, { kind: 'shipped' }>,
  now: Date,
  afterDispatch: DeliveryEstimate | null | undefined,
): LabReportTransition {
  const shipmentId = onOrder.id
  const requested = report.itemIds ?? onOrder.items.map((entry) => entry.itemId)
  const fresh = [...new Set(requested)].filter((itemId) => labItemState(pipeline, shipmentId, itemId) !== 'shipped')
  if (fresh.length === 0) return NOTHING
  const described = parcelOfReport(onOrder, report)
  const parcels = structuredClone(onOrder.parcels ?? [])
  // New items join the parcel they match; without a date, only a tracked one (its number names it): two untracked
  // parcels reported without dates are two parcels.
  const joinable = described.dispatchDate !== null || described.tracking !== null
  let parcel = joinable ? parcels.find((candidate) => sameParcel(candidate, described)) : undefined
  if (!parcel) {
    parcel = { items: [], ...described, dispatchDate: described.dispatchDate ?? now.toISOString() }
    parcels.push(parcel)
  }
  parcel.items.push(...fresh.map((itemId) => ({ itemId })))
  setParcels(onOrder, parcels)
  shipment.itemStates = { ...shipment.itemStates, ...Object.fromEntries(fresh.map((id) => [id, 'shipped' as const])) }
  touch(order, now)
  const remaining = onOrder.items.filter((entry) => labItemState(pipeline, shipmentId, entry.itemId) !== 'shipped')
  if (remaining.length > 0) {
    startProduction(shipment)
    showParcel(onOrder, parcels[0] as Parcel)
    setDetail(order, 'shipping', 'InProgress')
    return { changed: true, jobs: [] }
  }
  showParcel(onOrder, parcel)
  if (afterDispatch !== undefined) setShipmentEstimate(onOrder, afterDispatch)
  finishShipment(order, pipeline, shipment, onOrder)
  return { changed: true, jobs: [] }
}

/** The shipment's own carrier, tracking and dispatch date become the parcel's. */
function showParcel(onOrder: Shipment, parcel: Parcel): void {
  onOrder.dispatchDate = parcel.dispatchDate
  onOrder.carrier = { ...parcel.carrier }
  onOrder.tracking = parcel.tracking ? { ...parcel.tracking } : null
}

/** Every live item of the shipment has shipped: it is Shipped, and the order Complete when nothing else is left. */
function finishShipment(
  order: OrderDocument,
  pipeline: PipelineState,
  shipment: PipelineShipment,
  onOrder: Shipment,
): void {
  shipment.state = 'shipped'
  onOrder.status = 'Shipped'
  const live = Object.values(pipeline.shipments).filter(
    (candidate) => candidate.state !== 'rejected' && candidate.state !== 'cancelled',
  )
  const allShipped =
    live.every((candidate) => candidate.state === 'shipped') && itemsAwaitingAllocation(order, pipeline).length === 0
  if (allShipped) {
    setDetail(order, 'inProduction', 'Complete')
    setDetail(order, 'shipping', 'Complete')
    order.status.stage = 'Complete'
    pipeline.phase = 'complete'
  } else {
    setDetail(order, 'shipping', 'InProgress')
  }
  refreshOrderEstimate(order, pipeline)
}

/**
 * The lab gives items back: with `items`, only those leave the shipment (the rest stay with the lab, untouched);
 * without, every item not yet shipped does. Leaving every remaining item is the whole shipment rejected: it leaves
 * the order. The lab is excluded for each item with the reason given (docs/allocation.md#re-routed-items), and the
 * items are allocated again from the kept copies of their assets; the next round's routing names them.
 */
function recordRejection(
  order: OrderDocument,
  pipeline: PipelineState,
  shipmentId: string,
  report: Extract<LabReport, { kind: 'rejected' }>,
  now: Date,
): LabReportTransition {
  const shipment = pipeline.shipments[shipmentId] as PipelineShipment
  const onOrder = order.shipments.find((candidate) => candidate.id === shipmentId) as Shipment
  const unshipped = onOrder.items
    .map((entry) => entry.itemId)
    .filter((itemId) => labItemState(pipeline, shipmentId, itemId) !== 'shipped')
  const byItem = report.items && report.items.length > 0
  // Item id -> why the lab is excluded for it (none: the item is allocated again, the lab still a candidate).
  const leaving = new Map<
    string,
    { exclusion?: ExclusionByHistory; reason: ExclusionByHistory; description?: string }
  >()
  if (byItem) {
    for (const item of report.items ?? []) {
      if (!unshipped.includes(item.itemId) || leaving.has(item.itemId)) continue
      const description = item.description ? { description: item.description } : {}
      leaving.set(item.itemId, { exclusion: item.reason, reason: item.reason, ...description })
    }
  } else {
    const outOfStock = new Set(report.unavailableItemIds)
    for (const itemId of unshipped) {
      if (outOfStock.has(itemId)) leaving.set(itemId, { exclusion: 'OutOfStock', reason: 'OutOfStock' })
      else {
        const exclusion = outOfStock.size > 0 ? {} : { exclusion: 'Rejected' as const }
        leaving.set(itemId, { ...exclusion, reason: 'Rejected', description: report.reason })
      }
    }
  }
  if (leaving.size === 0) return NOTHING
  pipeline.exclusionReasons ??= {}
  for (const [itemId, { exclusion }] of leaving) {
    if (!exclusion) continue
    const excluded = pipeline.excludedLabs[itemId] ?? []
    if (!excluded.includes(shipment.labCode)) excluded.push(shipment.labCode)
    pipeline.excludedLabs[itemId] = excluded
    const reasons = pipeline.exclusionReasons[itemId] ?? {}
    reasons[shipment.labCode] = exclusion
    pipeline.exclusionReasons[itemId] = reasons
  }
  pipeline.reroutes = [
    ...(pipeline.reroutes ?? []).filter((entry) => !leaving.has(entry.itemId)),
    ...[...leaving].map(([itemId, { reason, description }]) => ({
      itemId,
      fromShipmentId: shipmentId,
      fromLabCode: shipment.labCode,
      reason,
      ...(description ? { description } : {}),
    })),
  ]
  shipment.itemStates = {
    ...shipment.itemStates,
    ...Object.fromEntries([...leaving.keys()].map((itemId) => [itemId, 'rejected' as const])),
  }
  const staying = onOrder.items.filter((entry) => !leaving.has(entry.itemId))
  if (staying.length === 0) {
    // The whole shipment: it leaves the order, as a shipment the lab refused always has.
    shipment.state = 'rejected'
    shipment.carrier = { ...onOrder.carrier }
    order.shipments = order.shipments.filter((candidate) => candidate.id !== shipmentId)
  } else {
    onOrder.items = staying
    if (staying.every((entry) => labItemState(pipeline, shipmentId, entry.itemId) === 'shipped')) {
      finishShipment(order, pipeline, shipment, onOrder)
    }
  }
  touch(order, now)
  refreshOrderEstimate(order, pipeline)
  if (pipeline.phase === 'failed') return { changed: true, jobs: [] }
  return { changed: true, jobs: beginAllocation(order, pipeline) }
}

/**
 * The items of `itemIds` a lab gave back, taken from those waiting (`pipeline.reroutes`): the allocation round
 * that allocates them names them in its routing.
 */
export function takeReroutedItems(pipeline: PipelineState, itemIds: readonly string[]): ReroutedItem[] {
  const waiting = pipeline.reroutes ?? []
  const wanted = new Set(itemIds)
  const taken = waiting.filter((entry) => wanted.has(entry.itemId))
  const left = waiting.filter((entry) => !wanted.has(entry.itemId))
  if (left.length > 0) pipeline.reroutes = left
  else delete pipeline.reroutes
  return taken
}
