// `printroute accounts set-price-list` (docs/billing.md#price-lists): the account's list from the command line, as
// a user runs it: a list of the active catalogue or `default`, shown by `accounts list`, recorded in the audit
// trail; an unknown list is refused with the catalogue's lists (exit 2) and changes nothing. A catalogue version
// without an account's list names the account in `catalogue diff` and warns on `catalogue activate`.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { SAMPLE_CATALOGUE_PATH } from '../../src/catalogue/catalogue.loader.ts'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

let dataDir: string
let cli: CliSession
const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])

before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-price-list-'))
  cli = startCliSession()
})
after(async () => {
  await cli.close()
  rmSync(dataDir, { recursive: true, force: true })
})

test('accounts set-price-list sets a list of the active catalogue or the default, audited; an unknown list is refused', async () => {
  const created = await withData(['accounts', 'create', '--name', 'Trade shop', '--json'])
  assert.equal(created.code, 0, created.stderr)
  const { id } = JSON.parse(created.stdout)
  const listOf = async () =>
    JSON.parse((await withData(['accounts', 'list', '--json'])).stdout).find((entry: { id: string }) => entry.id === id)
      .priceList
  assert.equal(await listOf(), null)

  const set = await withData(['accounts', 'set-price-list', '--account', id, '--list', 'wholesale'])
  assert.equal(set.code, 0, set.stderr)
  assert.equal(set.stdout, `${id} (Trade shop) is priced on price list wholesale\n`)
  assert.equal(await listOf(), 'wholesale')

  const unknown = await withData(['accounts', 'set-price-list', '--account', id, '--list', 'platinum'])
  assert.equal(unknown.code, 2)
  assert.match(
    unknown.stderr,
    /--list: The active catalogue has no price list "platinum" \(its lists: retail, wholesale\), or give "default" for its default list/,
  )
  assert.equal(await listOf(), 'wholesale', 'a refusal changes nothing')

  const notAnId = await withData(['accounts', 'set-price-list', '--account', 'shop', '--list', 'retail'])
  assert.equal(notAnId.code, 2)
  assert.match(notAnId.stderr, /"shop" is not an account ID/)

  const reset = await withData(['accounts', 'set-price-list', '--account', id, '--list', 'default'])
  assert.equal(reset.code, 0, reset.stderr)
  assert.equal(reset.stdout, `${id} (Trade shop) is priced on the default price list\n`)
  assert.equal(await listOf(), null)

  const audit = JSON.parse((await withData(['audit', 'list', '--account', id, '--json'])).stdout)
  const changes = audit.entries
    .filter((entry: { action: string }) => entry.action === 'account.settingsChanged')
    .map((entry: { before: unknown; after: unknown }) => [entry.before, entry.after])
  assert.deepEqual(changes.reverse(), [
    [{ priceList: null }, { priceList: 'wholesale' }],
    [{ priceList: 'wholesale' }, { priceList: null }],
  ])
})

test('catalogue diff and activate name the accounts whose price list the new version lacks; set-price-list then refuses it', async () => {
  const created = await withData(['accounts', 'create', '--name', 'Wholesale shop', '--json'])
  assert.equal(created.code, 0, created.stderr)
  const { id } = JSON.parse(created.stdout)
  assert.equal((await withData(['accounts', 'set-price-list', '--account', id, '--list', 'wholesale'])).code, 0)
  // The sample without its wholesale list (and no default list).
  const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
  delete file.priceLists.wholesale
  const path = join(dataDir, 'no-wholesale.json')
  writeFileSync(path, JSON.stringify(file))
  const imported = await withData(['catalogue', 'import', path, '--json'])
  assert.equal(imported.code, 0, imported.stderr)
  const { version } = JSON.parse(imported.stdout)
  // The import stored the bundled sample first when the database had no version: that one is active.
  const active = JSON.parse((await withData(['catalogue', 'list', '--json'])).stdout).find(
    (entry: { active: boolean }) => entry.active,
  ).version

  const diff = await withData(['catalogue', 'diff', String(active), String(version)])
  assert.equal(diff.code, 0, diff.stderr)
  assert.match(diff.stdout, /Price lists \(a list, and its product, category and shipping rules\):\n {2}- wholesale: /)
  assert.match(
    diff.stdout,
    new RegExp(`Accounts whose price list version ${version} does not have:\\n  ${id}: wholesale -> the labs' costs`),
  )

  const activated = await withData(['catalogue', 'activate', String(version)])
  assert.equal(activated.code, 0, activated.stderr)
  assert.match(
    activated.stdout,
    new RegExp(
      `warning: account ${id} buys on price list "wholesale", which catalogue version ${version} does not have: ` +
        "nor a default list, so it pays the labs' costs",
    ),
  )
  // The account keeps its list (a later version may bring it back); a new choice of it is refused.
  const refused = await withData(['accounts', 'set-price-list', '--account', id, '--list', 'wholesale'])
  assert.equal(refused.code, 2)
  assert.match(refused.stderr, /The active catalogue has no price list "wholesale" \(its lists: retail\)/)
})
