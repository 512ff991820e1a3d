// Suspending an account (docs/admin.md#suspending-an-account): its keys answer 403 Forbidden with the documented
// body on every route, in both environments, at once in this process (the key cache is cleared); its dashboard
// sessions end and it cannot sign in again; its orders in flight go on to Complete; reactivating restores all of it.
// Each change is recorded in the audit trail, and a change to the state the account is already in is not.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const OPERATOR = { kind: 'operator', operatorId: 'opr_1', name: 'Dana' } as const

for (const kind of databaseKinds) {
  describe(`account suspension (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    before(async () => {
      images = await startImageServer()
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    const form = (values: Record<string, string>) => ({
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(values).toString(),
    })
    const dashboardSignIn = (apiKey: string) =>
      t.app.live.inject({ method: 'POST', url: '/dashboard/sign-in', ...form({ apiKey }) })

    test("a suspended account's keys answer 403 Forbidden with the documented body, on every route, in both environments", async () => {
      const merchant = await t.createAccount()
      // A first request caches the key: suspension must not wait for the cache to expire.
      assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' }, merchant.liveKey)).statusCode, 200)
      const account = await t.app.services.accounts.suspendAccount(merchant.id, 'Chargebacks', OPERATOR)
      assert.ok(account.suspended)
      assert.equal(account.suspendedReason, 'Chargebacks')

      const refused = await t.live({ method: 'GET', url: '/v4.0/orders' }, merchant.liveKey)
      assert.equal(refused.statusCode, 403)
      const body = json(refused)
      assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
      assert.equal(body.statusCode, 403)
      assert.equal(body.outcome, 'Forbidden')
      assert.equal(
        body.statusText,
        `The account ${merchant.id} is suspended: its keys are refused until it is reactivated. Contact the operator of this printroute.`,
      )
      assert.deepEqual(body.data, { accountId: merchant.id })
      const requests = [
        t.sandbox({ method: 'GET', url: '/v4.0/orders' }, merchant.sandboxKey),
        t.live({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() }, merchant.liveKey),
        t.live({ method: 'GET', url: '/v4.0/account/settings' }, merchant.liveKey),
        t.live({ method: 'GET', url: '/v4.0/account/keys' }, merchant.liveKey),
        t.sandbox({ method: 'GET', url: '/v4.0/products/GLOBAL-CAN-10x10' }, merchant.sandboxKey),
      ]
      for (const response of await Promise.all(requests)) {
        assert.equal(response.statusCode, 403, response.body)
        assert.equal(json(response).outcome, 'Forbidden')
      }
      // Another account is untouched; a wrong key is still 401, not 403.
      assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' })).statusCode, 200)
      assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' }, 'pr_live_nothing')).statusCode, 401)

      await t.app.services.accounts.reactivateAccount(merchant.id, OPERATOR)
      assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' }, merchant.liveKey)).statusCode, 200)
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, merchant.sandboxKey)).statusCode, 200)
      assert.equal((await t.app.services.accounts.getAccount(merchant.id)).suspended, null)
    })

    test('its dashboard sessions end at once, with a notice; it cannot sign in until reactivated', async () => {
      const merchant = await t.createAccount()
      const signedIn = await dashboardSignIn(merchant.liveKey)
      assert.equal(signedIn.statusCode, 303)
      const session = signedIn.cookies.find((cookie) => cookie.name === 'printroute_live_session')
      assert.ok(session)
      const cookie = `${session.name}=${session.value}`
      const page = () => t.app.live.inject({ method: 'GET', url: '/dashboard/orders', headers: { cookie } })
      assert.equal((await page()).statusCode, 200)

      await t.app.services.accounts.suspendAccount(merchant.id, null, OPERATOR)
      const ended = await page()
      assert.equal(ended.statusCode, 303)
      assert.match(ended.headers.location as string, /^\/dashboard\/sign-in/)
      const notice = ended.cookies.find((candidate) => candidate.name === 'printroute_live_notice')
      assert.match(decodeURIComponent(notice?.value ?? ''), /its account was suspended/)
      // The API through the session cookie (the dashboard's own calls) is refused too.
      const api = await t.app.live.inject({ method: 'GET', url: '/v4.0/orders', headers: { cookie } })
      assert.equal(api.statusCode, 401)
      const again = await dashboardSignIn(merchant.liveKey)
      assert.equal(again.statusCode, 401)
      assert.match(again.body, /account is suspended, so it cannot sign in\. Contact the operator/)

      await t.app.services.accounts.reactivateAccount(merchant.id, OPERATOR)
      assert.equal((await page()).statusCode, 303, 'the ended session stays ended')
      assert.equal((await dashboardSignIn(merchant.liveKey)).statusCode, 303, 'signing in works again')
    })

    test('an order in production when the account is suspended goes on to Complete', async () => {
      const merchant = await t.createAccount()
      const created = await t.live(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('a.jpg') }] }],
          }),
        },
        merchant.liveKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      const drive = pipelineDriver(t)
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)

      await t.app.services.accounts.suspendAccount(merchant.id, 'Review', OPERATOR)
      const shipped = await drive.ship(orderId)
      assert.equal(shipped.document.status.stage, 'Complete')
      assert.equal((await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` }, merchant.liveKey)).statusCode, 403)

      await t.app.services.accounts.reactivateAccount(merchant.id, OPERATOR)
      const read = await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` }, merchant.liveKey)
      assert.equal(read.statusCode, 200)
      assert.equal(json(read).order.status.stage, 'Complete')
    })

    test('each change is audited once, with before and after; bad input and unknown accounts are refused', async () => {
      const merchant = await t.createAccount()
      await t.app.services.accounts.suspendAccount(merchant.id, '  Fraud review  ', OPERATOR)
      await t.app.services.accounts.suspendAccount(merchant.id, 'Again', OPERATOR)
      const still = await t.app.services.accounts.getAccount(merchant.id)
      assert.equal(still.suspendedReason, 'Fraud review', 'suspending a suspended account changes nothing')
      await t.app.services.accounts.reactivateAccount(merchant.id, OPERATOR)
      await t.app.services.accounts.reactivateAccount(merchant.id, OPERATOR)
      const trail = await listAuditEvents(t.database.db, {
        accountId: parseId('acc', merchant.id) as number,
        limit: 10,
      })
      const entries = trail.filter(
        (entry) => entry.action === 'account.suspended' || entry.action === 'account.reactivated',
      )
      assert.deepEqual(
        entries.map((entry) => [entry.action, entry.target, entry.actorDescription]),
        [
          ['account.reactivated', merchant.id, 'operator opr_1 (Dana)'],
          ['account.suspended', merchant.id, 'operator opr_1 (Dana)'],
        ],
      )
      assert.deepEqual(JSON.parse(entries[1]?.before ?? 'null'), { suspended: false, reason: null })
      assert.deepEqual(JSON.parse(entries[1]?.after ?? 'null'), { suspended: true, reason: 'Fraud review' })

      await assert.rejects(
        t.app.services.accounts.suspendAccount('acc_999999', null, OPERATOR),
        /No account acc_999999/,
      )
      await assert.rejects(t.app.services.accounts.suspendAccount('ord_1', null, OPERATOR), /is not an account ID/)
      await assert.rejects(
        t.app.services.accounts.suspendAccount(merchant.id, 'x'.repeat(501), OPERATOR),
        /at most 500 characters/,
      )
      assert.equal((await t.app.services.accounts.getAccount(merchant.id)).suspended, null, 'nothing changed')
    })
  })
}
