// The printroute command line: serve, migrate, accounts and keys. Each command documents itself (--help).

import { join } from 'node:path'
import { parseArgs } from 'node:util'
import pino from 'pino'
import { systemClock } from './adapters/clock.ts'
import type { Database } from './adapters/database.ts'
import { migrate } from './adapters/migrator.ts'
import { type ApplicationOptions, buildApplication, openDatabase } from './app.ts'
import { loadCatalogue } from './catalogue/catalogue.loader.ts'
import type { Catalogue } from './catalogue/catalogue.ts'
import {
  type DatabaseSettings,
  readDatabaseSettings,
  readServeSettings,
  readWorkerSettings,
  type WorkerSettings,
} from './config.ts'
import { parseDurationSeconds } from './domain/duration.ts'
import { parseId } from './domain/ids.ts'
import { formatMinorAsAmount, parseAmountToMinor } from './domain/money.ts'
import {
  AccountError,
  type AccountSettingsChange,
  type AccountsService,
  createAccountsService,
  ENVIRONMENTS,
  type Environment,
} from './services/accounts.service.ts'
import { createLabsService, LabError } from './services/labs.service.ts'

const DATABASE_OPTIONS = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

const WORKER_OPTIONS = {
  ...DATABASE_OPTIONS,
  catalogue: { type: 'string' },
  'log-level': { type: 'string' },
  'allow-private-urls': { type: 'boolean' },
  'download-retry-base': { type: 'string' },
  'sim-lab-step': { type: 'string' },
  'simulate-live-labs': { type: 'boolean' },
  'sim-lab-unavailable-skus': { type: 'string' },
  'sim-lab-reject-rate': { type: 'string' },
  'max-download-size': { type: 'string' },
  'asset-retention': { type: 'string' },
  'blob-store': { type: 'string' },
  'public-url': { type: 'string' },
  'sandbox-public-url': { type: 'string' },
  'event-vendor': { type: 'string' },
} as const

const WORKER_HELP = `  --catalogue FILE       product catalogue to load (env PRINTROUTE_CATALOGUE, default the bundled sample)
  --log-level LEVEL      fatal, error, warn, info, debug (env PRINTROUTE_LOG_LEVEL, default info)
  --allow-private-urls   let asset downloads and callbacks reach loopback/private addresses, for local testing only
                         (env PRINTROUTE_ALLOW_PRIVATE_URLS=1; off by default)
  --download-retry-base DUR  delay before the 2nd download attempt, doubling each time (default 30s)
  --sim-lab-step DUR     pace of the simulated labs (env PRINTROUTE_SIM_LAB_STEP, default 2s)
  --simulate-live-labs   Live orders use the simulated labs too (demos); Sandbox always does
  --sim-lab-unavailable-skus SKUS  simulated labs report these SKUs out of stock (comma-separated)
  --sim-lab-reject-rate R  share of shipments (0 to 1) simulated labs reject, by shipment id (default 0)
  --max-download-size SIZE  largest asset download accepted (env PRINTROUTE_MAX_DOWNLOAD_SIZE, default 200MiB)
  --asset-retention DUR  keep downloaded asset copies this long, whole days (default 30d)
  --blob-store URL       keep files in an S3-compatible bucket, s3://bucket/prefix?endpoint=URL&region=R
                         (env PRINTROUTE_BLOB_STORE; default the data directory's files/)
  --public-url URL       base URL of the Live server for file links (default its listening address)
  --sandbox-public-url URL  same for the Sandbox server
  --event-vendor NAME    callback types are com.NAME.order... (env PRINTROUTE_EVENT_VENDOR, default printroute)`

const DATABASE_HELP = `  --data-dir DIR         embedded database and files (env PRINTROUTE_DATA_DIR, default ./data)
  --database-url URL     use this PostgreSQL server instead (env DATABASE_URL)
  -h, --help             show this help`

interface Command {
  summary: string
  usage: string
  options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>
  positionals?: boolean
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<void>
}

class UsageError extends Error {}

function applicationOptions(
  settings: WorkerSettings,
  opened: { db: Database },
  catalogue: Catalogue,
  logger: pino.Logger,
): ApplicationOptions {
  return {
    db: opened.db,
    databaseUrl: settings.databaseUrl,
    catalogue,
    logger,
    filesDir: join(settings.dataDir, 'files'),
    blobStoreUrl: settings.blobStoreUrl,
    workers: true,
    allowPrivateUrls: settings.allowPrivateUrls,
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
  }
}

