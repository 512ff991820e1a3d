// Credit limits of invoice accounts (docs/billing.md#credit-limits): a Live order whose charge would take the open
// amount above the limit is held on RequiresPaymentAuthorisation like a prepaid order its balance cannot cover, then
// released by a card payment (which lowers the open amount) or by the operator; GET /v4.0/account/billing shows
// `creditLimit`. And the operator's edit of an account in the console (docs/admin.md#editing-an-account): the limit
// and open amount shown, a versioned form whose second, stale submission is refused, the currency refused while money
// is open, each change audited.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge, OrderDocument } from '../../src/domain/order.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { listLedger } from '../../src/repositories/billing.repository.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const accountNumber = (account: TestAccount) => parseId('acc', account.id) as number

const form = (values: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(values).toString(),
})

for (const kind of databaseKinds) {
  describe(`credit limits (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind, publicUrls: { live: 'https://live.printroute.test' } })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    async function charged(key: string): Promise<{ orderId: string; order: OrderDocument; total: bigint }> {
      const response = await t.live(
        {
          method: 'POST',
          url: '/v4.0/orders',
          headers: { 'content-type': 'application/json' },
          payload: sampleOrder({
            items: [{ sku: PHONE_CASE, copies: 2, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
          }),
        },
        key,
      )
      assert.equal(response.statusCode, 200, response.body)
      const orderId = json(response).order.id as string
      const order = (await drive.allocate(orderId)).document
      return { orderId, order, total: minor((order.charges[0] as Charge).totalCost.amount) }
    }

    const heldIssue = (order: OrderDocument) =>
      order.status.issues.find((issue) => issue.errorCode === 'RequiresPaymentAuthorisation')

    const billing = async (key: string, server: 'live' | 'sandbox' = 'live') =>
      json(await t[server]({ method: 'GET', url: '/v4.0/account/billing' }, key)).billing

    const edit = (account: TestAccount, fields: Record<string, string | number>) =>
      t.app.services.accounts.editAccount(
        account.id,
        {
          ...(fields.creditLimitMinor !== undefined ? { creditLimitMinor: BigInt(fields.creditLimitMinor) } : {}),
          ...(typeof fields.billingCurrency === 'string' ? { billingCurrency: fields.billingCurrency } : {}),
        },
        undefined,
        TEST_ACTOR,
      )

    test('no limit: nothing held and creditLimit null (every account until one is set)', async () => {
      const account = await t.createAccount()
      const { order } = await charged(account.liveKey)
      assert.equal(heldIssue(order), undefined)
      const shown = await billing(account.liveKey)
      assert.equal(shown.creditLimit, null)
      assert.deepEqual(Object.keys(shown), [
        'environment',
        'billingMode',
        'currency',
        'balance',
        'openAmount',
        'priceList',
        'creditLimit',
      ])
    })

    test('over the limit: held like a prepaid order; a card payment lowers the open amount and releases it', async () => {
      const account = await t.createAccount()
      const first = await charged(account.liveKey)
      // The limit lets one more order of this size on credit, not two.
      await edit(account, { creditLimitMinor: String(first.total * 2n) })
      assert.deepEqual((await billing(account.liveKey)).creditLimit, {
        amount: (Number(first.total * 2n) / 100).toFixed(2),
        currency: 'GBP',
      })
      assert.equal((await billing(account.sandboxKey, 'sandbox')).creditLimit, null, 'Sandbox never bills')
      const second = await charged(account.liveKey)
      assert.equal(heldIssue(second.order), undefined, 'reaching the limit exactly is allowed')
      const third = await charged(account.liveKey)
      const issue = heldIssue(third.order)
      assert.ok(issue, 'above the limit: held')
      assert.match(issue.description, /above its credit limit/)
      assert.deepEqual(issue.authorisationDetails?.paymentDetails, (third.order.charges[0] as Charge).totalCost)
      await drive.render(third.orderId)
      const notSubmitted = await drive.submit(third.orderId)
      assert.ok(Object.values(notSubmitted.pipeline.shipments).every((shipment) => shipment.state === 'allocated'))
      // The held order's invoice counts in what the account owes: a later small order waits too.
      assert.equal((await billing(account.liveKey)).openAmount.amount, ((Number(first.total) * 3) / 100).toFixed(2))

      const url = new URL(issue.authorisationDetails?.authorisationUrl as string)
      const paid = json(
        await t.live(
          {
            method: 'POST',
            url: url.pathname,
            headers: { 'content-type': 'application/json' },
            payload: {
              token: url.searchParams.get('token'),
              amount: issue.authorisationDetails?.paymentDetails.amount,
              card: { number: '4242424242424242', expiry: '12/39', cvc: '123' },
            },
          },
          null,
        ),
      )
      assert.equal(paid.outcome, 'Paid', JSON.stringify(paid))
      const released = await drive.state(third.orderId)
      assert.equal(heldIssue(released.document), undefined)
      assert.equal(released.document.status.details.inProduction, 'InProgress')
      assert.equal((await billing(account.liveKey)).openAmount.amount, ((Number(first.total) * 2) / 100).toFixed(2))
      const ledger = await listLedger(t.database.db, accountNumber(account))
      assert.deepEqual(
        ledger.slice(-3).map((entry) => [entry.entry, entry.amountMinor]),
        [
          ['invoice-charge', -third.total],
          ['card-payment', third.total],
          ['balance-charge', -third.total],
        ],
      )
    })

    test('the operator releases a held order on credit: its invoice stays owed', async () => {
      const account = await t.createAccount()
      await edit(account, { creditLimitMinor: '0' })
      const { orderId, order, total } = await charged(account.liveKey)
      assert.ok(heldIssue(order), 'a limit of 0: nothing on credit')
      const released = await t.app.services.orderOperations.release(
        { orderId, reason: 'good customer' },
        { kind: 'cli', host: 'test-host', user: 'test' },
      )
      assert.equal(released.payment, 'onCredit')
      assert.equal(heldIssue((await drive.state(orderId)).document), undefined)
      assert.equal(minor((await billing(account.liveKey)).openAmount.amount), total, 'still owed on its invoice')
    })

    test('a refund of a held order takes from what it owes first', async () => {
      const account = await t.createAccount()
      await edit(account, { creditLimitMinor: '0' })
      const { orderId, order } = await charged(account.liveKey)
      assert.ok(heldIssue(order))
      const cancelled = json(
        await t.live({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, account.liveKey),
      )
      assert.equal(cancelled.outcome, 'Cancelled')
      assert.equal(heldIssue(cancelled.order), undefined, 'nothing due any more')
      assert.equal((await billing(account.liveKey)).openAmount.amount, '0.00')
    })

    test('the console edits an account: limit and open amount shown, a stale form refused, the currency guarded', async () => {
      const account = await t.createAccount()
      const { total } = await charged(account.liveKey)
      const originalName = (await t.app.services.accounts.getAccount(account.id)).name
      const { token } = await t.app.services.operators.createOperator('Editor', TEST_ACTOR)
      const signIn = await t.app.live.inject({
        method: 'POST',
        url: '/admin/sign-in',
        ...form({ operatorToken: token }),
      })
      const session = signIn.cookies.find((candidate) => candidate.name === 'printroute_admin_session')
      assert.ok(session)
      const cookie = `${session.name}=${session.value}`
      const page = async (notice?: string) =>
        (
          await t.app.live.inject({
            method: 'GET',
            url: `/admin/accounts/${account.id}`,
            headers: { cookie: notice ? `${cookie}; ${notice}` : cookie },
          })
        ).body
      const before = await page()
      assert.match(before, /<dt>Credit limit<\/dt><dd><span class="muted" data-credit-limit>no limit<\/span><\/dd>/)
      const owed = (Number(total) / 100).toFixed(2)
      assert.match(before, new RegExp(`<dd data-open-amount>${owed} GBP</dd>`))
      const csrf = /name="_csrf" value="([^"]+)"/.exec(before)?.[1] ?? ''
      const version = /name="expectedVersion" value="(\d+)"/.exec(before)?.[1] ?? ''
      assert.ok(csrf && version)

      const submit = async (values: Record<string, string>) => {
        const body = form({
          _csrf: csrf,
          name: 'Renamed shop',
          billingMode: 'invoice',
          billingCurrency: 'GBP',
          priceList: 'default',
          creditLimit: '250.00',
          expectedVersion: version,
          ...values,
        })
        const response = await t.app.live.inject({
          method: 'POST',
          url: `/admin/accounts/${account.id}/edit`,
          headers: { ...body.headers, cookie },
          payload: body.payload,
        })
        assert.equal(response.statusCode, 303, response.body)
        const notice = response.cookies.find((candidate) => candidate.name === 'printroute_admin_notice')
        return page(notice ? `${notice.name}=${encodeURIComponent(notice.value)}` : undefined)
      }
      const saved = await submit({})
      assert.match(saved, new RegExp(`Saved ${account.id} \\(Renamed shop\\)\\.`))
      assert.match(saved, /<span data-credit-limit>250.00 GBP<\/span>/)
      const stored = await t.app.services.accounts.getAccount(account.id)
      assert.equal(stored.name, 'Renamed shop')
      assert.equal(stored.creditLimit, '250.00')
      assert.equal(stored.version, Number(version) + 1)
      const [entry] = await listAuditEvents(t.database.db, {
        actions: ['account.settingsChanged'],
        accountId: accountNumber(account),
        limit: 5,
      })
      assert.equal(entry?.actorKind, 'operator')
      assert.deepEqual(
        [JSON.parse(entry?.before ?? '{}'), JSON.parse(entry?.after ?? '{}')],
        [
          { name: originalName, creditLimit: null },
          { name: 'Renamed shop', creditLimit: '250.00' },
        ],
      )

      // The same form again (another operator's, drawn before the save): refused, nothing changed.
      const stale = await submit({ name: 'Second editor', creditLimit: '' })
      assert.match(stale, new RegExp(`${account.id} changed since it was read \\(another operator edited it first\\)`))
      assert.equal((await t.app.services.accounts.getAccount(account.id)).name, 'Renamed shop')

      // The currency, while the account owes on Live invoices: refused, saying how much.
      const fresh = String(stored.version)
      const currency = await submit({ expectedVersion: fresh, billingCurrency: 'EUR' })
      assert.match(
        currency,
        new RegExp(
          `Billing currency: the currency of ${account.id} cannot change while it owes ${owed} GBP on Live invoices`,
        ),
      )
      const limit = await submit({ expectedVersion: fresh, creditLimit: 'lots' })
      assert.match(limit, /Credit limit: &quot;lots&quot; is not a credit limit/)
      assert.equal((await t.app.services.accounts.getAccount(account.id)).billingCurrency, 'GBP')
    })
  })
}
