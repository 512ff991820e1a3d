// Which callbacks an order change causes, and what a callback looks like. Pure: the services compare the
// order as it was when they locked it with the order they are about to save, and write the events this
// returns to the outbox in the same transaction (services/order-events.service.ts).
//
// Types (docs/wire-contract.md#orders-and-the-pause-window; specification, "Events"): a reverse-DNS prefix with the
// configurable vendor, the object (order), the path of the changed nested object, `#` and the new value.
import { type CloudEventEnvelope, cloudEventEnvelope } from './cloud-events.ts'
import type { DeliveryStatus, OrderDocument, Recipient, Stage } from './order.ts'
import { ISSUE_CODES } from './pipeline/pipeline-order.ts'

/** The vendor in `com.<vendor>.order...` when none is configured. */
export const DEFAULT_EVENT_VENDOR = 'printroute'

/** A vendor is one DNS label: letters, digits and hyphens. */
export const EVENT_VENDOR_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i

export type OrderEventKind =
  | { kind: 'stageChanged'; stage: Stage }
  | { kind: 'shipmentShipped'; shipmentId: string }
  /**
   * A parcel of a shipment shipped in several parcels left the lab (`parcel` counts the shipment's parcels from 0). A
   * shipment shipped whole in one parcel has only `shipmentShipped`.
   */
  | { kind: 'parcelShipped'; shipmentId: string; parcel: number }
  /** A shipment's `deliveryStatus` became one of the statuses that have a callback. */
  | { kind: 'shipmentDelivery'; shipmentId: string; status: CallbackDeliveryStatus }
  /** Every shipment of the order has been delivered (`deliveredAt` set on the order). */
  | { kind: 'orderDelivered' }
  | { kind: 'downloadAssetsComplete' }
  | { kind: 'shippingComplete' }
  | { kind: 'paymentAuthorised' }
  /** printroute's own: the merchant replaced an asset's file (POST .../actions/replaceAsset). */
  | { kind: 'assetReplaced'; itemId: string; assetId: string }
  /**
   * The operator moved a shipment to another lab (docs/admin.md#moving-a-shipment-to-another-lab): `shipmentId` is
   * the new shipment, which took the items of `fromShipmentId` (gone from the order).
   */
  | { kind: 'shipmentMoved'; shipmentId: string; fromShipmentId: string }
  /**
   * printroute's own: a claim about the order's shipped work was made, resolved, rejected or retracted
   * (docs/claims.md). Not derived from the order's document: the claims service passes it with its change
   * (OrderChangeResult.events), with the claim as the API shows it, which the event carries as `data.claim`.
   */
  | { kind: 'claimChanged'; claimId: string; status: ClaimEventStatus; claim?: Record<string, unknown> }
  /**
   * printroute's own: a credit was issued on the order by itself (a late delivery on a guaranteed method) or for a
   * claim (docs/claims.md#credits); `credit` is the order's `credits[]` entry, carried as `data.credit`.
   */
  | { kind: 'creditIssued'; creditId: string; credit?: Record<string, unknown> }
  /**
   * printroute's own (docs/api.md#drafts-and-holds): a draft was confirmed, a draft was cancelled by its expiry, a
   * per-order hold was released early. Passed by the change that does it (OrderChangeResult.events).
   */
  | { kind: 'draftConfirmed' }
  | { kind: 'draftExpired' }
  | { kind: 'holdReleased' }

/** The claim changes that have an event: `com.<vendor>.order.claims.claim#<status>`. */
export const CLAIM_EVENT_STATUSES = ['Created', 'Resolved', 'Rejected', 'Retracted'] as const
export type ClaimEventStatus = (typeof CLAIM_EVENT_STATUSES)[number]

