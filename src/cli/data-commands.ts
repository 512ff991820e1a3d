// The commands that read or write data: migrate, accounts (and their suspension), keys, lab keys, lab pauses, lab
// push endpoints, catalogue versions, invoices, the audit trail and the console's operators. Each parses its flags,
// runs one operation (in a running `serve` through the admin channel, or here) and prints the result.
import { readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { type Command, Option } from 'commander'
import { CATALOGUE_DIFF_SECTION_TITLES, type CatalogueDiff } from '../domain/catalogue-diff.ts'
import { parseDurationSeconds } from '../domain/duration.ts'
import { ENVIRONMENTS, type Environment } from '../domain/environment.ts'
import { SANDBOX_SCENARIOS } from '../domain/sandbox-scenarios.ts'
import type { AccountSettings, AccountSettingsChange } from '../services/accounts.service.ts'
import type { LabPushSettingsView } from '../services/labs/lab-pushes.service.ts'
import type { LabKeyView } from '../services/labs/labs.service.ts'
import {
  addSettingOptions,
  note,
  print,
  printJson,
  requireText,
  runDataOperation,
  settingsFor,
  UsageError,
} from './command-support.ts'

type Values = Record<string, string | boolean | undefined>

function durationSeconds(value: unknown, flag: string): number | undefined {
  if (typeof value !== 'string') return undefined
  try {
    return parseDurationSeconds(value)
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`)
  }
}

function environmentOf(value: string): Environment {
  const environment = ENVIRONMENTS.find((candidate) => candidate === value.toLowerCase())
  if (!environment) throw new UsageError(`--env must be sandbox or live, got "${value}"`)
  return environment
}

/** A catalogue diff as text: one block per section with changes, one line per change. */
function diffText(diff: CatalogueDiff): string {
  if (diff.total === 0) return `catalogue versions ${diff.from} and ${diff.to} are the same`
  const lines = [`catalogue version ${diff.from} -> ${diff.to}: ${diff.total} change${diff.total === 1 ? '' : 's'}`]
  for (const { section, changes } of diff.sections) {
    if (changes.length === 0) continue
    lines.push('', `${CATALOGUE_DIFF_SECTION_TITLES[section]}:`)
    for (const change of changes) {
      if (change.change === 'added') lines.push(`  + ${change.key}: ${change.after}`)
      else if (change.change === 'removed') lines.push(`  - ${change.key}: ${change.before}`)
      else lines.push(`  ~ ${change.key}: ${change.before} -> ${change.after}`)
    }
  }
  return lines.join('\n')
}

function registerCatalogueCommands(program: Command): void {
  const catalogue = program
    .command('catalogue')
    .summary('catalogue versions: import, list, diff, activate, export')
    .description(
      'The catalogue is stored as numbered versions, one of them active; every process serves the active one and ' +
        'switches within seconds of an activation (docs/catalogue.md#versions). Works while serve runs.',
    )

  const importCommand = catalogue
    .command('import')
    .summary('validate a catalogue file and store it as a new version')
    .description(
      'Validates FILE (the schema and every cross-check) and stores it as a new version; on any problem nothing is ' +
        'stored and every problem is listed (exit 2). The same text as a stored version is that version. With ' +
        '--activate, the version becomes the active one.',
    )
    .argument('<FILE>', 'the catalogue file (JSON)')
    .option('--activate', 'make the version the active one')
    .option('--json', 'print {"version", "created", "active"} as JSON')
  addSettingOptions(importCommand, 'catalogue import').action(async (file: string, values: Values) => {
    let content: string
    try {
      content = readFileSync(file, 'utf8')
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`)
    }
    const imported = await runDataOperation(settingsFor(importCommand, 'catalogue import'), 'importCatalogue', {
      content,
      sourceName: basename(file),
      activate: values.activate === true,
    })
    if (values.json) return printJson(imported)
    const what = imported.created ? 'imported as' : 'already stored as'
    print(`${file}: ${what} catalogue version ${imported.version}${imported.active ? ' (active)' : ''}`)
  })

  const list = catalogue
    .command('list')
    .summary('list catalogue versions')
    .option('--json', 'print the versions as JSON')
  addSettingOptions(list, 'catalogue list').action(async (values: Values) => {
    const versions = await runDataOperation(settingsFor(list, 'catalogue list'), 'listCatalogues', undefined)
    if (values.json) return printJson(versions)
    for (const version of versions) {
      print(
        `${version.active ? '*' : ' '} ${version.version}\t${version.importedAt}\t${version.importedBy}\t` +
          `${version.sourceName}\t${version.bytes} bytes\tsha256 ${version.sha256.slice(0, 12)}`,
      )
    }
  })

  const diff = catalogue
    .command('diff')
    .summary('what changed between two catalogue versions')
    .description(
      'Lists products, prices, labs, shipping rates, zones, tax rates and currencies added, removed or changed from A to B.',
    )
    .argument('<A>', 'the version compared from')
    .argument('<B>', 'the version compared to')
    .option('--json', 'print the changes as JSON')
  addSettingOptions(diff, 'catalogue diff').action(async (from: string, to: string, values: Values) => {
    const changes = await runDataOperation(settingsFor(diff, 'catalogue diff'), 'diffCatalogues', {
      from: from as unknown as number,
      to: to as unknown as number,
    })
    if (values.json) return printJson(changes)
    print(diffText(changes))
  })

  const activate = catalogue
    .command('activate')
    .summary('make a stored catalogue version the active one')
    .description('Every process (API and workers) switches to it within a few seconds, without a restart.')
    .argument('<N>', 'the version')
  addSettingOptions(activate, 'catalogue activate').action(async (version: string) => {
    const result = await runDataOperation(settingsFor(activate, 'catalogue activate'), 'activateCatalogue', {
      version: version as unknown as number,
    })
    print(
      result.previous === result.version
        ? `catalogue version ${result.version} is already the active one`
        : `catalogue version ${result.version} is active (was ${result.previous ?? 'none'})`,
    )
  })

  const exportCommand = catalogue
    .command('export')
    .summary("print a catalogue version's file")
    .description('Writes the version exactly as it was imported, to stdout or to --output FILE.')
    .argument('<N>', 'the version')
    .option('--output <FILE>', 'write it to this file instead of stdout')
  addSettingOptions(exportCommand, 'catalogue export').action(async (version: string, values: Values) => {
    const exported = await runDataOperation(settingsFor(exportCommand, 'catalogue export'), 'exportCatalogue', {
      version: version as unknown as number,
    })
    if (typeof values.output === 'string') {
      writeFileSync(values.output, exported.content)
      print(`catalogue version ${exported.version} written to ${values.output}`)
    } else {
      process.stdout.write(exported.content)
    }
  })
}

