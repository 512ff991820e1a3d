// The closed list of background jobs and how each runs: handler, concurrency, retries. The jobs an order change
// causes are named, typed and keyed in domain/jobs.ts (the pure transitions ask for them); each handler here
// takes that name's payload, so a payload read here is the payload enqueued there. The scheduled jobs are
// defined here whole. Start-up fails when a job name has no entry (the mapped types make a missing one a type
// error too).
import type { JobDefinition, JobDefinitions, JobQueue } from '../adapters/job-queue.ts'
import { CHANNEL_WEBHOOK_RETENTION_SECONDS } from '../domain/channels.ts'
import { JOB_NAMES } from '../domain/jobs.ts'
import type { CallbacksService } from '../services/callbacks.service.ts'
import type { CardRefundsService } from '../services/card-refunds.service.ts'
import type { ChannelFulfilmentsService } from '../services/channel-fulfilments.service.ts'
import type { ChannelsService } from '../services/channels.service.ts'
import type { ClaimResolutionService } from '../services/claim-resolution.service.ts'
import type { ClaimsService } from '../services/claims.service.ts'
import type { HostedPaymentsService } from '../services/hosted-payments.service.ts'
import type { IdempotencyService } from '../services/idempotency.service.ts'
import type { LabStatementsService } from '../services/lab-statements.service.ts'
import type { LabPushesService } from '../services/labs/lab-pushes.service.ts'
import type { MissingParcelsService } from '../services/missing-parcels.service.ts'
import type { OrderActionsService } from '../services/order-actions.service.ts'
import type { OrderImportsService } from '../services/order-imports.service.ts'
import type { PaymentEventsService } from '../services/payment-events.service.ts'
import type { PipelineService } from '../services/pipeline/index.ts'
import type { SimulatedLabs } from '../services/pipeline/simulated-labs.ts'
import type { PreviewsService } from '../services/previews.service.ts'
import type { PreflightService } from '../services/print-files/preflight.service.ts'
import type { QuotesService } from '../services/quotes.service.ts'
import type { SandboxClaimsService } from '../services/sandbox-claims.service.ts'
import type { SavedCardsService } from '../services/saved-cards.service.ts'

/** Jobs that run on a schedule rather than being caused by an order: name -> cron (UTC). */
export const SCHEDULED_JOBS = {
  /** Daily at 03:17 UTC: deletes kept asset copies past their retention. */
  'expire-stored-files': '17 3 * * *',
  /** Every 5 minutes: puts back callback delivery attempts whose job the queue gave up on (callbacks.md). */
  'sweep-callback-deliveries': '*/5 * * * *',
  /** Daily at 03:37 UTC: deletes finished callback deliveries, their attempts and events past their retention. */
  'expire-callback-history': '37 3 * * *',
  /** Hourly: deletes product previews and mockups past their 24 hours (docs/api.md#previews). */
  'expire-previews': '47 * * * *',
  /** Daily at 03:57 UTC: deletes unused quotes 30 days after they expired (docs/api.md#price-locked-quotes). */
  'expire-quotes': '57 3 * * *',
  /** Hourly: deletes Idempotency-Keys and their stored answers past their 24 hours (docs/api.md#idempotent-requests). */
  'expire-idempotent-requests': '27 * * * *',
  /** Hourly: deletes stand-alone preflights past their 7 days (docs/api.md#preflight). */
  'expire-preflights': '7 * * * *',
  /** Hourly: deletes claim evidence photos no claim used, a day after upload (docs/claims.md#evidence). */
  'expire-claim-evidence': '37 * * * *',
  /** Every 15 minutes: pushes labs reminders of jobs not acknowledged or due to ship (pipeline.md). */
  'remind-labs': '*/15 * * * *',
  /**
   * Hourly: the claims' automatic rules the operator switched on (docs/claims.md#automatic-rules): resolves Pending
   * claims their lab has not disputed as their merchant preferred, and reprints parcels with no Delivered scan days
   * after their estimated delivery; does nothing otherwise.
   */
  'apply-claim-rules': '23 * * * *',
  /**
   * Daily at 04:43 UTC: issues the previous month's payables statement of every lab with settled Live work that has
   * none yet (docs/billing.md#lab-payables-statements); on the 1st that is every such lab, later days catch up.
   */
  'issue-lab-statements': '43 4 * * *',
  /** Daily at 04:13 UTC: deletes storefront webhooks mapped more than 30 days ago (docs/channels.md#webhooks). */
  'expire-channel-webhooks': '13 4 * * *',
  /**
   * Every 5 minutes: puts back storefront fulfilment attempts whose job the queue gave up on
   * (docs/channels.md#fulfilments).
   */
  'sweep-channel-fulfilments': '*/5 * * * *',
  /**
   * Every 5 minutes: asks the card provider about hosted payments still open 10 minutes after they were made (a late
   * or lost webhook) and counts, expires or leaves each; puts back webhook events left unprocessed as long
   * (docs/billing.md#late-or-missing-webhooks-the-sweeper).
   */
  'sweep-provider-payments': '*/5 * * * *',
} as const
export type ScheduledJobName = keyof typeof SCHEDULED_JOBS