export function eventType(vendor: string, event: OrderEventKind): string {
  const prefix = `com.${vendor}.order`
  switch (event.kind) {
    case 'stageChanged':
      return `${prefix}.status.stage.changed#${event.stage}`
    case 'shipmentShipped':
      return `${prefix}.shipments.shipment#Shipped`
    case 'parcelShipped':
      return `${prefix}.shipments.parcel#Shipped`
    case 'shipmentDelivery':
      return `${prefix}.shipments.shipment#${event.status}`
    case 'orderDelivered':
      return `${prefix}.status.delivery#Delivered`
    case 'downloadAssetsComplete':
      return `${prefix}.status.details.downloadAssets#Complete`
    case 'shippingComplete':
      return `${prefix}.status.details.shipping#Complete`
    case 'paymentAuthorised':
      return `${prefix}.status.issues.paymentAuthorisation#Authorised`
    case 'assetReplaced':
      return `${prefix}.items.assets.asset#Replaced`
    case 'shipmentMoved':
      return `${prefix}.shipments.shipment#Moved`
    case 'claimChanged':
      return `${prefix}.claims.claim#${event.status}`
    case 'creditIssued':
      return `${prefix}.credits.credit#Issued`
    case 'draftConfirmed':
      return `${prefix}.draft#Confirmed`
    case 'draftExpired':
      return `${prefix}.draft#Expired`
    case 'holdReleased':
      return `${prefix}.hold#Released`
  }
}

/**
 * Which events an environment's callback URLs get (the account setting `callbackEvents`,
 * docs/callbacks.md#which-events-a-callback-url-gets): `all` (the default) every type of the table, `prodigi` only
 * the types of the Prodigi Print API, for a decoder that refuses types it does not know. Webhook endpoints filter by
 * their own `eventTypes` instead.
 */
export const CALLBACK_EVENT_SETS = ['prodigi', 'all'] as const
export type CallbackEventSet = (typeof CALLBACK_EVENT_SETS)[number]

/** The set stored for an environment; `all` for anything else (the column's default). */
export function parseCallbackEventSet(value: string | null | undefined): CallbackEventSet {
  return value === 'prodigi' ? 'prodigi' : 'all'
}

/**
 * Whether the Prodigi Print API sends this event: a stage change (the pause window's end included), a shipment
 * made, downloads complete, shipping complete. printroute's own are a parcel of several shipped, the carriers'
 * delivery statuses, the whole order delivered, a payment authorised and a shipment moved to another lab.
 */
export function isPrintApiEvent(event: OrderEventKind): boolean {
  switch (event.kind) {
    case 'stageChanged':
    case 'shipmentShipped':
    case 'downloadAssetsComplete':
    case 'shippingComplete':
      return true
    case 'parcelShipped':
    case 'shipmentDelivery':
    case 'orderDelivered':
    case 'paymentAuthorised':
    case 'assetReplaced':
    case 'shipmentMoved':
    case 'claimChanged':
    case 'creditIssued':
    case 'draftConfirmed':
    case 'draftExpired':
    case 'holdReleased':
      return false
  }
}

/**
 * Events that go to webhook endpoints and the events feed only, never to a callback URL (the order's own or the
 * account's): claims and credits are the account's business with the operator, and a callback URL keeps the order
 * lifecycle a Prodigi client knows (docs/callbacks.md#which-events-a-callback-url-gets).
 */
export function isWebhookOnlyEvent(event: OrderEventKind): boolean {
  return (
    event.kind === 'claimChanged' ||
    event.kind === 'creditIssued' ||
    event.kind === 'draftConfirmed' ||
    event.kind === 'draftExpired' ||
    event.kind === 'holdReleased'
  )
}

/** Whether a callback URL whose environment has `set` gets this event. */
export function callbackUrlAccepts(set: CallbackEventSet, event: OrderEventKind): boolean {
  if (isWebhookOnlyEvent(event)) return false
  return set === 'all' || isPrintApiEvent(event)
}

/** What an event carries beside the order: the claim of a claim event, the credit of a credit event. */
export function eventExtraData(event: OrderEventKind): Record<string, unknown> | undefined {
  if (event.kind === 'claimChanged' && event.claim) return { claim: event.claim }
  if (event.kind === 'creditIssued' && event.credit) return { credit: event.credit }
  return undefined
}

