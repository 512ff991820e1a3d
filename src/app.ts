import { systemClock } from './adapters/clock.ts'
import { PostgresDatabase } from './adapters/database.ts'
import { createDatabaseOutageLog } from './adapters/database-outage-log.ts'
import { type JobQueue, openJobQueue } from './adapters/job-queue.ts'
import { createMetrics } from './adapters/metrics.ts'
import { loadSampleImages } from './adapters/sample-images.ts'
import { startingCatalogue, watchActiveCatalogue } from './app/catalogue.ts'
import { openBlobStore } from './app/files.ts'
import { buildHealth } from './app/health.ts'
import { type ApplicationOptions, PGLITE_JOB_CHECK_SECONDS, POSTGRES_JOB_CHECK_SECONDS } from './app/options.ts'
import { buildServices, type Services } from './app/services.ts'
import { buildServers } from './app/web.ts'
import { checkCatalogueText, readSampleCatalogueText } from './catalogue/catalogue.loader.ts'
import { newChannelSecretsKey, parseChannelSecretsKey } from './domain/channels.ts'
import { databaseUnavailableReason } from './domain/database-unavailable.ts'
import type { Environment } from './domain/environment.ts'
import { createFileLinks, DEFAULT_FILE_LINK_TTL_SECONDS } from './domain/signed-urls.ts'
import type { App } from './http/server.ts'
import { withRequestTraceId } from './http/trace-context.ts'
import { QUEUE_NAMES, startJobWorkers } from './jobs/registry.ts'
import { getOrCreateSetting } from './repositories/settings.repository.ts'
import {
  type CatalogueVersionsService,
  createCatalogueVersionsService,
  DEFAULT_CATALOGUE_POLL_SECONDS,
} from './services/catalogue-versions.service.ts'
import type { ChannelsService } from './services/channels.service.ts'
import { type ServiceLogger, silentLogger } from './services/observability.ts'
import { newSigningSecret } from './services/pipeline/index.ts'

export { type OpenedDatabase, openDatabase } from './app/database.ts'
export { type ApplicationOptions, DEFAULT_PIPELINE_SETTINGS } from './app/options.ts'

export interface Application {
  services: Services & { catalogueVersions: CatalogueVersionsService }
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
  const channelSecretsKey = await readChannelSecretsKey(options)
  const publicUrls: Record<Environment, string> = {
    live: options.publicUrls?.live ?? 'http://127.0.0.1:8080',
    sandbox: options.publicUrls?.sandbox ?? 'http://127.0.0.1:8081',
  }
  const { files, s3 } = await openBlobStore(options)
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
  const health = buildHealth(options, { jobs, files, log, outage, catalogueVersion: () => liveCatalogue.version })
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
      channelSecretsKey,
    }),
    catalogueVersions,
  }
  await warnOfChannelsUnderAnotherKey(services.channels, log)
  const { live, sandbox, metricsServer, adminServer } = await buildServers(options, {
    services,
    publicUrls,
    fileLinks,
    now: () => clock.now(),
    samples,
    health,
    metrics,
    log,
  })
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
 * After a change of the channel secrets key, said once at each start (fingerprints only), so the operator knows
 * before the first webhook is refused that merchants must give their channels' secrets again.
 */
async function warnOfChannelsUnderAnotherKey(channels: ChannelsService, log: ServiceLogger): Promise<void> {
  const { currentFingerprint, keys } = await channels.sealedUnderAnotherKey()
  for (const { fingerprint, channels: count } of keys) {
    log.warn(
      {
        step: 'channel-secrets-key',
        sealedKeyFingerprint: fingerprint,
        currentKeyFingerprint: currentFingerprint,
        channels: count,
      },
      `${count} storefront channel${count === 1 ? ' has' : 's have'} secrets sealed under the channel secrets key ` +
        `${fingerprint}, not the current ${currentFingerprint}: their webhooks answer 503 until their merchants give ` +
        'the secrets again (docs/channels.md#after-a-change-of-key)',
    )
  }
}

/**
 * The key storefront channels' secrets are sealed under: the setting's, or one made at first start and kept in the
 * settings table (docs/channels.md#secrets-at-rest). A setting that is not a 32-byte key stops the start.
 */
async function readChannelSecretsKey(options: ApplicationOptions): Promise<Buffer> {
  const text =
    options.channelSecretsKey ?? (await getOrCreateSetting(options.db, 'channel-secrets-key', newChannelSecretsKey()))
  const key = parseChannelSecretsKey(text)
  if (!key) throw new Error('--channel-secrets-key must be 64 hex digits or the base64 of 32 bytes')
  return key
}
