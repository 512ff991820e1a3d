// The merchant's billing (docs/api.md#account-billing): GET /v4.0/account/billing (mode, currency, the prepaid
// balance or what an invoice account owes, the price list) and GET /v4.0/account/invoices (the environment's
// documents, newest first, paged, by month), each for the caller's account only; and the dashboard's Billing
// page that shows both (docs/dashboard.md#billing), read as HTML.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { KeyScope } from '../../src/domain/key-scopes.ts'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

for (const kind of databaseKinds) {
  describe(`account billing (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    let shop: TestAccount
    let prepaid: TestAccount
    let other: TestAccount
    /** The shop's Live totals: two orders charged, one cancelled (a credit note). */
    const shopTotals: bigint[] = []

    const toMinor = (amount: string) => BigInt(amount.replace('.', ''))

    async function chargedOrder(server: 'live' | 'sandbox', key: string, reference: string) {
      const response = await t[server](
        {
          method: 'POST',
          url: '/v4.0/orders',
          headers: { 'content-type': 'application/json' },
          payload: sampleOrder({
            merchantReference: reference,
            items: [{ sku: PHONE_CASE, copies: 2, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
          }),
        },
        key,
      )
      assert.equal(response.statusCode, 200, response.body)
      const orderId = json(response).order.id as string
      const allocated = await drive.allocate(orderId)
      return { orderId, charge: allocated.document.charges[0] }
    }

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      drive = pipelineDriver(t)
      shop = await t.createAccount()
      prepaid = await t.createAccount({ billingMode: 'prepaid', billingCurrency: 'EUR' })
      other = await t.createAccount()
      const first = await chargedOrder('live', shop.liveKey, 'shop-1')
      const second = await chargedOrder('live', shop.liveKey, 'shop-2')
      shopTotals.push(toMinor(first.charge?.totalCost.amount ?? '0'), toMinor(second.charge?.totalCost.amount ?? '0'))
      const cancelled = json(
        await t.live({ method: 'POST', url: `/v4.0/orders/${second.orderId}/actions/cancel` }, shop.liveKey),
      )
      assert.equal(cancelled.outcome, 'Cancelled')
      shopTotals.push(toMinor(cancelled.order.charges[1].totalCost.amount))
      await chargedOrder('sandbox', shop.sandboxKey, 'shop-sandbox')
      await chargedOrder('live', other.liveKey, 'other-1')
      await t.app.services.payments.topUp(Number(prepaid.id.slice('acc_'.length)), 12_345n, 'transfer 1', TEST_ACTOR)
      await t.database.db.query(`UPDATE accounts SET price_list = 'wholesale' WHERE id = $1`, [
        Number(prepaid.id.slice('acc_'.length)),
      ])
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    const billingOf = async (server: 'live' | 'sandbox', key: string) => {
      const response = await t[server]({ method: 'GET', url: '/v4.0/account/billing' }, key)
      assert.equal(response.statusCode, 200, response.body)
      return json(response)
    }

    test('an invoice account owes its Live invoices less its credit notes; its price list is the default', async () => {
      const answer = await billingOf('live', shop.liveKey)
      assert.equal(answer.outcome, 'Ok')
      assert.deepEqual(Object.keys(answer), ['outcome', 'billing', 'traceParent'])
      const owed = shopTotals.reduce((sum, total) => sum + total, 0n)
      assert.ok(shopTotals[2] !== undefined && shopTotals[2] < 0n, 'the cancel gave money back')
      assert.deepEqual(answer.billing, {
        environment: 'live',
        billingMode: 'invoice',
        currency: 'GBP',
        balance: null,
        openAmount: { amount: `${owed / 100n}.${String(owed % 100n).padStart(2, '0')}`, currency: 'GBP' },
        priceList: null,
        creditLimit: null,
      })
      // Another account's charges (and the shop's Sandbox ones) never count: a new account owes nothing.
      const fresh = await t.createAccount()
      assert.deepEqual((await billingOf('live', fresh.liveKey)).billing.openAmount, { amount: '0.00', currency: 'GBP' })
    })

    test('a prepaid account shows its balance and price list; Sandbox shows no money', async () => {
      assert.deepEqual((await billingOf('live', prepaid.liveKey)).billing, {
        environment: 'live',
        billingMode: 'prepaid',
        currency: 'EUR',
        balance: { amount: '123.45', currency: 'EUR' },
        openAmount: { amount: '0.00', currency: 'EUR' },
        priceList: 'wholesale',
        creditLimit: null,
      })
      assert.deepEqual((await billingOf('sandbox', prepaid.sandboxKey)).billing, {
        environment: 'sandbox',
        billingMode: 'prepaid',
        currency: 'EUR',
        balance: null,
        openAmount: null,
        priceList: 'wholesale',
        creditLimit: null,
      })
      assert.equal((await billingOf('sandbox', shop.sandboxKey)).billing.openAmount, null)
    })

    test("the account's documents: its environment's only, newest first, paged, by month", async () => {
      const list = async (server: 'live' | 'sandbox', key: string, query = '') => {
        const response = await t[server]({ method: 'GET', url: `/v4.0/account/invoices${query}` }, key)
        return { status: response.statusCode, body: json(response) }
      }
      const live = await list('live', shop.liveKey)
      assert.equal(live.status, 200)
      assert.deepEqual(
        live.body.invoices.map((invoice: { number: string }) => invoice.number),
        ['CN-000001', 'INV-000002', 'INV-000001'],
      )
      assert.equal(live.body.hasMore, false)
      assert.equal(live.body.nextUrl, null)
      const [newest] = live.body.invoices
      assert.equal(newest.kind, 'CreditNote')
      assert.match(newest.orderId, /^ord_\d+$/)
      assert.match(newest.pdfUrl, /\/files\/invoices\/CN-000001\.pdf\?/)
      // The PDF link works without a key, as the order's invoice links do.
      const pdf = await t.live(
        { method: 'GET', url: new URL(newest.pdfUrl).pathname + new URL(newest.pdfUrl).search },
        null,
      )
      assert.equal(pdf.statusCode, 200)
      assert.equal(pdf.headers['content-type'], 'application/pdf')

      const sandbox = await list('sandbox', shop.sandboxKey)
      assert.deepEqual(
        sandbox.body.invoices.map((invoice: { number: string }) => invoice.number),
        ['SBX-INV-000001'],
      )
      const others = await list('live', other.liveKey)
      assert.deepEqual(
        others.body.invoices.map((invoice: { number: string }) => invoice.number),
        ['INV-000003'],
      )

      const page = await list('live', shop.liveKey, '?top=2')
      assert.equal(page.body.invoices.length, 2)
      assert.equal(page.body.hasMore, true)
      assert.match(page.body.nextUrl, /\/v4\.0\/account\/invoices\?top=2&skip=2$/)
      const next = await list('live', shop.liveKey, '?top=2&skip=2')
      assert.deepEqual(
        next.body.invoices.map((invoice: { number: string }) => invoice.number),
        ['INV-000001'],
      )
      const month = t.clock.now().toISOString().slice(0, 7)
      assert.equal((await list('live', shop.liveKey, `?month=${month}`)).body.invoices.length, 3)
      assert.equal((await list('live', shop.liveKey, '?month=2001-01')).body.invoices.length, 0)

      const bad = await list('live', shop.liveKey, '?month=2026-13')
      assert.equal(bad.status, 400)
      assert.equal(bad.body.outcome, 'ValidationFailed')
      assert.equal(bad.body.failures.month[0].code, 'InvalidFormat')
      assert.equal((await list('live', shop.liveKey, '?top=0')).status, 400)
    })

    test("a month's statement: its environment's documents of the caller's account, totalled per currency", async () => {
      const month = t.clock.now().toISOString().slice(0, 7)
      const statementOf = async (server: 'live' | 'sandbox', key: string, of: string) => {
        const response = await t[server]({ method: 'GET', url: `/v4.0/account/statements/${of}` }, key)
        return { status: response.statusCode, body: json(response) }
      }
      const live = await statementOf('live', shop.liveKey, month)
      assert.equal(live.status, 200)
      const [first, second, refund] = shopTotals as [bigint, bigint, bigint]
      const amount = (minor: bigint) =>
        `${minor < 0n ? '-' : ''}${(minor < 0n ? -minor : minor) / 100n}.${String((minor < 0n ? -minor : minor) % 100n).padStart(2, '0')}`
      assert.equal(live.body.statement.month, month)
      assert.equal(live.body.statement.environment, 'live')
      assert.equal(live.body.statement.documentCount, 3)
      assert.equal(live.body.statement.totals.length, 1)
      assert.deepEqual(
        (({ currency, invoiced, credited, net }) => ({ currency, invoiced, credited, net }))(
          live.body.statement.totals[0],
        ),
        {
          currency: 'GBP',
          invoiced: amount(first + second),
          credited: amount(refund),
          net: amount(first + second + refund),
        },
      )
      // The operator's statement of the same month says the same.
      const operators = await t.app.services.invoices.statement(Number(shop.id.slice(4)), 'live', month)
      assert.deepEqual(live.body.statement.totals, operators.totals)

      assert.equal((await statementOf('sandbox', shop.sandboxKey, month)).body.statement.documentCount, 1)
      assert.equal((await statementOf('live', other.liveKey, month)).body.statement.documentCount, 1)
      const empty = await statementOf('live', shop.liveKey, '2001-01')
      assert.deepEqual(empty.body.statement.totals, [])
      assert.equal(empty.body.statement.documentCount, 0)
      const bad = await statementOf('live', shop.liveKey, '2026-3')
      assert.equal(bad.status, 400)
      assert.equal(bad.body.failures.month[0].code, 'InvalidFormat')
    })

    test('each needs the account:read scope', async () => {
      const { key } = await t.app.services.accounts.createApiKey(shop.id, 'live', TEST_ACTOR, {
        scopes: ['orders:read'] satisfies KeyScope[],
      })
      for (const url of ['/v4.0/account/billing', '/v4.0/account/invoices', '/v4.0/account/statements/2026-03']) {
        const response = await t.live({ method: 'GET', url }, key)
        assert.equal(response.statusCode, 403, url)
        assert.equal(json(response).data.scope, 'account:read')
      }
    })

    describe('the dashboard Billing page', () => {
      const signIn = async (
        account: TestAccount,
        environment: 'live' | 'sandbox',
        scopes: KeyScope[] | null = null,
      ) => {
        const { key } = await t.app.services.accounts.createApiKey(account.id, environment, TEST_ACTOR, { scopes })
        const signedIn = await t.app.services.sessions.signIn(key, environment)
        assert.ok(signedIn.signedIn)
        return `${sessionCookieName(environment)}=${signedIn.token}`
      }
      const page = async (environment: 'live' | 'sandbox', cookie: string, query = '') => {
        const response = await t[environment](
          { method: 'GET', url: `/dashboard/billing${query}`, headers: { cookie } },
          null,
        )
        assert.equal(response.statusCode, 200, response.body)
        return response.body
      }
      const rows = (body: string) => [...body.matchAll(/<tr data-invoice="([^"]+)">/g)].map((match) => match[1])

      test('an invoice account: what it owes, the default price list, its documents with their PDFs', async () => {
        const body = await page('live', await signIn(shop, 'live'))
        const owed = shopTotals.reduce((sum, total) => sum + total, 0n)
        assert.match(body, /<a href="\/dashboard\/billing" aria-current="page">Billing<\/a>/)
        assert.match(
          body,
          new RegExp(
            `<dd class="billing-amount" data-owed>${owed / 100n}\\.${String(owed % 100n).padStart(2, '0')} GBP</dd>`,
          ),
        )
        assert.match(body, /<dd data-price-list>default<\/dd>/)
        assert.deepEqual(rows(body), ['CN-000001', 'INV-000002', 'INV-000001'])
        assert.match(body, /<a href="http:\/\/[^"]+\/files\/invoices\/INV-000001\.pdf\?[^"]+">INV-000001<\/a>/)
        assert.doesNotMatch(body, /INV-000003/, "another account's invoice never shows")
        const empty = await page('live', await signIn(shop, 'live'), '?month=2001-01')
        assert.deepEqual(rows(empty), [])
        assert.match(empty, /No invoices or credit notes in 2001-01\./)
        assert.match(empty, /data-statement="2001-01"[\s\S]*No documents: nothing invoiced or credited\./)
        const month = t.clock.now().toISOString().slice(0, 7)
        const thisMonth = await page('live', await signIn(shop, 'live'), `?month=${month}`)
        assert.deepEqual(rows(thisMonth), ['CN-000001', 'INV-000002', 'INV-000001'])
        const net = `${owed / 100n}.${String(owed % 100n).padStart(2, '0')}`
        assert.match(thisMonth, new RegExp(`<dd data-statement-net>${net.replace('.', '\\.')} GBP</dd>`))
        assert.match(thisMonth, /3 documents\./)
        const bad = await page('live', await signIn(shop, 'live'), '?month=March')
        assert.match(bad, /Month: choose a month such as 2026-03, not &quot;March&quot;\./)
        assert.deepEqual(rows(bad), ['CN-000001', 'INV-000002', 'INV-000001'])
        assert.doesNotMatch(bad, /data-statement=/)
      })

      test('a prepaid account: its balance and price list; Sandbox shows its own documents and no money', async () => {
        const live = await page('live', await signIn(prepaid, 'live'))
        assert.match(live, /<dd class="billing-amount" data-balance>123\.45 EUR<\/dd>/)
        assert.match(live, /<dd data-price-list>wholesale<\/dd>/)
        assert.match(live, /No invoices or credit notes yet/)
        const sandbox = await page('sandbox', await signIn(shop, 'sandbox'))
        assert.match(sandbox, /Sandbox is never billed/)
        assert.doesNotMatch(sandbox, /data-owed|data-balance/)
        assert.deepEqual(rows(sandbox), ['SBX-INV-000001'])
      })

      test('a key without account:read gets no Billing link and a polite page', async () => {
        const cookie = await signIn(shop, 'live', ['orders:read'])
        const orders = await t.live({ method: 'GET', url: '/dashboard/orders', headers: { cookie } }, null)
        assert.doesNotMatch(orders.body, /href="\/dashboard\/billing"/)
        const body = await page('live', cookie)
        assert.match(body, /This key cannot read the account&#39;s settings, billing or activity/)
        assert.deepEqual(rows(body), [])
      })
    })
  })
}
