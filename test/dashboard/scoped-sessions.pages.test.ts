// The dashboard for a session whose key has some scopes only: each page offers what the key may do and says
// politely what it may not (src/web/kit/scopes.ts), the navigation hides what the key cannot use, and a form
// the page did not offer, sent anyway, gets the API's 403 as a normal error notice, never a 500. The uses' scopes
// are held to the API's route table, so a route whose scope changes fails here.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { KeyScope } from '../../src/domain/key-scopes.ts'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { routeScopesOf } from '../../src/http/key-scopes.ts'
import { DASHBOARD_USES } from '../../src/web/kit/scopes.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const READ_ONLY: KeyScope[] = ['orders:read', 'products:read', 'account:read']
const NOTICE_COOKIE = 'printroute_sandbox_notice'

interface Session {
  cookie: string
  csrfToken: string
}

for (const kind of databaseKinds) {
  describe(`dashboard pages for scoped keys (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let orderId: string
    let readOnly: Session

    const signIn = async (scopes: KeyScope[] | null): Promise<Session> => {
      const { key } = await t.app.services.accounts.createApiKey(t.account.id, 'sandbox', TEST_ACTOR, { scopes })
      const signedIn = await t.app.services.sessions.signIn(key, 'sandbox')
      assert.ok(signedIn.signedIn)
      return { cookie: `${sessionCookieName('sandbox')}=${signedIn.token}`, csrfToken: signedIn.csrfToken }
    }
    const get = (session: Session, url: string, extraCookie = '') =>
      t.sandbox({ method: 'GET', url, headers: { cookie: `${session.cookie}${extraCookie}` } }, null)
    const post = (session: Session, url: string, form: Record<string, string> = {}) =>
      t.sandbox(
        {
          method: 'POST',
          url,
          payload: new URLSearchParams({ _csrf: session.csrfToken, ...form }).toString(),
          headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        },
        null,
      )
    /** A post that redirects with a notice: the page it lands on, showing that notice. */
    const postAndFollow = async (session: Session, url: string, form: Record<string, string> = {}) => {
      const answer = await post(session, url, form)
      assert.equal(answer.statusCode, 303, `${url}: ${answer.body}`)
      const notice = answer.cookies.find((cookie) => cookie.name === NOTICE_COOKIE)
      assert.ok(notice, `${url} sets a notice`)
      const landed = await get(
        session,
        String(answer.headers.location),
        `; ${NOTICE_COOKIE}=${encodeURIComponent(notice.value)}`,
      )
      assert.equal(landed.statusCode, 200, landed.body)
      return landed.body
    }

    before(async () => {
      images = await startImageServer()
      t = await startTestApp({ kind })
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json' },
        payload: sampleOrder({
          items: [
            {
              sku: 'GLOBAL-CAN-10x10',
              copies: 1,
              sizing: 'fillPrintArea',
              attributes: { wrap: 'Black' },
              assets: [{ url: images.url('canvas.jpg') }],
            },
          ],
        }),
      })
      assert.equal(created.statusCode, 200, created.body)
      orderId = json(created).order.id
      readOnly = await signIn(READ_ONLY)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    test("each use's scope is the one its API routes declare", () => {
      const declared = new Map(
        routeScopesOf(t.app.sandbox).map((route) => [`${route.method} ${route.url}`, route.scope] as const),
      )
      for (const [name, use] of Object.entries(DASHBOARD_USES)) {
        for (const route of use.routes) {
          assert.ok(declared.has(route), `${name}: the API has ${route}`)
          assert.equal(declared.get(route), use.scope, `${name}: ${route} needs ${declared.get(route)}`)
        }
      }
    })

    test('a read-only key sees orders, the catalogue and settings, and is offered no change', async () => {
      const orders = await get(readOnly, '/dashboard/orders')
      assert.equal(orders.statusCode, 200, orders.body)
      assert.match(orders.body, new RegExp(orderId))
      assert.doesNotMatch(orders.body, /href="\/dashboard\/new-order/, 'no New order link or button')
      assert.match(orders.body, /href="\/dashboard\/catalogue"/)
      assert.match(orders.body, /href="\/dashboard\/developers"/)

      const order = await get(readOnly, `/dashboard/orders/${orderId}`)
      assert.equal(order.statusCode, 200, order.body)
      assert.match(order.body, /<h2 id="items-heading">Items<\/h2>/, 'the order is shown')
      for (const action of ['/cancel', '/shipping-method', '/recipient', '/metadata', '/advance']) {
        assert.doesNotMatch(order.body, new RegExp(`/dashboard/orders/${orderId}${action}"`), `no ${action}`)
      }
      assert.doesNotMatch(order.body, /Cancel order|Redeliver/)
      assert.match(
        order.body,
        /This key cannot create or change orders \(it lacks the <code>orders:write<\/code> scope\)/,
      )
      assert.match(order.body, /This key cannot see or send callbacks \(it lacks the <code>webhooks:manage<\/code>/)

      const confirm = await get(readOnly, `/dashboard/orders/${orderId}/cancel`)
      assert.equal(confirm.statusCode, 200, confirm.body)
      assert.doesNotMatch(confirm.body, /<form method="post" action="\/dashboard\/orders\//)
      assert.match(confirm.body, /lacks the <code>orders:write<\/code> scope/)

      const catalogue = await get(readOnly, '/dashboard/catalogue')
      assert.equal(catalogue.statusCode, 200, catalogue.body)
      assert.match(catalogue.body, /GLOBAL-CAN-10x10/)
      assert.doesNotMatch(catalogue.body, /Quote a basket|\/dashboard\/catalogue\/quote|\/dashboard\/new-order/)
      const quote = await get(readOnly, '/dashboard/catalogue/quote?sku1=GLOBAL-CAN-10x10')
      assert.match(quote.body, /This key cannot price quotes or check addresses/)
      assert.doesNotMatch(quote.body, /Get quote/)

      const newOrder = await get(readOnly, '/dashboard/new-order')
      assert.equal(newOrder.statusCode, 200, newOrder.body)
      assert.match(newOrder.body, /lacks the <code>orders:write<\/code> scope/)
      assert.doesNotMatch(newOrder.body, /Place test order|name="sku"/)
    })

    test('a read-only key sees the Developers views it may read, and no form that changes anything', async () => {
      const developers = await get(readOnly, '/dashboard/developers')
      assert.equal(developers.headers.location, '/dashboard/developers/events', 'the first view it may use')

      const events = await get(readOnly, '/dashboard/developers/events')
      assert.equal(events.statusCode, 200, events.body)
      assert.match(events.body, /href="\/dashboard\/developers\/settings"/)
      assert.match(events.body, /href="\/dashboard\/developers\/activity"/)
      assert.doesNotMatch(events.body, /href="\/dashboard\/developers\/(callbacks|keys)"/, 'views it cannot use')

      const settings = await get(readOnly, '/dashboard/developers/settings')
      assert.equal(settings.statusCode, 200, settings.body)
      assert.match(settings.body, /Current settings/)
      assert.match(settings.body, /This key cannot change the account&#39;s settings/)
      assert.doesNotMatch(settings.body, /<form method="post" action="\/dashboard\/developers\/settings/)
      assert.doesNotMatch(settings.body, /Send test callback|Rotate signing secret/)
      assert.match(settings.body, /Show the signing secret/, 'what it may read is shown')

      const callbacks = await get(readOnly, '/dashboard/developers/callbacks')
      assert.equal(callbacks.statusCode, 200, callbacks.body)
      assert.match(callbacks.body, /This key cannot see or send callbacks/)

      const keys = await get(readOnly, '/dashboard/developers/keys')
      assert.match(keys.body, /lacks the <code>keys:manage<\/code> scope/)
      assert.doesNotMatch(keys.body, /Create a Sandbox key/)

      const activity = await get(readOnly, '/dashboard/developers/activity')
      assert.equal(activity.statusCode, 200, activity.body)
      assert.match(activity.body, /Recent changes, newest first/)
    })

    test('a key that manages keys is offered to revoke only keys within its own scopes', async () => {
      const manager = await signIn(['keys:manage', 'orders:read'])
      const everything = await t.app.services.accounts.createApiKey(t.account.id, 'sandbox', TEST_ACTOR)
      const reader = await t.app.services.accounts.createApiKey(t.account.id, 'sandbox', TEST_ACTOR, {
        scopes: ['orders:read'],
      })
      const keys = await get(manager, '/dashboard/developers/keys')
      assert.equal(keys.statusCode, 200, keys.body)
      assert.match(keys.body, new RegExp(`aria-label="Revoke ${reader.prefix}"`))
      assert.doesNotMatch(keys.body, new RegExp(`aria-label="Revoke ${everything.prefix}"`))
      const confirm = await get(manager, `/dashboard/developers/keys/${everything.prefix}/revoke`)
      assert.match(confirm.body, /this session cannot revoke it/)
      assert.doesNotMatch(confirm.body, /<form method="post"/)
    })

    test('forms sent anyway are refused with an error notice, never a 500', async () => {
      const lacksWrite = /role="alert">This key cannot create or change orders \(it lacks the orders:write scope\)/
      assert.match(await postAndFollow(readOnly, `/dashboard/orders/${orderId}/cancel`), lacksWrite)
      assert.match(
        await postAndFollow(readOnly, `/dashboard/orders/${orderId}/metadata`, { metadata: '{"a":"b"}' }),
        lacksWrite,
      )
      assert.match(await postAndFollow(readOnly, `/dashboard/orders/${orderId}/advance`), lacksWrite)
      assert.match(
        await postAndFollow(readOnly, '/dashboard/callbacks/cb_1/redeliver', { back: '/dashboard/developers/events' }),
        /role="alert">This key cannot see or send callbacks \(it lacks the webhooks:manage scope\)/,
      )
      assert.match(
        await postAndFollow(readOnly, '/dashboard/developers/keys'),
        /role="alert">This key cannot list, create or revoke API keys \(it lacks the keys:manage scope\)/,
      )

      const settings = await post(readOnly, '/dashboard/developers/settings', { callbackUrl: '' })
      assert.equal(settings.statusCode, 403, settings.body)
      assert.match(
        settings.body,
        /role="alert">This key cannot change the account.{1,6}s settings \(it lacks the account:manage scope\)/,
      )
      const testCallback = await post(readOnly, '/dashboard/developers/settings/test-callback', {
        url: 'http://127.0.0.1:9/hook',
      })
      assert.equal(testCallback.statusCode, 403, testCallback.body)
      assert.match(testCallback.body, /role="alert">This key cannot see or send callbacks/)

      const newOrder = await post(readOnly, '/dashboard/new-order', { sku: 'GLOBAL-CAN-10x10', copies: '1' })
      assert.ok(newOrder.statusCode >= 400 && newOrder.statusCode < 500, `${newOrder.statusCode}: ${newOrder.body}`)
      assert.match(newOrder.body, /This key cannot create or change orders \(it lacks the orders:write scope\)/)
      assert.doesNotMatch(newOrder.body, /Place test order/)
    })

    test('a key that may change orders but not read them is told so, and offered what it may do', async () => {
      const writer = await signIn(['orders:write'])
      const orders = await get(writer, '/dashboard/orders')
      assert.equal(orders.statusCode, 200, orders.body)
      assert.match(orders.body, /This key cannot read orders \(it lacks the <code>orders:read<\/code> scope\)/)
      assert.doesNotMatch(orders.body, new RegExp(orderId))
      assert.match(orders.body, /<a class="button" href="\/dashboard\/new-order">New test order<\/a>/)
      assert.doesNotMatch(orders.body, /href="\/dashboard\/(catalogue|developers)"/, 'nav: only what it may use')
      const order = await get(writer, `/dashboard/orders/${orderId}`)
      assert.equal(order.statusCode, 200, order.body)
      assert.match(order.body, /This key cannot read orders/)
      const newOrder = await get(writer, '/dashboard/new-order')
      assert.match(newOrder.body, /This key cannot read the catalogue \(it lacks the <code>products:read<\/code>/)
    })

    test('a key with every scope is offered everything', async () => {
      const everything = await signIn(null)
      const order = await get(everything, `/dashboard/orders/${orderId}`)
      assert.match(order.body, /Cancel order/)
      assert.match(order.body, /Edit metadata/)
      assert.doesNotMatch(order.body, /This key cannot/)
      const nav = await get(everything, '/dashboard/orders')
      assert.match(nav.body, /href="\/dashboard\/new-order"/)
      const catalogue = await get(everything, '/dashboard/catalogue')
      assert.match(catalogue.body, /Quote a basket/)
      assert.match(catalogue.body, /Test order<span/)
      const settings = await get(everything, '/dashboard/developers/settings')
      assert.match(settings.body, /Save settings/)
      assert.match(settings.body, /Send test callback/)
      assert.match(settings.body, /Rotate signing secret/)
      assert.doesNotMatch(settings.body, /This key cannot/)
      const developers = await get(everything, '/dashboard/developers')
      assert.equal(developers.headers.location, '/dashboard/developers/callbacks')
    })
  })
}
