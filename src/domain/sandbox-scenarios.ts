// Sandbox scenarios (docs/sandbox.md): a Sandbox order can ask to take one of the unhappy paths an integration
// must handle, deterministically and within seconds. The scenario is resolved once when the order is created
// (the X-Sandbox-Scenario header, else metadata.sandboxScenario, else the account's Sandbox default) and kept
// with the order; Live ignores scenarios. Pure: the pipeline, the billing and the simulated labs ask these
// functions what a scenario changes.
import type { OrderDocument } from './order.ts'

export const SANDBOX_SCENARIOS = [
  'downloadFails',
  'downloadFlaky',
  'labRejects',
  'outOfStock',
  'paymentRequired',
  'splitShipments',
  'partialShipment',
  'manual',
] as const

export type SandboxScenario = (typeof SANDBOX_SCENARIOS)[number]

/**
 * Where POST /v4.0/sandbox/orders/{id}/advance with `to` takes an order: every shipment in production (or
 * further), every shipment shipped, or the order Complete.
 */
export const ADVANCE_TARGETS = ['InProduction', 'Shipped', 'Complete'] as const
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