/** Every queue: the jobs orders cause, then the scheduled ones. */
export const QUEUE_NAMES: readonly string[] = [...JOB_NAMES, ...Object.keys(SCHEDULED_JOBS)]

/** What a scheduled job did, for the log (only when it did something). */
export type ScheduledJobReport = (fields: Record<string, number>, message: string) => void

export interface JobServices {
  pipeline: PipelineService
  callbacks: CallbacksService
  simulatedLabs: SimulatedLabs
  previews: PreviewsService
  quotes: Pick<QuotesService, 'expireQuotes'>
  labPushes: Pick<LabPushesService, 'remind'>
  idempotency: Pick<IdempotencyService, 'expireIdempotentRequests'>
  preflight: Pick<PreflightService, 'runPreflight' | 'expirePreflights'>
  labStatements: Pick<LabStatementsService, 'issueForPreviousMonth'>
  claims: Pick<ClaimsService, 'expireEvidence'>
  claimResolution: Pick<ClaimResolutionService, 'applyUndisputedRule'>
  missingParcels: Pick<MissingParcelsService, 'applyMissingParcelRule'>
  sandboxClaims: Pick<SandboxClaimsService, 'decideByScenario'>
  channels: Pick<ChannelsService, 'mapWebhook' | 'expireWebhooks' | 'subscribeWebhooks'>
  channelFulfilments: Pick<ChannelFulfilmentsService, 'deliver' | 'sweepStalled'>
  orderActions: Pick<OrderActionsService, 'expireDraft'>
  orderImports: Pick<OrderImportsService, 'runImport'>
  savedCards: Pick<SavedCardsService, 'chargeHeldOrder'>
  cardRefunds: Pick<CardRefundsService, 'runRefund'>
  hostedPayments: Pick<HostedPaymentsService, 'sweep'>
  /** The card provider's webhook events; null without a payment gateway (its jobs then find nothing to do). */
  paymentEvents: Pick<PaymentEventsService, 'process'> | null
}

