// The two small interfaces services report through: a logger (pino satisfies it; services never import pino)
// and the counters and timings operators scrape (src/adapters/metrics.ts implements them with prom-client).
// Both have a silent version for code that runs without them (CLI commands, unit tests).
import type { Environment } from '../domain/environment.ts'

export type LogFields = Record<string, unknown>

/**
 * Every pipeline line carries `orderId` and, when known, `traceId`: the trace id of the request being handled,
 * or for background work the trace id of the request that created the order.
 */
export interface ServiceLogger {
  info(fields: LogFields, message: string): void
  warn(fields: LogFields, message: string): void
  error(fields: LogFields, message: string): void
}

export const silentLogger: ServiceLogger = { info() {}, warn() {}, error() {} }

/** Steps of the pipeline as timed by `printroute_pipeline_step_duration_seconds` (label `step`). */
export type PipelineStep = 'start' | 'download' | 'allocate' | 'render' | 'submit' | 'lab-report'

/** Outcome of one download attempt (`printroute_asset_downloads_total`, label `result`). */
export type DownloadResult = 'ok' | 'failed'

/**
 * Outcome of one callback delivery attempt (`printroute_callback_deliveries_total`, label `result`):
 * delivered (2xx), failed (no 2xx, another attempt is scheduled), gave_up (no 2xx on the last attempt, or an
 * address that can never work).
 */
export type CallbackDeliveryResult = 'delivered' | 'failed' | 'gave_up'

export interface ServiceMetrics {
  orderCreated(environment: Environment): void
  pipelineStep(step: PipelineStep, seconds: number): void
  assetDownload(result: DownloadResult): void
  callbackDelivery(result: CallbackDeliveryResult): void
}

/** What the request histogram is labelled with (printroute_http_request_duration_seconds). */
export interface HttpRequestLabels {
  environment: Environment
  /** The route pattern (`/v4.0/orders/:orderId`), never the raw URL: one series per route, not per order. */
  route: string
  method: string
  status: number
}

export const noMetrics: ServiceMetrics = {
  orderCreated() {},
  pipelineStep() {},
  assetDownload() {},
  callbackDelivery() {},
}

/** Seconds since `startedAt` (a `performance.now()` reading). */
export function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000
}