/** Issues a lab key without starting the pipeline (the labs service needs only the database for this). */
async function createLabKeyOnly(db: Database, catalogue: Catalogue, labCode: string) {
  const labs = createLabsService({ db, clock: systemClock, catalogue, pipeline: undefined as never })
  try {
    return await labs.createLabKey(labCode)
  } catch (error) {
    if (error instanceof LabError) throw new UsageError(error.message)
    throw error
  }
}

/** Runs `stop` once on the first SIGTERM or SIGINT, then exits 0. */
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
  process.once('SIGTERM', () => void onSignal('SIGTERM'))
  process.once('SIGINT', () => void onSignal('SIGINT'))
}

/** Runs an account or key command on the configured database (the catalogue is read only to check a currency). */
async function withAccounts<T>(
  settings: DatabaseSettings,
  work: (accounts: AccountsService) => Promise<T>,
  catalogueFile?: string,
): Promise<T> {
  const opened = await openDatabase(settings)
  try {
    const isKnownCurrency = (code: string) => loadCatalogue(catalogueFile).isKnownCurrency(code)
    return await work(createAccountsService({ db: opened.db, clock: systemClock, isKnownCurrency }))
  } finally {
    await opened.close()
  }
}

function requireString(values: Record<string, unknown>, name: string): string {
  const value = values[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`)
  return value
}

function environmentOf(value: string): Environment {
  const environment = ENVIRONMENTS.find((candidate) => candidate === value.toLowerCase())
  if (!environment) throw new UsageError(`--env must be sandbox or live, got "${value}"`)
  return environment
}

const SAMPLE_ORDER = {
  merchantReference: 'my-first-order',
  shippingMethod: 'Budget',
  recipient: {
    name: 'Ada Lovelace',
    address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
  },
  items: [
    {
      sku: 'GLOBAL-FAP-16x24',
      copies: 1,
      sizing: 'fillPrintArea',
      assets: [{ printArea: 'default', url: 'https://example.com/my-image.jpg' }],
    },
  ],
}

function curlExample(baseUrl: string, key: string): string {
  return `curl -s -X POST ${baseUrl}/orders -H 'X-API-Key: ${key}' -H 'Content-Type: application/json' \\\n  -d '${JSON.stringify(SAMPLE_ORDER)}'`
}

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'run the API (Live and Sandbox) and the background workers',
    usage: `printroute serve [options]

Runs the Live and the Sandbox API, each on its own port, and the fulfilment workers, until SIGTERM or
SIGINT. On an empty database it creates a demo account and prints its Sandbox key.

  --port PORT            Live API port (env PORT, default 8080)
  --sandbox-port PORT    Sandbox API port (env PRINTROUTE_SANDBOX_PORT, default 8081)
  --host HOST            address to listen on (env PRINTROUTE_HOST, default 127.0.0.1)
  --request-timeout DUR  abort requests after this long (env PRINTROUTE_REQUEST_TIMEOUT, default 60s)
  --no-workers           serve the API only; run \`printroute worker\` processes for the jobs
${WORKER_HELP}
${DATABASE_HELP}`,
    options: {
      ...WORKER_OPTIONS,
      port: { type: 'string' },
      'sandbox-port': { type: 'string' },
      host: { type: 'string' },
      'request-timeout': { type: 'string' },
      'no-workers': { type: 'boolean' },
    },
    async run(values) {
      const settings = readServeSettings(values)
      // Synchronous writes keep log lines and the demo-key text below in the order they happen.
      const logger = pino({ level: settings.logLevel }, pino.destination({ dest: 1, sync: true }))
      const catalogue = loadCatalogue(settings.catalogueFile ?? undefined)
      const opened = await openDatabase(settings)
      const app = await buildApplication({
        ...applicationOptions(settings, opened, catalogue, logger),
        requestTimeoutMs: settings.requestTimeoutMs,
        workers: settings.workers,
      })
      // Before listening: a signal that arrives the moment the server is ready must stop it gracefully too.
      stopOnSignals(logger, async () => {
        await app.close()
        await opened.close()
      })
      let demoKey: string | null = null
      if ((await app.services.accounts.countAccounts()) === 0) {
        const demo = await app.services.accounts.createAccount({
          name: 'Demo merchant',
          billingCurrency: 'GBP',
          pauseWindowSeconds: 0,
          callbackUrl: null,
        })
        demoKey = demo.keys.sandbox.key
        logger.info({ accountId: demo.account.id }, 'created the demo account on an empty database')
      }
      // Fastify logs one ready line per environment, with its base address.
      const liveAddress = await app.live.listen({
        host: settings.host,
        port: settings.livePort,
        listenTextResolver: (address) => `Live API ready at ${address}/v4.0`,
      })
      const sandboxAddress = await app.sandbox.listen({
        host: settings.host,
        port: settings.sandboxPort,
        listenTextResolver: (address) => `Sandbox API ready at ${address}/v4.0`,
      })
      app.setPublicUrl('live', liveAddress)
      app.setPublicUrl('sandbox', sandboxAddress)
      if (demoKey) {
        process.stdout.write(
          `\nDemo account created. Its Sandbox API key (shown once):\n\n  ${demoKey}\n\nPlace a first order:\n\n${curlExample(`${sandboxAddress}/v4.0`, demoKey)}\n\n`,
        )
      }
    },
  },

  worker: {
    summary: 'run the background workers only (no API)',
    usage: `printroute worker [options]

Runs the fulfilment workers (downloads, lab allocation, print files, labs) without serving the API, so
several processes can share one PostgreSQL. Stops gracefully on SIGTERM or SIGINT.

${WORKER_HELP}
${DATABASE_HELP}`,
    options: { ...WORKER_OPTIONS },
    async run(values) {
      const settings = readWorkerSettings(values)
      const logger = pino({ level: settings.logLevel }, pino.destination({ dest: 1, sync: true }))
      const catalogue = loadCatalogue(settings.catalogueFile ?? undefined)
      const opened = await openDatabase(settings)
      const app = await buildApplication({ ...applicationOptions(settings, opened, catalogue, logger), workers: true })
      logger.info('workers ready')
      stopOnSignals(logger, async () => {
        await app.close()
        await opened.close()
      })
    },
  },

  migrate: {
    summary: 'apply pending database migrations',
    usage: `printroute migrate [options]

Applies pending SQL migrations (serve also does this at start).

${DATABASE_HELP}`,
    options: { ...DATABASE_OPTIONS },
    async run(values) {
      const settings = readDatabaseSettings(values)
      // openDatabase migrates; run again to report what this command applied.
      const opened = await openDatabase({ ...settings })
      try {
        const result = await migrate(opened.db)
        process.stdout.write(
          result.applied.length ? `applied ${result.applied.join(', ')}\n` : 'database is up to date\n',
        )
      } finally {
        await opened.close()
      }
    },
  },

  'accounts create': {
    summary: 'create an account with one Sandbox and one Live key',
    usage: `printroute accounts create --name NAME [options]

  --name NAME            account name (required)
  --currency CODE        billing currency (default GBP; the catalogue must have a rate for it)
  --billing-mode MODE    how Live charges are settled: invoice (default) or prepaid (from a balance that
                         \`printroute accounts top-up\` adds to; orders it cannot cover wait for a card payment)
  --catalogue FILE       product catalogue whose currencies apply (default the bundled sample)
  --pause-window DUR     hold new orders this long before fulfilment, e.g. 30m (default 0: none)
  --callback-url URL     account-wide callback URL
  --json                 print {"id", "keys": {"sandbox", "live"}} as JSON
${DATABASE_HELP}`,
    options: {
      ...DATABASE_OPTIONS,
      name: { type: 'string' },
      currency: { type: 'string' },
      'billing-mode': { type: 'string' },
      catalogue: { type: 'string' },
      'pause-window': { type: 'string' },
      'callback-url': { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(values) {
      const name = requireString(values, 'name')
      let pauseWindowSeconds = 0
      if (typeof values['pause-window'] === 'string') {
        try {
          pauseWindowSeconds = parseDurationSeconds(values['pause-window'])
        } catch (error) {
          throw new UsageError(`--pause-window: ${(error as Error).message}`)
        }
      }
      const billingMode = typeof values['billing-mode'] === 'string' ? values['billing-mode'] : 'invoice'
      if (billingMode !== 'invoice' && billingMode !== 'prepaid') {
        throw new UsageError(`--billing-mode must be invoice or prepaid, got "${billingMode}"`)
      }
      const created = await withAccounts(
        readDatabaseSettings(values),
        (accounts) =>
          accounts.createAccount({
            name,
            billingCurrency: (typeof values.currency === 'string' ? values.currency : 'GBP').toUpperCase(),
            billingMode,
            pauseWindowSeconds,
            callbackUrl: typeof values['callback-url'] === 'string' ? values['callback-url'] : null,
          }),
        typeof values.catalogue === 'string' ? values.catalogue : undefined,
      )
      if (values.json) {
        process.stdout.write(
          `${JSON.stringify({ id: created.account.id, keys: { sandbox: created.keys.sandbox.key, live: created.keys.live.key } })}\n`,
        )
        return
      }
      process.stdout.write(
        `account ${created.account.id} (${created.account.name})\n` +
          `sandbox key: ${created.keys.sandbox.key}\n` +
          `live key:    ${created.keys.live.key}\n` +
          'The keys are shown once; printroute keeps only their hashes.\n',
      )
    },
  },

  'accounts list': {
    summary: 'list accounts',
    usage: `printroute accounts list [options]

  --json                 print the accounts as JSON
${DATABASE_HELP}`,
    options: { ...DATABASE_OPTIONS, json: { type: 'boolean' } },
    async run(values) {
      const accounts = await withAccounts(readDatabaseSettings(values), (accounts) => accounts.listAccounts())
      if (values.json) {
        process.stdout.write(`${JSON.stringify(accounts)}\n`)
        return
      }
      for (const account of accounts) {
        process.stdout.write(
          `${account.id}\t${account.name}\t${account.billingCurrency}\t${account.billingMode}` +
            `${account.billingMode === 'prepaid' ? ` balance ${account.balance}` : ''}` +
            `\tpause ${account.pauseWindowSeconds}s\t${account.callbackUrl ?? '-'}\n`,
        )
      }
    },
  },

  'accounts update': {
    summary: "change an account's callback URL, pause window or callback signing secret",
    usage: `printroute accounts update --account ID [options]

Changes the settings given; the others stay as they are. Prints the settings as they are then, with the
secret callbacks are signed with (docs/callbacks.md). Running API processes see the change within 5 seconds.

  --account ID           the account (acc_...)
  --callback-url URL     account-wide callback URL (an order's own callbackUrl wins); "" or none removes it
  --pause-window DUR     hold new orders this long before fulfilment, e.g. 30m (0: none)
  --rotate-signing-secret  replace the callback signing secret; the old one keeps signing too for a while
  --signing-overlap DUR  with --rotate-signing-secret: how long the old secret keeps signing (default 24h)
  --json                 print {"id", "callbackUrl", "pauseWindowSeconds", "signingSecret",
                         "previousSigningSecretExpiresAt"} as JSON
${DATABASE_HELP}`,
    options: {
      ...DATABASE_OPTIONS,
      account: { type: 'string' },
      'callback-url': { type: 'string' },
      'pause-window': { type: 'string' },
      'rotate-signing-secret': { type: 'boolean' },
      'signing-overlap': { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(values) {
      const accountId = requireString(values, 'account')
      const accountNumber = parseId('acc', accountId)
      if (accountNumber === undefined) {
        throw new UsageError(`"${accountId}" is not an account ID (expected acc_<number>)`)
      }
      const duration = (name: string): number | undefined => {
        const value = values[name]
        if (typeof value !== 'string') return undefined
        try {
          return parseDurationSeconds(value)
        } catch (error) {
          throw new UsageError(`--${name}: ${(error as Error).message}`)
        }
      }
      const url = values['callback-url']
      const change: AccountSettingsChange = {
        ...(typeof url === 'string' ? { callbackUrl: url === '' || url === 'none' ? null : url } : {}),
        ...(values['pause-window'] !== undefined ? { pauseWindowSeconds: duration('pause-window') } : {}),
        ...(values['rotate-signing-secret'] === true ? { rotateSigningSecret: true } : {}),
        ...(values['signing-overlap'] !== undefined
          ? { signingSecretOverlapSeconds: duration('signing-overlap') }
          : {}),
      }
      if (Object.keys(change).length === 0) {
        throw new UsageError('nothing to change: give --callback-url, --pause-window or --rotate-signing-secret')
      }
      const result = await withAccounts(readDatabaseSettings(values), async (accounts) => {
        try {
          return await accounts.updateSettings(accountNumber, change)
        } catch (error) {
          if (error instanceof AccountError) throw new UsageError(error.message)
          throw error
        }
      })
      if ('problems' in result) {
        const flagOf: Record<string, string> = {
          callbackUrl: '--callback-url',
          pauseWindowSeconds: '--pause-window',
          signingSecretOverlapSeconds: '--signing-overlap',
        }
        throw new UsageError(
          Object.entries(result.problems)
            .map(([field, message]) => `${flagOf[field] ?? field}: ${message}`)
            .join('; '),
        )
      }
      const { settings } = result
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ id: accountId, ...settings })}\n`)
        return
      }
      process.stdout.write(
        `account ${accountId}\n` +
          `callback URL:    ${settings.callbackUrl ?? '-'}\n` +
          `pause window:    ${settings.pauseWindowSeconds}s\n` +
          `signing secret:  ${settings.signingSecret}\n` +
          (settings.previousSigningSecretExpiresAt
            ? `previous secret signs too until ${settings.previousSigningSecretExpiresAt}\n`
            : ''),
      )
    },
  },

  'accounts top-up': {
    summary: "add to a prepaid account's balance",
    usage: `printroute accounts top-up --account ID --amount AMOUNT [options]

Adds AMOUNT (in the account's billing currency, e.g. 50.00) to the balance of a prepaid account, then
pays from it, oldest first, every Live order waiting for a payment that the balance now covers; those
orders go on to their labs.

  --account ID           the account (acc_...)
  --amount AMOUNT        a positive decimal amount with at most two decimals
  --reference TEXT       a note kept in the account's ledger (a bank transfer reference, say)
  --json                 print {"account", "balance", "currency", "releasedOrderIds"} as JSON
${WORKER_HELP}
${DATABASE_HELP}`,
    options: {
      ...WORKER_OPTIONS,
      account: { type: 'string' },
      amount: { type: 'string' },
      reference: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(values) {
      const accountId = requireString(values, 'account')
      const accountNumber = parseId('acc', accountId)
      if (accountNumber === undefined)
        throw new UsageError(`"${accountId}" is not an account ID (expected acc_<number>)`)
      const amountText = requireString(values, 'amount')
      const amountMinor = /^\d{1,10}(\.\d{1,2})?$/.test(amountText) ? parseAmountToMinor(amountText) : undefined
      if (amountMinor === undefined || amountMinor <= 0n) {
        throw new UsageError(`--amount must be a positive amount such as 50.00, got "${amountText}"`)
      }
      const settings = readWorkerSettings(values)
      const logger = pino({ level: 'warn' }, pino.destination({ dest: 2, sync: true }))
      const catalogue = loadCatalogue(settings.catalogueFile ?? undefined)
      const opened = await openDatabase(settings)
      // The whole application (without workers): releasing an order enqueues its lab submissions.
      const app = await buildApplication({ ...applicationOptions(settings, opened, catalogue, logger), workers: false })
      try {
        const account = (await app.services.accounts.listAccounts()).find((candidate) => candidate.id === accountId)
        if (!account) throw new UsageError(`No account ${accountId}`)
        if (account.billingMode !== 'prepaid') {
          throw new UsageError(`${accountId} is billed by invoice; only prepaid accounts have a balance`)
        }
        const reference = typeof values.reference === 'string' ? values.reference : null
        const result = await app.services.payments.topUp(accountNumber, amountMinor, reference)
        const balance = formatMinorAsAmount(result.balanceMinor)
        if (values.json) {
          process.stdout.write(
            `${JSON.stringify({ account: accountId, balance, currency: result.currency, releasedOrderIds: result.releasedOrderIds })}\n`,
          )
          return
        }
        process.stdout.write(`${accountId} balance ${balance} ${result.currency}\n`)
        for (const orderId of result.releasedOrderIds) process.stdout.write(`paid and released ${orderId}\n`)
      } finally {
        await app.close()
        await opened.close()
      }
    },
  },

  'labs list': {
    summary: "list the catalogue's labs",
    usage: `printroute labs list [--catalogue FILE]

Lists the labs of the catalogue with their country, currency and the number of products each makes.`,
    options: { catalogue: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    async run(values) {
      const catalogue = loadCatalogue(typeof values.catalogue === 'string' ? values.catalogue : undefined)
      for (const lab of catalogue.labs) {
        const products = catalogue.products.filter((product) =>
          product.variants.some((variant) => variant.offers.some((offer) => offer.lab.code === lab.code)),
        )
        process.stdout.write(
          `${lab.code}\t${lab.countryCode}\t${lab.currency}\t${products.length} products\t${lab.name}\n`,
        )
      }
    },
  },

  'labs keys create': {
    summary: 'create a lab key for the lab API',
    usage: `printroute labs keys create --lab CODE [options]

Prints a key (shown once) with which a production lab reads its jobs and reports progress on the Live
address under /labs/v1.

  --lab CODE             the lab's code in the catalogue (see printroute labs list)
  --catalogue FILE       product catalogue (default the bundled sample)
${DATABASE_HELP}`,
    options: { ...DATABASE_OPTIONS, lab: { type: 'string' }, catalogue: { type: 'string' } },
    async run(values) {
      const labCode = requireString(values, 'lab')
      const catalogue = loadCatalogue(typeof values.catalogue === 'string' ? values.catalogue : undefined)
      const opened = await openDatabase(readDatabaseSettings(values))
      try {
        const issued = await createLabKeyOnly(opened.db, catalogue, labCode)
        process.stdout.write(`${issued.key}\n`)
      } finally {
        await opened.close()
      }
    },
  },

  'keys create': {
    summary: 'create an API key for an account',
    usage: `printroute keys create --account ID --env sandbox|live [options]

${DATABASE_HELP}`,
    options: { ...DATABASE_OPTIONS, account: { type: 'string' }, env: { type: 'string' } },
    async run(values) {
      const accountId = requireString(values, 'account')
      const environment = environmentOf(requireString(values, 'env'))
      const issued = await withAccounts(readDatabaseSettings(values), (accounts) =>
        accounts.createApiKey(accountId, environment),
      )
      process.stdout.write(`${issued.key}\n`)
    },
  },

  'keys list': {
    summary: "list an account's keys (prefixes only)",
    usage: `printroute keys list --account ID [options]

${DATABASE_HELP}`,
    options: { ...DATABASE_OPTIONS, account: { type: 'string' } },
    async run(values) {
      const accountId = requireString(values, 'account')
      const keys = await withAccounts(readDatabaseSettings(values), (accounts) => accounts.listApiKeys(accountId))
      for (const key of keys) {
        process.stdout.write(
          `${key.prefix}\t${key.environment}\tcreated ${key.createdAt.toISOString()}\t${key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active'}\n`,
        )
      }
    },
  },

  'keys revoke': {
    summary: 'revoke an API key by its visible prefix',
    usage: `printroute keys revoke KEY_PREFIX [options]

Revokes the key whose prefix is given (as shown by keys list, e.g. pr_live_AbCdEf12).
Running API processes stop accepting it within 5 seconds.

${DATABASE_HELP}`,
    options: { ...DATABASE_OPTIONS },
    positionals: true,
    async run(values, positionals) {
      const prefix = positionals[0]
      if (!prefix) throw new UsageError('KEY_PREFIX is required')
      await withAccounts(readDatabaseSettings(values), (accounts) => accounts.revokeApiKey(prefix))
      process.stdout.write(`revoked ${prefix}\n`)
    },
  },
}

function mainHelp(): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(18)} ${command.summary}`)
  return `printroute: a self-hostable print-on-demand order service

