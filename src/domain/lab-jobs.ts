// What a lab is shown of its work (docs/labs.md): a job as the lab API lists it and a pushed job carries it, and the
// lab's capacity. services/labs/labs.service.ts builds them; the lab portal (dashboard/lab-portal/) shows them.
// LabWork, what a lab does with its jobs, is declared here once: the labs service implements it and the lab portal
// names it as what it needs.
import type { AuditActor } from './audit.ts'
import type { ShipmentDeclaration } from './commercial-invoice.ts'
import type { DeclaredValueSource } from './customs.ts'
import type { WireMoney } from './money.ts'
import type { Parcel, Recipient } from './order.ts'
import type { LabReport } from './pipeline/lab-report.ts'
import type { LabItemState } from './pipeline/pipeline-order.ts'
import type { PrintFileManifest } from './print-files.ts'
import type { LabPriority } from './shipping-methods.ts'

/** A shipment as the lab API lists it: what the lab was given at submission and where its files are. */
export interface LabJobView {
  shipmentId: string
  orderId: string
  state: string
  shippingMethod: string
  carrier: { name: string; service: string }
  recipient: Recipient
  items: {
    itemId: string
    /** Where the item is at the lab; a `rejected` item was given back and is no longer the lab's to make. */
    state: LabItemState
    sku: string
    copies: number
    attributes: Record<string, string>
    printFiles: LabPrintFileView[]
    /** The catalogue product's description (the SKU when the catalogue no longer has it). */
    description: string
  }[]
  packingSlip: { url: string } | null
  branding: Record<string, { url: string }> | null
  /** The latest dispatch date that keeps the shipment's promise (domain/delivery-promise.ts, shipByDate). */
  shipBy?: string
  priority: LabPriority
  packingSlipPdf: { url: string } | null
  /** printroute asks the lab to cancel the shipment (docs/pipeline.md#cancellation); absent unless a request is open. */
  cancellationRequested?: { at: string }
  /**
   * For a shipment that crosses a border: its customs declaration (domain/commercial-invoice.ts) and a link to the
   * commercial invoice printroute made for it; absent for a domestic shipment.
   */
  customs?: LabJobCustoms
  /** The parcels the lab has reported shipped, in the order reported; empty until the first. */
  parcels: Parcel[]
}

/** A cross-border job's customs declaration, as the lab API and pushed jobs carry it (docs/labs.md#customs). */
export interface LabJobCustoms
  extends Pick<
    ShipmentDeclaration,
    'originCountryCode' | 'destinationCountryCode' | 'incoterm' | 'iossNumber' | 'eoriNumber' | 'recipientTaxId'
  > {
  items: {
    itemId: string
    description: string
    copies: number
    /** The merchant's `recipientCost` as given; null when none was (then the item's price is declared). */
    declaredValue: WireMoney | null
    hsCode: string | null
    originCountryCode: string
    unitValue: WireMoney
    totalValue: WireMoney
    valueSource: DeclaredValueSource
    weightGrams: number | null
  }[]
  totalValue: WireMoney
  totalWeightGrams: number | null
  commercialInvoice: { url: string }
}

/** A print file as a lab sees it; the facts after `format` are absent from print files made before they were kept. */
export interface LabPrintFileView {
  printArea: string
  url: string
  format: string
  sha256?: string
  bytes?: number
  pixelSize?: { width: number; height: number }
  /** The resolution written into the file: it opens at its physical size. */
  dpi?: number
  colourSpace?: string
  /** The source image's effective resolution at that size: source pixels per printed inch. */
  sourceDpi?: number
  /** What the file was made from, to make it again (domain/print-files.ts). */
  manifest?: PrintFileManifest
}

/** A lab's capacity as the lab API answers it (docs/pipeline.md#capacity). */
export interface LabCapacityView {
  /** The lab's date ("YYYY-MM-DD"): in its calendar's time zone, UTC without a calendar. */
  date: string
  /** The jobs the lab said it can take today (on top of those it had when it said so); null: no report today. */
  jobsToday: number | null
  /** The catalogue's daily job limit; null when it sets none. */
  dailyJobLimit: number | null
  /** Jobs (shipments) given to the lab today. */
  jobsGivenToday: number
  /** How many more it may be given today; null when nothing limits it. */
  jobsRemainingToday: number | null
  /** Whether the operator paused the lab: it gets no new work. */
  paused: boolean
}

/** A page of a lab's history: its closed jobs, most recently closed first. */
export interface LabJobHistoryPage {
  jobs: LabJobView[]
  /** How many newer jobs come before this page (at most LAB_JOB_HISTORY_LIMITS.maxSkip). */
  skip: number
  /** Whether an older page follows. */
  hasMore: boolean
}

/** What a lab does with its Live jobs, through the lab API or the lab portal. */
export interface LabWork {
  /** The Live shipments a lab still has to make or ship, with everything it needs to do so. */
  listJobs(labCode: string): Promise<LabJobView[]>
  /**
   * One of the lab's Live jobs in any state (open, shipped, rejected, cancelled), as the list shows an open one;
   * EntityNotFound (ServiceError) for a shipment that is not the lab's.
   */
  getJob(labCode: string, shipmentId: string): Promise<LabJobView>
  /**
   * The lab's closed Live jobs (shipped, rejected, cancelled), most recently closed first, a page of
   * LAB_JOB_HISTORY_LIMITS.pageSize after `skip` newer ones; `search` keeps those whose shipment id, order id,
   * merchant reference, recipient name or tracking number contains it (any case).
   */
  jobHistory(labCode: string, query: { search?: string; skip?: number }): Promise<LabJobHistoryPage>
  /** Applies a lab's report on one of its shipments; whether the order changed. */
  report(labCode: string, shipmentId: string, report: LabReport): Promise<{ changed: boolean }>
  /** The lab's capacity for its day, its jobs given today and whether it is paused. */
  capacity(labCode: string): Promise<LabCapacityView>
  /**
   * Records that the lab can take `jobsToday` more jobs today; its capacity after it. `actor`: the lab itself,
   * through its key or signed in to the portal (the audit trail names it).
   */
  reportCapacity(labCode: string, jobsToday: number, actor: AuditActor): Promise<LabCapacityView>
}
