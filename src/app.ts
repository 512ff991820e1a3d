// Composition root: opens the database, loads the catalogue, builds the adapters, services, job workers and
// the two HTTP servers (Live and Sandbox). No business logic lives here.
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import { type BlobStore, createFileSystemBlobStore } from './adapters/blob-store.ts'
import { createCallbackPoster } from './adapters/callback-poster.ts'
import { type Clock, systemClock } from './adapters/clock.ts'
import { renderCommercialInvoicePdf } from './adapters/commercial-invoice-pdf.ts'
import { type DataDirLock, lockDataDir } from './adapters/data-dir-lock.ts'
import { type Database, PgliteDatabase, PostgresDatabase } from './adapters/database.ts'
import { createDatabaseOutageLog } from './adapters/database-outage-log.ts'
import { createImageRenderer } from './adapters/image-renderer.ts'
import { renderInvoicePdf, renderStatementPdf } from './adapters/invoice-pdf.ts'
import { type JobQueue, openJobQueue } from './adapters/job-queue.ts'
import { createMetrics } from './adapters/metrics.ts'
import { migrate } from './adapters/migrator.ts'
import { renderMockup } from './adapters/mockup-renderer.ts'
import { renderPackingSlipPdf } from './adapters/packing-slip-pdf.ts'
import { createSimulatedPaymentProvider, type PaymentProvider } from './adapters/payment-provider.ts'
import { checkPdf } from './adapters/pdf-check.ts'
import { createDatabaseRateLimitCounters } from './adapters/rate-limit-counters.ts'
import { createSafeFetcher } from './adapters/safe-fetcher.ts'
import { loadSampleImages, type SampleImages, unknownSampleUrl, withSampleImages } from './adapters/sample-images.ts'
import { sha256File, withScratchFile } from './adapters/scratch-files.ts'
import { checkCatalogueText, readCatalogueFile, readSampleCatalogueText } from './catalogue/catalogue.loader.ts'
import type { DatabaseSettings } from './config.ts'
import type { AdminAccounts } from './dashboard/admin/accounts.pages.ts'
import { registerAdminConsole } from './dashboard/admin/admin.plugin.ts'
import { ADMIN_PATH } from './dashboard/admin/admin-context.ts'
import { registerAuditPages } from './dashboard/admin/audit.pages.ts'
import { registerCallbacksPages } from './dashboard/admin/callbacks.pages.ts'
import type { AdminCatalogue, AdminCatalogueRefusal } from './dashboard/admin/catalogue.pages.ts'
import { registerCataloguePages } from './dashboard/admin/catalogue.pages.ts'
import type { AdminInvoices } from './dashboard/admin/invoices.pages.ts'
import { registerInvoicesPages } from './dashboard/admin/invoices.pages.ts'
import { registerLabsPages } from './dashboard/admin/labs.pages.ts'
import { registerOrdersPages } from './dashboard/admin/orders.pages.ts'
import { dashboardPageViewOfThisCall } from './dashboard/api-client.ts'
import { registerDashboard } from './dashboard/dashboard.plugin.ts'
import { registerLabPortal } from './dashboard/lab-portal/lab-portal.plugin.ts'
import type { Catalogue } from './domain/catalogue.ts'
import { databaseUnavailableReason } from './domain/database-unavailable.ts'
import type { Environment } from './domain/environment.ts'
import { formatId, parseId } from './domain/ids.ts'
import { invoicePdfKey, parseStatementMonth, statementCsv } from './domain/invoices.ts'
import { formatMinorAsAmount, parseAmountToMinor } from './domain/money.ts'
import { type AllocationRequest, allocateOrderItems } from './domain/order-allocation.ts'
import { DEFAULT_EVENT_VENDOR } from './domain/order-events.ts'
import { ServiceError } from './domain/outcomes.ts'
import { DEFAULT_RATE_LIMIT_TEXT, parseRateLimit, type RateLimit } from './domain/rate-limit.ts'
import { createFileLinks, DEFAULT_FILE_LINK_TTL_SECONDS, type FileLinks } from './domain/signed-urls.ts'
import { newSigningSecret as newCallbackSigningSecret } from './domain/webhook-signature.ts'
import { buildAdminServer } from './http/admin-server.ts'
import type { BoundServer } from './http/bound-server.ts'
import { buildMetricsServer } from './http/metrics-server.ts'
import type { RateLimits } from './http/rate-limit.ts'
import type { MetricsEndpoint } from './http/routes/operations.routes.ts'
import { PAYMENT_PATH_PREFIX } from './http/routes/payments.routes.ts'
import { type App, buildHttpServer, type ServedDashboard } from './http/server.ts'
import { withRequestTraceId } from './http/trace-context.ts'
import { QUEUE_NAMES, startJobWorkers } from './jobs/registry.ts'
import { getOrCreateSetting } from './repositories/settings.repository.ts'
import {
  type Account,
  AccountError,
  type AccountsService,
  createAccountsService,
  toApiKeyView,
} from './services/accounts.service.ts'
import { createAddressesService } from './services/addresses.service.ts'
import { createAdminViewsService } from './services/admin-views.service.ts'
import { createAuditService } from './services/audit.service.ts'
import { createBillingService } from './services/billing.service.ts'
import { createCallbacksService } from './services/callbacks.service.ts'
import {
  CatalogueVersionError,
  type CatalogueVersionsService,
  createCatalogueVersionsService,
  DEFAULT_CATALOGUE_POLL_SECONDS,
  type StartingCatalogue,
} from './services/catalogue-versions.service.ts'
import { createHealthService } from './services/health.service.ts'
import { createIdempotencyService } from './services/idempotency.service.ts'
import { createInvoicesService, type InvoicesService } from './services/invoices.service.ts'
import { createLabPushesService } from './services/labs/lab-pushes.service.ts'
import { createLabsService } from './services/labs/labs.service.ts'
import { type ServiceLogger, type ServiceMetrics, silentLogger } from './services/observability.ts'
import { createOperatorsService } from './services/operators.service.ts'
import { createOrderActionsService } from './services/order-actions.service.ts'
import { createOrderEventsService } from './services/order-events.service.ts'
import { createOrdersService } from './services/orders.service.ts'
import { createPaymentsService, type PaymentsService } from './services/payments.service.ts'
import { ASSET_RETENTION_DAYS } from './services/pipeline/expire-stored-files.ts'
import { createPipelineService, newSigningSecret } from './services/pipeline/index.ts'
import { createLabRoom } from './services/pipeline/lab-room.ts'
import type { PipelineSettings } from './services/pipeline/ports.ts'
import { createSimulatedLabs } from './services/pipeline/simulated-labs.ts'
import { createPreviewsService } from './services/previews.service.ts'
import { createPrintFilesService } from './services/print-files.service.ts'
import { createProductsService } from './services/products.service.ts'
import { createQuotesService } from './services/quotes.service.ts'
import { createSandboxService } from './services/sandbox.service.ts'
import { createSessionsService } from './services/sessions.service.ts'
import { createSpineService } from './services/spine.service.ts'
import { createWebhookRecoveryService } from './services/webhook-recovery.service.ts'
import { createWebhooksService } from './services/webhooks.service.ts'

