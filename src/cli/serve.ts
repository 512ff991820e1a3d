// `printroute serve` and `printroute worker`: the long-running processes.
// The application's modules are imported when the command runs, so that help answers at once.
import { join } from 'node:path'
import type { Command } from 'commander'
import type pino from 'pino'
import type { AdminChannel } from '../adapters/admin-channel.ts'
import type { Application, ApplicationOptions } from '../app.ts'
import type { Settings, SettingsOf } from '../config.ts'
import type { BoundServer } from '../http/bound-server.ts'
import type { Environment } from '../services/accounts.service.ts'
import { addSettingOptions, settingsFor } from './command-support.ts'

type ProcessSettings = Pick<Settings, SettingsOf<'worker'>>

async function loggerFor(settings: ProcessSettings): Promise<pino.Logger> {
  const { createLogger, logFormatFor } = await import('../adapters/logger.ts')
  return createLogger({
    level: settings.logLevel,
    format: logFormatFor(settings.logFormat ?? undefined, process.stdout.isTTY === true),
    destination: 1,
  })
}

/**
 * The payment gateway of `--payment-provider stripe` (null for the simulated provider), built before a port is
 * bound: a missing secret stops the process here, naming the setting (docs/billing.md#setting-up-stripe).
 */
async function paymentGatewayOf(settings: ProcessSettings): Promise<ApplicationOptions['paymentGateway']> {
  const { stripeSecretsFrom } = await import('./payment-gateway.ts')
  const secrets = stripeSecretsFrom(settings)
  if (!secrets) return null
  const { createStripeGateway } = await import('../adapters/stripe-gateway.ts')
  return createStripeGateway({
    secretKey: secrets.secretKey,
    webhookSecret: secrets.webhookSecret,
    ...(secrets.apiUrl ? { apiUrl: secrets.apiUrl } : {}),
  })
}

function applicationOptions(settings: ProcessSettings): Omit<ApplicationOptions, 'db' | 'logger'> {
  return {
    databaseUrl: settings.databaseUrl,
    filesDir: join(settings.dataDir, 'files'),
    blobStoreUrl: settings.blobStoreUrl,
    workers: true,
    allowPrivateUrls: settings.allowPrivateUrls,
    ghostscript: settings.ghostscript,
    pipeline: {
      downloadRetryBaseSeconds: settings.downloadRetryBaseSeconds,
      simulatedLabStepSeconds: settings.simulatedLabStepSeconds,
      simulateLiveLabs: settings.simulateLiveLabs,
      simulatedUnavailableSkus: settings.simulatedUnavailableSkus,
      assetRetentionDays: settings.assetRetentionDays,
      simulatedRejectRate: settings.simulatedRejectRate,
    },
    maxDownloadBytes: settings.maxDownloadBytes,
    publicUrls: {
      ...(settings.livePublicUrl ? { live: settings.livePublicUrl } : {}),
      ...(settings.sandboxPublicUrl ? { sandbox: settings.sandboxPublicUrl } : {}),
    },
    eventVendor: settings.eventVendor,
    fileLinkTtlSeconds: settings.fileLinkTtlSeconds,
    metrics: { port: settings.metricsPort, token: settings.metricsToken },
    callbackRetentionSeconds: settings.callbackRetentionSeconds,
    quoteLifetimeSeconds: settings.quoteLifetimeSeconds,
    claimWindowDays: settings.claimWindowDays,
    claimAutoResolveDays: settings.claimAutoResolveDays,
    missingParcelReprintDays: settings.missingParcelReprintDays,
    channelSecretsKey: settings.channelSecretsKey,
    shopifyApiUrl: settings.shopifyApiUrl,
  }
}

/**
 * What serve and worker read first, before they bind a port or open the database: the logger, and the options read
 * from files and secrets (the catalogue file, the payment gateway), each of which stops the process when wrong.
 */
async function loggerAndCatalogue(settings: ProcessSettings) {
  // Stripe without both secrets stops here, naming the setting.
  const paymentGateway = await paymentGatewayOf(settings)
  const logger = await loggerFor(settings)
  logFatalErrors(logger)
  // A catalogue file given is read and checked now, before a port is bound: a bad one stops the process here.
  // Without one, the process serves the active catalogue version (docs/catalogue.md#versions).
  if (!settings.catalogueFile) return { logger, catalogue: { paymentGateway } }
  const { readCatalogueFile } = await import('../catalogue/catalogue.loader.ts')
  const file = readCatalogueFile(settings.catalogueFile)
  return { logger, catalogue: { catalogue: file.catalogue, catalogueText: file.text, paymentGateway } }
}

/**
 * An error nothing caught ends the process as Node would (exit 1), but as one log line through the logger, whose
 * error serializer keeps driver objects out: Node's own report printed a database error's connection (user,
 * host, database) and its SQL.
 */
