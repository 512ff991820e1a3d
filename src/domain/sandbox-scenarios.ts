// Sandbox scenarios (docs/sandbox.md): a Sandbox order can ask to take one of the unhappy paths an integration
// must handle, deterministically and within seconds. The scenario is resolved once when the order is created
// (the X-Sandbox-Scenario header, else metadata.sandboxScenario, else the account's Sandbox default) and kept
// with the order; Live ignores scenarios. Pure: the pipeline, the billing and the simulated labs ask these
// functions what a scenario changes.
import type { SandboxClaimTarget } from './claims.ts'
import type { DeliveryEstimate } from './delivery-promise.ts'
import { addCalendarDays, deliveryWindow } from './delivery-promise.ts'
import type { DeliveryStatus, OrderDocument, Shipment, TrackingEvent } from './order.ts'
import type { FileInspection } from './preflight.ts'

export const SANDBOX_SCENARIOS = [
  'downloadFails',
  'downloadFlaky',
  'preflightFails',
  'labRejects',
  'outOfStock',
  'paymentRequired',
  'splitShipments',
  'partialShipment',
  'returned',
  'deliveryFailed',
  'lateDelivery',
  'manual',
  'claimsResolved',
  'claimsRejected',
] as const

export type SandboxScenario = (typeof SANDBOX_SCENARIOS)[number]

/**
 * Where POST /v4.0/sandbox/orders/{id}/advance with `to` takes an order: every shipment in production (or
 * further), every shipment shipped, the order Complete, or every parcel at the end of its carrier's path
 * (Delivered; Returned for the scenario `returned`).
 */
export const ADVANCE_TARGETS = ['InProduction', 'Shipped', 'Complete', 'Delivered'] as const
export type AdvanceTarget = (typeof ADVANCE_TARGETS)[number]

/** The request header naming a scenario (wins over the metadata key). */
export const SANDBOX_SCENARIO_HEADER = 'X-Sandbox-Scenario'
/** The key of an order's `metadata` naming a scenario (existing Prodigi clients can send it unchanged). */
export const SANDBOX_SCENARIO_METADATA_KEY = 'sandboxScenario'
/** The answer header of a Live request that named a scenario: Live ignores it (RFC 9111 warn-code 299). */
export const LIVE_SCENARIO_WARNING = '299 - "Sandbox scenarios are ignored on Live"'

/** Scenarios that split an order across two labs: they need at least two items. */
const SPLITTING: readonly SandboxScenario[] = ['splitShipments', 'partialShipment']

/** downloadFlaky: the attempts that fail before the real download succeeds. */
export const FLAKY_FAILED_ATTEMPTS = 2

/** The scenario a name stands for, in any letter case; undefined for anything else. */
export function parseSandboxScenario(name: unknown): SandboxScenario | undefined {
  if (typeof name !== 'string') return undefined
  const lower = name.toLowerCase()
  return SANDBOX_SCENARIOS.find((scenario) => scenario.toLowerCase() === lower)
}

/** The value of `metadata.sandboxScenario`, if the metadata has that key. */
export function scenarioInMetadata(metadata: Record<string, unknown> | null | undefined): unknown {
  return metadata && Object.hasOwn(metadata, SANDBOX_SCENARIO_METADATA_KEY)
    ? metadata[SANDBOX_SCENARIO_METADATA_KEY]
    : undefined
}

/** Why an order cannot take the scenario, or undefined when it can. */
export function scenarioProblem(scenario: SandboxScenario, itemCount: number): string | undefined {
  if (SPLITTING.includes(scenario) && itemCount < 2) {
    return `scenario ${scenario} ships the items from two labs, so the order needs at least two items`
  }
  return undefined
}

/**
 * How the Sandbox's simulated operator decides, by itself, a claim made on an order of this scenario
 * (docs/sandbox.md#claims): `claimsResolved` resolves it (as POST /v4.0/sandbox/claims/{id}/advance does by
 * default), `claimsRejected` rejects it; undefined for every other scenario, whose claims wait for advance.
 */
export function simulatedClaimDecision(scenario: SandboxScenario | null): SandboxClaimTarget | undefined {
  if (scenario === 'claimsResolved') return 'Resolved'
  if (scenario === 'claimsRejected') return 'Rejected'
  return undefined
}

/** Download retries of a scenario order do not wait the real backoff (its path finishes in seconds). */
export function downloadRetryBaseSecondsOf(scenario: SandboxScenario | null, configured: number): number {
  return scenario === 'downloadFails' || scenario === 'downloadFlaky' ? 0 : configured
}

/**
 * The failure a scenario makes download attempt `attempt` of an asset end with, without any request; undefined
 * when the attempt downloads for real. The text has the shape of a real HTTP failure (docs/assets.md).
 */
export function simulatedDownloadFailure(
  scenario: SandboxScenario | null,
  url: string,
  attempt: number,
): string | undefined {
  const fails = scenario === 'downloadFails' || (scenario === 'downloadFlaky' && attempt <= FLAKY_FAILED_ATTEMPTS)
  if (!fails) return undefined
  let host = url
  try {
    host = new URL(url).host
  } catch {}
  return `HTTP 503 from ${host} (Sandbox scenario ${scenario}: simulated, no request was made)`
}