export function buildJobRegistry(services: JobServices, options: { renderConcurrency: number }): JobDefinitions {
  const { pipeline, callbacks, simulatedLabs } = services
  const registry: JobDefinitions = {
    'start-order': {
      handler: ({ orderId, traceId }) => pipeline.startOrder(orderId, traceId),
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'download-file': {
      // Download failures are the pipeline's own retries (10 attempts, issues); pg-boss retries only
      // crashes and unexpected errors.
      handler: ({ orderId, fileKey, attempt, replacement }) =>
        pipeline.downloadFile(orderId, fileKey, attempt, replacement),
      concurrency: 4,
      retryLimit: 5,
      expireInSeconds: 600,
    },
    'allocate-order': {
      handler: ({ orderId, round, wait }) => pipeline.allocateOrder(orderId, round, wait ?? 0),
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'render-print-file': {
      handler: ({ orderId, shipmentId, assetId }) => pipeline.renderPrintFile(orderId, shipmentId, assetId),
      concurrency: options.renderConcurrency,
      retryLimit: 5,
      expireInSeconds: 900,
    },
    'submit-shipment': {
      handler: ({ orderId, shipmentId }) => pipeline.submitShipment(orderId, shipmentId),
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'simulated-lab-step': {
      handler: ({ orderId, shipmentId, step }) => simulatedLabs.runStep(pipeline, orderId, shipmentId, step),
      concurrency: 4,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'simulated-claim-decision': {
      // A claim decided or retracted meanwhile is left as it is, so a re-run does nothing.
      handler: async ({ claimId }) => {
        await services.sandboxClaims.decideByScenario(claimId)
      },
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'deliver-callback': {
      // A failed attempt (no 2xx) is the delivery's own retry schedule, recorded with the delivery; pg-boss
      // retries only crashes and unexpected errors, and a re-run of an attempt already recorded does nothing.
      handler: ({ deliveryId, attempt }) => callbacks.deliver(deliveryId, attempt),
      concurrency: 8,
      retryLimit: 10,
      // The POST has 15 s; the rest is the two short database steps around it.
      expireInSeconds: 60,
    },
    'run-preflight': {
      // The inspector bounds its own time and memory (adapters/file-inspector.ts); a crash or an engine error is
      // retried, and a re-run inspects again.
      handler: ({ preflightId }) => services.preflight.runPreflight(preflightId),
      concurrency: 2,
      retryLimit: 3,
      expireInSeconds: 300,
    },
    'map-channel-webhook': {
      // A re-run of a webhook already mapped does nothing; orders are created idempotently by the store order.
      handler: ({ webhookId }) => services.channels.mapWebhook(webhookId),
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 120,
    },
    'fulfil-channel-shipment': {
      // A failed attempt is the outbox's own retry schedule, recorded with the fulfilment; pg-boss retries only
      // crashes, and a re-run of an attempt already recorded does nothing.
      handler: ({ fulfilmentId, attempt }) => services.channelFulfilments.deliver(fulfilmentId, attempt),
      concurrency: 4,
      retryLimit: 10,
      expireInSeconds: 120,
    },
    'subscribe-channel-webhooks': {
      // A store's failure is the run's own outcome (failed, with its reason; a passing one queues the run's own
      // retry on its schedule); pg-boss retries only crashes and database errors, and a run replaced by a newer one,
      // or a retry already made, does nothing. Three Admin API calls of at most 15 s each, at most four.
      handler: ({ channelId, attempt, retry }) => services.channels.subscribeWebhooks(channelId, attempt, retry ?? 0),
      concurrency: 2,
      retryLimit: 5,
      expireInSeconds: 120,
    },
    'expire-draft': {
      // Under the order's lock: a draft confirmed or cancelled meanwhile is left alone, and a re-run does nothing.
      handler: ({ orderId }) => services.orderActions.expireDraft(orderId),
      concurrency: 1,
      retryLimit: 10,
      expireInSeconds: 60,
    },
    'run-order-import': {
      // One import at a time per process: its orders' creates are what it waits on. A run that dies (a crash, the
      // job's expiry) is run again by the queue and continues after the rows it recorded; an order created before
      // the crash is answered by its idempotency key, never created twice.
      handler: ({ importId }) => services.orderImports.runImport(importId),
      concurrency: 1,
      retryLimit: 5,
      expireInSeconds: 3600,
    },
    'charge-saved-card': {
      // The provider's 429, 5xx or timeout throws and is retried with the payment's own idempotency key, so a
      // retry (or a run after a crash) finds the first attempt at the provider; the answer is recorded only while
      // the payment is still open, so it is counted once.
      handler: ({ providerPaymentId }) => services.savedCards.chargeHeldOrder(providerPaymentId),
      concurrency: 2,
      retryLimit: 10,
      // The provider's own limit is 20 s per request, retried twice by its library.
      expireInSeconds: 120,
    },
    'refund-card-payment': {
      // A 429, 5xx or timeout throws and is retried with backoff, with the refund's own idempotency key: a refund the
      // provider made whose answer was lost is answered again, never made twice. A re-run of a refund already
      // answered does nothing.
      handler: ({ refundId }) => services.cardRefunds.runRefund(refundId),
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 120,
    },
    'process-payment-event': {
      // A handler that throws leaves the event unprocessed: retried here, then put back by the sweeper. Money is
      // counted once whatever runs it (each payment's conditional move from open).
      handler: async ({ provider, eventId }) => {
        await services.paymentEvents?.process(provider, eventId)
      },
      concurrency: 2,
      retryLimit: 10,
      expireInSeconds: 120,
    },
  }
  const missing = JOB_NAMES.filter((name) => !registry[name])
  if (missing.length > 0) throw new Error(`jobs without a handler: ${missing.join(', ')}`)
  return registry
}

/** The card provider's sweeper (docs/billing.md#late-or-missing-webhooks-the-sweeper): every row still open. */
function providerPaymentsSweep(
  services: JobServices,
  report: ScheduledJobReport,
): JobDefinition<Record<string, never>> {
  return {
    handler: async () => {
      const swept = await services.hostedPayments.sweep()
      if (swept.counted + swept.expired + swept.requeued + swept.refundsSettled + swept.failed > 0) {
        report(
          swept,
          'swept card payments still open: counted or ended, expired, jobs put back, pending refunds settled, provider errors',
        )
      }
    },
    concurrency: 1,
    // The next run, five minutes later, is the retry; a provider that failed is asked again then.
    retryLimit: 0,
    expireInSeconds: 300,
  }
}

/** The jobs of SCHEDULED_JOBS (each runs once per schedule across all processes): name -> handler. */
export function buildScheduledJobRegistry(
  services: JobServices,
  report: ScheduledJobReport,
): Record<ScheduledJobName, JobDefinition<Record<string, never>>> {
  const { pipeline, callbacks, previews, quotes, labPushes, idempotency, preflight, labStatements, claims } = services
  const { claimResolution } = services
  const registry: Record<ScheduledJobName, JobDefinition<Record<string, never>>> = {
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
    'expire-previews': {
      handler: async () => {
        const deleted = await previews.expirePreviews()
        if (deleted > 0) report({ deleted }, 'deleted product previews and mockups past their 24 hours')
      },
      concurrency: 1,
      // The next run, an hour later, is the retry.
      retryLimit: 0,
      expireInSeconds: 600,
    },
    'expire-quotes': {
      handler: async () => {
        const deleted = await quotes.expireQuotes()
        if (deleted > 0) report({ deleted }, 'deleted unused quotes 30 days past their expiry')
      },
      concurrency: 1,
      retryLimit: 3,
      expireInSeconds: 600,
    },
    'expire-idempotent-requests': {
      handler: async () => {
        const deleted = await idempotency.expireIdempotentRequests()
        if (deleted > 0) report({ deleted }, 'deleted idempotency keys past their 24 hours')
      },
      concurrency: 1,
      // The next run, an hour later, is the retry.
      retryLimit: 0,
      expireInSeconds: 600,
    },
    'expire-preflights': {
      handler: async () => {
        const deleted = await preflight.expirePreflights()
        if (deleted > 0) report({ deleted }, 'deleted preflights past their 7 days')
      },
      concurrency: 1,
      // The next run, an hour later, is the retry.
      retryLimit: 0,
      expireInSeconds: 600,
    },
    'expire-claim-evidence': {
      handler: async () => {
        const deleted = await claims.expireEvidence()
        if (deleted > 0) report({ deleted }, 'deleted claim evidence no claim used, past its day')
      },
      concurrency: 1,
      // The next run, an hour later, is the retry.
      retryLimit: 0,
      expireInSeconds: 600,
    },
    'apply-claim-rules': {
      handler: async () => {
        const resolved = await claimResolution.applyUndisputedRule()
        if (resolved > 0)
          report({ resolved }, 'resolved claims their labs did not dispute, as their merchants preferred')
        const reprinted = await services.missingParcels.applyMissingParcelRule()
        if (reprinted > 0)
          report({ reprinted }, 'reprinted parcels with no Delivered scan past their estimated delivery')
      },
      concurrency: 1,
      // The next run, an hour later, is the retry; a resolved claim is never resolved again, and a parcel the
      // missing-parcel rule claimed for is never claimed for again.
      retryLimit: 0,
      expireInSeconds: 600,
    },
    'remind-labs': {
      handler: async () => {
        const reminded = await labPushes.remind()
        if (reminded > 0) report({ reminded }, 'pushed labs reminders of their jobs')
      },
      concurrency: 1,
      // The next run, 15 minutes later, is the retry; a reminder already pushed today is not pushed again.
      retryLimit: 0,
      expireInSeconds: 600,
    },
    'issue-lab-statements': {
      handler: async () => {
        const issued = await labStatements.issueForPreviousMonth()
        if (issued > 0) report({ issued }, "issued the labs' payables statements of the previous month")
      },
      concurrency: 1,
      // One statement per lab and month whatever runs it: a retry, or tomorrow's run, issues only what is missing.
      retryLimit: 3,
      expireInSeconds: 3600,
    },
    'expire-channel-webhooks': {
      handler: async () => {
        const deleted = await services.channels.expireWebhooks(
          new Date(Date.now() - CHANNEL_WEBHOOK_RETENTION_SECONDS * 1000),
        )
        if (deleted > 0) report({ deleted }, 'deleted storefront webhooks past their retention')
      },
      concurrency: 1,
      retryLimit: 3,
      expireInSeconds: 600,
    },
    'sweep-channel-fulfilments': {
      handler: async () => {
        const requeued = await services.channelFulfilments.sweepStalled()
        if (requeued > 0) report({ requeued }, 'put back storefront fulfilment attempts the job queue had given up on')
      },
      concurrency: 1,
      // The next run, five minutes later, is the retry; an attempt already recorded is never made again.
      retryLimit: 0,
      expireInSeconds: 300,
    },
    'sweep-provider-payments': providerPaymentsSweep(services, report),
  }
  const missing = Object.keys(SCHEDULED_JOBS).filter((name) => !registry[name as ScheduledJobName])
  if (missing.length > 0) throw new Error(`scheduled jobs without a handler: ${missing.join(', ')}`)
  return registry
}

/** Works every job of the registry in this process and registers the scheduled ones. */
export async function startJobWorkers(
  queue: JobQueue,
  services: JobServices,
  options: { renderConcurrency: number; checkIntervalSeconds: number; report: ScheduledJobReport },
): Promise<void> {
  await queue.work(buildJobRegistry(services, options), { checkIntervalSeconds: options.checkIntervalSeconds })
  const scheduled = buildScheduledJobRegistry(services, options.report)
  for (const name of Object.keys(SCHEDULED_JOBS) as ScheduledJobName[]) {
    await queue.schedule(name, SCHEDULED_JOBS[name], scheduled[name])
  }
}