function logFatalErrors(logger: pino.Logger): void {
  const fatal = (error: unknown) => {
    logger.fatal({ err: error }, 'stopping: an unexpected error that nothing handled')
    process.exit(1)
  }
  process.on('uncaughtException', fatal)
  process.on('unhandledRejection', fatal)
}

/**
 * Runs `stop` once on the first SIGTERM or SIGINT, then exits 0. The handlers stay for the signals that follow:
 * Ctrl-C on `npm start` reaches printroute twice (from the terminal and forwarded by npm), and without a
 * handler the second would end the process at once, in the middle of its graceful stop.
 */
function stopOnSignals(logger: pino.Logger, stop: () => Promise<void>): void {
  let stopping = false
  const onSignal = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down')
    await stop()
    logger.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void onSignal('SIGTERM'))
  process.on('SIGINT', () => void onSignal('SIGINT'))
}

/** Binds each port, or stops with one line naming the port and the flag that changes it. */
type ServerName = Environment | 'metrics' | 'admin'
const SERVER_LABELS: Record<ServerName, string> = {
  live: 'Live API',
  sandbox: 'Sandbox API',
  metrics: 'metrics',
  admin: 'operator console',
}

async function bindPorts<N extends ServerName>(
  host: string,
  ports: { name: N; port: number; flag: string }[],
): Promise<Record<N, BoundServer>> {
  const { bindServer, PortUnavailableError } = await import('../http/bound-server.ts')
  const bound: Partial<Record<N, BoundServer>> = {}
  try {
    for (const { name, port, flag } of ports) {
      try {
        bound[name] = await bindServer(host, port)
      } catch (error) {
        if (!(error instanceof PortUnavailableError)) throw error
        throw new PortUnavailableError(
          port,
          `the ${SERVER_LABELS[name]}'s ${error.message}; choose another with ${flag} (nothing was written)`,
        )
      }
    }
  } catch (error) {
    await Promise.all(Object.values<BoundServer>(bound as Record<N, BoundServer>).map((server) => server.close()))
    throw error
  }
  return bound as Record<N, BoundServer>
}

/** Opens the metrics server, when there is one (--metrics-port), once the application is built. */
/** Until the seller printed on invoices is set, one line at start says how to set it (docs/billing.md#the-seller). */
async function warnWithoutSeller(
  logger: pino.Logger,
  invoices: { seller(): Promise<{ configured: boolean }> },
  consoleUrl: string,
): Promise<void> {
  const { sellerUnsetLine } = await import('./first-start.ts')
  const line = sellerUnsetLine((await invoices.seller()).configured, consoleUrl)
  if (line) logger.warn(line)
}

function openMetricsServer(server: BoundServer | undefined, logger: pino.Logger): void {
  if (!server) return
  server.open()
  logger.info(`metrics at ${server.address}/metrics`)
}

function metricsPort(settings: { metricsPort: number | null }) {
  return settings.metricsPort === null
    ? []
    : [{ name: 'metrics' as const, port: settings.metricsPort, flag: '--metrics-port (or PRINTROUTE_METRICS_PORT)' }]
}

/** The serving process's order and claim actions for the admin channel: its own services, built already. */
function servingActions(services: Application['services']) {
  return {
    shipmentMoves: async () => services.shipmentMoves,
    orderOperations: async () => services.orderOperations,
    claims: async () => services.claimResolution,
  }
}

