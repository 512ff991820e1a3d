// Lab allocation for an order's items: maps the order onto the pure allocation of domain/allocation.ts
// (the same function quotes use) and back onto shipments for the pipeline.
import type { Catalogue } from '../catalogue/catalogue.ts'
import { allocateShipments } from '../domain/allocation.ts'
import type { OrderDocument } from '../domain/order.ts'
import type { AllocatedShipment } from '../domain/order-pipeline.ts'

export function allocateOrderItems(
  catalogue: Catalogue,
  request: { order: OrderDocument; itemIds: string[]; excludedLabsByItem: Record<string, string[]> },
): { ok: true; shipments: Omit<AllocatedShipment, 'id'>[] } | { ok: false; unavailableItemIds: string[] } {
  const { order } = request
  const items = []
  const unknown: string[] = []
  for (const itemId of request.itemIds) {
    const item = order.items.find((candidate) => candidate.id === itemId)
    const variant = item && catalogue.findVariant(item.sku, item.attributes)
    if (!item || !variant) {
      // The catalogue changed since the order was placed: nobody makes this item any more.
      unknown.push(itemId)
      continue
    }
    const pageCount = item.assets.find((asset) => asset.pageCount !== null)?.pageCount ?? null
    items.push({ itemId, variant, copies: item.copies, pageCount })
  }
  if (unknown.length > 0) return { ok: false, unavailableItemIds: unknown }
  const result = allocateShipments(catalogue, {
    destinationCountryCode: order.recipient.address.countryCode,
    shippingMethod: order.shippingMethod,
    items,
    excludedLabsByItem: request.excludedLabsByItem,
  })
  if (!result.ok) return { ok: false, unavailableItemIds: result.unavailableItemIds }
  return {
    ok: true,
    shipments: result.shipments.map((shipment) => ({
      labCode: shipment.labCode,
      labCountryCode: shipment.labCountryCode,
      carrier: shipment.carrier,
      itemIds: shipment.itemIds,
      formats: Object.fromEntries(shipment.items.map((item) => [item.itemId, item.printFileFormat])),
    })),
  }
}