/**
 * What a first start on the embedded database takes, as told while it runs: initdb (in a child process) and the
 * migrations, 8 s on a quiet 2-core machine and 20 s or more on a loaded one (docs/operations.md).
 */
const FIRST_START_SECONDS_TEXT = '20 s'

export interface OpenedDatabase {
  db: Database
  close(): Promise<void>
}

/**
 * Opens the configured database (locking the data directory for PGlite) and applies pending migrations
 * (unless told not to: `printroute migrate` applies them itself to report what it applied).
 */
export async function openDatabase(
  settings: DatabaseSettings,
  options: {
    migrate?: boolean
    /**
     * Told what a first start is doing while it creates the embedded database (tens of seconds with nothing
     * else to say): one line before, one when the database is ready.
     */
    log?: { info(message: string): void }
  } = {},
): Promise<OpenedDatabase> {
  const migrating = options.migrate ?? true
  if (settings.databaseUrl) {
    const db = await PostgresDatabase.open(settings.databaseUrl)
    if (migrating) await migrate(db)
    return { db, close: () => db.close() }
  }
  const lock: DataDirLock = lockDataDir(settings.dataDir)
  try {
    let creatingSince = null as number | null
    const db = await PgliteDatabase.open(join(settings.dataDir, 'pgdata'), {
      onCreate() {
        creatingSince = performance.now()
        options.log?.info(
          `Creating the database in ${settings.dataDir} (first start, about ${FIRST_START_SECONDS_TEXT})...`,
        )
      },
    })
    if (migrating) await migrate(db)
    if (creatingSince !== null) {
      const seconds = ((performance.now() - creatingSince) / 1000).toFixed(1)
      options.log?.info(`Database created in ${seconds} s`)
    }
    return {
      db,
      async close() {
        await db.close()
        lock.release()
      },
    }
  } catch (error) {
    lock.release()
    throw error
  }
}

/**
 * How often the due-job check runs (see ApplicationOptions.jobPollingSeconds): on PostgreSQL it finds the jobs
 * other processes enqueued to be due later; on PGlite it is a backstop.
 */
const POSTGRES_JOB_CHECK_SECONDS = 2
const PGLITE_JOB_CHECK_SECONDS = 30

/** How long a merchant's cancel waits for labs' answers by default (`--lab-cancel-wait`). */
const DEFAULT_LAB_CANCEL_WAIT_SECONDS = 10

export const DEFAULT_PIPELINE_SETTINGS: PipelineSettings = {
  downloadRetryBaseSeconds: 30,
  simulatedLabStepSeconds: 2,
  simulateLiveLabs: false,
  simulatedUnavailableSkus: [],
  assetRetentionDays: ASSET_RETENTION_DAYS,
  simulatedRejectRate: 0,
  labRoomRetrySeconds: 300,
}