Usage: printroute COMMAND [options]   (printroute COMMAND --help for its options)

${lines.join('\n')}
`
}

export async function runCli(argv: string[]): Promise<number> {
  const [first] = argv
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(mainHelp())
    return first ? 0 : 1
  }
  // The longest run of leading words that names a command: `serve`, `accounts create`, `labs keys create`.
  const words = argv.slice(0, 3).filter((word, index) => index === 0 || !word.startsWith('-'))
  let name = first
  for (let count = words.length; count > 0; count--) {
    const candidate = words.slice(0, count).join(' ')
    if (COMMANDS[candidate]) {
      name = candidate
      break
    }
  }
  const command = COMMANDS[name]
  if (!command) {
    const group = Object.keys(COMMANDS).filter((key) => key.startsWith(`${first} `))
    process.stderr.write(
      group.length > 0
        ? `printroute ${first}: choose one of: ${group.map((key) => `printroute ${key}`).join(', ')}\n`
        : `printroute: unknown command "${first}"\n\n${mainHelp()}`,
    )
    return 2
  }
  const rest = argv.slice(name.split(' ').length)
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      args: rest,
      options: command.options,
      allowPositionals: command.positionals ?? false,
      strict: true,
    })
  } catch (error) {
    process.stderr.write(`printroute ${name}: ${(error as Error).message}\n\n${command.usage}\n`)
    return 2
  }
  if (parsed.values.help) {
    process.stdout.write(`${command.usage}\n`)
    return 0
  }
  try {
    await command.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals)
    return 0
  } catch (error) {
    const message = (error as Error).message
    process.stderr.write(`printroute ${name}: ${message}\n`)
    if (error instanceof UsageError) process.stderr.write(`\n${command.usage}\n`)
    return error instanceof UsageError ? 2 : 1
  }
}
