// Metrics for operators in the Prometheus text format (prom-client; docs/operations.md lists each one). One
// registry per application, never prom-client's global one, so several applications in one process (tests)
// keep separate counts. Services record through the ServiceMetrics interface; the HTTP servers through
// `observeHttpRequest`.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/** Jobs waiting or running, by queue and state (see `JobQueue.countJobs`). */
export interface JobCount {
  name: string
  state: string
  count: number
}

/**
 * How often the event loop's delay is sampled (nodejs_eventloop_lag_*). prom-client's 10 ms woke the idle process
 * 100 times a second, about half of its idle CPU; lags worth an alert are far longer than this.
 */
const EVENT_LOOP_SAMPLE_MS = 200

export const JOB_DEPTH_STATES = ['queued', 'deferred', 'active'] as const

// Requests answer in milliseconds; the slowest (a large order, a timed-out one) take up to the 60 s limit.
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
// Steps range from a few milliseconds (submit) to minutes (a large download, a 24 MP render on a busy worker).
const STEP_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]

export interface MetricsOptions {
  /** Read at every scrape: the job counts for `printroute_job_queue_depth`. */
  countJobs: () => Promise<readonly JobCount[]>
  /** Every queue, so each has a series (at 0) even when empty. */
  jobNames: readonly string[]
  /** A failed read of the job counts (the gauge is then left empty for that scrape). */
  onError: (error: Error) => void
  /** The catalogue version this process serves (docs/catalogue.md#switching); null before it has one. */
  catalogueVersion?: () => number | null
}

/** What services count and time; fits services/observability.ts's ServiceMetrics by shape. */
export interface ServiceCounters {
  /** One order created in `environment`. */
  orderCreated(environment: string): void
  /** How long one pipeline step took. */
  pipelineStep(step: string, seconds: number): void
  /** One asset download and how it ended. */
  assetDownload(result: string): void
  /** One callback delivery attempt and how it ended. */
  callbackDelivery(result: string): void
}

/** The process's Prometheus metrics: what services record, HTTP request times, and the scrape. */
export interface Metrics {
  /** Handed to the services as their ServiceMetrics. */
  service: ServiceCounters
  /** Times one HTTP request by environment, route, method and status. */
  observeHttpRequest(
    labels: { environment: string; route: string; method: string; status: number },
    seconds: number,
  ): void
  /** The exposition text of every metric (GET /metrics). */
  scrape(): Promise<{ contentType: string; text: string }>
}

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
  const registers = [registry]
  // A counter by one label with a series at 0 for each of `values` from the start, so rates and alerts work
  // before the first event.
  const countedFromZero = <Label extends string>(
    name: string,
    help: string,
    label: Label,
    values: readonly string[],
  ): Counter<Label> => {
    const counter = new Counter({ name, help, labelNames: [label], registers })
    for (const value of values) counter.inc({ [label]: value } as Record<Label, string>, 0)
    return counter
  }

  const httpDuration = new Histogram({
    name: 'printroute_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by environment, route pattern, method and status',
    labelNames: ['environment', 'route', 'method', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  })
  const ordersCreated = countedFromZero(
    'printroute_orders_created_total',
    'Orders created, by environment',
    'environment',
    ['live', 'sandbox'],
  )
  const stepDuration = new Histogram({
    name: 'printroute_pipeline_step_duration_seconds',
    help: 'Time one pipeline step took (a job, or a lab report), by step',
    labelNames: ['step'] as const,
    buckets: STEP_BUCKETS,
    registers,
  })
  const callbackDeliveries = countedFromZero(
    'printroute_callback_deliveries_total',
    'Callback delivery attempts, by result: delivered, failed (retried later), gave_up',
    'result',
    ['delivered', 'failed', 'gave_up'],
  )
  const assetDownloads = countedFromZero(
    'printroute_asset_downloads_total',
    'Download attempts of assets, packing slips and branding files, by result: ok, failed',
    'result',
    ['ok', 'failed'],
  )
  new Gauge({
    name: 'printroute_job_queue_depth',
    help: 'Jobs waiting or running, by job name and state: queued (due now), deferred (due later), active',
    labelNames: ['name', 'state'] as const,
    registers,
    async collect() {
      this.reset()
      let counts: readonly JobCount[]
      try {
        counts = await options.countJobs()
      } catch (error) {
        options.onError(error as Error)
        return
      }
      for (const name of options.jobNames) for (const state of JOB_DEPTH_STATES) this.set({ name, state }, 0)
      for (const { name, state, count } of counts) this.set({ name, state }, count)
    },
  })

  new Gauge({
    name: 'printroute_catalogue_version',
    help: 'The catalogue version this process serves: the value and the label version are its number',
    labelNames: ['version'] as const,
    registers,
    collect() {
      this.reset()
      const version = options.catalogueVersion?.() ?? null
      if (version !== null) this.set({ version: String(version) }, version)
    },
  })

  // Fits services/observability.ts's ServiceMetrics by shape (app.ts hands it over, and tsc checks the fit
  // there), so this adapter does not import the services layer it serves.
  const service = {
    orderCreated: (environment: string) => ordersCreated.inc({ environment }),
    pipelineStep: (step: string, seconds: number) => stepDuration.observe({ step }, seconds),
    assetDownload: (result: string) => assetDownloads.inc({ result }),
    callbackDelivery: (result: string) => callbackDeliveries.inc({ result }),
  }

  return {
    service,
    observeHttpRequest(
      labels: { environment: string; route: string; method: string; status: number },
      seconds: number,
    ): void {
      httpDuration.observe({ ...labels, status: String(labels.status) }, seconds)
    },
    async scrape(): Promise<{ contentType: string; text: string }> {
      return { contentType: registry.contentType, text: await registry.metrics() }
    },
  }
}
