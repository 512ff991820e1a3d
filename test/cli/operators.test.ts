// `printroute operators create|list|revoke` and `printroute accounts suspend|reactivate`, as a user runs them: the
// token printed once and kept only as a hash, revocation, suspension refusing the account's keys, each recorded in
// the audit trail with the command line as its actor, and bad input refused with exit code 2.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { openDatabase } from '../../src/app.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

let dataDir: string
let cli: CliSession
const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])

before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-operators-'))
  cli = startCliSession()
})
after(async () => {
  await cli.close()
  rmSync(dataDir, { recursive: true, force: true })
})

/** The audit trail as the data directory holds it (the CLI has closed the database by then). */
async function trail(actions: string[]) {
  const opened = await openDatabase({ dataDir, databaseUrl: null })
  try {
    return await listAuditEvents(opened.db, { actions, limit: 20 })
  } finally {
    await opened.close()
  }
}

test('operators create prints the token once; list shows the prefix only; revoke ends it; all audited as the CLI', async () => {
  const created = await withData(['operators', 'create', '--name', 'Dana Scully'])
  assert.equal(created.code, 0, created.stderr)
  const token = /^token: (pr_operator_\S+)$/m.exec(created.stdout)?.[1] ?? ''
  const id = /^operator (opr_\d+) \(Dana Scully\)$/m.exec(created.stdout)?.[1] ?? ''
  assert.ok(token && id, created.stdout)
  assert.match(created.stdout, /shown once/)

  const listed = await withData(['operators', 'list', '--json'])
  assert.equal(listed.code, 0, listed.stderr)
  assert.ok(!listed.stdout.includes(token), 'the token is never listed')
  const [operator] = JSON.parse(listed.stdout)
  assert.deepEqual(Object.keys(operator), ['id', 'name', 'prefix', 'created', 'revoked'])
  assert.equal(operator.id, id)
  assert.ok(token.startsWith(operator.prefix))
  assert.equal(operator.revoked, null)
  const text = await withData(['operators', 'list'])
  assert.match(text.stdout, new RegExp(`^${id}\\t${operator.prefix}\\tcreated \\S+\\tactive\\tDana Scully$`, 'm'))

  const revoked = await withData(['operators', 'revoke', '--operator', id])
  assert.equal(revoked.code, 0, revoked.stderr)
  assert.match(revoked.stdout, new RegExp(`revoked ${id} \\(Dana Scully\\)`))
  const again = await withData(['operators', 'revoke', '--operator', id])
  assert.equal(again.code, 2)
  assert.match(again.stderr, new RegExp(`No active operator ${id}`))
  assert.match((await withData(['operators', 'list'])).stdout, /\trevoked \S+\tDana Scully/)

  const entries = await trail(['operator.created', 'operator.revoked'])
  assert.deepEqual(
    entries.map((entry) => [entry.action, entry.target, entry.actorKind, entry.actor]),
    [
      ['operator.revoked', id, 'cli', `${userInfo().username}@${hostname()}`],
      ['operator.created', id, 'cli', `${userInfo().username}@${hostname()}`],
    ],
  )
  for (const entry of entries) assert.ok(!`${entry.before}${entry.after}`.includes(token), 'no token in the trail')
})

test('operators refuse bad input with exit code 2', async () => {
  for (const [args, message] of [
    [['operators', 'create'], /--name/],
    [['operators', 'create', '--name', '   '], /must not be empty/],
    [['operators', 'create', '--name', 'x'.repeat(101)], /at most 100 characters/],
    [['operators', 'revoke', '--operator', 'acc_1'], /not an operator ID/],
    [['operators', 'revoke', '--operator', 'opr_9999'], /No active operator opr_9999/],
  ] as const) {
    const result = await withData([...args])
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`)
    assert.match(result.stderr, message)
  }
})

test('accounts suspend and reactivate: the account is shown suspended, then active again; audited as the CLI', async () => {
  const created = await withData(['accounts', 'create', '--name', 'Shop', '--json'])
  assert.equal(created.code, 0, created.stderr)
  const { id } = JSON.parse(created.stdout)
  const suspended = await withData(['accounts', 'suspend', '--account', id, '--reason', 'Unpaid since June'])
  assert.equal(suspended.code, 0, suspended.stderr)
  assert.match(suspended.stdout, new RegExp(`^suspended ${id} \\(Shop\\) since \\S+Z$`, 'm'))
  const listed = JSON.parse((await withData(['accounts', 'list', '--json'])).stdout)
  const shown = listed.find((account: { id: string }) => account.id === id)
  assert.ok(shown.suspended)
  assert.equal(shown.suspendedReason, 'Unpaid since June')

  const reactivated = await withData(['accounts', 'reactivate', '--account', id])
  assert.equal(reactivated.code, 0, reactivated.stderr)
  assert.match(reactivated.stdout, new RegExp(`reactivated ${id} \\(Shop\\)`))
  const after = JSON.parse((await withData(['accounts', 'list', '--json'])).stdout)
  assert.equal(after.find((account: { id: string }) => account.id === id).suspended, null)

  for (const [args, message] of [
    [['accounts', 'suspend', '--account', 'acc_999'], /No account acc_999/],
    [['accounts', 'suspend', '--account', 'shop'], /not an account ID/],
    [['accounts', 'reactivate'], /--account/],
  ] as const) {
    const result = await withData([...args])
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`)
    assert.match(result.stderr, message)
  }

  const entries = await trail(['account.suspended', 'account.reactivated'])
  assert.deepEqual(
    entries.map((entry) => [entry.action, entry.target, entry.actorKind]),
    [
      ['account.reactivated', id, 'cli'],
      ['account.suspended', id, 'cli'],
    ],
  )
})