export interface ApplicationOptions {
  db: Database
  /** The PostgreSQL server's URL for pg-boss's own pool; null with PGlite. */
  databaseUrl: string | null
  /** Schema of the job tables (tests isolate themselves with their own). */
  jobSchema?: string
  /**
   * A catalogue to serve (`--catalogue FILE`, tests): stored as a version when its text is new, and activated
   * when the active version's text differs (docs/catalogue.md#versions). Absent: the active version, or the
   * bundled sample as version 1 of an empty database.
   */
  catalogue?: Catalogue
  /** The text `catalogue` was read from (`--catalogue FILE`), stored as it is; else `catalogue.fileText()`. */
  catalogueText?: string
  /** How often this process looks for a newly activated catalogue version; 2 s by default. */
  cataloguePollSeconds?: number
  clock?: Clock
  logger: FastifyBaseLogger | boolean
  requestTimeoutMs?: number
  /** Where downloaded assets, thumbnails and print files are kept. */
  filesDir: string
  /** An S3-compatible bucket instead (`s3://bucket/prefix?endpoint=...`), for several machines. */
  blobStoreUrl?: string | null
  /** Run the background jobs in this process. */
  workers: boolean
  /** Whether this process answers API requests (false for `printroute worker`); true by default. */
  answersRequests?: boolean
  /**
   * How often the job queue looks for due jobs that no wake-up announced (JobQueue.work): by default every
   * 2 s on PostgreSQL (other processes enqueue too) and every 30 s on PGlite (one process: its own enqueues
   * wake the workers; the check is a backstop).
   */
  jobPollingSeconds?: number
  pipeline?: Partial<PipelineSettings>
  allowPrivateUrls?: boolean
  /** Largest asset download accepted, in bytes (the fetcher's default when absent). */
  maxDownloadBytes?: number
  /** Base URLs the files printroute serves are reachable at, per environment. */
  publicUrls?: Partial<Record<Environment, string>>
  renderConcurrency?: number
  /**
   * Requests allowed per API key (docs/api.md#rate-limits): the default of `--rate-limit` when absent, none when
   * null. Counted in the database on PostgreSQL (several processes share the limit), in memory on PGlite.
   */
  rateLimit?: RateLimit | null
  /** Count the rate limits in this process's memory even on PostgreSQL (benchmarks compare the two). */
  rateLimitInMemory?: boolean
  /** Takes the card payments of the payment page; the bundled simulated provider when absent. */
  paymentProvider?: PaymentProvider
  /** `<vendor>` in callback event types (`com.<vendor>.order...`); default `printroute`. */
  eventVendor?: string
  /** Delays of the callback delivery attempts (tests shorten them); the documented schedule by default. */
  callbackRetryScheduleSeconds?: readonly number[]
  /** Ports bound before the application was built (`serve`); they answer once it is ready. */
  servers?: Partial<Record<Environment | 'metrics' | 'admin', BoundServer>>
  /** How long finished callback deliveries, their attempts and unneeded events are kept; 30 days by default. */
  callbackRetentionSeconds?: number
  /**
   * How long a `/files/...` link works from the moment it is sent (in an order, a callback, a lab job);
   * 7 days by default (docs/assets.md, "File links").
   */
  fileLinkTtlSeconds?: number
  /** How long a quote's prices hold (its `expiresAt`); 7 days by default (docs/api.md#price-locked-quotes). */
  quoteLifetimeSeconds?: number
  /**
   * GET /metrics: on the Live server by default; with `port`, on `metricsServer` instead (the caller listens on
   * it). With `token`, scrapes must send `Authorization: Bearer <token>`.
   */
  metrics?: { port?: number | null; token?: string | null }
  /**
   * Serve the operator console (/admin/) on a server of its own (`--admin-port`) instead of on the Live server:
   * `adminServer` is then built, not listening (or on `servers.admin`).
   */
  adminOwnServer?: boolean
  /**
   * How long a merchant's cancel waits for the answers of labs asked to cancel shipments they hold; 10 s by default,
   * 0: it answers at once (docs/api.md#order-actions).
   */
  labCancelWaitSeconds?: number
  /** How long each readiness check (GET /readyz) may take; 2 s by default. */
  readinessTimeoutMs?: number
}

export interface Application {
  services: ReturnType<typeof buildServices> & { catalogueVersions: CatalogueVersionsService }
  live: App
  sandbox: App
  jobs: JobQueue
  /** The metrics server when `metrics.port` is set, built but not listening; null otherwise. */
  metricsServer: App | null
  /** The console's own server when `adminOwnServer` is set, built but not listening; null otherwise. */
  adminServer: App | null
  /** Sets the base URL of an environment once its server listens (when none was configured). */
  setPublicUrl(environment: Environment, url: string): void
  /** The base URL an environment's links and sample images use. */
  publicUrl(environment: Environment): string
  close(): Promise<void>
}

