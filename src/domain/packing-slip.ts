// What printroute's own packing slip of a shipment shows (the packer's checklist, made once the shipment is
// submitted to its lab), where it is kept, and how the shipment records it. Drawing it is the PDF adapter's job
// (adapters/packing-slip-pdf.ts).
import type { Recipient } from './order.ts'
import type { PipelineOrder, PipelineState, Transition } from './pipeline/pipeline-order.ts'

/** Everything printed on a shipment's packing slip; the QR code holds `shipmentId`. */
export interface PackingSlipContent {
  orderId: string
  merchantReference: string | null
  shipmentId: string
  shippingMethod: string
  carrier: { name: string; service: string }
  recipient: Recipient
  /** The shipment's items only, in the order's order. */
  items: {
    itemId: string
    merchantReference: string | null
    sku: string
    copies: number
    attributes: Record<string, string>
  }[]
}

/**
 * Kept beside the shipment's print files, so it is served like them (signed links, `application/pdf` from the
 * extension) and deleted with them once past the retention: it carries the recipient's address.
 */
export function packingSlipBlobKey(orderId: string, shipmentId: string): string {
  return `print-files/${orderId}/${shipmentId}/packing-slip.pdf`
}

/**
 * The slip of a submitted shipment: the recipient and shipping method the lab was given at submission, the
 * shipment's items as the order has them. Undefined for a shipment not (or no longer) with its lab.
 */
export function packingSlipContent(order: PipelineOrder, shipmentId: string): PackingSlipContent | undefined {
  const shipment = order.document.shipments.find((candidate) => candidate.id === shipmentId)
  const submitted = order.pipeline.shipments[shipmentId]?.submitted
  if (!shipment || !submitted || shipment.cancelled) return undefined
  const inShipment = new Set(shipment.items.map((entry) => entry.itemId))
  return {
    orderId: order.document.id,
    merchantReference: order.document.merchantReference,
    shipmentId,
    shippingMethod: submitted.shippingMethod,
    carrier: shipment.carrier,
    recipient: submitted.recipient,
    items: order.document.items
      .filter((item) => inShipment.has(item.id))
      .map((item) => ({
        itemId: item.id,
        merchantReference: item.merchantReference,
        sku: item.sku,
        copies: item.copies,
        attributes: item.attributes,
      })),
  }
}

/** The shipment now has its slip at `blobKey`; nothing changes when it had one already or is not submitted. */
export function recordPackingSlipPdf(pipeline: PipelineState, shipmentId: string, blobKey: string): Transition {
  const shipment = pipeline.shipments[shipmentId]
  if (!shipment?.submitted || shipment.packingSlipPdf) return { changed: false, jobs: [] }
  shipment.packingSlipPdf = { blobKey }
  return { changed: true, jobs: [] }
}