/**
 * Delivery statuses a callback is sent for. OutForDelivery only shows on the order: it comes and goes within hours
 * of Delivered, and a receiver learns nothing from it that the next event does not say.
 */
export const CALLBACK_DELIVERY_STATUSES = ['InTransit', 'DeliveryFailed', 'Delivered', 'Returned'] as const
export type CallbackDeliveryStatus = (typeof CALLBACK_DELIVERY_STATUSES)[number]

function hasDeliveryCallback(status: DeliveryStatus | undefined): status is CallbackDeliveryStatus {
  return (CALLBACK_DELIVERY_STATUSES as readonly (DeliveryStatus | undefined)[]).includes(status)
}

export interface OrderChangeFacts {
  before: OrderDocument
  after: OrderDocument
  /**
   * The change is the end of the pause window: the held order enters fulfilment. Its stage was InProgress
   * all along, but the specification sends the full order then, as a stage change to InProgress.
   */
  pauseWindowEnded: boolean
  /** Shipments the change moved to another lab: the new shipment and the one it replaced. */
  movedShipments?: readonly { shipmentId: string; fromShipmentId: string }[]
}

/**
 * The events a change causes, in the order they happened within it: fulfilment starting after the pause
 * window, downloads complete, payment authorised, each parcel of a shipment shipped in several, each shipment made,
 * shipping complete, the stage change it led
 * to, then what the carriers reported: each shipment's new delivery status (one event for the status it ends at,
 * however many scans the change applied), then the whole order delivered. Creation causes none (there is no
 * `before`); a change that touches none of these, none.
 */
export function orderEventsOf(facts: OrderChangeFacts): OrderEventKind[] {
  const { before, after } = facts
  const events: OrderEventKind[] = []
  if (facts.pauseWindowEnded && after.status.stage === 'InProgress') {
    events.push({ kind: 'stageChanged', stage: 'InProgress' })
  }
  // The merchant's replacement of an asset comes first: what the pipeline does next follows from it.
  const urlsBefore = new Map(before.items.flatMap((item) => item.assets.map((asset) => [asset.id, asset.url])))
  for (const item of after.items) {
    for (const asset of item.assets) {
      const was = urlsBefore.get(asset.id)
      if (was !== undefined && was !== asset.url)
        events.push({ kind: 'assetReplaced', itemId: item.id, assetId: asset.id })
    }
  }
  const details = after.status.details
  if (details.downloadAssets === 'Complete' && before.status.details.downloadAssets !== 'Complete') {
    events.push({ kind: 'downloadAssetsComplete' })
  }
  // The payment issue going away (other than by cancelling) means the order's payment was authorised.
  const held = (order: OrderDocument) =>
    order.status.issues.some((issue) => issue.errorCode === ISSUE_CODES.paymentAuthorisation)
  if (held(before) && !held(after) && after.status.stage !== 'Cancelled') events.push({ kind: 'paymentAuthorised' })
  for (const moved of facts.movedShipments ?? []) events.push({ kind: 'shipmentMoved', ...moved })
  const shippedBefore = new Set(
    before.shipments.filter((shipment) => shipment.status === 'Shipped').map((shipment) => shipment.id),
  )
  const parcelsBefore = new Map(before.shipments.map((shipment) => [shipment.id, shipment.parcels?.length ?? 0]))
  for (const shipment of after.shipments) {
    const parcels = shipment.parcels?.length ?? 0
    const shippedWhole = shipment.status === 'Shipped' && parcels <= 1 && !parcelsBefore.get(shipment.id)
    if (!shippedWhole) {
      for (let parcel = parcelsBefore.get(shipment.id) ?? 0; parcel < parcels; parcel++) {
        events.push({ kind: 'parcelShipped', shipmentId: shipment.id, parcel })
      }
    }
    if (shipment.status === 'Shipped' && !shippedBefore.has(shipment.id)) {
      events.push({ kind: 'shipmentShipped', shipmentId: shipment.id })
    }
  }
  if (details.shipping === 'Complete' && before.status.details.shipping !== 'Complete') {
    events.push({ kind: 'shippingComplete' })
  }
  if (after.status.stage !== before.status.stage) events.push({ kind: 'stageChanged', stage: after.status.stage })
  // After the parcel left: each shipment's delivery status, then the whole order delivered.
  const statusBefore = new Map(before.shipments.map((shipment) => [shipment.id, shipment.deliveryStatus]))
  for (const shipment of after.shipments) {
    const status = shipment.deliveryStatus
    if (status !== statusBefore.get(shipment.id) && hasDeliveryCallback(status)) {
      events.push({ kind: 'shipmentDelivery', shipmentId: shipment.id, status })
    }
  }
  if (after.deliveredAt !== undefined && before.deliveredAt === undefined) events.push({ kind: 'orderDelivered' })
  return events
}

