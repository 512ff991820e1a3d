// A cross-border shipment's customs declaration as its lab is given it, and the commercial invoice printroute makes
// from it (adapters/commercial-invoice-pdf.ts). Both come from `orderShipmentCustoms` (domain/customs.ts), the
// computation the DDP charge uses, so what the lab declares is what the merchant was charged duties on.
import type { Catalogue } from './catalogue.ts'
import type { CatalogueMoney } from './catalogue.types.ts'
import { itemLineKey } from './charges.ts'
import { type DeclaredValueSource, type Incoterm, incotermOf, orderShipmentCustoms } from './customs.ts'
import { formatMinorAsAmount, type WireMoney } from './money.ts'
import type { Recipient } from './order.ts'
import type { PipelineOrder } from './pipeline/pipeline-order.ts'

/** The blob-key-like path a commercial invoice's signed link names (it is made on request, never stored). */
export const COMMERCIAL_INVOICE_KEY_PREFIX = 'commercial-invoices/'

/** What a commercial invoice states as the reason for export: printroute ships goods sold by the merchant. */
export const EXPORT_REASON = 'Sale of goods'

// Order and shipment ids are `ord_<digits>` and `shp_<digits>`: nothing else is ever signed under the prefix.
const KEY_PATTERN = /^commercial-invoices\/(ord_[0-9]{1,15})\/(shp_[0-9]{1,15})\.pdf$/

export function commercialInvoiceKey(orderId: string, shipmentId: string): string {
  return `${COMMERCIAL_INVOICE_KEY_PREFIX}${orderId}/${shipmentId}.pdf`
}

/** The order and shipment a commercial invoice key names; undefined for anything else. */
export function parseCommercialInvoiceKey(key: string): { orderId: string; shipmentId: string } | undefined {
  const match = KEY_PATTERN.exec(key)
  return match ? { orderId: match[1] as string, shipmentId: match[2] as string } : undefined
}

/** One item of a shipment's customs declaration. */
export interface DeclaredLine {
  itemId: string
  /** The catalogue product's description (the SKU when the catalogue no longer has it). */
  description: string
  /** The catalogue's HS code; null where it gives none (the lab must classify the item itself). */
  hsCode: string | null
  originCountryCode: string
  copies: number
  /** One copy's declared value, and the line's (unit value x copies), in the currency it was declared in. */
  unitValue: WireMoney
  totalValue: WireMoney
  /** `recipientCost`: the merchant's declared value; `itemPrice`: none was given, the item's price is declared. */
  valueSource: DeclaredValueSource
  /** One copy's shipping weight; null where the catalogue gives none. */
  weightGrams: number | null
}

/** A shipment's customs declaration: what crosses which border, on which terms, under which ids. */
export interface ShipmentDeclaration {
  /** The lab's country: where the parcel leaves from. */
  originCountryCode: string
  destinationCountryCode: string
  incoterm: Incoterm
  iossNumber?: string
  eoriNumber?: string
  recipientTaxId?: string
  lines: DeclaredLine[]
  /** The goods value of the shipment, every line converted to the order's billing currency. */
  totalValue: WireMoney
  /** Total shipping weight of the goods; null when any line has no weight. */
  totalWeightGrams: number | null
}

/**
 * One copy's price as printroute charged it (the item's billing line over its copies, in the billing currency), or
 * before any charge the producing lab's cost of one copy; zero in the catalogue's base currency when neither is known.
 */
function unitPriceOf(catalogue: Catalogue, order: PipelineOrder, labCode: string, itemId: string): CatalogueMoney {
  const item = order.document.items.find((candidate) => candidate.id === itemId)
  const copies = BigInt(Math.max(1, item?.copies ?? 1))
  const billing = order.pipeline.billing
  const line = billing?.lines[itemLineKey(itemId)]
  if (billing && line) return { minor: BigInt(line.cost) / copies, currency: billing.currency.toUpperCase() }
  const variant = item ? catalogue.findVariant(item.sku, item.attributes) : undefined
  const offer = variant?.offers.find((candidate) => candidate.lab.code === labCode)
  return offer ? offer.unitCost : { minor: 0n, currency: catalogue.baseCurrency }
}

function wire(money: CatalogueMoney): WireMoney {
  return { amount: formatMinorAsAmount(money.minor), currency: money.currency }
}

/**
 * The customs declaration of `itemIds` of a shipment leaving `lab` for `recipient`;
 * undefined for a domestic shipment (no border is crossed).
 */
export function shipmentDeclaration(
  catalogue: Catalogue,
  order: PipelineOrder,
  lab: { labCode: string; countryCode: string },
  recipient: Recipient,
  itemIds: readonly string[],
): ShipmentDeclaration | undefined {
  const destinationCountryCode = recipient.address.countryCode.toUpperCase()
  const labCountryCode = lab.countryCode.toUpperCase()
  if (labCountryCode === destinationCountryCode) return undefined
  const document = order.document
  const currency = (order.pipeline.billing?.currency ?? catalogue.baseCurrency).toUpperCase()
  const known = new Set(document.items.map((item) => item.id))
  const customs = orderShipmentCustoms(
    catalogue,
    // The recipient the lab was given decides the destination, not a later change it never saw.
    { ...document, recipient },
    { labCountryCode, itemIds: itemIds.filter((itemId) => known.has(itemId)) },
    currency,
    (itemId) => unitPriceOf(catalogue, order, lab.labCode, itemId),
  )
  const lines = customs.declaredItems.map((item): DeclaredLine => {
    const unit = item.declared.unitValue
    return {
      itemId: item.itemId,
      description: catalogue.findProduct(item.sku)?.description ?? item.sku,
      hsCode: item.hsCode,
      originCountryCode: item.originCountryCode,
      copies: item.copies,
      unitValue: wire(unit),
      totalValue: wire({ minor: unit.minor * BigInt(item.copies), currency: unit.currency }),
      valueSource: item.declared.source,
      weightGrams: item.weightGrams,
    }
  })
  const weights = lines.map((line) => (line.weightGrams === null ? null : line.weightGrams * line.copies))
  const orderCustoms = document.customs
  return {
    originCountryCode: labCountryCode,
    destinationCountryCode,
    incoterm: incotermOf(document),
    ...(orderCustoms?.iossNumber ? { iossNumber: orderCustoms.iossNumber } : {}),
    ...(orderCustoms?.eoriNumber ? { eoriNumber: orderCustoms.eoriNumber } : {}),
    ...(orderCustoms?.recipientTaxId ? { recipientTaxId: orderCustoms.recipientTaxId } : {}),
    lines,
    totalValue: wire({ minor: customs.goodsValue, currency }),
    totalWeightGrams: weights.some((weight) => weight === null)
      ? null
      : weights.reduce<number>((sum, weight) => sum + (weight ?? 0), 0),
  }
}

/** What a commercial invoice shows: fixed by the shipment's submission, so the same PDF comes out every time. */
export interface CommercialInvoiceContent {
  orderId: string
  shipmentId: string
  /** The day the shipment was given to its lab (YYYY-MM-DD). */
  date: string
  sender: { name: string; countryCode: string }
  recipient: Recipient
  declaration: ShipmentDeclaration
  reason: string
  /** Sandbox invoices say they are not for real shipments. */
  sandbox: boolean
}
