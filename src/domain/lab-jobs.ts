// What a lab is shown of its work (docs/labs.md): a job as the lab API lists it and a pushed job carries it, and the
// lab's capacity. services/labs/labs.service.ts builds them; the lab portal (dashboard/lab-portal/) shows them.
import type { ShipmentDeclaration } from './commercial-invoice.ts'
import type { DeclaredValueSource } from './customs.ts'
import type { WireMoney } from './money.ts'
import type { Parcel, Recipient } from './order.ts'
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

/** The lab side of the pipeline: lab keys, the shipments a lab sees, and its reports. */
