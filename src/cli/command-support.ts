// What every command shares: options made from the settings table, the exit codes, and running a data
// operation either in the `serve` that holds the embedded database (admin channel) or in this process.
// The application's modules (database, Fastify, sharp...) are imported only when a command runs, so that
// help, version and mistakes answer at once.
import { join, resolve } from 'node:path'
import { type Command, Option } from 'commander'
import type { Database } from '../adapters/database.ts'
import type { Application } from '../app.ts'
import {
  type FlagValues,
  isEnvOnly,
  readSettings,
  type SettingCommand,
  type SettingName,
  type Settings,
  type SettingsOf,
  settingFlag,
  settingHelp,
  settingsOf,
} from '../config.ts'
import { parseDurationSeconds } from '../domain/duration.ts'
import { ENVIRONMENTS, type Environment } from '../domain/environment.ts'
import type { AdminOperations, OperationName } from './admin-operations.ts'
import { OperationError } from './operation-error.ts'

/** A command used wrongly (a missing or bad flag): exit code 2, with the command's help pointed at. */
export class UsageError extends OperationError {
  constructor(message: string) {
    super(message, 2)
  }
}

const SETTING_OPTIONS = new WeakMap<Command, Map<SettingName, Option>>()

/** Adds the options of every setting `settingCommand` takes, as the settings table defines them. */
export function addSettingOptions(command: Command, settingCommand: SettingCommand): Command {
  const options = new Map<SettingName, Option>()
  for (const name of settingsOf(settingCommand)) {
    if (isEnvOnly(name)) continue
    const option = new Option(settingFlag(name), settingHelp(name))
    command.addOption(option)
    options.set(name, option)
  }
  SETTING_OPTIONS.set(command, options)
  return command
}

/**
 * All the settings a command takes (its name in the settings table): its flags as given, else the
 * environment, else the table's defaults.
 */
export function settingsFor<C extends SettingCommand>(
  command: Command,
  settingCommand: C,
): Pick<Settings, SettingsOf<C>> {
  const options = SETTING_OPTIONS.get(command) ?? new Map<SettingName, Option>()
  const flags: FlagValues = {}
  for (const [name, option] of options) {
    const key = option.attributeName()
    // Only flags typed on the command line count as flags; commander's own defaults (true for `--no-x`) do not.
    if (command.getOptionValueSource(key) !== 'cli') continue
    const value = command.getOptionValue(key)
    flags[name] = typeof value === 'string' ? value : true
  }
  return readSettings(settingsOf(settingCommand), flags)
}

/**
 * A command's own option: its flags, its help and, for some, its default or how repeated values collect; or a
 * commander Option, for one that needs more (a fixed set of choices).
 */
export type OptionSpec =
  | readonly [flags: string, help: string]
  | readonly [flags: string, help: string, fallback: string]
  | readonly [flags: string, help: string, collect: (value: string, previous: string[] | undefined) => string[]]
  | Option

/** What a data command says of itself (its help), and what it takes besides the settings. */
export interface DataCommandSpec {
  summary: string
  description?: string
  /** One argument: its name (`<KEY_ID>`) and its help. */
  argument?: readonly [name: string, help: string]
  options?: readonly OptionSpec[]
}

/**
 * Declares the data command `parent NAME`, NAME being the last word of `settingCommand` (its name in the settings
 * table): its help, its own options, then the options of the settings it takes; its action gets the flags' values,
 * the command's settings (read when asked) and its argument, if it declares one.
 */
export function dataCommand<C extends SettingCommand>(
  parent: Command,
  settingCommand: C,
  spec: DataCommandSpec,
  action: (values: Values, settings: () => Pick<Settings, SettingsOf<C>>, argument: string) => Promise<void>,
): Command {
  const command = parent.command(settingCommand.split(' ').at(-1) ?? settingCommand).summary(spec.summary)
  if (spec.description !== undefined) command.description(spec.description)
  if (spec.argument) command.argument(spec.argument[0], spec.argument[1])
  for (const option of spec.options ?? []) {
    if (option instanceof Option) {
      command.addOption(option)
      continue
    }
    const [flags, help, third] = option
    if (third === undefined) command.option(flags, help)
    else if (typeof third === 'function') command.option(flags, help, third)
    else command.option(flags, help, third)
  }
  return addSettingOptions(command, settingCommand).action(async (...received: unknown[]) => {
    const [argument, values] = spec.argument ? [received[0] as string, received[1]] : ['', received[0]]
    await action(values as Values, () => settingsFor(command, settingCommand), argument)
  })
}