export function registerDataCommands(program: Command): void {
  const migrate = program
    .command('migrate')
    .summary('apply pending database migrations')
    .description('Applies pending SQL migrations (serve and worker also do this at start).')
  addSettingOptions(migrate, 'migrate').action(async () => {
    const result = await runDataOperation(settingsFor(migrate, 'migrate'), 'migrate', undefined)
    print(result.applied.length ? `applied ${result.applied.join(', ')}` : 'database is up to date')
  })

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

  const invoices = program.command('invoices').summary('the seller printed on invoices and credit notes')
  const seller = invoices
    .command('seller')
    .summary('show or set the seller on invoices')
    .description(
      'Without options, shows the seller invoices are issued with. With --name (and the others), sets it for ' +
        'documents issued from now on; documents already issued keep the seller they were issued with. Until ' +
        'one is set, documents name "printroute" and this instance.',
    )
    .option('--name <NAME>', 'the business name')
    .option(
      '--address <LINE>',
      'an address line (repeat for each line, at most 6)',
      (line: string, lines: string[] = []) => [...lines, line],
    )
    .option('--tax-number <NUMBER>', 'VAT or other tax registration number')
    .option('--email <EMAIL>', 'a contact address for billing')
    .option('--json', 'print the seller as JSON')
  addSettingOptions(seller, 'invoices seller').action(async (values: Record<string, unknown>) => {
    const settings = settingsFor(seller, 'invoices seller')
    const show = (shown: { name: string; address: string[]; taxNumber: string | null; email: string | null }) =>
      values.json
        ? printJson(shown)
        : print(
            [
              `name:       ${shown.name}`,
              `address:    ${shown.address.join(', ') || '-'}`,
              `tax number: ${shown.taxNumber ?? '-'}`,
              `email:      ${shown.email ?? '-'}`,
            ].join('\n'),
          )
    if (values.name === undefined) {
      if (values.address !== undefined || values.taxNumber !== undefined || values.email !== undefined) {
        throw new UsageError('--name is required to set the seller')
      }
      const current = await runDataOperation(settings, 'showInvoiceSeller', undefined)
      if (!current.configured) note('no seller is set: documents name printroute and this instance')
      return show(current.seller)
    }
    const result = await runDataOperation(settings, 'setInvoiceSeller', {
      name: String(values.name),
      address: Array.isArray(values.address) ? values.address.map(String) : [],
      taxNumber: typeof values.taxNumber === 'string' ? values.taxNumber : null,
      email: typeof values.email === 'string' ? values.email : null,
    })
    if ('problems' in result) {
      throw new UsageError(
        Object.entries(result.problems)
          .map(([field, reason]) => `--${field === 'taxNumber' ? 'tax-number' : field}: ${reason}`)
          .join('; '),
      )
    }
    show(result.seller)
  })

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

  const keys = program.command('keys').summary('create, list and revoke API keys')

  const keysCreate = keys
    .command('create')
    .summary('create an API key for an account')
    .description('Issues another key for an account and prints it (shown once).')
    .option('--account <ID>', 'the account (acc_...)')
    .option('--env <ENV>', 'sandbox or live')
    .option('--scopes <LIST>', 'comma-separated scopes (docs/api.md#api-keys); absent: every scope')
    .option('--expires-at <TIME>', 'when the key stops working (ISO 8601); absent: never')
  addSettingOptions(keysCreate, 'keys create').action(async (values: Values) => {
    const account = requireText(values.account, '--account')
    const environment = environmentOf(requireText(values.env, '--env'))
    const scopes =
      typeof values.scopes === 'string'
        ? values.scopes
            .split(',')
            .map((scope) => scope.trim())
            .filter((scope) => scope !== '')
        : undefined
    const expiresAt = typeof values.expiresAt === 'string' ? values.expiresAt : undefined
    const issued = await runDataOperation(settingsFor(keysCreate, 'keys create'), 'createKey', {
      account,
      environment,
      ...(scopes ? { scopes } : {}),
      ...(expiresAt ? { expiresAt } : {}),
    })
    print(issued.key)
  })

  const keysList = keys
    .command('list')
    .summary("list an account's keys (prefixes only)")
    .option('--account <ID>', 'the account (acc_...)')
  addSettingOptions(keysList, 'keys list').action(async (values: Values) => {
    const account = requireText(values.account, '--account')
    const listed = await runDataOperation(settingsFor(keysList, 'keys list'), 'listKeys', { account })
    for (const key of listed) {
      print(
        `${key.prefix}\t${key.environment}\tcreated ${key.created}\t${key.revoked ? `revoked ${key.revoked}` : 'active'}` +
          `\t${key.scopes ? key.scopes.join(',') : 'all scopes'}\t${key.expiresAt ? `expires ${key.expiresAt}` : 'no expiry'}`,
      )
    }
  })

  const keysRevoke = keys
    .command('revoke')
    .summary('revoke an API key by its visible prefix')
    .description(
      'Revokes the key whose prefix is given (as keys list shows it, e.g. pr_live_AbCdEf12). The serving ' +
        'process refuses it at once; other processes on the same PostgreSQL within 5 seconds.',
    )
    .argument('<KEY_PREFIX>', 'the visible prefix of the key')
  addSettingOptions(keysRevoke, 'keys revoke').action(async (prefix: string) => {
    const revoked = await runDataOperation(settingsFor(keysRevoke, 'keys revoke'), 'revokeKey', { prefix })
    print(`revoked ${revoked.revoked}`)
  })

  const labs = program.command('labs').summary("the catalogue's labs and their keys for the lab API")

  const labsList = labs
    .command('list')
    .summary("list the catalogue's labs")
    .description('Lists the labs of the catalogue with their country, currency and the number of products each makes.')
  addSettingOptions(labsList, 'labs list').action(async () => {
    const { loadCatalogue } = await import('../catalogue/catalogue.loader.ts')
    const catalogue = loadCatalogue(settingsFor(labsList, 'labs list').catalogueFile ?? undefined)
    for (const lab of catalogue.labs) {
      const products = catalogue.products.filter((product) =>
        product.variants.some((variant) => variant.offers.some((offer) => offer.lab.code === lab.code)),
      )
      print(`${lab.code}\t${lab.countryCode}\t${lab.currency}\t${products.length} products\t${lab.name}`)
    }
  })

  const labKeys = labs.command('keys').summary('create, list, rotate and revoke keys for the lab API and portal')
  const labKeysCreate = labKeys
    .command('create')
    .summary('create a lab key for the lab API')
    .description(
      'Prints a key (shown once) with which a production lab reads its jobs and reports progress on the Live ' +
        'address under /labs/v1.',
    )
    .option('--lab <CODE>', "the lab's code in the catalogue (see printroute labs list)")
  addSettingOptions(labKeysCreate, 'labs keys create').action(async (values: Values) => {
    const lab = requireText(values.lab, '--lab')
    const issued = await runDataOperation(settingsFor(labKeysCreate, 'labs keys create'), 'createLabKey', { lab })
    print(issued.key)
  })

  const labKeysList = labKeys
    .command('list')
    .summary("list a lab's keys (prefixes only)")
    .description(
      "Lists a lab's keys, newest first: id, prefix, created, last used (to the minute; the lab API's calls), " +
        'state (active; expiring until a time, when a rotation replaced it; expired; revoked). Never a key. Works ' +
        'while serve runs.',
    )
    .option('--lab <CODE>', "the lab's code in the catalogue (see printroute labs list)")
    .option('--json', 'print the keys as JSON')
  addSettingOptions(labKeysList, 'labs keys list').action(async (values: Values) => {
    const lab = requireText(values.lab, '--lab')
    const keys = await runDataOperation(settingsFor(labKeysList, 'labs keys list'), 'listLabKeys', { lab })
    if (values.json === true) return printJson(keys)
    if (keys.length === 0) note(`lab ${lab} has no keys: printroute labs keys create --lab ${lab}`)
    for (const key of keys) print(labKeyLine(key))
  })

  const labKeysRotate = labKeys
    .command('rotate')
    .summary('replace a lab key: a new key now, the old ones for an overlap')
    .description(
      "Prints a new key for the lab (shown once). The lab's other working keys keep working for the overlap " +
        '(--overlap, 24h by default, at most 30d; 0 ends them now), then its lab API calls are 401 and its portal ' +
        'sessions end. Works while serve runs.',
    )
    .option('--lab <CODE>', "the lab's code in the catalogue (see printroute labs list)")
    .option('--overlap <DURATION>', 'how long the old keys keep working (e.g. 1h, 24h, 7d, 0)', '24h')
  addSettingOptions(labKeysRotate, 'labs keys rotate').action(async (values: Values) => {
    const lab = requireText(values.lab, '--lab')
    const overlapSeconds = durationSeconds(values.overlap, '--overlap')
    const rotated = await runDataOperation(settingsFor(labKeysRotate, 'labs keys rotate'), 'rotateLabKey', {
      lab,
      ...(overlapSeconds !== undefined ? { overlapSeconds } : {}),
    })
    print(rotated.key)
    note(`new key ${rotated.created.id} (${rotated.created.prefix}), shown this once`)
    for (const old of rotated.replaced) {
      note(`${old.id} (${old.prefix}) works until ${old.expiresAt}`)
    }
  })

  const labKeysRevoke = labKeys
    .command('revoke')
    .summary('revoke a lab key')
    .description(
      'Revokes the key KEY_ID (lbk_..., as labs keys list shows it; its prefix pr_lab_... works too). Its next ' +
        'lab API call is 401 in every process, and its lab portal sessions end now. Cannot be undone. Works while ' +
        'serve runs.',
    )
    .argument('<KEY_ID>', 'the key: its id (lbk_...) or its prefix')
    .option('--lab <CODE>', "the lab's code in the catalogue (see printroute labs list)")
  addSettingOptions(labKeysRevoke, 'labs keys revoke').action(async (keyId: string, values: Values) => {
    const lab = requireText(values.lab, '--lab')
    const result = await runDataOperation(settingsFor(labKeysRevoke, 'labs keys revoke'), 'revokeLabKey', {
      lab,
      keyId,
    })
    if (result.wasRevoked) print(`${result.key.id} (${result.key.prefix}) was already revoked`)
    else {
      const sessions = result.sessionsEnded
      print(
        `revoked ${result.key.id} (${result.key.prefix})` +
          (sessions > 0 ? `; ${sessions} portal session${sessions === 1 ? '' : 's'} ended` : ''),
      )
    }
  })

  const labsConfigure = labs
    .command('configure')
    .summary("set, rotate or remove a lab's push endpoint")
    .description(
      "Sets where a lab's jobs are pushed (--push-url), as signed CloudEvents (docs/pipeline.md, Jobs pushed to " +
        'labs). The first URL makes the signing secret and prints it once; setting another URL keeps it. ' +
        '--rotate-secret prints a new secret once; the old one keeps signing beside it for 24 hours. ' +
        "--remove-push stops the pushes (the catalogue's push URL too) and forgets the secrets. Works while serve runs.",
    )
    .option('--lab <CODE>', "the lab's code in the catalogue (see printroute labs list)")
    .option('--push-url <URL>', "the lab's push endpoint (http or https)")
    .option('--rotate-secret', 'make a new signing secret (printed once); the old one signs too for 24 hours')
    .option('--remove-push', 'stop pushing to the lab')
  addSettingOptions(labsConfigure, 'labs configure').action(async (values: Values) => {
    const lab = requireText(values.lab, '--lab')
    const result = await runDataOperation(settingsFor(labsConfigure, 'labs configure'), 'configureLabPush', {
      lab,
      ...(values.pushUrl !== undefined ? { pushUrl: String(values.pushUrl) } : {}),
      ...(values.rotateSecret === true ? { rotateSecret: true } : {}),
      ...(values.removePush === true ? { removePush: true } : {}),
    })
    printLabPush(result)
    if (result.secret) {
      print(`signing secret:  ${result.secret}`)
      print('(shown this once: give it to the lab, which verifies each push with it)')
    }
  })

  const labsShow = labs
    .command('show')
    .summary("a lab's push endpoint and how its pushes are doing")
    .description(
      "Shows a lab's push URL and where it comes from (the operator or the catalogue), the start of its signing " +
        'secret (never the secret), and its pushes: pending, delivered, failed, the last attempt. Works while serve runs.',
    )
    .option('--lab <CODE>', "the lab's code in the catalogue (see printroute labs list)")
  addSettingOptions(labsShow, 'labs show').action(async (values: Values) => {
    const lab = requireText(values.lab, '--lab')
    printLabPush(await runDataOperation(settingsFor(labsShow, 'labs show'), 'showLabPush', { lab }))
  })

  for (const paused of [true, false]) {
    const name = paused ? 'pause' : 'resume'
    const command = labs
      .command(name)
      .summary(paused ? 'stop giving a lab new work' : 'give a paused lab new work again')
      .description(
        paused
          ? 'Pauses a lab: allocation gives it no new Live work (the routing says LabPaused) until it is resumed. ' +
              'Work it already has stays with it. Works while serve runs.'
          : 'Resumes a paused lab: allocation uses it again from the next order. Works while serve runs.',
      )
      .option('--lab <CODE>', "the lab's code in the catalogue (see printroute labs list)")
    addSettingOptions(command, `labs ${name}`).action(async (values: Values) => {
      const lab = requireText(values.lab, '--lab')
      const result = await runDataOperation(settingsFor(command, `labs ${name}`), 'setLabPaused', { lab, paused })
      if (paused) print(result.wasPaused ? `lab ${result.lab} was already paused` : `paused lab ${result.lab}`)
      else print(result.wasPaused ? `resumed lab ${result.lab}` : `lab ${result.lab} was not paused`)
    })
  }
  registerCatalogueCommands(program)

  const audit = program.command('audit').summary('the audit trail: who changed what, and when')
  const auditList = audit
    .command('list')
    .summary('list the audit trail, newest first')
    .description(
      'Lists the audit trail of every account, the labs and the catalogue, newest first (docs/audit.md): when, ' +
        'who, the action, the account and environment, what was changed, and before/after. Filters combine; ' +
        '--to is exclusive. When more entries follow, the last line says which --before continues. Works while ' +
        'serve runs.',
    )
    .option('--account <ID>', 'only entries about this account (acc_...)')
    .option('--action <ACTION>', 'only these actions, comma-separated (e.g. key.created,key.revoked)')
    .option('--actor <KIND>', 'only changes made by operator, key, session, lab, cli or system')
    .option('--from <DATE>', 'only entries made at or after this date or date-time (UTC unless it says)')
    .option('--to <DATE>', 'only entries made before this date or date-time')
    .option('--top <N>', 'how many entries (1 to 100)', '20')
    .option('--before <ID>', 'continue with the entries older than this one (aud_...)')
    .option('--json', 'print {"entries", "hasMore", "nextBefore"} as JSON')
  addSettingOptions(auditList, 'audit list').action(async (values: Values) => {
    const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined)
    const top = Number(text('top'))
    const action = text('action')
    const page = await runDataOperation(settingsFor(auditList, 'audit list'), 'listAudit', {
      ...(text('account') !== undefined ? { account: text('account') } : {}),
      ...(action !== undefined ? { actions: action.split(',').map((part) => part.trim()) } : {}),
      ...(text('actor') !== undefined ? { actor: text('actor') } : {}),
      ...(text('from') !== undefined ? { from: text('from') } : {}),
      ...(text('to') !== undefined ? { to: text('to') } : {}),
      ...(text('before') !== undefined ? { before: text('before') } : {}),
      top,
    })
    if (values.json) return printJson(page)
    for (const entry of page.entries) {
      const where = [entry.accountId, entry.environment].filter(Boolean).join(' ')
      const change = [
        entry.before === null ? '' : `before ${JSON.stringify(entry.before)}`,
        entry.after === null ? '' : `after ${JSON.stringify(entry.after)}`,
      ]
        .filter(Boolean)
        .join(' ')
      print(
        `${entry.id}\t${entry.at}\t${entry.actor.description}\t${entry.action}\t${where || '-'}\t` +
          `${entry.target ?? '-'}\t${change || '-'}`,
      )
    }
    if (page.nextBefore) print(`(more: --before ${page.nextBefore})`)
  })

  registerOperatorCommands(program)
}

