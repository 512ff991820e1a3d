// The console's orders pages (src/web/operator/orders.pages.ts) over the admin views service: every account's
// orders in both environments, searched and filtered, bad filters answered naming the field, and an order's page
// that is the merchant's own order page, read-only, with its account. Real orders on every configured database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { registerOrdersPages } from '../../src/web/operator/orders.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

for (const kind of databaseKinds) {
  describe(`console orders pages (${kind})`, () => {
    let t: TestApp
    let pages: AdminPagesHarness
    let images: ImageServer
    let other: TestAccount
    const ids = { liveFirst: '', sandboxFirst: '', otherLive: '' }

    async function place(
      environment: 'live' | 'sandbox',
      key: string,
      reference: string,
      overrides: Record<string, unknown> = {},
    ) {
      const send = environment === 'live' ? t.live : t.sandbox
      const created = await send(
        {
          method: 'POST',
          url: '/v4.0/orders',
          headers: { 'content-type': 'application/json' },
          payload: sampleOrder({
            merchantReference: reference,
            items: [
              {
                sku: 'GLOBAL-CAN-10x10',
                copies: 1,
                sizing: 'fillPrintArea',
                attributes: { wrap: 'Black' },
                assets: [{ url: images.url('canvas.jpg') }],
              },
            ],
            ...overrides,
          }),
        },
        key,
      )
      assert.equal(created.statusCode, 200, created.body)
      return json(created).order.id as string
    }

    before(async () => {
      images = await startImageServer()
      t = await startTestApp({ kind })
      other = await t.createAccount()
      ids.liveFirst = await place('live', t.account.liveKey, 'shop-1001')
      ids.sandboxFirst = await place('sandbox', t.account.sandboxKey, 'shop-1002')
      ids.otherLive = await place('live', other.liveKey, 'elsewhere-77')
      // One order taken through allocation and print files: shipments, routing, charges and events to show.
      await pipelineDriver(t).allocate(ids.liveFirst)
      await pipelineDriver(t).render(ids.liveFirst)
      pages = await startAdminPages((scope, console) =>
        registerOrdersPages(scope, console, t.app.services.adminViews.orders),
      )
    })
    after(async () => {
      await pages.close()
      await t.close()
      await images.close()
    })

    /** The order IDs the list shows, in its order. */
    function listed(body: string): string[] {
      return [...body.matchAll(/<th scope="row"><a href="\/admin\/orders\/(ord_\d+)">/g)].map((match) => match[1] ?? '')
    }

    test('lists every account’s orders in both environments, newest first, with their account', async () => {
      const page = await pages.request('/admin/orders')
      assert.equal(page.status, 200)
      assert.deepEqual(listed(page.body), [ids.otherLive, ids.sandboxFirst, ids.liveFirst])
      assert.match(page.body, new RegExp(`href="/admin/accounts/${other.id}"`))
      assert.match(page.body, new RegExp(`href="/admin/accounts/${t.account.id}"`))
    })

    test('searches by order ID, account ID and part of a merchant reference', async () => {
      assert.deepEqual(listed((await pages.request(`/admin/orders?q=${ids.sandboxFirst}`)).body), [ids.sandboxFirst])
      assert.deepEqual(listed((await pages.request(`/admin/orders?q=${other.id}`)).body), [ids.otherLive])
      assert.deepEqual(listed((await pages.request('/admin/orders?q=SHOP-10')).body), [ids.sandboxFirst, ids.liveFirst])
      const none = await pages.request('/admin/orders?q=no-such-reference')
      assert.deepEqual(listed(none.body), [])
      assert.match(none.body, /No orders match/)
    })

    test('filters by environment and status, and pages with skip', async () => {
      assert.deepEqual(listed((await pages.request('/admin/orders?environment=sandbox')).body), [ids.sandboxFirst])
      assert.deepEqual(listed((await pages.request('/admin/orders?environment=live')).body), [
        ids.otherLive,
        ids.liveFirst,
      ])
      assert.deepEqual(listed((await pages.request('/admin/orders?status=Complete')).body), [])
      assert.deepEqual(listed((await pages.request('/admin/orders?status=InProgress&environment=live&skip=1')).body), [
        ids.liveFirst,
      ])
    })

    test('bad filters answer 400 naming each field and why', async () => {
      const page = await pages.request(`/admin/orders?environment=staging&status=Lost&skip=-1&q=${'x'.repeat(201)}`)
      assert.equal(page.status, 400)
      assert.match(page.body, /environment: must be one of sandbox, live/)
      assert.match(page.body, /status: must be one of InProgress, Complete, Cancelled, AwaitingPayment, OnHold/)
      assert.match(page.body, /skip: must be a whole number from 0 to 100000/)
      assert.match(page.body, /q: longer than 200 characters/)
    })

    test('an order’s page is the merchant’s order page, read-only, with its account', async () => {
      const page = await pages.request(`/admin/orders/${ids.liveFirst}`)
      assert.equal(page.status, 200)
      assert.match(page.body, new RegExp(`<h1>Order ${ids.liveFirst}</h1>`))
      assert.match(page.body, new RegExp(`<a href="/admin/accounts/${t.account.id}">${t.account.id}</a> Test merchant`))
      for (const heading of [
        'Progress',
        'Items',
        'Shipments',
        'Routing',
        'Charges and refunds',
        'Timeline',
        'Callbacks',
      ])
        assert.match(page.body, new RegExp(`<h2 id="[a-z-]+">${heading}</h2>`), heading)
      // The same facts the merchant reads: the order's shipment, its lab and its first charge.
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${ids.liveFirst}` })).order
      assert.ok(order.shipments.length > 0)
      assert.match(page.body, new RegExp(`<code>${order.shipments[0].id}</code>`))
      assert.match(page.body, new RegExp(`<code>${order.charges[0].id}</code>`))
      // Read-only: no form, no action, nothing under the merchant's dashboard.
      assert.doesNotMatch(page.body, /<form/)
      assert.doesNotMatch(page.body, /Cancel order|Change recipient|Redeliver/)
      assert.doesNotMatch(page.body, /\/dashboard\/orders/)
    })

    /** The order's page in the merchant's Live dashboard, signed in with the account's Live key. */
    async function merchantOrderPage(orderId: string): Promise<string> {
      const signIn = await t.app.live.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ apiKey: t.account.liveKey }).toString(),
      })
      const cookie = String(signIn.headers['set-cookie'] ?? '').split(';')[0] ?? ''
      const merchant = await t.app.live.inject({
        method: 'GET',
        url: `/dashboard/orders/${orderId}`,
        headers: { cookie },
      })
      assert.equal(merchant.statusCode, 200, merchant.body.slice(0, 300))
      return merchant.body
    }

    /**
     * An order page's sections from its progress to its callbacks (which differ: the console's cannot redeliver),
     * with each invoice's PDF link reduced to its number: the console links its own PDF route, the merchant's page
     * the environment's signed file link.
     */
    function sections(body: string): string {
      const start = body.indexOf('<section aria-labelledby="progress-heading">')
      const end = body.indexOf('<section aria-labelledby="callbacks-heading">')
      assert.ok(start > 0 && end > start)
      return body
        .slice(start, end)
        .replace(/href="[^"]*" data-invoice="([^"]+)"/g, 'href="(PDF of $1)" data-invoice="$1"')
    }

    test('the console links an order’s invoices to its own PDF route', async () => {
      const consolePage = (await pages.request(`/admin/orders/${ids.liveFirst}`)).body
      const [link] = consolePage.match(/href="[^"]*" data-invoice="[^"]+"/) ?? []
      assert.match(link ?? '', /^href="\/admin\/invoices\/INV-\d{6}\.pdf" data-invoice="INV-\d{6}"$/)
    })

    test('shows the order’s sections exactly as the merchant’s page shows them', async () => {
      const consolePage = (await pages.request(`/admin/orders/${ids.liveFirst}`)).body
      assert.equal(sections(consolePage), sections(await merchantOrderPage(ids.liveFirst)))
    })

    test('an order made with a quote shows the quote’s routing beside its own, as the merchant’s page does', async () => {
      const quoted = await t.live({
        method: 'POST',
        url: '/v4.0/quotes',
        headers: { 'content-type': 'application/json' },
        payload: {
          shippingMethod: 'Standard',
          destinationCountryCode: 'GB',
          items: [{ sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'Black' }, assets: [{}] }],
        },
      })
      assert.equal(quoted.statusCode, 200, quoted.body)
      const quoteId = json(quoted).quotes[0].id as string
      const orderId = await place('live', t.account.liveKey, 'quoted-1', { quoteId })
      const consolePage = (await pages.request(`/admin/orders/${orderId}`)).body
      assert.match(consolePage, new RegExp(`Quote <code>${quoteId}</code> and this order`))
      assert.equal(sections(consolePage), sections(await merchantOrderPage(orderId)))
    })

    test('an order in its account’s pause window is listed as on hold and its page says until when', async () => {
      const pausing = await t.createAccount({ pauseWindowSeconds: 3600 })
      const created = await t.live(
        {
          method: 'POST',
          url: '/v4.0/orders',
          headers: { 'content-type': 'application/json' },
          payload: sampleOrder({ merchantReference: 'held-1' }),
        },
        pausing.liveKey,
      )
      assert.equal(json(created).outcome, 'OnHold')
      const held = json(created).order.id as string
      // The merchant cannot read it yet; the operator can.
      assert.equal((await t.live({ method: 'GET', url: `/v4.0/orders/${held}` }, pausing.liveKey)).statusCode, 404)
      assert.deepEqual(listed((await pages.request('/admin/orders?status=OnHold')).body), [held])
      const page = await pages.request(`/admin/orders/${held}`)
      assert.equal(page.status, 200)
      assert.match(page.body, /<dt>On hold until<\/dt>/)
      assert.match(page.body, /held-1/)
    })

    test('an unknown order or a text that is no order ID is not found', async () => {
      const unknown = await pages.request('/admin/orders/ord_999999')
      assert.equal(unknown.status, 404)
      assert.match(unknown.body, /No account has an order ord_999999/)
      const wrong = await pages.request('/admin/orders/acc_1')
      assert.equal(wrong.status, 404)
      assert.match(wrong.body, /is not an order ID/)
    })
  })
}