function buildServices(
  options: ApplicationOptions,
  deps: {
    catalogue: Catalogue
    catalogueVersions: CatalogueVersionsService
    clock: Clock
    jobs: JobQueue
    files: BlobStore
    fileLinks: FileLinks
    publicUrls: Record<Environment, string>
    samples: SampleImages
    log: ServiceLogger
    metrics: ServiceMetrics
  },
) {
  const { db } = options
  const { catalogue, clock, jobs, files, fileLinks, log, metrics } = deps
  const renderConcurrency = options.renderConcurrency ?? 2
  const renderer = createImageRenderer({ concurrency: renderConcurrency })
  const allocate = (request: AllocationRequest) => allocateOrderItems(catalogue, request)
  const invoices = createInvoicesService({
    db,
    clock,
    taxRateOf: (countryCode) => catalogue.taxRate(countryCode),
    instanceName: () => deps.publicUrls.live,
    pdfLink: (environment, number) => deps.fileLinks.url(environment, invoicePdfKey(number)),
    renderInvoicePdf,
    renderStatementPdf,
  })
  const billing = createBillingService({
    invoices,
    clock,
    paymentPageUrl: (orderId, token) =>
      `${deps.publicUrls.live}${PAYMENT_PATH_PREFIX}${orderId}?token=${encodeURIComponent(token)}`,
    sandboxAuthorisationUrl: (orderId) => `${deps.publicUrls.sandbox}/dashboard/orders/${orderId}`,
  })
  const callbackPoster = createCallbackPoster({ allowPrivateAddresses: options.allowPrivateUrls ?? false })
  const labPushes = createLabPushesService({
    db,
    clock,
    jobs,
    catalogue,
    fileTokens: { url: (environment, key) => fileLinks.token(environment, key) },
    vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
    source: () => `${deps.publicUrls.live}/labs/v1/jobs`,
    newSigningSecret: newCallbackSigningSecret,
    log,
  })
  const events = createOrderEventsService({
    clock,
    jobs,
    vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
    sourceOf: (environment, orderId) => `${deps.publicUrls[environment]}/v4.0/orders/${orderId}`,
    labEvents: labPushes,
  })
  const webhookRecovery = createWebhookRecoveryService({
    db,
    clock,
    jobs,
    vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
    eventSource: (environment, webhookId) => `${deps.publicUrls[environment]}/v4.0/webhooks/${webhookId}`,
    log,
  })
  const callbacks = createCallbacksService({
    db,
    clock,
    jobs,
    fileLinks,
    post: callbackPoster.post,
    newSigningSecret: newCallbackSigningSecret,
    vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
    testEventSource: (environment) => `${deps.publicUrls[environment]}/v4.0/callbacks/test`,
    ...(options.callbackRetryScheduleSeconds ? { retryScheduleSeconds: options.callbackRetryScheduleSeconds } : {}),
    ...(options.callbackRetentionSeconds ? { retentionSeconds: options.callbackRetentionSeconds } : {}),
    log,
    metrics,
    webhookAttempts: webhookRecovery,
  })
  // printroute's own sample URLs come from the bundled files; every other URL from the network. Orders and
  // previews download through the same fetcher: the same address rules and size limit.
  const fetcher = withSampleImages(
    createSafeFetcher({
      allowPrivateAddresses: options.allowPrivateUrls ?? false,
      ...(options.maxDownloadBytes ? { maxBytes: options.maxDownloadBytes } : {}),
    }),
    deps.samples,
    () => Object.values(deps.publicUrls),
  )
  // A URL under printroute's own /samples/ naming no sample is refused at the request (docs/assets.md).
  const unknownSampleUrlOf = (url: string) => unknownSampleUrl(url, deps.samples, Object.values(deps.publicUrls))
  const pipelineSettings = { ...DEFAULT_PIPELINE_SETTINGS, ...options.pipeline }
  const simulatedLabs = createSimulatedLabs({ clock, settings: pipelineSettings })
  const pipeline = createPipelineService({
    events,
    db,
    jobs,
    clock,
    catalogue,
    catalogueOf: (version) => deps.catalogueVersions.catalogueOf(version),
    billing,
    fetcher,
    files,
    withScratchFile,
    renderer,
    checkPdf: async (input, pageCount) => checkPdf(input, pageCount),
    renderPackingSlip: renderPackingSlipPdf,
    allocate,
    fileLinks,
    settings: pipelineSettings,
    simulatedLabs,
    log,
    metrics,
  })
  const services = {
    accounts: createAccountsService({ db, clock, isKnownCurrency: (code) => catalogue.isKnownCurrency(code) }),
    audit: createAuditService({ db }),
    orders: createOrdersService({
      db,
      catalogue,
      clock,
      jobs,
      fileLinks,
      log,
      metrics,
      unknownSampleUrl: unknownSampleUrlOf,
    }),
    orderActions: createOrderActionsService({
      db,
      catalogue,
      clock,
      jobs,
      billing,
      allocate,
      labRoom: createLabRoom({ clock, catalogue }),
      events,
      fileLinks,
      log,
      labCancellation: {
        // Real labs are asked; simulated ones (Sandbox, Live in a demo) are not (docs/sandbox.md).
        asksLabs: (environment) => environment === 'live' && !pipelineSettings.simulateLiveLabs,
        waitSeconds: options.labCancelWaitSeconds ?? DEFAULT_LAB_CANCEL_WAIT_SECONDS,
      },
    }),
    printFiles: createPrintFilesService({ db, catalogue, fileLinks }),
    invoices,
    previews: createPreviewsService({
      db,
      clock,
      catalogue,
      fetcher,
      files,
      withScratchFile,
      sha256File,
      // A renderer of their own, one image at a time: previews answer requests, and a burst of them must
      // neither take every core nor hold up the print files of orders (docs/api.md#previews).
      renderer: createImageRenderer({ concurrency: 1 }),
      drawMockup: renderMockup,
      fileLinks,
      log,
      unknownSampleUrl: unknownSampleUrlOf,
    }),
    payments: createPaymentsService({
      db,
      clock,
      jobs,
      billing,
      events,
      provider: options.paymentProvider ?? createSimulatedPaymentProvider({ now: () => clock.now() }),
      log,
    }),
    products: createProductsService({ catalogue }),
    quotes: createQuotesService({
      catalogue,
      db,
      clock,
      ...(options.quoteLifetimeSeconds ? { lifetimeSeconds: options.quoteLifetimeSeconds } : {}),
    }),
    sessions: createSessionsService({ db, clock }),
    idempotency: createIdempotencyService({ db, clock }),
    operators: createOperatorsService({ db, clock }),
    spine: createSpineService({ catalogue }),
    addresses: createAddressesService({ catalogue }),
    pipeline,
    simulatedLabs,
    labs: createLabsService({
      db,
      clock,
      catalogue,
      pipeline,
      commercialInvoices: { links: fileLinks, render: renderCommercialInvoicePdf },
      log,
    }),
    labPushes,
    sandbox: createSandboxService({ db, jobs, events, pipeline, simulatedLabs, billing, now: () => clock.now() }),
    callbacks,
    webhooks: createWebhooksService({
      db,
      clock,
      vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
      newSigningSecret: newCallbackSigningSecret,
      callbacks,
    }),
    webhookRecovery,
    closeCallbackFetcher: callbackPoster.close,
    files,
    fileLinks,
    renderConcurrency,
  }
  // The operator console's orders, labs and callbacks pages read through these (dashboard/admin/*.pages.ts).
  const adminViews = createAdminViewsService({ db, clock, catalogue, ...services })
  return { ...services, adminViews }
}

