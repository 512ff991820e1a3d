// The printroute command line, run as a user runs it: in a child process (one for all the short commands), on a
// temporary data directory.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { hostname, tmpdir, userInfo } from 'node:os'
import { join, relative as relativePath, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Command } from 'commander'
import { buildProgram } from '../../src/cli/program.ts'
import { SETTING_COMMANDS, SETTINGS, settingsOf } from '../../src/config.ts'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { createScratchDatabase, POSTGRES_TEST_URL } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

describe('printroute command line', () => {
  let dataDir: string
  // The short commands share one process; each still gets its own arguments, environment and output.
  let cli: CliSession
  const printroute = (args: string[], env?: Record<string, string | undefined>) => cli.run(args, env)
  const withData = (args: string[]) => printroute([...args, '--data-dir', dataDir])

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-'))
    cli = startCliSession()
  })
  after(async () => {
    await cli.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('the help of every command lists exactly the settings it takes', () => {
    const program = buildProgram()
    for (const command of SETTING_COMMANDS) {
      let found: Command | undefined = program
      for (const word of command.split(' ')) found = found?.commands.find((child) => child.name() === word)
      assert.ok(found, command)
      const help = found.helpInformation()
      assert.match(help, new RegExp(`Usage: printroute ${command} `), command)
      const taken = new Set<string>(settingsOf(command))
      for (const name of Object.keys(SETTINGS) as (keyof typeof SETTINGS)[]) {
        const flag = new RegExp(`^  --${SETTINGS[name].flag}\\b`, 'm')
        if (taken.has(name)) assert.match(help, flag, `${command} takes --${SETTINGS[name].flag}`)
        else assert.doesNotMatch(help, flag, `${command} does not take --${SETTINGS[name].flag}`)
      }
    }
  })

  test('printroute, --help and help COMMAND print help; help COMMAND is COMMAND --help', async () => {
    const main = await printroute(['--help'])
    assert.equal(main.code, 0)
    for (const group of ['serve', 'worker', 'migrate', 'accounts', 'keys', 'labs', 'help']) {
      assert.match(main.stdout, new RegExp(`^  ${group}\\b`, 'm'), group)
    }
    const bare = await printroute([])
    assert.equal(bare.code, 1)
    assert.match(bare.stderr, /Usage: printroute/)
    const viaHelp = await printroute(['help', 'accounts', 'create'])
    const viaFlag = await printroute(['accounts', 'create', '--help'])
    assert.equal(viaHelp.code, 0)
    assert.equal(viaHelp.stdout, viaFlag.stdout)
    assert.match(viaHelp.stdout, /--billing-mode <MODE>/)
  })

  test('--version prints the version of the package', async () => {
    const packageJson = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'))
    for (const flag of ['--version', '-v']) {
      const answer = await printroute([flag])
      assert.equal(answer.code, 0)
      assert.equal(answer.stdout.trim(), packageJson.version)
    }
  })

  test('a mistyped command or flag gets the nearest one suggested and exits 2', async () => {
    for (const [args, suggestion] of [
      [['serv'], /Did you mean serve\?/],
      [['acounts', 'list'], /Did you mean accounts\?/],
      [['accounts', 'creat'], /Did you mean create\?/],
      [['serve', '--sandbox-prot', '1'], /Did you mean --sandbox-port\?/],
    ] as const) {
      const answer = await printroute([...args])
      assert.equal(answer.code, 2, args.join(' '))
      assert.match(answer.stderr, suggestion, args.join(' '))
    }
  })

  test('unknown commands and flags exit 2 with a message', async () => {
    const unknown = await printroute(['frobnicate'])
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /unknown command 'frobnicate'/)
    const group = await printroute(['accounts'])
    assert.equal(group.code, 2)
    assert.match(group.stderr, /create/)
    assert.match(group.stderr, /top-up/)
    const flag = await printroute(['migrate', '--bogus'])
    assert.equal(flag.code, 2)
    assert.match(flag.stderr, /bogus/)
    const missing = await withData(['accounts', 'create'])
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /--name is required/)
  })

  test('migrate applies the schema once', async () => {
    const first = await withData(['migrate'])
    assert.equal(first.code, 0, first.stderr)
    const second = await withData(['migrate'])
    assert.equal(second.code, 0, second.stderr)
    assert.match(second.stdout, /up to date/)
  })

  test('accounts create --json prints exactly the id and both keys', async () => {
    const created = await withData(['accounts', 'create', '--name', 'Shop One', '--pause-window', '30m', '--json'])
    assert.equal(created.code, 0, created.stderr)
    const body = JSON.parse(created.stdout)
    assert.deepEqual(Object.keys(body), ['id', 'keys'])
    assert.deepEqual(Object.keys(body.keys), ['sandbox', 'live'])
    assert.match(body.id, /^acc_\d+$/)
    assert.match(body.keys.sandbox, /^pr_sandbox_/)
    assert.match(body.keys.live, /^pr_live_/)
    const listed = await withData(['accounts', 'list', '--json'])
    const account = JSON.parse(listed.stdout).find((entry: { id: string }) => entry.id === body.id)
    assert.equal(account.name, 'Shop One')
    assert.equal(account.pauseWindowSeconds, 1800)
    assert.equal(account.billingCurrency, 'GBP')
  })

  test("audit list: the command line's changes, named by user and host, newest first; bad filters refused", async () => {
    const created = JSON.parse((await withData(['accounts', 'create', '--name', 'Audited', '--json'])).stdout)
    const issued = await withData(['keys', 'create', '--account', created.id, '--env', 'live'])
    assert.equal(issued.code, 0, issued.stderr)
    const key = issued.stdout.trim()
    const listed = await withData(['audit', 'list', '--account', created.id, '--json'])
    assert.equal(listed.code, 0, listed.stderr)
    const page = JSON.parse(listed.stdout)
    assert.deepEqual(
      page.entries.map((entry: any) => [entry.action, entry.accountId, entry.actor]),
      [
        [
          'key.created',
          created.id,
          { kind: 'cli', description: `command line (${userInfo().username}@${hostname()})` },
        ],
        [
          'account.created',
          created.id,
          { kind: 'cli', description: `command line (${userInfo().username}@${hostname()})` },
        ],
      ],
    )
    assert.equal(page.hasMore, false)
    assert.ok(!listed.stdout.includes(key), 'the key is not in the trail')
    const text = await withData(['audit', 'list', '--account', created.id, '--action', 'key.created', '--top', '1'])
    assert.equal(text.code, 0, text.stderr)
    const lines = text.stdout.trim().split('\n')
    assert.equal(lines.length, 1)
    assert.match(
      lines[0] ?? '',
      new RegExp(`^aud_\\d+\t\\S+\tcommand line \\(.+\\)\tkey.created\t${created.id} live\tpr_live_`),
    )
    for (const [args, message] of [
      [['--action', 'key.stolen'], /--action: "key.stolen" is not an action/],
      [['--actor', 'robot'], /--actor must be operator/],
      [['--from', 'someday'], /--from must be a date/],
      [['--from', '2026-03-02', '--to', '2026-03-01'], /--from is after --to/],
      [['--top', '0'], /--top must be a whole number from 1 to 100/],
      [['--before', 'ord_1'], /--before must be an entry ID/],
      [['--account', 'shop'], /is not an account ID/],
    ] as const) {
      const refused = await withData(['audit', 'list', ...args])
      assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stdout}`)
      assert.match(refused.stderr, message)
    }
  })

  test('prepaid accounts: created with --billing-mode, topped up, the balance listed', async () => {
    const created = await withData(['accounts', 'create', '--name', 'Prepaid', '--billing-mode', 'prepaid', '--json'])
    assert.equal(created.code, 0, created.stderr)
    const { id } = JSON.parse(created.stdout)
    const topUp = await withData(['accounts', 'top-up', '--account', id, '--amount', '25.5', '--json'])
    assert.equal(topUp.code, 0, topUp.stderr)
    assert.deepEqual(JSON.parse(topUp.stdout), { account: id, balance: '25.50', currency: 'GBP', releasedOrderIds: [] })
    const again = await withData(['accounts', 'top-up', '--account', id, '--amount', '4.50', '--reference', 'BACS 991'])
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, new RegExp(`${id} balance 30.00 GBP`))
    const listed = JSON.parse((await withData(['accounts', 'list', '--json'])).stdout)
    const account = listed.find((entry: { id: string }) => entry.id === id)
    assert.equal(account.billingMode, 'prepaid')
    assert.equal(account.balance, '30.00')

    for (const [args, message] of [
      [['--amount', '0'], /--amount must be a positive amount/],
      [['--amount', '1.234'], /--amount must be a positive amount/],
      [['--amount', '-5'], /--amount/],
    ] as const) {
      const refused = await withData(['accounts', 'top-up', '--account', id, ...args])
      assert.equal(refused.code, 2, refused.stdout)
      assert.match(refused.stderr, message)
    }
    const invoice = JSON.parse((await withData(['accounts', 'create', '--name', 'Invoiced', '--json'])).stdout)
    const notPrepaid = await withData(['accounts', 'top-up', '--account', invoice.id, '--amount', '5'])
    assert.equal(notPrepaid.code, 2)
    assert.match(notPrepaid.stderr, /billed by invoice/)
    const badMode = await withData(['accounts', 'create', '--name', 'X', '--billing-mode', 'credit'])
    assert.equal(badMode.code, 2)
    assert.match(badMode.stderr, /--billing-mode must be invoice or prepaid/)
    const badCurrency = await withData(['accounts', 'create', '--name', 'X', '--currency', 'XYZ'])
    assert.notEqual(badCurrency.code, 0)
    assert.match(badCurrency.stderr, /no exchange rate for XYZ/)
  })

  test('keys are created, listed by prefix only and revoked by prefix', async () => {
    const created = JSON.parse(
      (await withData(['accounts', 'create', '--name', 'Keys', '--currency', 'usd', '--json'])).stdout,
    )
    const issued = await withData(['keys', 'create', '--account', created.id, '--env', 'live'])
    assert.equal(issued.code, 0, issued.stderr)
    const key = issued.stdout.trim()
    assert.match(key, /^pr_live_[A-Za-z0-9_-]{43}$/)
    const listed = await withData(['keys', 'list', '--account', created.id])
    assert.equal(listed.stdout.trim().split('\n').length, 3)
    assert.ok(!listed.stdout.includes(key), 'whole keys are never shown again')
    const prefix = key.slice(0, 'pr_live_'.length + 8)
    assert.match(listed.stdout, new RegExp(prefix))
    const revoked = await withData(['keys', 'revoke', prefix])
    assert.equal(revoked.code, 0, revoked.stderr)
    assert.match((await withData(['keys', 'list', '--account', created.id])).stdout, /revoked/)
    const again = await withData(['keys', 'revoke', prefix])
    assert.equal(again.code, 1)
    assert.match(again.stderr, /No active key/)
    const badEnv = await withData(['keys', 'create', '--account', created.id, '--env', 'staging'])
    assert.equal(badEnv.code, 2)
    assert.match(badEnv.stderr, /sandbox or live/)
  })

  test('keys create takes scopes and an expiry; keys list shows them; unknown scopes are refused', async () => {
    const created = JSON.parse((await withData(['accounts', 'create', '--name', 'Scoped', '--json'])).stdout)
    const issued = await withData([
      'keys',
      'create',
      '--account',
      created.id,
      '--env',
      'sandbox',
      '--scopes',
      'quotes,orders:read',
      '--expires-at',
      '2099-01-01T00:00:00Z',
    ])
    assert.equal(issued.code, 0, issued.stderr)
    const prefix = issued.stdout.trim().slice(0, 'pr_sandbox_'.length + 8)
    const line = (await withData(['keys', 'list', '--account', created.id])).stdout
      .split('\n')
      .find((row) => row.startsWith(prefix))
    assert.match(line ?? '', /\torders:read,quotes\texpires 2099-01-01T00:00:00.000Z$/)
    const unknown = await withData(['keys', 'create', '--account', created.id, '--env', 'live', '--scopes', 'orders'])
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /Unknown scope orders: the scopes are orders:read, orders:write, quotes/)
    const past = await withData([
      'keys',
      'create',
      '--account',
      created.id,
      '--env',
      'live',
      '--expires-at',
      '2001-01-01T00:00:00Z',
    ])
    assert.equal(past.code, 1)
    assert.match(past.stderr, /not in the future/)
  })

  test('labs pause and resume on the data directory itself (no serve running)', async () => {
    const pause = await withData(['labs', 'pause', '--lab', 'uk6'])
    assert.equal(pause.code, 0, pause.stderr)
    assert.equal(pause.stdout, 'paused lab uk6\n')
    assert.equal((await withData(['labs', 'pause', '--lab', 'uk6'])).stdout, 'lab uk6 was already paused\n')
    assert.equal((await withData(['labs', 'resume', '--lab', 'uk6'])).stdout, 'resumed lab uk6\n')
    assert.equal((await withData(['labs', 'resume', '--lab', 'uk6'])).stdout, 'lab uk6 was not paused\n')
    const missing = await withData(['labs', 'pause'])
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /--lab/)
  })

  test('labs keys: create, rotate with --overlap, list (never a key), revoke by id; bad input exits 2', async () => {
    const created = await withData(['labs', 'keys', 'create', '--lab', 'de1'])
    assert.equal(created.code, 0, created.stderr)
    const oldKey = created.stdout.trim()
    const rotated = await withData(['labs', 'keys', 'rotate', '--lab', 'de1', '--overlap', '2h'])
    assert.equal(rotated.code, 0, rotated.stderr)
    const newKey = rotated.stdout.trim()
    assert.match(newKey, /^pr_lab_[A-Za-z0-9_-]{43}$/, 'stdout is the new key alone')
    assert.match(rotated.stderr, /works until \d{4}-\d\d-\d\dT/)
    const listed = await withData(['labs', 'keys', 'list', '--lab', 'de1'])
    assert.equal(listed.code, 0, listed.stderr)
    assert.ok(!listed.stdout.includes(oldKey) && !listed.stdout.includes(newKey), 'keys are never shown again')
    const [newest, oldest] = listed.stdout.trim().split('\n')
    assert.match(newest ?? '', /^lbk_\d+\tpr_lab_\S{8}\tcreated \S+\tnever used\tactive$/)
    assert.match(oldest ?? '', /^lbk_\d+\tpr_lab_\S{8}\tcreated \S+\tnever used\texpiring \S+$/)
    const oldId = (oldest ?? '').split('\t')[0] ?? ''
    const revoked = await withData(['labs', 'keys', 'revoke', '--lab', 'de1', oldId])
    assert.equal(revoked.code, 0, revoked.stderr)
    assert.match(revoked.stdout, new RegExp(`^revoked ${oldId} \\(pr_lab_`))
    const json = JSON.parse((await withData(['labs', 'keys', 'list', '--lab', 'de1', '--json'])).stdout)
    assert.deepEqual(
      json.map((key: { state: string }) => key.state),
      ['active', 'revoked'],
    )
    const tooLong = await withData(['labs', 'keys', 'rotate', '--lab', 'de1', '--overlap', '31d'])
    assert.equal(tooLong.code, 2)
    assert.match(tooLong.stderr, /overlap must be whole seconds from 0 to 2592000/)
    const notADuration = await withData(['labs', 'keys', 'rotate', '--lab', 'de1', '--overlap', 'soon'])
    assert.equal(notADuration.code, 2)
    assert.match(notADuration.stderr, /--overlap: "soon" is not a duration/)
    const unknown = await withData(['labs', 'keys', 'revoke', '--lab', 'de1', 'lbk_999999'])
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /lab de1 has no key lbk_999999/)
  })

  test('bad settings are refused with the setting named', async () => {
    const pause = await withData(['accounts', 'create', '--name', 'x', '--pause-window', 'soon'])
    assert.equal(pause.code, 2)
    assert.match(pause.stderr, /--pause-window/)
    const port = await withData(['serve', '--port', 'eighty'])
    assert.equal(port.code, 1)
    assert.match(port.stderr, /--port: must be a port number/)
    const fromEnv = await printroute(['serve', '--data-dir', dataDir], { PORT: '99999' })
    assert.equal(fromEnv.code, 1)
    assert.match(fromEnv.stderr, /PORT: must be a port number \(0-65535\), got "99999"/)
    const duration = await withData(['serve', '--request-timeout', 'soon'])
    assert.equal(duration.code, 1)
    assert.match(duration.stderr, /--request-timeout: "soon" is not a duration/)
    const flagBoolean = await printroute(['serve', '--data-dir', dataDir], { PRINTROUTE_ALLOW_PRIVATE_URLS: 'maybe' })
    assert.equal(flagBoolean.code, 1)
    assert.match(flagBoolean.stderr, /PRINTROUTE_ALLOW_PRIVATE_URLS: must be 1 or 0/)
    // Live on Stripe without both secrets does not start, naming what is missing and never a secret's value.
    const stripe = await printroute(['serve', '--data-dir', dataDir, '--payment-provider', 'stripe'], {
      PRINTROUTE_STRIPE_SECRET_KEY: 'sk_test_cliSecret123',
    })
    assert.equal(stripe.code, 1)
    assert.match(stripe.stderr, /needs PRINTROUTE_STRIPE_WEBHOOK_SECRET \(or --stripe-webhook-secret-file\)/)
    assert.doesNotMatch(stripe.stderr + stripe.stdout, /sk_test_cliSecret123/)
    // A secret is no flag: `ps` would show it.
    const onFlag = await withData(['serve', '--stripe-secret-key', 'sk_test_x'])
    assert.notEqual(onFlag.code, 0)
    assert.match(onFlag.stderr, /unknown option '--stripe-secret-key'/)
    const catalogueFile = join(dataDir, 'bad-catalogue.json')
    writeFileSync(catalogueFile, JSON.stringify({ formatVersion: 1, products: 'none' }))
    const catalogue = await withData(['serve', '--catalogue', catalogueFile, '--port', '0', '--sandbox-port', '0'])
    assert.equal(catalogue.code, 1)
    assert.match(catalogue.stderr, /bad-catalogue\.json/)
  })

  test('a data command says on stderr, in one line, which database it uses; stdout stays the result', async () => {
    const listed = await withData(['accounts', 'list', '--json'])
    assert.equal(listed.code, 0, listed.stderr)
    assert.ok(Array.isArray(JSON.parse(listed.stdout)), 'stdout is the JSON alone')
    assert.equal(listed.stderr, `printroute: using the embedded database in ${resolve(dataDir)}\n`)
    // A relative --data-dir is named as the absolute directory it is.
    const relative = await printroute(['migrate', '--data-dir', relativePath(process.cwd(), dataDir)])
    assert.equal(relative.code, 0, relative.stderr)
    assert.equal(relative.stderr, `printroute: using the embedded database in ${resolve(dataDir)}\n`)
  })

  test('an unreachable DATABASE_URL is one line naming host, port and database, never the user or password', async () => {
    const closedPort = await new Promise<number>((done) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo
        server.close(() => done(port))
      })
    })
    for (const args of [['accounts', 'list', '--json'], ['migrate'], ['keys', 'list', '--account', 'acc_1']]) {
      const refused = await printroute(args, {
        DATABASE_URL: `postgres://shopkeeper:hunter2-secret@127.0.0.1:${closedPort}/printroute_prod`,
      })
      assert.equal(refused.code, 1, args.join(' '))
      assert.equal(refused.stdout, '')
      assert.equal(
        refused.stderr,
        `printroute ${args
          .slice(0, 2)
          .filter((word) => !word.startsWith('-'))
          .join(' ')}: cannot open the database, ` +
          `PostgreSQL at 127.0.0.1:${closedPort}/printroute_prod: connection refused: is PostgreSQL running there? ` +
          '(ECONNREFUSED)\n',
      )
      assert.doesNotMatch(refused.stderr, /shopkeeper|hunter2/)
    }
  })

  test('on PostgreSQL the line names host, port and database only', {
    skip: !POSTGRES_TEST_URL && 'needs PostgreSQL',
  }, async (t) => {
    const database = await createScratchDatabase('printroute_cli')
    t.after(() => database.drop())
    const url = new URL(database.url)
    url.username = 'postgres'
    url.password = 'not-needed-secret'
    const listed = await printroute(['accounts', 'list', '--json'], { DATABASE_URL: url.toString() })
    assert.equal(listed.code, 0, listed.stderr)
    assert.deepEqual(JSON.parse(listed.stdout), [])
    assert.equal(
      listed.stderr,
      `printroute: using PostgreSQL at ${url.hostname}:${url.port || '5432'}${url.pathname}\n`,
    )
    const missing = new URL(url)
    missing.pathname = `${url.pathname}_missing`
    const refused = await printroute(['accounts', 'list'], { DATABASE_URL: missing.toString() })
    assert.equal(refused.code, 1)
    assert.match(
      refused.stderr,
      /^printroute accounts list: cannot open the database, PostgreSQL at .*_missing: the database does not exist \(3D000\)\n$/,
    )
    assert.doesNotMatch(refused.stderr, /not-needed-secret/)
  })
})
