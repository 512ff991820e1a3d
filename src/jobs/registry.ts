// The closed list of background jobs: name -> handler, concurrency, retries. Start-up fails when a job
// name of the pipeline has no entry here (the Record type makes a missing one a type error too).
import type { JobDefinition } from '../adapters/job-queue.ts'
import { JOB_NAMES, type JobName, SCHEDULED_JOBS, type ScheduledJobName } from '../domain/order-pipeline.ts'
import type { CallbacksService } from '../services/callbacks.service.ts'
import type { PipelineService } from '../services/pipeline.service.ts'

const text = (value: string | number | undefined) => String(value ?? '')
const number = (value: string | number | undefined) => Number(value ?? 0)

export function buildJobRegistry(
  pipeline: PipelineService,
  callbacks: CallbacksService,
  options: { renderConcurrency: number },
): Record<JobName, JobDefinition> {
  const registry: Record<JobName, JobDefinition> = {
    'start-order': {
      // Jobs queued before trace ids were kept carry none.
      handler: (data) =>
        pipeline.startOrder(text(data.orderId), data.traceId === undefined ? undefined : text(data.traceId)),
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'download-file': {
      // Download failures are the pipeline's own retries (10 attempts, issues); pg-boss retries only
      // crashes and unexpected errors.
      handler: (data) => pipeline.downloadFile(text(data.orderId), text(data.fileKey), number(data.attempt)),
      concurrency: 4,
      retryLimit: 5,
      expireInSeconds: 600,
    },
    'allocate-order': {
      handler: (data) => pipeline.allocateOrder(text(data.orderId), number(data.round)),
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'render-print-file': {
      handler: (data) => pipeline.renderPrintFile(text(data.orderId), text(data.shipmentId), text(data.assetId)),
      concurrency: options.renderConcurrency,
      retryLimit: 5,
      expireInSeconds: 900,
    },
    'submit-shipment': {
      handler: (data) => pipeline.submitShipment(text(data.orderId), text(data.shipmentId)),
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'simulated-lab-step': {
      handler: (data) => pipeline.simulatedLabStep(text(data.orderId), text(data.shipmentId), text(data.step)),
      concurrency: 4,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'deliver-callback': {
      // A failed attempt (no 2xx) is the delivery's own retry schedule, recorded with the delivery; pg-boss
      // retries only crashes and unexpected errors, and a re-run of an attempt already recorded does nothing.
      handler: (data) => callbacks.deliver(number(data.deliveryId), number(data.attempt)),
      concurrency: 8,
      retryLimit: 10,
      // The POST has 15 s; the rest is the two short database steps around it.
      expireInSeconds: 60,
    },
  }
  const missing = JOB_NAMES.filter((name) => !registry[name])
  if (missing.length > 0) throw new Error(`jobs without a handler: ${missing.join(', ')}`)
  return registry
}

/** What a scheduled job did, for the log (only when it did something). */
export type ScheduledJobReport = (fields: Record<string, number>, message: string) => void

/** The jobs of SCHEDULED_JOBS (each runs once per schedule across all processes): name -> handler. */
export function buildScheduledJobRegistry(
  pipeline: PipelineService,
  callbacks: CallbacksService,
  report: ScheduledJobReport,
): Record<ScheduledJobName, JobDefinition> {
  const registry: Record<ScheduledJobName, JobDefinition> = {
    'expire-stored-files': {
      handler: async () => {
        const deleted = await pipeline.expireStoredFiles()
        if (deleted > 0) report({ deleted }, 'deleted stored files past their retention')
      },
      concurrency: 1,
      retryLimit: 3,
      expireInSeconds: 3600,
    },
    'sweep-callback-deliveries': {
      handler: async () => {
        const requeued = await callbacks.sweepStalledDeliveries()
        if (requeued > 0) report({ requeued }, 'put back callback delivery attempts the job queue had given up on')
      },
      concurrency: 1,
      // The next run, five minutes later, is the retry.
      retryLimit: 0,
      expireInSeconds: 300,
    },
    'expire-callback-history': {
      handler: async () => {
        const deleted = await callbacks.expireCallbackHistory()
        if (deleted.deliveries + deleted.events > 0) {
          report(deleted, 'deleted callback deliveries and events past their retention')
        }
      },
      concurrency: 1,
      retryLimit: 3,
      expireInSeconds: 3600,
    },
  }
  const missing = Object.keys(SCHEDULED_JOBS).filter((name) => !registry[name as ScheduledJobName])
  if (missing.length > 0) throw new Error(`scheduled jobs without a handler: ${missing.join(', ')}`)
  return registry
}