/**
 * The console's invoices section's dependencies (dashboard/admin/invoices.pages.ts), from the invoices service:
 * for `registerInvoicesPages` when the console is registered.
 */
export function adminInvoicesOf(invoices: InvoicesService): AdminInvoices {
  return {
    list: (filter, limit) => {
      const range = filter.month ? parseStatementMonth(filter.month) : undefined
      return invoices.list({
        ...(filter.accountId !== undefined ? { accountId: filter.accountId } : {}),
        ...(filter.environment ? { environment: filter.environment } : {}),
        ...(range ? { from: range.from, to: range.to } : {}),
        limit,
      })
    },
    invoicePdf: async (number) => (await invoices.pdfOf(number))?.pdf,
    async statement(accountId, environment, month, format) {
      const made = await invoices.statement(accountId, environment, month).catch((error: unknown) => {
        if (error instanceof ServiceError && error.outcome === 'EntityNotFound') return undefined
        throw error
      })
      if (!made) return undefined
      const fileName = `statement-acc_${accountId}-${month}${environment === 'sandbox' ? '-sandbox' : ''}.${format}`
      return format === 'csv'
        ? { fileName, contentType: 'text/csv', body: statementCsv(made) }
        : { fileName, contentType: 'application/pdf', body: await invoices.statementPdf(made) }
    },
  }
}

/** What start-up serves when the database has no active version, or, when explicit, in any case. */
function startingCatalogue(options: ApplicationOptions): StartingCatalogue {
  if (options.catalogue) {
    return {
      text: options.catalogueText ?? options.catalogue.fileText(),
      sourceName: options.catalogue.sourceName,
      catalogue: options.catalogue,
      explicit: true,
    }
  }
  return { ...readCatalogueFile(), explicit: false }
}