export function requireText(value: unknown, flag: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`${flag} is required`)
  return value
}

/** A command's flag values as commander hands them to its action. */
export type Values = Record<string, string | boolean | undefined>

/** A duration flag (`30m`, `24h`) in seconds; undefined when the flag was not given. */
export function durationSeconds(value: unknown, flag: string): number | undefined {
  if (typeof value !== 'string') return undefined
  try {
    return parseDurationSeconds(value)
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`)
  }
}

/** An `--env` flag's environment, in any case. */
export function environmentOf(value: string): Environment {
  const environment = ENVIRONMENTS.find((candidate) => candidate === value.toLowerCase())
  if (!environment) throw new UsageError(`--env must be sandbox or live, got "${value}"`)
  return environment
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

/** A line about the command itself, on stderr: stdout is the command's result alone. */
export function note(text: string): void {
  process.stderr.write(`printroute: ${text}\n`)
}

export function printJson(value: unknown): void {
  print(JSON.stringify(value))
}

/** The Live address `serve` has when none is configured: what names the instance on documents of no seller. */
const DEFAULT_LIVE_ADDRESS = 'http://127.0.0.1:8080'

interface DataSettings {
  dataDir: string
  databaseUrl: string | null
  catalogueFile?: string | null
  eventVendor?: string
  livePublicUrl?: string | null
  sandboxPublicUrl?: string | null
}

/**
 * Which database a data command uses, for the one line it writes on stderr: the embedded one in the data
 * directory (its absolute path), or the PostgreSQL server's host, port and database from its URL, never the
 * user or password it carries.
 */
export function describeDatabase(settings: Pick<DataSettings, 'dataDir' | 'databaseUrl'>): string {
  if (!settings.databaseUrl) return `the embedded database in ${resolve(settings.dataDir)}`
  return `PostgreSQL at ${postgresAddress(settings.databaseUrl)}`
}

/** `host:port/database` of a PostgreSQL URL (libpq's defaults filled in), or a label when it is no URL. */
export function postgresAddress(databaseUrl: string): string {
  let url: URL
  try {
    url = new URL(databaseUrl)
  } catch {
    return '(DATABASE_URL, not a URL printroute can show)'
  }
  // A Unix socket is given as ?host=/path; the database defaults to the user's name, which is not shown.
  const host = decodeURIComponent(url.hostname) || url.searchParams.get('host') || 'localhost'
  const port = url.port || url.searchParams.get('port') || '5432'
  const database = decodeURIComponent(url.pathname.slice(1)) || url.searchParams.get('dbname') || '(default database)'
  return `${host}:${port}/${database}`
}

// Errors of reaching and logging in to the server, by Node's or PostgreSQL's code, said without the driver's
// object (whose fields carry the connection's user and host) and without the user's name.
const DATABASE_OPEN_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused: is PostgreSQL running there?',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'the host name is not known',
  EAI_AGAIN: 'the host name could not be looked up (temporary DNS failure)',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENOENT: 'no PostgreSQL socket there',
  '28P01': 'password authentication failed',
  '28000': 'the server refused this user (no such role, or not allowed by pg_hba.conf)',
  '3D000': 'the database does not exist',
  '53300': 'the server has too many connections',
  '57P03': 'the server is starting up or shutting down',
}

/** One line for a failure to open a PostgreSQL database, or undefined when `error` is not one. */
export function databaseOpenFailure(error: unknown, databaseUrl: string): string | undefined {
  // Node tries every address of a name (IPv4 and IPv6) and may report them together: the first says enough.
  const failed = error instanceof AggregateError && !('code' in error) ? error.errors[0] : error
  const code = (failed as { code?: unknown } | null)?.code
  const reason = typeof code === 'string' ? DATABASE_OPEN_FAILURES[code] : undefined
  if (reason === undefined) return undefined
  return `cannot open the database, PostgreSQL at ${postgresAddress(databaseUrl)}: ${reason} (${code})`
}

/**
 * The whole application (without workers) for a data command's own process, built on first use and once: it serves
 * the active catalogue version, or the file given with --catalogue, as serve would.
 */
function lazyApplication(
  settings: DataSettings,
  db: Database,
  modules: {
    buildApplication: typeof import('../app.ts').buildApplication
    readCatalogueFile: typeof import('../catalogue/catalogue.loader.ts').readCatalogueFile
    createLogger: typeof import('../adapters/logger.ts').createLogger
  },
): { get(): Promise<Application>; close(): Promise<void> } {
  let application: Promise<Application> | null = null
  return {
    get() {
      application ??= (async () => {
        const file = settings.catalogueFile ? modules.readCatalogueFile(settings.catalogueFile) : null
        return modules.buildApplication({
          db,
          databaseUrl: settings.databaseUrl,
          ...(file ? { catalogue: file.catalogue, catalogueText: file.text } : {}),
          logger: modules.createLogger({ level: 'warn', format: 'json', destination: 2 }),
          filesDir: join(settings.dataDir, 'files'),
          workers: false,
          publicUrls: {
            ...(settings.livePublicUrl ? { live: settings.livePublicUrl } : {}),
            ...(settings.sandboxPublicUrl ? { sandbox: settings.sandboxPublicUrl } : {}),
          },
          ...(settings.eventVendor ? { eventVendor: settings.eventVendor } : {}),
        })
      })()
      return application
    },
    async close() {
      await (await application?.catch(() => null))?.close()
    },
  }
}

/**
 * Runs a data operation. With the embedded database, a `serve` holding the data directory runs it itself
 * (admin channel); otherwise this process opens the database, runs it and closes it again. Either way one line
 * on stderr says which database it is, so a command run against the wrong one shows it (stdout stays the
 * result, parseable with --json).
 */
export async function runDataOperation<N extends OperationName>(
  settings: DataSettings,
  name: N,
  input: Parameters<AdminOperations[N]>[0],
): Promise<Awaited<ReturnType<AdminOperations[N]>>> {
  type Result = Awaited<ReturnType<AdminOperations[N]>>
  if (!settings.databaseUrl) {
    const { callAdminChannel } = await import('../adapters/admin-channel.ts')
    const answer = await callAdminChannel(settings.dataDir, name, input ?? {})
    // A symbol: nothing serves this data directory, so this process opens it.
    if (typeof answer !== 'symbol') {
      note(`using ${describeDatabase(settings)}, through the serve running on it (its admin channel)`)
      if ('error' in answer) throw new OperationError(answer.error.message, answer.error.exitCode)
      return answer.result as Result
    }
  }
  const [
    { systemClock },
    { createLogger },
    { buildApplication, openDatabase },
    { loadCatalogue, checkCatalogueText, readCatalogueFile, readSampleCatalogueText },
    accounts,
    labs,
    labPushes,
    { newSigningSecret },
    { createInvoicesService },
    { renderInvoicePdf, renderStatementPdf, renderLabStatementPdf },
    { createCatalogueVersionsService },
    { silentLogger },
    { createAuditService },
    { createOperatorsService },
    { revenueSourceOf },
    { createLabStatementsService },
  ] = await Promise.all([
    import('../adapters/clock.ts'),
    import('../adapters/logger.ts'),
    import('../app.ts'),
    import('../catalogue/catalogue.loader.ts'),
    import('../services/accounts.service.ts'),
    import('../services/labs/labs.service.ts'),
    import('../services/labs/lab-pushes.service.ts'),
    import('../domain/webhook-signature.ts'),
    import('../services/invoices.service.ts'),
    import('../adapters/invoice-pdf.ts'),
    import('../services/catalogue-versions.service.ts'),
    import('../services/observability.ts'),
    import('../services/audit.service.ts'),
    import('../services/operators.service.ts'),
    import('../services/operator/revenue.ts'),
    import('../services/lab-statements.service.ts'),
  ])
  const { commandLineActor, createAdminOperations, runOperation } = await import('./admin-operations.ts')
  const { createAccountsService } = accounts
  const { createLabsService } = labs
  // Only migrate reports what it applied; every other command brings the schema up to date first.
  const opened = await openDatabase(settings, { migrate: name !== 'migrate' }).catch((error: unknown) => {
    const failure = settings.databaseUrl ? databaseOpenFailure(error, settings.databaseUrl) : undefined
    throw failure === undefined ? error : new OperationError(failure, 1)
  })
  note(`using ${describeDatabase(settings)}`)
  const catalogueVersions = createCatalogueVersionsService({
    db: opened.db,
    clock: systemClock,
    parse: checkCatalogueText,
    log: silentLogger,
    sample: readSampleCatalogueText,
  })
  // Labs and currencies are checked against the catalogue the processes serve: the file given (which serve would
  // activate), else the active version. `migrate` runs before the versions' table may exist.
  let served =
    settings.catalogueFile || name === 'migrate'
      ? undefined
      : await catalogueVersions.activeCatalogue().catch(async (error: unknown) => {
          await opened.close()
          throw error
        })
  const catalogue = () => {
    served ??= loadCatalogue(settings.catalogueFile ?? undefined)
    return served
  }
  const labsWithoutPipeline = () =>
    createLabsService({
      db: opened.db,
      clock: systemClock,
      catalogue: catalogue(),
      pipeline: undefined as never,
      commercialInvoices: undefined as never,
    })
  const labPushSettings = () =>
    labPushes.createLabPushSettings({ db: opened.db, clock: systemClock, catalogue: catalogue(), newSigningSecret })
  const invoices = createInvoicesService({
    db: opened.db,
    clock: systemClock,
    taxRateOf: (countryCode) => catalogue().taxRate(countryCode),
    instanceName: () => settings.livePublicUrl ?? DEFAULT_LIVE_ADDRESS,
    pdfLink: () => {
      throw new Error('the command line makes no invoice links')
    },
    renderInvoicePdf,
    renderStatementPdf,
  })
  // The whole application, without workers, only for the operations that need it (a top-up, a move).
  const whole = lazyApplication(settings, opened.db, { buildApplication, readCatalogueFile, createLogger })
  try {
    const operations = createAdminOperations({
      db: opened.db,
      accounts: createAccountsService({
        db: opened.db,
        clock: systemClock,
        isKnownCurrency: (code) => catalogue().isKnownCurrency(code),
      }),
      operators: createOperatorsService({ db: opened.db, clock: systemClock }),
      // Lab keys and pausing a lab need only the database and the catalogue, not the pipeline.
      labs: {
        createLabKey: (labCode, actor) => labsWithoutPipeline().createLabKey(labCode, actor),
        listLabKeys: (labCode) => labsWithoutPipeline().listLabKeys(labCode),
        rotateLabKey: (labCode, overlap, actor) => labsWithoutPipeline().rotateLabKey(labCode, overlap, actor),
        revokeLabKey: (labCode, keyId, actor) => labsWithoutPipeline().revokeLabKey(labCode, keyId, actor),
        setPaused: (labCode, paused, actor) => labsWithoutPipeline().setPaused(labCode, paused, actor),
      },
      // A lab's push settings, too: its pushes are made by the serving process's workers.
      labPushes: {
        configure: (labCode, change, actor) => labPushSettings().configure(labCode, change, actor),
        show: (labCode) => labPushSettings().show(labCode),
      },
      catalogueVersions,
      // A top-up releases orders, which enqueues their lab submissions: the whole application, without workers.
      payments: async () => (await whole.get()).services.payments,
      // A move to another lab plans, renders and submits through the pipeline's parts: the whole application too.
      shipmentMoves: async () => (await whole.get()).services.shipmentMoves,
      // An order action changes an order as the merchant's actions and the pipeline do: the application, too.
      orderOperations: async () => (await whole.get()).services.orderOperations,
      // A claim's reprint is allocated, rendered and submitted through the pipeline's parts: the application too.
      claims: async () => (await whole.get()).services.claimResolution,
      // Statements and the seller need only the database (and the PDF adapter), not the application.
      invoices,
      // The labs' statements too: the seller's details as buyer, the catalogue's labs as sellers.
      labStatements: createLabStatementsService({
        db: opened.db,
        clock: systemClock,
        labOf: (labCode) => catalogue().labs.find((lab) => lab.code === labCode),
        buyer: async () => (await invoices.seller()).seller,
        renderPdf: renderLabStatementPdf,
      }),
      audit: createAuditService({ db: opened.db }),
      revenue: revenueSourceOf(opened.db),
      actor: commandLineActor(),
    })
    return (await runOperation(operations, name, input ?? {})) as Result
  } finally {
    await whole.close()
    await opened.close()
  }
}