/**
 * The order as callbacks carry it: the wire order with the recipient's phone also under `mobilePhoneNumber`
 * (docs/wire-contract.md#field-values: the specification's callback payload uses that name). Keys keep the contract's
 * order.
 */
export function callbackOrder(order: OrderDocument): Record<string, unknown> {
  const recipient: Recipient & { mobilePhoneNumber?: string | null } = order.recipient
  const { name, email, phoneNumber, address } = recipient
  return { ...order, recipient: { name, email, phoneNumber, mobilePhoneNumber: phoneNumber, address } }
}

export interface CloudEvent extends CloudEventEnvelope {
  data: {
    order: Record<string, unknown>
    claim?: Record<string, unknown>
    credit?: Record<string, unknown>
    traceParent: string
  }
  subject: string
  /**
   * The CloudEvents sequence extension: the event's place among the order's events, from 1, as a string whose
   * lexicographic order is the events' order (formatEventSequence).
   */
  sequence: string
}

/**
 * Digits of the `sequence` attribute: zero-padded to the width of the largest bigint (9223372036854775807), so
 * that comparing the strings orders the events, as the CloudEvents sequence extension requires, and the width
 * never has to grow.
 */
export const EVENT_SEQUENCE_DIGITS = 19

/** The `sequence` attribute of an order's `n`th event (from 1): `0000000000000000003`. */
export function formatEventSequence(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`an event sequence is a whole number, not ${n}`)
  return String(n).padStart(EVENT_SEQUENCE_DIGITS, '0')
}

/** A CloudEvents 1.0 event (JSON format) for an order, attributes in the contract's order. */
export function buildCloudEvent(input: {
  id: string
  type: string
  source: string
  time: Date
  order: OrderDocument
  traceParent: string
  sequence: number
  /** A claim or credit event's own object (eventExtraData), after the order. */
  extra?: Record<string, unknown>
}): CloudEvent {
  return {
    ...cloudEventEnvelope(input),
    data: { order: callbackOrder(input.order), ...input.extra, traceParent: input.traceParent },
    subject: input.order.id,
    sequence: formatEventSequence(input.sequence),
  }
}

/** The type of a test callback (POST /v4.0/callbacks/test): `com.<vendor>.test`. */
export function testEventType(vendor: string): string {
  return `com.${vendor}.test`
}

/** What a receiver reads in a test callback: no order, no `subject` or `sequence`. */
export interface TestCloudEvent extends CloudEventEnvelope {
  data: { message: string; environment: 'sandbox' | 'live'; traceParent: string }
}

/** A test callback's CloudEvent: the same envelope and signature as an order's events, attributes in that order. */
export function buildTestCloudEvent(input: {
  id: string
  type: string
  source: string
  time: Date
  environment: 'sandbox' | 'live'
  traceParent: string
}): TestCloudEvent {
  return {
    ...cloudEventEnvelope(input),
    data: {
      message: 'A test callback from printroute: your endpoint received it. It belongs to no order.',
      environment: input.environment,
      traceParent: input.traceParent,
    },
  }
}
