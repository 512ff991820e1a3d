// The order as the API shows it, and the pure rules that build a new one. The same document is stored in
// orders.document and returned by GET, so what a merchant sees is exactly what the service holds.
import type { OrderCustoms } from './customs.ts'
import type { DeliveryWindow } from './delivery-promise.ts'
import type { WireMoney } from './money.ts'
import type { ShippingMethod, SizingMode } from './shipping-methods.ts'

export const STAGES = ['InProgress', 'Complete', 'Cancelled'] as const
export type Stage = (typeof STAGES)[number]
export const DETAIL_STATES = ['NotStarted', 'InProgress', 'Complete', 'Error'] as const
export type DetailState = (typeof DETAIL_STATES)[number]
export const ITEM_STATUSES = ['Ok', 'Invalid', 'NotYetDownloaded'] as const
export type ItemStatus = (typeof ITEM_STATUSES)[number]
export const ASSET_STATUSES = ['InProgress', 'Complete', 'Error'] as const
export type AssetStatus = (typeof ASSET_STATUSES)[number]
export const SHIPMENT_STATUSES = ['Processing', 'Shipped', 'Cancelled'] as const
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number]
/**
 * Where a dispatched parcel is, as its carrier reports it (docs/api.md#delivery-tracking). A status only moves
 * forward (DELIVERY_STATUS_RANK): a late report of an earlier status is kept in `trackingEvents` only.
 */
