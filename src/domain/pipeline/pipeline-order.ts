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
//
// The transitions sit in one file per step beside this one, named like the steps of services/pipeline/ that apply
// them (start-order.ts, download-file.ts, allocate-order.ts, render-print-file.ts, submit-shipment.ts,
// lab-report.ts; delivery-estimates.ts keeps the estimates that allocation and lab reports both set). This file
// holds what they share: the order as the pipeline holds it, and the small helpers every step uses.
import type { ExclusionByHistory } from '../allocation/model.ts'
import type { BillingState } from '../charges.ts'
import type { DeliveryEstimate } from '../delivery-promise.ts'
import type { Environment } from '../environment.ts'
import type { JobRequest } from '../jobs.ts'
import type { DetailState, Issue, Item, OrderDocument, Recipient } from '../order.ts'
import type { PreflightReport } from '../preflight.ts'
import type { PrintFileManifest } from '../print-files.ts'
import type { PrintFilePlan } from '../print-geometry.ts'
import type { ReroutedItem, RoutingRound } from '../routing.ts'
import type { SandboxScenario } from '../sandbox-scenarios.ts'

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
  /**
   * Ours: the asset's preflight found an error, something no lab can print (docs/errors.md#preflight-checks); the
   * description names the codes. The item is held (the order stops, as for an asset that never downloaded); the
   * merchant replaces the file (replaceAsset, domain/order-actions.ts) or cancels. Preflight warnings are kept but
   * raise no issue.
   */
  preflightFailed: 'order.items.assets.PreflightFailed',
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
  /** The asset's preflight once downloaded (docs/pipeline.md#preflight); absent before, and for other files. */
  preflight?: PipelinePreflight
  /**
   * How many times the merchant replaced the asset (POST .../actions/replaceAsset); absent: never. Each replacement
   * starts the attempts again under jobs of its own, and an attempt of an earlier one changes nothing.
   */
  replacement?: number
}

/** An asset's preflight as the pipeline keeps it: the status its checks make and the report. */
export interface PipelinePreflight {
  status: 'Passed' | 'PassedWithWarnings' | 'Failed'
  report: PreflightReport
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
  /**
   * Whole source pixels per printed inch (domain/print-geometry.ts, effectiveDpi, at `fileDpi` where present, else
   * at 300); absent for PDFs. The lab API shows it as `sourceDpi`.
   */
  dpi?: number
  /** The resolution written into the file (domain/print-files.ts, printFileDpi); absent for PDFs and older files. */
  fileDpi?: number
  /** What the file was made from, to make it again (domain/print-files.ts); absent for PDFs and older files. */
  manifest?: PrintFileManifest
  /**
   * The rendered file's colour space as libvips names it (`srgb`, `cmyk`, `b-w`); `cmyk` for a PDF converted to a
   * CMYK lab's colour by Ghostscript (docs/print-files.md#pdfs-and-colour), absent for PDFs passed through.
   */
  colourSpace?: string
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
  /**
   * What the lab agreed to charge for the shipment, fixed when it was allocated (docs/billing.md#margin), recorded
   * in `shipment_costs` when the shipment is handed to the lab; absent on shipments allocated before it was kept.
   */
  labCost?: ShipmentLabCost
  /**
   * The operator moved the shipment to another lab (domain/shipment-move.ts) after this lab had been given it: the
   * shipment left the order (state `cancelled`), `toShipmentId` at `toLabCode` took its items (`itemIds`). The lab
   * still reads the job, cancelled, with those items.
   */
  moved?: { toShipmentId: string; toLabCode: string; at: string; itemIds: string[] }
  /** The shipment took the items of `shipmentId` at `labCode`, moved here by the operator for `reason`. */
  movedFrom?: { shipmentId: string; labCode: string; at: string; reason: string }
}

/** A shipment's lab cost as allocation planned it; minor units as decimal strings (the pipeline state is JSON). */
export interface ShipmentLabCost {
  /** The lab's currency. */
  currency: string
  /** Every copy of every item of the shipment. */
  production: string
  shipping: string
  /** The currency the order is priced in, and production + shipping converted to it (one rounding, half-up). */
  priceCurrency: string
  costInPriceCurrency: string
  /** The catalogue version whose costs and rates these are; null for a catalogue read from a file. */
  catalogueVersion: number | null
  /**
   * `Moved`: allocated again after a lab gave the work back (a later allocation round); `Reprint`: a claim's reprint
   * (docs/claims.md#reprints), charged nothing; else `Original`.
   */
  kind: 'Original' | 'Moved' | 'Reprint'
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
  /** When a draft was confirmed or cancelled (by its expiry too), a hold released early (domain/drafts.ts). */
  draftConfirmedAt?: string
  draftCancelledAt?: string
  draftExpired?: boolean
  holdReleasedAt?: string
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

/** What a transition returns when its work is already done or no longer applies: no change, no jobs. */
export const NOTHING: Transition = { changed: false, jobs: [] }

export function emptyPipeline(): PipelineState {
  return { phase: 'waiting', files: {}, shipments: {}, excludedLabs: {}, allocationRound: 0 }
}

/** The pipeline state stored for an order; `{}` (the column default) means not started. */
export function pipelineOf(stored: unknown): PipelineState {
  const state = stored as Partial<PipelineState> | null
  return state && typeof state.phase === 'string' ? (state as PipelineState) : emptyPipeline()
}

/** The order's `lastUpdated` becomes `now`. */
export function touch(order: OrderDocument, now: Date): void {
  order.lastUpdated = now.toISOString()
}

/** One of the order's `status.details` (the specification's processing sequence) becomes `state`. */
export function setDetail(order: OrderDocument, detail: keyof OrderDocument['status']['details'], state: DetailState) {
  order.status.details[detail] = state
}

/** Adds an issue (`status.issues`) about `objectId`. */
export function addIssue(order: OrderDocument, objectId: string, errorCode: string, description: string): void {
  const issue: Issue = { objectId, errorCode, description, authorisationDetails: null }
  order.status.issues.push(issue)
}

/** The item holding asset `assetId`, and the asset's index in its `assets`. */
export function findAsset(order: OrderDocument, assetId: string): { item: Item; index: number } | undefined {
  for (const item of order.items) {
    const index = item.assets.findIndex((asset) => asset.id === assetId)
    if (index >= 0) return { item, index }
  }
  return undefined
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
