// The console and the commands that manage it beside a real `printroute serve` with `--admin-port`: the console on
// its own port (not on the Live one), an operator made through the admin channel signing in there, and account
// suspension, operator revocation and the seller (its banner gone) taking effect in the serving process at the very
// next request.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import {
  type CliSession,
  firstStartKeys,
  killStartedPrintroutes,
  type RunningPrintroute,
  startCliSession,
  startPrintroute,
} from '../support/cli.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

describe('printroute serve --admin-port', () => {
  let dataDir: string
  let server: RunningPrintroute
  let cli: CliSession
  let liveUrl: string
  let consoleUrl: string
  let liveKey: string
  let accountId: string
  const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'printroute-console-serve-'))
    server = startPrintroute(['serve', '--data-dir', dataDir, '--admin-port', '0'], {
      PORT: '0',
      PRINTROUTE_SANDBOX_PORT: '0',
    })
    liveUrl = (await server.waitFor(/Live API ready at (http:\/\/127\.0\.0\.1:\d+)\/v4\.0/))[1] as string
    consoleUrl = (
      await server.waitFor(/operator console at (http:\/\/127\.0\.0\.1:\d+)\/admin\/ \(not on the Live port\)/)
    )[1] as string
    const keys = await firstStartKeys(server)
    liveKey = keys.live
    accountId = keys.accountId
    cli = startCliSession()
  })
  after(async () => {
    await cli?.close()
    killStartedPrintroutes()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('the console answers on its own port only; an operator made through the admin channel signs in there', async () => {
    assert.notEqual(new URL(consoleUrl).port, new URL(liveUrl).port)
    assert.equal((await fetch(`${liveUrl}/admin/sign-in`)).status, 404)
    const signInPage = await fetch(`${consoleUrl}/admin/`)
    assert.equal(signInPage.status, 200)
    assert.match(signInPage.url, /\/admin\/sign-in/)

    const made = await withData(['operators', 'create', '--name', 'Night shift'])
    assert.equal(made.code, 0, made.stderr)
    assert.match(made.stderr, /through the serve running on it \(its admin channel\)/)
    assert.match(made.stderr, new RegExp(resolve(dataDir).replaceAll('/', '\\/')))
    const token = /^token: (\S+)$/m.exec(made.stdout)?.[1] ?? ''
    const operatorId = /^operator (opr_\d+)/m.exec(made.stdout)?.[1] ?? ''

    const signedIn = await fetch(`${consoleUrl}/admin/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ operatorToken: token }).toString(),
    })
    assert.equal(signedIn.status, 303)
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] as string
    assert.match(cookie, /^printroute_admin_session=/)
    const accounts = await fetch(`${consoleUrl}/admin/accounts`, { headers: { cookie }, redirect: 'manual' })
    assert.equal(accounts.status, 200)
    const accountsPage = await accounts.text()
    assert.match(accountsPage, /Demo merchant/)

    // The seller banner, answered from the serving process's memory, goes once the seller is set through the
    // admin channel: at the next request, without a restart.
    assert.match(accountsPage, /data-seller-banner/)
    const seller = await withData(['invoices', 'seller', '--name', 'Print Co', '--address', '1 High Street'])
    assert.equal(seller.code, 0, seller.stderr)
    const afterSeller = await fetch(`${consoleUrl}/admin/accounts`, { headers: { cookie }, redirect: 'manual' })
    assert.equal(afterSeller.status, 200)
    assert.doesNotMatch(await afterSeller.text(), /data-seller-banner/)

    const revoked = await withData(['operators', 'revoke', '--operator', operatorId])
    assert.equal(revoked.code, 0, revoked.stderr)
    const afterRevoke = await fetch(`${consoleUrl}/admin/accounts`, { headers: { cookie }, redirect: 'manual' })
    assert.equal(afterRevoke.status, 303, 'the revoked operator is signed out at the next request')
  })

  test("suspending through the admin channel refuses the account's keys at the next request; reactivating restores them", async () => {
    const orders = () => fetch(`${liveUrl}/v4.0/orders`, { headers: { 'x-api-key': liveKey } })
    assert.equal((await orders()).status, 200, 'the key is known (and cached) before the suspension')
    const suspended = await withData(['accounts', 'suspend', '--account', accountId, '--reason', 'testing'])
    assert.equal(suspended.code, 0, suspended.stderr)
    const refused = await orders()
    assert.equal(refused.status, 403)
    assert.equal(((await refused.json()) as { outcome: string }).outcome, 'Forbidden')
    const reactivated = await withData(['accounts', 'reactivate', '--account', accountId])
    assert.equal(reactivated.code, 0, reactivated.stderr)
    assert.equal((await orders()).status, 200)
  })
  test('accounts edit through the admin channel sets a credit limit the serving API shows at once', async () => {
    const billing = async () =>
      (
        (await (await fetch(`${liveUrl}/v4.0/account/billing`, { headers: { 'x-api-key': liveKey } })).json()) as {
          billing: { creditLimit: { amount: string; currency: string } | null; currency: string }
        }
      ).billing
    assert.equal((await billing()).creditLimit, null)
    const edited = await withData(['accounts', 'edit', '--account', accountId, '--credit-limit', '250', '--json'])
    assert.equal(edited.code, 0, edited.stderr)
    assert.equal(JSON.parse(edited.stdout).creditLimit, '250.00')
    const shown = await billing()
    assert.deepEqual(shown.creditLimit, { amount: '250.00', currency: shown.currency })
  })
})
