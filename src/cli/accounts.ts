// `printroute accounts`: create, list, update, top up, statements, suspend and reactivate accounts.
import { type Command, Option } from 'commander'
import { ENVIRONMENTS } from '../domain/environment.ts'
import { SANDBOX_SCENARIOS } from '../domain/sandbox-scenarios.ts'
import type { AccountSettings, AccountSettingsChange } from '../services/accounts.service.ts'
import {
  dataCommand,
  durationSeconds,
  environmentOf,
  print,
  printJson,
  requireText,
  runDataOperation,
  UsageError,
} from './command-support.ts'

export function registerAccountCommands(program: Command): void {
  const accounts = program.command('accounts').summary('create, list, update, top up, suspend and reactivate accounts')

  dataCommand(
    accounts,
    'accounts create',
    {
      summary: 'create an account with one Sandbox and one Live key',
      description: 'Creates an account and prints its ID and one Sandbox and one Live key (shown once).',
      options: [
        ['--name <NAME>', 'account name (required)'],
        ['--currency <CODE>', 'billing currency; the catalogue must have a rate for it', 'GBP'],
        [
          '--billing-mode <MODE>',
          'how Live charges are settled (prepaid: from a balance that accounts top-up adds to)',
          'invoice',
        ],
        ['--pause-window <DUR>', 'hold new orders this long before fulfilment, e.g. 30m', '0'],
        ['--callback-url <URL>', 'callback URL of both environments (Sandbox and Live)'],
        ['--sandbox-callback-url <URL>', "Sandbox's callback URL, when it differs from --callback-url"],
        ['--json', 'print {"id", "keys": {"sandbox", "live"}} as JSON'],
      ],
    },
    async (values, settingsOf) => {
      const name = requireText(values.name, '--name')
      const billingMode = String(values.billingMode)
      if (billingMode !== 'invoice' && billingMode !== 'prepaid') {
        throw new UsageError(`--billing-mode must be invoice or prepaid, got "${billingMode}"`)
      }
      const settings = settingsOf()
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
    },
  )

  registerListCommand()

  /** accounts list. */
  function registerListCommand(): void {
    dataCommand(
      accounts,
      'accounts list',
      { summary: 'list accounts', options: [['--json', 'print the accounts as JSON']] },
      async (values, settings) => {
        const found = await runDataOperation(settings(), 'listAccounts', undefined)
        if (values.json) return printJson(found)
        for (const account of found) {
          print(
            `${account.id}\t${account.name}\t${account.billingCurrency}\t${account.billingMode}` +
              `${account.billingMode === 'prepaid' ? ` balance ${account.balance}` : ''}` +
              `\tpause ${account.pauseWindowSeconds}s` +
              `\tsandbox ${account.callbackUrls.sandbox ?? '-'}\tlive ${account.callbackUrls.live ?? '-'}`,
          )
        }
      },
    )
  }

  registerUpdateCommand()

  /** accounts update: one account's settings. */
  function registerUpdateCommand(): void {
    dataCommand(
      accounts,
      'accounts update',
      {
        summary:
          "change an account's callback URL, pause window, callback signing secret, address validation or callback events",
        description:
          'Changes the settings given; the others stay as they are. Sandbox and Live each have their own callback ' +
          'URL and signing secret: --callback-url and --rotate-signing-secret apply to both unless --env names ' +
          "one; the pause window is the account's. Prints both environments' settings as they are then, with " +
          'the secrets their callbacks are signed with (docs/callbacks.md).',
        options: [
          ['--account <ID>', 'the account (acc_...)'],
          [
            '--env <ENV>',
            "change only this environment's callback URL, signing secret, address validation or callback events: sandbox or live",
          ],
          ['--callback-url <URL>', 'callback URL (an order\'s own wins); "" or none removes it'],
          ['--pause-window <DUR>', 'hold new orders this long before fulfilment, e.g. 30m (0: none)'],
          ['--rotate-signing-secret', 'replace the callback signing secret; the old one keeps signing for a while'],
          [
            '--sandbox-scenario <NAME>',
            `the scenario new Sandbox orders take when they name none (docs/sandbox.md): ${SANDBOX_SCENARIOS.join(', ')}; none removes it`,
          ],
          [
            '--address-validation <MODE>',
            'an order whose address has a problem that stops delivery: warn (created with an issue), refuse (400) or ' +
              'off (no address checks); both environments unless --env names one (docs/addresses.md)',
          ],
          [
            '--callback-events <SET>',
            "which events the callback URLs get: all, or prodigi (only the Prodigi Print API's types); both " +
              'environments unless --env names one (docs/callbacks.md)',
          ],
          [
            '--signing-overlap <DUR>',
            'with --rotate-signing-secret: how long the old secret keeps signing (default 24h)',
          ],
          [
            '--json',
            'print {"id", "pauseWindowSeconds", "sandbox": {...}, "live": {...}}, each environment\'s {"callbackUrl", ' +
              '"signingSecret", "previousSigningSecretExpiresAt"}',
          ],
        ],
      },
      async (values, settingsOf) => {
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
        const result = await runDataOperation(settingsOf(), 'updateAccount', {
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
      },
    )
  }

  dataCommand(
    accounts,
    'accounts top-up',
    {
      summary: "add to a prepaid account's balance",
      description:
        "Adds AMOUNT (in the account's billing currency, e.g. 50.00) to the balance of a prepaid account, then " +
        'pays from it, oldest first, every Live order waiting for a payment that the balance now covers; those ' +
        'orders go on to their labs.',
      options: [
        ['--account <ID>', 'the account (acc_...)'],
        ['--amount <AMOUNT>', 'a positive decimal amount with at most two decimals'],
        ['--reference <TEXT>', "a note kept in the account's ledger (a bank transfer reference, say)"],
        ['--json', 'print {"account", "balance", "currency", "releasedOrderIds"} as JSON'],
      ],
    },
    async (values, settings) => {
      const account = requireText(values.account, '--account')
      const amount = requireText(values.amount, '--amount')
      const result = await runDataOperation(settings(), 'topUp', {
        account,
        amount,
        reference: typeof values.reference === 'string' ? values.reference : null,
      })
      if (values.json) return printJson(result)
      print(`${result.account} balance ${result.balance} ${result.currency}`)
      for (const orderId of result.releasedOrderIds) print(`paid and released ${orderId}`)
    },
  )

  dataCommand(
    accounts,
    'accounts statement',
    {
      summary: "an account's monthly statement of invoices and credit notes (CSV or PDF)",
      description:
        'Every invoice and credit note issued to the account in MONTH (YYYY-MM, UTC) in one environment (Live by ' +
        'default), with totals per currency. CSV is printed unless --output names a file; a PDF is written to ' +
        '--output, or to statement-<account>-<month>.pdf in the current directory.',
      options: [
        ['--account <ID>', 'the account (acc_...)'],
        ['--month <YYYY-MM>', 'the month, in UTC'],
        new Option('--format <FORMAT>', 'csv or pdf').choices(['csv', 'pdf']).default('csv'),
        ['--env <ENV>', 'live (default) or sandbox'],
        ['--output <FILE>', 'write the statement to FILE'],
      ],
    },
    async (values, settings) => {
      const account = requireText(values.account, '--account')
      const month = requireText(values.month, '--month')
      const format = values.format === 'pdf' ? 'pdf' : 'csv'
      const environment = typeof values.env === 'string' ? environmentOf(values.env) : 'live'
      const file = await runDataOperation(settings(), 'accountStatement', {
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
    },
  )

  registerSuspensionCommands()

  registerPriceListCommand()

  registerEditCommand()

  /** accounts edit: the account's name, billing and credit limit. */
  function registerEditCommand(): void {
    dataCommand(
      accounts,
      'accounts edit',
      {
        summary: "change an account's name, billing mode, billing currency, price list or credit limit",
        description:
          'Changes the fields given; the others stay as they are (docs/admin.md#editing-an-account). The currency ' +
          'cannot change while the account has a prepaid balance, owes on Live invoices or has Live orders in ' +
          'progress billed in it; prepaid to invoice waits until the balance is used or refunded; invoice to prepaid ' +
          'removes the credit limit. A credit limit (invoice accounts) holds Live orders that would take what the ' +
          'account owes above it until they are paid or released (docs/billing.md#credit-limits). With ' +
          '--expect-version the edit is refused if another edit came first. Recorded in the audit trail. Works ' +
          'while serve runs.',
        options: [
          ['--account <ID>', 'the account (acc_...)'],
          ['--name <NAME>', 'the account name'],
          ['--billing-mode <MODE>', 'invoice or prepaid'],
          ['--currency <CODE>', 'billing currency; the catalogue must have a rate for it'],
          ['--price-list <NAME>', 'a price list of the active catalogue, or default'],
          ['--credit-limit <AMOUNT>', 'the most an invoice account may owe, e.g. 500.00 (0 allowed); none removes it'],
          [
            '--expect-version <N>',
            'refuse the edit unless the account is still at this version (accounts list --json)',
          ],
          ['--json', 'print the account as JSON, with its version and openAmount'],
        ],
      },
      async (values, settings) => {
        const account = requireText(values.account, '--account')
        const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
        const input = {
          account,
          ...(text(values.name) !== undefined ? { name: text(values.name) } : {}),
          ...(text(values.billingMode) !== undefined ? { billingMode: text(values.billingMode) } : {}),
          ...(text(values.currency) !== undefined ? { billingCurrency: text(values.currency) } : {}),
          ...(text(values.priceList) !== undefined ? { priceList: text(values.priceList) } : {}),
          ...(text(values.creditLimit) !== undefined ? { creditLimit: text(values.creditLimit) } : {}),
        }
        if (Object.keys(input).length === 1) {
          throw new UsageError(
            'nothing to change: give --name, --billing-mode, --currency, --price-list or --credit-limit',
          )
        }
        const version = text(values.expectVersion)
        const result = await runDataOperation(settings(), 'editAccount', {
          ...input,
          ...(version !== undefined ? { expectedVersion: version } : {}),
        })
        if (values.json) return printJson(result)
        print(
          [
            `account ${result.id} (${result.name}), version ${result.version}`,
            `billing:      ${result.billingMode} in ${result.billingCurrency}`,
            `price list:   ${result.priceList ?? 'default'}`,
            `credit limit: ${result.creditLimit ? `${result.creditLimit} ${result.billingCurrency}` : 'none'}`,
            ...(result.openAmount !== null ? [`owed:         ${result.openAmount} ${result.billingCurrency}`] : []),
          ].join('\n'),
        )
      },
    )
  }

  /** accounts set-price-list. */
  function registerPriceListCommand(): void {
    dataCommand(
      accounts,
      'accounts set-price-list',
      {
        summary: "set the price list of an account's orders and quotes",
        description:
          "Sets the price list the account's new quotes and orders are priced on (docs/billing.md#price-lists): a " +
          "list of the active catalogue's priceLists, or `default` for the catalogue's default list (the labs' costs " +
          'when it has none). Orders already charged keep their prices. Recorded in the audit trail. Works while ' +
          'serve runs.',
        options: [
          ['--account <ID>', 'the account (acc_...)'],
          ['--list <NAME>', 'a price list of the active catalogue, or default'],
        ],
      },
      async (values, settings) => {
        const account = requireText(values.account, '--account')
        const list = requireText(values.list, '--list')
        const result = await runDataOperation(settings(), 'setPriceList', { account, list })
        print(
          `${result.id} (${result.name}) is priced on ${result.priceList ? `price list ${result.priceList}` : 'the default price list'}`,
        )
      },
    )
  }

  /** accounts suspend and accounts reactivate. */
  function registerSuspensionCommands(): void {
    dataCommand(
      accounts,
      'accounts suspend',
      {
        summary: 'suspend an account: its keys answer 403, its dashboard sessions end',
        description:
          'Suspends an account: every request with one of its keys answers 403 Forbidden (docs/errors.md) and its ' +
          'dashboard sessions end at once; its orders in flight go on to completion. The serving process refuses the ' +
          'keys at once, other processes on the same PostgreSQL within 5 seconds. Recorded in the audit trail. ' +
          'Works while serve runs.',
        options: [
          ['--account <ID>', 'the account (acc_...)'],
          ['--reason <TEXT>', 'a note kept with the suspension (shown in the console and the audit trail)'],
        ],
      },
      async (values, settings) => {
        const account = requireText(values.account, '--account')
        const result = await runDataOperation(settings(), 'suspendAccount', {
          account,
          reason: typeof values.reason === 'string' ? values.reason : null,
        })
        print(`suspended ${result.id} (${result.name}) since ${result.suspended}`)
      },
    )

    dataCommand(
      accounts,
      'accounts reactivate',
      {
        summary: 'reactivate a suspended account',
        description:
          "Lifts an account's suspension: its keys work again (other processes within 5 seconds) and its users can " +
          'sign in to the dashboard again. Recorded in the audit trail. Works while serve runs.',
        options: [['--account <ID>', 'the account (acc_...)']],
      },
      async (values, settings) => {
        const account = requireText(values.account, '--account')
        const result = await runDataOperation(settings(), 'reactivateAccount', { account })
        print(`reactivated ${result.id} (${result.name})`)
      },
    )
  }
}
