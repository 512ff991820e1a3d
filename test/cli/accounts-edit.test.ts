// `printroute accounts edit` (docs/admin.md#editing-an-account): an account's name, billing mode, currency, price
// list and credit limit from the command line, as a user runs it: the fields given change, the version rises, each
// edit is audited; bad input and a stale --expect-version are refused with the flag's name (exit 2), changing nothing.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

let dataDir: string
let cli: CliSession
const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])

before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-edit-'))
  cli = startCliSession()
})
after(async () => {
  await cli.close()
  rmSync(dataDir, { recursive: true, force: true })
})

test('accounts edit changes the fields given, audited and versioned; refusals name the flag and change nothing', async () => {
  const created = await withData(['accounts', 'create', '--name', 'Shop', '--json'])
  assert.equal(created.code, 0, created.stderr)
  const { id } = JSON.parse(created.stdout)
  const listed = async () =>
    JSON.parse((await withData(['accounts', 'list', '--json'])).stdout).find((entry: { id: string }) => entry.id === id)
  const first = await listed()
  assert.equal(first.creditLimit, null, 'no limit until one is set')
  assert.equal(first.version, 1)

  const edited = await withData([
    'accounts',
    'edit',
    '--account',
    id,
    '--name',
    'Trade shop',
    '--credit-limit',
    '500',
    '--price-list',
    'wholesale',
    '--currency',
    'eur',
    '--expect-version',
    '1',
  ])
  assert.equal(edited.code, 0, edited.stderr)
  assert.equal(
    edited.stdout,
    `account ${id} (Trade shop), version 2\nbilling:      invoice in EUR\nprice list:   wholesale\n` +
      'credit limit: 500.00 EUR\nowed:         0.00 EUR\n',
  )
  const json = await withData(['accounts', 'edit', '--account', id, '--credit-limit', 'none', '--json'])
  assert.equal(json.code, 0, json.stderr)
  const shown = JSON.parse(json.stdout)
  assert.equal(shown.creditLimit, null)
  assert.equal(shown.version, 3)
  assert.equal(shown.openAmount, '0.00')

  const audit = await withData(['audit', 'list', '--account', id, '--json'])
  assert.equal(audit.code, 0, audit.stderr)
  const changes = JSON.parse(audit.stdout).entries.filter(
    (entry: { action: string }) => entry.action === 'account.settingsChanged',
  )
  assert.equal(changes.length, 2)
  assert.deepEqual(
    changes.map((entry: { after: unknown }) => entry.after),
    [
      { creditLimit: null },
      { name: 'Trade shop', billingCurrency: 'EUR', priceList: 'wholesale', creditLimit: '500.00' },
    ],
  )

  const refusals: [string[], RegExp][] = [
    [['--expect-version', '1', '--name', 'Late'], new RegExp(`${id} changed since it was read`)],
    [['--billing-mode', 'credit'], /--billing-mode: "credit" is not a billing mode \(invoice or prepaid\)/],
    [['--credit-limit', '-5'], /--credit-limit: "-5" is not a credit limit/],
    [['--currency', 'XXX'], /--currency: the catalogue has no exchange rate for XXX/],
    [['--price-list', 'gold'], /--price-list: The active catalogue has no price list "gold"/],
    [['--name', ' '], /--name: the account name must not be empty/],
    [['--billing-mode', 'prepaid', '--credit-limit', '10'], /--credit-limit: .* is prepaid: a credit limit applies/],
    [[], /nothing to change/],
  ]
  for (const [args, message] of refusals) {
    const refused = await withData(['accounts', 'edit', '--account', id, ...args])
    assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`)
    assert.match(refused.stderr, message)
  }
  assert.equal((await listed()).version, 3, 'nothing changed')
  const unknown = await withData(['accounts', 'edit', '--account', 'acc_999', '--name', 'X'])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /No account acc_999/)

  const prepaid = await withData(['accounts', 'edit', '--account', id, '--billing-mode', 'prepaid'])
  assert.equal(prepaid.code, 0, prepaid.stderr)
  assert.match(prepaid.stdout, /billing: {6}prepaid in EUR\n/)
  assert.doesNotMatch(prepaid.stdout, /owed:/, 'a prepaid account owes nothing on invoices')
})