export async function buildApplication(options: ApplicationOptions): Promise<Application> {
  const clock = options.clock ?? systemClock
  // Services log through a logger that adds the trace id of the request being handled, if any.
  const log = withRequestTraceId(typeof options.logger === 'object' ? options.logger : silentLogger)
  // The catalogue is data (docs/catalogue.md#versions): the active version, switched to a newly activated one
  // by the watcher below. Services hold the live catalogue, which always hands them the version served.
  const catalogueVersions = createCatalogueVersionsService({
    db: options.db,
    clock,
    parse: checkCatalogueText,
    log,
    sample: readSampleCatalogueText,
  })
  const liveCatalogue = await catalogueVersions.start(startingCatalogue(options), { kind: 'system' })
  const catalogue = liveCatalogue.catalogue
  // While the database is away, one line says so and what this process does meanwhile, instead of one per
  // failed query, fetch and heartbeat (adapters/database-outage-log.ts).
  const answersRequests = options.answersRequests ?? true
  const outage = createDatabaseOutageLog(typeof options.logger === 'object' ? options.logger : silentLogger, {
    consequence: answersRequests
      ? options.workers
        ? 'requests answer 503 and jobs wait until it is back'
        : 'requests answer 503 until it is back'
      : 'jobs wait until it is back',
    probe: async () => {
      await options.db.query('SELECT 1')
    },
  })
  if (options.db instanceof PostgresDatabase) options.db.watchConnections(outage)
  const logError = (error: Error) => {
    const reason = databaseUnavailableReason(error)
    if (reason) outage.failed(reason)
    else log.error({ err: error }, 'background job error')
  }
  const jobs = await openJobQueue({
    db: options.db,
    connectionString: options.databaseUrl,
    schema: options.jobSchema ?? 'pgboss',
    queues: QUEUE_NAMES,
    runsWorkers: options.workers,
    onError: logError,
  })
  const signingSecret = await getOrCreateSetting(options.db, 'file-signing-secret', newSigningSecret())
  const publicUrls: Record<Environment, string> = {
    live: options.publicUrls?.live ?? 'http://127.0.0.1:8080',
    sandbox: options.publicUrls?.sandbox ?? 'http://127.0.0.1:8081',
  }
  // Stored files: the data directory, or an S3-compatible bucket checked now rather than at the first upload.
  // The S3 client (the AWS SDK) is loaded only when a bucket is configured.
  const s3 = options.blobStoreUrl
    ? await import('./adapters/s3-blob-store.ts').then(({ createS3BlobStore, parseS3Url }) =>
        createS3BlobStore(parseS3Url(options.blobStoreUrl as string)),
      )
    : null
  if (s3) await s3.checkAccess()
  const files: BlobStore = s3 ?? createFileSystemBlobStore(options.filesDir)
  const fileLinks = createFileLinks({
    secret: signingSecret,
    baseUrl: (environment) => publicUrls[environment],
    now: () => clock.now(),
    ttlSeconds: options.fileLinkTtlSeconds ?? DEFAULT_FILE_LINK_TTL_SECONDS,
  })
  const samples = loadSampleImages()
  const metrics = createMetrics({
    countJobs: () => jobs.countJobs(),
    jobNames: QUEUE_NAMES,
    onError: (error) => log.warn({ err: error }, 'reading the job queue depth for the metrics failed'),
    catalogueVersion: () => liveCatalogue.version,
  })
  const health = createHealthService({
    checks: {
      database: async () => {
        await options.db.query('SELECT 1')
      },
      jobQueue: () => jobs.checkReachable(),
      // A small object written and removed: proves the store takes writes (disk full, read-only, credentials).
      blobStore: async () => {
        const key = `readiness/probe-${process.pid}-${randomBytes(6).toString('hex')}`
        await files.put(key, Buffer.from('printroute readiness probe\n'), 'text/plain')
        await files.delete(key)
      },
    },
    ...(options.readinessTimeoutMs !== undefined ? { timeoutMs: options.readinessTimeoutMs } : {}),
    log,
    outage,
    catalogueVersion: () => liveCatalogue.version,
  })
  const services = {
    ...buildServices(options, {
      catalogue,
      catalogueVersions,
      clock,
      jobs,
      files,
      fileLinks,
      publicUrls,
      samples,
      log,
      metrics: metrics.service,
    }),
    catalogueVersions,
  }
  const httpServices = (environment: Environment) => ({
    accounts: services.accounts,
    audit: services.audit,
    orders: services.orders,
    orderActions: services.orderActions,
    printFiles: services.printFiles,
    invoices: services.invoices,
    previews: services.previews,
    products: services.products,
    quotes: services.quotes,
    spine: services.spine,
    addresses: services.addresses,
    labs: environment === 'live' ? services.labs : null,
    labPushes: services.labPushes,
    // Sandbox never bills, so only Live serves payment pages.
    payments: environment === 'live' ? services.payments : null,
    sandbox: environment === 'sandbox' ? services.sandbox : null,
    files: { store: services.files, links: fileLinks, now: () => clock.now() },
    callbacks: services.callbacks,
    webhooks: services.webhooks,
    webhookRecovery: services.webhookRecovery,
    samples,
    health,
    sessions: services.sessions,
    idempotency: services.idempotency,
    publicUrl: (of: Environment) => publicUrls[of],
    eventVendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
  })
  const limit = options.rateLimit === undefined ? parseRateLimit(DEFAULT_RATE_LIMIT_TEXT) : options.rateLimit
  const rateLimit = limit && {
    limit,
    ...(options.db.kind === 'postgres' && !options.rateLimitInMemory
      ? {
          sharedCounters: createDatabaseRateLimitCounters(options.db, {
            onCleanupError: (error) => {
              if (!databaseUnavailableReason(error))
                log.warn({ err: error }, 'deleting ended rate limit windows failed')
            },
          }),
        }
      : {}),
  }
  // The operator console (docs/admin.md): on the Live server under /admin/, or on a server of its own.
  const registerConsole = async (server: App, rateLimits: RateLimits) => {
    await server.register(
      async (adminScope) =>
        registerAdminConsole(adminScope, {
          sessions: services.sessions,
          publicUrl: () => publicUrls.live,
          imageOrigins: () => [publicUrls.live, publicUrls.sandbox],
          limitFailedSignIn: async (request, reply) => (await rateLimits.countUnauthenticated(request, reply))?.message,
          accounts: adminAccountsOf(services.accounts, services.payments),
          // The other sections, each module's register<Section>Pages with its deps filled from the services.
          sections: [
            (pages, console) => registerOrdersPages(pages, console, services.adminViews.orders),
            (pages, console) => registerLabsPages(pages, console, services.adminViews.labs),
            (pages, console) => registerCataloguePages(pages, console, adminCatalogueOf(services.catalogueVersions)),
            (pages, console) => registerInvoicesPages(pages, console, adminInvoicesOf(services.invoices)),
            (pages, console) => registerCallbacksPages(pages, console, services.adminViews.callbacks),
            (pages, console) => registerAuditPages(pages, console, services.audit),
          ],
        }),
      { prefix: ADMIN_PATH },
    )
  }
  // The dashboard (docs/dashboard.md) on each environment's server: wired here, so that the HTTP layer serves it
  // without importing it.
  const dashboardOn = (environment: Environment): ServedDashboard => ({
    async register(server, rateLimits) {
      await server.register(
        async (dashboard) =>
          registerDashboard(dashboard, {
            api: server,
            environment,
            eventVendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
            sessions: services.sessions,
            publicUrl: (of: Environment) => publicUrls[of],
            limitFailedSignIn: async (request, reply) =>
              (await rateLimits.countUnauthenticated(request, reply))?.message,
          }),
        { prefix: '/dashboard' },
      )
      // The lab portal (docs/labs.md#the-lab-portal): Live only, as the lab API is; real labs never see Sandbox work.
      if (environment === 'live') {
        await server.register(
          async (portal) =>
            registerLabPortal(portal, {
              sessions: services.sessions,
              labs: services.labs,
              publicUrl: () => publicUrls.live,
              limitFailedSignIn: async (request, reply) =>
                (await rateLimits.countUnauthenticated(request, reply))?.message,
            }),
          { prefix: '/labs/portal' },
        )
        if (!options.adminOwnServer) await registerConsole(server, rateLimits)
      }
    },
    pageViewOfThisCall: dashboardPageViewOfThisCall,
  })
  const common = {
    logger: options.logger,
    requestTimeoutMs: options.requestTimeoutMs,
    observeHttpRequest: metrics.observeHttpRequest,
    rateLimit,
  }
  const serverOf = (environment: Environment) => {
    const bound = options.servers?.[environment]
    return bound ? { boundServer: bound } : {}
  }
  const metricsEndpoint: MetricsEndpoint = { scrape: metrics.scrape, token: options.metrics?.token ?? null }
  const ownMetricsPort = options.metrics?.port !== undefined && options.metrics.port !== null
  const live = await buildHttpServer({
    ...common,
    ...serverOf('live'),
    environment: 'live',
    services: httpServices('live'),
    metrics: ownMetricsPort ? null : metricsEndpoint,
    dashboard: dashboardOn('live'),
  })
  const sandbox = await buildHttpServer({
    ...common,
    ...serverOf('sandbox'),
    environment: 'sandbox',
    services: httpServices('sandbox'),
    dashboard: dashboardOn('sandbox'),
  })
  const metricsServer = ownMetricsPort
    ? await buildMetricsServer({
        metrics: metricsEndpoint,
        health,
        logger: options.logger,
        ...(options.servers?.metrics ? { boundServer: options.servers.metrics } : {}),
      })
    : null
  const adminServer = options.adminOwnServer
    ? await buildAdminServer({
        logger: options.logger,
        rateLimit,
        register: registerConsole,
        ...(options.servers?.admin ? { boundServer: options.servers.admin } : {}),
      })
    : null
  if (options.workers) {
    await startJobWorkers(jobs, services, {
      renderConcurrency: services.renderConcurrency,
      checkIntervalSeconds:
        options.jobPollingSeconds ??
        (options.db.kind === 'postgres' ? POSTGRES_JOB_CHECK_SECONDS : PGLITE_JOB_CHECK_SECONDS),
      report: (fields, message) => {
        if (typeof options.logger === 'object') options.logger.info(fields, message)
      },
    })
  }
  const watcher = watchActiveCatalogue(
    catalogueVersions,
    options.cataloguePollSeconds ?? DEFAULT_CATALOGUE_POLL_SECONDS,
    logError,
  )
  return {
    services,
    live,
    sandbox,
    jobs,
    metricsServer,
    adminServer,
    setPublicUrl(environment, url) {
      if (!options.publicUrls?.[environment]) publicUrls[environment] = url
    },
    publicUrl: (environment) => publicUrls[environment],
    async close() {
      await watcher.stop()
      await Promise.all([live.close(), sandbox.close(), metricsServer?.close(), adminServer?.close()])
      // Fastify closes only servers it listened on itself; in-flight requests finish first.
      await Promise.all(Object.values(options.servers ?? {}).map((bound) => bound.close()))
      await jobs.stop()
      outage.stop()
      await services.closeCallbackFetcher()
      s3?.close()
    },
  }
}

