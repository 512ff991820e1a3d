// Developers -> Webhooks (src/web/merchant/developers-webhooks.page.ts) and the console's webhook endpoints in
// its callbacks health: the list and create form with the API's refusals on their fields, the secret shown once,
// an endpoint's page (edit, disable/enable, rotate, test send to a real receiver on 127.0.0.1, delete), an
// endpoint disabled for failing, and a key without webhooks:manage. Every database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { KeyScope } from '../../src/domain/key-scopes.ts'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { registerCallbacksPages } from '../../src/web/operator/callbacks.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const NOTICE_COOKIE = 'printroute_sandbox_notice'
const SHIPMENT_SHIPPED = 'com.printroute.order.shipments.shipment#Shipped'

interface Session {
  cookie: string
  csrfToken: string
}

for (const kind of databaseKinds) {
  describe(`dashboard webhooks view (${kind})`, () => {
    let t: TestApp
    let receiver: CallbackReceiver
    let pages: AdminPagesHarness
    let images: ImageServer
    let full: Session
    /** What the receiver answers next. */
    let answer = 200

    const signIn = async (scopes: KeyScope[] | null): Promise<Session> => {
      const { key } = await t.app.services.accounts.createApiKey(t.account.id, 'sandbox', TEST_ACTOR, { scopes })
      const signedIn = await t.app.services.sessions.signIn(key, 'sandbox')
      assert.ok(signedIn.signedIn)
      return { cookie: `${sessionCookieName('sandbox')}=${signedIn.token}`, csrfToken: signedIn.csrfToken }
    }
    const get = (session: Session, url: string, extraCookie = '') =>
      t.sandbox({ method: 'GET', url, headers: { cookie: `${session.cookie}${extraCookie}` } }, null)
    const post = (session: Session, url: string, form: [string, string][] = []) =>
      t.sandbox(
        {
          method: 'POST',
          url,
          payload: new URLSearchParams([['_csrf', session.csrfToken], ...form]).toString(),
          headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        },
        null,
      )
    /** A post that redirects with a notice: the page it lands on, showing that notice. */
    const postAndFollow = async (session: Session, url: string, form: [string, string][] = []) => {
      const sent = await post(session, url, form)
      assert.equal(sent.statusCode, 303, `${url}: ${sent.body}`)
      const notice = sent.cookies.find((cookie) => cookie.name === NOTICE_COOKIE)
      assert.ok(notice, `${url} sets a notice`)
      const landed = await get(
        session,
        String(sent.headers.location),
        `; ${NOTICE_COOKIE}=${encodeURIComponent(notice.value)}`,
      )
      assert.equal(landed.statusCode, 200, landed.body)
      return landed.body
    }
    const webhookOf = async (id: string) => {
      const answer = await t.sandbox({ method: 'GET', url: `/v4.0/webhooks/${id}` })
      return { status: answer.statusCode, webhook: json(answer).webhook }
    }

    before(async () => {
      receiver = await startCallbackReceiver({ respond: () => answer })
      images = await startImageServer()
      t = await startTestApp({ kind })
      full = await signIn(null)
      pages = await startAdminPages((scope, console) =>
        registerCallbacksPages(scope, console, t.app.services.adminViews.callbacks),
      )
    })
    after(async () => {
      await pages.close()
      await t.close()
      await receiver.close()
      await images.close()
    })

    test('the view is in the Developers navigation, lists no endpoint yet and offers the create form', async () => {
      const developers = await get(full, '/dashboard/developers/callbacks')
      assert.match(developers.body, /href="\/dashboard\/developers\/webhooks">Webhooks<\/a>/)
      const list = await get(full, '/dashboard/developers/webhooks')
      assert.equal(list.statusCode, 200, list.body)
      assert.match(list.body, /No webhook endpoints yet/)
      assert.match(list.body, /<form method="post" action="\/dashboard\/developers\/webhooks"/)
      assert.match(list.body, /<legend>Shipments<\/legend>/)
      assert.match(list.body, new RegExp(`value="${SHIPMENT_SHIPPED}"`))
    })

    test('a refused form shows each failure next to its field and keeps what was typed', async () => {
      const refused = await post(full, '/dashboard/developers/webhooks', [
        ['url', 'ftp://shop.example/events'],
        ['eventTypes', SHIPMENT_SHIPPED],
        ['otherEventTypes', 'com.printroute.order.shipmets.*'],
        ['metadataFilter', 'channel=shop-eu'],
        ['enabled', 'true'],
      ])
      assert.equal(refused.statusCode, 400, refused.body)
      assert.match(refused.body, /The endpoint was not added/)
      assert.match(refused.body, /<a href="#webhook-url">URL<\/a>/)
      assert.match(refused.body, /id="webhook-url"[^>]*aria-invalid="true"/)
      assert.match(refused.body, /value="ftp:\/\/shop.example\/events"/, 'the URL as typed')
      assert.match(refused.body, />com.printroute.order.shipmets.\*<\/textarea>/)
      assert.match(refused.body, new RegExp(`value="${SHIPMENT_SHIPPED}" checked`))

      const typo = await post(full, '/dashboard/developers/webhooks', [
        ['url', receiver.url('/shop')],
        ['otherEventTypes', 'com.printroute.order.shipmets.*'],
      ])
      assert.equal(typo.statusCode, 400, typo.body)
      assert.match(
        typo.body,
        /<a href="#webhook-other-types">Event type &quot;com.printroute.order.shipmets.\*&quot;<\/a> must be one of: /,
      )
      assert.match(typo.body, /<p class="field-error" id="webhook-other-types-error">/)

      const badLine = await post(full, '/dashboard/developers/webhooks', [
        ['url', receiver.url('/shop')],
        ['metadataFilter', 'channel shop-eu'],
      ])
      assert.equal(badLine.statusCode, 400, badLine.body)
      assert.match(
        badLine.body,
        /<a href="#webhook-metadata">Metadata filter<\/a> is not valid: line 1 is not key=value/,
      )
      assert.equal(json(await t.sandbox({ method: 'GET', url: '/v4.0/webhooks' })).webhooks.length, 0)
    })

    let endpointId = ''

    test('creating shows the signing secret once; the list shows the filter in words and exactly', async () => {
      const created = await post(full, '/dashboard/developers/webhooks', [
        ['url', receiver.url('/shop')],
        ['description', 'The shop'],
        ['eventTypes', SHIPMENT_SHIPPED],
        ['otherEventTypes', 'com.printroute.order.status.*'],
        ['metadataFilter', 'channel=shop-eu\nvip=true'],
        ['enabled', 'true'],
      ])
      assert.equal(created.statusCode, 200, created.body)
      const secret = /<code id="new-signing-secret">(whsec_[^<]+)<\/code>/.exec(created.body)?.[1]
      assert.ok(secret, 'the secret is shown')
      endpointId = /data-webhook="(whk_\d+)"/.exec(created.body)?.[1] ?? ''
      const { webhook } = await webhookOf(endpointId)
      assert.deepEqual(webhook.eventTypes, [SHIPMENT_SHIPPED, 'com.printroute.order.status.*'])
      assert.deepEqual(webhook.metadataFilter, { channel: 'shop-eu', vip: true })
      assert.equal(webhook.description, 'The shop')
      assert.equal(webhook.enabled, true)
      assert.ok(secret.startsWith(webhook.signingSecretPrefix))

      const list = await get(full, '/dashboard/developers/webhooks')
      assert.doesNotMatch(list.body, new RegExp(secret), 'shown once only')
      assert.match(list.body, /A shipment was dispatched|shipment/i)
      assert.match(list.body, /every event starting com.printroute.order.status./)
      assert.match(list.body, /<code class="event-type">com.printroute.order.status.\*<\/code>/)
      assert.match(list.body, /<code>channel<\/code> = <code>&quot;shop-eu&quot;<\/code>/)
      assert.match(list.body, /Enabled/)
    })

    test("the endpoint's page: test send, edit, disable and enable, rotate, delete with a confirmation", async () => {
      const page = await get(full, `/dashboard/developers/webhooks/${endpointId}`)
      assert.equal(page.statusCode, 200, page.body)
      assert.match(page.body, /No deliveries to this endpoint yet/)
      const metadataBox = /name="metadataFilter"[^>]*>([^<]*)<\/textarea>/.exec(page.body)?.[1] ?? ''
      assert.deepEqual(metadataBox.split('\n').sort(), ['channel=shop-eu', 'vip=true'])

      answer = 200
      const before = receiver.received.length
      const tested = await postAndFollow(full, `/dashboard/developers/webhooks/${endpointId}/test`)
      assert.match(
        tested,
        /Test callback cbd_\d+ to http:\/\/127.0.0.1:\d+\/shop delivered: HTTP 200 in \d+ ms; the receiver said: thanks/,
      )
      assert.equal(receiver.received.length, before + 1)
      assert.equal(receiver.received.at(-1)?.event.type, 'com.printroute.test')
      assert.match(tested, /<table class="callbacks phone-cards">/, 'the test delivery is listed')

      const edited = await postAndFollow(full, `/dashboard/developers/webhooks/${endpointId}`, [
        ['url', receiver.url('/shop2')],
        ['description', ''],
        ['eventTypes', SHIPMENT_SHIPPED],
        ['otherEventTypes', ''],
        ['metadataFilter', ''],
      ])
      assert.match(edited, new RegExp(`Endpoint ${endpointId} saved`))
      let { webhook } = await webhookOf(endpointId)
      assert.equal(webhook.url, receiver.url('/shop2'))
      assert.equal(webhook.description, null)
      assert.deepEqual(webhook.eventTypes, [SHIPMENT_SHIPPED])
      assert.deepEqual(webhook.metadataFilter, {})

      const refused = await post(full, `/dashboard/developers/webhooks/${endpointId}`, [
        ['url', receiver.url('/shop3')],
        ['otherEventTypes', 'com.printroute.nothing'],
      ])
      assert.equal(refused.statusCode, 400, refused.body)
      assert.match(refused.body, /The endpoint was not changed/)
      assert.match(refused.body, /Event type &quot;com.printroute.nothing&quot;/)

      const disabled = await postAndFollow(full, `/dashboard/developers/webhooks/${endpointId}/enabled`, [
        ['enabled', 'false'],
      ])
      assert.match(disabled, /is disabled: it receives nothing/)
      assert.match(disabled, /Disabled by hand/)
      ;({ webhook } = await webhookOf(endpointId))
      assert.equal(webhook.disabledReason, 'manual')
      const enabled = await postAndFollow(full, `/dashboard/developers/webhooks/${endpointId}/enabled`, [
        ['enabled', 'true'],
      ])
      assert.match(enabled, /is enabled: it receives/)
      assert.equal((await webhookOf(endpointId)).webhook.enabled, true)

      const rotated = await post(full, `/dashboard/developers/webhooks/${endpointId}/rotate`, [['overlap', '3600']])
      assert.equal(rotated.statusCode, 200, rotated.body)
      const secret = /<code id="new-signing-secret">(whsec_[^<]+)<\/code>/.exec(rotated.body)?.[1]
      assert.ok(secret)
      ;({ webhook } = await webhookOf(endpointId))
      assert.ok(secret.startsWith(webhook.signingSecretPrefix))
      assert.ok(webhook.previousSigningSecretExpiresAt)

      const confirm = await get(full, `/dashboard/developers/webhooks/${endpointId}/delete`)
      assert.equal(confirm.statusCode, 200, confirm.body)
      assert.match(confirm.body, /Delete webhook endpoint whk_\d+\?/)
      assert.equal((await webhookOf(endpointId)).status, 200, 'nothing is deleted by the confirmation page')
      const deleted = await postAndFollow(full, `/dashboard/developers/webhooks/${endpointId}/delete`)
      assert.match(deleted, new RegExp(`Endpoint ${endpointId} \\(http://127.0.0.1:\\d+/shop2\\) is deleted`))
      assert.equal((await webhookOf(endpointId)).status, 404)
      const gone = await get(full, `/dashboard/developers/webhooks/${endpointId}`)
      assert.equal(gone.statusCode, 404)
      assert.match(gone.body, /No webhook endpoint/)
    })

    test('an endpoint disabled for failing: the page explains it and offers re-enabling; the console lists it', async () => {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/webhooks',
        headers: { 'content-type': 'application/json' },
        payload: { url: receiver.url('/broken') },
      })
      assert.equal(created.statusCode, 201, created.body)
      const id = json(created).webhook.id as string
      answer = 500
      const sent = await t.sandbox({ method: 'POST', url: `/v4.0/webhooks/${id}/test` })
      assert.equal(sent.statusCode, 200, sent.body)

      // The state three days of failures leave (the automatic disabling itself is the failure lifecycle's test).
      await t.database.db.query(
        `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', disabled_at = $2,
                failing_since = $3, missed_since = $3, last_attempt_at = $2
          WHERE id = $1`,
        [Number(id.slice(4)), new Date('2026-03-04T09:00:00Z'), new Date('2026-03-01T09:00:00Z')],
      )
      const page = await get(full, `/dashboard/developers/webhooks/${id}`)
      assert.match(page.body, /<h2 id="failing-heading">Disabled for failing<\/h2>/)
      assert.match(page.body, /Re-enable and redeliver what it missed/)
      assert.match(
        page.body,
        new RegExp(`<li class="webhook-disabled">Webhook endpoint <a href="/dashboard/developers/webhooks/${id}">`),
        "the Developers banner links the endpoint's page",
      )
      assert.match(page.body, /Disabled for failing/)
      assert.doesNotMatch(page.body, /value="true"><button type="submit">Enable/, 'no plain Enable beside it')

      const health = await pages.request('/admin/callbacks')
      assert.equal(health.status, 200)
      const row = new RegExp(
        `<tr data-account="${t.account.id}" data-environment="sandbox" data-webhook="${id}">[\\s\\S]*?</tr>`,
      ).exec(health.body)?.[0]
      assert.ok(row, health.body)
      assert.match(row, /broken/)
      assert.match(row, /2026-03-01 09:00 UTC/)
      assert.match(row, /Disabled/)
      assert.match(row, /HTTP 500: error 500/)
      assert.doesNotMatch(health.body, /data-failed-deliveries/, "a webhook's failure is not the callback URL's")

      // An order event it missed while disabled: the order's cancellation.
      const placed = await t.sandbox({
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
      assert.equal(placed.statusCode, 200, placed.body)
      const cancelled = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${json(placed).order.id}/actions/cancel`,
      })
      assert.equal(cancelled.statusCode, 200, cancelled.body)
      const missed = json(await t.sandbox({ method: 'GET', url: '/v4.0/events?top=100' })).events.length
      assert.ok(missed > 0, 'the order has events')

      const recovered = await postAndFollow(full, `/dashboard/developers/webhooks/${id}/recover`)
      assert.match(
        recovered,
        new RegExp(
          `Endpoint ${id} is enabled again\\. ${missed === 1 ? '1 event' : `${missed} events`} it missed since 2026-03-01 09:00 UTC (is|are) being redelivered\\.`,
        ),
      )
      const { webhook } = await webhookOf(id)
      assert.equal(webhook.enabled, true)
      assert.equal(webhook.disabledReason, null)
      assert.doesNotMatch(recovered, /id="failing-heading"/)
      const deliveries = json(
        await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?webhookId=${id}&top=100` }),
      ).callbacks
      assert.equal(
        deliveries.filter((delivery: { orderId: string | null }) => delivery.orderId !== null).length,
        missed,
      )
      const healthy = await pages.request('/admin/callbacks')
      assert.doesNotMatch(healthy.body, new RegExp(`data-webhook="${id}"`), 'enabled again: off the list')
    })

    test('a key without webhooks:manage: no Webhooks link, and the page says why', async () => {
      const readOnly = await signIn(['orders:read', 'account:read'])
      const developers = await get(readOnly, '/dashboard/developers/activity')
      assert.doesNotMatch(developers.body, /href="\/dashboard\/developers\/webhooks"/)
      const page = await get(readOnly, '/dashboard/developers/webhooks')
      assert.equal(page.statusCode, 200)
      assert.match(page.body, /lacks the <code>webhooks:manage<\/code> scope/)
      assert.doesNotMatch(page.body, /<form method="post" action="\/dashboard\/developers\/webhooks"/)
      const refused = await postAndFollow(readOnly, '/dashboard/developers/webhooks/whk_1/test')
      assert.match(refused, /role="alert">This key cannot see or send callbacks/)
    })
  })
}