export const DELIVERY_STATUSES = ['InTransit', 'OutForDelivery', 'DeliveryFailed', 'Delivered', 'Returned'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** A carrier scan of a shipment, as its lab reported it. */
export interface TrackingEvent {
  /** When the carrier recorded it (ISO 8601 instant). */
  time: string
  status: DeliveryStatus
  description: string
  /** Where, when the carrier says ("Leipzig hub"). */
  location?: string
}

export const PACKING_SLIP_STATUSES = ['NotYetDownloaded', 'Success', 'Error'] as const
export type PackingSlipStatus = (typeof PACKING_SLIP_STATUSES)[number]
export const CHARGE_TYPES = ['Item', 'Shipping', 'Refund', 'Other'] as const
export type ChargeType = (typeof CHARGE_TYPES)[number]

/** The branding keys of the specification; `packing_slip_color` is what public clients send. */
export const BRANDING_KEYS = [
  'postcard',
  'flyer',
  'packing_slip_bw',
  'packing_slip_colour',
  'packing_slip_color',
  'sticker_exterior_round',
  'sticker_exterior_rectangle',
  'sticker_interior_round',
  'sticker_interior_rectangle',
] as const
export type BrandingKey = (typeof BRANDING_KEYS)[number]
export type Branding = Record<BrandingKey, { url: string } | null>

export interface Address {
  line1: string
  line2: string | null
  postalOrZipCode: string
  countryCode: string
  townOrCity: string
  stateOrCounty: string | null
}

export interface Recipient {
  name: string
  email: string | null
  phoneNumber: string | null
  address: Address
}

export interface Asset {
  id: string
  printArea: string
  url: string
  thumbnailUrl: string | null
  md5Hash: string | null
  pageCount: number | null
  status: AssetStatus
}

export interface Item {
  id: string
  status: ItemStatus
  merchantReference: string | null
  sku: string
  copies: number
  sizing: SizingMode
  thumbnailUrl: string | null
  recipientCost: WireMoney | null
  attributes: Record<string, string>
  assets: Asset[]
}

export interface Issue {
  objectId: string
  errorCode: string
  description: string
  authorisationDetails: { authorisationUrl: string; paymentDetails: WireMoney } | null
}

export interface OrderStatus {
  stage: Stage
  details: {
    downloadAssets: DetailState
    allocateProductionLocation: DetailState
    printReadyAssetsPrepared: DetailState
    inProduction: DetailState
    shipping: DetailState
  }
  issues: Issue[]
}

/**
 * One parcel of a shipment as its lab dispatched it (docs/api.md#parcels): a lab may ship a shipment's items in
 * several parcels, each with its own carrier, tracking and dispatch date.
 */
export interface Parcel {
  items: { itemId: string }[]
  carrier: { name: string; service: string }
  tracking: { number: string; url: string } | null
  dispatchDate: string
}

export interface Shipment {
  id: string
  dispatchDate: string | null
  carrier: { name: string; service: string }
  fulfillmentLocation: { countryCode: string; labCode: string }
  tracking: { number: string; url: string } | null
  items: { itemId: string }[]
  status: ShipmentStatus
  cancelled: boolean
  // printroute's own, appended after the specification's keys (docs/api.md#delivery-estimates): absent until known.
  /** The date the lab is expected to dispatch (from the allocation's plan; after dispatch, the real date). */
  estimatedDispatchDate?: string
  estimatedDelivery?: DeliveryWindow
  /** The parcels the lab dispatched, in the order it reported them; absent until the first one. */
  parcels?: Parcel[]
  /** Absent until the lab reports the first carrier scan after dispatch. */
  deliveryStatus?: DeliveryStatus
  /** Oldest first; absent until the first scan. */
  trackingEvents?: TrackingEvent[]
  /** The time of the `Delivered` scan. */
  deliveredAt?: string
  /** With `deliveredAt`: whether it came after the promised `estimatedDelivery.to` (or the order's `deliverBy`). */
  deliveredLate?: boolean
  /** A reprint (docs/claims.md#reprints): the shipment whose items it makes again, and the claim it resolves. */
  reprintOf?: string
  claimId?: string
}

export interface ChargeItem {
  id: string
  chargeType: ChargeType
  itemId: string | null
  shipmentId: string | null
  cost: WireMoney
}

export interface Charge {
  id: string
  chargeType: ChargeType
  prodigiInvoiceNumber: string | null
  totalCost: WireMoney
  totalTax: WireMoney
  items: ChargeItem[]
}

export interface PackingSlip {
  url: string
  status: PackingSlipStatus
}

export interface OrderDocument {
  id: string
  created: string
  lastUpdated: string
  callbackUrl: string | null
  merchantReference: string | null
  shippingMethod: ShippingMethod
  idempotencyKey: string | null
  status: OrderStatus
  charges: Charge[]
  shipments: Shipment[]
  recipient: Recipient
  branding: Branding | null
  items: Item[]
  packingSlip: PackingSlip | null
  metadata: Record<string, unknown> | null
  /** The quote whose prices the order is charged (docs/api.md#price-locked-quotes); absent without one. */
  quoteId?: string
  // printroute's own delivery promise and outcome (docs/api.md#delivery-estimates), appended after every other key.
  /** The date the merchant asked every shipment to arrive by ("YYYY-MM-DD"); absent when not given. */
  deliverBy?: string
  /**
   * The incoterm and customs numbers the merchant gave (docs/api.md#customs-and-duties); absent when not given
   * (the order ships DAP). Items' declared values are their `recipientCost`, else their price.
   */
  customs?: OrderCustoms
  /**
   * printroute's own (docs/api.md#drafts-and-holds): the instant a per-order hold keeps the order before production
   * until (the instant it was released, once released early); absent on orders created without one.
   */
  holdUntil?: string
  /** printroute's own: `true` while the order is a draft (not started until confirmed); absent otherwise. */
  draft?: true
  /** printroute's own: with `draft`, when the draft is cancelled unless confirmed before. */
  expiresAt?: string
  /**
   * Address problems that do not stop delivery (docs/addresses.md#blocking-problems-and-advisories): a phone number
   * an express courier asks for, a line longer than couriers print. Never change the order's outcome; absent when
   * there are none.
   */
  addressAdvisories?: AddressAdvisory[]
  /** The latest of the shipments' estimates; absent until the order is allocated. */
  estimatedDispatchDate?: string
  estimatedDelivery?: DeliveryWindow
  /** When every shipment has been delivered: the last one's `deliveredAt`. */
  deliveredAt?: string
  /** With `deliveredAt`: whether any shipment was delivered late. */
  deliveredLate?: boolean
  /**
   * Credits given back on the order (docs/billing.md#late-delivery-credits), oldest first: the document's last key,
   * absent until the first credit (domain/order-credits.ts).
   */
  credits?: OrderCredit[]
}

/** Why a credit was issued: a shipment delivered late on a guaranteed method, or a claim the operator upheld. */
export const CREDIT_REASONS = ['LateDelivery', 'Claim'] as const
export type CreditReason = (typeof CREDIT_REASONS)[number]

/** One entry of the order's `credits[]`, keys in wire order. */
export interface OrderCredit {
  /** `crd_<n>`. */
  id: string
  reason: CreditReason
  /** The shipment the credit is for; null for a credit of the whole order. */
  shipmentId: string | null
  /** What was credited, tax included (positive). */
  amount: WireMoney
  /** The credit note issued for it (`CN-000012`, Sandbox `SBX-CN-000003`). */
  creditNote: string | null
  issuedAt: string
  /** With reason `Claim`: the claim it settles. */
  claimId?: string
}

/**
 * Puts `credits` back at the end of the document after a key that precedes it in the wire order was added behind
 * it (the order's `deliveredAt` set after a shipment's credit): the stored text stays in wire order.
 */
export function keepCreditsLast(order: OrderDocument): void {
  const credits = order.credits
  if (credits === undefined) return
  delete order.credits
  order.credits = credits
}

/** An address problem that does not stop delivery, as the order shows it (`field`: `recipient.phoneNumber`). */
export interface AddressAdvisory {
  field: string
  code: string
  message: string
}

/** Order keys the wire order puts after `addressAdvisories`. */
const ORDER_KEYS_AFTER_ADVISORIES = [
  'estimatedDispatchDate',
  'estimatedDelivery',
  'deliveredAt',
  'deliveredLate',
  'credits',
] as const satisfies readonly (keyof OrderDocument)[]

/**
 * Sets the order's `addressAdvisories` (none: removes the key) in its place of the wire order: the keys that follow
 * it are taken out and put back after it, so the stored text stays in contract order.
 */
export function setAddressAdvisories(order: OrderDocument, advisories: readonly AddressAdvisory[]): void {
  const following = ORDER_KEYS_AFTER_ADVISORIES.filter((key) => Object.hasOwn(order, key)).map(
    (key) => [key, order[key]] as const,
  )
  for (const [key] of following) delete order[key]
  delete order.addressAdvisories
  if (advisories.length > 0) {
    order.addressAdvisories = advisories.map(({ field, code, message }) => ({ field, code, message }))
  }
  for (const [key, value] of following) Object.assign(order, { [key]: value })
}

/** A create-order request after validation against the schema and the catalogue, in canonical spelling. */
export interface NewOrder {
  merchantReference: string | null
  shippingMethod: ShippingMethod
  idempotencyKey: string | null
  callbackUrl: string | null
  recipient: Recipient
  branding: Partial<Record<BrandingKey, { url: string } | null>> | null
  packingSlip: { url: string } | null
  metadata: Record<string, unknown> | null
  /** Canonical `quo_N`; absent or null without a quote. */
  quoteId?: string | null
  /** "YYYY-MM-DD"; absent or null without a date. */
  deliverBy?: string | null
  /** Absent or null: DAP without customs numbers. Keys in wire order (incoterm, iossNumber, eoriNumber, recipientTaxId). */
  customs?: OrderCustoms | null
  /** The per-order hold's end (ISO date-time); absent or null: none. */
  holdUntil?: string | null
  /** When the order is created as a draft: when the draft expires (ISO date-time); absent or null: no draft. */
  draftExpiresAt?: string | null
  items: {
    merchantReference: string | null
    sku: string
    copies: number
    sizing: SizingMode
    recipientCost: WireMoney | null
    attributes: Record<string, string>
    assets: { printArea: string; url: string; md5Hash: string | null; pageCount: number | null }[]
  }[]
}

/** The IDs of a new order's parts, complete with their prefixes (`ord_12`, `ori_40`, `ast_77`). */
export interface NewOrderIds {
  order: string
  items: string[]
  assets: string[]
}

export function countAssets(order: NewOrder): number {
  return order.items.reduce((sum, item) => sum + item.assets.length, 0)
}

/**
 * Branding in the response: null when the order has none, otherwise every key present, with the colour
 * packing slip under both spellings (docs/wire-contract.md#field-values).
 */
export function normaliseBranding(branding: NewOrder['branding']): Branding | null {
  if (!branding) return null
  const colour = branding.packing_slip_colour ?? branding.packing_slip_color ?? null
  const result = {} as Branding
  for (const key of BRANDING_KEYS) result[key] = branding[key] ?? null
  result.packing_slip_colour = colour
  result.packing_slip_color = colour
  return Object.values(result).some((entry) => entry !== null) ? result : null
}

/**
 * A freshly created order: stage InProgress, every detail NotStarted, nothing downloaded yet. Every object
 * is built with its keys in the contract's order: the stored JSON text is what GET serves.
 */
export function buildNewOrderDocument(order: NewOrder, ids: NewOrderIds, now: Date): OrderDocument {
  const timestamp = now.toISOString()
  let assetIndex = 0
  return {
    id: ids.order,
    created: timestamp,
    lastUpdated: timestamp,
    callbackUrl: order.callbackUrl,
    merchantReference: order.merchantReference,
    shippingMethod: order.shippingMethod,
    idempotencyKey: order.idempotencyKey,
    status: {
      stage: 'InProgress',
      details: {
        downloadAssets: 'NotStarted',
        allocateProductionLocation: 'NotStarted',
        printReadyAssetsPrepared: 'NotStarted',
        inProduction: 'NotStarted',
        shipping: 'NotStarted',
      },
      issues: [],
    },
    charges: [],
    shipments: [],
    recipient: order.recipient,
    branding: normaliseBranding(order.branding),
    items: order.items.map((item, itemIndex) => ({
      id: ids.items[itemIndex] as string,
      status: 'NotYetDownloaded',
      merchantReference: item.merchantReference,
      sku: item.sku,
      copies: item.copies,
      sizing: item.sizing,
      thumbnailUrl: null,
      recipientCost: item.recipientCost,
      attributes: item.attributes,
      assets: item.assets.map((asset) => ({
        id: ids.assets[assetIndex++] as string,
        printArea: asset.printArea,
        url: asset.url,
        thumbnailUrl: null,
        md5Hash: asset.md5Hash,
        pageCount: asset.pageCount,
        status: 'InProgress',
      })),
    })),
    packingSlip: order.packingSlip ? { url: order.packingSlip.url, status: 'NotYetDownloaded' } : null,
    metadata: order.metadata,
    // Only orders created with a quote carry the key, so every other order reads exactly as before.
    ...(order.quoteId ? { quoteId: order.quoteId } : {}),
    ...(order.deliverBy ? { deliverBy: order.deliverBy } : {}),
    ...(order.customs ? { customs: order.customs } : {}),
    ...(order.holdUntil ? { holdUntil: order.holdUntil } : {}),
    ...(order.draftExpiresAt ? { draft: true as const, expiresAt: order.draftExpiresAt } : {}),
  }
}

/** Metadata limit (docs/wire-contract.md#field-values): at most 2,000 characters once serialised. */
export const METADATA_MAX_CHARACTERS = 2000

export function metadataLength(metadata: Record<string, unknown>): number {
  return JSON.stringify(metadata).length
}