/**
 * Polls the active catalogue version and switches to a newly activated one (docs/catalogue.md#switching). One
 * check at a time; a failed check (the database away) is reported like a background job's error and tried
 * again at the next tick.
 */
function watchActiveCatalogue(
  versions: CatalogueVersionsService,
  pollSeconds: number,
  onError: (error: Error) => void,
): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null
  const timer = setInterval(() => {
    if (running) return
    running = versions
      .refresh()
      .catch((error: Error) => onError(error))
      .finally(() => {
        running = null
      })
  }, pollSeconds * 1000)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}

/** A refusal of the catalogue versions service as the console shows it; anything else is thrown on. */
async function orRefusal<T>(work: () => Promise<T>): Promise<T | AdminCatalogueRefusal> {
  try {
    return await work()
  } catch (error) {
    if (!(error instanceof CatalogueVersionError)) throw error
    return { refused: error.message.split('\n')[0] ?? error.message, problems: error.problems }
  }
}

/** The console's catalogue pages' dependencies (dashboard/admin/catalogue.pages.ts) from the versions service. */
export function adminCatalogueOf(versions: CatalogueVersionsService): AdminCatalogue {
  return {
    list: () => versions.list(),
    servedVersion: () => versions.live().version,
    diff: (from, to) => orRefusal(() => versions.diff(from, to)),
    activate: (version, actor) => orRefusal(() => versions.activate(version, actor)),
    import: (content, sourceName, actor, options) =>
      orRefusal(() => versions.import(content, sourceName, actor, options)),
  }
}