/**
 * What the scenario `preflightFails` makes the preflight of every asset see instead of the file's own measures:
 * a file that cannot be read, which the real checks judge an error (Unreadable); undefined for other scenarios.
 */
export function simulatedPreflightInspection(scenario: SandboxScenario | null): FileInspection | undefined {
  if (scenario !== 'preflightFails') return undefined
  return { kind: 'unreadable', reason: 'Sandbox scenario preflightFails: simulated, the file itself was not read' }
}

/** The order is split across two labs by its first allocation. */
export function splitsShipments(scenario: SandboxScenario | null): boolean {
  return scenario !== null && SPLITTING.includes(scenario)
}

/**
 * Whether the simulated lab stops before its next step on this shipment until the order is advanced
 * (POST /v4.0/sandbox/orders/{id}/advance): every shipment of a `manual` order; for `partialShipment`, every
 * shipment but the order's first, which ships on its own.
 */
export function labStepWaitsForAdvance(
  scenario: SandboxScenario | null,
  order: OrderDocument,
  shipmentId: string,
): boolean {
  if (scenario === 'manual') return true
  if (scenario !== 'partialShipment') return false
  return order.shipments[0]?.id !== shipmentId
}

/**
 * The carrier scans a simulated lab reports after it ships, in order, one step each (docs/sandbox.md#after-shipped):
 * in transit, then delivered; `returned` comes back instead; `deliveryFailed` fails a first attempt and delivers on
 * the second. The step after `ship` is the status after the shipment's current `deliveryStatus` on this path.
 */
export function simulatedCarrierPath(scenario: SandboxScenario | null): readonly DeliveryStatus[] {
  switch (scenario) {
    case 'returned':
      return ['InTransit', 'Returned']
    case 'deliveryFailed':
      return ['InTransit', 'DeliveryFailed', 'OutForDelivery', 'Delivered']
    default:
      return ['InTransit', 'Delivered']
  }
}

/** Whether a shipment's parcel is at the end of the simulated carrier's path (nothing is left to report). */
export function carrierPathEnded(scenario: SandboxScenario | null, status: DeliveryStatus | undefined): boolean {
  return status !== undefined && simulatedCarrierPath(scenario).at(-1) === status
}

/** Where a simulated scan happened: the lab's country before the parcel reaches the recipient's town. */
function scanLocation(order: OrderDocument, shipment: Shipment, status: DeliveryStatus): string {
  const { townOrCity, countryCode } = order.recipient.address
  const atTheLab = status === 'InTransit' || status === 'Returned'
  return atTheLab ? `Sorting centre, ${shipment.fulfillmentLocation.countryCode}` : `${townOrCity}, ${countryCode}`
}

const SCAN_DESCRIPTIONS: Record<DeliveryStatus, string> = {
  InTransit: 'Accepted by the carrier',
  DeliveryFailed: 'Recipient not available',
  OutForDelivery: 'Out for delivery (second attempt)',
  Delivered: 'Delivered',
  Returned: 'Returned to the sender',
}

/**
 * When `lateDelivery` delivers: one carrier working day (Monday to Friday) after the promised `to` at 12:00 UTC,
 * so the delivery is late. The promise is the one made at allocation, else the shipment's estimate, else the order's
 * `deliverBy`; with none of them, 30 days after dispatch (nothing to be late against). Never before `now`: a parcel
 * is not delivered before the step that reports it. The time may be in the future, which only a simulation can do.
 */
export function lateDeliveryTime(
  order: OrderDocument,
  shipment: Shipment,
  promise: DeliveryEstimate | undefined,
  now: Date,
): Date {
  const promisedTo = promise?.estimatedDelivery.to ?? shipment.estimatedDelivery?.to ?? order.deliverBy
  const dispatched = (shipment.dispatchDate ?? now.toISOString()).slice(0, 10)
  // A window of exactly one day after `to` is the next day a carrier delivers on.
  const date = promisedTo ? deliveryWindow(promisedTo, { min: 1, max: 1 }).to : addCalendarDays(dispatched, 30)
  const late = new Date(`${date}T12:00:00.000Z`)
  return late > now ? late : now
}

/**
 * The scan a simulated lab reports for `status` on a shipment: at `now` (the step's time), except the delivery
 * of `lateDelivery` (lateDeliveryTime). Each scan is at least a millisecond after the shipment's latest one: scans
 * of one instant are ordered by status, not by arrival (domain/delivery-tracking.ts), so an OutForDelivery in the
 * same millisecond as the DeliveryFailed before it (an advance, a fixed clock) would not move the status.
 */
export function simulatedCarrierScan(
  scenario: SandboxScenario | null,
  order: OrderDocument,
  shipment: Shipment,
  promise: DeliveryEstimate | undefined,
  status: DeliveryStatus,
  now: Date,
): TrackingEvent {
  const latest = Math.max(...(shipment.trackingEvents ?? []).map((scan) => new Date(scan.time).getTime()))
  const stepTime = new Date(Math.max(now.getTime(), latest + 1))
  const time =
    scenario === 'lateDelivery' && status === 'Delivered'
      ? lateDeliveryTime(order, shipment, promise, stepTime)
      : stepTime
  return {
    time: time.toISOString(),
    status,
    description: SCAN_DESCRIPTIONS[status],
    location: scanLocation(order, shipment, status),
  }
}
