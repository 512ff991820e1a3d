// What every command shares: options made from the settings table, the exit codes, and running a data
// operation either in the `serve` that holds the embedded database (admin channel) or in this process.
// The application's modules (database, Fastify, sharp...) are imported only when a command runs, so that
// help, version and mistakes answer at once.
import { join } from 'node:path'
import { type Command, Option } from 'commander'
import type { Application } from '../app.ts'
import {
  type FlagValues,
  readSettings,
  type SettingCommand,
  type SettingName,
  type Settings,
  type SettingsOf,
  settingFlag,
  settingHelp,
  settingsOf,
} from '../config.ts'
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

export function requireText(value: unknown, flag: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`${flag} is required`)
  return value
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

export function printJson(value: unknown): void {
  print(JSON.stringify(value))
}

interface DataSettings {
  dataDir: string
  databaseUrl: string | null
  catalogueFile?: string | null
  eventVendor?: string
  livePublicUrl?: string | null
  sandboxPublicUrl?: string | null
}

/**
 * Runs a data operation. With the embedded database, a `serve` holding the data directory runs it itself
 * (admin channel); otherwise this process opens the database, runs it and closes it again.
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
      if ('error' in answer) throw new OperationError(answer.error.message, answer.error.exitCode)
      return answer.result as Result
    }
  }
  const [{ systemClock }, { createLogger }, { buildApplication, openDatabase }, { loadCatalogue }, accounts, labs] =
    await Promise.all([
      import('../adapters/clock.ts'),
      import('../adapters/logger.ts'),
      import('../app.ts'),
      import('../catalogue/catalogue.loader.ts'),
      import('../services/accounts.service.ts'),
      import('../services/labs.service.ts'),
    ])
  const { createAdminOperations, runOperation } = await import('./admin-operations.ts')
  const { createAccountsService } = accounts
  const { createLabsService } = labs
  // Only migrate reports what it applied; every other command brings the schema up to date first.
  const opened = await openDatabase(settings, { migrate: name !== 'migrate' })
  const catalogue = () => loadCatalogue(settings.catalogueFile ?? undefined)
  let application: Application | null = null
  try {
    const operations = createAdminOperations({
      db: opened.db,
      accounts: createAccountsService({
        db: opened.db,
        clock: systemClock,
        isKnownCurrency: (code) => catalogue().isKnownCurrency(code),
      }),
      // Issuing a lab key needs only the database and the catalogue, not the pipeline.
      labs: {
        createLabKey: (labCode) =>
          createLabsService({
            db: opened.db,
            clock: systemClock,
            catalogue: catalogue(),
            pipeline: undefined as never,
          }).createLabKey(labCode),
      },
      // A top-up releases orders, which enqueues their lab submissions: the whole application, without workers.
      async payments() {
        application = await buildApplication({
          db: opened.db,
          databaseUrl: settings.databaseUrl,
          catalogue: catalogue(),
          logger: createLogger({ level: 'warn', format: 'json', destination: 2 }),
          filesDir: join(settings.dataDir, 'files'),
          workers: false,
          publicUrls: {
            ...(settings.livePublicUrl ? { live: settings.livePublicUrl } : {}),
            ...(settings.sandboxPublicUrl ? { sandbox: settings.sandboxPublicUrl } : {}),
          },
          ...(settings.eventVendor ? { eventVendor: settings.eventVendor } : {}),
        })
        return application.services.payments
      },
    })
    return (await runOperation(operations, name, input ?? {})) as Result
  } finally {
    await (application as Application | null)?.close()
    await opened.close()
  }
}