/** A refusal of the accounts service (a name, a currency, an unknown account) as the console shows it. */
async function refusalsAsServiceErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof AccountError) throw new ServiceError('ValidationFailed', error.message)
    throw error
  }
}

/** The console's accounts section, from the accounts and payments services. */
function adminAccountsOf(accounts: AccountsService, payments: PaymentsService): AdminAccounts {
  const find = async (accountId: string): Promise<Account | undefined> => {
    if (parseId('acc', accountId) === undefined) return undefined
    try {
      return await accounts.getAccount(accountId)
    } catch (error) {
      if (error instanceof AccountError) return undefined
      throw error
    }
  }
  return {
    listAccounts: () => accounts.listAccounts(),
    getAccount: find,
    createAccount: (input, actor) =>
      refusalsAsServiceErrors(async () => {
        const created = await accounts.createAccount({ ...input, pauseWindowSeconds: 0, callbackUrl: null }, actor)
        return { account: created.account, keys: { sandbox: created.keys.sandbox.key, live: created.keys.live.key } }
      }),
    listKeys: (accountId) =>
      refusalsAsServiceErrors(async () => (await accounts.listApiKeys(accountId)).map(toApiKeyView)),
    createKey: (accountId, environment, actor) =>
      refusalsAsServiceErrors(async () => {
        const issued = await accounts.createApiKey(accountId, environment, actor)
        return { key: issued.key, prefix: issued.prefix }
      }),
    revokeKey: (accountId, prefix, actor) =>
      refusalsAsServiceErrors(async () => {
        // The console revokes a key from its account's page: a prefix of another account's key is not found there.
        const keys = await accounts.listApiKeys(accountId)
        if (!keys.some((key) => key.prefix === prefix && key.revokedAt === null)) {
          throw new ServiceError('EntityNotFound', `${accountId} has no active key with prefix ${prefix}`)
        }
        await accounts.revokeApiKey(prefix, actor)
      }),
    topUp: (accountId, amount, reference, actor) =>
      refusalsAsServiceErrors(async () => {
        const account = await find(accountId)
        if (!account) throw new ServiceError('EntityNotFound', `No account ${accountId}`)
        if (account.billingMode !== 'prepaid') {
          throw new ServiceError(
            'ValidationFailed',
            `${accountId} is billed by invoice; only prepaid accounts have a balance`,
          )
        }
        const amountMinor = /^\d{1,10}(\.\d{1,2})?$/.test(amount) ? parseAmountToMinor(amount) : undefined
        if (amountMinor === undefined || amountMinor <= 0n) {
          throw new ServiceError(
            'ValidationFailed',
            `Amount: a positive amount such as 50.00 is needed, not "${amount}"`,
          )
        }
        const result = await payments.topUp(parseId('acc', accountId) as number, amountMinor, reference, actor)
        return {
          balance: formatMinorAsAmount(result.balanceMinor),
          currency: result.currency,
          releasedOrderIds: result.releasedOrderIds,
        }
      }),
    suspend: (accountId, reason, actor) =>
      refusalsAsServiceErrors(() => accounts.suspendAccount(accountId, reason, actor)),
    reactivate: (accountId, actor) => refusalsAsServiceErrors(() => accounts.reactivateAccount(accountId, actor)),
    recentLedger: (accountId, limit) =>
      refusalsAsServiceErrors(async () =>
        (await accounts.listRecentLedger(accountId, limit)).map((row) => ({
          at: row.createdAt.toISOString(),
          entry: row.entry,
          orderId: row.orderNumber === null ? null : formatId('ord', row.orderNumber),
          chargeId: row.chargeId,
          amount: formatMinorAsAmount(row.amountMinor),
          currency: row.currency,
          reference: row.reference,
        })),
      ),
  }
}