function registerOperatorCommands(program: Command): void {
  const operators = program.command('operators').summary('create, list and revoke operators of the console (/admin/)')

  const create = operators
    .command('create')
    .summary('create an operator and print its token (shown once)')
    .description(
      'Creates an operator of the console (docs/admin.md) and prints its token (pr_operator_...) once: printroute ' +
        'keeps only its hash. The operator signs in at /admin/ with it. Works while serve runs.',
    )
    .option('--name <NAME>', "the operator's name, shown in the console and the audit trail (required)")
  addSettingOptions(create, 'operators create').action(async (values: Values) => {
    const name = requireText(values.name, '--name')
    const made = await runDataOperation(settingsFor(create, 'operators create'), 'createOperator', { name })
    print(
      `operator ${made.operator.id} (${made.operator.name})
` +
        `token: ${made.token}
` +
        'The token is shown once; printroute keeps only its hash. Sign in at /admin/ with it.',
    )
  })

  const list = operators
    .command('list')
    .summary('list operators (token prefixes only)')
    .option('--json', 'print the operators as JSON')
  addSettingOptions(list, 'operators list').action(async (values: Values) => {
    const found = await runDataOperation(settingsFor(list, 'operators list'), 'listOperators', undefined)
    if (values.json) return printJson(found)
    for (const operator of found) {
      print(
        `${operator.id}	${operator.prefix}	created ${operator.created}	` +
          `${operator.revoked ? `revoked ${operator.revoked}` : 'active'}	${operator.name}`,
      )
    }
  })

  const revoke = operators
    .command('revoke')
    .summary('revoke an operator: its console sessions end at once')
    .description(
      'Revokes an operator: its token no longer signs in, and its console sessions end at their next request, in ' +
        'every process. Works while serve runs.',
    )
    .option('--operator <ID>', 'the operator (opr_...)')
  addSettingOptions(revoke, 'operators revoke').action(async (values: Values) => {
    const operator = requireText(values.operator, '--operator')
    const revoked = await runDataOperation(settingsFor(revoke, 'operators revoke'), 'revokeOperator', { operator })
    print(`revoked ${revoked.id} (${revoked.name})`)
  })
}

