// What each background job caused by an order is: its payload and its deterministic key. The pure half of the
// job registry, here so the pure transitions can ask for jobs; how each job runs (handler, concurrency,
// retries) is the other half, in jobs/registry.ts, keyed by the same names.
import { DELIVERY_STATUSES, type DeliveryStatus } from './order.ts'
import { type SandboxScenario, simulatedCarrierPath } from './sandbox-scenarios.ts'

/**
 * Where a simulated lab is with a shipment; each step is one job. After `ship`, one step per carrier scan the
 * simulated lab reports, named after the scan's status (`inTransit` reports InTransit).
 */
export type SimulatedLabStep = 'acknowledge' | 'produce' | 'ship' | CarrierScanStep
export type CarrierScanStep = Uncapitalize<DeliveryStatus>

/** The step that reports a carrier scan of `status`. */
export function carrierScanStep(status: DeliveryStatus): CarrierScanStep {
  return `${status.charAt(0).toLowerCase()}${status.slice(1)}` as CarrierScanStep
}

/** The status a carrier-scan step reports; undefined for the steps before dispatch. */
export function scanStatusOf(step: SimulatedLabStep): DeliveryStatus | undefined {
  return DELIVERY_STATUSES.find((status) => carrierScanStep(status) === step)
}

/**
 * The step a simulated lab takes next on a shipment in `state` (a pipeline shipment state); undefined when it has
 * none (not yet with the lab, or done). Once shipped, the pipeline state stays `shipped`: the next step is the
 * scan after the shipment's `deliveryStatus` on the scenario's carrier path (simulatedCarrierPath). A step runs
 * only from its own state, so a step job that fires after the shipment moved on (the order was advanced in
 * Sandbox, or the job ran twice) does nothing.
 */
export function nextSimulatedLabStep(
  state: string | undefined,
  deliveryStatus?: DeliveryStatus,
  scenario: SandboxScenario | null = null,
): SimulatedLabStep | undefined {
  if (state === 'submitted') return 'acknowledge'
  if (state === 'acknowledged') return 'produce'
  if (state === 'inProduction') return 'ship'
  if (state !== 'shipped') return undefined
  const path = simulatedCarrierPath(scenario)
  // indexOf is -1 before the first scan, so the next is the path's first; a status the simulated carrier does
  // not report on this path (another reporter's) is treated as its end: nothing follows.
  const at = deliveryStatus === undefined ? -1 : path.indexOf(deliveryStatus)
  if (deliveryStatus !== undefined && at === -1) return undefined
  const next = path[at + 1]
  return next === undefined ? undefined : carrierScanStep(next)
}

/** Every job an order change can cause: name -> what the job carries. */
export interface JobPayloads {
  /** `traceId`: of the request that created the order (jobs queued before trace ids were kept carry none). */
  'start-order': { orderId: string; traceId?: string }
  /** `replacement`: which replacement of the asset (replaceAsset) the attempt is for; absent: the first file. */
  'download-file': { orderId: string; fileKey: string; attempt: number; replacement?: number }
  /** `wait`: how many times the round has waited for a lab with room (docs/allocation.md#lab-availability). */
  'allocate-order': { orderId: string; round: number; wait?: number }
  'render-print-file': { orderId: string; shipmentId: string; assetId: string }
  'submit-shipment': { orderId: string; shipmentId: string }
  'simulated-lab-step': { orderId: string; shipmentId: string; step: SimulatedLabStep }
  /** The Sandbox's simulated operator deciding a claim by itself (scenarios claimsResolved, claimsRejected). */
  'simulated-claim-decision': { claimId: string }
  /** One attempt to deliver a callback (services/callbacks.service.ts). */
  'deliver-callback': { deliveryId: number; attempt: number }
  /** Inspects the file of one stand-alone preflight (services/print-files/preflight.service.ts). */
  'run-preflight': { preflightId: number }
  /** Maps one received storefront webhook: an order created or cancelled, the app uninstalled (docs/channels.md). */
  'map-channel-webhook': { webhookId: number }
  /**
   * One attempt to tell a store that a shipment shipped (the fulfilment outbox, docs/channels.md). `now`: the
   * attempt the merchant's "try again now" made due at once, beside the one the schedule may still hold for later
   * (a job of its own; whichever runs first makes the attempt, the other finds it recorded and does nothing).
   */
  'fulfil-channel-shipment': { fulfilmentId: number; attempt: number; now?: true }
  /**
   * One run of a Shopify channel's webhook subscriptions (services/channel-webhooks.service.ts): `attempt` is the
   * channel's run number, so "subscribe again" queues a job of its own and a replaced run does nothing. `retry`: the
   * automatic retry of that run after a passing store failure (absent: the run itself).
   */
  'subscribe-channel-webhooks': { channelId: number; attempt: number; retry?: number }
  /** Cancels a draft not confirmed by its `expiresAt` (docs/api.md#drafts-and-holds); queued for that instant. */
  'expire-draft': { orderId: string }
  /** Reads one CSV order import and creates its orders (services/order-imports.service.ts). */
  'run-order-import': { importId: number }
  /** Charges the card on file for a held prepaid order (services/saved-cards.service.ts): the provider payment's id. */
  'charge-saved-card': { providerPaymentId: number }
  /** Asks the payment provider for one refund to a card, recorded `requested` (docs/billing.md#refunds-to-the-card). */
  'refund-card-payment': { refundId: number }
  /** Processes one stored webhook event of the card provider (services/payment-events.service.ts). */
  'process-payment-event': { provider: string; eventId: string }
}

