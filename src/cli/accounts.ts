// `printroute accounts`: create, list, update, top up, statements, suspend and reactivate accounts.
import { type Command, Option } from 'commander'
import { ENVIRONMENTS } from '../domain/environment.ts'
import { SANDBOX_SCENARIOS } from '../domain/sandbox-scenarios.ts'
import type { AccountSettings, AccountSettingsChange } from '../services/accounts.service.ts'
import {
  addSettingOptions,
  durationSeconds,
  environmentOf,
  print,
  printJson,
  requireText,
  runDataOperation,
  settingsFor,
  UsageError,
  type Values,
} from './command-support.ts'

export function registerAccountCommands(program: Command): void {
  const accounts = program.command('accounts').summary('create, list, update, top up, suspend and reactivate accounts')

  const create = accounts
    .command('create')
    .summary('create an account with one Sandbox and one Live key')
    .description('Creates an account and prints its ID and one Sandbox and one Live key (shown once).')
    .option('--name <NAME>', 'account name (required)')
    .option('--currency <CODE>', 'billing currency; the catalogue must have a rate for it', 'GBP')
    .addOption(
      new Option(
        '--billing-mode <MODE>',
        'how Live charges are settled (prepaid: from a balance that accounts top-up adds to)',
      ).default('invoice'),
    )
    .option('--pause-window <DUR>', 'hold new orders this long before fulfilment, e.g. 30m', '0')
    .option('--callback-url <URL>', 'callback URL of both environments (Sandbox and Live)')
    .option('--sandbox-callback-url <URL>', "Sandbox's callback URL, when it differs from --callback-url")
    .option('--json', 'print {"id", "keys": {"sandbox", "live"}} as JSON')
  addSettingOptions(create, 'accounts create').action(async (values: Values) => {
    const name = requireText(values.name, '--name')
    const billingMode = String(values.billingMode)
    if (billingMode !== 'invoice' && billingMode !== 'prepaid') {
      throw new UsageError(`--billing-mode must be invoice or prepaid, got "${billingMode}"`)
    }
    const settings = settingsFor(create, 'accounts create')
    const created = await runDataOperation(settings, 'createAccount', {
      name,
      billingCurrency: String(values.currency).toUpperCase(),
      billingMode,
      pauseWindowSeconds: durationSeconds(values.pauseWindow, '--pause-window') ?? 0,
      callbackUrl: typeof values.callbackUrl === 'string' ? values.callbackUrl : null,
      ...(typeof values.sandboxCallbackUrl === 'string'
        ? { callbackUrls: { sandbox: values.sandboxCallbackUrl } }
        : {}),
    })
    if (values.json) return printJson(created)
    print(
      `account ${created.id} (${name})\n` +
        `sandbox key: ${created.keys.sandbox}\n` +
        `live key:    ${created.keys.live}\n` +
        'The keys are shown once; printroute keeps only their hashes.',
    )
  })

  const list = accounts.command('list').summary('list accounts').option('--json', 'print the accounts as JSON')
  addSettingOptions(list, 'accounts list').action(async (values: Values) => {
    const found = await runDataOperation(settingsFor(list, 'accounts list'), 'listAccounts', undefined)
    if (values.json) return printJson(found)
    for (const account of found) {
      print(
        `${account.id}\t${account.name}\t${account.billingCurrency}\t${account.billingMode}` +
          `${account.billingMode === 'prepaid' ? ` balance ${account.balance}` : ''}` +
          `\tpause ${account.pauseWindowSeconds}s` +
          `\tsandbox ${account.callbackUrls.sandbox ?? '-'}\tlive ${account.callbackUrls.live ?? '-'}`,
      )
    }
  })

  registerUpdateCommand()

  /** accounts update: one account's settings. */
  function registerUpdateCommand(): void {
    const update = accounts
      .command('update')
      .summary(
        "change an account's callback URL, pause window, callback signing secret, address validation or callback events",
      )
      .description(
        'Changes the settings given; the others stay as they are. Sandbox and Live each have their own callback ' +
          'URL and signing secret: --callback-url and --rotate-signing-secret apply to both unless --env names ' +
          "one; the pause window is the account's. Prints both environments' settings as they are then, with " +
          'the secrets their callbacks are signed with (docs/callbacks.md).',
      )
      .option('--account <ID>', 'the account (acc_...)')
      .option(
        '--env <ENV>',
        "change only this environment's callback URL, signing secret, address validation or callback events: sandbox or live",
      )
      .option('--callback-url <URL>', 'callback URL (an order\'s own wins); "" or none removes it')
      .option('--pause-window <DUR>', 'hold new orders this long before fulfilment, e.g. 30m (0: none)')
      .option('--rotate-signing-secret', 'replace the callback signing secret; the old one keeps signing for a while')
      .option(
        '--sandbox-scenario <NAME>',
        `the scenario new Sandbox orders take when they name none (docs/sandbox.md): ${SANDBOX_SCENARIOS.join(', ')}; none removes it`,
      )
      .option(
        '--address-validation <MODE>',
        'an order whose address has a problem that stops delivery: warn (created with an issue), refuse (400) or ' +
          'off (no address checks); both environments unless --env names one (docs/addresses.md)',
      )
      .option(
        '--callback-events <SET>',
        "which events the callback URLs get: all, or prodigi (only the Prodigi Print API's types); both " +
          'environments unless --env names one (docs/callbacks.md)',
      )
      .option(
        '--signing-overlap <DUR>',
        'with --rotate-signing-secret: how long the old secret keeps signing (default 24h)',
      )
      .option(
        '--json',
        'print {"id", "pauseWindowSeconds", "sandbox": {...}, "live": {...}}, each environment\'s {"callbackUrl", ' +
          '"signingSecret", "previousSigningSecretExpiresAt"}',
      )
    addSettingOptions(update, 'accounts update').action(async (values: Values) => {
      const account = requireText(values.account, '--account')
      const url = values.callbackUrl
      const pauseWindowSeconds = durationSeconds(values.pauseWindow, '--pause-window')
      const overlap = durationSeconds(values.signingOverlap, '--signing-overlap')
      const scenario = values.sandboxScenario
      const change: AccountSettingsChange = {
        ...(typeof url === 'string' ? { callbackUrl: url === '' || url === 'none' ? null : url } : {}),
        ...(pauseWindowSeconds !== undefined ? { pauseWindowSeconds } : {}),
        ...(values.rotateSigningSecret === true ? { rotateSigningSecret: true } : {}),
        ...(overlap !== undefined ? { signingSecretOverlapSeconds: overlap } : {}),
        ...(typeof scenario === 'string'
          ? { sandboxScenario: scenario === 'none' || scenario === '' ? null : scenario }
          : {}),
        ...(typeof values.addressValidation === 'string'
          ? { addressValidation: values.addressValidation.toLowerCase() }
          : {}),
        ...(typeof values.callbackEvents === 'string' ? { callbackEvents: values.callbackEvents.toLowerCase() } : {}),
      }
      if (Object.keys(change).length === 0) {
        throw new UsageError(
          'nothing to change: give --callback-url, --pause-window, --rotate-signing-secret, --sandbox-scenario, ' +
            '--address-validation or --callback-events',
        )
      }
      const environments = typeof values.env === 'string' ? [environmentOf(values.env)] : undefined
      if (change.sandboxScenario !== undefined && environments?.[0] === 'live') {
        throw new UsageError('--sandbox-scenario is a Sandbox setting: it cannot go with --env live')
      }
      const result = await runDataOperation(settingsFor(update, 'accounts update'), 'updateAccount', {
        account,
        change,
        ...(environments ? { environments } : {}),
      })
      if ('problems' in result) {
        const flagOf: Record<string, string> = {
          callbackUrl: '--callback-url',
          pauseWindowSeconds: '--pause-window',
          signingSecretOverlapSeconds: '--signing-overlap',
          sandboxScenario: '--sandbox-scenario',
          addressValidation: '--address-validation',
          callbackEvents: '--callback-events',
        }
        throw new UsageError(
          Object.entries(result.problems)
            .map(([field, message]) => `${flagOf[field] ?? field}: ${message}`)
            .join('; '),
        )
      }
      const { settings } = result
      const ofEnvironment = ({
        callbackUrl,
        signingSecret,
        previousSigningSecretExpiresAt,
        sandboxScenario,
        addressValidation,
        callbackEvents,
      }: AccountSettings) => ({
        callbackUrl,
        signingSecret,
        previousSigningSecretExpiresAt,
        ...(sandboxScenario !== undefined ? { sandboxScenario } : {}),
        addressValidation,
        callbackEvents,
      })
      if (values.json) {
        return printJson({
          id: account,
          pauseWindowSeconds: settings.live.pauseWindowSeconds,
          sandbox: ofEnvironment(settings.sandbox),
          live: ofEnvironment(settings.live),
        })
      }
      const lines = [`account ${account}`, `pause window:    ${settings.live.pauseWindowSeconds}s`]
      for (const environment of ENVIRONMENTS) {
        const shown = settings[environment]
        lines.push(
          `${environment}:`,
          `  callback URL:    ${shown.callbackUrl ?? '-'}`,
          `  signing secret:  ${shown.signingSecret}`,
          ...(shown.previousSigningSecretExpiresAt
            ? [`  previous secret signs too until ${shown.previousSigningSecretExpiresAt}`]
            : []),
          ...(shown.sandboxScenario !== undefined ? [`  scenario:        ${shown.sandboxScenario ?? '-'}`] : []),
          `  addresses:       ${shown.addressValidation}`,
          `  callback events: ${shown.callbackEvents}`,
        )
      }
      print(lines.join('\n'))
    })
  }

  const topUp = accounts
    .command('top-up')
    .summary("add to a prepaid account's balance")
    .description(
      "Adds AMOUNT (in the account's billing currency, e.g. 50.00) to the balance of a prepaid account, then " +
        'pays from it, oldest first, every Live order waiting for a payment that the balance now covers; those ' +
        'orders go on to their labs.',
    )
    .option('--account <ID>', 'the account (acc_...)')
    .option('--amount <AMOUNT>', 'a positive decimal amount with at most two decimals')
    .option('--reference <TEXT>', "a note kept in the account's ledger (a bank transfer reference, say)")
    .option('--json', 'print {"account", "balance", "currency", "releasedOrderIds"} as JSON')
  addSettingOptions(topUp, 'accounts top-up').action(async (values: Values) => {
    const account = requireText(values.account, '--account')
    const amount = requireText(values.amount, '--amount')
    const result = await runDataOperation(settingsFor(topUp, 'accounts top-up'), 'topUp', {
      account,
      amount,
      reference: typeof values.reference === 'string' ? values.reference : null,
    })
    if (values.json) return printJson(result)
    print(`${result.account} balance ${result.balance} ${result.currency}`)
    for (const orderId of result.releasedOrderIds) print(`paid and released ${orderId}`)
  })

  const statement = accounts
    .command('statement')
    .summary("an account's monthly statement of invoices and credit notes (CSV or PDF)")
    .description(
      'Every invoice and credit note issued to the account in MONTH (YYYY-MM, UTC) in one environment (Live by ' +
        'default), with totals per currency. CSV is printed unless --output names a file; a PDF is written to ' +
        '--output, or to statement-<account>-<month>.pdf in the current directory.',
    )
    .option('--account <ID>', 'the account (acc_...)')
    .option('--month <YYYY-MM>', 'the month, in UTC')
    .addOption(new Option('--format <FORMAT>', 'csv or pdf').choices(['csv', 'pdf']).default('csv'))
    .option('--env <ENV>', 'live (default) or sandbox')
    .option('--output <FILE>', 'write the statement to FILE')
  addSettingOptions(statement, 'accounts statement').action(async (values: Values) => {
    const account = requireText(values.account, '--account')
    const month = requireText(values.month, '--month')
    const format = values.format === 'pdf' ? 'pdf' : 'csv'
    const environment = typeof values.env === 'string' ? environmentOf(values.env) : 'live'
    const file = await runDataOperation(settingsFor(statement, 'accounts statement'), 'accountStatement', {
      account,
      month,
      format,
      environment,
    })
    const bytes = Buffer.from(file.content, file.encoding)
    const output = typeof values.output === 'string' ? values.output : format === 'pdf' ? file.fileName : null
    if (output === null) {
      process.stdout.write(bytes)
      return
    }
    const { writeFileSync } = await import('node:fs')
    writeFileSync(output, bytes)
    print(`${output}: ${file.documentCount} document${file.documentCount === 1 ? '' : 's'}`)
  })

  registerSuspensionCommands()

  /** accounts suspend and accounts reactivate. */
  function registerSuspensionCommands(): void {
    const suspend = accounts
      .command('suspend')
      .summary('suspend an account: its keys answer 403, its dashboard sessions end')
      .description(
        'Suspends an account: every request with one of its keys answers 403 Forbidden (docs/errors.md) and its ' +
          'dashboard sessions end at once; its orders in flight go on to completion. The serving process refuses the ' +
          'keys at once, other processes on the same PostgreSQL within 5 seconds. Recorded in the audit trail. ' +
          'Works while serve runs.',
      )
      .option('--account <ID>', 'the account (acc_...)')
      .option('--reason <TEXT>', 'a note kept with the suspension (shown in the console and the audit trail)')
    addSettingOptions(suspend, 'accounts suspend').action(async (values: Values) => {
      const account = requireText(values.account, '--account')
      const result = await runDataOperation(settingsFor(suspend, 'accounts suspend'), 'suspendAccount', {
        account,
        reason: typeof values.reason === 'string' ? values.reason : null,
      })
      print(`suspended ${result.id} (${result.name}) since ${result.suspended}`)
    })

    const reactivate = accounts
      .command('reactivate')
      .summary('reactivate a suspended account')
      .description(
        "Lifts an account's suspension: its keys work again (other processes within 5 seconds) and its users can " +
          'sign in to the dashboard again. Recorded in the audit trail. Works while serve runs.',
      )
      .option('--account <ID>', 'the account (acc_...)')
    addSettingOptions(reactivate, 'accounts reactivate').action(async (values: Values) => {
      const account = requireText(values.account, '--account')
      const result = await runDataOperation(settingsFor(reactivate, 'accounts reactivate'), 'reactivateAccount', {
        account,
      })
      print(`reactivated ${result.id} (${result.name})`)
    })
  }
}