/** A lab key as `labs keys list` prints it: tab-separated id, prefix, created, last used, state. */
function labKeyLine(key: LabKeyView): string {
  const state =
    key.state === 'revoked'
      ? `revoked ${key.revoked}`
      : key.state === 'expiring'
        ? `expiring ${key.expiresAt}`
        : key.state === 'expired'
          ? `expired ${key.expiresAt}`
          : 'active'
  return `${key.id}\t${key.prefix}\tcreated ${key.created}\t${key.lastUsed ? `last used ${key.lastUsed}` : 'never used'}\t${state}`
}

/** A lab's push settings as `labs configure` and `labs show` print them (never the secret itself). */
function printLabPush(view: LabPushSettingsView): void {
  const from = view.source === null ? '' : ` (from the ${view.source === 'operator' ? 'operator' : 'catalogue'})`
  const health = view.health
  const last =
    health.lastAttemptAt === null
      ? 'none'
      : `${health.lastAttemptAt} ${health.lastHttpStatus === null ? (health.lastError ?? '') : `HTTP ${health.lastHttpStatus}`}`
  print(`lab ${view.lab}`)
  print(`push url:        ${view.url ?? (view.removed ? 'none (removed)' : 'none (the lab polls)')}${from}`)
  print(`secret:          ${view.secretPrefix ?? 'none yet'}`)
  if (view.previousSecretExpiresAt) print(`previous secret: signs too until ${view.previousSecretExpiresAt}`)
  print(`pushes:          ${health.pending} pending, ${health.delivered} delivered, ${health.failed} failed`)
  print(`last attempt:    ${last}`)
}