export type JobName = keyof JobPayloads

/**
 * Deterministic keys: the same work always has the same key (the queue derives the job's id from it), so
 * enqueuing it twice, as a step re-run after a crash does, is harmless.
 */
const JOB_KEYS: { [N in JobName]: (data: JobPayloads[N]) => string } = {
  'start-order': ({ orderId }) => `start:${orderId}`,
  'download-file': ({ orderId, fileKey, attempt, replacement }) =>
    `download:${orderId}:${fileKey}:${attempt}${replacement ? `:r${replacement}` : ''}`,
  'allocate-order': ({ orderId, round, wait }) => `allocate:${orderId}:${round}${wait ? `:wait${wait}` : ''}`,
  'render-print-file': ({ shipmentId, assetId }) => `render:${shipmentId}:${assetId}`,
  'submit-shipment': ({ shipmentId }) => `submit:${shipmentId}`,
  // The trailing 0 is the attempt of a step, kept so the ids of jobs already queued stay the same.
  'simulated-lab-step': ({ shipmentId, step }) => `simulated-lab:${shipmentId}:${step}:0`,
  'simulated-claim-decision': ({ claimId }) => `simulated-claim:${claimId}`,
  'deliver-callback': ({ deliveryId, attempt }) => `callback:${deliveryId}:${attempt}`,
  'run-preflight': ({ preflightId }) => `preflight:${preflightId}`,
  'map-channel-webhook': ({ webhookId }) => `channel-webhook:${webhookId}`,
  'fulfil-channel-shipment': ({ fulfilmentId, attempt, now }) =>
    `channel-fulfilment:${fulfilmentId}:${attempt}${now ? ':now' : ''}`,
  'subscribe-channel-webhooks': ({ channelId, attempt, retry }) =>
    `channel-webhooks:${channelId}:${attempt}${retry ? `:r${retry}` : ''}`,
  'expire-draft': ({ orderId }) => `expire-draft:${orderId}`,
  'run-order-import': ({ importId }) => `order-import:${importId}`,
  'charge-saved-card': ({ providerPaymentId }) => `charge-saved-card:${providerPaymentId}`,
  'refund-card-payment': ({ refundId }) => `card-refund:${refundId}`,
  'process-payment-event': ({ provider, eventId }) => `payment-event:${provider}:${eventId}`,
}

export const JOB_NAMES = Object.keys(JOB_KEYS) as readonly JobName[]

/** A job to enqueue: its payload is checked against its name. */
export type JobRequest = {
  [N in JobName]: { name: N; key: string; data: JobPayloads[N]; startAfter?: Date }
}[JobName]

export function jobRequest<N extends JobName>(name: N, data: JobPayloads[N], startAfter?: Date): JobRequest {
  const key = JOB_KEYS[name](data)
  return { name, key, data, ...(startAfter ? { startAfter } : {}) } as JobRequest
}

/** The first attempt of a callback delivery, and every later one. */
export function deliveryJob(deliveryId: number, attempt: number, startAfter?: Date): JobRequest {
  return jobRequest('deliver-callback', { deliveryId, attempt }, startAfter)
}