export function registerProcessCommands(program: Command): void {
  const serve = program
    .command('serve')
    .summary('run the API (Live and Sandbox) and the background workers')
    .description(
      'Runs the Live and the Sandbox API, each on its own port, and the fulfilment workers, until SIGTERM or ' +
        'SIGINT. Ports are bound before anything is written. With no account yet it creates a demo account ' +
        '(on PostgreSQL only with --demo-account) and gives its keys and a first order to paste: at a ' +
        'terminal, printed once; otherwise in files in the data directory, which the log names.',
    )
  addSettingOptions(serve, 'serve').action(async () => {
    const settings = settingsFor(serve, 'serve')
    const { logger, catalogue } = await loggerAndCatalogue(settings)
    const { buildApplication, openDatabase } = await import('../app.ts')
    const servers = await bindPorts<ServerName>(settings.host, [
      { name: 'live', port: settings.livePort, flag: '--port (or PORT)' },
      { name: 'sandbox', port: settings.sandboxPort, flag: '--sandbox-port (or PRINTROUTE_SANDBOX_PORT)' },
      ...metricsPort(settings),
      ...(settings.adminPort === null
        ? []
        : [{ name: 'admin' as const, port: settings.adminPort, flag: '--admin-port (or PRINTROUTE_ADMIN_PORT)' }]),
    ])
    let adminChannel: AdminChannel | null = null
    const opened = await openDatabase(settings, { log: logger }).catch(async (error) => {
      await Promise.all(Object.values(servers).map((server) => server.close()))
      throw error
    })
    const app = await buildApplication({
      ...applicationOptions(settings),
      db: opened.db,
      ...catalogue,
      logger,
      requestTimeoutMs: settings.requestTimeoutSeconds * 1000,
      labCancelWaitSeconds: settings.labCancelWaitSeconds,
      rateLimit: settings.rateLimit,
      workers: settings.workers,
      servers,
      adminOwnServer: settings.adminPort !== null,
    })
    // Before answering: a signal that arrives the moment the server is ready must stop it gracefully too.
    stopOnSignals(logger, async () => {
      await adminChannel?.close()
      await app.close()
      await opened.close()
    })
    if (!settings.databaseUrl) {
      const { startAdminChannel } = await import('../adapters/admin-channel.ts')
      const { commandLineActor, createAdminOperations, runOperation } = await import('./admin-operations.ts')
      const operations = createAdminOperations({
        db: opened.db,
        accounts: app.services.accounts,
        operators: app.services.operators,
        labs: app.services.labs,
        labPushes: app.services.labPushes,
        payments: async () => app.services.payments,
        ...servingActions(app.services),
        invoices: app.services.invoices,
        labStatements: app.services.labStatements,
        catalogueVersions: app.services.catalogueVersions,
        audit: app.services.audit,
        revenue: app.services.revenue,
        actor: commandLineActor(),
      })
      adminChannel = await startAdminChannel(settings.dataDir, (name, input) => runOperation(operations, name, input))
    }
    for (const environment of ['live', 'sandbox'] as const) {
      app.setPublicUrl(environment, servers[environment].address)
      servers[environment].open()
      const address = servers[environment].address
      logger.info(
        { environment },
        `${SERVER_LABELS[environment]} ready at ${address}/v4.0 (dashboard: ${address}/dashboard/)`,
      )
    }
    openMetricsServer(servers.metrics, logger)
    // Before the console's line, which names where the seller is set, so the two read together.
    await warnWithoutSeller(logger, app.services.invoices, (servers.admin ?? servers.live).address)
    if (servers.admin) {
      servers.admin.open()
      logger.info(`operator console at ${servers.admin.address}/admin/ (not on the Live port)`)
    } else {
      logger.info(`operator console at ${servers.live.address}/admin/`)
    }
    // The demo account is made only now that both ports answer, so its keys are given in the same breath.
    if ((await app.services.accounts.countAccounts()) === 0) {
      const { demoBanner, noAccountMessage, writeDemoAccountFiles } = await import('./first-start.ts')
      const { logFormatFor } = await import('../adapters/logger.ts')
      // PostgreSQL is a production database: no account that nobody asked for, with keys nobody keeps.
      if (settings.databaseUrl && !settings.demoAccount) {
        logger.info(noAccountMessage())
        return
      }
      // printroute makes the demo account on its own at first start: the trail names it, not a person.
      const demo = await app.services.accounts.createAccount(
        { name: 'Demo merchant', billingCurrency: 'GBP', pauseWindowSeconds: 0, callbackUrl: null },
        { kind: 'system' },
      )
      const shown = {
        accountId: demo.account.id,
        keys: { sandbox: demo.keys.sandbox.key, live: demo.keys.live.key },
        sandboxUrl: app.publicUrl('sandbox'),
      }
      const atTerminal = process.stdout.isTTY === true
      // At a terminal the keys are shown once, as the banner, written past the logger (which redacts every
      // key); JSON lines there also get the files, where the first order stays pasteable. Anywhere else (a log
      // collector) the keys go only to the owner's file.
      if (atTerminal) {
        logger.info({ accountId: shown.accountId }, `Demo account ${shown.accountId} created`)
        process.stdout.write(`\n${demoBanner(shown)}\n`)
      }
      if (!atTerminal || logFormatFor(settings.logFormat ?? undefined, atTerminal) === 'json') {
        const written = writeDemoAccountFiles(settings.dataDir, shown)
        logger.info(
          { accountId: shown.accountId, keysFile: written.keysFile, firstOrderScript: written.script },
          written.message,
        )
      }
    }
  })

  const worker = program
    .command('worker')
    .summary('run the background workers only (no API)')
    .description(
      'Runs the fulfilment workers (downloads, lab allocation, print files, labs, callbacks) without serving ' +
        'the API, so several processes can share one PostgreSQL. Stops gracefully on SIGTERM or SIGINT.',
    )
  addSettingOptions(worker, 'worker').action(async () => {
    const settings = settingsFor(worker, 'worker')
    const { logger, catalogue } = await loggerAndCatalogue(settings)
    const { buildApplication, openDatabase } = await import('../app.ts')
    const servers = await bindPorts(settings.host, metricsPort(settings))
    const opened = await openDatabase(settings, { log: logger })
    const app = await buildApplication({
      ...applicationOptions(settings),
      db: opened.db,
      ...catalogue,
      logger,
      servers,
      answersRequests: false,
    })
    openMetricsServer(servers.metrics, logger)
    logger.info('workers ready')
    stopOnSignals(logger, async () => {
      await app.close()
      await opened.close()
    })
  })
}
